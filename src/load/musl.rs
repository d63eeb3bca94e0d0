//! Program-only bitcode linked with the bundled musl, and what a native link with musl needs.
//!
//! `xcheck cc` links a program with musl's bitcode archive (`build/musl/lib/libc.a`,
//! scripts/build-musl.sh) into one module that defines `__libc_start_main`. Other build
//! tools give a module with the program alone (gllvm's `get-bc` on a musl-targeted build,
//! `clang -c -emit-llvm --target x86_64-linux-musl` and `llvm-link`): its libc calls are
//! declarations. [`link_musl`] makes such a module what `xcheck cc` writes: the archive
//! members that define what it uses, transitively (`libm.rs`'s `link_members`), the C
//! start-up code and the memory functions LLVM's intrinsics become ([`PROGRAM_ROOTS`]),
//! then everything but those roots internalized and what they do not reach dropped, as
//! `xcheck cc`'s `opt -passes=internalize,globaldce` does. A module built for glibc is
//! refused ([`refusal`]): its headers' structures and fortified entry points are not
//! musl's.
//!
//! The native static link of `xcheck cc` lives here too (Debian's musl start files and C
//! library around the inputs), so that a check can build the native binary of an
//! auto-linked side for native replay ([`build_native`]).

use super::libm::{self, Archive, Wanted};
use crate::ir::{MuslLink, Side};
use crate::toolchain::CLANG;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::GlobalValue;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The target `xcheck cc` compiles for.
pub const MUSL_TARGET: &str = "x86_64-unknown-linux-musl";

/// Debian's musl-dev: the start files and the C library of the native executable.
const NATIVE_MUSL_LIB: &str = "/usr/lib/x86_64-linux-musl";

/// Functions the whole-program bitcode keeps, with everything they reach: the program,
/// the C start-up code, and the functions that LLVM's memory intrinsics become.
pub const PROGRAM_ROOTS: &[&str] = &[
    "main",
    "__libc_start_main",
    "memcpy",
    "memmove",
    "memset",
    "memcmp",
];

/// Symbols only a glibc-compiled module refers to (fortified, versioned and scanf entry
/// points, glibc's ctype tables and stdio internals); names ending in `_chk` but
/// `__stack_chk_fail` and names starting `__isoc99_`/`__isoc23_` are glibc's too.
const GLIBC_MARKERS: &[&str] = &[
    "__ctype_b_loc",
    "__ctype_toupper_loc",
    "__ctype_tolower_loc",
    "_IO_putc",
    "_IO_getc",
    "__uflow",
    "__overflow",
    "__assert_fail_base",
    "__libc_single_threaded",
    "__xstat",
    "__fxstat",
    "__lxstat",
    "__xstat64",
    "__fxstat64",
    "__lxstat64",
];

/// Whether `name` shows a module was compiled against glibc's headers.
fn glibc_symbol(name: &str) -> bool {
    GLIBC_MARKERS.contains(&name)
        || (name.ends_with("_chk") && name != "__stack_chk_fail")
        || name.starts_with("__isoc99_")
        || name.starts_with("__isoc23_")
        || name.contains('@')
}

/// Whether a parsed side is a program without its C library: it defines `main` and not
/// `__libc_start_main`.
pub(super) fn program_only(module: &Module<'_>) -> bool {
    let defines = |name: &str| {
        module
            .get_function(name)
            .is_some_and(|f| f.count_basic_blocks() > 0)
    };
    defines("main") && !defines("__libc_start_main")
}

/// Why a program-only module cannot be linked with the bundled musl, if it cannot: its
/// target is not x86-64 Linux, or it was compiled against glibc (its triple's environment
/// or the symbols it uses show it).
pub(super) fn refusal(module: &Module<'_>) -> Option<String> {
    let triple = module.get_triple();
    let target = triple.as_str().to_string_lossy().into_owned();
    let parts: Vec<&str> = target.split('-').collect();
    let linux = parts.contains(&"linux");
    let x86_64 = parts.first().is_some_and(|a| *a == "x86_64");
    let env = if linux { parts.last().copied() } else { None };
    let glibc_env = env.is_some_and(|e| e.starts_with("gnu"));
    let mut used: Vec<String> = libm::undefined(module)
        .into_iter()
        .filter(|n| glibc_symbol(n))
        .collect();
    used.sort();
    used.dedup();
    let build = "rebuild it for musl (`xcheck cc`, or clang --target x86_64-linux-musl against build/musl/include)";
    let supported = target.is_empty() || (x86_64 && linux);
    if !supported {
        return Some(format!(
            "is program-only bitcode for {target}; the bundled musl is x86_64 Linux: {build}"
        ));
    }
    if glibc_env || !used.is_empty() {
        let mut shown = Vec::new();
        if glibc_env {
            shown.push(format!("its target is {target}"));
        }
        if !used.is_empty() {
            let more = if used.len() > 3 { ", …" } else { "" };
            let names: Vec<&str> = used.iter().take(3).map(String::as_str).collect();
            shown.push(format!("it calls {}{more}", names.join(", ")));
        }
        return Some(format!(
            "was compiled against glibc ({}), not musl, and has no C library linked in: {build}",
            shown.join("; ")
        ));
    }
    None
}

