//! The result of one equivalence check, as one model that several printers render.
//!
//! The engine fills a [`Report`]: a [`Summary`] of the whole run and one [`PathRow`] per
//! explored path (or group of merged paths). [`table::render_table`] prints it for a
//! terminal, [`table::render_markdown`] for a document, [`summary::render_summary`] in a
//! few kilobytes for a CI step summary, [`html::render_html`] as one page to open from disk,
//! and [`files::write_reports`] saves Markdown, CSV, JSON, summary and HTML copies. The
//! model has no serde traits: `report.json`'s shape is [`schema`]'s, converted from and to
//! these types.

pub mod console;
pub mod files;
pub mod html;
pub mod json;
pub mod junit;
pub mod progress;
pub mod replay;
pub mod schema;
pub mod suite;
pub mod summary;
pub mod table;
pub mod unknown;

pub use files::write_reports;
pub use replay::{Agreement, NativeReplay, Replay};
pub use table::{render_markdown, render_table, render_table_limited, TERMINAL_ROWS};
pub use unknown::UnknownReason;

use std::fmt;

/// What is known about one path after both implementations ran along it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathVerdict {
    /// Both sides agree for every input that takes this path.
    Proved,
    /// Some input on this path makes the results differ.
    Diverged,
    /// Both sides fail (for example divide by zero) for the inputs on this path.
    ErrorBoth,
    /// Only one side fails for some input on this path.
    ErrorOne,
    /// The path was not decided: a timeout, an unsupported instruction, a solver failure.
    Unknown,
}

impl PathVerdict {
    /// True for a path that shows the implementations behave differently.
    pub fn is_difference(&self) -> bool {
        matches!(self, PathVerdict::Diverged | PathVerdict::ErrorOne)
    }
}

impl PathRow {
    /// A difference that concrete replay reproduced, and the native executables too when
    /// they ran it: only these make a run NOT EQUIVALENT (exit code 1).
    pub fn is_confirmed_difference(&self) -> bool {
        self.verdict.is_difference() && self.confirmed.is_confirmed() && !self.native.refuted()
    }

    /// A difference that concrete replay (or native replay) did not reproduce, or that was
    /// not replayed: reported as such, and the run is inconclusive unless another row is
    /// confirmed.
    pub fn is_unconfirmed_difference(&self) -> bool {
        self.verdict.is_difference() && !self.is_confirmed_difference()
    }

    /// Both sides fail, but replay did not show it (concrete replay did not reproduce the
    /// failures, or the native executables do not fail): the engine's failure is not the
    /// programs' own, so it is no agreement and the run is inconclusive.
    pub fn is_unconfirmed_failure(&self) -> bool {
        self.verdict == PathVerdict::ErrorBoth
            && (!self.confirmed.is_confirmed() || self.native.refuted())
    }

    /// A row whose replay did not confirm what the engine said of it.
    pub fn is_unconfirmed(&self) -> bool {
        self.is_unconfirmed_difference() || self.is_unconfirmed_failure()
    }
}

impl fmt::Display for PathVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathVerdict::Proved => "proved",
            PathVerdict::Diverged => "DIVERGED",
            PathVerdict::ErrorBoth => "error (both)",
            PathVerdict::ErrorOne => "ERROR (one side)",
            PathVerdict::Unknown => "unknown",
        })
    }
}

/// The verdict on the whole run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overall {
    /// Every path was explored and none differs.
    Equivalent,
    /// At least one input makes the implementations differ.
    Diverged,
    /// No difference was found, but not every path was decided or explored.
    Inconclusive,
}

impl Overall {
    /// The process exit code for this verdict: 0, 1 or 3.
    pub fn exit_code(self) -> i32 {
        match self {
            Overall::Equivalent => 0,
            Overall::Diverged => 1,
            Overall::Inconclusive => 3,
        }
    }
}

impl fmt::Display for Overall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Overall::Equivalent => "EQUIVALENT",
            Overall::Diverged => "NOT EQUIVALENT",
            Overall::Inconclusive => "INCONCLUSIVE",
        })
    }
}

