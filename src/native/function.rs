//! Native replay of function-check tests: both bitcode files compiled by clang (the
//! toolchain's, clang-19) to objects whose every defined symbol is renamed apart (`llvm-nm`,
//! `llvm-objcopy --redefine-syms`), linked once with a generated C driver (and `-lm`) into one executable
//! per directory of tests. The driver reads a test's parameter bytes on stdin, calls one
//! side's function with them (scalars of their LLVM widths, each buffer in its own pages
//! with a guard page after it, so that a write or read past its end faults), and prints the
//! return value's bits and the buffers' final bytes on one line; each side runs in its own
//! process, so a crash or `exit` of one is its own end. The two ends are compared as the
//! check compares them: return bits, or `--fp-equal`/`--fp-tolerance` for floats (evaluated
//! by the engine's own [`FpEquality::differ`] on constants), pointers relative to the
//! buffers, the compared buffers' bytes.

use super::{run_native, NativeEnv};
use crate::crosscheck::float::display_float;
use crate::crosscheck::{
    display_buffer, display_int, display_unsigned, FpEquality, ParamSpec, Signature,
};
use crate::error::{Error, Result};
use crate::expr::{mask, ExprPool};
use crate::ktest::KTest;
use crate::stop::Stop;
use crate::toolchain::{CLANG, LLVM_NM as NM, LLVM_OBJCOPY as OBJCOPY};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The last line of the driver's stdout starts with this.
const MARKER: &str = "xcheck-native:";

/// Exit status of the driver when its input is not what it was built for.
const BAD_INPUT_STATUS: i32 = 97;

/// One native executable for a function pair, and what it needs to read its output.
pub struct FunctionBuild {
    /// The scratch directory holding the executable (removed on drop).
    _dir: tempfile::TempDir,
    exe: PathBuf,
    shape: Shape,
}

/// What the driver passes and prints, from the check's signature.
#[derive(Clone, Debug)]
struct Shape {
    params: Vec<ParamSpec>,
    ret_width: Option<u32>,
    ret_is_pointer: bool,
    ret_is_float: bool,
    fp_equality: FpEquality,
    compare_buffers: bool,
    /// Whether the check compares the harness's `errno` (a side reaches it, as musl's
    /// stdio does): the driver sets it from the test before the call and prints it after.
    errno: bool,
}

/// Whether the check's compared globals are only the harness's `errno`, one object both
/// sides share, which the driver can set and read as the C library's `errno`.
fn errno_only(sig: &Signature) -> bool {
    matches!(sig.globals.shared.as_slice(), [g] if g.name == "errno" && g.a == g.b && g.size == 4)
}

/// The ktest object of the check's `errno`.
const ERRNO_OBJECT: &str = "global.errno";

/// How one side's call ended natively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FnEnd {
    /// It returned: the value's bits (masked to its width; a pointer as its place), each
    /// buffer parameter's final bytes, `errno` after the call (when the check compares it)
    /// and what the call wrote to stdout.
    Returned {
        value: Option<RetValue>,
        buffers: Vec<Vec<u8>>,
        errno: Option<u32>,
        stdout: Vec<u8>,
    },
    /// It called `exit` with this status (the driver never exits otherwise).
    /// (What it wrote to stdout before, which `exit` flushed, compared too.)
    Exited(i32, Vec<u8>),
    /// A signal killed it.
    Signal(i32),
    TimedOut,
}

/// A returned value as the comparison sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetValue {
    Bits(u128),
    /// A pointer into (or one past) buffer parameter `index` (counting buffers only).
    InBuffer {
        index: usize,
        offset: u64,
    },
    /// Any other pointer, by address.
    Address(u64),
}

