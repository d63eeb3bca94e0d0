//! The table of a suite run (`xcheck suite`): one row per utility and implementation, as
//! the KLEE paper's table of BusyBox against coreutils mismatches.

use super::table::one_line;
use super::{format_ms, Overall, Report};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;

/// How a check's report notes the system calls the model answered ENOSYS (followed by the
/// list: `name (k×), …`); the program check writes it with this prefix.
pub const UNMODELLED_NOTE: &str = "system calls not modelled, answered ENOSYS: ";

/// A suite run: its rows in plan order (utility by utility).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteReport {
    /// The reference implementation every other is checked against.
    pub against: String,
    /// The options every check got.
    pub options: Vec<String>,
    /// The checks planned; `rows` has fewer when the suite was stopped.
    pub planned: usize,
    pub rows: Vec<SuiteRow>,
    pub wall_time_ms: u64,
    /// Whether the suite was interrupted (checks left out, running ones stopped).
    pub stopped: bool,
    /// The known mismatches (`--mismatches`) of utilities no check of the suite covered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known_unchecked: Vec<KnownResult>,
}

/// A mismatch reported before (`xcheck suite --mismatches FILE`) as one check saw it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KnownResult {
    pub utility: String,
    /// The command line (`cksum /`).
    pub command: String,
    /// What was reported.
    pub reported: String,
    /// The implementation checked against the reference (empty when none was).
    pub side: String,
    /// Whether the two native executables differ on the command in these versions; `None`
    /// when they could not run.
    pub differs_natively: Option<bool>,
    /// The check's difference row with this command line (`#12 test000012.ktest`).
    pub found: Option<String>,
    /// Whether that row reproduced on the native executables.
    pub confirmed_natively: bool,
    /// Why it was not found.
    pub note: String,
}

impl KnownResult {
    /// `found by the check: #12 test000012.ktest, confirmed natively`, or why not.
    fn outcome(&self) -> String {
        match &self.found {
            // The check found a difference with this command line, but the reported input
            // itself no longer differs: not a rediscovery of the mismatch.
            Some(row) if self.differs_natively == Some(false) => {
                format!("nothing to rediscover (no difference in these versions); the check differs on this command line with other inputs: {row}")
            }
            Some(row) if self.confirmed_natively => {
                format!("rediscovered: {row}, confirmed natively")
            }
            Some(row) => format!("rediscovered: {row}, not replayed natively"),
            None if self.differs_natively == Some(false) => {
                "nothing to rediscover (no difference in these versions)".into()
            }
            None => format!("not rediscovered: {}", self.note),
        }
    }

    fn native(&self) -> &'static str {
        if self.side.is_empty() {
            return "—";
        }
        match self.differs_natively {
            Some(true) => "still differs",
            Some(false) => "no longer differs",
            None => "could not run",
        }
    }
}

/// One check of a suite.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SuiteRow {
    pub utility: String,
    /// The implementation checked against the reference.
    pub side: String,
    /// The check's output directory (its report and tests).
    pub output_dir: String,
    /// The check's verdict, when it ran to a report.
    #[serde(with = "super::schema::overall_opt")]
    pub overall: Option<Overall>,
    pub paths: usize,
    pub proved: usize,
    /// Differences confirmed by the engine's concrete replay (divergences and one-sided
    /// errors).
    pub diverged: usize,
    pub unknown: usize,
    /// Differences not confirmed (not reproduced, or not replayed in time).
    pub unconfirmed: usize,
    /// Of the confirmed differences, those replayed on the native executables, and of
    /// those, the ones that reproduced there.
    pub native_replayed: usize,
    pub native_confirmed: usize,
    /// Why native replay stopped early or did not run.
    pub native_note: Option<String>,
    /// The kinds of difference, the largest first: (kind, rows).
    pub kinds: Vec<(String, usize)>,
    /// Why exploration stopped early.
    pub stop_reason: Option<String>,
    pub time_ms: u64,
    pub exit_code: Option<i32>,
    /// Why the check gave no report (its one-line error).
    pub error: Option<String>,
    /// The system calls the programs made that the model does not implement (answered
    /// ENOSYS), with how often: `getdents64 (3×)`.
    #[serde(default)]
    pub unmodelled: Vec<String>,
    /// The known mismatches of this utility (`--mismatches`), as this check saw them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<KnownResult>,
}

impl SuiteRow {
    /// A row before its check ran.
    pub fn new(utility: &str, side: &str, output_dir: &Path) -> Self {
        SuiteRow {
            utility: utility.into(),
            side: side.into(),
            output_dir: output_dir.display().to_string(),
            overall: None,
            paths: 0,
            proved: 0,
            diverged: 0,
            unknown: 0,
            unconfirmed: 0,
            native_replayed: 0,
            native_confirmed: 0,
            native_note: None,
            kinds: Vec::new(),
            stop_reason: None,
            time_ms: 0,
            exit_code: None,
            error: None,
            unmodelled: Vec::new(),
            known: Vec::new(),
        }
    }

