//! The command line: the only reader of arguments. Raw arguments are parsed by clap, then
//! validated into the library's configuration types; errors become one line and exit 2.
//!
//! ```text
//! xcheck A.bc B.bc --function f[=g] [options]   check a function pair
//! xcheck A.bc B.bc [options] [ENV...] [-- ARGS]   crosscheck two whole programs
//! xcheck cc CLANG-ARGS...                         compile against the bundled musl
//! xcheck run HARNESS.bc [options]               explore a KLEE-style harness
//! xcheck show TEST.ktest...                     print tests like ktest-tool
//! xcheck replay TEST.ktest|DIR A.bc B.bc --function f[=g]
//! ```

use crate::config::{parse_fail_on, FailOn};
use crate::crosscheck::program::ProgramCheck;
use crate::crosscheck::{check_functions, replay_file, FunctionCheck};
use crate::error::Error;
use crate::exec::{ExecConfig, SearchKind};
use crate::gate;
use crate::ktest::KTest;
use crate::report::render_table;
use crate::solver::SolverConfig;
use clap::{Args, Parser};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::error::EXIT_ERROR;

/// The most exploration threads `-j` starts (each has its own stack and solver).
const MAX_JOBS: usize = 256;

/// The largest `--max-memory`, in MiB (16 TiB).
const MAX_MEMORY_MIB: u64 = 16 << 20;

#[derive(Parser, Debug)]
#[command(
    name = "xcheck",
    version,
    about = "Prove two LLVM bitcode implementations equivalent, or show where they differ"
)]
#[command(
    after_help = "Whole programs (A and B built with `xcheck cc`, no --function): the symbolic environment is given with KLEE's options, anywhere on the command line: --sym-arg N, --sym-args MIN MAX N, --sym-files NUM N, --sym-stdin N, --max-fail N (at most 32 arguments, 26 files, 4096 bytes each); program arguments go after `--` (where --sym-* options may be mixed in, in order). Default: --sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8.\nOther commands: `xcheck cc CLANG-ARGS`, `xcheck run HARNESS.bc`, `xcheck show TEST.ktest`, `xcheck query LOG`, `xcheck replay TEST.ktest|DIR A.bc B.bc [--function f]`, `xcheck replay DIR --native A B`.\nExit codes: 0 equivalent (every path proved, exploration complete), 1 divergence, 2 usage or input error, 3 inconclusive."
)]
struct CheckArgs {
    /// Bitcode of the reference implementation (side A).
    #[arg(required_unless_present = "config")]
    a: Option<PathBuf>,
    /// Bitcode of the implementation to check against it (side B).
    #[arg(required_unless_present = "config")]
    b: Option<PathBuf>,
    /// The function to compare: `f` on both sides, or `f=g` for f in A and g in B.
    #[arg(long, conflicts_with_all = ["all_functions", "config"])]
    function: Option<String>,
    /// Check every function defined in both modules with the same name and signature.
    #[arg(long = "all-functions", conflicts_with = "config")]
    all_functions: bool,
    /// With --all-functions: only functions matching this glob (repeatable).
    #[arg(long, value_name = "GLOB", requires = "all_functions")]
    include: Vec<String>,
    /// With --all-functions: leave out functions matching this glob (repeatable).
    #[arg(long, value_name = "GLOB", requires = "all_functions")]
    exclude: Vec<String>,
    /// Pairs, functions, preconditions and limits from a TOML file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["a", "b"])]
    config: Option<PathBuf>,
    /// Outcomes that fail the run: any of diverged, error, unknown (comma-separated), or none.
    /// Given, the exit code is 1 when a check fails the policy and 0 otherwise.
    #[arg(long = "fail-on", value_name = "LIST")]
    fail_on: Option<String>,
    /// Write a JUnit XML report (one test case per function) to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Print one JSON object per checked function on stdout instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    params: ParamArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Whole programs: argv[0] of both programs (default: the name both files share, as `wc`
    /// for busybox-wc.bc and coreutils-wc.bc; else A's file name up to its first dot).
    #[arg(long, value_name = "NAME")]
    argv0: Option<String>,
    /// Whole programs: what must agree, from stdout, stderr, exit (comma-separated).
    #[arg(long, value_name = "LIST", default_value = "stdout,exit")]
    compare: String,
    /// Whole programs: do not compare exit statuses.
    #[arg(long = "ignore-exit-code")]
    ignore_exit_code: bool,
    /// Whole programs: compare outputs line by line as words, ignoring how many spaces and
    /// tabs separate them (column padding of `wc`, `ls`…).
    #[arg(long = "ignore-spacing")]
    ignore_spacing: bool,
    /// Directory for tests and reports.
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-out")]
    output_dir: PathBuf,
}

/// The symbolic-environment options of whole-program checks (KLEE's names) and how many
/// values each takes.
const ENV_OPTIONS: &[(&str, usize)] = &[
    ("--sym-arg", 1),
    ("--sym-args", 3),
    ("--sym-files", 2),
    ("--sym-stdin", 1),
    ("--max-fail", 1),
];

