//! Reading and linking bitcode: side A, side B (and side C, for a three-way program check)
//! and the harness become one LLVM module.
//!
//! Every function and global *defined* in a side's module is renamed to `A.<name>`,
//! `B.<name>` or `C.<name>` before linking, so both sides may define `f`, `helper` or `table` without
//! clashing. Declarations of external symbols keep their names and are shared, and so is
//! everything the harness defines. `lower` turns the linked module into the engine's IR;
//! the LLVM context lives only inside [`load`].
//!
//! Function checks also link, into each side before its renaming, the members of musl's
//! bitcode math library that define the math functions the side calls (`load/libm.rs`):
//! `A.sin` and `B.sin` are each side's own copy of musl's `sin`. A whole program given as
//! program-only bitcode (its libc calls undefined) is linked with the bundled musl first,
//! as `xcheck cc` would have linked it (`load/musl.rs`).

use crate::error::{Error, Result};
use crate::input::MAX_BITCODE_BYTES;
use crate::ir::{self, Side};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

mod isolate;
pub(crate) mod libm;
mod musl;
pub use isolate::{check_bitcode_main, parse_in_child, CHECK_BY_EXEC_VARIABLE, CHECK_SUBCOMMAND};
pub use libm::{libc_archive, musl_dir};
pub use musl::{build_native, musl_compile_flags, native_link_args, tail_flags, PROGRAM_ROOTS};

/// The harness (KLEE-compatible intrinsics written in C), compiled to bitcode by `build.rs`.
static HARNESS_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/harness.bc"));

/// The POSIX model (`harness/posix/`), linked into whole-program checks only.
static POSIX_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/posix.bc"));

/// The prefix given to the symbols a side defines.
pub fn side_prefix(side: Side) -> &'static str {
    match side {
        Side::A => "A.",
        Side::B => "B.",
        Side::C => "C.",
        Side::Shared => "",
    }
}

/// Loads side A (and side B, if given), links into each side the math functions of musl it
/// calls (except those named in `abstract_calls`), links the harness and lowers the result.
pub fn load(a: &Path, b: Option<&Path>, abstract_calls: &[String]) -> Result<ir::Module> {
    let paths: Vec<&Path> = std::iter::once(a).chain(b).collect();
    load_with(&paths, Mode::Functions(abstract_calls))
}

/// Loads two or three whole programs (sides A, B and C, in order): as [`load`], with the
/// POSIX model linked in and without reading parameter names. A program-only side (no
/// `__libc_start_main`) is linked with the bundled musl first ([`ir::Library::musl`] says
/// which), or refused when it was built for glibc.
pub fn load_programs(paths: &[&Path]) -> Result<ir::Module> {
    if !(2..=3).contains(&paths.len()) {
        return Err(Error::Usage(format!(
            "a program check takes two or three bitcode files, not {}",
            paths.len()
        )));
    }
    load_with(paths, Mode::Programs { musl: true })
}

/// Loads a KLEE-style harness program (`xcheck run`), with the POSIX model available to it.
pub fn load_harness_program(a: &Path) -> Result<ir::Module> {
    load_with(&[a], Mode::Programs { musl: false })
}

/// What is linked with the sides, and how they are lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode<'a> {
    /// Function checks: musl's math functions the sides call but those named here, and the
    /// harness; parameter names are read from debug info.
    Functions(&'a [String]),
    /// Whole programs and harness programs: the POSIX model too, no parameter names;
    /// `musl`: program-only sides are linked with the bundled musl (not harnesses, which
    /// run without a C library).
    Programs { musl: bool },
}

/// One bitcode file given by the user: its path and its bytes, read once.
struct Input {
    path: PathBuf,
    bytes: Vec<u8>,
}

