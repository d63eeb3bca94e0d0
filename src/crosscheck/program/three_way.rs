//! A three-way program check's decision: where three programs ended, whether they agree,
//! and for each way they can disagree (A, B or C the odd one out, or all three different)
//! not yet found, one query for a model of it.

use super::*;

impl ProgramDriver {
    /// Decides a path where three programs ended: its rows. All equal is one row (proved,
    /// or all failing alike); otherwise a row for each way the sides disagree (A, B or C
    /// alone, or all three): each way not yet found gets one query for a model of it.
    /// `None` when the first question went unanswered in its first try, as [`Self::decide`].
    pub(super) fn decide_three(
        &mut self,
        ex: &mut Executor<'_>,
        state: &State,
        sides: [&SideEnd; 3],
    ) -> Option<Vec<Decision>> {
        let pool = ex.pool;
        let parts: Vec<Vec<Part>> = PAIRS
            .iter()
            .map(|&(x, y)| self.parts(ex, state, sides[x], sides[y]))
            .collect();
        let equal: Vec<ExprId> = parts
            .iter()
            .map(|p| {
                p.iter()
                    .fold(pool.true_(), |acc, (_, e, _)| pool.bool_and(acc, *e))
            })
            .collect();
        let all = pool.and_all(&equal);
        let failed = sides.map(|s| matches!(s.end, SideOutcome::Failed(_)));
        let example = state.model.clone();
        let first = match ex.check_or_defer(state, pool.bool_not(all)) {
            Ok(m) => m,
            Err(Unanswered::Later) => return None,
            Err(Unanswered::GaveUp(why)) => {
                let question = Question::SidesDiffer;
                return Some(vec![undecided(
                    state,
                    UnknownReason::Asking {
                        why: why.to_string(),
                        question,
                    },
                )]);
            }
        };
        ex.stats.strict_outputs += parts.iter().map(|p| strict_parts(p)).sum::<u64>();
        let Some(first) = first else {
            let all_fail = failed.iter().all(|&f| f);
            // Failures of all three count as agreement only when replay shows them: their
            // row needs a test, so an input.
            let example = match self.failure_example(ex, state, example, all_fail) {
                Ok(m) => m,
                Err(why) => return Some(vec![undecided(state, UnknownReason::Solver(why))]),
            };
            let inputs = match (&example, all_fail) {
                (Some(m), true) => inputs_of(state, m),
                _ => Vec::new(),
            };
            let results = match &example {
                Some(m) => sides.map(|s| describe(ex, s, m)),
                None => ["?", "?", "?"].map(String::from),
            };
            let [result_a, result_b, result_c] = results;
            return Some(vec![Decision {
                verdict: if all_fail {
                    PathVerdict::ErrorBoth
                } else {
                    PathVerdict::Proved
                },
                inputs,
                result_a,
                result_b,
                detail: if all_fail && example.is_some() {
                    "all three fail the same way, with the same output".into()
                } else {
                    String::new()
                },
                class: None,
                three: Some(ThreeWay {
                    result_c,
                    agreement: crate::report::Agreement::AllAgree,
                }),
                undefined: None,
            }]);
        };
        // Which pairs are equal for a model's inputs (an output compared byte for byte that
        // differs only in spacing counts as equal under --ignore-spacing).
        let pattern = |ex: &Executor<'_>, m: &Assignment| -> [bool; 3] {
            [0, 1, 2].map(|p| {
                let (x, y) = PAIRS[p];
                !parts[p]
                    .iter()
                    .any(|part| part_differs(ex, part, sides[x], sides[y], m))
            })
        };
        let mut found: Vec<([bool; 3], Arc<Assignment>)> = Vec::new();
        let add = |found: &mut Vec<([bool; 3], Arc<Assignment>)>,
                   ex: &mut Executor<'_>,
                   m: &Assignment| {
            let model = Arc::new(complete_model(ex, state, m));
            let eq = pattern(ex, &model);
            if eq != [true; 3] && !found.iter().any(|(f, _)| *f == eq) {
                found.push((eq, model));
            }
        };
        add(&mut found, ex, &first);
        // Every way of disagreeing not yet found gets one query: a path where C alone
        // differs for some inputs may have A alone, or all three, differing for others.
        let mut unsettled = None;
        for pattern in DISAGREEMENTS {
            if found.iter().any(|(eq, _)| *eq == pattern) {
                continue;
            }
            let goal = pool.and_all(&pair_goals(pool, &equal, pattern));
            match ex.check(state, goal) {
                Ok(Some(m)) => add(&mut found, ex, &m),
                Ok(None) => {}
                Err(why) => {
                    unsettled = Some(why);
                    break;
                }
            }
        }
        if found.is_empty() {
            let why = UnknownReason::SpacingOnly { inputs: true };
            return Some(vec![Decision::unknown("?".into(), "?".into(), why)]);
        }
        let objects = minimized_objects(ex, state);
        let hint = preferred_bytes(state);
        let mut decisions = Vec::new();
        for (eq, model) in found {
            // Minimization keeps the way the sides disagree: each pair equal or not as found.
            let goal = pool.and_all(&pair_goals(pool, &equal, eq));
            let model = crate::crosscheck::minimize::minimize_objects(
                ex,
                state,
                goal,
                &objects,
                &hint,
                model,
                &mut self.minimize_left,
            );
            let eq = pattern(ex, &model);
            let agreement = crate::report::Agreement::of(eq[0], eq[1], eq[2]);
            let odd = agreement.odd();
            let names = ["A", "B", "C"];
            // The pairs whose parts are named: the odd side against one of the others, or
            // every pair when all differ.
            let shown: Vec<usize> = match odd {
                Some(o) => {
                    let o = names.iter().position(|n| *n == o).unwrap_or(2);
                    vec![PAIRS
                        .iter()
                        .position(|&(x, y)| x == o || y == o)
                        .unwrap_or(0)]
                }
                None => (0..3).filter(|&p| !eq[p]).collect(),
            };
            let mut which: Vec<&str> = Vec::new();
            for &p in &shown {
                let (x, y) = PAIRS[p];
                for part in &parts[p] {
                    if part_differs(ex, part, sides[x], sides[y], &model)
                        && !which.contains(&part.0)
                    {
                        which.push(part.0);
                    }
                }
            }
            let some_fail = failed.iter().any(|&f| f) && !failed.iter().all(|&f| f);
            let verdict = if some_fail {
                PathVerdict::ErrorOne
            } else {
                PathVerdict::Diverged
            };
            let detail = format!(
                "{agreement}: {} differ{}",
                which.join(" and "),
                if which.len() == 1 { "s" } else { "" }
            );
            let class = match odd.and_then(|o| names.iter().position(|n| *n == o)) {
                Some(o) => {
                    let majority = (0..3).find(|&k| k != o).unwrap_or(0);
                    let others: Vec<&str> = (0..3).filter(|&k| k != o).map(|k| names[k]).collect();
                    let others = others.join(" and ");
                    format!(
                        "{agreement}: {}",
                        class_named(ex, sides[o], sides[majority], &model, (names[o], &others))
                    )
                }
                None => format!(
                    "{agreement}: {}",
                    class_named(ex, sides[0], sides[1], &model, ("A", "B"))
                ),
            };
            let [result_a, result_b, result_c] = sides.map(|s| describe(ex, s, &model));
            decisions.push(Decision {
                verdict,
                inputs: inputs_of(state, &model),
                result_a,
                result_b,
                detail,
                class: Some(class),
                three: Some(ThreeWay {
                    result_c,
                    agreement,
                }),
                undefined: None,
            });
        }
        // A way of disagreeing the solver could not settle leaves the path's other rows
        // standing and adds an undecided one, so the check cannot claim it saw them all.
        if let Some(why) = unsettled {
            decisions.push(undecided(state, UnknownReason::Solver(why.to_string())));
        }
        Some(decisions)
    }
}

/// The pairs of a three-way check's sides: A-B, A-C, B-C.
const PAIRS: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];

/// The ways three sides can disagree, as whether each pair of [`PAIRS`] is equal: A alone
/// differs, B alone, C alone, all three differ. (One pair alone differing is impossible:
/// equality is transitive.)
const DISAGREEMENTS: [[bool; 3]; 4] = [
    [false, false, true],
    [false, true, false],
    [true, false, false],
    [false, false, false],
];

/// The conditions that make each pair equal or not as `pattern` says.
fn pair_goals(pool: &ExprPool, equal: &[ExprId], pattern: [bool; 3]) -> [ExprId; 3] {
    [0, 1, 2].map(|p| {
        if pattern[p] {
            equal[p]
        } else {
            pool.bool_not(equal[p])
        }
    })
}
