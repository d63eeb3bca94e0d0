//! The commands: one module per command `xcheck` runs, each the body that runs it once
//! `cli` has parsed (and validated) its arguments, and [`main_with_stop`], which dispatches.
//!
//! `check` (a function pair, whole programs) and `gate` (`--all-functions`, `--config`) share
//! the command line without a subcommand; the others are `xcheck run`, `query`, `merge`,
//! `suite`, `show`, `replay`, `lib` and `cc`.

mod cc;
mod check;
mod gate;
mod lib;
mod merge;
mod query;
mod replay;
mod run;
mod show;
mod suite;

use crate::cli::{parse, Command, Quit};
use crate::error::EXIT_ERROR;
use std::ffi::OsString;

/// Runs the command line `args` (program name first) and returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    main_with_stop(args, crate::stop::Stop::new())
}

/// [`main`], stopping (as at a limit, results written) when `stop` is interrupted.
pub fn main_with_stop(args: Vec<OsString>, stop: crate::stop::Stop) -> i32 {
    let result = parse(args, &stop).and_then(|command| match command {
        Command::CheckBitcode(args) => Ok(crate::load::check_bitcode_main(&args)),
        Command::CcHelp => Ok(cc::help()),
        Command::Cc(args) => Ok(cc::run(&args)),
        Command::Run(args) => run::run(*args),
        Command::Query(args) => query::run(args, &stop),
        Command::Merge(args) => merge::run(args),
        Command::Suite(args) => suite::run(args, &stop),
        Command::Show(args) => show::run(args),
        Command::Replay(args) => replay::run(*args),
        Command::Lib(args, options) => lib::run(*args, options),
        Command::LibHelp => {
            print!("{}", crate::cli::LIB_HELP);
            Ok(0)
        }
        Command::Check(args, env) => check::run(*args, env),
    });
    match result {
        Ok(code) => code,
        Err(Quit::Code(code)) => code,
        Err(Quit::Error(e)) => {
            eprintln!("xcheck: error: {e}");
            EXIT_ERROR
        }
    }
}