/// One concrete input of a counterexample.
#[derive(Clone, Debug)]
pub struct InputValue {
    /// The parameter or object name.
    pub name: String,
    /// The raw bytes, in memory order.
    pub bytes: Vec<u8>,
    /// A readable form, for example `5` or `"ab\0"`.
    pub display: String,
}

/// One explored path, or one group of merged paths.
#[derive(Clone, Debug)]
pub struct PathRow {
    /// The path's number, from 1.
    pub id: usize,
    /// What is known about the path.
    pub verdict: PathVerdict,
    /// How many paths were merged into this row; 1 unless state merging was on.
    pub merged_paths: u64,
    /// Concrete inputs that take this path; empty for proved rows.
    pub inputs: Vec<InputValue>,
    /// What implementation A returned or did for those inputs.
    pub result_a: String,
    /// What implementation B returned or did for those inputs.
    pub result_b: String,
    /// Why the row has its verdict, for example `return values differ`.
    pub detail: String,
    /// The `.ktest` file written for the inputs, if any.
    pub ktest: Option<String>,
    /// Whether replaying the inputs concretely in a fresh engine agreed with the symbolic
    /// result.
    pub confirmed: Replay,
    /// Whether the native executables did what the engine said (a program check with
    /// executables beside its bitcode replays its differences and failures on them): a
    /// difference they do not show, or a failure of both sides they do not have, is reported
    /// and not counted.
    pub native: NativeReplay,
    /// The path's branch decisions (`0110…`, `shard::path_text`): written by sharded runs
    /// only, for `xcheck merge` to put the shards' rows in the order one run gives them.
    pub path: Option<String>,
    /// For a program difference, the kind of difference (`stdout: spacing only; exit status
    /// 0 vs 1`): rows of one behaviour share it. Function checks' rows go by their detail.
    pub class: Option<String>,
    /// For a difference, the deepest branch of its path whose other direction leads to a
    /// path where the sides agree (`B wc.c:123 (wc_main)`: whose code, where, in which
    /// function; `crosscheck/parting.rs`); absent when no agreeing path is beside it.
    pub parts_at: Option<String>,
    /// For a three-way program check, what side C did and which sides agree; absent for
    /// two sides.
    pub three: Option<ThreeWay>,
    /// For a row whose outcome differs only through one side's undefined behaviour, what
    /// it was and where (`A: signed overflow in add (nsw) at f.c:3`): the row is unknown
    /// unless native executables of the pair, run on its test, differ, which makes it a
    /// difference (`PathRow::differs_natively`).
    pub undefined: Option<String>,
}

/// A row's third side (`xcheck a.bc b.bc c.bc`): what C did and which sides agree. In
/// JSON it also names the odd one out (`odd`), which follows from the agreement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreeWay {
    /// What implementation C did for the row's inputs.
    pub result_c: String,
    /// Which sides agree.
    pub agreement: Agreement,
}

impl ThreeWay {
    /// The odd one out (`A`, `B` or `C`) when the other two agree.
    pub fn odd(&self) -> Option<&'static str> {
        self.agreement.odd()
    }
}

/// How often one side of a three-way check was the odd one out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OddOneOut {
    /// `A`, `B` or `C`.
    pub side: String,
    /// The side's bitcode file, as the title names it.
    pub program: String,
    /// Confirmed difference rows where this side differs and the other two agree.
    pub paths: usize,
}

