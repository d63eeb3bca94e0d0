//! `xcheck lib OLD NEW`: every exported function of two builds of a library, paired by name
//! and signature and checked (`libgate`), with the gate's outputs.

use crate::cli::{usage, CheckArgs, Quit};
use crate::gate;
use crate::libgate::{self, LibOptions};
use crate::report::json::Mode;
use std::path::Path;

/// Runs the library check and returns its exit code (the gate's: 0, 1 when a function failed
/// the `--fail-on` policy, 2 when a check could not run).
pub(super) fn run(args: CheckArgs, options: LibOptions) -> Result<i32, Quit> {
    let (Some(a), Some(b)) = (args.a.clone(), args.b.clone()) else {
        return Err(usage("xcheck lib needs two builds: OLD NEW".into()));
    };
    if !args.params.assume.is_empty() {
        return Err(usage(
            "--assume names parameters of one function: use a --config file for per-function preconditions".into(),
        ));
    }
    let fail_on = match &args.fail_on {
        Some(list) => {
            crate::config::parse_fail_on(list).map_err(|m| usage(format!("--fail-on: {m}")))?
        }
        None => crate::config::DEFAULT_FAIL_ON.to_vec(),
    };
    let abstract_calls = match &args.params.abstract_calls {
        Some(list) => crate::cli::abstract_calls_of(list)?,
        None => Vec::new(),
    };
    let started = std::time::Instant::now();
    let listings = libgate::Listings::read(&a, &b)?;
    // Aliases the globs select are reported under their own names with their targets'
    // results: the targets are checked whether the globs select them or not.
    let wanted = |f: &str| gate::selected_by(f, &args.include, &args.exclude);
    let (aliases, alias_skipped) = libgate::aliases::find(&listings, &wanted);
    let mut include = args.include.clone();
    if !include.is_empty() {
        include.extend(aliases.iter().map(|a| a.target.clone()));
    }
    // A rerun on unchanged builds: when every function is identical or cached, the
    // listings pair them and the modules are never loaded. `--buffer-size NAME=N` is
    // checked against the functions' parameters (from the listings) before any check runs.
    if let Some((names, mut skipped)) =
        libgate::pair_from_listings(&listings, (&include, &args.exclude))
    {
        let mut jobs = super::gate::function_jobs(&args, &a, &b, &names)?;
        libgate::fit_buffer_sizes(&listings, &mut jobs).map_err(usage)?;
        let settled = libgate::settle(&listings, jobs, &fail_on, &options);
        if let Some(mut results) = libgate::all_done(settled).filter(|r| !r.is_empty()) {
            skipped.extend(alias_skipped);
            libgate::aliases::results(&mut results, &aliases, &mut skipped);
            return finish(&args, (&a, &b), results, skipped, started);
        }
    }
    let module = gate::load_pair(&a, &b, &abstract_calls)?;
    let (selected, mut skipped) = gate::select_functions(&module, &include, &args.exclude);
    let selected = libgate::drop_unsupported(&module, &listings, selected, &mut skipped);
    skipped.extend(alias_skipped);
    if selected.is_empty() {
        return Err(Quit::Error(gate::nothing_to_check(
            &args.include,
            &args.exclude,
        )));
    }
    let mut jobs = super::gate::function_jobs(&args, &a, &b, &selected)?;
    libgate::fit_buffer_sizes(&listings, &mut jobs).map_err(usage)?;
    let live = super::gate::live_lines(jobs.len());
    let mut results = libgate::run(&module, &listings, jobs, &fail_on, &options, &live)?;
    libgate::aliases::results(&mut results, &aliases, &mut skipped);
    finish(&args, (&a, &b), results, skipped, started)
}

/// Prints the table (or the `--json` lines) and writes the gate's outputs.
fn finish(
    args: &CheckArgs,
    (a, b): (&Path, &Path),
    results: Vec<(gate::JobResult, libgate::How)>,
    skipped: Vec<gate::Skipped>,
    started: std::time::Instant,
) -> Result<i32, Quit> {
    let title = format!("{}  vs  {}", a.display(), b.display());
    if args.json {
        for (r, _) in &results {
            println!("{}", r.json(Mode::Gate, 1));
        }
    } else {
        print!("{}", libgate::render_table(&title, &results, &skipped));
        println!("wall time {:.1} s", started.elapsed().as_secs_f64());
    }
    let section = gate::Section {
        title,
        results: results.into_iter().map(|(r, _)| r).collect(),
        skipped,
    };
    for (label, e) in section.errors() {
        eprintln!("xcheck: error: {label}: {e}");
    }
    super::gate::write_gate_outputs(args, &[section])
}
