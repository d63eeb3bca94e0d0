//! The command line: the only reader of arguments. Raw arguments are parsed by clap
//! ([`parse`] gives the [`Command`]), then validated into the library's configuration types
//! by the helpers here, which the commands' bodies (`cmd/`) call; errors become one line and
//! exit 2.
//!
//! ```text
//! xcheck A.bc B.bc --function f[=g] [options]   check a function pair
//! xcheck A.bc B.bc [options] [ENV...] [-- ARGS]   crosscheck two whole programs
//! xcheck cc CLANG-ARGS...                         compile against the bundled musl
//! xcheck run HARNESS.bc [options]               explore a KLEE-style harness
//! xcheck show TEST.ktest...                     print tests like ktest-tool
//! xcheck merge DIR... -o OUT                    join a sharded run's output directories
//! xcheck suite DIR [options] [-- CHECK OPTIONS]  crosscheck every utility of a suite
//! xcheck replay TEST.ktest|DIR A.bc B.bc --function f[=g]
//! xcheck replay DIR --native A B [--function f[=g]]   confirm tests natively
//! ```

mod lib_args;
pub(crate) use lib_args::LIB_HELP;

use crate::config::MAX_BUFFER_CAP;
use crate::crosscheck::FunctionCheck;
use crate::error::Error;
use crate::exec::{Deferral, ExecConfig, MergeMode, SearchKind};
use crate::solver::SolverConfig;
use clap::{Args, Parser};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
#[command(after_help = check_help())]
#[command(group(clap::ArgGroup::new("gate").args(["all_functions", "config"])))]
pub(crate) struct CheckArgs {
    /// Bitcode of the reference implementation (side A).
    #[arg(required_unless_present = "config")]
    pub(crate) a: Option<PathBuf>,
    /// Bitcode of the implementation to check against it (side B).
    #[arg(required_unless_present = "config")]
    pub(crate) b: Option<PathBuf>,
    /// Whole programs only: a third program (side C), for a three-way check (which sides
    /// agree, and the odd one out).
    pub(crate) c: Option<PathBuf>,
    /// The function to compare: `f` on both sides, or `f=g` for f in A and g in B.
    #[arg(long, conflicts_with_all = ["all_functions", "config"])]
    pub(crate) function: Option<String>,
    /// Check every function defined in both modules with the same name and signature.
    #[arg(long = "all-functions", conflicts_with = "config")]
    pub(crate) all_functions: bool,
    /// With --all-functions or --config: only functions matching this glob (repeatable).
    #[arg(long, value_name = "GLOB", requires = "gate")]
    pub(crate) include: Vec<String>,
    /// With --all-functions or --config: leave out functions matching this glob (repeatable).
    #[arg(long, value_name = "GLOB", requires = "gate")]
    pub(crate) exclude: Vec<String>,
    /// Pairs, functions, preconditions and limits from a TOML file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["a", "b"])]
    pub(crate) config: Option<PathBuf>,
    /// Outcomes that fail the run: any of diverged, error, unknown (comma-separated), or none.
    /// Given, the exit code is 1 when a check fails the policy and 0 otherwise.
    #[arg(long = "fail-on", value_name = "LIST")]
    pub(crate) fail_on: Option<String>,
    /// Write a JUnit XML report (one test case per function) to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Print one JSON object per check on stdout instead of tables (one schema for every
    /// mode: docs/json.md).
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) params: ParamArgs,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// Whole programs: argv[0] of both programs (default: the name both files share, as `wc`
    /// for busybox-wc.bc and coreutils-wc.bc; else A's file name up to its first dot).
    #[arg(long, value_name = "NAME")]
    pub(crate) argv0: Option<String>,
    /// Whole programs: what must agree, from stdout, stderr, exit, files (the files the
    /// programs create, change or remove), comma-separated.
    #[arg(long, value_name = "LIST", default_value = "stdout,exit,files")]
    pub(crate) compare: String,
    /// Whole programs: do not compare exit statuses.
    #[arg(long = "ignore-exit-code")]
    pub(crate) ignore_exit_code: bool,
    /// Whole programs: compare outputs line by line as words, ignoring how many spaces and
    /// tabs separate them (column padding of `wc`, `ls`…).
    #[arg(long = "ignore-spacing")]
    pub(crate) ignore_spacing: bool,
    /// Directory for tests and reports.
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-out")]
    pub(crate) output_dir: PathBuf,
    /// The most .ktest files a kind of difference gets, its example first (default 10): the
    /// reports still count and list every row with its inputs, every test is replayed, and
    /// the reports say how many files were not written.
    #[arg(long = "tests-per-kind", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) tests_per_kind: Option<u32>,
    /// Write a .ktest file for every difference and failure (no --tests-per-kind cap).
    #[arg(long = "all-tests", conflicts_with = "tests_per_kind")]
    pub(crate) all_tests: bool,
    /// Explore shard K of N (K from 1): a deterministic part of the run, the same whatever
    /// machine runs it; `xcheck merge` joins the N output directories into the report one
    /// run gives. `auto` or `auto/N` read the batch engine's variables (Slurm arrays,
    /// Kubernetes indexed jobs, GitLab, Buildkite, XCHECK_SHARD=K/N).
    #[arg(long, value_name = "K/N|auto[/N]")]
    pub(crate) shard: Option<String>,
    /// With --shard: split a check's exploration tree once it has N live states per shard
    /// (default 16); more balance the shards better and repeat more work in each. Every
    /// shard of a run must be given the same value.
    #[arg(long = "shard-frontier", value_name = "N", requires = "shard")]
    pub(crate) shard_frontier: Option<usize>,
}