/// Why a test (or a check) cannot be replayed natively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether the check as a whole can run natively: no compared globals (their bytes would
/// be inputs the driver cannot set apart per side), no `byval` parameter (its C ABI is not
/// the pointer the engine sees), integer widths C has.
pub fn supported(sig: &Signature) -> std::result::Result<(), Unsupported> {
    // Vectors and aggregates by value travel in vector registers or memory: the driver's
    // C types would read them from the wrong places.
    if sig.type_text.contains(['<', '{', '[']) {
        return Err(Unsupported(format!(
            "the function takes or returns a vector or aggregate by value ({})",
            sig.type_text
        )));
    }
    if let Some(g) = sig.globals.shared.first().filter(|_| !errno_only(sig)) {
        return Err(Unsupported(format!(
            "the check compares global '{}' ({} compared global{})",
            g.name,
            sig.globals.shared.len(),
            if sig.globals.shared.len() == 1 {
                ""
            } else {
                "s"
            }
        )));
    }
    for p in &sig.params {
        if p.alias.is_some() {
            return Err(Unsupported(format!(
                "parameter '{}' points into an object shared with others (--alias)",
                p.name
            )));
        }
        if p.buffer.is_some() && !p.compared {
            return Err(Unsupported(format!(
                "parameter '{}' is a struct passed by value (byval)",
                p.name
            )));
        }
        if p.buffer.is_none() && p.float && p.width != 32 && p.width != 64 {
            return Err(Unsupported(format!(
                "parameter '{}' is a {}-bit float, neither float nor double",
                p.name, p.width
            )));
        }
        if p.buffer.is_none() && c_int_type(p.width, true).is_none() && !p.float {
            return Err(Unsupported(format!(
                "parameter '{}' has {} bits, no C type",
                p.name, p.width
            )));
        }
    }
    if let Some(w) = sig.ret_width {
        if sig.ret_is_float && w != 32 && w != 64 {
            return Err(Unsupported(format!(
                "the return value is a {w}-bit float, neither float nor double"
            )));
        }
        if !sig.ret_is_float && !sig.ret_is_pointer && c_int_type(w, true).is_none() {
            return Err(Unsupported(format!(
                "the return value has {w} bits, no C type"
            )));
        }
    }
    Ok(())
}

/// The C integer type of `width` bits.
fn c_int_type(width: u32, signed: bool) -> Option<&'static str> {
    Some(match (width, signed) {
        (1, _) => "_Bool",
        (8, true) => "int8_t",
        (8, false) => "uint8_t",
        (16, true) => "int16_t",
        (16, false) => "uint16_t",
        (32, true) => "int32_t",
        (32, false) => "uint32_t",
        (64, true) => "int64_t",
        (64, false) => "uint64_t",
        (128, true) => "__int128",
        (128, false) => "unsigned __int128",
        _ => return None,
    })
}

/// The C type of a parameter as the callee's ABI receives it.
fn param_c_type(p: &ParamSpec) -> &'static str {
    if p.buffer.is_some() {
        return "unsigned char *";
    }
    if p.float {
        return if p.width == 32 { "float" } else { "double" };
    }
    // Signedness matters for the caller's extension of narrow integers.
    c_int_type(p.width, p.assume_type().0.signed()).unwrap_or("int64_t")
}

/// Builds the native executable of `a_bc:a_name` against `b_bc:b_name` for `sig` (the
/// check's signature), in a fresh scratch directory.
pub fn build(
    (a_bc, a_name): (&Path, &str),
    (b_bc, b_name): (&Path, &str),
    sig: &Signature,
    compare_buffers: bool,
) -> Result<FunctionBuild> {
    supported(sig).map_err(|u| Error::Usage(format!("--native: not supported natively: {u}")))?;
    let dir = tempfile::Builder::new()
        .prefix("xcheck-native-fn-")
        .tempdir()
        .map_err(|e| Error::Usage(format!("--native: cannot make a scratch directory: {e}")))?;
    let shape = Shape {
        params: sig.params.clone(),
        ret_width: sig.ret_width,
        ret_is_pointer: sig.ret_is_pointer,
        ret_is_float: sig.ret_is_float,
        fp_equality: sig.fp_equality,
        compare_buffers,
        errno: errno_only(sig),
    };
    let mut objects = Vec::new();
    for (tag, bc, name) in [("a", a_bc, a_name), ("b", b_bc, b_name)] {
        let object = dir.path().join(format!("{tag}.o"));
        run_tool(
            Command::new(CLANG)
                // A section per function and object: the link keeps only what the driver
                // reaches, so a whole library's other functions may call what is not
                // there (musl's internals, under glibc).
                .args([
                    "-c",
                    "-Wno-override-module",
                    "-ffunction-sections",
                    "-fdata-sections",
                ])
                .arg(bc)
                .arg("-o")
                .arg(&object),
            bc,
        )?;
        rename_defined(&object, &format!("xc_{tag}_"), bc, name)?;
        objects.push(object);
    }
    let driver = dir.path().join("driver.c");
    std::fs::write(&driver, driver_source(&shape, a_name, b_name)).map_err(|e| Error::Output {
        path: driver.clone(),
        source: e,
    })?;
    let exe = dir.path().join("driver");
    run_tool(
        Command::new(CLANG)
            .args(["-O1", "-w", "-no-pie", "-Wl,--gc-sections"])
            .arg(&driver)
            .args(&objects)
            .args(["-lm", "-o"])
            .arg(&exe),
        &driver,
    )?;
    Ok(FunctionBuild {
        _dir: dir,
        exe,
        shape,
    })
}

