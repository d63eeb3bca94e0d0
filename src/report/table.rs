//! Plain-text and Markdown renderings of a [`Report`], for terminals and documents.
//!
//! Both printers are deterministic: the same report always gives the same text, with no
//! timestamps or machine-dependent values. Inputs are never cut: scalars come before
//! buffers, and a terminal wraps them onto more lines of the row ([`INPUTS_WIDTH`]). Other
//! cells longer than [`MAX_CELL`] characters are cut and end in `…`; control characters in
//! cells are shown as escapes (`\n`) so that a value never breaks a line. The Markdown
//! rendering repeats each difference in full.

use super::{format_ms, InputValue, NativeReplay, PathRow, PathVerdict, Replay, Report, Summary};
use std::fmt::Write as _;

/// The widest a table cell gets, in characters, before it is cut.
pub const MAX_CELL: usize = 40;

/// The widest the inputs column of a terminal table gets: longer inputs wrap onto more
/// lines of their row, at the `, ` between two inputs where one fits.
pub const INPUTS_WIDTH: usize = 60;

/// The most characters of a side's result an example of a kind of difference shows (the
/// section of its path in `report.md` has them all).
pub const EXAMPLE_RESULT: usize = 480;

/// Differences that `report.md` repeats in full (with inputs and a diff of the results).
pub const MARKDOWN_DIFFERENCES: usize = 500;

/// Rows a terminal table shows before it keeps only the rows that are not proofs.
pub const TERMINAL_ROWS: usize = 200;

/// Renders the report as an aligned table followed by a summary block.
pub fn render_table(report: &Report) -> String {
    render_table_limited(report, usize::MAX)
}

/// As [`render_table`], but a report with more than `limit` rows shows only its first
/// `limit` rows that are not proofs, and says where the rest are.
pub fn render_table_limited(report: &Report, limit: usize) -> String {
    if report.rows.len() <= limit {
        return render_rows(report, &report.rows.iter().collect::<Vec<_>>(), None);
    }
    let shown: Vec<&PathRow> = report
        .rows
        .iter()
        .filter(|r| r.verdict != PathVerdict::Proved)
        .take(limit)
        .collect();
    let note = format!(
        "({} of {} rows shown: those that are not proofs, in path order; every row is in report.md, report.csv and report.json)\n",
        shown.len(),
        report.rows.len()
    );
    render_rows(report, &shown, Some(note))
}

fn render_rows(report: &Report, shown: &[&PathRow], note: Option<String>) -> String {
    let show_merged = shown.iter().any(|r| r.merged_paths != 1);
    let mut headers = vec!["#", "verdict"];
    if show_merged {
        headers.push("merged");
    }
    headers.extend(["inputs", "A", "B"]);
    let three = report.rows.iter().any(|r| r.three.is_some());
    if three {
        headers.extend(["C", "agree"]);
    }
    headers.extend(["detail", "ktest"]);
    let right: Vec<bool> = headers
        .iter()
        .map(|h| matches!(*h, "#" | "merged"))
        .collect();
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|row| {
            let mut cells = vec![row.id.to_string(), row.verdict.to_string()];
            if show_merged {
                cells.push(row.merged_paths.to_string());
            }
            // The inputs in full, on as many lines as they need.
            cells.push(wrap(&input_texts(row), INPUTS_WIDTH).join("\n"));
            let mut rest = vec![row.result_a.clone(), row.result_b.clone()];
            if three {
                let (c, agree) = three_cells(row);
                rest.extend([c, agree]);
            }
            rest.extend([row.detail.clone(), ktest_cell(row)]);
            cells.extend(rest.iter().map(|c| truncate(&one_line(c))));
            cells
        })
        .collect();

    let mut out = String::new();
    out.push_str(&one_line(&report.summary.title));
    out.push_str("\n\n");
    if report.rows.is_empty() {
        out.push_str("(no paths)\n");
    } else if !rows.is_empty() {
        out.push_str(&align(&headers, &right, &rows));
    }
    if let Some(note) = note {
        out.push_str(&note);
    }
    out.push('\n');
    out.push_str(&classes_block(report, TERMINAL_CLASSES));
    out.push_str(&summary_block(&report.summary));
    out
}

