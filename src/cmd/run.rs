//! `xcheck run HARNESS.bc`: explores a KLEE-style harness.

use crate::cli::{engine_config, Exit, RunArgs};
use crate::report::console;
use crate::report::json::JsonLine;

/// Explores the harness and returns its exit code.
pub(super) fn run(args: RunArgs) -> Result<i32, Exit> {
    let (exec, solver) = engine_config(&args.engine, &args.output_dir)?;
    let s = crate::run::run_harness(&args.program, exec, &solver, &args.output_dir)?;
    let result = s.result();
    if args.json {
        let line = JsonLine::run(&args.program, &args.output_dir, &result, s.exit_code());
        println!("{}", line.render());
    } else {
        print!("{}", console::render_run(&result, &args.output_dir));
    }
    Ok(s.exit_code())
}
