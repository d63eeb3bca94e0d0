//! `xcheck lib OLD NEW`: every exported function of two builds of a library, paired by name
//! and signature and checked (`libgate`), with the gate's outputs.

use crate::cli::{base_check, usage, CheckArgs, Exit};
use crate::gate;
use crate::libgate::{self, LibOptions};
use crate::report::json::Mode;

/// Runs the library check and returns its exit code (the gate's: 0, 1 when a function failed
/// the `--fail-on` policy, 2 when a check could not run).
pub(super) fn run(args: CheckArgs, options: LibOptions) -> Result<i32, Exit> {
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
    let module = gate::load_pair(&a, &b, &abstract_calls)?;
    let (selected, mut skipped) = gate::select_functions(&module, &args.include, &args.exclude);
    let listings = libgate::Listings::read(&a, &b)?;
    let selected = libgate::drop_unsupported(
        &module,
        &listings,
        (&args.include, &args.exclude),
        selected,
        &mut skipped,
    );
    if selected.is_empty() {
        return Err(Exit::Error(gate::nothing_to_check(
            &args.include,
            &args.exclude,
        )));
    }
    let mut jobs = Vec::new();
    for f in &selected {
        let mut check = base_check(&args, &a, &b, f, f)?;
        check.native = Some(crate::replay::native_functions());
        check.out_dir = gate::job_dir(&args.output_dir, None, f);
        jobs.push(gate::Job {
            check,
            accept: None,
            note: None,
        });
    }
    let started = std::time::Instant::now();
    let results = libgate::run(&module, &listings, jobs, &fail_on, &options)?;
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
    super::gate::write_gate_outputs(&args, &[section])
}