    /// Takes the counts from the check's report.
    pub fn fill(&mut self, report: &Report) {
        let s = &report.summary;
        self.overall = Some(s.overall);
        self.paths = s.paths;
        self.proved = s.proved;
        self.diverged = s.diverged + s.errors_one;
        self.unknown = s.unknown;
        self.unconfirmed = s.unconfirmed;
        self.stop_reason = s.stop_reason.clone();
        self.kinds = s
            .classes
            .iter()
            .map(|c| (c.class.clone(), c.rows))
            .collect();
        self.unmodelled = s
            .notes
            .iter()
            .find_map(|n| n.strip_prefix(UNMODELLED_NOTE))
            .map(|list| list.split(", ").map(str::to_string).collect())
            .unwrap_or_default();
    }

    fn verdict(&self) -> String {
        match (&self.overall, &self.error) {
            (Some(o), _) => o.to_string(),
            (None, Some(_)) => "ERROR".into(),
            (None, None) => "not run".into(),
        }
    }

    fn native(&self) -> String {
        if self.native_replayed == 0 {
            return if self.diverged == 0 {
                "—".into()
            } else {
                "0".into()
            };
        }
        format!("{}/{}", self.native_confirmed, self.native_replayed)
    }

    fn kinds_cell(&self, most: usize) -> String {
        let mut cell = self
            .kinds
            .iter()
            .take(most)
            .map(|(k, n)| format!("{n}× {k}"))
            .collect::<Vec<_>>()
            .join(" | ");
        if self.kinds.len() > most {
            let _ = write!(cell, " | +{} kinds", self.kinds.len() - most);
        }
        cell
    }

    fn remark(&self) -> String {
        let mut parts = Vec::new();
        if let Some(e) = &self.error {
            parts.push(e.clone());
        }
        if let Some(r) = &self.stop_reason {
            parts.push(r.clone());
        }
        if self.unconfirmed > 0 {
            parts.push(format!("{} unconfirmed", self.unconfirmed));
        }
        if let Some(n) = &self.native_note {
            parts.push(n.clone());
        }
        if !self.unmodelled.is_empty() {
            parts.push(format!(
                "system calls not modelled: {}",
                self.unmodelled.join(", ")
            ));
        }
        parts.join("; ")
    }
}

impl SuiteReport {
    /// The table for a terminal: one line per check, then the totals.
    pub fn render_table(&self) -> String {
        let headers = [
            "utility",
            "A",
            "verdict",
            "paths",
            "proved",
            "diverged",
            "native",
            "unknown",
            "time",
            "kinds of difference",
            "remarks",
        ];
        let rows: Vec<Vec<String>> = self.rows.iter().map(|r| self.cells(r, 2)).collect();
        let right: Vec<bool> = headers
            .iter()
            .map(|h| {
                matches!(
                    *h,
                    "paths" | "proved" | "diverged" | "native" | "unknown" | "time"
                )
            })
            .collect();
        let mut out = super::table::align(&headers, &right, &rows);
        out.push('\n');
        out.push_str(&self.known_lines());
        out.push_str(&self.totals());
        out
    }

