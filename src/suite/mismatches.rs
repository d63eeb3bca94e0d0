//! Mismatches reported before (the KLEE paper's table), looked for in a suite's results:
//! for each one of a utility the suite checked, whether the check found a difference on the
//! same command line (from its tests' command lines), and whether the two native
//! executables still differ on it in these versions.
//!
//! The list is a TOML file (`xcheck suite --mismatches FILE`; `corpora/klee-paper/
//! mismatches.toml` holds the paper's):
//!
//! ```toml
//! [[mismatch]]
//! utility = "cksum"
//! args = ["/"]                    # the command line after the program name
//! stdin = ""                      # optional: what the native runs read (default empty)
//! files = { "t1.txt" = "a\n" }     # optional: files in their working directory
//! reported = "BusyBox prints a checksum of /, coreutils says it is a directory"
//! ```

use crate::crosscheck::program::{replay_dir, Compare, ProgramCheck};
use crate::env_options::{arity, pinned_stat_named, EnvItem, EnvOptions};
use crate::error::{Error, Result};
use crate::ktest::{KTest, KTestObject};
use crate::native::{differ, env_of, run_native, NativeEnv, NativeFile};
use crate::report::suite::KnownResult;
use crate::report::{PathVerdict, Report};
use crate::stop::Stop;
use serde::Deserialize;
use std::path::Path;
use std::time::{Duration, Instant};

/// One mismatch reported before.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownMismatch {
    pub utility: String,
    /// The arguments after the program name.
    pub args: Vec<String>,
    /// Standard input of the native runs (empty when absent).
    #[serde(default)]
    pub stdin: Option<String>,
    /// Files in the native runs' working directory: name and contents.
    #[serde(default)]
    pub files: std::collections::BTreeMap<String, String>,
    /// What was reported.
    pub reported: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownFile {
    mismatch: Vec<KnownMismatch>,
}

/// How long one native run of a known mismatch may take (a program that loops, as the
/// paper's `tee ""` did, shows as timed out).
const NATIVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Reads a list of known mismatches.
pub fn read_mismatches(path: &Path) -> Result<Vec<KnownMismatch>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::input(path, format!("cannot read the mismatch list: {e}")))?;
    let file: KnownFile = toml::from_str(&text).map_err(|e| {
        let msg = e.message().to_string();
        Error::input(path, format!("not a mismatch list: {msg}"))
    })?;
    Ok(file.mismatch)
}

/// The command line of `known` as a shell would show it: `cksum /`, `tee ""`.
fn command(known: &KnownMismatch) -> String {
    let mut words = vec![known.utility.clone()];
    for a in &known.args {
        let plain = !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+[]".contains(&b));
        words.push(if plain { a.clone() } else { format!("{a:?}") });
    }
    words.join(" ")
}

/// What one pair check of a utility gives the lookup of its known mismatches.
#[derive(Clone, Copy)]
pub struct CheckSeen<'a> {
    /// The implementation checked against the reference.
    pub side: &'a str,
    /// The check's report, when it ended with one.
    pub report: Option<&'a Report>,
    /// The check's output directory (its tests).
    pub out: &'a Path,
    /// The native executables: side, reference.
    pub exes: (&'a Path, &'a Path),
    /// The bitcode the check ran: side, reference.
    pub bitcode: (&'a Path, &'a Path),
    /// The check's options.
    pub check_args: &'a [String],
    pub compare: Compare,
    pub stop: &'a Stop,
}

/// What `check`, a check of `known.utility`, says about `known`, with the native
/// executables run on it.
///
/// A difference row whose test has the command line rediscovers it. So does a complete
/// exploration (every path explored, none unknown) whose inputs include the command line,
/// when the command, replayed in the engine, differs as it does natively: a path's test is
/// only one of the inputs the path stands for, so the exploration reported the command's
/// path under other arguments.
pub fn look_up(known: &KnownMismatch, check: &CheckSeen<'_>) -> KnownResult {
    let CheckSeen {
        side,
        report,
        out,
        exes,
        bitcode,
        check_args,
        compare,
        stop,
    } = *check;
    let mut result = blank(known, side, "");
    result.differs_natively = native_difference(known, exes, compare, stop);
    if let Some(report) = report {
        if let Some((row, native)) = found_row(known, report, out) {
            result.found = Some(row);
            result.confirmed_natively = native;
        }
    }
    let covered = report.filter(|r| r.summary.complete && r.summary.unknown == 0);
    if let (None, Some(true), Some(_)) = (&result.found, result.differs_natively, covered) {
        if reachable(&known.args, check_args) {
            match replay_in_engine(known, bitcode, compare, stop) {
                Ok(Some(detail)) => {
                    result.found = Some(format!(
                        "the complete exploration covers this command line; replayed in the engine it differs ({detail})"
                    ));
                    result.confirmed_natively = true;
                    return result;
                }
                Ok(None) => {
                    result.note = "the exploration was complete and covers this command line, but replayed in the engine the implementations agree on it (the engine or its model differs from the executables there)".into();
                    return result;
                }
                Err(why) => result.note = format!("not replayed in the engine: {why}"),
            }
        }
    }
    if result.found.is_none() && result.note.is_empty() {
        result.note = if !reachable(&known.args, check_args) {
            "outside the checks' inputs (their argument count or length)".into()
        } else if report.is_none() {
            "the check gave no report".into()
        } else {
            "no difference test of the check has this exact command line (a path's test is one of the inputs it stands for; the check may also not have reached it in its time)".into()
        };
    }
    result
}