/// Runs one tool, its failure an input error naming `file` with the tool's first line of
/// complaint.
fn run_tool(command: &mut Command, file: &Path) -> Result<std::process::Output> {
    let program = command.get_program().to_string_lossy().into_owned();
    let out = command
        .output()
        .map_err(|e| Error::Usage(format!("--native: cannot run {program}: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .find(|l| l.contains("error"))
            .or_else(|| stderr.lines().next())
            .unwrap_or("no message");
        return Err(Error::input(
            file,
            format!("{program} failed ({}): {first}", out.status),
        ));
    }
    Ok(out)
}

/// Renames every symbol `object` defines to `prefix` + its name, and checks that `function`
/// is among them.
fn rename_defined(object: &Path, prefix: &str, bc: &Path, function: &str) -> Result<()> {
    let out = run_tool(
        Command::new(NM)
            .args(["--defined-only", "--format=just-symbols"])
            .arg(object),
        bc,
    )?;
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.starts_with(".L"))
        .map(String::from)
        .collect();
    if !names.iter().any(|n| n == function) {
        return Err(Error::input(
            bc,
            format!("no function '{function}' is defined in its native object"),
        ));
    }
    let mut list = String::new();
    for n in &names {
        let _ = writeln!(list, "{n} {prefix}{n}");
    }
    let file = object.with_extension("syms");
    std::fs::write(&file, list).map_err(|e| Error::Output {
        path: file.clone(),
        source: e,
    })?;
    run_tool(
        Command::new(OBJCOPY)
            .arg("--redefine-syms")
            .arg(&file)
            .arg(object),
        bc,
    )?;
    Ok(())
}

/// The C driver: reads the parameters' bytes (in order, each its object's size) on stdin,
/// calls side `argv[1]` (`a` or `b`), prints the result line.
fn driver_source(shape: &Shape, a_name: &str, b_name: &str) -> String {
    let mut c = String::new();
    c.push_str(
        "/* Generated by xcheck replay --native for a function check. */\n\
         #define _GNU_SOURCE\n#include <errno.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\
         #include <string.h>\n#include <unistd.h>\n#include <sys/mman.h>\n\n",
    );
    let ret_type = match shape.ret_width {
        None => "void",
        Some(_) if shape.ret_is_pointer => "unsigned char *",
        Some(32) if shape.ret_is_float => "float",
        Some(_) if shape.ret_is_float => "double",
        Some(w) => c_int_type(w, false).unwrap_or("uint64_t"),
    };
    let decl: Vec<&str> = shape.params.iter().map(param_c_type).collect();
    let decl = if decl.is_empty() {
        "void".to_string()
    } else {
        decl.join(", ")
    };
    for (tag, name) in [("a", a_name), ("b", b_name)] {
        let _ = writeln!(c, "{ret_type} xc_{tag}_{name}({decl});");
    }
    // Each buffer's bytes come after their count (4 bytes), as a buffer that grew on the
    // test's path (`--buffer-cap`) is longer than its first size.
    let total: u32 = shape.params.iter().map(max_bytes).sum();
    let total = total + if shape.errno { 4 } else { 0 };
    let _ = write!(
        c,
        "\n/* A buffer of n bytes that ends where a PROT_NONE page begins. */\n\
         static unsigned char *guarded(size_t n)\n{{\n\
         \x20   size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (n + page - 1) / page * page;\n\
         \x20   unsigned char *m = mmap(NULL, data + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n\
         \x20   if (m == MAP_FAILED || mprotect(m + data, page, PROT_NONE) != 0)\n\
         \x20       exit({BAD_INPUT_STATUS});\n\
         \x20   return m + data - n;\n}}\n\n\
         static void hex(const unsigned char *p, size_t n)\n{{\n\
         \x20   for (size_t i = 0; i < n; i++)\n        printf(\"%02x\", p[i]);\n}}\n\n\
         int main(int argc, char **argv)\n{{\n\
         \x20   static unsigned char in[{total} + 1];\n\
         \x20   size_t got = 0, r;\n\
         \x20   if (argc != 2 || (argv[1][0] != 'a' && argv[1][0] != 'b'))\n        return {BAD_INPUT_STATUS};\n\
         \x20   while ((r = fread(in + got, 1, sizeof in - got, stdin)) > 0)\n        got += r;\n\
         \x20   size_t off = 0;\n",
    );
    let mut args = Vec::new();
    let mut buffers = Vec::new();
    let take = |n: &str| format!("    if (got - off < {n})\n        return {BAD_INPUT_STATUS};");
    for (i, p) in shape.params.iter().enumerate() {
        let size = p.object_size();
        if p.buffer.is_some() {
            let most = most_object_bytes(p);
            let _ = writeln!(
                c,
                "{}\n    uint32_t n{i};\n    memcpy(&n{i}, in + off, 4);\n    off += 4;\n    if (n{i} < {size} || n{i} > {most})\n        return {BAD_INPUT_STATUS};\n{}",
                take("4"),
                take(&format!("n{i}"))
            );
            if p.offset.is_some() {
                // The object at a 16-byte boundary, the buffer at the test's offset in it.
                let _ = writeln!(
                    c,
                    "    unsigned char *b{i} = guarded((n{i} + {ALIGN_MASK}) & ~(size_t){ALIGN_MASK});\n    memcpy(b{i}, in + off, n{i});\n    off += n{i};\n{}\n    if (in[off] > {ALIGN_MASK})\n        return {BAD_INPUT_STATUS};\n    unsigned char *p{i} = b{i} + in[off];\n    off += 1;",
                    take("1")
                );
            } else {
                let _ = writeln!(
                    c,
                    "    unsigned char *b{i} = guarded(n{i}), *p{i} = b{i};\n    memcpy(b{i}, in + off, n{i});\n    off += n{i};"
                );
            }
            buffers.push(i);
        } else if p.width == 1 {
            let _ = writeln!(
                c,
                "{}\n    _Bool p{i} = in[off] & 1;\n    off += 1;",
                take("1")
            );
        } else {
            let _ = writeln!(
                c,
                "{}\n    {t} p{i};\n    memcpy(&p{i}, in + off, sizeof p{i});\n    off += {size};",
                take(&size.to_string()),
                t = param_c_type(p)
            );
        }
        args.push(format!("p{i}"));
    }
    if shape.errno {
        let _ = writeln!(
            c,
            "{}\n    int errno_in;\n    memcpy(&errno_in, in + off, 4);\n    off += 4;",
            take("4")
        );
    }
    let _ = writeln!(c, "    if (off != got)\n        return {BAD_INPUT_STATUS};");
    let call = format!(
        "argv[1][0] == 'a' ? xc_a_{a_name}({0}) : xc_b_{b_name}({0})",
        args.join(", ")
    );
    c.push_str("    fflush(stdout);\n");
    // errno as the test gives it, set last before the call, read first after it.
    let (set_errno, get_errno) = if shape.errno {
        ("errno = errno_in;\n    ", "\n    int errno_out = errno;")
    } else {
        ("", "")
    };
    match shape.ret_width {
        None => {
            let _ = writeln!(
                c,
                "    {set_errno}if (argv[1][0] == 'a')\n        xc_a_{a_name}({0});\n    else\n        xc_b_{b_name}({0});{get_errno}\n    fflush(stdout);\n    printf(\"\\n{MARKER} ret=-\");",
                args.join(", ")
            );
        }
        Some(_) if shape.ret_is_pointer => {
            let _ = writeln!(
                c,
                "    {set_errno}unsigned char *ret = {call};{get_errno}\n    fflush(stdout);\n    printf(\"\\n{MARKER} ret=\");"
            );
            let mut cond = String::new();
            for (k, &i) in buffers.iter().enumerate() {
                let _ = write!(
                    cond,
                    "if (ret >= b{i} && ret <= b{i} + n{i})\n        printf(\"buf%d+%zu\", {k}, (size_t)(ret - p{i}));\n    else "
                );
            }
            let _ = writeln!(
                c,
                "    {cond}printf(\"addr%llx\", (unsigned long long)(uintptr_t)ret);"
            );
        }
        Some(_) => {
            let _ = writeln!(
                c,
                "    {set_errno}{ret_type} ret = {call};{get_errno}\n    fflush(stdout);\n    printf(\"\\n{MARKER} ret=\");\n    hex((const unsigned char *)&ret, sizeof ret);"
            );
        }
    }
    for i in &buffers {
        let _ = writeln!(c, "    printf(\" buf=\");\n    hex(b{i}, n{i});");
    }
    if shape.errno {
        c.push_str("    printf(\" errno=\");\n    hex((const unsigned char *)&errno_out, 4);\n");
    }
    c.push_str("    printf(\"\\n\");\n    return 0;\n}\n");
    c
}

/// The most bytes the driver reads for parameter `p`: a buffer's count and its bytes, up to
/// its cap when it grows on demand; a scalar's bytes.
fn max_bytes(p: &ParamSpec) -> u32 {
    match p.buffer {
        Some(_) => 4 + most_object_bytes(p) + u32::from(p.offset.is_some()),
        None => p.object_size(),
    }
}

/// The most bytes a test holds for buffer parameter `p`'s object: its size, or its cap when
/// it grows on demand, and the bytes before the buffer under `--buffer-offset`.
fn most_object_bytes(p: &ParamSpec) -> u32 {
    let n = p.buffer.unwrap_or(0);
    p.cap.unwrap_or(n).max(n) + p.lead()
}

/// A buffer object's alignment under `--buffer-offset`, less one.
const ALIGN_MASK: u32 = crate::crosscheck::BUFFER_ALIGN - 1;

/// Each parameter's object in `test` (by name, else by position, as the engine's replay
/// takes them), in parameter order: a buffer's of its size or, when it grows on demand,
/// up to its cap.
fn objects_of<'t>(shape: &Shape, test: &'t KTest) -> std::result::Result<Vec<&'t [u8]>, String> {
    let mut out = Vec::new();
    for (i, p) in shape.params.iter().enumerate() {
        let object = test
            .objects
            .iter()
            .find(|o| o.name == p.name)
            .or_else(|| test.objects.get(i))
            .ok_or_else(|| format!("the test has no object for parameter '{}'", p.name))?;
        let size = p.object_size();
        let most = if p.buffer.is_some() {
            most_object_bytes(p)
        } else {
            size
        };
        let len = object.bytes.len() as u32;
        if len < size || len > most {
            let needs = if most > size {
                format!("{size} to {most}")
            } else {
                size.to_string()
            };
            return Err(format!(
                "test object '{}' has {len} bytes, parameter '{}' needs {needs}",
                object.name, p.name
            ));
        }
        out.push(object.bytes.as_slice());
        let name = format!("{}{}", p.name, crate::crosscheck::OFFSET_SUFFIX);
        if p.offset.is_none() && test.objects.iter().any(|o| o.name == name) {
            return Err(format!(
                "the test has an object '{name}': it was made with --buffer-offset, which its replay needs too"
            ));
        }
        if p.offset.is_some() {
            let offset = test
                .objects
                .iter()
                .find(|o| o.name == name)
                .filter(|o| o.bytes.len() == 1)
                .ok_or_else(|| format!("the test has no one-byte object '{name}'"))?;
            out.push(offset.bytes.as_slice());
        }
    }
    Ok(out)
}