    /// The table as Markdown (suite.md).
    pub fn render_markdown(&self) -> String {
        let mut out = format!(
            "# xcheck suite: every utility against {}\n\nOptions of every check: `{}`\n\n",
            self.against,
            self.options.join(" ")
        );
        out.push_str("| utility | A | verdict | paths | proved | diverged | native | unknown | time | kinds of difference | remarks |\n");
        out.push_str("|---|---|---|--:|--:|--:|--:|--:|--:|---|---|\n");
        for r in &self.rows {
            let cells = self.cells(r, usize::MAX);
            let _ = writeln!(
                out,
                "| {} |",
                cells
                    .iter()
                    .map(|c| c.replace('|', "\\|"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        out.push('\n');
        out.push_str(&self.totals());
        out.push_str(
            "\n*diverged*: differences concrete replay confirmed in the engine; *native*: of those replayed on the native executables, how many reproduced; each check's own report is in its directory.\n",
        );
        let known = self.known();
        if !known.is_empty() {
            out.push_str("\n## Mismatches reported before\n\n*natively*: whether the two executables still differ on the command in these versions; *check*: whether the check found a difference on that command line.\n\n| command | reported | A | natively | check |\n|---|---|---|---|---|\n");
            for k in known {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} | {} |",
                    k.command,
                    one_line(&k.reported).replace('|', "\\|"),
                    if k.side.is_empty() { "—" } else { &k.side },
                    k.native(),
                    one_line(&k.outcome()).replace('|', "\\|")
                );
            }
        }
        out
    }

    /// Every known mismatch, checked or not, in the order of the rows.
    pub fn known(&self) -> Vec<&KnownResult> {
        self.rows
            .iter()
            .flat_map(|r| &r.known)
            .chain(&self.known_unchecked)
            .collect()
    }

    /// `known mismatches: 5 of 8 rediscovered (…)`, one line per mismatch, for a terminal.
    fn known_lines(&self) -> String {
        let known = self.known();
        if known.is_empty() {
            return String::new();
        }
        let live: Vec<&&KnownResult> = known
            .iter()
            .filter(|k| k.differs_natively == Some(true))
            .collect();
        let found = live.iter().filter(|k| k.found.is_some()).count();
        let mut out = format!(
            "mismatches reported before: {} looked up, {} still differ natively, {found} of those rediscovered\n",
            known.len(),
            live.len()
        );
        for k in known {
            let side = if k.side.is_empty() { "—" } else { &k.side };
            let _ = writeln!(
                out,
                "  {:<14} {:<9} {:<17} {}",
                k.command,
                side,
                k.native(),
                one_line(&k.outcome())
            );
        }
        out
    }

    fn cells(&self, r: &SuiteRow, kinds: usize) -> Vec<String> {
        vec![
            r.utility.clone(),
            r.side.clone(),
            r.verdict(),
            r.paths.to_string(),
            r.proved.to_string(),
            r.diverged.to_string(),
            r.native(),
            r.unknown.to_string(),
            format_ms(r.time_ms),
            one_line(&r.kinds_cell(kinds)),
            one_line(&r.remark()),
        ]
    }

    fn totals(&self) -> String {
        let count = |o: Overall| self.rows.iter().filter(|r| r.overall == Some(o)).count();
        let errors = self.rows.iter().filter(|r| r.error.is_some()).count();
        let mut out = format!(
            "{} checks against {}: {} not equivalent, {} equivalent, {} inconclusive, {} errors",
            self.rows.len(),
            self.against,
            count(Overall::Diverged),
            count(Overall::Equivalent),
            count(Overall::Inconclusive),
            errors
        );
        if self.rows.len() < self.planned {
            let _ = write!(
                out,
                "; {} of {} {}",
                self.planned - self.rows.len(),
                self.planned,
                if self.stopped {
                    "not run (the suite was stopped)"
                } else {
                    "still to come (the suite is running)"
                }
            );
        }
        let _ = writeln!(out, "; {}", format_ms(self.wall_time_ms));
        out
    }

    /// Writes suite.md and suite.json into `dir`, each replaced at once; an error names
    /// the file.
    pub fn write(
        &self,
        dir: &Path,
    ) -> std::result::Result<(), (std::path::PathBuf, std::io::Error)> {
        let json =
            serde_json::to_vec_pretty(self).map_err(|e| (dir.join("suite.json"), e.into()))?;
        for (name, bytes) in [
            ("suite.md", self.render_markdown().into_bytes()),
            ("suite.json", json),
        ] {
            let path = dir.join(name);
            crate::ktest::write_atomic(&path, &bytes).map_err(|e| (path, e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmodelled_system_calls_are_named_in_the_remarks() {
        let mut report = crate::report::tests::sample_report();
        report
            .summary
            .notes
            .push(format!("{UNMODELLED_NOTE}socket (2×), getdents64 (1×)"));
        let mut row = SuiteRow::new("ls", "busybox", Path::new("out"));
        row.fill(&report);
        assert_eq!(row.unmodelled, ["socket (2×)", "getdents64 (1×)"]);
        assert!(
            row.remark()
                .contains("system calls not modelled: socket (2×), getdents64 (1×)"),
            "{}",
            row.remark()
        );
    }

    /// A difference the check found with the command line of a mismatch whose reported
    /// input no longer differs natively is not a rediscovery.
    #[test]
    fn a_difference_on_a_mismatch_that_no_longer_differs_is_not_a_rediscovery() {
        let mut k = KnownResult {
            utility: "split".into(),
            command: "split -".into(),
            reported: "split - reads stdin".into(),
            side: "toybox".into(),
            differs_natively: Some(false),
            found: Some("#5 test000005.ktest".into()),
            confirmed_natively: false,
            note: String::new(),
        };
        assert!(
            k.outcome().starts_with("nothing to rediscover"),
            "{}",
            k.outcome()
        );
        assert!(k.outcome().contains("#5 test000005.ktest"));
        k.differs_natively = Some(true);
        assert_eq!(
            k.outcome(),
            "rediscovered: #5 test000005.ktest, not replayed natively"
        );
    }
}