/// How long the engine may take to replay a known mismatch.
const ENGINE_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs `known`'s command (its arguments, its standard input) on bitcode `a` and `b` in the
/// engine, concretely: the detail of the difference when the sides differ, `None` when they
/// agree.
fn replay_in_engine(
    known: &KnownMismatch,
    (a, b): (&Path, &Path),
    compare: Compare,
    stop: &Stop,
) -> std::result::Result<Option<String>, String> {
    if !known.files.is_empty() {
        return Err("its files have names the model's symbolic files (A, B, …) cannot take".into());
    }
    if let Some(option) = known.args.iter().find(|a| arity(a).is_some()) {
        return Err(format!(
            "its argument {option} reads as an environment option"
        ));
    }
    let stdin = known.stdin.clone().unwrap_or_default().into_bytes();
    let mut args = vec![known.utility.clone()];
    args.extend(known.args.iter().cloned());
    let mut objects = Vec::new();
    if !stdin.is_empty() {
        args.extend(["--sym-stdin".to_string(), stdin.len().to_string()]);
        objects.push(KTestObject {
            name: "stdin_stat".into(),
            bytes: pinned_stat_named("stdin_stat", stdin.len() as u64)
                .map(|s| s.to_vec())
                .unwrap_or_default(),
        });
        objects.insert(
            0,
            KTestObject {
                name: "stdin".into(),
                bytes: stdin,
            },
        );
    }
    let test = KTest {
        args,
        sym_argvs: 0,
        sym_argv_len: 0,
        objects,
    };
    let dir = tempfile::tempdir().map_err(|e| format!("no temporary directory: {e}"))?;
    let path = dir.path().join("known.ktest");
    test.write(&path).map_err(|e| e.to_string())?;
    let mut check = ProgramCheck::new(a, b);
    check.compare = compare;
    check.exec.stop = stop.for_check();
    check
        .exec
        .stop
        .set_deadline(Instant::now() + ENGINE_TIMEOUT);
    check.solver.stop = check.exec.stop.clone();
    let rows = replay_dir(&check, &[path]).map_err(|e| e.to_string())?;
    match rows.first() {
        Some((_, row)) if row.verdict.is_difference() => Ok(Some(row.detail.clone())),
        Some((_, row)) if row.verdict == PathVerdict::Proved => Ok(None),
        Some((_, row)) => Err(format!("the engine's replay ended {:?}", row.verdict)),
        None => Err("stopped before it ended".into()),
    }
}

/// `known` as no check of its utility saw it (a pair check of it is not in the suite).
pub fn unchecked(known: &KnownMismatch) -> KnownResult {
    blank(known, "", "no pair check of this utility in the suite")
}

/// `known` looked up by the check of `side` (empty: none), nothing found yet.
fn blank(known: &KnownMismatch, side: &str, note: &str) -> KnownResult {
    KnownResult {
        utility: known.utility.clone(),
        command: command(known),
        reported: known.reported.clone(),
        side: side.to_string(),
        differs_natively: None,
        found: None,
        confirmed_natively: false,
        note: note.to_string(),
    }
}

/// The difference row of `report` whose test has `known`'s command line, the one confirmed
/// natively first: `#12 test000012.ktest`, and whether it was confirmed natively.
fn found_row(known: &KnownMismatch, report: &Report, out: &Path) -> Option<(String, bool)> {
    let mut best: Option<(u8, String, bool)> = None;
    for row in &report.rows {
        let (true, Some(name)) = (row.verdict.is_difference(), &row.ktest) else {
            continue;
        };
        let Ok(test) = KTest::read(out.join(name)) else {
            continue;
        };
        let Ok(env) = env_of(&test) else {
            continue;
        };
        let same = env.argv.len() == known.args.len() + 1
            && env.argv[1..]
                .iter()
                .zip(&known.args)
                .all(|(a, k)| a.as_slice() == k.as_bytes());
        if !same {
            continue;
        }
        // A row the executables did not reproduce is no rediscovery.
        if row.native.refuted() {
            continue;
        }
        let native = row.native == crate::report::NativeReplay::Reproduced;
        let rank = u8::from(native) * 2 + u8::from(row.confirmed.is_confirmed());
        if best.as_ref().is_none_or(|(r, _, _)| rank > *r) {
            best = Some((rank, format!("#{} {name}", row.id), native));
        }
    }
    best.map(|(_, row, native)| (row, native))
}