/// Totals and settings of the whole run.
#[derive(Clone, Debug)]
pub struct Summary {
    /// What was compared, for example `ref.bc:mod  vs  opt.bc:modOpt`.
    pub title: String,
    /// The verdict on the whole run.
    pub overall: Overall,
    /// Whether every path was explored.
    pub complete: bool,
    /// Number of rows (paths or merged groups).
    pub paths: usize,
    /// Rows proved equal.
    pub proved: usize,
    /// Rows that diverged, confirmed by concrete replay.
    pub diverged: usize,
    /// Rows where both sides fail.
    pub errors_both: usize,
    /// Rows where one side fails, confirmed by concrete replay.
    pub errors_one: usize,
    /// Rows the engine found to differ, or to fail on both sides, but replay (concrete, or
    /// native where executables exist) did not reproduce, or that were not replayed: never
    /// counted as divergences or agreements.
    pub unconfirmed: usize,
    /// Of `unconfirmed`, the rows that were not replayed at all (the run was stopped first):
    /// whether they reproduce is not known, which is not the same as not reproducing.
    pub not_replayed: usize,
    /// Rows left undecided.
    pub unknown: usize,
    /// Instructions executed on both sides.
    pub instructions: u64,
    /// Solver queries made.
    pub queries: u64,
    /// Time spent in the solver, in milliseconds.
    pub solver_time_ms: u64,
    /// Time the whole run took, in milliseconds.
    pub wall_time_ms: u64,
    /// Why exploration stopped early, for example `max-time 60s reached`.
    pub stop_reason: Option<String>,
    /// What the verdict rests on that the inputs do not show: buffer sizes and alignment,
    /// non-aliasing, how undefined behaviour is treated, the environment a program was
    /// given. Every check states them.
    pub assumptions: Vec<String>,
    /// A proof for every input besides exploration, in words: `proved for all inputs (by
    /// induction over the loop at a.c:5 / b.c:7)`. Absent when the verdict rests on
    /// exploration alone.
    pub proof: Option<String>,
    /// Unsupported constructs with their locations, options used, and other remarks.
    pub notes: Vec<String>,
    /// Engine counters (queries answered or avoided by each layer, merges…), by name.
    pub counters: Vec<(String, u64)>,
    /// Which shard of a sharded run this is (`--shard K/N`); absent otherwise.
    pub shard: Option<ShardInfo>,
    /// The differences grouped by kind (`PathRow::class`, else the row's detail), the
    /// largest group first.
    pub classes: Vec<DivergenceClass>,
    /// For a three-way program check, per side, the confirmed differences where it alone
    /// differs (`busybox differs from coreutils and toybox on 120 paths`); empty otherwise.
    pub odd_one_out: Vec<OddOneOut>,
    /// Per side, the source lines of its code that some path ran, over all paths (from
    /// debug information), for `report.html`; empty without it. Not in `report.json` (its
    /// notes give the counts: `coverage A: 8/8 lines`), so a merged run's page has none.
    pub coverage: Vec<SideCoverage>,
    /// Per kind of difference's example whose concrete replay recorded it, the lines each
    /// side ran on that input and where the sides part, for `report.html`. Not in
    /// `report.json` (a merged run's page has none).
    pub routes: Vec<Route>,
}

/// The route of one test: the source lines each side ran on its input (its confirming
/// concrete replay's coverage: `FileCoverage::reached`, of the lines of the functions it
/// entered) and the branch where the sides part (`PathRow::parts_at`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    /// The row (`PathRow::id`) whose test was replayed.
    pub row: usize,
    /// Per side, the lines its replay ran.
    pub sides: Vec<SideCoverage>,
    /// The source line of the branch where the sides part, when it is in a side's code.
    pub parting: Option<RouteMark>,
}

/// A source line of one side's code (`side`: `A`, `B` or `C`): the branch where the sides
/// part, or the program's call of the C library's or the model's function that took it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteMark {
    pub side: String,
    pub file: String,
    pub line: u32,
}

/// One side's line coverage over all paths: the source lines of the functions its paths
/// entered, by file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideCoverage {
    /// `A`, `B` or `C`.
    pub side: String,
    pub files: Vec<FileCoverage>,
}

/// The lines of one source file that have code, and those some path ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCoverage {
    /// The file as locations name it (`f.c`).
    pub file: String,
    /// Where the file is, as the debug information says (read to show the source).
    pub path: Option<String>,
    /// Lines with code, ascending.
    pub lines: Vec<u32>,
    /// Of those, the lines some path ran, ascending.
    pub reached: Vec<u32>,
}