/// The bytes the driver reads for `test`: each parameter's object in parameter order, a
/// buffer's after its count (4 bytes, little-endian).
fn input_of(shape: &Shape, test: &KTest) -> std::result::Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let objects = objects_of(shape, test)?;
    let mut objects = objects.iter();
    for p in &shape.params {
        let object = objects.next().copied().unwrap_or_default();
        if p.buffer.is_some() {
            bytes.extend_from_slice(&(object.len() as u32).to_le_bytes());
        }
        bytes.extend_from_slice(object);
        if p.offset.is_some() {
            bytes.extend_from_slice(objects.next().copied().unwrap_or_default());
        }
    }
    if shape.errno {
        // A check whose globals are not inputs (`--globals initial`) starts errno at 0.
        let errno = test.objects.iter().find(|o| o.name == ERRNO_OBJECT);
        match errno.map(|o| o.bytes.as_slice()) {
            Some(b) if b.len() == 4 => bytes.extend_from_slice(b),
            Some(_) => return Err(format!("test object '{ERRNO_OBJECT}' is not 4 bytes")),
            None => bytes.extend_from_slice(&[0; 4]),
        }
    }
    Ok(bytes)
}

/// What one test did natively.
pub struct FnRun {
    /// The parameters as the report shows them: `name = value`.
    pub inputs: Vec<String>,
    pub a: FnEnd,
    pub b: FnEnd,
    /// Whether the two ends differ as the check compares them.
    pub differ: bool,
}

