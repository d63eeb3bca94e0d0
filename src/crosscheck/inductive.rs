//! A function check's proof for every input, by induction over the two sides' loops
//! (`crate::induction`), tried before exploration when a side has a loop. A proof makes the
//! check EQUIVALENT for every trip count; exploration then runs only briefly, to look for a
//! difference on short paths that would contradict it. No proof proves nothing: the check
//! goes on as it would have, and its notes say why the induction failed.

use super::check::FunctionCheck;
use crate::exec::{Executor, UbMode};
use crate::expr::ExprId;
use crate::induction::{self, Attempt};
use crate::ir::FuncId;
use crate::solver::{build_chain, SolverConfig};
use std::time::{Duration, Instant};

/// The longest an attempt takes, and its share of the check's `--max-time`.
const MOST: Duration = Duration::from_secs(10);
const SHARE: u32 = 3;
/// How long exploration looks for a contradiction once the proof holds.
pub(super) const AFTER_PROOF: Duration = Duration::from_millis(250);
/// The longest one of the attempt's queries takes.
const QUERY_LIMIT: Duration = Duration::from_secs(5);

/// What the attempt found, for the report.
pub(super) struct Induction {
    /// `proved for all inputs (by induction over the loop at a.c:5 / b.c:7)`.
    pub proof: Option<String>,
    /// What the proof rests on, or why there is none (said only when exploration did not
    /// decide the check alone).
    pub notes: Vec<String>,
}

/// Tries the proof for `ex`'s pair (`a`, `b`) on the arguments `args` under the
/// constraints `pre`; `None` when the check is not one it applies to (a shard, no loop).
pub(super) fn attempt(
    ex: &Executor<'_>,
    check: &FunctionCheck,
    (a, b): (FuncId, FuncId),
    (args, pre): (&[ExprId], &[ExprId]),
    solver: &SolverConfig,
) -> Option<Induction> {
    if check.exec.shard.is_some() || ex.config.replaying {
        return None;
    }
    let budget = ex.config.max_time.map_or(MOST, |m| (m / SHARE).min(MOST));
    let cfg = induction::Config {
        poison_is_ub: check.ub == UbMode::Report,
        stop: ex.config.stop.clone(),
        deadline: Some(Instant::now() + budget),
        query_limit: solver.timeout.map_or(QUERY_LIMIT, |t| t.min(QUERY_LIMIT)),
    };
    let mut chain = build_chain(solver);
    let started = Instant::now();
    let outcome = induction::prove(ex.module, (a, b), args, pre, ex.pool, chain.as_mut(), &cfg);
    let took = started.elapsed().as_secs_f64();
    Some(match outcome {
        Attempt::Proved(p) => Induction {
            proof: Some(format!("proved for all inputs (by induction over {})", p.loops)),
            notes: vec![format!(
                "induction over {}: inductive invariant {} ({} queries, {took:.2} s); exploration after the proof only looked for a contradiction",
                p.loops,
                if p.invariant.is_empty() {
                    "true".to_string()
                } else {
                    p.invariant.join(", ")
                },
                p.queries
            )],
        },
        Attempt::NotProved(why) if why == induction::NO_LOOP => return None,
        Attempt::NotProved(why) => {
            let mut notes = vec![format!(
                "induction over the loops: not proved ({why}); the verdict rests on exploration"
            )];
            // What wrapping arithmetic would give: said, never concluded from.
            if cfg.poison_is_ub && why.starts_with(induction::UNDEFINED) {
                let wrapping = induction::Config {
                    poison_is_ub: false,
                    ..cfg
                };
                let again = induction::prove(ex.module, (a, b), args, pre, ex.pool, chain.as_mut(), &wrapping);
                if let Attempt::Proved(p) = again {
                    notes.push(format!(
                        "with overflow wrapping (--ub machine), induction over {} proves the pair for all inputs",
                        p.loops
                    ));
                }
            }
            Induction { proof: None, notes }
        }
    })
}
