//! The gate's printers: a table with one row per checked function (laid out by
//! [`table::align`](crate::report::table)), the functions left out, and the totals.

use crate::report::{format_ms, Overall, PathRow, PathVerdict, Report, ShardInfo};
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
    #[serde(with = "crate::report::schema::shard_info")]
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

impl GateRow<'_> {
    /// What the gate makes of the row: `FAIL`, `inconclusive` (an undecided check the policy
    /// lets pass: `--fail-on unknown` fails it), `pass (accepted)` or `pass`.
    pub fn gate_word(&self) -> &'static str {
        match self.outcome {
            _ if self.failed => "FAIL",
            Ok(rep) if rep.summary.overall == Overall::Inconclusive => "inconclusive",
            Ok(_) if self.accepted => "pass (accepted)",
            _ => "pass",
        }
    }
}

/// The first counterexample of a check: the example of its first kind of difference, else
/// its first row where the sides differ or one fails.
pub fn first_counterexample(rep: &Report) -> Option<&PathRow> {
    let example = rep
        .summary
        .classes
        .first()
        .and_then(|c| rep.rows.iter().find(|r| r.id == c.example));
    example.or_else(|| {
        rep.rows
            .iter()
            .find(|r| matches!(r.verdict, PathVerdict::Diverged | PathVerdict::ErrorOne))
    })
}

/// A counterexample under its row of the gate's table: every input in full (scalars
/// first), then what each side did.
fn counterexample_lines(row: &PathRow) -> String {
    use crate::report::table::{one_line, ordered_inputs};
    let inputs: Vec<String> = ordered_inputs(row)
        .iter()
        .map(|i| format!("{} = {}", i.name, one_line(&i.display)))
        .collect();
    let inputs = if inputs.is_empty() {
        "(no inputs)".to_string()
    } else {
        inputs.join(", ")
    };
    format!(
        "    counterexample (path {}): {inputs}\n      A: {}\n      B: {}\n",
        row.id,
        one_line(&row.result_a),
        one_line(&row.result_b)
    )
}

/// The line printed when one check of a gate run ends, before the table (`done` of
/// `total` checks have ended): `[2/11] parse_digit: NOT EQUIVALENT: FAIL (1.200 s)`.
pub fn finished_line(done: usize, total: usize, row: &GateRow<'_>) -> String {
    match row.outcome {
        Ok(rep) => format!(
            "[{done}/{total}] {}: {}: {} ({})",
            row.label,
            rep.summary.overall,
            row.gate_word(),
            format_ms(rep.summary.wall_time_ms)
        ),
        Err(e) => format!(
            "[{done}/{total}] {}: ERROR: {}: {}",
            row.label,
            crate::report::table::one_line(e),
            row.gate_word()
        ),
    }
}

/// The GitHub Actions workflow command for a row that failed the gate (`None` for one that
/// did not): `::error file=F,line=N,title=xcheck: f::message`, at the source line where its
/// first counterexample's sides part (from debug information; for a branch of the C library,
/// the program's call), else at `bitcode` without a line. The message has the verdict, the
/// inputs and both sides' results.
pub fn github_annotation(row: &GateRow<'_>, bitcode: &std::path::Path) -> Option<String> {
    use crate::report::table::{one_line, ordered_inputs};
    if !row.failed {
        return None;
    }
    let (place, message) = match row.outcome {
        Ok(rep) => {
            let cex = first_counterexample(rep);
            let parting = cex.and_then(|c| c.parts_at.as_deref()).or_else(|| {
                let class = rep.summary.classes.first()?;
                class.partings.first().map(|p| p.at.as_str())
            });
            let mut message = format!("{} is {}", row.label, rep.summary.overall);
            if let Some(c) = cex {
                let inputs: Vec<String> = ordered_inputs(c)
                    .iter()
                    .map(|i| format!("{} = {}", i.name, one_line(&i.display)))
                    .collect();
                message.push_str(&format!(
                    " for {}: A: {}; B: {}",
                    if inputs.is_empty() {
                        "no inputs".to_string()
                    } else {
                        inputs.join(", ")
                    },
                    one_line(&c.result_a),
                    one_line(&c.result_b)
                ));
            }
            if let Some(at) = parting {
                message.push_str(&format!(" (the sides part at {at})"));
            }
            // The file's path from the example's route (debug information's), else the
            // name the parting's location gives.
            let routed = (cex.and_then(|c| rep.parting_source(c.id)))
                .map(|(path, line)| (workspace_relative(&path), line));
            (routed.or_else(|| parting.and_then(source_line)), message)
        }
        Err(e) => (
            None,
            format!("{} could not be checked: {}", row.label, one_line(e)),
        ),
    };
    let (file, line) = match place {
        Some((file, line)) => (file, format!(",line={line}")),
        None => (bitcode.display().to_string(), String::new()),
    };
    Some(format!(
        "::error file={}{line},title={}::{}",
        workflow_property(&file),
        workflow_property(&format!("xcheck: {}", row.label)),
        workflow_message(&message)
    ))
}