/// Takes the environment options and everything after `--` out of a check's command line,
/// keeping their order (it decides the order of the program's arguments).
fn split_env(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let mut rest = Vec::new();
    let mut env = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy().into_owned();
        if text == "--" {
            env.extend(it.by_ref().map(|a| a.to_string_lossy().into_owned()));
            break;
        }
        match ENV_OPTIONS.iter().find(|(name, _)| *name == text) {
            Some((_, arity)) => {
                env.push(text);
                env.extend(
                    it.by_ref()
                        .take(*arity)
                        .map(|a| a.to_string_lossy().into_owned()),
                );
            }
            None => rest.push(arg),
        }
    }
    (rest, env)
}

/// Checks the numbers of the environment options, so that mistakes are usage errors here
/// rather than failures inside the model.
fn validate_env(env: &[String]) -> Result<(), Exit> {
    let mut i = 0;
    while i < env.len() {
        if let Some((name, arity)) = ENV_OPTIONS.iter().find(|(n, _)| *n == env[i]) {
            let values = &env[i + 1..(i + 1 + arity).min(env.len())];
            if values.len() < *arity {
                return Err(usage(format!("{name} takes {arity} number(s)")));
            }
            let mut nums = Vec::new();
            for (v, (max, unit)) in values.iter().zip(env_maxima(name)) {
                let shown = || values.join(" ");
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(usage(format!("{name} {}: '{v}' is not a number", shown())));
                }
                let n = v.parse::<u64>().ok().filter(|n| n <= max).ok_or_else(|| {
                    usage(format!(
                        "{name} {}: '{v}' is out of range (at most {max} {unit})",
                        shown()
                    ))
                })?;
                nums.push(n);
            }
            let bad = match *name {
                "--sym-args" if nums[0] > nums[1] => Some("MIN is larger than MAX"),
                _ => None,
            };
            if let Some(why) = bad {
                return Err(usage(format!("{name} {}: {why}", values.join(" "))));
            }
            i += 1 + arity;
        } else {
            i += 1;
        }
    }
    Ok(())
}

/// The largest value of each number an environment option takes, with its unit.
fn env_maxima(name: &str) -> &'static [(u64, &'static str)] {
    const BYTES: (u64, &str) = (4096, "bytes");
    const ARGS: (u64, &str) = (32, "arguments");
    match name {
        "--sym-arg" | "--sym-stdin" => &[BYTES],
        "--sym-args" => &[ARGS, ARGS, BYTES],
        "--sym-files" => &[(26, "files (A to Z)"), BYTES],
        _ => &[(u32::MAX as u64, "failures")],
    }
}

#[derive(Args, Debug, Clone)]
struct ParamArgs {
    /// Size in bytes of the buffer behind a pointer parameter (`N`, or `name=N` for one
    /// parameter). Struct pointees get their own size. Default 16.
    #[arg(long = "buffer-size", value_name = "N|NAME=N")]
    buffer_size: Vec<String>,
    /// A precondition over the parameters (C-like: `n < 10 && s[3] == 0`). Repeatable.
    #[arg(long, value_name = "EXPR")]
    assume: Vec<String>,
    /// Compare the final contents of pointed-to buffers too (`true`/`false`).
    #[arg(long = "compare-buffers", default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    compare_buffers: bool,
    /// How mutable globals start in function checks: `symbolic` (the same symbolic bytes on
    /// both sides, the default: a function may be called in any state) or `initial` (their
    /// initializers). Globals both sides define are compared at the end either way.
    #[arg(long, value_name = "symbolic|initial")]
    globals: Option<String>,
}