/// The branches where a kind's rows leave agreement, the most common first, with the rows
/// of each: `B wc.c:123 (wc_main) (350×); A getopt.c:80 (getopt) (2×)`.
pub fn partings_text(partings: &[super::Parting]) -> String {
    partings
        .iter()
        .map(|p| format!("{} ({}×)", p.at, p.rows))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Kinds of difference a terminal shows (report.md shows them all).
pub const TERMINAL_CLASSES: usize = 20;

/// The differences by kind, the largest first, each with its count and its simplest
/// confirmed example (inputs, then what each side did): at most `limit` kinds.
fn classes_block(report: &Report, limit: usize) -> String {
    let classes = &report.summary.classes;
    if classes.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "differences by kind ({}):\n",
        plural(classes.len(), "kind", "kinds")
    );
    for c in classes.iter().take(limit) {
        let _ = writeln!(
            out,
            "  {:>7} ({} confirmed)  {}",
            c.rows,
            c.confirmed,
            one_line(&c.class)
        );
        if let Some(row) = report.rows.iter().find(|r| r.id == c.example) {
            let head = format!("            e.g. #{} {}", row.id, ktest_cell(row));
            let _ = writeln!(out, "{}", head.trim_end());
            labelled(&mut out, "inputs", &input_texts(row));
            labelled(
                &mut out,
                "A",
                &[cut(&one_line(&row.result_a), EXAMPLE_RESULT)],
            );
            labelled(
                &mut out,
                "B",
                &[cut(&one_line(&row.result_b), EXAMPLE_RESULT)],
            );
            if let Some(t) = &row.three {
                labelled(
                    &mut out,
                    "C",
                    &[cut(&one_line(&t.result_c), EXAMPLE_RESULT)],
                );
            }
        }
        if !c.partings.is_empty() {
            let _ = writeln!(
                out,
                "            leaves agreement at {}",
                truncate(&partings_text(&c.partings))
            );
        }
    }
    if classes.len() > limit {
        let _ = writeln!(
            out,
            "  … {} more in report.md",
            plural(classes.len() - limit, "kind", "kinds")
        );
    }
    out.push('\n');
    out
}

/// How wide the text of an example's lines in a terminal gets before it wraps.
const EXAMPLE_WIDTH: usize = 72;

/// Writes `label: ` and `parts` wrapped ([`wrap`]) at [`EXAMPLE_WIDTH`], the lines after the
/// first indented under the first.
fn labelled(out: &mut String, label: &str, parts: &[String]) {
    let head = format!("              {label}: ");
    let indent = " ".repeat(head.chars().count());
    for (k, line) in wrap(parts, EXAMPLE_WIDTH).iter().enumerate() {
        let lead = if k == 0 {
            head.as_str()
        } else {
            indent.as_str()
        };
        let _ = writeln!(out, "{}", format!("{lead}{line}").trim_end());
    }
}