/// Links the bundled musl into a program-only side (before its renaming), internalizes
/// all but [`PROGRAM_ROOTS`] and drops what they do not reach. Says what it did to `side`.
pub(super) fn link_musl<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    archive: &Archive,
    side: Side,
) -> Result<MuslLink, String> {
    let never = |_: &str| false;
    let wanted = Wanted {
        roots: PROGRAM_ROOTS,
        member: &|_| true,
        skip: &never,
        exclude: &never,
        aliases: true,
    };
    let linked = libm::link_members(context, module, archive, &wanted, "the bundled musl")?;
    if libm::definition(module, "__libc_start_main").is_none() {
        return Err(format!(
            "{} defines no __libc_start_main",
            archive.path().display()
        ));
    }
    internalize(module);
    global_dce(module)?;
    let mut undefined: Vec<String> = libm::undefined(module)
        .into_iter()
        .filter(|n| !weak_reference(module, n))
        .collect();
    undefined.sort();
    Ok(MuslLink {
        side,
        members: linked.members.len(),
        undefined,
        clashes: linked.clashes,
    })
}

/// Whether `name` is declared `extern_weak` (musl's `_init`, `__init_array_start`…: null
/// when nothing defines them, as in a static link).
fn weak_reference(module: &Module<'_>, name: &str) -> bool {
    let linkage = module
        .get_function(name)
        .map(|f| f.get_linkage())
        .or_else(|| module.get_global(name).map(|g| g.get_linkage()));
    linkage == Some(Linkage::ExternalWeak)
}

/// Gives internal linkage to every definition of `module` but [`PROGRAM_ROOTS`]: the
/// sides' copies of musl then cannot clash (aliases such as `environ` keep their names
/// through the renaming), and what the roots do not reach can go.
fn internalize(module: &Module<'_>) {
    let keep = |value: GlobalValue<'_>| {
        let name = value.get_name().to_string_lossy();
        PROGRAM_ROOTS.contains(&name.as_ref()) || name.starts_with("llvm.")
    };
    let functions = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| f.as_global_value());
    let globals = module.get_globals().filter(|g| !g.is_declaration());
    let aliases = libm::alias_values(module);
    for value in functions.chain(globals).chain(aliases) {
        if !keep(value) && value.get_linkage() != Linkage::Private {
            value.set_linkage(Linkage::Internal);
        }
    }
}

/// Runs LLVM's `globaldce` on `module`: definitions nothing reaches are removed.
fn global_dce(module: &Module<'_>) -> Result<(), String> {
    use inkwell::llvm_sys::error::{LLVMDisposeErrorMessage, LLVMGetErrorMessage};
    use inkwell::llvm_sys::transforms::pass_builder::{
        LLVMCreatePassBuilderOptions, LLVMDisposePassBuilderOptions, LLVMRunPasses,
    };
    // SAFETY: the module is alive; a null target machine is allowed (no target-specific
    // analysis is needed by globaldce); the options and the error are disposed of here.
    unsafe {
        let options = LLVMCreatePassBuilderOptions();
        let error = LLVMRunPasses(
            module.as_mut_ptr(),
            c"globaldce".as_ptr(),
            std::ptr::null_mut(),
            options,
        );
        LLVMDisposePassBuilderOptions(options);
        if error.is_null() {
            return Ok(());
        }
        let message = LLVMGetErrorMessage(error);
        let text = std::ffi::CStr::from_ptr(message)
            .to_string_lossy()
            .into_owned();
        LLVMDisposeErrorMessage(message);
        Err(format!("globaldce failed: {text}"))
    }
}

/// The flags every clang run of `xcheck cc` starts with: target, musl's headers (of the
/// build at `musl_dir`), bitcode objects. `-g` comes before the user's flags so that a
/// `-g0` there wins.
pub fn musl_compile_flags(musl_dir: &Path) -> Result<Vec<OsString>, String> {
    let resource = clang_output(&["-print-resource-dir"])?;
    let mut flags: Vec<OsString> = vec!["-target".into(), MUSL_TARGET.into(), "-nostdinc".into()];
    for dir in [
        musl_dir.join("include"),
        Path::new(&resource).join("include"),
        musl_dir.join("kernel-include"),
    ] {
        flags.push("-isystem".into());
        flags.push(dir.into_os_string());
    }
    flags.extend(["-flto", "-fno-stack-protector", "-g"].map(OsString::from));
    Ok(flags)
}