/// The end of `xcheck --help`: the environment options with their limits
/// (`env_options.rs`), the other commands, the exit codes.
pub(crate) fn check_help() -> String {
    use crate::env_options::{EnvOptions, MAX_SYM_ARGS_RANGE, MAX_SYM_FILES, MAX_SYM_LEN};
    format!(
        "Whole programs (A and B built with `xcheck cc`, or program-only bitcode built for musl, which is linked with the bundled musl; no --function): the symbolic environment is given with KLEE's options, anywhere on the command line: --sym-arg N, --sym-args MIN MAX N, --sym-files NUM N, --sym-stdin N, --max-fail N (at most {MAX_SYM_ARGS_RANGE} arguments, {MAX_SYM_FILES} files, {MAX_SYM_LEN} bytes each); program arguments go after `--` (where --sym-* options may be mixed in, in order). Default: {}.\nOther commands: `xcheck cc CLANG-ARGS`, `xcheck run HARNESS.bc`, `xcheck show TEST.ktest`, `xcheck query LOG`, `xcheck replay TEST.ktest|DIR A.bc B.bc [--function f]`, `xcheck replay DIR --native A B [--function f]`, `xcheck suite DIR [-- CHECK OPTIONS]` (every utility of a suite, one table), `xcheck merge DIR… -o OUT`.\nExit codes: 0 equivalent (every path proved, exploration complete), 1 divergence, 2 usage or input error, 3 inconclusive.",
        EnvOptions::default().to_args().join(" ")
    )
}

/// Takes the environment options (`env_options.rs`) and everything after `--` out of a
/// check's command line, keeping their order (it decides the order of the program's
/// arguments).
pub(crate) fn split_env(args: Vec<OsString>) -> (Vec<OsString>, Vec<String>) {
    let mut rest = Vec::new();
    let mut env = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let text = arg.to_string_lossy().into_owned();
        if text == "--" {
            env.extend(it.by_ref().map(|a| a.to_string_lossy().into_owned()));
            break;
        }
        match crate::env_options::arity(&text).filter(|_| text.starts_with("--")) {
            Some(arity) => {
                env.push(text);
                env.extend(
                    it.by_ref()
                        .take(arity)
                        .map(|a| a.to_string_lossy().into_owned()),
                );
            }
            None => rest.push(arg),
        }
    }
    (rest, env)
}

/// xcheck's own options among the words after `--` (which become both programs'
/// arguments): almost always meant for xcheck (`-- -c --sym-stdin 4 --max-time 90` ran with
/// the default time limit and passed `--max-time 90` to the programs), so a usage error
/// naming them. `--help` and `--version` stay the programs' (crosschecking their help text
/// is a real use), and so does every option xcheck does not define.
pub(crate) fn misplaced_options(env: &[String]) -> Result<(), Quit> {
    use clap::CommandFactory;
    let command = CheckArgs::command();
    let ours: Vec<&str> = command
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !matches!(*l, "help" | "version"))
        .collect();
    let found: Vec<&str> = env
        .iter()
        .filter(|w| {
            w.strip_prefix("--")
                .map(|o| o.split_once('=').map_or(o, |(name, _)| name))
                .is_some_and(|name| ours.contains(&name))
        })
        .map(String::as_str)
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    Err(usage(format!(
        "{} after '--' would be an argument of both programs, not an option of xcheck: put xcheck's options before '--'",
        found.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(", ")
    )))
}

