//! The command line: the only reader of arguments. Raw arguments are parsed by clap, then
//! validated into the library's configuration types; errors become one line and exit 2.
//!
//! ```text
//! xcheck A.bc B.bc --function f[=g] [options]   check a function pair
//! xcheck run HARNESS.bc [options]               explore a KLEE-style harness
//! xcheck show TEST.ktest...                     print tests like ktest-tool
//! xcheck replay TEST.ktest|DIR A.bc B.bc --function f[=g]
//! ```

use crate::crosscheck::{check_functions, replay_file, FunctionCheck};
use crate::error::Error;
use crate::exec::{ExecConfig, SearchKind};
use crate::ktest::KTest;
use crate::report::render_table;
use crate::solver::SolverConfig;
use clap::{Args, Parser};
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Exit code for usage and input errors.
pub const EXIT_ERROR: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "xcheck",
    version,
    about = "Prove two LLVM bitcode implementations equivalent, or show where they differ"
)]
#[command(
    after_help = "Other commands: `xcheck run HARNESS.bc`, `xcheck show TEST.ktest`, `xcheck replay TEST.ktest A.bc B.bc --function f`.\nExit codes: 0 equivalent (every path proved, exploration complete), 1 divergence, 2 usage or input error, 3 inconclusive."
)]
struct CheckArgs {
    /// Bitcode of the reference implementation (side A).
    a: PathBuf,
    /// Bitcode of the implementation to check against it (side B).
    b: PathBuf,
    /// The function to compare: `f` on both sides, or `f=g` for f in A and g in B.
    #[arg(long)]
    function: Option<String>,
    #[command(flatten)]
    params: ParamArgs,
    #[command(flatten)]
    engine: EngineArgs,
    /// Directory for tests and reports.
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-out")]
    output_dir: PathBuf,
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
}

#[derive(Args, Debug, Clone)]
struct EngineArgs {
    /// Search strategy: dfs, bfs, random-state, random-path, coverage-new, interleaved.
    #[arg(long, default_value = "interleaved")]
    search: String,
    /// Stop exploring after this long (`90`, `90s`, `5m`; `0` for no limit). Results found
    /// so far are reported; the verdict is then inconclusive unless a divergence was found.
    #[arg(long = "max-time", value_name = "TIME", default_value = "5m")]
    max_time: String,
    /// Stop after this many finished paths.
    #[arg(long = "max-paths")]
    max_paths: Option<u64>,
    /// Seed of the random choices of the search.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Time limit of one solver query (`10s`); a query that runs out makes its path unknown.
    #[arg(long = "solver-timeout", value_name = "TIME")]
    solver_timeout: Option<String>,
    /// Turn off the query cache.
    #[arg(long = "no-cache")]
    no_cache: bool,
    /// Turn off constraint independence.
    #[arg(long = "no-independence")]
    no_independence: bool,
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
#[command(name = "xcheck replay", about = "Rerun tests concretely on both sides")]
struct ReplayArgs {
    /// A .ktest file or a directory of them.
    test: PathBuf,
    a: PathBuf,
    b: PathBuf,
    #[arg(long)]
    function: String,
    #[command(flatten)]
    params: ParamArgs,
}

/// Runs the command line `args` (program name first) and returns the exit code.
pub fn main(args: Vec<OsString>) -> i32 {
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let rest = || {
        std::iter::once(OsString::from(format!("xcheck {sub}"))).chain(args.iter().skip(2).cloned())
    };
    let result = match sub {
        "run" => RunArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(run),
        "show" => ShowArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(show),
        "replay" => ReplayArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .and_then(replay),
        _ => CheckArgs::try_parse_from(args.iter().cloned())
            .map_err(clap_exit)
            .and_then(check),
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

/// Parses `90`, `90s`, `1500ms`, `5m`, `1h`.
fn parse_duration(option: &str, text: &str) -> Result<Duration, Exit> {
    let t = text.trim();
    let (num, unit) = match t.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let value: f64 = num.parse().map_err(|_| {
        usage(format!(
            "{option} '{text}': expected a duration such as 90s or 5m"
        ))
    })?;
    let secs = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(usage(format!(
                "{option} '{text}': unknown unit '{unit}' (ms, s, m, h)"
            )))
        }
    };
    if !secs.is_finite() || secs <= 0.0 {
        return Err(usage(format!("{option} '{text}': must be positive")));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn engine_config(e: &EngineArgs) -> Result<(ExecConfig, SolverConfig), Exit> {
    let search: SearchKind = e
        .search
        .parse()
        .map_err(|m| usage(format!("--search: {m}")))?;
    let exec = ExecConfig {
        max_time: match e.max_time.trim() {
            "0" | "none" => None,
            t => Some(parse_duration("--max-time", t)?),
        },
        max_paths: e.max_paths,
        search,
        seed: e.seed,
        ..ExecConfig::default()
    };
    let solver = SolverConfig {
        timeout: e
            .solver_timeout
            .as_deref()
            .map(|t| parse_duration("--solver-timeout", t))
            .transpose()?,
        cache: !e.no_cache,
        independence: !e.no_independence,
        validate: true,
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
        let size: u32 = n
            .parse()
            .ok()
            .filter(|&n| n > 0 && n <= 1 << 20)
            .ok_or_else(|| {
                usage(format!(
                    "--buffer-size '{s}': expected a size from 1 to 1048576"
                ))
            })?;
        match name {
            Some(name) => check.param_sizes.push((name.to_string(), size)),
            None => check.buffer_size = size,
        }
    }
    check.assumes = p.assume.clone();
    check.compare_buffers = p.compare_buffers;
    Ok(())
}

fn check(args: CheckArgs) -> Result<i32, Exit> {
    let Some(spec) = &args.function else {
        return Err(usage(
            "whole-program crosschecking is not implemented yet: give --function f (or f=g) to compare two functions".into(),
        ));
    };
    let (fa, fb) = function_names(spec)?;
    let mut check = FunctionCheck::new(&args.a, &args.b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    let (exec, solver) = engine_config(&args.engine)?;
    check.exec = exec;
    check.solver = solver;
    check.out_dir = args.output_dir.clone();
    let outcome = check_functions(&check)?;
    print!("{}", render_table(&outcome.report));
    println!("Tests and reports written to {}", args.output_dir.display());
    Ok(outcome.report.summary.overall.exit_code())
}

fn run(args: RunArgs) -> Result<i32, Exit> {
    let (exec, solver) = engine_config(&args.engine)?;
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
        let test = KTest::read(path).map_err(|e| Error::input(path, e.to_string()))?;
        if i > 0 {
            println!();
        }
        print!("{}", test.show(&path.display().to_string()));
    }
    Ok(0)
}

fn replay(args: ReplayArgs) -> Result<i32, Exit> {
    let (fa, fb) = function_names(&args.function)?;
    let mut check = FunctionCheck::new(&args.a, &args.b, &fa, &fb);
    apply_params(&mut check, &args.params)?;
    let tests: Vec<PathBuf> = if args.test.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&args.test)
            .map_err(|e| Error::input(&args.test, format!("cannot read directory: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
            .collect();
        v.sort();
        v
    } else {
        vec![args.test.clone()]
    };
    let mut differ = false;
    for t in &tests {
        let (verdict, a, b) = replay_file(&check, t)?;
        differ |= verdict.is_difference();
        println!("{}: A {a}; B {b} => {verdict}", t.display());
    }
    Ok(if differ { 1 } else { 0 })
}
