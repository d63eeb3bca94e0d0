//! One verdict path for every check: a driver's decision about a path is a [`Decision`]
//! (the columns of a report row), and one collector, [`Rows`], numbers it and keeps it with
//! the path it was made on. Function checks (`verdict.rs`) and program checks
//! (`program.rs`) make decisions their own way and hand them over the same way.

use crate::exec::State;
use crate::report::{InputValue, PathRow, PathVerdict, UnknownReason};

/// What a driver decided about one path: a report row before the collector numbers it.
pub(crate) struct Decision {
    pub verdict: PathVerdict,
    /// The inputs of the row's counterexample or example, if it shows one.
    pub inputs: Vec<InputValue>,
    pub result_a: String,
    pub result_b: String,
    pub detail: String,
    /// The kind of difference (`classes.rs`), for a difference whose driver classifies it.
    pub class: Option<String>,
    /// Side C and which sides agree, for a three-way program check.
    pub three: Option<crate::report::ThreeWay>,
    /// The one side's undefined behaviour an unknown row rests on (`PathRow::undefined`).
    pub undefined: Option<String>,
}

impl Decision {
    /// A path the engine could not decide (`why`, the row's detail), with no inputs.
    pub(crate) fn unknown(result_a: String, result_b: String, why: UnknownReason) -> Self {
        Decision {
            verdict: PathVerdict::Unknown,
            inputs: Vec::new(),
            result_a,
            result_b,
            detail: why.to_string(),
            class: None,
            three: None,
            undefined: None,
        }
    }
}

/// What the concrete replay of a test decided: its path's verdict and, for three sides,
/// which sides agreed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Replayed {
    pub verdict: PathVerdict,
    pub agreement: Option<crate::report::Agreement>,
    /// The lines each side ran in the replay, when asked for (`report::Route`).
    pub route: Vec<crate::report::SideCoverage>,
}

impl Replayed {
    /// Whether the replay says what `row` says.
    pub(crate) fn agrees_with(&self, row: &PathRow) -> bool {
        self.verdict == row.verdict && self.agreement == row.three.as_ref().map(|t| t.agreement)
    }
}

/// The rows a driver made, in the order made, each with the path (branch decisions) it
/// was made on, so that rows can be put in path order whatever order they were found in.
#[derive(Default)]
pub(crate) struct Rows {
    rows: Vec<PathRow>,
    keys: Vec<Vec<u8>>,
}

impl Rows {
    /// Takes the decision about `state`'s path as the next row.
    pub(crate) fn push(&mut self, state: &State, decision: Decision) {
        let Decision {
            verdict,
            inputs,
            result_a,
            result_b,
            detail,
            class,
            three,
            undefined,
        } = decision;
        self.keys.push(state.path.clone());
        self.rows.push(PathRow {
            id: self.rows.len() + 1,
            verdict,
            merged_paths: state.merged,
            inputs,
            result_a,
            result_b,
            detail,
            ktest: None,
            confirmed: crate::report::Replay::NotRun,
            native: crate::report::NativeReplay::NotRun,
            path: None,
            class,
            parts_at: None,
            three,
            undefined,
        });
    }

    /// The rows made so far.
    pub(crate) fn rows(&self) -> &[PathRow] {
        &self.rows
    }

    /// The rows from the `from`th on (from 0), each with its path.
    pub(crate) fn since(&self, from: usize) -> impl Iterator<Item = (&[u8], &PathRow)> {
        self.keys[from..]
            .iter()
            .map(Vec::as_slice)
            .zip(&self.rows[from..])
    }

    /// The rows, each with its path.
    pub(crate) fn into_parts(self) -> Vec<(Vec<u8>, PathRow)> {
        self.keys.into_iter().zip(self.rows).collect()
    }

    /// The first row made, once the driver is done (the row of a replayed test).
    pub(crate) fn into_first(self) -> Option<PathRow> {
        self.rows.into_iter().next()
    }

    /// The verdict of a concrete replay, whose single path made these rows, with which
    /// sides agreed (three-way program checks): `None` unless it made exactly one row and
    /// decided it.
    pub(crate) fn replayed_verdict(&self) -> Option<Replayed> {
        match self.rows.as_slice() {
            [row] if row.verdict != PathVerdict::Unknown || row.undefined.is_some() => {
                Some(Replayed {
                    verdict: row.verdict.clone(),
                    agreement: row.three.as_ref().map(|t| t.agreement),
                    route: Vec::new(),
                })
            }
            _ => None,
        }
    }

    /// How many rows proved, diverged and stayed unknown (for the progress counters).
    pub(crate) fn tally(&self) -> crate::exec::Tally {
        let mut t = crate::exec::Tally::default();
        for r in &self.rows {
            match r.verdict {
                PathVerdict::Proved | PathVerdict::ErrorBoth => t.proved += 1,
                PathVerdict::Diverged | PathVerdict::ErrorOne => t.diverged += 1,
                PathVerdict::Unknown => t.unknown += 1,
            }
        }
        t
    }
}

/// A driver that collects report rows in a [`Rows`].
pub(crate) trait RowDriver: crate::exec::Driver {
    /// The rows made so far.
    fn rows(&self) -> &Rows;

    /// The rows made, once the driver is done.
    fn into_rows(self) -> Rows;
}