fn load_with(paths: &[&Path], mode: Mode<'_>) -> Result<ir::Module> {
    let inputs = paths
        .iter()
        .map(|p| read_bitcode(p))
        .collect::<Result<Vec<_>>>()?;
    // Checked by a child process, the files need no verifier here; loaded in-process only,
    // they get it before the lowering sees them.
    let vetted = isolate::vet(&inputs)?;
    let context = Context::create();
    let (module, library) = link(&context, &inputs, mode, !vetted)?;
    let functions: HashSet<String> = library.functions.iter().cloned().collect();
    let mut lowered = lower(&module, &inputs, mode, &functions)?;
    lowered.library = library;
    Ok(lowered)
}

/// Parses the inputs (side A first), links into each the math functions it calls (function
/// checks), renames what each defines, and links them and the harness into one module.
/// `verify`: run LLVM's verifier on each parsed input, so that linking and lowering see
/// well-formed IR only. Returns the module and what was linked from musl.
fn link<'ctx>(
    context: &'ctx Context,
    inputs: &[Input],
    mode: Mode<'_>,
    verify: bool,
) -> Result<(Module<'ctx>, ir::Library)> {
    let mut modules = Vec::new();
    for input in inputs {
        modules.push(parse(context, input, verify)?);
    }
    let (mut library, functions) = match mode {
        Mode::Functions(abstract_calls) => link_math(context, &modules, abstract_calls),
        Mode::Programs { musl } => {
            let linked = if musl {
                link_musl(context, &modules, inputs)?
            } else {
                Vec::new()
            };
            let library = ir::Library {
                musl: linked,
                ..Default::default()
            };
            (library, Vec::new())
        }
    };
    let mut modules = modules.into_iter();
    let (Some(module), Some(first)) = (modules.next(), inputs.first()) else {
        return Err(Error::Usage("no bitcode file given".into()));
    };
    let a = &first.path;
    rename_definitions(&module, Side::A);
    for ((other, input), side) in modules.zip(&inputs[1..]).zip([Side::B, Side::C]) {
        rename_definitions(&other, side);
        module.link_in_module(other).map_err(|e| {
            Error::input(
                &input.path,
                format!("cannot be linked with {}: {e}", a.display()),
            )
        })?;
    }
    let mut harnesses = vec![(HARNESS_BC, "harness.bc")];
    if matches!(mode, Mode::Programs { .. }) {
        harnesses.push((POSIX_BC, "posix.bc"));
    }
    for (bytes, name) in harnesses {
        let buffer = MemoryBuffer::create_from_memory_range(bytes, name);
        let harness = Module::parse_bitcode_from_buffer(&buffer, context)
            .map_err(|e| Error::input("<harness>", format!("built-in {name} is corrupt: {e}")))?;
        module
            .link_in_module(harness)
            .map_err(|e| Error::input(a, format!("cannot be linked with {name}: {e}")))?;
    }
    // The renaming gives musl's functions their side's prefix, as every definition.
    for (side, name, external) in functions {
        let name = format!("{}{name}", side_prefix(side));
        if external {
            library.external.push(name.clone());
        }
        library.functions.push(name);
    }
    library.functions.sort();
    library.external.sort();
    library.globals.sort();
    Ok((module, library))
}

/// The functions the embedded harness defines (`harness/libc.c`, `klee.c`): a side's call
/// of one reaches the harness's, never a copy of musl's. Read once per process.
fn harness_functions() -> &'static HashSet<String> {
    static NAMES: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range(HARNESS_BC, "harness.bc");
        Module::parse_bitcode_from_buffer(&buffer, &context)
            .map(|m| {
                m.get_functions()
                    .filter(|f| f.count_basic_blocks() > 0)
                    .map(|f| f.get_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    })
}

