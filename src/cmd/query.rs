//! `xcheck query LOG`: replays a query log (`--log-queries`) on the solvers.

use crate::cli::{parse_limit, usage, QueryArgs, Quit};

/// Replays the log and returns 1 when an answer differs from the logged one.
pub(super) fn run(args: QueryArgs, stop: &crate::stop::Stop) -> Result<i32, Quit> {
    use crate::solver::querylog;
    let backends =
        querylog::backends_of(&args.solver).map_err(|m| usage(format!("--solver: {m}")))?;
    let timeout = parse_limit("--timeout", &args.timeout)?;
    let (report, mismatch) =
        querylog::replay_query_log(&args.log, &backends, timeout, stop).map_err(usage)?;
    print!("{report}");
    if stop.interrupted() {
        return Ok(3);
    }
    Ok(i32::from(mismatch))
}
