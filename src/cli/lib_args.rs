//! `xcheck lib OLD NEW [OPTIONS]`: a library's two builds, every exported function paired.
//! The options are a check's (`--max-time`, `--include`, `-o`, `--junit`, `--json`…), read
//! as `xcheck OLD NEW --all-functions OPTIONS` would read them, and three of its own:
//! `--cache DIR`, `--no-identical` and `-j N` (functions checked at once, each one thread).

use super::{clap_exit, usage, CheckArgs, Quit};
use crate::libgate::LibOptions;
use clap::Parser;
use std::ffi::OsString;

/// `xcheck lib --help`.
pub(crate) const LIB_HELP: &str = "Check two builds of a library, function by function

Usage: xcheck lib OLD.bc NEW.bc [OPTIONS]

Pairs every function both builds define (external linkage) by name and signature and checks
each, in parallel, with the limits of a function check; lists the functions not checked with
the reason (defined in one build only, signature changed, variadic, unsupported type).
A function whose IR, and that of everything it reaches, is identical up to renaming in both
builds is proved without exploring (\"identical IR\").

Options of its own:
  --cache DIR       reuse results stored in DIR for the same IR and options; store new ones
  --no-identical    explore every function, even those with identical IR
  -j, --jobs N      functions checked at once (default: one a core)

Every option of `xcheck A B --all-functions` applies: --include/--exclude GLOB, --max-time,
--buffer-size, -o DIR, --junit FILE, --json, --fail-on LIST…

Example:
  xcheck lib build/versions/musl-1.2.3/libc.bc build/versions/musl-1.2.5/libc.bc \\
      --include 'str*' --max-time 10 -j 2 --cache build/versions/cache
";

/// Parses the arguments after `xcheck lib` (`args[0]` is the program name).
pub(crate) fn parse_lib(
    args: &[OsString],
    stop: &crate::stop::Stop,
) -> Result<(CheckArgs, LibOptions), Quit> {
    let mut options = LibOptions {
        identical: true,
        ..LibOptions::default()
    };
    let mut rest: Vec<OsString> = vec!["xcheck lib".into()];
    let mut it = args.iter().skip(2);
    while let Some(arg) = it.next() {
        let s = arg.to_str().unwrap_or("");
        let mut value = |name: &str| -> Result<OsString, Quit> {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        if s == "--cache" {
            options.cache = Some(value("--cache")?.into());
        } else if let Some(dir) = s.strip_prefix("--cache=") {
            options.cache = Some(dir.into());
        } else if s == "--no-identical" {
            options.identical = false;
        } else if s == "-j" || s == "--jobs" {
            let v = value(s)?;
            options.jobs = jobs(v.to_str().unwrap_or(""))?;
        } else if let Some(v) = s.strip_prefix("--jobs=") {
            options.jobs = jobs(v)?;
        } else {
            rest.push(arg.clone());
        }
    }
    rest.push("--all-functions".into());
    let mut check = CheckArgs::try_parse_from(rest).map_err(clap_exit)?;
    if check.c.is_some() {
        return Err(usage("xcheck lib compares two builds: OLD and NEW".into()));
    }
    check.engine.stop = stop.clone();
    Ok((check, options))
}

fn jobs(v: &str) -> Result<usize, Quit> {
    match v.parse::<usize>() {
        Ok(n) if (1..=256).contains(&n) => Ok(n),
        _ => Err(usage(format!(
            "-j: from 1 to 256 functions at once, not '{v}'"
        ))),
    }
}
