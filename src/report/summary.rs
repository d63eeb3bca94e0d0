//! `summary.md`: a check's result in a few kilobytes, for a CI step summary or a review
//! comment.
//!
//! It holds the verdict, what the verdict assumes, each kind of difference with its count
//! and one example (the example's inputs in full, both sides' results), the undecided rows
//! grouped by reason, and links to `report.md` and the tests beside it. It never exceeds
//! [`SUMMARY_BYTES`]: what does not fit is left out with a count of what was left out, in
//! the order above, so the verdict and the largest kinds of difference are always there.

use super::table::{
    code_block, confirmation, cut, md_escape, one_line, ordered_inputs, plural, summary_lines,
    verdict_sentence,
};
use super::{PathRow, PathVerdict, Report};
use std::fmt::Write as _;

/// The most bytes `summary.md` takes.
pub const SUMMARY_BYTES: usize = 8 * 1024;

/// The most characters one input or one side's result of an example shows: a kind's
/// example stays readable, and four of them fit.
pub const SUMMARY_VALUE: usize = 1200;

/// The most characters of one reason of undecided rows (and of the title and directory).
const REASON_CHARS: usize = 300;

/// Renders `summary.md` for a report written into the directory `dir` (as the replay
/// command names it): at most [`SUMMARY_BYTES`] bytes.
pub fn render_summary(report: &Report, dir: &str) -> String {
    let s = &report.summary;
    let mut head = String::new();
    let title = cut(&one_line(&s.title), REASON_CHARS);
    let _ = writeln!(head, "# xcheck: {}\n", md_escape(&title));
    let _ = writeln!(head, "**{}**\n", md_escape(&verdict_sentence(s)));
    for (label, value) in summary_lines(s)
        .into_iter()
        .filter(|(l, _)| matches!(*l, "exploration" | "paths" | "odd one out"))
    {
        let _ = writeln!(head, "- {label}: {}", md_escape(&value));
    }
    let footer = footer(report, dir);
    let mut out = Budget::new(head, &footer);

    if !s.assumptions.is_empty() {
        out.push_or("\nAssumed:\n\n", "");
        for (k, a) in s.assumptions.iter().enumerate() {
            let line = format!("- {}\n", md_escape(&cut(&one_line(a), SUMMARY_VALUE)));
            let rest = s.assumptions.len() - k;
            let omitted = format!("- … {} more in report.md\n", rest);
            if !out.push_or(&line, &omitted) {
                break;
            }
        }
    }

    if !s.classes.is_empty() {
        let _ = out.push_or(
            &format!(
                "\n## Differences by kind ({})\n",
                plural(s.classes.len(), "kind", "kinds")
            ),
            "",
        );
        for (k, c) in s.classes.iter().enumerate() {
            let example = report.rows.iter().find(|r| r.id == c.example);
            let title = format!("{}. {}", k + 1, md_escape(&one_line(&c.class)));
            let block = kind_block(&title, c, example, "");
            let rest = &s.classes[k..];
            let rows: usize = rest.iter().map(|c| c.rows).sum();
            let omitted = format!(
                "\n… {} ({}) left out here: every one is in report.md.\n",
                plural(rest.len(), "more kind", "more kinds"),
                plural(rows, "row", "rows")
            );
            if !out.push_or(&block, &omitted) {
                break;
            }
        }
    }

    let reasons = unknown_reasons(&report.rows);
    if !reasons.is_empty() {
        let total: usize = reasons.iter().map(|(_, n)| n).sum();
        let _ = out.push_or(
            &format!(
                "\n## Undecided ({}, {})\n\n",
                plural(total, "row", "rows"),
                plural(reasons.len(), "reason", "reasons")
            ),
            "",
        );
        for (k, (reason, n)) in reasons.iter().enumerate() {
            let line = format!(
                "- {n} × {}\n",
                md_escape(&cut(&one_line(reason), REASON_CHARS))
            );
            let rest = &reasons[k..];
            let omitted = format!(
                "- … {} ({}) in report.md\n",
                plural(rest.len(), "more reason", "more reasons"),
                plural(rest.iter().map(|(_, n)| n).sum(), "row", "rows")
            );
            if !out.push_or(&line, &omitted) {
                break;
            }
        }
    }
    out.finish(&footer)
}

/// A summary's text so far and the bytes it may take: at most [`SUMMARY_BYTES`] with its
/// footer.
pub(crate) struct Budget {
    text: String,
    limit: usize,
}

