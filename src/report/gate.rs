//! The gate's printers: a table with one row per checked function (laid out by
//! [`table::align`](super::table)), the functions left out, and the totals.

use crate::report::{format_ms, Report, ShardInfo};
use serde::{Deserialize, Serialize};

/// A function left out of a gate run, and why.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Skipped {
    pub function: String,
    pub reason: String,
}

/// One checked function, as the table shows it.
pub struct GateRow<'a> {
    /// `f`, or `f=g` when the names differ.
    pub label: String,
    /// The report, or why the check could not run.
    pub outcome: Result<&'a Report, &'a str>,
    /// Whether the policy fails the run on this result.
    pub failed: bool,
    /// Whether the configuration accepts an outcome of this function.
    pub accepted: bool,
}

/// The file a shard of a gate run (`--shard` with `--all-functions` or `--config`) writes
/// into its output directory: which checks it ran and how each came out, for `xcheck merge`.
pub const MANIFEST: &str = "shard.json";

/// What a shard of a gate run did ([`MANIFEST`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateManifest {
    /// Which shard (`checks` is true; `digest` is that of every check's label in order).
    pub shard: ShardInfo,
    /// The module pairs, in order, each with the checks this shard ran.
    pub sections: Vec<GateSection>,
}

/// One module pair of a gate shard's manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateSection {
    pub title: String,
    pub skipped: Vec<Skipped>,
    pub entries: Vec<GateEntry>,
}

/// One check of a gate shard's manifest.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GateEntry {
    /// The check's place among all the run's checks, from 0 (which shard owns it).
    pub index: usize,
    /// `f`, or `f=g`.
    pub label: String,
    /// Its output directory, relative to the shard's.
    pub dir: String,
    /// Whether the policy failed the run on it.
    pub failed: bool,
    /// Whether the configuration accepts an outcome of it.
    pub accepted: bool,
    /// Why the check could not run, if it could not.
    pub error: Option<String>,
}

/// The gate's table: one row per function, then the functions left out, then the totals.
pub fn render_gate_table(title: &str, rows: &[GateRow<'_>], skipped: &[Skipped]) -> String {
    const HEADERS: [&str; 8] = [
        "function", "verdict", "paths", "proved", "diverged", "unknown", "time", "gate",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let gate = if r.failed {
                "FAIL"
            } else if r.accepted && r.outcome.is_ok() {
                "pass (accepted)"
            } else {
                "pass"
            };
            match r.outcome {
                Ok(rep) => {
                    let s = &rep.summary;
                    vec![
                        r.label.clone(),
                        s.overall.to_string(),
                        s.paths.to_string(),
                        s.proved.to_string(),
                        (s.diverged + s.errors_one).to_string(),
                        s.unknown.to_string(),
                        format_ms(s.wall_time_ms),
                        gate.to_string(),
                    ]
                }
                Err(e) => {
                    let mut row = vec![r.label.clone(), format!("ERROR: {e}")];
                    row.extend(std::iter::repeat_n("-".to_string(), 5));
                    row.push(gate.to_string());
                    row
                }
            }
        })
        .collect();
    let mut out = format!("{title}\n\n");
    out.push_str(&super::table::align(&HEADERS, &[false; 8], &cells));
    if !skipped.is_empty() {
        out.push_str("\nNot checked:\n");
        for s in skipped {
            out.push_str(&format!("  {}: {}\n", s.function, s.reason));
        }
    }
    let failed = rows.iter().filter(|r| r.failed).count();
    out.push_str(&format!(
        "\n{} checked, {} failed the gate, {} not checked\n",
        rows.len(),
        failed,
        skipped.len()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn rows_are_aligned_and_errors_have_dashes() {
        let report = crate::report::tests::sample_report();
        let rows = [
            GateRow {
                label: "parse_digit".into(),
                outcome: Ok(&report),
                failed: true,
                accepted: false,
            },
            GateRow {
                label: "f=g".into(),
                outcome: Err("no function 'g'"),
                failed: true,
                accepted: true,
            },
        ];
        let skipped = [Skipped {
            function: "h".into(),
            reason: "defined only in A".into(),
        }];
        let text = render_gate_table("a.bc  vs  b.bc", &rows, &skipped);
        expect![[r#"
            a.bc  vs  b.bc

            function     verdict                 paths  proved  diverged  unknown  time           gate
            -----------  ----------------------  -----  ------  --------  -------  -------------  ----
            parse_digit  NOT EQUIVALENT          5      1       2         1        1 min 1.500 s  FAIL
            f=g          ERROR: no function 'g'  -      -       -         -        -              FAIL

            Not checked:
              h: defined only in A

            2 checked, 2 failed the gate, 1 not checked
        "#]].assert_eq(&text);
    }
}