#[derive(Args, Debug, Clone)]
struct EngineArgs {
    /// Search strategy: dfs, bfs, random-state, random-path, coverage-new, interleaved.
    #[arg(long, default_value = "interleaved")]
    search: String,
    /// Stop exploring after this long (`90`, `90s`, `5m`, at most `720h`; `0` for no limit). Results found
    /// so far are reported; the verdict is then inconclusive unless a divergence was found.
    #[arg(long = "max-time", value_name = "TIME", default_value = "5m")]
    max_time: String,
    /// Stop after this many finished paths.
    #[arg(long = "max-paths")]
    max_paths: Option<u64>,
    /// Exploration threads for one check, 1 to 256 (default: all cores). Function checks of
    /// --all-functions and --config run in parallel instead, one thread each.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    jobs: Option<usize>,
    /// Keep resident memory under this many MiB by dropping live states (counted; the
    /// verdict is then inconclusive unless a divergence was found). Default: half of the
    /// machine's memory; 0 for no cap; at most 16777216 (16 TiB).
    #[arg(long = "max-memory", value_name = "MIB")]
    max_memory: Option<u64>,
    /// Merge the states of a branch where they meet again (one row may then stand for many
    /// paths). A merge group stays in the thread that made it.
    #[arg(long)]
    merge: bool,
    /// Seed of the random choices of the search.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Time limit of one solver query (`10s`, at most `720h`; `0` for no limit); a query that
    /// runs out makes its path unknown. Default: 30s.
    #[arg(long = "solver-timeout", value_name = "TIME")]
    solver_timeout: Option<String>,
    /// Write every query that reaches the SMT solver into FILE as SMT-LIB, with its answer
    /// and time, for `xcheck query FILE` to replay.
    #[arg(long = "log-queries", value_name = "FILE")]
    log_queries: Option<PathBuf>,
    /// Turn off the query cache.
    #[arg(long = "no-cache")]
    no_cache: bool,
    /// Turn off the counterexample cache (answers from subsets and supersets of earlier queries).
    #[arg(long = "no-cex-cache")]
    no_cex_cache: bool,
    /// Turn off constraint independence.
    #[arg(long = "no-independence")]
    no_independence: bool,
    /// Turn off range rewriting (queries simplified with the bounds their constraints imply).
    #[arg(long = "no-ranges")]
    no_ranges: bool,
    /// Turn off enumeration (queries over at most two input bytes decided by trying every input).
    #[arg(long = "no-enumerate")]
    no_enumerate: bool,
    #[arg(long = "solver", value_name = "NAME", help = crate::solver::BACKEND_HELP)]
    solver: Option<String>,
    /// Ask the other SMT solver every question the solver answers; opposite answers stop the
    /// check with an error (exit 2) naming both, and the query is written to the output
    /// directory.
    #[arg(long = "cross-check-solver")]
    cross_check_solver: bool,
    /// The run's stop token (set by the binary's signal handlers), not an option.
    #[arg(skip)]
    stop: crate::stop::Stop,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck run",
    about = "Explore a program whose main uses KLEE's interface"
)]
struct RunArgs {
    program: PathBuf,
    #[command(flatten)]
    engine: EngineArgs,
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-out")]
    output_dir: PathBuf,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck show",
    about = "Print .ktest files as KLEE's ktest-tool does"
)]
struct ShowArgs {
    #[arg(required = true)]
    tests: Vec<PathBuf>,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck replay",
    about = "Rerun tests concretely: in the engine on two bitcode files, or natively (--native)"
)]
struct ReplayArgs {
    /// A .ktest file or a directory of them.
    test: PathBuf,
    /// Bitcode of side A (not with --native).
    a: Option<PathBuf>,
    /// Bitcode of side B (not with --native).
    b: Option<PathBuf>,
    /// For function tests: the function pair, `f` or `f=g`.
    #[arg(long)]
    function: Option<String>,
    /// Whole-program tests: run these two native binaries instead of the engine.
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with_all = ["a", "b", "function"])]
    native: Option<Vec<PathBuf>>,
    /// Whole programs: what must agree, from stdout, stderr, exit (comma-separated).
    #[arg(long, value_name = "LIST", default_value = "stdout,exit")]
    compare: String,
    /// Whole programs: compare outputs as words, ignoring spacing (as the check did).
    #[arg(long = "ignore-spacing")]
    ignore_spacing: bool,
    /// Native replay: time limit of one run (`10s`, at most `720h`).
    #[arg(long, value_name = "TIME", default_value = "10s")]
    timeout: String,
    #[command(flatten)]
    params: ParamArgs,
    /// The run's stop token (set by the binary's signal handlers), not an option.
    #[arg(skip)]
    stop: crate::stop::Stop,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck query",
    about = "Replay a query log (--log-queries) against the SMT solvers",
    after_help = "Prints each query's answers and times, flagging a MISMATCH where two definite answers (the logged one and each solver's) differ. Exit codes: 0 no mismatch, 1 a mismatch, 2 usage or input error."
)]
struct QueryArgs {
    /// The log written by --log-queries.
    log: PathBuf,
    #[arg(long, default_value = "both", help = crate::solver::querylog::REPLAY_SOLVER_HELP)]
    solver: String,
    /// Time limit of one check (`10s`, at most `720h`; `0` for no limit).
    #[arg(long, value_name = "TIME", default_value = "30s")]
    timeout: String,
}

fn query(args: QueryArgs, stop: &crate::stop::Stop) -> Result<i32, Exit> {
    use crate::solver::querylog;
    let backends =
        querylog::backends_of(&args.solver).map_err(|m| usage(format!("--solver: {m}")))?;
    let timeout = parse_limit("--timeout", &args.timeout)?;
    let (report, mismatch) =
        querylog::replay_file(&args.log, &backends, timeout, stop).map_err(usage)?;
    print!("{report}");
    if stop.interrupted() {
        return Ok(3);
    }
    Ok(i32::from(mismatch))
}

/// Runs the command line `args` (program name first) and returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    main_with_stop(args, crate::stop::Stop::new())
}