/// `path` relative to the repository GitHub checked out (`GITHUB_WORKSPACE`), else to the
/// current directory, when it lies under it: annotations name files relative to the
/// repository's root.
fn workspace_relative(path: &str) -> String {
    let roots = [
        std::env::var("GITHUB_WORKSPACE")
            .ok()
            .map(std::path::PathBuf::from),
        std::env::current_dir().ok(),
    ];
    for root in roots.into_iter().flatten() {
        if let Ok(rest) = std::path::Path::new(path).strip_prefix(&root) {
            return rest.display().to_string();
        }
    }
    path.to_string()
}

/// The source file and line of a parting branch (`B f.c:12 (f)`, `B f.c:12:3 (f)`, or a
/// library branch `…, called from main.c:40 (main)`: the call), if it has one.
fn source_line(at: &str) -> Option<(String, u32)> {
    let place = match at.split_once(", called from ") {
        Some((_, call)) => call,
        None => at.split_once(' ')?.1,
    };
    let loc = place.split(" (").next()?;
    let (file, line) = crate::crosscheck::file_line(loc)?;
    Some((file.to_string(), line))
}

/// A workflow command's message, escaped as GitHub reads it.
fn workflow_message(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value, escaped as GitHub reads it.
fn workflow_property(text: &str) -> String {
    workflow_message(text)
        .replace(':', "%3A")
        .replace(',', "%2C")
}

/// The gate's table: one row per function, each `FAIL` row followed by its first
/// counterexample, then the functions left out, then the totals.
pub fn render_gate_table(title: &str, rows: &[GateRow<'_>], skipped: &[Skipped]) -> String {
    const HEADERS: [&str; 8] = [
        "function", "verdict", "paths", "proved", "diverged", "unknown", "time", "gate",
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let gate = r.gate_word();
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
    let table = crate::report::table::align(&HEADERS, &[false; 8], &cells);
    // The header and its rule, then one line per row.
    for (i, line) in table.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        let Some(row) = i.checked_sub(2).and_then(|k| rows.get(k)) else {
            continue;
        };
        if let (true, Ok(rep)) = (row.failed, row.outcome) {
            if let Some(cex) = first_counterexample(rep) {
                out.push_str(&counterexample_lines(cex));
            }
        }
    }
    if !skipped.is_empty() {
        out.push_str("\nNot checked:\n");
        for s in skipped {
            out.push_str(&format!("  {}: {}\n", s.function, s.reason));
        }
    }
    let failed = rows.iter().filter(|r| r.failed).count();
    let inconclusive = rows
        .iter()
        .filter(|r| r.gate_word() == "inconclusive")
        .count();
    let inconclusive = if inconclusive > 0 {
        format!(", {inconclusive} inconclusive (--fail-on unknown fails them)")
    } else {
        String::new()
    };
    out.push_str(&format!(
        "\n{} checked, {} failed the gate{inconclusive}, {} not checked\n",
        rows.len(),
        failed,
        skipped.len()
    ));
    out
}

/// One module pair of a gate run, as its `summary.md` shows it: each function's row with
/// its output directory, relative to the run's (`parse_digit`, `pair2/f`).
pub struct GateSummaryPart<'a> {
    pub title: String,
    pub rows: Vec<(GateRow<'a>, String)>,
    pub skipped: &'a [Skipped],
}

/// `summary.md` of a gate run, for a CI step summary: how many checks failed the gate, per
/// module pair a table of the functions with a link to each one's own `summary.md`, the
/// functions not checked, then the first kind of difference of each function that failed
/// the gate with its example (inputs in full, both results). At most
/// [`crate::report::summary::SUMMARY_BYTES`]; what does not fit is counted.
pub fn render_gate_summary(parts: &[GateSummaryPart<'_>]) -> String {
    use crate::report::summary::{kind_block, Budget};
    use crate::report::table::{md_escape, one_line, plural};
    let all: Vec<&(GateRow<'_>, String)> = parts.iter().flat_map(|p| &p.rows).collect();
    let failed = all.iter().filter(|(r, _)| r.failed).count();
    let skipped: usize = parts.iter().map(|p| p.skipped.len()).sum();
    let head = format!(
        "# xcheck gate: {} of {} failed the gate\n\n{} not checked.\n",
        failed,
        plural(all.len(), "check", "checks"),
        plural(skipped, "function", "functions")
    );
    let footer = "\n---\n\nThe gate's page: [report.html](report.html), linking each function's. Each function's directory holds its tests, `report.html`, `report.md` (every path) and `summary.md` (every kind of difference).\n";
    let mut out = Budget::new(head, footer);
    for part in parts {
        out.push_or(
            &format!(
                "\n## {}\n\n| function | verdict | paths | differences | unknown | gate |\n|---|---|--:|--:|--:|---|\n",
                md_escape(&one_line(&part.title))
            ),
            "",
        );
        for (k, (row, dir)) in part.rows.iter().enumerate() {
            let gate = match row.gate_word() {
                "FAIL" => "**FAIL**",
                word => word,
            };
            let link = format!("[{}]({dir}/summary.md)", md_escape(&row.label));
            let line = match row.outcome {
                Ok(rep) => {
                    let s = &rep.summary;
                    format!(
                        "| {link} | {} | {} | {} | {} | {gate} |\n",
                        s.overall,
                        s.paths,
                        s.diverged + s.errors_one,
                        s.unknown
                    )
                }
                Err(e) => format!(
                    "| {} | ERROR: {} | - | - | - | {gate} |\n",
                    md_escape(&row.label),
                    md_escape(&one_line(e))
                ),
            };
            let rest = &part.rows[k..];
            let omitted = format!(
                "\n… {} ({} failed) left out here: see the terminal's table or JUnit.\n",
                plural(rest.len(), "more function", "more functions"),
                rest.iter().filter(|(r, _)| r.failed).count()
            );
            if !out.push_or(&line, &omitted) {
                break;
            }
        }
        if !part.skipped.is_empty() {
            let list: Vec<String> = part
                .skipped
                .iter()
                .map(|s| format!("{} ({})", s.function, s.reason))
                .collect();
            let line = format!("\nNot checked: {}.\n", md_escape(&list.join("; ")));
            let omitted = format!(
                "\n{} not checked (the terminal's output says why).\n",
                plural(part.skipped.len(), "function", "functions")
            );
            out.push_or(&line, &omitted);
        }
    }
    let failing: Vec<&(GateRow<'_>, String)> =
        all.iter().copied().filter(|(r, _)| r.failed).collect();
    if !failing.is_empty() {
        out.push_or("\n## What failed\n", "");
    }
    for (k, (row, dir)) in failing.iter().enumerate() {
        let label = md_escape(&row.label);
        let block = match row.outcome {
            Ok(rep) => match rep.summary.classes.first() {
                Some(c) => {
                    let example = rep.rows.iter().find(|r| r.id == c.example);
                    let title = format!("{label}: {}", md_escape(&one_line(&c.class)));
                    let more = rep.summary.classes.len() - 1;
                    let mut block = kind_block(&title, c, example, &format!("{dir}/"));
                    if more > 0 {
                        block.push_str(&format!(
                            "\n… and {} in [its summary]({dir}/summary.md).\n",
                            plural(more, "more kind", "more kinds")
                        ));
                    }
                    block
                }
                None => format!(
                    "\n### {label}: {}\n",
                    md_escape(&crate::report::table::verdict_sentence(&rep.summary))
                ),
            },
            Err(e) => format!(
                "\n### {label}: could not run\n\n{}\n",
                md_escape(&one_line(e))
            ),
        };
        let omitted = format!(
            "\n… {} more failed: see their directories' summary.md.\n",
            failing.len() - k
        );
        if !out.push_or(&block, &omitted) {
            break;
        }
    }
    out.finish(footer)
}

/// Writes `summary.md` of a gate run ([`render_gate_summary`]) into `dir`, atomically.
pub fn write_gate_summary(
    dir: &std::path::Path,
    parts: &[GateSummaryPart<'_>],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    crate::ktest::write_atomic(
        &dir.join("summary.md"),
        render_gate_summary(parts).as_bytes(),
    )
}

/// `report.html` of a gate run: how many checks failed the gate (`id="verdict"`, with
/// `data-failed` and `data-checks`), then per module pair a table of the functions, each row
/// (`class="check"`, `data-overall`) linking the function's own `report.html`, a failed one
/// followed by its first counterexample (`class="counterexample"`), and the functions not
/// checked. Every string escaped; no script.
pub fn render_gate_html(parts: &[GateSummaryPart<'_>]) -> String {
    use crate::report::html::{href, overall_name, text, STYLE};
    use crate::report::table::{one_line, plural};
    use std::fmt::Write as _;
    let all: Vec<&(GateRow<'_>, String)> = parts.iter().flat_map(|p| &p.rows).collect();
    let failed = all.iter().filter(|(r, _)| r.failed).count();
    let skipped: usize = parts.iter().map(|p| p.skipped.len()).sum();
    let verdict = format!(
        "{failed} of {} failed the gate",
        plural(all.len(), "check", "checks")
    );
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>xcheck gate: {verdict}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>xcheck gate</h1>\n<p id=\"verdict\" class=\"verdict {}\" data-failed=\"{failed}\" \
         data-checks=\"{}\">{verdict}</p>\n<p>{} not checked.</p>\n",
        if failed > 0 { "diverged" } else { "equivalent" },
        all.len(),
        plural(skipped, "function", "functions")
    );
    for part in parts {
        let _ = write!(
            out,
            "<section>\n<h2>{}</h2>\n<table class=\"rows\">\n<tr><th>function</th><th>verdict</th>\
             <th>paths</th><th>differences</th><th>unknown</th><th>time</th><th>gate</th></tr>\n",
            text(&one_line(&part.title))
        );
        for (row, dir) in &part.rows {
            let gate = match row.gate_word() {
                "FAIL" => "<td class=\"diverged\">FAIL</td>".to_string(),
                "inconclusive" => "<td class=\"unknown\">inconclusive</td>".to_string(),
                word => format!("<td class=\"proved\">{word}</td>"),
            };
            let label = text(&row.label);
            match row.outcome {
                Ok(rep) => {
                    let s = &rep.summary;
                    let overall = overall_name(s.overall);
                    let _ = writeln!(
                        out,
                        "<tr class=\"check\" data-overall=\"{overall}\"><td><a href=\"{}\">{label}</a></td>\
                         <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{gate}</tr>",
                        href(&format!("{dir}/report.html")),
                        s.overall,
                        s.paths,
                        s.diverged + s.errors_one,
                        s.unknown,
                        format_ms(s.wall_time_ms)
                    );
                    // What differs, under the row of a check that failed: its first
                    // counterexample, as the terminal shows it.
                    if let Some(c) = first_counterexample(rep).filter(|_| row.failed) {
                        let _ = writeln!(
                            out,
                            "<tr class=\"counterexample\"><td></td><td colspan=\"6\"><pre>{}</pre></td></tr>",
                            text(
                                &(counterexample_lines(c).lines())
                                    .map(|l| l.strip_prefix("    ").unwrap_or(l))
                                    .collect::<Vec<_>>()
                                    .join("\n")
                            )
                        );
                    }
                }
                Err(e) => {
                    let _ = writeln!(
                        out,
                        "<tr class=\"check\" data-overall=\"error\"><td>{label}</td>\
                         <td colspan=\"5\">ERROR: {}</td>{gate}</tr>",
                        text(e)
                    );
                }
            }
        }
        out.push_str("</table>\n");
        if !part.skipped.is_empty() {
            out.push_str("<p>Not checked:</p>\n<ul>\n");
            for s in part.skipped {
                let _ = writeln!(out, "<li>{}: {}</li>", text(&s.function), text(&s.reason));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }
    out.push_str(
        "<p>Also: <a href=\"summary.md\">summary.md</a>. Each function's directory holds its \
         tests and its reports.</p>\n</body>\n</html>\n",
    );
    out
}

/// Writes `report.html` of a gate run ([`render_gate_html`]) into `dir`, atomically.
pub fn write_gate_html(
    dir: &std::path::Path,
    parts: &[GateSummaryPart<'_>],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    crate::ktest::write_atomic(&dir.join("report.html"), render_gate_html(parts).as_bytes())
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
                counterexample (path 2): n = 5, s = "ab\0"
                  A: ret 7
                  B: ret 8
            f=g          ERROR: no function 'g'  -      -       -         -        -              FAIL

            Not checked:
              h: defined only in A

            2 checked, 2 failed the gate, 1 not checked
        "#]].assert_eq(&text);
    }

    #[test]
    fn annotations_point_at_the_parting_line() {
        for (at, want) in [
            ("B f.c:12 (f)", Some(("f.c", 12))),
            ("A src/f.c:12:7 (f)", Some(("src/f.c", 12))),
            (
                "B strcmp.c:5 (strcmp), called from echo.c:40 (main)",
                Some(("echo.c", 40)),
            ),
            ("B f", None),
            ("the environment", None),
        ] {
            let got = source_line(at);
            assert_eq!(got.as_ref().map(|(f, l)| (f.as_str(), *l)), want, "{at}");
        }
        assert_eq!(workflow_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    // Issue 34: a gate's summary.md links each function's and shows what failed, with the
    // inputs of its first kind's example.
    #[test]
    fn gate_summary_links_every_check_and_shows_what_failed() {
        let mut report = crate::report::tests::sample_report();
        // Its own example: the kind's example in the gate's summary is that of the check's.
        let row = &mut report.rows[1];
        (row.inputs[0].display, row.result_a) = ("9".into(), "ret 11".into());
        let rows = vec![
            (
                GateRow {
                    label: "parse_digit".into(),
                    outcome: Ok(&report),
                    failed: true,
                    accepted: false,
                },
                "parse_digit".to_string(),
            ),
            (
                GateRow {
                    label: "f=g".into(),
                    outcome: Err("no function 'g'"),
                    failed: true,
                    accepted: false,
                },
                "f=g".to_string(),
            ),
        ];
        let skipped = [Skipped {
            function: "h".into(),
            reason: "defined only in A".into(),
        }];
        let parts = [GateSummaryPart {
            title: "a.bc  vs  b.bc".into(),
            rows,
            skipped: &skipped,
        }];
        expect![[r##"
            # xcheck gate: 2 of 2 checks failed the gate

            1 function not checked.

            ## a.bc  vs  b.bc

            | function | verdict | paths | differences | unknown | gate |
            |---|---|--:|--:|--:|---|
            | [parse\_digit](parse_digit/summary.md) | NOT EQUIVALENT | 5 | 2 | 1 | **FAIL** |
            | f=g | ERROR: no function 'g' | - | - | - | **FAIL** |

            Not checked: h (defined only in A).

            ## What failed

            ### parse\_digit: return values differ: 1 row (1 confirmed)

            Example: path 2, [test000001.ktest](parse_digit/test000001.ktest) (confirmed)

            ```text
            n = 9
            s = "ab\0"
            A: ret 11
            B: ret 8
            ```

            … and 1 more kind in [its summary](parse_digit/summary.md).

            ### f=g: could not run

            no function 'g'

            ---

            The gate's page: [report.html](report.html), linking each function's. Each function's directory holds its tests, `report.html`, `report.md` (every path) and `summary.md` (every kind of difference).
        "##]]
        .assert_eq(&render_gate_summary(&parts));
        let html = render_gate_html(&parts);
        assert!(
            html.contains("data-failed=\"2\" data-checks=\"2\">2 of 2 checks failed the gate</p>"),
            "{html}"
        );
        assert!(
            html.contains("<a href=\"parse_digit/report.html\">parse_digit</a>"),
            "{html}"
        );
        assert!(
            html.contains("<td colspan=\"5\">ERROR: no function 'g'</td>"),
            "{html}"
        );
        assert!(html.contains("<li>h: defined only in A</li>"), "{html}");
        assert_eq!(html.matches("class=\"check\"").count(), 2);
    }
}