#[derive(Args, Debug, Clone)]
pub(crate) struct ParamArgs {
    /// Size in bytes of the buffer behind a pointer parameter (`N`, or `name=N` for one
    /// parameter). Struct pointees get their own size. Default 16.
    #[arg(long = "buffer-size", value_name = "N|NAME=N")]
    pub(crate) buffer_size: Vec<String>,
    /// The most bytes a buffer of `--buffer-size N` grows to when a side reads or writes
    /// past its end (a caller may pass a bigger one); a path that needs more is unknown.
    /// `--buffer-size NAME=N` and a pointee's type fix a size. Default 256, at most 65536.
    #[arg(long = "buffer-cap", value_name = "N")]
    pub(crate) buffer_cap: Option<u32>,
    /// Where a buffer passed as a plain pointer starts within a 16-byte boundary: `any`
    /// (an input, so code whose path depends on the alignment runs each way) or an offset
    /// from 0 to 15. Default: at the boundary.
    #[arg(long = "buffer-offset", value_name = "any|K")]
    pub(crate) buffer_offset: Option<crate::crosscheck::BufferOffset>,
    /// Explore aliasing: the named pointer parameters (comma-separated; all plain pointer
    /// parameters when none are named) point into one object, each at an offset that is an
    /// input, so they may coincide, overlap or lie apart. Default: separate buffers.
    #[arg(long, value_name = "P,Q", num_args = 0..=1, default_missing_value = "")]
    pub(crate) alias: Option<String>,
    /// A precondition over the parameters (C-like: `n < 10 && s[3] == 0`). Repeatable.
    #[arg(long, value_name = "EXPR")]
    pub(crate) assume: Vec<String>,
    /// Compare the final contents of pointed-to buffers too (`true`/`false`).
    #[arg(long = "compare-buffers", default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub(crate) compare_buffers: bool,
    /// Function checks: call these functions (comma-separated names, e.g. `sin,cos`) as
    /// uninterpreted functions, where equal arguments give equal results, instead of running
    /// musl's code of them.
    #[arg(long = "abstract-calls", value_name = "LIST")]
    pub(crate) abstract_calls: Option<String>,
    /// Function checks: never summarize calls. By default a callee both sides define
    /// identically, and the entries' recursive calls, are first tried as one uninterpreted
    /// function of both sides (a proof then assumes both sides terminate); a run by
    /// summaries that does not prove every path is followed by one without.
    #[arg(long = "no-summaries")]
    pub(crate) no_summaries: bool,
    /// How mutable globals start in function checks: `symbolic` (the same symbolic bytes on
    /// both sides, the default: a function may be called in any state) or `initial` (their
    /// initializers). Globals both sides define are compared at the end either way.
    #[arg(long, value_name = "symbolic|initial")]
    pub(crate) globals: Option<String>,
    /// When floating-point return values are equal: `bits` (the same bit pattern, the
    /// default: -0.0 differs from +0.0, NaN payloads count) or `ieee` (`==`, NaN equal to NaN).
    #[arg(long = "fp-equal", value_name = "bits|ieee")]
    pub(crate) fp_equal: Option<String>,
    /// What an operation with an undefined result gives (a shift by at least the width,
    /// `ctlz`/`cttz` of zero under the poison flag): `report` (the default: a fresh value,
    /// and a path whose outcome depends on it is undefined behaviour, named with its place,
    /// never a verdict) or `machine` (what x86-64 computes: shift counts masked).
    #[arg(long = "ub", value_name = "report|machine")]
    pub(crate) ub: Option<String>,
    /// Floating-point return values are equal when IEEE-equal (NaN equal to NaN) or both
    /// finite and within `ulp:N` representable values, `abs:E` or `rel:E` of each other.
    #[arg(
        long = "fp-tolerance",
        value_name = "ulp:N|abs:E|rel:E",
        conflicts_with = "fp_equal"
    )]
    pub(crate) fp_tolerance: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub(crate) struct EngineArgs {
    /// Search strategy: dfs, bfs, random-state, random-path, coverage-new, interleaved.
    #[arg(long, default_value = "interleaved")]
    pub(crate) search: String,
    /// Stop exploring after this long (`90`, `90s`, `5m`, at most `720h`; `0` for no limit). Results found
    /// so far are reported; the verdict is then inconclusive unless a divergence was found.
    #[arg(long = "max-time", value_name = "TIME", default_value = "5m")]
    pub(crate) max_time: String,
    /// Stop after this many finished paths (of all threads together; a path that waited for
    /// a query and was not retried is reported as unknown besides).
    #[arg(long = "max-paths")]
    pub(crate) max_paths: Option<u64>,
    /// Exploration threads for one check, 1 to 256 (default: all cores). Function checks of
    /// --all-functions and --config run in parallel instead, one thread each.
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub(crate) jobs: Option<usize>,
    /// Keep resident memory under this many MiB by dropping live states (counted; the
    /// verdict is then inconclusive unless a divergence was found). Default: half of the
    /// machine's memory; 0 for no cap; at most 16777216 (16 TiB).
    #[arg(long = "max-memory", value_name = "MIB")]
    pub(crate) max_memory: Option<u64>,
    /// Merge the states of every branch where they meet again, not only those of small
    /// effect-free regions, as by default (one row may then stand for many paths). A merge
    /// group stays in the thread that made it.
    #[arg(long, conflicts_with = "no_merge")]
    pub(crate) merge: bool,
    /// Never merge states: every path is explored, and reported, on its own.
    #[arg(long = "no-merge")]
    pub(crate) no_merge: bool,
    /// Seed of the random choices of the search.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,
    /// Time limit of one solver query (`10s`, at most `720h`; `0` for no limit); a query that
    /// runs out makes its path unknown. Default: 30s.
    #[arg(long = "solver-timeout", value_name = "TIME")]
    pub(crate) solver_timeout: Option<String>,
    /// A branch side the solver does not decide within TIME waits: the other states run
    /// first, and it is asked again with the full --solver-timeout when its thread has
    /// nothing else to run, or has run the others a query's limit longer than such retries
    /// (`0` or `none`: every branch query gets the full limit at once). Default: 1s.
    #[arg(long = "defer-after", value_name = "TIME")]
    pub(crate) defer_after: Option<String>,
    /// Write every query that reaches the SMT solver into FILE as SMT-LIB, with its answer
    /// and time, for `xcheck query FILE` to replay.
    #[arg(long = "log-queries", value_name = "FILE")]
    pub(crate) log_queries: Option<PathBuf>,
    /// With --log-queries: write only the queries that took at least TIME (`100ms`, `2s`),
    /// to find the slow ones of a long run.
    #[arg(
        long = "log-queries-slower-than",
        value_name = "TIME",
        requires = "log_queries"
    )]
    pub(crate) log_queries_slower_than: Option<String>,
    /// Turn off the query cache.
    #[arg(long = "no-cache")]
    pub(crate) no_cache: bool,
    /// Turn off the counterexample cache (answers from subsets and supersets of earlier queries).
    #[arg(long = "no-cex-cache")]
    pub(crate) no_cex_cache: bool,
    /// Turn off constraint independence.
    #[arg(long = "no-independence")]
    pub(crate) no_independence: bool,
    /// Turn off range rewriting (queries simplified with the bounds their constraints imply).
    #[arg(long = "no-ranges")]
    pub(crate) no_ranges: bool,
    /// Turn off sweeping (a query not decided within 5 s asked again with the sub-terms its constraints prove equal merged).
    #[arg(long = "no-sweep")]
    pub(crate) no_sweep: bool,
    /// Turn off enumeration (queries over at most 16 input bytes decided by trying the inputs their constraints leave, when that is cheap).
    #[arg(long = "no-enumerate")]
    pub(crate) no_enumerate: bool,
    /// Turn off boundary models (a query answered by the path's model with an input moved to a boundary of its comparisons with constants, checked by evaluation).
    #[arg(long = "no-boundary-models")]
    pub(crate) no_boundary_models: bool,
    #[arg(long = "solver", value_name = "NAME", help = crate::solver::BACKEND_HELP)]
    pub(crate) solver: Option<String>,
    /// Ask the other SMT solver every question the solver, range rewriting, enumeration or
    /// boundary models answer; opposite answers stop the check with an error (exit 2) naming
    /// both, and the query is written to the output directory.
    #[arg(long = "cross-check-solver")]
    pub(crate) cross_check_solver: bool,
    /// The run's stop token (set by the binary's signal handlers), not an option.
    #[arg(skip)]
    pub(crate) stop: crate::stop::Stop,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck run",
    about = "Explore a program whose main uses KLEE's interface"
)]
pub(crate) struct RunArgs {
    pub(crate) program: PathBuf,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// Print one JSON object (the schema of every `--json`, docs/json.md) instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-out")]
    pub(crate) output_dir: PathBuf,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck show",
    about = "Print .ktest files as KLEE's ktest-tool does, or with --ir the engine's IR of bitcode files"
)]
pub(crate) struct ShowArgs {
    /// The tests to print (with --ir: the bitcode files).
    #[arg(required = true, value_name = "FILE")]
    pub(crate) tests: Vec<PathBuf>,
    /// Print the engine's IR of each bitcode file instead, lowered as a function check loads
    /// a side: every function the file defines (not the musl functions linked in).
    #[arg(long)]
    pub(crate) ir: bool,
    /// With --ir: only the function of this name.
    #[arg(long, requires = "ir", value_name = "NAME")]
    pub(crate) function: Option<String>,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck merge",
    about = "Join the output directories of a sharded run (--shard K/N) into the report, tests and verdict one run gives"
)]
pub(crate) struct MergeArgs {
    /// The output directory of every shard, in any order.
    #[arg(required = true, value_name = "DIR")]
    pub(crate) dirs: Vec<PathBuf>,
    /// Where the merged tests and reports go (not one of the shards' directories).
    #[arg(short = 'o', long = "output-dir", required = true)]
    pub(crate) output_dir: PathBuf,
    /// Write a JUnit XML report to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// The most .ktest files a kind of difference keeps, its example first (default 10),
    /// chosen over every shard's rows as one run chooses them.
    #[arg(long = "tests-per-kind", value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) tests_per_kind: Option<u32>,
    /// Keep a .ktest file for every difference and failure.
    #[arg(long = "all-tests", conflicts_with = "tests_per_kind")]
    pub(crate) all_tests: bool,
    /// One check's shards: the outcomes that fail the run (as for a check); a gate run's
    /// shards were judged by their own policy when they ran.
    #[arg(long = "fail-on", value_name = "LIST")]
    pub(crate) fail_on: Option<String>,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck suite",
    about = "Crosscheck every utility of a suite (busybox, toybox against coreutils…), each as a whole-program check, with one table",
    after_help = "DIR holds IMPL-UTIL.bc with the native executable IMPL-UTIL beside it (scripts/build-utils.sh). Options after `--` go to every check, e.g. `xcheck suite build/utils -- --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8 --max-time 120`. Writes OUT/suite.md, OUT/suite.json and each check's directory OUT/IMPL-vs-REF/UTIL. Exit codes: 0 every pair equivalent, 1 a confirmed difference, 2 usage or input error, 3 otherwise."
)]
pub(crate) struct SuiteArgs {
    /// Directory of the suite's whole programs.
    pub(crate) dir: PathBuf,
    /// The reference implementation every other one is checked against.
    #[arg(long, default_value = "coreutils")]
    pub(crate) against: String,
    /// The implementations checked against it, comma-separated (default: every other one in
    /// DIR).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(crate) sides: Vec<String>,
    /// Only these utilities, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(crate) only: Vec<String>,
    /// Directory for the table and every check's tests and reports.
    #[arg(short = 'o', long = "output-dir", default_value = "xcheck-suite")]
    pub(crate) output_dir: PathBuf,
    /// Checks run at once (each a process of its own).
    #[arg(short = 'j', long, default_value_t = 1)]
    pub(crate) jobs: usize,
    /// What must agree, from stdout, stderr, exit, files (comma-separated); given to every
    /// check.
    #[arg(long, value_name = "LIST", default_value = "stdout,exit,files")]
    pub(crate) compare: String,
    /// One three-way check per utility that the reference and exactly two others provide
    /// (`xcheck X.bc REF.bc Y.bc`), instead of two pairs.
    #[arg(long)]
    pub(crate) three: bool,
    /// Compare outputs as words, ignoring spacing; given to every check.
    #[arg(long = "ignore-spacing")]
    pub(crate) ignore_spacing: bool,
    /// Mismatches reported before (a TOML list, as corpora/klee-paper/mismatches.toml): for
    /// each, whether its check found a difference on that command line, and whether the
    /// native executables still differ on it.
    #[arg(long, value_name = "FILE")]
    pub(crate) mismatches: Option<PathBuf>,
    /// Options of every check (the environment, limits), after `--`.
    #[arg(last = true, value_name = "CHECK OPTIONS")]
    pub(crate) check: Vec<OsString>,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck replay",
    about = "Rerun tests concretely: in the engine on two bitcode files, or natively (--native)"
)]
pub(crate) struct ReplayArgs {
    /// A .ktest file or a directory of them.
    pub(crate) test: PathBuf,
    /// Bitcode of side A (not with --native).
    pub(crate) a: Option<PathBuf>,
    /// Bitcode of side B (not with --native).
    pub(crate) b: Option<PathBuf>,
    /// Bitcode of side C, for the tests of a three-way program check (not with --native).
    pub(crate) c: Option<PathBuf>,
    /// For function tests: the function pair, `f` or `f=g`.
    #[arg(long)]
    pub(crate) function: Option<String>,
    /// Run natively instead of in the engine: two binaries built with `xcheck cc` (whole
    /// programs), or, with --function, the two bitcode files (compiled by clang-19 into one
    /// executable with a generated driver).
    /// Three binaries (A B C) replay the tests of a three-way program check.
    #[arg(long, num_args = 2..=3, value_names = ["A", "B"], conflicts_with_all = ["a", "b", "c"])]
    pub(crate) native: Option<Vec<PathBuf>>,
    /// Whole programs: what must agree, from stdout, stderr, exit, files (the files the
    /// programs create, change or remove), comma-separated.
    #[arg(long, value_name = "LIST", default_value = "stdout,exit,files")]
    pub(crate) compare: String,
    /// Whole programs: compare outputs as words, ignoring spacing (as the check did).
    #[arg(long = "ignore-spacing")]
    pub(crate) ignore_spacing: bool,
    /// Native replay: time limit of one run (`10s`, at most `720h`).
    #[arg(long, value_name = "TIME", default_value = "10s")]
    pub(crate) timeout: String,
    #[command(flatten)]
    pub(crate) params: ParamArgs,
    /// The run's stop token (set by the binary's signal handlers), not an option.
    #[arg(skip)]
    pub(crate) stop: crate::stop::Stop,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcheck query",
    about = "Replay a query log (--log-queries) against the SMT solvers",
    after_help = "Prints each query's answers and times, flagging a MISMATCH where two definite answers (the logged one and each solver's) differ. Exit codes: 0 no mismatch, 1 a mismatch, 2 usage or input error."
)]
pub(crate) struct QueryArgs {
    /// The log written by --log-queries.
    pub(crate) log: PathBuf,
    #[arg(long, default_value = "both", help = crate::solver::querylog::REPLAY_SOLVER_HELP)]
    pub(crate) solver: String,
    /// Time limit of one check (`10s`, at most `720h`; `0` for no limit).
    #[arg(long, value_name = "TIME", default_value = "30s")]
    pub(crate) timeout: String,
}