impl FunctionBuild {
    /// Runs both sides on `test` (each at most `timeout`, and until `stop` says to stop).
    pub fn run(
        &self,
        test_path: &Path,
        test: &KTest,
        timeout: Duration,
        stop: &Stop,
    ) -> Result<FnRun> {
        let stdin = input_of(&self.shape, test).map_err(|m| Error::input(test_path, m))?;
        let side = |tag: &str| -> Result<FnEnd> {
            let env = NativeEnv {
                argv: vec![b"driver".to_vec(), tag.as_bytes().to_vec()],
                stdin: stdin.clone(),
                stdin_stat: None,
                files: Vec::new(),
            };
            let run = run_native(&self.exe, &env, timeout, stop)
                .map_err(|e| Error::input(&self.exe, format!("cannot run: {e}")))?;
            if run.timed_out {
                return Ok(FnEnd::TimedOut);
            }
            if let Some(sig) = run.signal {
                return Ok(FnEnd::Signal(sig));
            }
            let status = run.status.unwrap_or(0);
            if status == BAD_INPUT_STATUS {
                return Err(Error::input(
                    test_path,
                    "the native driver rejected the test's bytes",
                ));
            }
            match self.parse(&run.stdout) {
                Some(end) if status == 0 => Ok(end),
                _ => Ok(FnEnd::Exited(status, run.stdout.clone())),
            }
        };
        let (a, b) = (side("a")?, side("b")?);
        let differ = self.differ(&a, &b);
        let inputs = self.inputs(test);
        Ok(FnRun {
            inputs,
            a,
            b,
            differ,
        })
    }