/// [`main`], stopping (as at a limit, results written) when `stop` is interrupted.
pub fn main_with_stop(args: Vec<OsString>, stop: crate::stop::Stop) -> i32 {
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let rest = || {
        std::iter::once(OsString::from(format!("xcheck {sub}"))).chain(args.iter().skip(2).cloned())
    };
    if sub == crate::load::CHECK_SUBCOMMAND {
        // The child side of loading untrusted bitcode (load/isolate.rs): not for people.
        return crate::load::check_bitcode_main(&args[2..]);
    }
    if sub == "cc" {
        // Every argument is the compiler's: no parsing here.
        return match crate::cc::run(&args[2..]) {
            Ok(code) => code,
            Err(msg) => {
                eprintln!("xcheck cc: error: {msg}");
                EXIT_ERROR
            }
        };
    }
    let result = match sub {
        "run" => RunArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(|mut a| {
                a.engine.stop = stop.clone();
                run(a)
            }),
        "query" => QueryArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(|a| query(a, &stop)),
        "show" => ShowArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(show),
        "replay" => ReplayArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(|mut a| {
                a.stop = stop.clone();
                replay(a)
            }),
        _ => {
            let (args, env) = split_env(args);
            CheckArgs::try_parse_from(args)
                .map_err(clap_exit)
                .and_then(|mut a| {
                    a.engine.stop = stop.clone();
                    check(a, env)
                })
        }
    };
    match result {
        Ok(code) => code,
        Err(Exit::Code(code)) => code,
        Err(Exit::Error(e)) => {
            eprintln!("xcheck: error: {e}");
            EXIT_ERROR
        }
    }
}

enum Exit {
    /// clap printed help, a version or a usage error itself.
    Code(i32),
    Error(Error),
}

impl From<Error> for Exit {
    fn from(e: Error) -> Self {
        Exit::Error(e)
    }
}

fn clap_exit(e: clap::Error) -> Exit {
    let _ = e.print();
    Exit::Code(if e.use_stderr() { EXIT_ERROR } else { 0 })
}

fn usage(msg: String) -> Exit {
    Exit::Error(Error::Usage(msg))
}

/// Half of the machine's memory (from `/proc/meminfo`): exploration that keeps hundreds of
/// thousands of states alive drops states (counted, and the verdict says so) instead of
/// being killed by the kernel.
fn default_memory_cap() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib * 1024 / 2)
}

/// Parses a positive duration ([`crate::config::parse_duration`]).
fn parse_duration(option: &str, text: &str) -> Result<Duration, Exit> {
    crate::config::parse_duration(text).map_err(|why| usage(format!("{option} {why}")))
}

/// Parses a time limit, where `0` and `none` are no limit ([`crate::config::parse_limit`]).
fn parse_limit(option: &str, text: &str) -> Result<Option<Duration>, Exit> {
    crate::config::parse_limit(text).map_err(|why| usage(format!("{option} {why}")))
}

fn engine_config(e: &EngineArgs, output_dir: &Path) -> Result<(ExecConfig, SolverConfig), Exit> {
    let search: SearchKind = e
        .search
        .parse()
        .map_err(|m| usage(format!("--search: {m}")))?;
    let exec = ExecConfig {
        max_time: parse_limit("--max-time", &e.max_time)?,
        max_paths: e.max_paths,
        search,
        seed: e.seed,
        merge: e.merge,
        max_memory: match e.max_memory {
            Some(0) => None,
            Some(mib) if mib > MAX_MEMORY_MIB => {
                return Err(usage(format!(
                    "--max-memory {mib}: at most {MAX_MEMORY_MIB} MiB (16 TiB)"
                )))
            }
            Some(mib) => Some(mib.saturating_mul(1 << 20)),
            None => default_memory_cap(),
        },
        stop: e.stop.clone(),
        ..ExecConfig::default()
    };
    let solver = SolverConfig {
        timeout: match &e.solver_timeout {
            None => SolverConfig::default().timeout,
            Some(t) => parse_limit("--solver-timeout", t)?,
        },
        stop: e.stop.clone(),
        cache: !e.no_cache,
        independence: !e.no_independence,
        ranges: !e.no_ranges,
        enumerate: !e.no_enumerate,
        cex_cache: !e.no_cex_cache,
        validate: true,
        backend: match &e.solver {
            Some(name) => name.parse().map_err(|m| usage(format!("--solver: {m}")))?,
            None => Default::default(),
        },
        cross_check: e.cross_check_solver.then(|| output_dir.to_path_buf()),
        log: match &e.log_queries {
            Some(path) => Some(std::sync::Arc::new(
                crate::solver::QueryLog::create(path)
                    .map_err(|why| usage(format!("--log-queries {why}")))?,
            )),
            None => None,
        },
    };
    Ok((exec, solver))
}

fn function_names(spec: &str) -> Result<(String, String), Exit> {
    let (a, b) = match spec.split_once('=') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (spec.trim(), spec.trim()),
    };
    if a.is_empty() || b.is_empty() {
        return Err(usage(format!("--function '{spec}': expected f or f=g")));
    }
    Ok((a.to_string(), b.to_string()))
}