/// How a command quits without running to its verdict: clap printed help, a version or a
/// usage error itself and exits with `Code`, or an `Error` (one line, exit 2). Not the
/// engine's `exec::Exit`, how a program's path ends.
pub(crate) enum Quit {
    /// clap printed help, a version or a usage error itself.
    Code(i32),
    Error(Error),
}

impl From<Error> for Quit {
    fn from(e: Error) -> Self {
        Quit::Error(e)
    }
}

/// `--help` and `--version` print as clap prints them; a usage error is one line, as every
/// other error (clap's own text spreads it over several, with a usage block).
pub(crate) fn clap_exit(e: clap::Error) -> Quit {
    if !e.use_stderr() {
        let _ = e.print();
        return Quit::Code(0);
    }
    usage(format!(
        "{}{} (see --help)",
        clap_message(&e.render().to_string()),
        suggestion(&e)
    ))
}

/// clap's "did you mean" for a mistyped option, subcommand or value (its rendered tip is
/// below the first line, which is all a usage error prints): `; did you mean '--jobs'?`.
pub(crate) fn suggestion(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let kinds = [
        ContextKind::SuggestedArg,
        ContextKind::SuggestedSubcommand,
        ContextKind::SuggestedValue,
    ];
    let found = kinds.iter().find_map(|&kind| match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) if !v.is_empty() => Some(v.join("' or '")),
        _ => None,
    });
    found.map_or_else(String::new, |s| format!("; did you mean '{s}'?"))
}