/// One kind of difference and the rows that show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DivergenceClass {
    /// What differs, for example `stdout: spacing only`.
    pub class: String,
    /// Rows of this kind, confirmed or not.
    pub rows: usize,
    /// Of those, the rows concrete replay confirmed.
    pub confirmed: usize,
    /// The row (`PathRow::id`) shown for the kind: the one with the fewest non-zero input
    /// bytes among the confirmed ones (among all, when none is confirmed yet).
    pub example: usize,
    /// The branches where the kind's rows leave agreement (`PathRow::parts_at`), the most
    /// common first, at most [`PARTINGS_KEPT`].
    pub partings: Vec<Parting>,
}

/// How many branches where its rows leave agreement a kind of difference keeps.
pub const PARTINGS_KEPT: usize = 3;

/// A branch where rows of a kind leave agreement, and how many rows leave it there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parting {
    pub at: String,
    pub rows: usize,
}

impl Report {
    /// Where row `id`'s sides part, as its route found it: the source file's path as debug
    /// information gives it (absolute, or as the compiler was given it), and the line.
    pub fn parting_source(&self, id: usize) -> Option<(String, u32)> {
        let route = self.summary.routes.iter().find(|r| r.row == id)?;
        let mark = route.parting.as_ref()?;
        let side = route.sides.iter().find(|s| s.side == mark.side)?;
        let file = side.files.iter().find(|f| f.file == mark.file)?;
        Some((
            file.path.clone().unwrap_or_else(|| file.file.clone()),
            mark.line,
        ))
    }
}

impl PathRow {
    /// Whether the row has a test (`.ktest`): every row that is not a proof or unknown, and
    /// the unknown rows that rest on one side's undefined behaviour (native replay may show
    /// their difference). Its file may not be written (`--tests-per-kind`); its inputs are in
    /// the reports anyway.
    pub fn needs_test(&self) -> bool {
        match self.verdict {
            PathVerdict::Proved => false,
            PathVerdict::Unknown => self.undefined.is_some(),
            _ => true,
        }
    }

    /// Makes a row that rests on one side's undefined behaviour a difference, once its
    /// concrete replay agreed and the native executables differ on its test: the machine
    /// shows what the engine could only say rests on an undefined value.
    pub fn differs_natively(&mut self) {
        if let (PathVerdict::Unknown, Some(what), Replay::Confirmed, NativeReplay::Reproduced) =
            (&self.verdict, &self.undefined, self.confirmed, self.native)
        {
            self.detail = format!(
                "undefined behaviour: {what}; the native executables differ on these inputs"
            );
            self.verdict = PathVerdict::Diverged;
        }
    }

    /// The kind a row's test is counted under for `--tests-per-kind`: its kind of
    /// difference, or for a failure of both sides its detail.
    pub fn test_kind(&self) -> String {
        if self.verdict == PathVerdict::Unknown {
            return self.detail.clone();
        }
        self.difference_class()
            .map_or_else(|| format!("both fail: {}", self.detail), str::to_string)
    }

    /// The kind of difference this row shows, for a difference.
    pub fn difference_class(&self) -> Option<&str> {
        self.verdict
            .is_difference()
            .then(|| self.class.as_deref().unwrap_or(&self.detail))
    }

    /// How large the row's counterexample is: its non-zero input bytes.
    pub fn input_weight(&self) -> usize {
        self.inputs
            .iter()
            .map(|i| i.bytes.iter().filter(|&&b| b != 0).count())
            .sum()
    }
}