    /// The result line at the end of the driver's stdout, if it got there.
    fn parse(&self, stdout: &[u8]) -> Option<FnEnd> {
        // What the call printed comes before the result line (the driver prints nothing
        // before the call).
        let marker = format!("\n{MARKER}");
        let printed = stdout
            .windows(marker.len())
            .rposition(|w| w == marker.as_bytes())
            .map(|k| stdout[..k].to_vec())?;
        let text = String::from_utf8_lossy(stdout);
        let line = text.rsplit_once(&format!("\n{MARKER}"))?.1.trim();
        let mut words = line.split(' ');
        let ret = words.next()?.strip_prefix("ret=")?;
        let value = match self.shape.ret_width {
            None => None,
            Some(_) if self.shape.ret_is_pointer => {
                Some(if let Some(a) = ret.strip_prefix("addr") {
                    RetValue::Address(u64::from_str_radix(a, 16).ok()?)
                } else {
                    let (k, off) = ret.strip_prefix("buf")?.split_once('+')?;
                    RetValue::InBuffer {
                        index: k.parse().ok()?,
                        offset: off.parse().ok()?,
                    }
                })
            }
            Some(w) => {
                let bytes = unhex(ret)?;
                let bits = bytes
                    .iter()
                    .rev()
                    .fold(0u128, |acc, &b| (acc << 8) | u128::from(b));
                Some(RetValue::Bits(mask(w, bits)))
            }
        };
        let mut errno = None;
        let mut buffers = Vec::new();
        for w in words {
            if let Some(e) = w.strip_prefix("errno=") {
                let b = unhex(e).filter(|b| b.len() == 4)?;
                errno = Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            } else {
                buffers.push(w.strip_prefix("buf=").and_then(unhex)?);
            }
        }
        Some(FnEnd::Returned {
            value,
            buffers,
            errno,
            stdout: printed,
        })
    }