/// The error part of clap's rendered text on one line: the lines before the first blank
/// one, without clap's `error: ` prefix.
pub(crate) fn clap_message(rendered: &str) -> String {
    let lines: Vec<&str> = rendered
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let text = lines.join(" ");
    text.strip_prefix("error: ").unwrap_or(&text).to_string()
}

pub(crate) fn usage(msg: String) -> Quit {
    Quit::Error(Error::Usage(msg))
}

/// Half of the machine's memory (from `/proc/meminfo`): exploration that keeps hundreds of
/// thousands of states alive drops states (counted, and the verdict says so) instead of
/// being killed by the kernel.
pub(crate) fn default_memory_cap() -> Option<u64> {
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

/// The first try of a branch query before its side waits (`--defer-after`): long enough
/// for the queries of the corpora, whose branch queries take at most a few hundred
/// milliseconds, short enough that a program's hard queries do not hold up its cheap paths.
const DEFAULT_DEFER_AFTER: Duration = Duration::from_secs(1);

/// Parses a positive duration ([`crate::config::parse_duration`]).
pub(crate) fn parse_duration(option: &str, text: &str) -> Result<Duration, Quit> {
    crate::config::parse_duration(text).map_err(|why| usage(format!("{option} {why}")))
}

/// Parses a time limit, where `0` and `none` are no limit ([`crate::config::parse_limit`]).
pub(crate) fn parse_limit(option: &str, text: &str) -> Result<Option<Duration>, Quit> {
    crate::config::parse_limit(text).map_err(|why| usage(format!("{option} {why}")))
}

pub(crate) fn engine_config(
    e: &EngineArgs,
    output_dir: &Path,
) -> Result<(ExecConfig, SolverConfig), Quit> {
    let search: SearchKind = e
        .search
        .parse()
        .map_err(|m| usage(format!("--search: {m}")))?;
    let mut exec = ExecConfig {
        max_time: parse_limit("--max-time", &e.max_time)?,
        max_paths: e.max_paths,
        search,
        seed: e.seed,
        merge: match (e.merge, e.no_merge) {
            (true, _) => MergeMode::All,
            (_, true) => MergeMode::Off,
            _ => MergeMode::Auto,
        },
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
        sweep: !e.no_sweep,
        enumerate: !e.no_enumerate,
        boundary: !e.no_boundary_models,
        cex_cache: !e.no_cex_cache,
        validate: true,
        backend: match &e.solver {
            Some(name) => name.parse().map_err(|m| usage(format!("--solver: {m}")))?,
            None => crate::solver::Backend::unnamed(e.cross_check_solver),
        },
        cross_check: e.cross_check_solver.then(|| output_dir.to_path_buf()),
        log: match &e.log_queries {
            Some(path) => {
                let log = crate::solver::QueryLog::create(path)
                    .map_err(|why| usage(format!("--log-queries {why}")))?;
                let slower_than = match &e.log_queries_slower_than {
                    Some(text) => {
                        parse_limit("--log-queries-slower-than", text)?.unwrap_or_default()
                    }
                    None => std::time::Duration::ZERO,
                };
                Some(std::sync::Arc::new(log.slower_than(slower_than)))
            }
            None => None,
        },
    };
    let first_try = match &e.defer_after {
        None => Some(DEFAULT_DEFER_AFTER),
        Some(t) => parse_limit("--defer-after", t)?,
    };
    exec.defer = first_try
        // A first try as long as the solver's limit is the only try.
        .filter(|f| solver.timeout.is_none_or(|t| *f < t))
        .map(|first_try| Deferral {
            first_try,
            retry: solver
                .timeout
                .unwrap_or(crate::solver::DEFAULT_QUERY_TIMEOUT),
        });
    if solver.cross_check.is_some() && solver.backend == crate::solver::Backend::Portfolio {
        let why = crate::solver::PORTFOLIO_CROSS_CHECK;
        return Err(usage(format!("--cross-check-solver: {why}")));
    }
    Ok((exec, solver))
}

pub(crate) fn function_names(spec: &str) -> Result<(String, String), Quit> {
    let (a, b) = match spec.split_once('=') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (spec.trim(), spec.trim()),
    };
    if a.is_empty() || b.is_empty() {
        return Err(usage(format!("--function '{spec}': expected f or f=g")));
    }
    Ok((a.to_string(), b.to_string()))
}

