//! The gate's printers: a table with one row per checked function (laid out by
//! [`table::align`](super::table)), the functions left out, and the totals.

use crate::report::{format_ms, Report};
use serde::Serialize;

/// A function left out of a gate run, and why.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
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