    /// Whether `a` and `b` differ as the check compares them.
    fn differ(&self, a: &FnEnd, b: &FnEnd) -> bool {
        let (
            FnEnd::Returned {
                value: va,
                buffers: ba,
                errno: ea,
                stdout: oa,
            },
            FnEnd::Returned {
                value: vb,
                buffers: bb,
                errno: eb,
                stdout: ob,
            },
        ) = (a, b)
        else {
            return a != b;
        };
        let value_differs = match (va, vb) {
            (Some(RetValue::Bits(x)), Some(RetValue::Bits(y))) if self.shape.ret_is_float => {
                let w = self.shape.ret_width.unwrap_or(64);
                float_differ(self.shape.fp_equality, w, *x, *y)
            }
            (x, y) => x != y,
        };
        let compared = self
            .shape
            .params
            .iter()
            .filter(|p| p.buffer.is_some())
            .map(|p| p.compared && self.shape.compare_buffers);
        value_differs
            || ea != eb
            || oa != ob
            || compared
                .zip(ba.iter().zip(bb))
                .any(|(compared, (x, y))| compared && x != y)
    }

    /// The parameters of `test` as the report shows them.
    fn inputs(&self, test: &KTest) -> Vec<String> {
        let Ok(objects) = objects_of(&self.shape, test) else {
            return Vec::new();
        };
        let mut shown = Vec::new();
        let mut objects = objects.into_iter();
        for p in &self.shape.params {
            let Some(mut mine) = objects.next() else {
                break;
            };
            if p.offset.is_some() {
                let k = objects.next().and_then(|o| o.first().copied()).unwrap_or(0);
                shown.push(format!(
                    "{}{} = {k}",
                    p.name,
                    crate::crosscheck::OFFSET_SUFFIX
                ));
                mine = &mine[usize::from(k).min(mine.len())..];
            }
            let bits = mine
                .iter()
                .rev()
                .fold(0u128, |acc, &b| (acc << 8) | u128::from(b));
            let value = if p.buffer.is_some() {
                display_buffer(mine)
            } else if p.float {
                display_float(p.width, mask(p.width, bits))
            } else if p.assume_type().0.signed() {
                display_int(p.width, mask(p.width, bits))
            } else {
                display_unsigned(mask(p.width, bits))
            };
            shown.push(format!("{} = {value}", p.name));
        }
        shown
    }

    /// How a side ended, as people read it.
    pub fn describe(&self, end: &FnEnd) -> String {
        match end {
            FnEnd::Returned {
                value,
                buffers,
                errno,
                stdout,
            } => {
                let mut s = match value {
                    None => "returns".to_string(),
                    Some(RetValue::Bits(bits)) => {
                        let w = self.shape.ret_width.unwrap_or(64);
                        let shown = if self.shape.ret_is_float {
                            display_float(w, *bits)
                        } else {
                            display_int(w, *bits)
                        };
                        format!("returns {shown}")
                    }
                    Some(RetValue::InBuffer { index, offset }) => {
                        let name = self
                            .shape
                            .params
                            .iter()
                            .filter(|p| p.buffer.is_some())
                            .nth(*index)
                            .map_or("?", |p| p.name.as_str());
                        format!("returns {name} + {offset}")
                    }
                    Some(RetValue::Address(0)) => "returns null".to_string(),
                    Some(RetValue::Address(a)) => format!("returns pointer 0x{a:x}"),
                };
                let names = self.shape.params.iter().filter(|p| p.buffer.is_some());
                for (p, bytes) in names.zip(buffers) {
                    let _ = write!(s, ", {} = {}", p.name, display_buffer(bytes));
                }
                if let Some(e) = errno {
                    let _ = write!(s, ", errno = {e}");
                }
                if !stdout.is_empty() {
                    let _ = write!(s, ", stdout {}", crate::crosscheck::program::quote(stdout));
                }
                s
            }
            FnEnd::Exited(status, stdout) if stdout.is_empty() => format!("exit {status}"),
            FnEnd::Exited(status, stdout) => format!(
                "exit {status}, stdout {}",
                crate::crosscheck::program::quote(stdout)
            ),
            FnEnd::Signal(sig) => format!(
                "killed by signal {sig} ({})",
                crate::exec::state::signal_name(*sig)
            ),
            FnEnd::TimedOut => "timed out".into(),
        }
    }
}