/// The flags after the user's: a later `-O2` would switch vectorisation on again.
pub fn tail_flags() -> [OsString; 2] {
    ["-fno-vectorize", "-fno-slp-vectorize"].map(OsString::from)
}

/// The native static link: Debian's musl start files and C library around the user's
/// objects, then the compiler's runtime (clang's builtins, else gcc's libgcc).
pub fn native_link_args(head: &[OsString], args: &[OsString]) -> Result<Vec<OsString>, String> {
    let lib = Path::new(NATIVE_MUSL_LIB);
    let file = |name: &str| lib.join(name).into_os_string();
    for name in ["crt1.o", "crti.o", "crtn.o", "libc.a"] {
        if !lib.join(name).is_file() {
            return Err(format!(
                "{} not found: install musl-dev (scripts/install.sh)",
                lib.join(name).display()
            ));
        }
    }
    let mut cmd = head.to_vec();
    cmd.extend(["-fuse-ld=lld", "-static", "-nostdlib"].map(OsString::from));
    // The musl directory comes before the toolchain's glibc directories for `-lm` etc.
    let mut search = OsString::from("-L");
    search.push(lib);
    cmd.push(search);
    cmd.push(file("crt1.o"));
    cmd.push(file("crti.o"));
    cmd.extend(args.iter().cloned());
    cmd.extend(tail_flags());
    cmd.push(file("libc.a"));
    if let Some(runtime) = compiler_runtime() {
        cmd.push(runtime.into_os_string());
    }
    cmd.push(file("crtn.o"));
    Ok(cmd)
}

/// clang's builtins archive if this installation has one, else gcc's libgcc.a.
fn compiler_runtime() -> Option<PathBuf> {
    let builtins = clang_output(&["-print-libgcc-file-name", "--rtlib=compiler-rt"]).ok();
    if let Some(path) = builtins.map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(path);
    }
    let out = Command::new("gcc")
        .arg("-print-libgcc-file-name")
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    (out.status.success() && path.is_file()).then_some(path)
}

/// The trimmed standard output of `clang ARGS`, which must succeed.
fn clang_output(args: &[&str]) -> Result<String, String> {
    let out = Command::new(CLANG)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {CLANG}: {e}"))?;
    if !out.status.success() {
        return Err(format!("{CLANG} {} failed", args.join(" ")));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Builds the native static executable `output` of the program-only module `bitcode`, as
/// `xcheck cc` links one: compiled by clang and linked with Debian's native musl. Errors
/// are one line (clang's first message).
pub fn build_native(bitcode: &Path, output: &Path) -> Result<(), String> {
    let musl = super::musl_dir()?;
    let mut head = musl_compile_flags(&musl)?;
    head.push("-Qunused-arguments".into());
    let args: Vec<OsString> = vec![
        bitcode.as_os_str().to_os_string(),
        "-o".into(),
        output.as_os_str().to_os_string(),
    ];
    let cmd = native_link_args(&head, &args)?;
    let out = Command::new(CLANG)
        .args(&cmd)
        .output()
        .map_err(|e| format!("cannot run {CLANG}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    Err(format!("{CLANG} failed: {}", first.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_symbols_are_recognized() {
        for name in [
            "__printf_chk",
            "__isoc99_sscanf",
            "__isoc23_strtol",
            "__ctype_b_loc",
            "memcpy@GLIBC_2.14",
        ] {
            assert!(glibc_symbol(name), "{name}");
        }
        for name in ["printf", "__stack_chk_fail", "__errno_location", "strtol"] {
            assert!(!glibc_symbol(name), "{name}");
        }
    }

    /// A module of `triple` that declares `calls`.
    fn refused(triple: &str, calls: &[&str]) -> Option<String> {
        let context = Context::create();
        let module = context.create_module("m");
        module.set_triple(&inkwell::targets::TargetTriple::create(triple));
        let ty = context.i32_type().fn_type(&[], false);
        for name in calls {
            module.add_function(name, ty, None);
        }
        refusal(&module)
    }

    #[test]
    fn the_triple_and_the_calls_decide_the_refusal() {
        assert_eq!(refused("x86_64-unknown-linux-musl", &["printf"]), None);
        assert_eq!(refused("", &["puts"]), None);
        let gnu = refused("x86_64-pc-linux-gnu", &["puts"]).unwrap();
        assert!(
            gnu.contains("glibc") && gnu.contains("x86_64-pc-linux-gnu"),
            "{gnu}"
        );
        let scanf = refused("x86_64-unknown-linux-musl", &["__isoc99_sscanf"]).unwrap();
        assert!(
            scanf.contains("glibc") && scanf.contains("__isoc99_sscanf"),
            "{scanf}"
        );
        let arm = refused("aarch64-unknown-linux-musl", &[]).unwrap();
        assert!(arm.contains("aarch64") && !arm.contains("glibc"), "{arm}");
    }
}
