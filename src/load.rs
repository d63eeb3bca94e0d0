//! Reading and linking bitcode: side A, side B and the harness become one LLVM module.
//!
//! Every function and global *defined* in a side's module is renamed to `A.<name>` or
//! `B.<name>` before linking, so both sides may define `f`, `helper` or `table` without
//! clashing. Declarations of external symbols keep their names and are shared, and so is
//! everything the harness defines. `lower` turns the linked module into the engine's IR;
//! the LLVM context lives only inside [`load`].

use crate::error::{Error, Result};
use crate::ir::{self, Side};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use std::path::{Path, PathBuf};

/// The harness (KLEE-compatible intrinsics written in C), compiled to bitcode by `build.rs`.
static HARNESS_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/harness.bc"));

/// The POSIX model (`harness/posix/`), linked into whole-program checks only.
static POSIX_BC: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/posix.bc"));

/// The prefix given to the symbols a side defines.
pub fn side_prefix(side: Side) -> &'static str {
    match side {
        Side::A => "A.",
        Side::B => "B.",
        Side::Shared => "",
    }
}

/// Splits a linked name into its side and its name in the source module.
pub fn split_name(linked: &str) -> (Side, &str) {
    if let Some(rest) = linked.strip_prefix("A.") {
        (Side::A, rest)
    } else if let Some(rest) = linked.strip_prefix("B.") {
        (Side::B, rest)
    } else {
        (Side::Shared, linked)
    }
}

/// Loads side A (and side B, if given), links the harness and lowers the result.
pub fn load(a: &Path, b: Option<&Path>) -> Result<ir::Module> {
    load_with(a, b, false)
}

/// Loads two whole programs: as [`load`], with the POSIX model linked in and without
/// reading parameter names.
pub fn load_programs(a: &Path, b: &Path) -> Result<ir::Module> {
    load_with(a, Some(b), true)
}

/// Loads a KLEE-style harness program (`xcheck run`), with the POSIX model available to it.
pub fn load_harness_program(a: &Path) -> Result<ir::Module> {
    load_with(a, None, true)
}

/// `programs`: link the POSIX model, and skip parameter names (only function checks show
/// them).
fn load_with(a: &Path, b: Option<&Path>, programs: bool) -> Result<ir::Module> {
    let param_names = !programs;
    let context = Context::create();
    let module = parse(&context, a)?;
    rename_definitions(&module, Side::A);
    if let Some(b) = b {
        let other = parse(&context, b)?;
        rename_definitions(&other, Side::B);
        module
            .link_in_module(other)
            .map_err(|e| Error::input(b, format!("cannot be linked with {}: {e}", a.display())))?;
    }
    let mut harnesses = vec![(HARNESS_BC, "harness.bc")];
    if programs {
        harnesses.push((POSIX_BC, "posix.bc"));
    }
    for (bytes, name) in harnesses {
        let buffer = MemoryBuffer::create_from_memory_range(bytes, name);
        let harness = Module::parse_bitcode_from_buffer(&buffer, &context)
            .map_err(|e| Error::input("<harness>", format!("built-in {name} is corrupt: {e}")))?;
        module
            .link_in_module(harness)
            .map_err(|e| Error::input(a, format!("cannot be linked with {name}: {e}")))?;
    }
    let path_of = |side: Side| -> PathBuf {
        match side {
            Side::B => b.unwrap_or(a).to_path_buf(),
            _ => a.to_path_buf(),
        }
    };
    crate::lower::lower(&module, param_names).map_err(|e| Error::input(path_of(e.side), e.msg))
}

fn parse<'ctx>(context: &'ctx Context, path: &Path) -> Result<Module<'ctx>> {
    let bytes = std::fs::read(path).map_err(|e| Error::input(path, format!("cannot read: {e}")))?;
    let looks_like_bitcode =
        bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    if !looks_like_bitcode {
        return Err(Error::input(
            path,
            "not an LLVM bitcode file (bad magic number)",
        ));
    }
    let name = path.display().to_string();
    let buffer = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
    Module::parse_bitcode_from_buffer(&buffer, context).map_err(|e| {
        Error::input(
            path,
            format!("not valid LLVM 14 bitcode: {}", e.to_string().trim()),
        )
    })
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