pub(crate) fn apply_params(check: &mut FunctionCheck, p: &ParamArgs) -> Result<(), Quit> {
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
    if let Some(cap) = p.buffer_cap {
        if cap > MAX_BUFFER_CAP {
            return Err(usage(format!(
                "--buffer-cap {cap}: at most {MAX_BUFFER_CAP} bytes"
            )));
        }
        check.buffer_cap = cap;
    }
    check.buffer_offset = p.buffer_offset;
    check.alias = p.alias.as_ref().map(|list| {
        list.split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from)
            .collect()
    });
    check.assumes = p.assume.clone();
    check.compare_buffers = p.compare_buffers;
    check.summaries = !p.no_summaries;
    if let Some(list) = &p.abstract_calls {
        check.exec.abstract_calls = abstract_calls_of(list)?;
    }
    if let Some(mode) = globals_of(p)? {
        check.globals = mode;
    }
    if let Some(mode) = &p.fp_equal {
        check.fp_equality = crate::crosscheck::FpEquality::parse_mode(mode)
            .map_err(|m| usage(format!("--fp-equal {m}")))?;
    }
    if let Some(mode) = &p.ub {
        check.ub = mode.parse().map_err(|m| usage(format!("--ub {m}")))?;
    }
    if let Some(tolerance) = &p.fp_tolerance {
        check.fp_equality = crate::crosscheck::FpEquality::parse_tolerance(tolerance)
            .map_err(|m| usage(format!("--fp-tolerance {m}")))?;
    }
    Ok(())
}