/// Whether the two executables differ on `known` (what `compare` looks at); `None` when
/// they could not run.
fn native_difference(
    known: &KnownMismatch,
    (a, b): (&Path, &Path),
    compare: Compare,
    stop: &Stop,
) -> Option<bool> {
    let env = NativeEnv {
        argv: std::iter::once(known.utility.as_bytes().to_vec())
            .chain(known.args.iter().map(|a| a.as_bytes().to_vec()))
            .collect(),
        stdin: known.stdin.clone().unwrap_or_default().into_bytes(),
        stdin_stat: None,
        files: known
            .files
            .iter()
            .map(|(name, text)| NativeFile {
                name: name.clone(),
                bytes: text.as_bytes().to_vec(),
                mode: 0o644,
                atime: 0,
                mtime: 0,
            })
            .collect(),
    };
    let ra = run_native(a, &env, NATIVE_TIMEOUT, stop).ok()?;
    let rb = run_native(b, &env, NATIVE_TIMEOUT, stop).ok()?;
    Some(differ(&ra, &rb, compare))
}

/// Whether a check with options `check_args` can give its program the arguments `args`:
/// the symbolic arguments' counts and lengths (concrete program arguments, which cannot be
/// told from the check's own options here, are not looked at).
fn reachable(args: &[String], check_args: &[String]) -> bool {
    let mut words = Vec::new();
    let mut i = 0;
    while i < check_args.len() {
        match arity(&check_args[i]) {
            Some(n) => {
                words.extend(
                    check_args[i..(i + 1 + n).min(check_args.len())]
                        .iter()
                        .cloned(),
                );
                i += 1 + n;
            }
            None => i += 1,
        }
    }
    let options = if words.is_empty() {
        EnvOptions::default()
    } else {
        match EnvOptions::parse(&words) {
            Ok(o) => o,
            Err(_) => return false,
        }
    };
    let items: Vec<&EnvItem> = options
        .items
        .iter()
        .filter(|i| {
            matches!(
                i,
                EnvItem::SymArg { .. } | EnvItem::SymArgs { .. } | EnvItem::Arg(_)
            )
        })
        .collect();
    fits(&items, args)
}

/// Whether `args` can be split over `items` in order.
fn fits(items: &[&EnvItem], args: &[String]) -> bool {
    let Some((first, rest)) = items.split_first() else {
        return args.is_empty();
    };
    match first {
        EnvItem::Arg(s) => args.first() == Some(s) && fits(rest, &args[1..]),
        EnvItem::SymArg { len } => {
            args.first().is_some_and(|a| a.len() <= *len as usize) && fits(rest, &args[1..])
        }
        EnvItem::SymArgs { min, max, len } => (*min as usize..=*max as usize).any(|k| {
            k <= args.len()
                && args[..k].iter().all(|a| a.len() <= *len as usize)
                && fits(rest, &args[k..])
        }),
        _ => fits(rest, args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn arguments_fit_the_checks_symbolic_arguments() {
        let env = words("-j 1 --sym-args 0 2 2 --sym-files 1 8 --max-time 60");
        assert!(reachable(&words("/"), &env));
        assert!(reachable(&words("-s -f"), &env));
        assert!(reachable(&[], &env));
        assert!(reachable(&[String::new()], &env));
        assert!(!reachable(&words("-2l"), &env));
        assert!(!reachable(&words("0 < 1 ]"), &env));
        let env = words("--sym-arg 1 --sym-arg 2");
        assert!(reachable(&words("- -n"), &env));
        assert!(!reachable(&words("-n -"), &env));
        assert!(!reachable(&words("-"), &env));
        // No environment option: the default one (one argument of up to 10, two of 2).
        assert!(reachable(&words("--lines -n"), &words("--max-time 5")));
    }

    #[test]
    fn commands_quote_what_a_shell_would_need() {
        let k = |args: &[&str]| KnownMismatch {
            utility: "tee".into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: None,
            files: Default::default(),
            reported: String::new(),
        };
        assert_eq!(command(&k(&["-"])), "tee -");
        assert_eq!(command(&k(&[""])), "tee \"\"");
        assert_eq!(command(&k(&["0", "<"])), "tee 0 \"<\"");
    }
}