/// The differences among `rows`, grouped by kind: the largest group first (ties in the
/// order their first rows come), each with its simplest confirmed example.
pub fn divergence_classes(rows: &[PathRow]) -> Vec<DivergenceClass> {
    let mut classes: Vec<(DivergenceClass, (bool, usize, usize))> = Vec::new();
    let mut index = std::collections::HashMap::new();
    // Per kind, the rows leaving agreement at each branch, in first-seen order.
    let mut partings: Vec<Vec<Parting>> = Vec::new();
    for row in rows {
        let Some(class) = row.difference_class() else {
            continue;
        };
        let confirmed = row.is_confirmed_difference();
        let rank = (!confirmed, row.input_weight(), row.id);
        let at = *index.entry(class.to_string()).or_insert_with(|| {
            classes.push((
                DivergenceClass {
                    class: class.to_string(),
                    rows: 0,
                    confirmed: 0,
                    example: row.id,
                    partings: Vec::new(),
                },
                rank,
            ));
            partings.push(Vec::new());
            classes.len() - 1
        });
        if let Some(place) = &row.parts_at {
            let list = &mut partings[at];
            match list.iter_mut().find(|p| &p.at == place) {
                Some(p) => p.rows += 1,
                None => list.push(Parting {
                    at: place.clone(),
                    rows: 1,
                }),
            }
        }
        let (c, best) = &mut classes[at];
        c.rows += 1;
        c.confirmed += usize::from(confirmed);
        if rank < *best {
            *best = rank;
            c.example = row.id;
        }
    }
    let mut classes: Vec<DivergenceClass> = classes
        .into_iter()
        .zip(partings)
        .map(|((mut c, _), mut places)| {
            // A stable sort: equal counts keep the order they were first seen in.
            places.sort_by_key(|p| std::cmp::Reverse(p.rows));
            places.truncate(PARTINGS_KEPT);
            c.partings = places;
            c
        })
        .collect();
    // A stable sort: equal counts keep the order of their first rows.
    classes.sort_by_key(|c| std::cmp::Reverse(c.rows));
    classes
}

/// Which of `rows` (in path order) get a test file: every row that needs a test, or with a
/// cap of `per_kind` (`--tests-per-kind`), per kind ([`PathRow::test_kind`]) the kind's
/// example ([`divergence_classes`]) and then its first rows in path order, up to the cap. The
/// others keep their inputs in the reports. A check and `xcheck merge` choose alike, so that
/// merged shards name the tests one run names.
pub fn tests_to_write(rows: &[PathRow], per_kind: Option<usize>) -> Vec<bool> {
    let Some(cap) = per_kind else {
        return rows.iter().map(PathRow::needs_test).collect();
    };
    let examples: std::collections::HashSet<usize> =
        divergence_classes(rows).iter().map(|c| c.example).collect();
    let mut taken: std::collections::HashMap<String, usize> = Default::default();
    let mut keep = vec![false; rows.len()];
    for examples_first in [true, false] {
        for (i, row) in rows.iter().enumerate() {
            if keep[i] || !row.needs_test() || examples.contains(&row.id) != examples_first {
                continue;
            }
            let n = taken.entry(row.test_kind()).or_default();
            if *n < cap {
                *n += 1;
                keep[i] = true;
            }
        }
    }
    keep
}

/// What a shard's report says about its part of the run, for `xcheck merge`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardInfo {
    /// This shard's number, from 1.
    pub index: u32,
    /// How many shards the run was split into.
    pub count: u32,
    /// Gate runs: whole checks were assigned to shards (`checks`); otherwise one check's
    /// exploration tree was split at a frontier of `frontier` states.
    pub checks: bool,
    /// The states of the frontier the check was split at (0 for gate runs, or when every
    /// path ended before the frontier was reached).
    pub frontier: usize,
    /// The digest of the frontier's paths (`shard::digest`): equal in every shard of one run.
    pub digest: String,
}

/// A whole run: the summary and every row.
#[derive(Clone, Debug)]
pub struct Report {
    /// Totals and settings.
    pub summary: Summary,
    /// One row per path, in the order the engine numbered them.
    pub rows: Vec<PathRow>,
}

impl Report {
    /// Rows with a test whose `.ktest` file was not written (`--tests-per-kind`).
    pub fn tests_not_written(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.needs_test() && r.ktest.is_none())
            .count()
    }

    /// The note of a report whose tests were capped at `per_kind` a kind, when some were
    /// not written.
    pub fn unwritten_note(&self, per_kind: Option<usize>) -> Option<String> {
        let (unwritten, cap) = (self.tests_not_written(), per_kind?);
        (unwritten > 0).then(|| {
            format!(
                "{unwritten} test{} not written (--tests-per-kind {cap}: at most {cap} per kind of difference; --all-tests writes every one): their rows keep their inputs here and were replayed all the same",
                if unwritten == 1 { " was" } else { "s were" }
            )
        })
    }
}