impl Budget {
    /// A summary starting with `head`, ending with `footer` (which [`Budget::finish`] adds).
    pub(crate) fn new(head: String, footer: &str) -> Budget {
        Budget {
            text: head,
            limit: SUMMARY_BYTES.saturating_sub(footer.len()),
        }
    }

    /// The text with `footer` after it.
    pub(crate) fn finish(mut self, footer: &str) -> String {
        self.text.push_str(footer);
        self.text
    }

    /// Adds `block` if it fits with room left for an omission line after it; else adds
    /// `omitted` (which says what was left out) if that fits, and returns false.
    pub(crate) fn push_or(&mut self, block: &str, omitted: &str) -> bool {
        // Room kept for the longest omission line a later block may need.
        const RESERVE: usize = 160;
        if self.text.len() + block.len() + RESERVE <= self.limit {
            self.text.push_str(block);
            return true;
        }
        if self.text.len() + omitted.len() <= self.limit {
            self.text.push_str(omitted);
        }
        false
    }
}

/// One kind of difference under the heading `title` (Markdown): its count, where its rows
/// leave agreement, and its example's inputs (in full, up to [`SUMMARY_VALUE`] characters
/// each) and results, its test linked as `dir` + name.
pub(crate) fn kind_block(
    title: &str,
    c: &super::DivergenceClass,
    example: Option<&PathRow>,
    dir: &str,
) -> String {
    let mut out = format!(
        "\n### {title}: {} ({} confirmed)\n\n",
        plural(c.rows, "row", "rows"),
        c.confirmed
    );
    if !c.partings.is_empty() {
        let _ = writeln!(
            out,
            "Leaves agreement at {}.\n",
            md_escape(&super::table::partings_text(&c.partings))
        );
    }
    let Some(row) = example else {
        return out;
    };
    let mark = confirmation(row).map_or_else(String::new, |m| format!(" ({m})"));
    let test = match &row.ktest {
        Some(name) => format!(", [{}]({dir}{name}){mark}", md_escape(name)),
        None => mark,
    };
    let _ = writeln!(out, "Example: path {}{test}\n", row.id);
    let mut lines = String::new();
    for input in ordered_inputs(row) {
        let _ = writeln!(
            lines,
            "{} = {}",
            input.name,
            cut(&one_line(&input.display), SUMMARY_VALUE)
        );
    }
    if row.inputs.is_empty() {
        lines.push_str("(no inputs)\n");
    }
    let _ = writeln!(lines, "A: {}", cut(&one_line(&row.result_a), SUMMARY_VALUE));
    let _ = writeln!(lines, "B: {}", cut(&one_line(&row.result_b), SUMMARY_VALUE));
    if let Some(t) = &row.three {
        let _ = writeln!(lines, "C: {}", cut(&one_line(&t.result_c), SUMMARY_VALUE));
    }
    out.push_str(&code_block(&lines));
    out
}

/// The undecided rows' reasons (their details), each with its number of rows: the most
/// common first, ties in the order their first rows come.
fn unknown_reasons(rows: &[PathRow]) -> Vec<(String, usize)> {
    let mut reasons: Vec<(String, usize)> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = Default::default();
    for row in rows.iter().filter(|r| r.verdict == PathVerdict::Unknown) {
        let reason = if row.detail.is_empty() {
            "no reason given"
        } else {
            row.detail.as_str()
        };
        let at = *index.entry(reason).or_insert_with(|| {
            reasons.push((reason.to_string(), 0));
            reasons.len() - 1
        });
        reasons[at].1 += 1;
    }
    // A stable sort: equal counts keep the order of their first rows.
    reasons.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    reasons
}