/// Links musl's math functions into each side's module (side A first), before the
/// renaming; what cannot be linked is said in [`ir::Library::unavailable`], never an error.
/// Returns that, and the functions linked: their side, their name before the renaming, and
/// whether each is external.
fn link_math<'ctx>(
    context: &'ctx Context,
    modules: &[Module<'ctx>],
    abstract_calls: &[String],
) -> (ir::Library, Vec<(Side, String, bool)>) {
    let mut library = ir::Library::default();
    let mut functions = Vec::new();
    // Nothing to supply (a pair that calls no function it does not define): the archive
    // is not opened.
    if modules.iter().all(|m| libm::undefined(m).is_empty()) {
        return (library, functions);
    }
    let archive = musl_dir()
        .map(|dir| libc_archive(&dir))
        .and_then(|path| libm::archive(&path));
    let archive = match archive {
        Ok(archive) => archive,
        Err(why) => {
            library.unavailable = Some(why);
            return (library, functions);
        }
    };
    let provided = harness_functions();
    for (module, side) in modules.iter().zip([Side::A, Side::B]) {
        match libm::link_math(context, module, &archive, abstract_calls, provided) {
            Ok(linked) => {
                functions.extend(linked.functions.into_iter().map(|(n, e)| (side, n, e)));
                let prefix = side_prefix(side);
                library
                    .globals
                    .extend(linked.globals.iter().map(|g| format!("{prefix}{g}")));
            }
            Err(why) => library.unavailable = Some(why),
        }
    }
    (library, functions)
}

/// Links the bundled musl into each program-only side (before the renaming); refuses one
/// built for glibc. Returns what was linked into which side.
fn link_musl<'ctx>(
    context: &'ctx Context,
    modules: &[Module<'ctx>],
    inputs: &[Input],
) -> Result<Vec<ir::MuslLink>> {
    let mut linked = Vec::new();
    for ((module, input), side) in modules.iter().zip(inputs).zip(Side::CHECKED) {
        if !musl::program_only(module) {
            continue;
        }
        if let Some(why) = musl::refusal(module) {
            return Err(Error::input(&input.path, why));
        }
        let cannot = |why: String| {
            Error::input(
                &input.path,
                format!(
                    "is program-only bitcode and cannot be linked with the bundled musl: {why}"
                ),
            )
        };
        let archive = musl_dir()
            .map(|dir| libc_archive(&dir))
            .and_then(|path| libm::archive(&path))
            .map_err(cannot)?;
        linked.push(musl::link_musl(context, module, &archive, side).map_err(cannot)?);
    }
    Ok(linked)
}

/// The child's work: parses and verifies each input, announcing its index first; the
/// modules are dropped.
fn check_parse(inputs: &[Input], announce: &mut dyn FnMut(usize)) -> Result<()> {
    let context = Context::create();
    for (i, input) in inputs.iter().enumerate() {
        announce(i);
        parse(&context, input, true)?;
    }
    Ok(())
}

/// Lowers the linked module; errors name the side's file. A panic of the lowering (a bug
/// in xcheck, on input it did not expect) becomes an error naming the input too. `library`:
/// the functions linked from musl, whose parameter names are not read.
fn lower(
    module: &Module<'_>,
    inputs: &[Input],
    mode: Mode<'_>,
    library: &HashSet<String>,
) -> Result<ir::Module> {
    let path_of = |side: Side| -> PathBuf {
        let i = match side {
            Side::B => 1,
            Side::C => 2,
            Side::A | Side::Shared => 0,
        };
        inputs.get(i).unwrap_or(&inputs[0]).path.clone()
    };
    let lowered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let param_names = matches!(mode, Mode::Functions(_));
        crate::lower::lower(module, param_names, library)
    }));
    match lowered {
        Ok(result) => result.map_err(|e| Error::input(path_of(e.side), e.msg)),
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Err(Error::input(
                path_of(Side::A),
                format!(
                    "cannot be loaded: xcheck's lowering failed ({why}); this is a bug in xcheck"
                ),
            ))
        }
    }
}

/// The first lines of a multi-line LLVM message, joined into one line of at most 300
/// characters.
fn first_lines(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3)
        .collect::<Vec<_>>()
        .join("; ");
    match joined.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &joined[..i]),
        None => joined,
    }
}