impl ShardInfo {
    /// The note a shard's report carries about its part of the run.
    pub fn note(&self) -> String {
        let part = if self.checks {
            "whole checks were assigned to shards".to_string()
        } else if self.frontier == 0 {
            "every path ended before the frontier: shard 1 reports them all".to_string()
        } else {
            format!(
                "the exploration tree was split at a frontier of {} states (digest {})",
                self.frontier, self.digest
            )
        };
        format!(
            "shard {}/{} of a sharded run: {part}; this report covers this shard's part only (xcheck merge joins the shards)",
            self.index, self.count
        )
    }
}

impl Summary {
    /// The summary of a run titled `title` whose rows are `rows` (`complete`: every path was
    /// explored): the counts and the verdict from the rows, the work and notes empty for the
    /// caller to fill. A difference counts as diverged or one-sided error only when concrete
    /// replay confirmed it, else as unconfirmed (and, when it was not replayed at all, as not
    /// replayed); only a confirmed difference makes the run NOT EQUIVALENT, and any unknown
    /// or unconfirmed row, or a path not explored, leaves it inconclusive. So does a run
    /// without any row: equivalence is earned by compared paths, and a run that compared none
    /// (every path lost to the engine, say) has not earned it.
    pub fn of_rows(title: String, rows: &[PathRow], complete: bool) -> Summary {
        let count = |v: PathVerdict| rows.iter().filter(|r| r.verdict == v).count();
        let confirmed = |v: PathVerdict| {
            rows.iter()
                .filter(|r| r.verdict == v && r.is_confirmed_difference())
                .count()
        };
        let unconfirmed = rows.iter().filter(|r| r.is_unconfirmed()).count();
        let (diverged, errors_one) = (
            confirmed(PathVerdict::Diverged),
            confirmed(PathVerdict::ErrorOne),
        );
        let unknown = count(PathVerdict::Unknown);
        let overall = if diverged + errors_one > 0 {
            Overall::Diverged
        } else if !complete || unknown + unconfirmed > 0 || rows.is_empty() {
            Overall::Inconclusive
        } else {
            Overall::Equivalent
        };
        Summary {
            overall,
            complete,
            paths: rows.len(),
            proved: count(PathVerdict::Proved),
            diverged,
            errors_both: count(PathVerdict::ErrorBoth),
            errors_one,
            unconfirmed,
            not_replayed: rows
                .iter()
                .filter(|r| r.is_unconfirmed() && !r.confirmed.ran())
                .count(),
            unknown,
            instructions: 0,
            queries: 0,
            solver_time_ms: 0,
            wall_time_ms: 0,
            stop_reason: None,
            assumptions: Vec::new(),
            proof: None,
            notes: Vec::new(),
            counters: Vec::new(),
            shard: None,
            classes: divergence_classes(rows),
            odd_one_out: odd_one_out(&title, rows),
            coverage: Vec::new(),
            routes: Vec::new(),
            title,
        }
    }
}

impl Summary {
    /// Takes a proof for every input (`proof`) found besides exploration: the run is
    /// EQUIVALENT unless a row contradicts the proof (a difference, or failures on both
    /// sides, which the proof rules out); then the proof is not used and `notes` say why.
    pub fn with_proof(&mut self, proof: &str, notes: &mut Vec<String>) {
        if self.diverged + self.errors_one > 0 {
            notes.push(format!(
                "a confirmed difference contradicts the proof ({proof}): an xcheck bug, please report it"
            ));
            return;
        }
        if self.unconfirmed + self.errors_both > 0 {
            notes.push(format!(
                "the proof ({proof}) is not used: some rows fail on both sides or differ without confirmation, which it rules out"
            ));
            return;
        }
        self.proof = Some(proof.to_string());
        self.overall = Overall::Equivalent;
    }
}