/// The links to the full report and the tests, and how to replay them.
fn footer(report: &Report, dir: &str) -> String {
    let tests = report.rows.iter().filter(|r| r.ktest.is_some()).count();
    let mut out = String::from(
        "\n---\n\nThe page to read: [report.html](report.html) (each kind of difference with its inputs and both outputs in full). Every path: [report.md](report.md) (also [report.json](report.json), [report.csv](report.csv)).",
    );
    if tests > 0 {
        let _ = write!(
            out,
            " Tests: {} beside this file; `xcheck replay {} A.bc B.bc …` reruns them (`xcheck replay --help`).",
            plural(tests, "`.ktest` file", "`.ktest` files"),
            md_escape(&cut(dir, REASON_CHARS))
        );
    }
    let unwritten = report.tests_not_written();
    if unwritten > 0 {
        let _ = write!(
            out,
            " {} not written (`--tests-per-kind`; `--all-tests` writes every one): the rows keep their inputs in report.json.",
            plural(unwritten, "test was", "tests were")
        );
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use crate::report::{divergence_classes, InputValue};
    use expect_test::expect;

    #[test]
    fn summary_snapshot() {
        expect![[r##"
            # xcheck: ref.bc:mod  vs  opt.bc:modOpt

            **NOT EQUIVALENT: 2 paths differ**

            - exploration: incomplete: max-time 60s reached
            - paths: 5 (proved 1, diverged 1, errors in both 1, errors in one side 1, unknown 1)

            Assumed:

            - 'p' points to a buffer of 16 bytes

            ## Differences by kind (2 kinds)

            ### 1. return values differ: 1 row (1 confirmed)

            Example: path 2, [test000001.ktest](test000001.ktest) (confirmed)

            ```text
            n = 5
            s = "ab\0"
            A: ret 7
            B: ret 8
            ```

            ### 2. B: division by zero at b.c:12: 1 row (0 confirmed)

            Example: path 3, [test000002.ktest](test000002.ktest) (NOT confirmed)

            ```text
            n = 0
            A: ret 0
            B: division by zero
            ```

            ## Undecided (1 row, 1 reason)

            - 1 × unsupported: fadd at a.c:3 (floating point is not modelled yet, sorry)

            ---

            The page to read: [report.html](report.html) (each kind of difference with its inputs and both outputs in full). Every path: [report.md](report.md) (also [report.json](report.json), [report.csv](report.csv)). Tests: 2 `.ktest` files beside this file; `xcheck replay xcheck-out A.bc B.bc …` reruns them (`xcheck replay --help`). 1 test was not written (`--tests-per-kind`; `--all-tests` writes every one): the rows keep their inputs in report.json.
        "##]]
        .assert_eq(&render_summary(&sample_report(), "xcheck-out"));
    }

    // Issue 34: one check wrote a 1.7 MB report.md. The summary of thousands of rows of
    // hundreds of kinds stays under its cap, says what it left out, and keeps the first
    // kind's example whole.
    #[test]
    fn many_kinds_and_long_values_stay_under_the_cap() {
        let mut report = sample_report();
        let template = report.rows[1].clone();
        report.rows.clear();
        for id in 1..=5000 {
            let mut row = template.clone();
            row.id = id;
            row.detail = format!("kind {}", id % 700);
            row.inputs[1].display = format!("\"{}\"", "q".repeat(id % 3000));
            row.result_a = "z".repeat(5000);
            row.ktest = Some(format!("test{id:06}.ktest"));
            report.rows.push(row);
        }
        for id in 5001..=5400 {
            let mut row = crate::report::tests::bare_row(id, PathVerdict::Unknown);
            row.detail = format!("solver timeout at a.c:{}", id % 90);
            report.rows.push(row);
        }
        report.summary.classes = divergence_classes(&report.rows);
        report.summary.assumptions = (0..50).map(|k| format!("assumption {k}")).collect();
        report.summary.title = "a.bc  vs  b.bc".repeat(1000);
        let text = render_summary(&report, &"d/".repeat(5000));
        assert!(text.len() <= SUMMARY_BYTES, "{} bytes", text.len());
        assert!(
            text.contains("## Differences by kind (700 kinds)"),
            "{text}"
        );
        assert!(text.contains("more kinds ("), "{text}");
        assert!(
            text.contains("Every path: [report.md](report.md)"),
            "{text}"
        );
        // The first kind's example, with its inputs.
        let first = &report.summary.classes[0];
        let row = &report.rows[first.example - 1];
        assert!(text.contains(&format!("n = 5\ns = {}\n", row.inputs[1].display)));
    }

    #[test]
    fn a_long_value_is_cut_with_a_count() {
        let mut report = sample_report();
        report.rows[1].inputs[1] = InputValue {
            name: "s".to_string(),
            bytes: vec![b'x'; 5000],
            display: "x".repeat(5000),
        };
        let text = render_summary(&report, "out");
        assert!(
            text.contains(&format!(
                "s = {}… (3800 more characters)\n",
                "x".repeat(SUMMARY_VALUE)
            )),
            "{text}"
        );
        assert!(text.len() <= SUMMARY_BYTES);
    }
}