/// The names of `--abstract-calls`.
pub(crate) fn abstract_calls_of(list: &str) -> Result<Vec<String>, Quit> {
    crate::config::parse_abstract_calls(list).map_err(|m| usage(format!("--abstract-calls: {m}")))
}

/// `--globals`, if given.
pub(crate) fn globals_of(
    p: &ParamArgs,
) -> Result<Option<crate::crosscheck::globals::GlobalsMode>, Quit> {
    p.globals
        .as_deref()
        .map(|g| g.parse().map_err(|m| usage(format!("--globals {m}"))))
        .transpose()
}

/// The most test files per kind of difference: `--tests-per-kind N`, none with
/// `--all-tests`, else the default (for a check and for `xcheck merge`).
pub(crate) fn tests_per_kind_of(all_tests: bool, tests_per_kind: Option<u32>) -> Option<usize> {
    match (all_tests, tests_per_kind) {
        (true, _) => None,
        (false, Some(n)) => Some(n as usize),
        (false, None) => Some(crate::crosscheck::DEFAULT_TESTS_PER_KIND),
    }
}

/// `--shard K/N` (or `auto`, from the environment), if given.
pub(crate) fn shard_of(args: &CheckArgs) -> Result<Option<crate::exec::shard::Shard>, Quit> {
    let Some(text) = &args.shard else {
        return Ok(None);
    };
    let mut shard = crate::exec::shard::Shard::parse(text, &|name| std::env::var(name).ok())
        .map_err(|why| usage(format!("--shard {why}")))?;
    if let Some(n) = args.shard_frontier {
        if n == 0 || n > crate::exec::shard::MAX_FRONTIER_PER_SHARD {
            return Err(usage(format!(
                "--shard-frontier {n}: must be from 1 to {}",
                crate::exec::shard::MAX_FRONTIER_PER_SHARD
            )));
        }
        shard.per_shard = n;
    }
    Ok(Some(shard))
}

