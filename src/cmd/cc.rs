//! `xcheck cc`: clang-19 against the bundled musl (`crate::cc`); its `--help` is xcheck's,
//! and its errors are its own one line.

use crate::error::EXIT_ERROR;
use std::ffi::OsString;

/// Prints `xcheck cc --help`.
pub(super) fn help() -> i32 {
    print!("{}", crate::cc::help());
    0
}

/// Compiles (or links) with the compiler's arguments `args` and returns the exit code.
pub(super) fn run(args: &[OsString]) -> i32 {
    match crate::cc::run(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("xcheck cc: error: {msg}");
            EXIT_ERROR
        }
    }
}