fn apply_params(check: &mut FunctionCheck, p: &ParamArgs) -> Result<(), Exit> {
    for s in &p.buffer_size {
        let (name, n) = match s.split_once('=') {
            Some((name, n)) => (Some(name.trim()), n.trim()),
            None => (None, s.trim()),
        };
        let size = n
            .parse()
            .map_err(|_| format!("'{n}' is not a number"))
            .and_then(crate::config::buffer_size)
            .map_err(|why| usage(format!("--buffer-size '{s}': {why}")))?;
        match name {
            Some(name) => check.param_sizes.push((name.to_string(), size)),
            None => check.buffer_size = size,
        }
    }
    check.assumes = p.assume.clone();
    check.compare_buffers = p.compare_buffers;
    if let Some(mode) = globals_of(p)? {
        check.globals = mode;
    }
    Ok(())
}

/// `--globals`, if given.
fn globals_of(p: &ParamArgs) -> Result<Option<crate::crosscheck::globals::GlobalsMode>, Exit> {
    p.globals
        .as_deref()
        .map(|g| g.parse().map_err(|m| usage(format!("--globals {m}"))))
        .transpose()
}

fn check(args: CheckArgs, env: Vec<String>) -> Result<i32, Exit> {
    let fail_on = match &args.fail_on {
        Some(list) => Some(parse_fail_on(list).map_err(|m| usage(format!("--fail-on: {m}")))?),
        None => None,
    };
    if let Some(path) = &args.config {
        return gate_config(&args, path, fail_on);
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return Err(usage("give two bitcode files, or --config FILE".into()));
    };
    if !env.is_empty() && (args.all_functions || args.function.is_some()) {
        return Err(usage(format!(
            "'{}' is an option of whole-program checks; it does not apply to --function or --all-functions",
            env[0]
        )));
    }
    if args.all_functions {
        return gate_all_functions(&args, a, b, fail_on);
    }
    let Some(spec) = &args.function else {
        return check_programs(&args, a, b, env, fail_on);
    };
    let (fa, fb) = function_names(spec)?;
    let mut check = FunctionCheck::new(a, b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    check.exec = exec;
    check.solver = solver;
    check.out_dir = args.output_dir.clone();
    check.exec.progress = std::io::IsTerminal::is_terminal(&std::io::stderr()) && !args.json;
    check.exec.jobs = jobs_of(&args.engine)?;
    let outcome = check_functions(&check)?;
    let report = outcome.report;
    let (failed, code) = verdict_of(&args, &report, spec, fail_on.as_deref())?;
    if args.json {
        let result = gate::JobResult {
            job: gate::Job {
                check,
                accept: None,
                note: None,
            },
            outcome: Ok(report),
            failed: failed.unwrap_or(code != 0),
        };
        println!("{}", gate::json_line(1, &result));
        return Ok(code);
    }
    print!("{}", render_table(&report));
    println!("Tests and reports written to {}", args.output_dir.display());
    Ok(code)
}

/// `xcheck A B [ENV…]`: crosschecks two whole programs.
fn check_programs(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    env: Vec<String>,
    fail_on: Option<Vec<FailOn>>,
) -> Result<i32, Exit> {
    if !args.params.assume.is_empty() || !args.params.buffer_size.is_empty() {
        return Err(usage(
            "--assume and --buffer-size apply to function checks (--function)".into(),
        ));
    }
    validate_env(&env)?;
    let mut check = ProgramCheck::new(a, b);
    if let Some(name) = &args.argv0 {
        check.argv0 = name.clone();
    }
    if !env.is_empty() {
        check.env = env;
    }
    let mut compare = parse_compare(&args.compare)?;
    if args.ignore_exit_code {
        compare.exit = false;
    }
    compare.ignore_spacing = args.ignore_spacing;
    check.compare = compare;
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    check.exec = exec;
    check.solver = solver;
    check.out_dir = args.output_dir.clone();
    check.exec.progress = std::io::IsTerminal::is_terminal(&std::io::stderr()) && !args.json;
    check.exec.jobs = jobs_of(&args.engine)?;
    let report = crate::crosscheck::program::check_programs(&check)?.report;
    let (_, code) = verdict_of(args, &report, "main", fail_on.as_deref())?;
    if args.json {
        let line = serde_json::to_string(&report.summary).map_err(|e| Error::Output {
            path: args.output_dir.clone(),
            source: std::io::Error::other(e.to_string()),
        })?;
        println!("{line}");
        return Ok(code);
    }
    print!(
        "{}",
        crate::report::render_table_limited(&report, crate::report::TERMINAL_ROWS)
    );
    println!("Tests and reports written to {}", args.output_dir.display());
    Ok(code)
}

/// Whether one check fails the `--fail-on` policy (if given), its JUnit file (if asked
/// for), and the exit code.
fn verdict_of(
    args: &CheckArgs,
    report: &crate::report::Report,
    label: &str,
    fail_on: Option<&[FailOn]>,
) -> Result<(Option<bool>, i32), Exit> {
    let failed = fail_on.map(|f| crate::config::fails(report, f, None));
    if let Some(path) = &args.junit {
        let overall_failed = report.summary.overall != crate::report::Overall::Equivalent;
        let xml = crate::report::junit::render_junit(
            "xcheck",
            &[(label.to_string(), report, failed.unwrap_or(overall_failed))],
        );
        crate::report::junit::write_junit(path, &xml).map_err(|e| Error::Output {
            path: path.clone(),
            source: e,
        })?;
    }
    let code = match failed {
        Some(f) => f as i32,
        None => report.summary.overall.exit_code(),
    };
    Ok((failed, code))
}

/// `-j N`, or every core.
fn jobs_of(e: &EngineArgs) -> Result<usize, Exit> {
    match e.jobs {
        Some(0) => Err(usage("--jobs must be at least 1".into())),
        Some(n) if n > MAX_JOBS => Err(usage(format!(
            "--jobs {n}: at most {MAX_JOBS} exploration threads"
        ))),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// A function check with the command line's parameters and engine options.
fn base_check(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    fa: &str,
    fb: &str,
) -> Result<FunctionCheck, Exit> {
    let mut check = FunctionCheck::new(a, b, fa, fb);
    apply_params(&mut check, &args.params)?;
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    check.exec = exec;
    check.solver = solver;
    Ok(check)
}

fn gate_all_functions(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    fail_on: Option<Vec<FailOn>>,
) -> Result<i32, Exit> {
    if !args.params.assume.is_empty() {
        return Err(usage("--assume names parameters of one function: use it with --function, or per function in --config".into()));
    }
    let module = gate::load_pair(a, b)?;
    let (selected, skipped) = gate::select_functions(&module, &args.include, &args.exclude);
    if selected.is_empty() {
        eprintln!(
            "xcheck: warning: no function to check in {} and {}",
            a.display(),
            b.display()
        );
        return Err(Exit::Error(gate::nothing_to_check(
            &args.include,
            &args.exclude,
        )));
    }
    let mut jobs = Vec::new();
    for f in &selected {
        let mut check = base_check(args, a, b, f, f)?;
        check.out_dir = gate::job_dir(&args.output_dir, None, f);
        jobs.push(gate::Job {
            check,
            accept: None,
            note: None,
        });
    }
    let fail_on = fail_on.unwrap_or_else(|| crate::config::DEFAULT_FAIL_ON.to_vec());
    let results = gate::run_jobs(&module, jobs, &fail_on);
    let title = format!("{}  vs  {}", a.display(), b.display());
    finish_gate(args, vec![(title, results, skipped)])
}

fn gate_config(args: &CheckArgs, path: &Path, fail_on: Option<Vec<FailOn>>) -> Result<i32, Exit> {
    let cfg = crate::config::load_config(path).map_err(|e| Error::Usage(e.to_string()))?;
    let fail_on = fail_on.unwrap_or_else(|| cfg.fail_on());
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    // The command line's --globals, else the file's, else symbolic.
    let globals = globals_of(&args.params)?
        .or(cfg.defaults.globals)
        .unwrap_or_default();
    let mut sections = Vec::new();
    for (i, pair) in cfg.pairs.iter().enumerate() {
        let module = gate::load_pair(&pair.a, &pair.b)?;
        let mut jobs = Vec::new();
        let make = |fa: &str, fb: &str, f: Option<&crate::config::FunctionConfig>| -> gate::Job {
            let mut check = FunctionCheck::new(&pair.a, &pair.b, fa, fb);
            check.exec = exec.clone();
            check.solver = solver.clone();
            check.globals = globals;
            let d = &cfg.defaults;
            check.buffer_size = f
                .and_then(|f| f.buffer_size)
                .or(d.buffer_size)
                .unwrap_or(check.buffer_size);
            if let Some(t) = f.and_then(|f| f.max_time).or(d.max_time) {
                check.exec.max_time = t;
            }
            if let Some(seed) = d.seed {
                check.exec.seed = seed;
            }
            if let Some(search) = d.search {
                check.exec.search = search;
            }
            if let Some(f) = f {
                check.param_sizes = f.buffer_sizes.clone();
                check.assumes = f.assume.clone();
            }
            let label = if fa == fb {
                fa.to_string()
            } else {
                format!("{fa}={fb}")
            };
            check.out_dir = gate::job_dir(&args.output_dir, Some(i), &label);
            gate::Job {
                check,
                accept: f.and_then(|f| f.accept),
                note: f.and_then(|f| f.note.clone()),
            }
        };
        for f in &pair.functions {
            jobs.push(make(&f.a_name, &f.b_name, Some(f)));
        }
        let mut skipped = Vec::new();
        if pair.all_functions {
            let (selected, left_out) =
                gate::select_functions(&module, &pair.include, &pair.exclude);
            skipped = left_out;
            for name in selected {
                if !pair.functions.iter().any(|f| f.a_name == name) {
                    jobs.push(make(&name, &name, None));
                }
            }
        }
        if jobs.is_empty() {
            eprintln!(
                "xcheck: warning: {}: pair {} selects no function",
                path.display(),
                i + 1
            );
            return Err(Exit::Error(gate::nothing_to_check(
                &pair.include,
                &pair.exclude,
            )));
        }
        let results = gate::run_jobs(&module, jobs, &fail_on);
        sections.push((
            format!(
                "pair {}: {}  vs  {}",
                i + 1,
                pair.a.display(),
                pair.b.display()
            ),
            results,
            skipped,
        ));
    }
    finish_gate(args, sections)
}

/// Prints the gate's results, writes JUnit, and decides the exit code.
fn finish_gate(
    args: &CheckArgs,
    sections: Vec<(String, Vec<gate::JobResult>, Vec<gate::Skipped>)>,
) -> Result<i32, Exit> {
    let mut cases = Vec::new();
    let mut any_failed = false;
    let mut any_error = false;
    for (i, (title, results, skipped)) in sections.iter().enumerate() {
        if args.json {
            for r in results {
                println!("{}", gate::json_line(i + 1, r));
            }
        } else {
            print!("{}", gate::render_gate_table(title, results, skipped));
        }
        for r in results {
            any_failed |= r.failed;
            match &r.outcome {
                Ok(report) => {
                    cases.push((format!("{}: {}", i + 1, r.job.label()), report, r.failed))
                }
                Err(e) => {
                    any_error = true;
                    eprintln!("xcheck: error: {}: {e}", r.job.label());
                }
            }
        }
    }
    if let Some(path) = &args.junit {
        let xml = crate::report::junit::render_junit("xcheck", &cases);
        crate::report::junit::write_junit(path, &xml).map_err(|e| Error::Output {
            path: path.clone(),
            source: e,
        })?;
    }
    Ok(if any_error {
        EXIT_ERROR
    } else {
        any_failed as i32
    })
}

fn run(args: RunArgs) -> Result<i32, Exit> {
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    let s = crate::run::run_harness(&args.program, exec, &solver, &args.output_dir)?;
    for (path, what) in &s.errors {
        println!("error: {what}  ({})", path.display());
    }
    for why in &s.unknown {
        println!("unknown: {why}");
    }
    println!(
        "paths completed: {}, errors: {}, tests written: {} in {}, instructions: {}{}",
        s.completed,
        s.errors.len(),
        s.tests,
        args.output_dir.display(),
        s.instructions,
        match &s.stop_reason {
            Some(r) => format!(", stopped: {r}"),
            None => String::new(),
        }
    );
    Ok(s.exit_code())
}

fn show(args: ShowArgs) -> Result<i32, Exit> {
    for (i, path) in args.tests.iter().enumerate() {
        let test = KTest::read(path).map_err(Error::from)?;
        if i > 0 {
            println!();
        }
        print!("{}", test.show(&path.display().to_string()));
    }
    Ok(0)
}

/// The tests named by a replay command: one file, or every `.ktest` of a directory.
fn tests_of(path: &Path) -> Result<Vec<PathBuf>, Exit> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| Error::input(path, format!("cannot read directory: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
        .collect();
    v.sort();
    let report = path.join("report.json");
    if report.exists() {
        let listed = report_tests(&report)?;
        let missing: Vec<&String> = listed.iter().filter(|n| !path.join(n).exists()).collect();
        if let Some(first) = missing.first() {
            return Err(Exit::Error(Error::input(
                &report,
                format!(
                    "lists {} test{} missing from the directory (first: {first})",
                    missing.len(),
                    if missing.len() == 1 { "" } else { "s" }
                ),
            )));
        }
    }
    if v.is_empty() && !report.exists() {
        return Err(Exit::Error(Error::input(
            path,
            "contains neither .ktest files nor a report.json",
        )));
    }
    Ok(v)
}

fn parse_compare(list: &str) -> Result<crate::crosscheck::program::Compare, Exit> {
    let mut c = crate::crosscheck::program::Compare {
        stdout: false,
        stderr: false,
        exit: false,
        ignore_spacing: false,
    };
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "stdout" => c.stdout = true,
            "stderr" => c.stderr = true,
            "exit" => c.exit = true,
            other => {
                return Err(usage(format!(
                    "--compare: unknown '{other}' (stdout, stderr, exit)"
                )))
            }
        }
    }
    Ok(c)
}

fn replay(args: ReplayArgs) -> Result<i32, Exit> {
    // Options are checked before anything is read.
    parse_duration("--timeout", &args.timeout)?;
    let tests = tests_of(&args.test)?;
    if tests.is_empty() {
        // A run that found no divergence wrote no test: nothing to confirm.
        println!("{}: no tests to replay", args.test.display());
        return Ok(0);
    }
    if let Some(bins) = &args.native {
        return replay_native(&args, &bins[0], &bins[1], &tests);
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return Err(usage(
            "give two bitcode files (A.bc B.bc), or --native A B for native binaries".into(),
        ));
    };
    let Some(function) = &args.function else {
        // Whole-program tests, replayed in the engine.
        let mut check = ProgramCheck::new(a, b);
        check.compare = parse_compare(&args.compare)?;
        check.compare.ignore_spacing = args.ignore_spacing;
        check.exec.stop = args.stop.clone();
        check.solver.stop = args.stop.clone();
        let rows = crate::crosscheck::program::replay_dir(&check, &tests)?;
        let replayed = rows.len();
        let mut differ = false;
        for (t, row) in rows {
            differ |= row.verdict.is_difference();
            let why = if row.detail.is_empty() {
                String::new()
            } else {
                format!(" ({})", row.detail)
            };
            println!(
                "{}: A {}; B {} => {}{why}",
                t.display(),
                row.result_a,
                row.result_b,
                row.verdict
            );
        }
        if replayed < tests.len() {
            return Ok(interrupted_replay(tests.len() - replayed));
        }
        return Ok(differ as i32);
    };
    let (fa, fb) = function_names(function)?;
    let mut check = FunctionCheck::new(a, b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    check.exec.stop = args.stop.clone();
    check.solver.stop = args.stop.clone();
    let mut differ = false;
    for (i, t) in tests.iter().enumerate() {
        if args.stop.interrupted() {
            return Ok(interrupted_replay(tests.len() - i));
        }
        let (verdict, a, b) = replay_file(&check, t)?;
        differ |= verdict.is_difference();
        println!("{}: A {a}; B {b} => {verdict}", t.display());
    }
    Ok(if differ { 1 } else { 0 })
}

/// `xcheck replay DIR --native A B`: runs both binaries on every test and says whether
/// each divergence the engine reported happens natively. Exit 0 only when all do.
fn replay_native(args: &ReplayArgs, a: &Path, b: &Path, tests: &[PathBuf]) -> Result<i32, Exit> {
    use crate::crosscheck::program::quote;
    let mut compare = parse_compare(&args.compare)?;
    compare.ignore_spacing = args.ignore_spacing;
    let timeout = parse_duration("--timeout", &args.timeout)?;
    for bin in [a, b] {
        if !bin.is_file() {
            return Err(Exit::Error(Error::input(bin, "no such native binary")));
        }
    }
    // Which tests the report calls divergences (all of them when there is no report).
    let report_dir = if args.test.is_dir() {
        args.test.clone()
    } else {
        args.test
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let expected = divergent_tests(&report_dir.join("report.json"));
    let mut all_confirmed = true;
    for (i, t) in tests.iter().enumerate() {
        if args.stop.interrupted() {
            return Ok(interrupted_replay(tests.len() - i));
        }
        let ktest = KTest::read(t).map_err(Error::from)?;
        let name = t
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let divergent = expected.as_ref().is_none_or(|set| set.contains(&name));
        let env = match crate::native::env_of(&ktest) {
            Ok(env) => env,
            Err(why) => {
                all_confirmed &= !divergent;
                println!("{}: cannot replay natively: {why}", t.display());
                continue;
            }
        };
        let run = |bin: &Path| {
            crate::native::run_native(bin, &env, timeout)
                .map_err(|e| Exit::Error(Error::input(bin, format!("cannot run: {e}"))))
        };
        let (ra, rb) = (run(a)?, run(b)?);
        let differ = crate::native::differ(&ra, &rb, compare);
        let argv: Vec<String> = env.argv.iter().map(|x| quote(x)).collect();
        let status = match (divergent, differ) {
            (true, true) => "divergence CONFIRMED natively",
            (true, false) => "divergence NOT confirmed natively: engine or model bug",
            (false, true) => {
                "natively they differ, though the engine found agreement: engine or model bug"
            }
            (false, false) => "agree natively, as the engine found",
        };
        all_confirmed &= divergent == differ;
        println!(
            "{}: argv {}, stdin {}",
            t.display(),
            argv.join(" "),
            quote(&env.stdin)
        );
        println!("  A: {}, stdout {}", ra.end(), quote(&ra.stdout));
        println!("  B: {}, stdout {}", rb.end(), quote(&rb.stdout));
        println!("  => {status}");
    }
    Ok(if all_confirmed { 0 } else { 1 })
}

/// Says that a replay was interrupted with `left` tests to go; returns exit code 3.
fn interrupted_replay(left: usize) -> i32 {
    println!(
        "interrupted: {left} test{} not replayed",
        if left == 1 { "" } else { "s" }
    );
    3
}

/// The names of the tests that `report.json` lists, for any row.
fn report_tests(report: &Path) -> Result<Vec<String>, Exit> {
    let text = std::fs::read_to_string(report)
        .map_err(|e| Error::input(report, format!("cannot read: {e}")))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(report, format!("not a report: {e}")))?;
    let rows = json
        .get("rows")
        .and_then(|r| r.as_array())
        .ok_or_else(|| Error::input(report, "not a report: no 'rows' list"))?;
    Ok(rows
        .iter()
        .filter_map(|r| r.get("ktest").and_then(|k| k.as_str()).map(String::from))
        .collect())
}

/// The names of the tests that `report.json` lists for rows that differ.
fn divergent_tests(report: &Path) -> Option<std::collections::BTreeSet<String>> {
    let limit = crate::input::MAX_REPORT_BYTES;
    let text = crate::input::read_text_limited(report, limit, "reports").ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let rows = json.get("rows")?.as_array()?;
    Some(
        rows.iter()
            .filter(|r| {
                matches!(
                    r.get("verdict").and_then(|v| v.as_str()),
                    Some("diverged") | Some("error_one")
                )
            })
            .filter_map(|r| r.get("ktest").and_then(|k| k.as_str()).map(String::from))
            .collect(),
    )
}