/// Per side of a three-way check (rows with [`ThreeWay`]), the confirmed differences where
/// it is the odd one out; empty for two sides. The programs' names come from the title
/// (`a.bc  vs  b.bc  vs  c.bc`).
pub fn odd_one_out(title: &str, rows: &[PathRow]) -> Vec<OddOneOut> {
    if !rows.iter().any(|r| r.three.is_some()) {
        return Vec::new();
    }
    let names: Vec<&str> = title.split("  vs  ").collect();
    ["A", "B", "C"]
        .iter()
        .enumerate()
        .map(|(i, side)| OddOneOut {
            side: side.to_string(),
            program: names
                .get(i)
                .map_or_else(|| side.to_string(), |n| n.to_string()),
            paths: rows
                .iter()
                .filter(|r| r.is_confirmed_difference())
                .filter(|r| r.three.as_ref().and_then(ThreeWay::odd) == Some(side))
                .count(),
        })
        .collect()
}

/// Formats a duration in milliseconds for people: `850 ms`, `1.500 s`, `2 min 5.000 s`.
pub fn format_ms(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{:03} s", ms / 1000, ms % 1000)
    } else {
        let s = ms % 60_000;
        format!("{} min {}.{:03} s", ms / 60_000, s / 1000, s % 1000)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small report with one row of each kind, shared by the printers' tests.
    /// Row `id` with `verdict` and nothing else: no inputs, results or test.
    pub(crate) fn bare_row(id: usize, verdict: PathVerdict) -> PathRow {
        PathRow {
            id,
            verdict,
            merged_paths: 1,
            inputs: Vec::new(),
            result_a: String::new(),
            result_b: String::new(),
            detail: String::new(),
            ktest: None,
            confirmed: Replay::NotRun,
            native: NativeReplay::NotRun,
            path: None,
            class: None,
            parts_at: None,
            undefined: None,
            three: None,
        }
    }

    pub(crate) fn sample_report() -> Report {
        let row = |id, verdict, detail: &str| PathRow {
            detail: detail.to_string(),
            ..bare_row(id, verdict)
        };
        let int = |name: &str, v: i32| InputValue {
            name: name.to_string(),
            bytes: v.to_le_bytes().to_vec(),
            display: v.to_string(),
        };
        let rows = vec![
            PathRow {
                merged_paths: 3,
                ..row(1, PathVerdict::Proved, "")
            },
            PathRow {
                inputs: vec![
                    int("n", 5),
                    InputValue {
                        name: "s".to_string(),
                        bytes: b"ab\0".to_vec(),
                        display: "\"ab\\0\"".to_string(),
                    },
                ],
                result_a: "ret 7".to_string(),
                result_b: "ret 8".to_string(),
                ktest: Some("test000001.ktest".to_string()),
                confirmed: Replay::Confirmed,
                ..row(2, PathVerdict::Diverged, "return values differ")
            },
            PathRow {
                inputs: vec![int("n", 0)],
                result_a: "ret 0".to_string(),
                result_b: "division by zero".to_string(),
                ktest: Some("test000002.ktest".to_string()),
                confirmed: Replay::NotConfirmed,
                ..row(3, PathVerdict::ErrorOne, "B: division by zero at b.c:12")
            },
            PathRow {
                inputs: vec![int("n", -1)],
                result_a: "abort".to_string(),
                result_b: "abort".to_string(),
                ..row(
                    4,
                    PathVerdict::ErrorBoth,
                    "A: abort at a.c:9; B: abort at b.c:4",
                )
            },
            PathRow {
                inputs: vec![int("n", 1_000_000)],
                ..row(
                    5,
                    PathVerdict::Unknown,
                    "unsupported: fadd at a.c:3 (floating point is not modelled yet, sorry)",
                )
            },
        ];
        Report {
            summary: Summary {
                title: "ref.bc:mod  vs  opt.bc:modOpt".to_string(),
                overall: Overall::Diverged,
                complete: false,
                paths: 5,
                proved: 1,
                diverged: 1,
                errors_both: 1,
                errors_one: 1,
                unconfirmed: 0,
                not_replayed: 0,
                unknown: 1,
                instructions: 12345,
                queries: 67,
                solver_time_ms: 250,
                wall_time_ms: 61_500,
                stop_reason: Some("max-time 60s reached".to_string()),
                proof: None,
                counters: Vec::new(),
                assumptions: vec!["'p' points to a buffer of 16 bytes".to_string()],
                notes: vec![
                    "unsupported: fadd at a.c:3".to_string(),
                    "options: --max-time 60".to_string(),
                ],
                shard: None,
                classes: divergence_classes(&rows),
                odd_one_out: Vec::new(),
                coverage: Vec::new(),
                routes: Vec::new(),
            },
            rows,
        }
    }

    // --tests-per-kind: per kind its example and its first rows, failures of both sides by
    // their detail; no cap keeps every row that needs a test.
    #[test]
    fn tests_kept_per_kind_start_with_the_example() {
        let row = |id: usize, verdict: PathVerdict, detail: &str, weight: u8| PathRow {
            inputs: vec![InputValue {
                name: "n".into(),
                bytes: vec![weight],
                display: weight.to_string(),
            }],
            detail: detail.into(),
            ..bare_row(id, verdict)
        };
        let rows = vec![
            row(1, PathVerdict::Diverged, "x", 5),
            row(2, PathVerdict::Proved, "", 0),
            row(3, PathVerdict::Diverged, "x", 5),
            row(4, PathVerdict::Diverged, "x", 5),
            row(5, PathVerdict::Diverged, "x", 0),
            row(6, PathVerdict::ErrorOne, "y", 1),
            row(7, PathVerdict::ErrorBoth, "z", 1),
            row(8, PathVerdict::ErrorBoth, "z", 1),
            row(9, PathVerdict::ErrorBoth, "z", 1),
            row(10, PathVerdict::Unknown, "", 0),
        ];
        let kept = |cap| -> Vec<usize> {
            let keep = tests_to_write(&rows, cap);
            rows.iter()
                .zip(keep)
                .filter(|(_, k)| *k)
                .map(|(r, _)| r.id)
                .collect()
        };
        assert_eq!(kept(Some(2)), [1, 5, 6, 7, 8]);
        assert_eq!(kept(Some(1)), [5, 6, 7]);
        assert_eq!(kept(None), [1, 3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn verdict_words_and_exit_codes() {
        assert_eq!(PathVerdict::Proved.to_string(), "proved");
        assert_eq!(PathVerdict::Diverged.to_string(), "DIVERGED");
        assert_eq!(PathVerdict::ErrorBoth.to_string(), "error (both)");
        assert_eq!(PathVerdict::ErrorOne.to_string(), "ERROR (one side)");
        assert_eq!(PathVerdict::Unknown.to_string(), "unknown");
        assert_eq!(Overall::Equivalent.exit_code(), 0);
        assert_eq!(Overall::Diverged.exit_code(), 1);
        assert_eq!(Overall::Inconclusive.exit_code(), 3);
    }

    #[test]
    fn equivalence_needs_compared_paths() {
        let proved = [bare_row(1, PathVerdict::Proved)];
        let title = || "a  vs  b".to_string();
        assert_eq!(
            Summary::of_rows(title(), &proved, true).overall,
            Overall::Equivalent
        );
        assert_eq!(
            Summary::of_rows(title(), &proved, false).overall,
            Overall::Inconclusive
        );
        // A complete exploration that compared nothing has not shown equivalence.
        let none = Summary::of_rows(title(), &[], true);
        assert_eq!(none.overall, Overall::Inconclusive);
        assert_eq!(
            table::verdict_sentence(&none),
            "INCONCLUSIVE: no difference found, but no path was compared"
        );
    }

    #[test]
    fn durations() {
        assert_eq!(format_ms(0), "0 ms");
        assert_eq!(format_ms(999), "999 ms");
        assert_eq!(format_ms(1500), "1.500 s");
        assert_eq!(format_ms(61_500), "1 min 1.500 s");
    }
}