/// `-j N`, or every core.
pub(crate) fn jobs_of(e: &EngineArgs) -> Result<usize, Quit> {
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
pub(crate) fn base_check(
    args: &CheckArgs,
    a: &Path,
    b: &Path,
    fa: &str,
    fb: &str,
) -> Result<FunctionCheck, Quit> {
    let mut check = FunctionCheck::new(a, b, fa, fb);
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    check.exec = exec;
    check.solver = solver;
    check.tests_per_kind = tests_per_kind_of(args.all_tests, args.tests_per_kind);
    apply_params(&mut check, &args.params)?;
    Ok(check)
}

pub(crate) fn parse_compare(list: &str) -> Result<crate::crosscheck::program::Compare, Quit> {
    let mut c = crate::crosscheck::program::Compare {
        stdout: false,
        stderr: false,
        exit: false,
        files: false,
        ignore_spacing: false,
    };
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "stdout" => c.stdout = true,
            "stderr" => c.stderr = true,
            "exit" => c.exit = true,
            "files" => c.files = true,
            other => {
                return Err(usage(format!(
                    "--compare: unknown '{other}' (stdout, stderr, exit, files)"
                )))
            }
        }
    }
    Ok(c)
}

/// A command line, parsed: which command, with its arguments (the run's stop token in
/// those of the commands that explore or replay).
pub(crate) enum Command {
    /// The child side of loading untrusted bitcode (`load/isolate.rs`): not for people.
    CheckBitcode(Vec<OsString>),
    /// `xcheck cc --help`: its help is xcheck's.
    CcHelp,
    /// `xcheck cc ARGS…`: every argument is the compiler's, not parsed here.
    Cc(Vec<OsString>),
    Run(Box<RunArgs>),
    Query(QueryArgs),
    Merge(MergeArgs),
    Suite(SuiteArgs),
    Show(ShowArgs),
    Replay(Box<ReplayArgs>),
    /// `xcheck lib OLD NEW`: a check's arguments (with `--all-functions`) and the library
    /// run's own options.
    Lib(Box<CheckArgs>, crate::libgate::LibOptions),
    /// `xcheck lib --help`.
    LibHelp,
    /// A check (of functions, programs, or a gate's), with the KLEE environment options
    /// taken out of the arguments in order.
    Check(Box<CheckArgs>, Vec<String>),
}

/// Parses the command line `args` (program name first); `stop` goes into the arguments of
/// the commands that explore or replay.
pub(crate) fn parse(args: Vec<OsString>, stop: &crate::stop::Stop) -> Result<Command, Quit> {
    let sub = args.get(1).and_then(|a| a.to_str()).unwrap_or("");
    let rest = || {
        std::iter::once(OsString::from(format!("xcheck {sub}"))).chain(args.iter().skip(2).cloned())
    };
    if sub == crate::load::CHECK_SUBCOMMAND {
        return Ok(Command::CheckBitcode(args[2..].to_vec()));
    }
    if sub == "cc" {
        if matches!(&args[2..], [a] if a == "--help" || a == "-h") {
            return Ok(Command::CcHelp);
        }
        return Ok(Command::Cc(args[2..].to_vec()));
    }
    if sub == "lib" {
        if matches!(&args[2..], [a] if a == "--help" || a == "-h") {
            return Ok(Command::LibHelp);
        }
        return lib_args::parse_lib(&args, stop).map(|(a, o)| Command::Lib(Box::new(a), o));
    }
    match sub {
        "run" => RunArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(|mut a| {
                a.engine.stop = stop.clone();
                Command::Run(Box::new(a))
            }),
        "query" => QueryArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(Command::Query),
        "merge" => MergeArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(Command::Merge),
        "suite" => SuiteArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(Command::Suite),
        "show" => ShowArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(Command::Show),
        "replay" => ReplayArgs::try_parse_from(rest())
            .map_err(clap_exit)
            .map(|mut a| {
                a.stop = stop.clone();
                Command::Replay(Box::new(a))
            }),
        _ => {
            let (args, env) = split_env(args);
            misplaced_options(&env)
                .and_then(|()| CheckArgs::try_parse_from(args).map_err(clap_exit))
                .map(|mut a| {
                    a.engine.stop = stop.clone();
                    Command::Check(Box::new(a), env)
                })
        }
    }
}

#[cfg(test)]
mod tests;