/// Whether floats of `width` bits `x` and `y` differ under `equality`: the engine's own
/// condition, built on constants (which the pool folds).
fn float_differ(equality: FpEquality, width: u32, x: u128, y: u128) -> bool {
    let pool = ExprPool::new();
    let cond = equality.differ(&pool, pool.constant(width, x), pool.constant(width, y));
    match pool.as_const(cond) {
        Some(v) => v != 0,
        // Not folded: fall back on the bits (never expected; a unit test checks it).
        None => x != y,
    }
}

/// Bytes from lowercase hex digits.
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crosscheck::float::Tolerance;

    #[test]
    fn float_equality_folds_on_constants() {
        let one = u128::from(1.0f64.to_bits());
        let next = u128::from(f64::from_bits(1.0f64.to_bits() + 1).to_bits());
        let (pz, nz) = (0u128, 1u128 << 63);
        let nan = u128::from(f64::NAN.to_bits());
        let other_nan = nan | 1;
        assert!(float_differ(FpEquality::Bits, 64, pz, nz));
        assert!(!float_differ(FpEquality::Ieee, 64, pz, nz));
        assert!(float_differ(FpEquality::Bits, 64, nan, other_nan));
        assert!(!float_differ(FpEquality::Ieee, 64, nan, other_nan));
        assert!(float_differ(FpEquality::Ieee, 64, one, next));
        let ulp1 = FpEquality::Tolerance(Tolerance::Ulp(1));
        assert!(!float_differ(ulp1, 64, one, next));
        assert!(float_differ(ulp1, 64, one, next + 1));
        let abs = FpEquality::Tolerance(Tolerance::Abs(0.5));
        let f = |v: f32| u128::from(v.to_bits());
        assert!(!float_differ(abs, 32, f(1.0), f(1.25)));
        assert!(float_differ(abs, 32, f(1.0), f(2.0)));
        assert!(float_differ(abs, 32, f(1.0), f(f32::INFINITY)));
        // Each case folded (the fallback on bits would not say these are equal).
        let pool = ExprPool::new();
        let cond = abs.differ(&pool, pool.constant(32, f(1.0)), pool.constant(32, f(1.25)));
        assert_eq!(pool.as_const(cond), Some(0));
    }

    fn param(name: &str, width: u32, float: bool, buffer: Option<u32>) -> ParamSpec {
        ParamSpec {
            name: name.into(),
            width,
            float,
            buffer,
            cap: None,
            compared: true,
            source_type: None,
            offset: None,
            alias: None,
        }
    }

    fn signature(params: Vec<ParamSpec>, ret: Option<(u32, bool)>) -> Signature {
        Signature {
            a: crate::ir::FuncId(0),
            b: crate::ir::FuncId(1),
            params,
            ret_width: ret.map(|r| r.0),
            ret_is_pointer: false,
            ret_is_float: ret.is_some_and(|r| r.1),
            ret_float_fields: Vec::new(),
            globals: Default::default(),
            fp_equality: FpEquality::Bits,
            type_text: "i32 (i32)".into(),
            stdout: [None, None],
        }
    }

    #[test]
    fn what_c_cannot_pass_is_refused() {
        let ok = signature(
            vec![
                param("x", 64, true, None),
                param("s", 64, false, Some(8)),
                param("c", 8, false, None),
            ],
            Some((32, true)),
        );
        assert_eq!(supported(&ok), Ok(()));
        let mut byval = param("st", 64, false, Some(16));
        byval.compared = false;
        let why = supported(&signature(vec![byval], None)).unwrap_err();
        assert!(why.0.contains("byval"), "{why}");
        let why = supported(&signature(vec![param("n", 24, false, None)], None)).unwrap_err();
        assert!(why.0.contains("24 bits"), "{why}");
        let why = supported(&signature(vec![], Some((80, true)))).unwrap_err();
        assert!(why.0.contains("80-bit float"), "{why}");
    }

    #[test]
    fn hex_reads_back() {
        assert_eq!(unhex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex("0"), None);
        assert_eq!(unhex("zz"), None);
    }
}