/// The parts of a result (`returns …`, `buffer …`, `stdout "…"`), split at the `, ` that
/// are not inside a quoted string.
fn result_parts(s: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    let bytes = s.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            b',' if !quoted && bytes.get(i + 1) == Some(&b' ') => {
                parts.push(&s[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

/// One line per result part; a program's output (`stdout "a\nb\n"`) is shown a line of
/// output per line, so that the diff points at the lines that differ.
fn result_lines(s: &str) -> String {
    let mut out = String::new();
    for part in result_parts(s) {
        let stream = ["stdout \"", "stderr \""]
            .iter()
            .find(|p| part.starts_with(**p) && part.ends_with('"') && part.len() > p.len());
        match stream {
            Some(prefix) => {
                let name = &prefix[..6];
                let body = &part[prefix.len()..part.len() - 1];
                for line in body.split_inclusive("\\n") {
                    out.push_str(&format!("{name}| {line}\n"));
                }
            }
            None => {
                out.push_str(part);
                out.push('\n');
            }
        }
    }
    out
}

/// A unified line diff of two results, one result part (`returns …`, `buffer …`) per line.
fn diff_block(a: &str, b: &str) -> String {
    let lines = result_lines;
    let (a, b) = (lines(a), lines(b));
    let mut text = String::new();
    for change in similar::TextDiff::from_lines(&a, &b).iter_all_changes() {
        let sign = match change.tag() {
            similar::ChangeTag::Delete => "-",
            similar::ChangeTag::Insert => "+",
            similar::ChangeTag::Equal => " ",
        };
        text.push_str(sign);
        text.push_str(change.value());
    }
    let fence = if text.contains("```") { "~~~~" } else { "```" };
    format!("{fence}diff\n{text}{fence}\n")
}

/// Renders the report as Markdown: the summary, a table of every path, then one section per
/// difference with the full inputs and both results.
pub fn render_markdown(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "# xcheck: {}\n", md_escape(&one_line(&s.title)));
    let _ = writeln!(out, "**{}**\n", md_escape(&verdict_sentence(s)));
    for (label, value) in summary_lines(s) {
        let _ = writeln!(out, "- {label}: {}", md_escape(&value));
    }
    if !s.assumptions.is_empty() {
        out.push_str("\nAssumed:\n\n");
        for a in &s.assumptions {
            let _ = writeln!(out, "- {}", md_escape(&one_line(a)));
        }
    }
    if !s.notes.is_empty() {
        out.push_str("\nNotes:\n\n");
        for note in &s.notes {
            let _ = writeln!(out, "- {}", md_escape(&one_line(note)));
        }
    }

    if !s.classes.is_empty() {
        out.push_str("\n## Differences by kind\n\n");
        out.push_str(
            "| rows | confirmed | kind | leaves agreement at | example | inputs | A | B |\n",
        );
        out.push_str("|--:|--:|---|---|---|---|---|---|\n");
        for c in &s.classes {
            let row = report.rows.iter().find(|r| r.id == c.example);
            // The example's inputs in full, its results up to EXAMPLE_RESULT characters.
            let cells = match row {
                Some(row) => [
                    md_escape(&format!("#{} {}", row.id, ktest_cell(row))),
                    md_inputs(row),
                    md_escape(&cut(&one_line(&row.result_a), EXAMPLE_RESULT)),
                    md_escape(&cut(&one_line(&row.result_b), EXAMPLE_RESULT)),
                ],
                None => Default::default(),
            };
            let _ = write!(
                out,
                "| {} | {} | {} | {} |",
                c.rows,
                c.confirmed,
                md_escape(&one_line(&c.class)),
                md_escape(&partings_text(&c.partings))
            );
            for cell in cells {
                let _ = write!(out, " {cell} |");
            }
            out.push('\n');
        }
    }

    out.push_str("\n## Paths\n\n");
    let three = report.rows.iter().any(|r| r.three.is_some());
    if report.rows.is_empty() {
        out.push_str("No paths were explored.\n");
    } else {
        if three {
            out.push_str(
                "| # | verdict | merged | inputs | A | B | C | agree | detail | ktest |\n",
            );
            out.push_str("|--:|---|--:|---|---|---|---|---|---|---|\n");
        } else {
            out.push_str("| # | verdict | merged | inputs | A | B | detail | ktest |\n");
            out.push_str("|--:|---|--:|---|---|---|---|---|\n");
        }
        for row in &report.rows {
            let mut cells = vec![row.result_a.clone(), row.result_b.clone()];
            if three {
                let (c, agree) = three_cells(row);
                cells.extend([c, agree]);
            }
            cells.extend([row.detail.clone(), ktest_cell(row)]);
            let _ = write!(
                out,
                "| {} | {} | {} | {} |",
                row.id,
                row.verdict,
                row.merged_paths,
                md_inputs(row)
            );
            for cell in cells {
                let _ = write!(out, " {} |", md_escape(&truncate(&one_line(&cell))));
            }
            out.push('\n');
        }
    }

    let differences: Vec<&PathRow> = report
        .rows
        .iter()
        .filter(|r| r.verdict.is_difference())
        .collect();
    if !differences.is_empty() {
        out.push_str("\n## Differences\n");
    }
    if differences.len() > MARKDOWN_DIFFERENCES {
        let _ = writeln!(
            out,
            "\nThe first {MARKDOWN_DIFFERENCES} of {} differences, in full; every one is in the table above, report.csv and report.json.",
            differences.len()
        );
    }
    for row in differences.into_iter().take(MARKDOWN_DIFFERENCES) {
        let _ = writeln!(out, "\n### Path {}: {}\n", row.id, row.verdict);
        if !row.detail.is_empty() {
            let _ = writeln!(out, "{}\n", md_escape(&one_line(&row.detail)));
        }
        let mut inputs = String::new();
        for input in ordered_inputs(row) {
            let hex: Vec<String> = input.bytes.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(
                inputs,
                "{} = {}    (bytes: {})",
                input.name,
                input.display,
                if hex.is_empty() {
                    "none".to_string()
                } else {
                    hex.join(" ")
                }
            );
        }
        if inputs.is_empty() {
            inputs.push_str("(no inputs)\n");
        }
        out.push_str("Inputs:\n\n");
        out.push_str(&code_block(&inputs));
        out.push_str("\nA:\n\n");
        out.push_str(&code_block(&row.result_a));
        out.push_str("\nB:\n\n");
        out.push_str(&code_block(&row.result_b));
        if let Some(t) = &row.three {
            out.push_str("\nC:\n\n");
            out.push_str(&code_block(&t.result_c));
            let _ = writeln!(
                out,
                "\nWhich sides agree: {}",
                md_escape(t.agreement.name())
            );
        }
        out.push_str("\nDifference (A → B):\n\n");
        out.push_str(&diff_block(&row.result_a, &row.result_b));
        if let Some(t) = &row.three {
            out.push_str("\nDifference (A → C):\n\n");
            out.push_str(&diff_block(&row.result_a, &t.result_c));
        }
        if let Some(at) = &row.parts_at {
            let _ = writeln!(
                out,
                "\nLeaves agreement at the branch {} (its other direction leads to a path where the sides agree).",
                md_escape(at)
            );
        }
        if row.ktest.is_some() {
            let _ = writeln!(out, "\nTest case: {}", md_escape(&ktest_cell(row)));
        }
    }
    out
}

/// One sentence that gives the overall verdict and its reason.
pub(crate) fn verdict_sentence(s: &Summary) -> String {
    use super::Overall;
    match s.overall {
        Overall::Equivalent => match &s.proof {
            Some(proof) => format!("{}: {proof}", s.overall),
            None => format!("{}: the implementations agree on every path", s.overall),
        },
        Overall::Diverged => {
            let n = s.diverged + s.errors_one;
            if n == 0 {
                format!("{}", s.overall)
            } else {
                let verb = if n == 1 { "differs" } else { "differ" };
                format!("{}: {} {verb}", s.overall, plural(n, "path", "paths"))
            }
        }
        Overall::Inconclusive => {
            let mut why = Vec::new();
            let not_reproduced = s.unconfirmed - s.not_replayed;
            if not_reproduced > 0 {
                why.push(format!(
                    "{} that replay did not confirm",
                    plural(not_reproduced, "path", "paths")
                ));
            }
            if s.not_replayed > 0 {
                why.push(format!(
                    "{} not replayed before the run stopped",
                    plural(s.not_replayed, "path", "paths")
                ));
            }
            if s.unknown > 0 {
                why.push(format!(
                    "{} undecided",
                    plural(s.unknown, "path is", "paths are")
                ));
            }
            if !s.complete {
                why.push("exploration is incomplete".to_string());
            } else if s.paths == 0 {
                why.push("no path was compared".to_string());
            }
            if why.is_empty() {
                format!("{}: no difference found", s.overall)
            } else {
                format!(
                    "{}: no difference found, but {}",
                    s.overall,
                    why.join(" and ")
                )
            }
        }
    }
}

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The summary's facts as label and value pairs, in display order.
pub(crate) fn summary_lines(s: &Summary) -> Vec<(&'static str, String)> {
    let exploration = if s.complete {
        "exploration complete".to_string()
    } else {
        match &s.stop_reason {
            Some(reason) => format!("incomplete: {}", one_line(reason)),
            None => "incomplete".to_string(),
        }
    };
    let mut unconfirmed = String::new();
    if s.unconfirmed > s.not_replayed {
        unconfirmed += &format!(
            ", NOT confirmed by replay {}",
            s.unconfirmed - s.not_replayed
        );
    }
    if s.not_replayed > 0 {
        unconfirmed += &format!(", not replayed {}", s.not_replayed);
    }
    vec![
        ("exploration", exploration),
        (
            "paths",
            format!(
                "{} (proved {}, diverged {}, errors in both {}, errors in one side {}{unconfirmed}, unknown {})",
                s.paths, s.proved, s.diverged, s.errors_both, s.errors_one, s.unknown
            ),
        ),
    ]
    .into_iter()
    .chain(odd_one_out_line(s).map(|l| ("odd one out", l)))
    .chain([
        ("instructions", s.instructions.to_string()),
        ("queries", s.queries.to_string()),
        ("solver time", format_ms(s.solver_time_ms)),
        ("wall time", format_ms(s.wall_time_ms)),
    ])
    .collect()
}

/// A three-way check's count of confirmed differences per odd side: `b.bc differs from
/// a.bc and c.bc on 3 paths; …`.
pub(crate) fn odd_one_out_line(s: &Summary) -> Option<String> {
    if s.odd_one_out.iter().all(|o| o.paths == 0) {
        return None;
    }
    let parts: Vec<String> = s
        .odd_one_out
        .iter()
        .filter(|o| o.paths > 0)
        .map(|o| {
            let others: Vec<&str> = s
                .odd_one_out
                .iter()
                .filter(|x| x.side != o.side)
                .map(|x| x.program.as_str())
                .collect();
            format!(
                "{} ({}) differs from {} on {}",
                o.program,
                o.side,
                others.join(" and "),
                plural(o.paths, "path", "paths")
            )
        })
        .collect();
    Some(parts.join("; "))
}

/// A three-way row's C cell and which sides agree; empty for a two-sided row.
fn three_cells(row: &PathRow) -> (String, String) {
    match &row.three {
        Some(t) => (t.result_c.clone(), t.agreement.to_string()),
        None => Default::default(),
    }
}

fn summary_block(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<13}: {}", "verdict", verdict_sentence(s));
    for (label, value) in summary_lines(s) {
        let _ = writeln!(out, "{label:<13}: {value}");
    }
    if !s.assumptions.is_empty() {
        let _ = writeln!(out, "{:<13}:", "assumed");
        for a in &s.assumptions {
            let _ = writeln!(out, "  - {}", one_line(a));
        }
    }
    if !s.notes.is_empty() {
        let _ = writeln!(out, "{:<13}:", "notes");
        for note in &s.notes {
            let _ = writeln!(out, "  - {}", one_line(note));
        }
    }
    out
}

/// Whether an input is a scalar: a number of at most 16 bytes, not a buffer's quoted bytes
/// or memory with pointer words (`{&s[2], "\0\0"}`).
pub(crate) fn is_scalar(input: &InputValue) -> bool {
    input.bytes.len() <= 16 && !input.display.starts_with(['"', '{'])
}

/// The row's inputs, the scalars first (in their order), then the buffers (in theirs): the
/// lengths and counts that say how much of a buffer matters come before it.
pub(crate) fn ordered_inputs(row: &PathRow) -> Vec<&InputValue> {
    let (mut scalars, buffers): (Vec<&InputValue>, Vec<&InputValue>) =
        row.inputs.iter().partition(|i| is_scalar(i));
    scalars.extend(buffers);
    scalars
}

/// The row's inputs as `name=display`, each on one line, scalars first.
pub(crate) fn input_texts(row: &PathRow) -> Vec<String> {
    ordered_inputs(row)
        .iter()
        .map(|i| one_line(&format!("{}={}", i.name, i.display)))
        .collect()
}

/// The inputs of a Markdown table cell: all of them, one per line (`<br>`), scalars first.
fn md_inputs(row: &PathRow) -> String {
    let parts: Vec<String> = input_texts(row).iter().map(|t| md_escape(t)).collect();
    parts.join("<br>")
}

/// `parts` joined by `, ` in lines of at most `width` characters: a line breaks after the
/// `,` between two parts, and a part longer than a line starts on the line it comes to and
/// goes on in pieces of `width`.
/// Nothing is left out. No parts give one empty line.
pub(crate) fn wrap(parts: &[String], width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let (mut line, mut len) = (String::new(), 0);
    for (k, part) in parts.iter().enumerate() {
        let text = if k + 1 < parts.len() {
            format!("{part},")
        } else {
            part.clone()
        };
        let n = text.chars().count();
        if len > 0 && len + 1 + n <= width {
            line.push(' ');
            line.push_str(&text);
            len += 1 + n;
            continue;
        }
        let mut chars: Vec<char> = text.chars().collect();
        if len > 0 && n > width && len + 2 < width {
            // A part longer than a line starts on this one, after the parts before it.
            let room = width - len - 1;
            line.push(' ');
            line.extend(&chars[..room]);
            chars.drain(..room);
            len = width;
        }
        if len > 0 {
            lines.push(std::mem::take(&mut line));
        }
        let mut pieces = chars.chunks(width).peekable();
        while let Some(piece) = pieces.next() {
            if pieces.peek().is_some() {
                lines.push(piece.iter().collect());
            } else {
                line = piece.iter().collect();
                len = piece.len();
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `text` cut to at most `max` characters, saying how many were left out.
pub(crate) fn cut(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… ({} more characters)", n - max)
}

/// The `.ktest` file name and whether replay confirmed the row.
pub(crate) fn ktest_cell(row: &PathRow) -> String {
    let mut cell = row.ktest.clone().unwrap_or_default();
    let Some(mark) = confirmation(row) else {
        return cell;
    };
    if row.verdict == PathVerdict::Proved && row.ktest.is_none() {
        return cell;
    }
    if cell.is_empty() {
        cell.push_str(mark);
    } else {
        let _ = write!(cell, " ({mark})");
    }
    cell
}

/// Whether replay confirmed the row: in the engine, then natively where it ran.
pub(crate) fn confirmation(row: &PathRow) -> Option<&'static str> {
    Some(match (row.confirmed, row.native) {
        (Replay::NotRun, _) => return None,
        (Replay::NotConfirmed, _) => "NOT confirmed",
        // A row resting on undefined behaviour the executables did not show to differ.
        (Replay::Confirmed, NativeReplay::NotReproduced) if row.verdict == PathVerdict::Unknown => {
            "agrees natively"
        }
        (Replay::Confirmed, NativeReplay::NotReproduced) => "NOT reproduced natively",
        (Replay::Confirmed, NativeReplay::Reproduced) => "confirmed natively",
        (Replay::Confirmed, NativeReplay::NotRun) => "confirmed",
    })
}

/// Replaces control characters with escapes so a cell stays on one line.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Cuts `text` to [`MAX_CELL`] characters, the last being `…` when anything was cut.
fn truncate(text: &str) -> String {
    if text.chars().count() <= MAX_CELL {
        return text.to_string();
    }
    let mut out: String = text.chars().take(MAX_CELL - 1).collect();
    out.push('…');
    out
}

/// Lays out rows under headers, with two spaces between columns and no trailing spaces. A
/// cell holding `\n` takes that many more lines of its row, the other cells empty there.
pub(crate) fn align(headers: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            let widest = cell.split('\n').map(|l| l.chars().count()).max();
            *w = (*w).max(widest.unwrap_or(0));
        }
    }
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut text = String::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                text.push_str("  ");
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            if right[i] {
                text.extend(std::iter::repeat_n(' ', pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut headers.iter().copied());
    let rules: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    line(&mut rules.iter().map(String::as_str));
    for row in rows {
        let cells: Vec<Vec<&str>> = row.iter().map(|c| c.split('\n').collect()).collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            line(&mut cells.iter().map(|c| c.get(k).copied().unwrap_or("")));
        }
    }
    out
}

/// Escapes Markdown's special characters so text shows literally.
pub(crate) fn md_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\`*_[]<>|#~&!".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A fenced code block holding `text` literally, with a fence longer than any backtick run
/// inside it.
pub(crate) fn code_block(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let body = if text.is_empty() { "(nothing)" } else { text };
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("{fence}text\n{body}{newline}{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use crate::report::{InputValue, Overall};
    use expect_test::expect;

    /// Compares text, showing a line diff when it differs.
    #[track_caller]
    #[test]
    fn program_outputs_are_diffed_line_by_line() {
        let text = result_lines("exit 0, stdout \"a, b\\nc\\n\"");
        assert_eq!(text, "exit 0\nstdout| a, b\\n\nstdout| c\\n\n");
        assert_eq!(
            result_parts("returns 1, buffer \"x, \\\"y\""),
            ["returns 1", "buffer \"x, \\\"y\""]
        );
    }

    // A run stopped before it replayed its tests does not call them unreproduced.
    #[test]
    fn differences_not_replayed_are_not_called_unconfirmed() {
        let mut s = sample_report().summary;
        s.overall = Overall::Inconclusive;
        (s.diverged, s.errors_one, s.unconfirmed, s.not_replayed) = (0, 0, 5, 3);
        let lines = summary_lines(&s);
        let paths = &lines.iter().find(|(l, _)| *l == "paths").unwrap().1;
        assert!(
            paths.contains("NOT confirmed by replay 2, not replayed 3"),
            "{paths}"
        );
        let sentence = verdict_sentence(&s);
        assert!(
            sentence.contains("2 paths that replay did not confirm")
                && sentence.contains("3 paths not replayed before the run stopped"),
            "{sentence}"
        );
    }

    #[test]
    fn table_snapshot() {
        expect![[r#"
            ref.bc:mod  vs  opt.bc:modOpt

            #  verdict           merged  inputs         A      B                 detail                                    ktest
            -  ----------------  ------  -------------  -----  ----------------  ----------------------------------------  --------------------------------
            1  proved                 3
            2  DIVERGED               1  n=5, s="ab\0"  ret 7  ret 8             return values differ                      test000001.ktest (confirmed)
            3  ERROR (one side)       1  n=0            ret 0  division by zero  B: division by zero at b.c:12             test000002.ktest (NOT confirmed)
            4  error (both)           1  n=-1           abort  abort             A: abort at a.c:9; B: abort at b.c:4
            5  unknown                1  n=1000000                               unsupported: fadd at a.c:3 (floating po…

            differences by kind (2 kinds):
                    1 (1 confirmed)  return values differ
                        e.g. #2 test000001.ktest (confirmed)
                          inputs: n=5, s="ab\0"
                          A: ret 7
                          B: ret 8
                    1 (0 confirmed)  B: division by zero at b.c:12
                        e.g. #3 test000002.ktest (NOT confirmed)
                          inputs: n=0
                          A: ret 0
                          B: division by zero

            verdict      : NOT EQUIVALENT: 2 paths differ
            exploration  : incomplete: max-time 60s reached
            paths        : 5 (proved 1, diverged 1, errors in both 1, errors in one side 1, unknown 1)
            instructions : 12345
            queries      : 67
            solver time  : 250 ms
            wall time    : 1 min 1.500 s
            assumed      :
              - 'p' points to a buffer of 16 bytes
            notes        :
              - unsupported: fadd at a.c:3
              - options: --max-time 60
        "#]].assert_eq(&render_table(&sample_report()));
    }

    #[test]
    fn a_long_table_keeps_the_rows_that_are_not_proofs() {
        let report = sample_report();
        let proved = report
            .rows
            .iter()
            .filter(|r| r.verdict == PathVerdict::Proved)
            .count();
        assert!(proved > 0 && report.rows.len() > 2);
        let text = render_table_limited(&report, 2);
        assert!(
            text.contains(&format!("(2 of {} rows shown", report.rows.len())),
            "{text}"
        );
        assert!(!text.lines().any(|l| l.contains("  proved  ")), "{text}");
        assert_eq!(render_table_limited(&report, 100), render_table(&report));
    }

    #[test]
    fn table_of_an_equivalent_run() {
        let mut report = sample_report();
        report.rows.truncate(1);
        report.rows[0].merged_paths = 1;
        report.rows.push(PathRow {
            id: 2,
            ..report.rows[0].clone()
        });
        let s = &mut report.summary;
        s.overall = Overall::Equivalent;
        s.complete = true;
        s.stop_reason = None;
        (
            s.paths,
            s.proved,
            s.diverged,
            s.errors_both,
            s.errors_one,
            s.unknown,
        ) = (2, 2, 0, 0, 0, 0);
        s.notes.clear();
        s.wall_time_ms = 1500;
        expect![[r#"
            ref.bc:mod  vs  opt.bc:modOpt

            #  verdict  inputs  A  B  detail  ktest
            -  -------  ------  -  -  ------  -----
            1  proved
            2  proved

            differences by kind (2 kinds):
                    1 (1 confirmed)  return values differ
                        e.g. #2
                          inputs:
                          A:
                          B:
                    1 (0 confirmed)  B: division by zero at b.c:12

            verdict      : EQUIVALENT: the implementations agree on every path
            exploration  : exploration complete
            paths        : 2 (proved 2, diverged 0, errors in both 0, errors in one side 0, unknown 0)
            instructions : 12345
            queries      : 67
            solver time  : 250 ms
            wall time    : 1.500 s
            assumed      :
              - 'p' points to a buffer of 16 bytes
        "#]].assert_eq(&render_table(&report));
    }

    #[test]
    fn inconclusive_sentences() {
        let mut s = sample_report().summary;
        s.overall = Overall::Inconclusive;
        assert_eq!(
            verdict_sentence(&s),
            "INCONCLUSIVE: no difference found, but 1 path is undecided and exploration is incomplete"
        );
        s.unknown = 0;
        assert_eq!(
            verdict_sentence(&s),
            "INCONCLUSIVE: no difference found, but exploration is incomplete"
        );
        s.complete = true;
        s.unknown = 3;
        assert_eq!(
            verdict_sentence(&s),
            "INCONCLUSIVE: no difference found, but 3 paths are undecided"
        );
    }

    #[test]
    fn cells_stay_on_one_line_and_are_cut() {
        let mut report = sample_report();
        report.rows[1].result_a = "line1\nline2\ttab\u{7}".to_string();
        report.rows[1].detail = "é".repeat(100);
        let table = render_table(&report);
        assert!(table.contains("line1\\nline2\\ttab\\u{7}"), "{table}");
        assert!(table.contains(&format!("{}…", "é".repeat(MAX_CELL - 1))));
        assert!(!table.contains(&"é".repeat(MAX_CELL)));
        // Every line of the table has a two-space gap before each column the rule line shows.
        let lines: Vec<Vec<char>> = table
            .lines()
            .skip(2)
            .take(7)
            .map(|l| l.chars().collect())
            .collect();
        let rule = &lines[1];
        let starts: Vec<usize> = (1..rule.len())
            .filter(|&i| rule[i] == '-' && rule[i - 1] == ' ')
            .collect();
        assert_eq!(starts.len(), 7);
        for line in &lines {
            for &start in &starts {
                if start < line.len() {
                    assert_eq!(
                        &line[start - 2..start],
                        [' ', ' '],
                        "{}",
                        String::from_iter(line)
                    );
                }
            }
        }
    }

    #[test]
    fn empty_report() {
        let mut report = sample_report();
        report.rows.clear();
        assert!(render_table(&report).contains("\n(no paths)\n"));
        assert!(render_markdown(&report).contains("No paths were explored."));
    }

    #[test]
    fn markdown_snapshot() {
        let mut report = sample_report();
        report.rows.truncate(3);
        report.rows[2].inputs.push(InputValue {
            name: "code".to_string(),
            bytes: Vec::new(),
            display: "a ``` b".to_string(),
        });
        expect![[r##"
            # xcheck: ref.bc:mod  vs  opt.bc:modOpt

            **NOT EQUIVALENT: 2 paths differ**

            - exploration: incomplete: max-time 60s reached
            - paths: 5 (proved 1, diverged 1, errors in both 1, errors in one side 1, unknown 1)
            - instructions: 12345
            - queries: 67
            - solver time: 250 ms
            - wall time: 1 min 1.500 s

            Assumed:

            - 'p' points to a buffer of 16 bytes

            Notes:

            - unsupported: fadd at a.c:3
            - options: --max-time 60

            ## Differences by kind

            | rows | confirmed | kind | leaves agreement at | example | inputs | A | B |
            |--:|--:|---|---|---|---|---|---|
            | 1 | 1 | return values differ |  | \#2 test000001.ktest (confirmed) | n=5<br>s="ab\\0" | ret 7 | ret 8 |
            | 1 | 0 | B: division by zero at b.c:12 |  | \#3 test000002.ktest (NOT confirmed) | n=0<br>code=a \`\`\` b | ret 0 | division by zero |

            ## Paths

            | # | verdict | merged | inputs | A | B | detail | ktest |
            |--:|---|--:|---|---|---|---|---|
            | 1 | proved | 3 |  |  |  |  |  |
            | 2 | DIVERGED | 1 | n=5<br>s="ab\\0" | ret 7 | ret 8 | return values differ | test000001.ktest (confirmed) |
            | 3 | ERROR (one side) | 1 | n=0<br>code=a \`\`\` b | ret 0 | division by zero | B: division by zero at b.c:12 | test000002.ktest (NOT confirmed) |

            ## Differences

            ### Path 2: DIVERGED

            return values differ

            Inputs:

            ```text
            n = 5    (bytes: 05 00 00 00)
            s = "ab\0"    (bytes: 61 62 00)
            ```

            A:

            ```text
            ret 7
            ```

            B:

            ```text
            ret 8
            ```

            Difference (A → B):

            ```diff
            -ret 7
            +ret 8
            ```

            Test case: test000001.ktest (confirmed)

            ### Path 3: ERROR (one side)

            B: division by zero at b.c:12

            Inputs:

            ````text
            n = 0    (bytes: 00 00 00 00)
            code = a ``` b    (bytes: none)
            ````

            A:

            ```text
            ret 0
            ```

            B:

            ```text
            division by zero
            ```

            Difference (A → B):

            ```diff
            -ret 0
            +division by zero
            ```

            Test case: test000002.ktest (NOT confirmed)
        "##]].assert_eq(&render_markdown(&report));
    }

    // Issue 34: a buffer listed first and cut at 40 characters hid the scalars and the bytes
    // that differ. Every format shows the inputs whole, scalars first.
    #[test]
    fn inputs_are_whole_and_scalars_come_first() {
        let mut report = sample_report();
        let long = format!("\"{}\"", "xy".repeat(70));
        report.rows[1].inputs.insert(
            0,
            InputValue {
                name: "buf".to_string(),
                bytes: vec![b'x'; 140],
                display: long.clone(),
            },
        );
        report.summary.classes = crate::report::divergence_classes(&report.rows);
        let md = render_markdown(&report);
        let cell = format!("n=5<br>buf={long}<br>s=\"ab\\\\0\"");
        assert_eq!(md.matches(&cell).count(), 2, "{md}");
        let whole = format!("n=5, buf={long}, s=\"ab\\0\"");
        let table = render_table(&report);
        let pieces = wrap(&input_texts(&report.rows[1]), INPUTS_WIDTH);
        assert!(pieces[0].starts_with("n=5, buf=\"xy"), "{pieces:?}");
        // Nothing is left out (the only spaces are those wrapping moves).
        let bare = |t: &str| t.replace(' ', "");
        assert_eq!(bare(&pieces.concat()), bare(&whole));
        for piece in &pieces {
            assert!(piece.chars().count() <= INPUTS_WIDTH);
            assert!(table.contains(piece.as_str()), "{piece} not in {table}");
        }
        // The kind's example lists them too, wrapped under `inputs: `.
        let example: Vec<&str> = table
            .lines()
            .skip_while(|l| !l.contains("inputs: "))
            .take_while(|l| !l.trim_start().starts_with("A: "))
            .map(|l| l.trim_start().trim_start_matches("inputs: "))
            .collect();
        assert_eq!(bare(&example.concat()), bare(&whole));
    }

    #[test]
    fn wrapping_breaks_between_parts_and_splits_long_ones() {
        let parts = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(wrap(&parts(&[]), 10), [""]);
        assert_eq!(wrap(&parts(&["a=1", "b=2"]), 10), ["a=1, b=2"]);
        assert_eq!(wrap(&parts(&["a=1", "b=2"]), 6), ["a=1,", "b=2"]);
        assert_eq!(
            wrap(&parts(&["a=1", "s=abcdefghij"]), 6),
            ["a=1,", "s=abcd", "efghij"]
        );
        assert_eq!(
            wrap(&parts(&["a=1", "s=abcdefghij"]), 8),
            ["a=1, s=a", "bcdefghi", "j"]
        );
        assert_eq!(cut("abcdef", 4), "abcd… (2 more characters)");
        assert_eq!(cut("abc", 4), "abc");
    }

    #[test]
    fn markdown_escapes_table_breakers() {
        assert_eq!(md_escape("a|b*c_d<e>"), "a\\|b\\*c\\_d\\<e\\>");
        assert_eq!(code_block(""), "```text\n(nothing)\n```\n");
    }
}