/// Reads a bitcode file (a regular file of at most [`MAX_BITCODE_BYTES`]) and checks its
/// magic number.
fn read_bitcode(path: &Path) -> Result<Input> {
    let bytes = crate::input::read_limited(path, MAX_BITCODE_BYTES, "bitcode files")
        .map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
    let looks_like_bitcode =
        bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    if !looks_like_bitcode {
        return Err(Error::input(path, not_bitcode(path, &bytes)));
    }
    Ok(Input {
        path: path.to_path_buf(),
        bytes,
    })
}

/// Why a file without bitcode's magic number is refused, and how to make bitcode: what the
/// file looks like (C source, LLVM assembly, an object file, executable or archive) and
/// the clang command for it, or `xcheck cc` for a whole program.
fn not_bitcode(path: &Path, bytes: &[u8]) -> String {
    use crate::toolchain::CLANG;
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let out = match path.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if ext != "bc" => format!("{stem}.bc"),
        _ => "f.bc".to_string(),
    };
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let text = !head.contains('\0') && !head.contains('\u{fffd}');
    let source = if matches!(ext, "c" | "h" | "i") {
        name.as_str()
    } else {
        "f.c"
    };
    let from_c = format!("`{CLANG} -c -emit-llvm -g {source} -o {out}` (or `xcheck cc -o prog {source}`, which writes prog.bc beside the program)");
    let (what, how) = if bytes.starts_with(b"\x7fELF") || bytes.starts_with(b"!<arch>\n") {
        (
            "an object file, executable or archive",
            format!("build bitcode from its sources: {from_c}"),
        )
    } else if text
        && (matches!(ext, "ll")
            || head.contains("; ModuleID")
            || head.contains("target triple =")
            || head.contains("target datalayout ="))
    {
        (
            "LLVM assembly",
            format!("make bitcode with `{CLANG} -c -emit-llvm {name} -o {out}`"),
        )
    } else if text {
        ("text (C source?)", format!("make bitcode with {from_c}"))
    } else {
        ("", format!("make bitcode with {from_c}"))
    };
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(": it is {what}")
    };
    format!("not an LLVM bitcode file (bad magic number){what}; {how}")
}

/// The major version of the LLVM xcheck links (inkwell's `llvm19-1`); its reader reads the
/// bitcode of every earlier LLVM from 14 on (older producers are not tested).
pub const READER_MAJOR: u32 = 19;

/// The version of the LLVM linked in, as `19.1.7`.
pub fn reader_version() -> String {
    let (major, minor, patch) = inkwell::support::get_llvm_version();
    format!("{major}.{minor}.{patch}")
}

/// Parses one input; `verify`: and runs LLVM's verifier on it.
fn parse<'ctx>(context: &'ctx Context, input: &Input, verify: bool) -> Result<Module<'ctx>> {
    let name = input.path.display().to_string();
    let buffer = MemoryBuffer::create_from_memory_range_copy(&input.bytes, &name);
    let module = Module::parse_bitcode_from_buffer(&buffer, context).map_err(|e| {
        let why = first_lines(e.to_string().trim());
        Error::input(
            &input.path,
            format!(
                "not bitcode that LLVM {} reads (clang 14 to {} write it): {why}",
                reader_version(),
                READER_MAJOR
            ),
        )
    })?;
    if verify {
        module.verify().map_err(|e| {
            let why = first_lines(&e.to_string());
            Error::input(&input.path, format!("not valid LLVM IR: {why}"))
        })?;
    }
    Ok(module)
}

/// Renames every definition of `module` apart for `side`.
fn rename_definitions(module: &Module<'_>, side: Side) {
    let prefix = side_prefix(side);
    for function in module.get_functions() {
        let name = function.get_name().to_string_lossy().into_owned();
        if function.count_basic_blocks() > 0 && !name.starts_with("llvm.") {
            function
                .as_global_value()
                .set_name(&format!("{prefix}{name}"));
        }
    }
    for global in module.get_globals() {
        let name = global.get_name().to_string_lossy().into_owned();
        if !global.is_declaration() && !name.starts_with("llvm.") {
            global.set_name(&format!("{prefix}{name}"));
        }
    }
}
