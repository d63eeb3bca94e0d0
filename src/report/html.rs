//! `report.html`: one self-contained page of a check's report, to open from disk.
//!
//! In order: the title and the verdict (coloured by verdict), the counts and the work, each
//! kind of difference with its example in full (every input, A's and B's results side by
//! side with the characters that differ marked, the test linked, where the sides part, and
//! the two sources side by side with the lines each side ran on that input and the line
//! where they part), the undecided rows with their reasons, what the verdict assumes and the
//! notes, each side's coverage over all paths, and a table of the rows (at most
//! [`HTML_ROWS`]; report.json has them all). What differs is on the first screen. The style is inline and there is no
//! script; links are relative (the tests and the other reports beside the page). Every
//! string is escaped, control characters shown as `\u{…}`: rows hold programs' outputs.
//!
//! Elements a test can find: `id="verdict"` (with `data-overall`), `id="totals"` with the
//! counts as `data-paths`, `data-proved`, `data-diverged`, `data-errors-both`,
//! `data-errors-one`, `data-unconfirmed`, `data-not-replayed`, `data-unknown`, and each kind
//! of difference as `class="kind"` with `data-count` and `data-confirmed`.

use super::table::{confirmation, ordered_inputs, partings_text, plural, summary_lines};
use super::table::{one_line, verdict_sentence};
use super::{DivergenceClass, Overall, PathRow, PathVerdict, Report};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// The most rows the page's table shows; report.json has every row.
pub const HTML_ROWS: usize = 2000;

/// The most undecided rows the page lists one by one (the table shows them too).
pub const HTML_UNDECIDED: usize = 200;

/// How long the character diff of one example's results may take before it settles for a
/// coarser one.
const DIFF_TIME: Duration = Duration::from_millis(200);

/// How long the character diffs of all the kinds' examples may take together: the page is
/// rewritten while a check runs, and a check may find hundreds of kinds. Examples after
/// that show their results unmarked.
const PAGE_DIFF_TIME: Duration = Duration::from_millis(1000);

/// The page's style: light, readable, verdicts in colour.
pub(crate) const STYLE: &str = "
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; word-break: break-all; }
h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; }
.verdict { font-size: 1.8em; font-weight: bold; padding: .3em .6em; border-radius: .3em; }
.verdict.equivalent { background: #dff5e1; color: #17602a; }
.verdict.diverged { background: #fde2e1; color: #9b1c1c; }
.verdict.inconclusive { background: #fff3cd; color: #7a5a00; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: .2em .5em; vertical-align: top; text-align: left; }
th { background: #f4f4f4; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; font: 13px/1.35 ui-monospace, monospace; }
.kind { border: 1px solid #ccc; border-radius: .3em; padding: .3em 1em .8em; margin: 1em 0; }
.sides { display: flex; gap: 1em; }
.sides > div { flex: 1; min-width: 0; }
.sides pre { background: #f8f8f8; padding: .4em; }
del { background: #fbb; text-decoration: none; }
ins { background: #bfb; text-decoration: none; }
.proved { color: #17602a; } .diverged, .error_one { color: #9b1c1c; font-weight: bold; }
.error_both { color: #7a3e00; } .unknown { color: #7a5a00; }
.rows td:first-child { text-align: right; }
.sides { display: flex; gap: 1em; } .side { flex: 1; min-width: 0; overflow-x: auto; }
.line.hit { background: #dfd; } .line.miss { background: #fdd; }
.line.ran { background: #dfd; } .line.skip { color: #999; } .gap { color: #999; }
.line.part { background: #fc6; font-weight: bold; outline: 1px solid #c80; }
details.route > summary { cursor: pointer; margin: .5em 0; }
";

/// Renders `report.html`.
pub fn render_html(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let title = text(&one_line(&s.title));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>xcheck: {title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>xcheck: {title}</h1>\n"
    );
    let _ = writeln!(
        out,
        "<p id=\"verdict\" class=\"verdict {overall}\" data-overall=\"{overall}\">{}</p>",
        text(&verdict_sentence(s)),
        overall = overall_name(s.overall)
    );
    out.push_str(&totals(report));
    // What differs first (the first screen shows the first kind's example), then what the
    // verdict assumes.
    out.push_str(&kinds(report));
    out.push_str(&undecided(&report.rows));
    out.push_str(&list("assumed", "Assumed", &s.assumptions));
    out.push_str(&list("notes", "Notes", &s.notes));
    out.push_str(&coverage(report));
    out.push_str(&rows_table(report));
    out.push_str(
        "<p>Also: <a href=\"report.md\">report.md</a>, <a href=\"report.json\">report.json</a>, \
         <a href=\"report.csv\">report.csv</a>, <a href=\"summary.md\">summary.md</a>.</p>\n\
         </body>\n</html>\n",
    );
    out
}

/// Lines of context shown around a file's lines with code.
const COVERAGE_CONTEXT: u32 = 2;

/// Each side's coverage over all paths, side by side (`id="coverage"`, one
/// `class="side"` per side with `data-side`, `data-lines` and `data-reached`): per file, its
/// source from the first line with code to the last, each line with code marked run
/// (`class="line hit"`) or not (`class="line miss"`); a file that cannot be read is listed
/// by line numbers.
fn coverage(report: &Report) -> String {
    let sides = &report.summary.coverage;
    if sides.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"coverage\">\n<h2>Coverage over all paths</h2>\n<div class=\"sides\">\n",
    );
    for side in sides {
        let lines: usize = side.files.iter().map(|f| f.lines.len()).sum();
        let reached: usize = side.files.iter().map(|f| f.reached.len()).sum();
        let _ = writeln!(
            out,
            "<div class=\"side\" data-side=\"{0}\" data-lines=\"{lines}\" data-reached=\"{reached}\">\n\
             <h3>{0}: {reached} of {lines} lines run</h3>",
            text(&side.side)
        );
        for file in &side.files {
            out.push_str(&file_coverage(file));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n</section>\n");
    out
}

/// One file of a side's coverage: its source around the lines with code, marked.
fn file_coverage(file: &super::FileCoverage) -> String {
    let mut out = format!("<h4>{}</h4>\n", text(&file.file));
    let (Some(&first), Some(&last)) = (file.lines.first(), file.lines.last()) else {
        return out;
    };
    let path = file.path.as_deref().unwrap_or(&file.file);
    let Ok(source) = std::fs::read_to_string(path) else {
        let missed: Vec<String> = (file.lines.iter())
            .filter(|l| file.reached.binary_search(l).is_err())
            .map(u32::to_string)
            .collect();
        let run: Vec<String> = file.reached.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "<p>(source not found) run: lines {}; not run: {}</p>",
            run.join(", "),
            if missed.is_empty() {
                "none".to_string()
            } else {
                format!("lines {}", missed.join(", "))
            }
        );
        return out;
    };
    let from = first.saturating_sub(COVERAGE_CONTEXT).max(1);
    let to = last + COVERAGE_CONTEXT;
    out.push_str("<pre class=\"source\">");
    for (n, line) in (1..).zip(source.lines()) {
        if n < from || n > to {
            continue;
        }
        let class = if file.reached.binary_search(&n).is_ok() {
            "line hit"
        } else if file.lines.binary_search(&n).is_ok() {
            "line miss"
        } else {
            "line"
        };
        let _ = writeln!(
            out,
            "<span class=\"{class}\" data-line=\"{n}\">{n:>4}  {}</span>",
            text(line)
        );
    }
    out.push_str("</pre>\n");
    out
}

/// The counts (as `data-*` attributes too) and the work of the run.
fn totals(report: &Report) -> String {
    let s = &report.summary;
    let counts = [
        ("paths", s.paths),
        ("proved", s.proved),
        ("diverged", s.diverged),
        ("errors-both", s.errors_both),
        ("errors-one", s.errors_one),
        ("unconfirmed", s.unconfirmed),
        ("not-replayed", s.not_replayed),
        ("unknown", s.unknown),
    ];
    let mut out = String::from("<table id=\"totals\"");
    for (name, n) in counts {
        let _ = write!(out, " data-{name}=\"{n}\"");
    }
    out.push_str(">\n");
    for (label, value) in summary_lines(s) {
        let _ = writeln!(out, "<tr><th>{label}</th><td>{}</td></tr>", text(&value));
    }
    out.push_str("</table>\n");
    out
}

/// A section `id` headed `heading` listing `items`; nothing when there are none.
fn list(id: &str, heading: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = format!("<section id=\"{id}\">\n<h2>{heading}</h2>\n<ul>\n");
    for item in items {
        let _ = writeln!(out, "<li>{}</li>", text(item));
    }
    out.push_str("</ul>\n</section>\n");
    out
}

/// Each kind of difference, the largest first, with its example in full.
fn kinds(report: &Report) -> String {
    let classes = &report.summary.classes;
    if classes.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section id=\"kinds\">\n<h2>Differences by kind ({})</h2>\n",
        plural(classes.len(), "kind", "kinds")
    );
    let deadline = Instant::now() + PAGE_DIFF_TIME;
    let mut sources = Sources::default();
    for (k, c) in classes.iter().enumerate() {
        let example = report.rows.iter().find(|r| r.id == c.example);
        out.push_str(&kind(k + 1, c, example, deadline));
        let route = (report.summary.routes.iter()).find(|r| r.row == c.example);
        if let (Some(route), true) = (route, k < HTML_ROUTES) {
            out.push_str(&route_view(k + 1, route, &mut sources));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
    out
}

/// The kind numbered `number`: its count, where its rows part, its example (its results'
/// differences marked until `deadline`).
fn kind(
    number: usize,
    c: &DivergenceClass,
    example: Option<&PathRow>,
    deadline: Instant,
) -> String {
    let mut out = format!(
        "<div class=\"kind\" id=\"kind-{number}\" data-count=\"{}\" data-confirmed=\"{}\">\n\
         <h3>{number}. {}: {} ({} confirmed)</h3>\n",
        c.rows,
        c.confirmed,
        text(&c.class),
        plural(c.rows, "row", "rows"),
        c.confirmed
    );
    // The kind's partings, unless they are the example's one.
    let only_example = matches!(
        (c.partings.as_slice(), example.and_then(|r| r.parts_at.as_ref())),
        ([p], Some(at)) if &p.at == at
    );
    if !c.partings.is_empty() && !only_example {
        let _ = writeln!(
            out,
            "<p>Leaves agreement at {}.</p>",
            text(&partings_text(&c.partings))
        );
    }
    let Some(row) = example else {
        return out;
    };
    let _ = write!(out, "<p>Example: path {}", row.id);
    if let Some(link) = test_link(row) {
        let _ = write!(out, ", {link}");
    }
    if let Some(mark) = confirmation(row) {
        let _ = write!(out, " ({mark})");
    }
    if let Some(at) = &row.parts_at {
        let _ = write!(out, "; the sides part at {}", text(at));
    }
    out.push_str(".</p>\n");
    out.push_str(&inputs_table(row));
    let (a, b) = marked_diff(&row.result_a, &row.result_b, deadline);
    out.push_str("<div class=\"sides\">\n");
    let _ = writeln!(out, "<div><h4>A</h4><pre>{a}</pre></div>");
    let _ = writeln!(out, "<div><h4>B</h4><pre>{b}</pre></div>");
    if let Some(t) = &row.three {
        let _ = writeln!(
            out,
            "<div><h4>C ({})</h4><pre>{}</pre></div>",
            text(&t.agreement.to_string()),
            text(&t.result_c)
        );
    }
    out.push_str("</div>\n");
    out
}

/// The most kinds whose example's route the page shows (report.html stays a page to open).
pub const HTML_ROUTES: usize = 20;

/// The most source lines a route shows per side.
const ROUTE_LINES: usize = 400;

/// Lines of context shown around the lines a route ran.
const ROUTE_CONTEXT: u32 = 1;

/// Source files read for the page, each once (`None`: it cannot be read).
#[derive(Default)]
struct Sources(std::collections::HashMap<String, Option<Vec<String>>>);

impl Sources {
    /// The lines of the file at `path`.
    fn lines(&mut self, path: &str) -> Option<&[String]> {
        self.0
            .entry(path.to_string())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(path).ok()?;
                Some(text.lines().map(str::to_string).collect())
            })
            .as_deref()
    }
}

/// The route of kind `number`'s example (`class="route"`): the two sources side by side
/// (one `class="side"` per side with `data-side` and `data-ran`, its lines run on the
/// input), each line run marked (`class="line ran"`), lines with code it did not run
/// (`class="line skip"`) shown around them, the rest elided; the line where the sides part
/// marked `class="… part"` with `id="part-N"`. The file with that line comes first.
fn route_view(number: usize, route: &super::Route, sources: &mut Sources) -> String {
    let mut out = String::from(
        "<details class=\"route\" open>\n<summary>The lines each side ran on this input",
    );
    if let Some(p) = &route.parting {
        let _ = write!(
            out,
            ", and where they part: <a href=\"#part-{number}\">{} {}:{}</a>",
            text(&p.side),
            text(&p.file),
            p.line
        );
    }
    out.push_str("</summary>\n<div class=\"sides\">\n");
    for side in &route.sides {
        let ran: usize = side.files.iter().map(|f| f.reached.len()).sum();
        let _ = writeln!(
            out,
            "<div class=\"side\" data-side=\"{0}\" data-ran=\"{ran}\">\n<h4>{0}: {1} run</h4>",
            text(&side.side),
            plural(ran, "line", "lines")
        );
        let mark = (route.parting.as_ref()).filter(|p| p.side == side.side);
        let mut files: Vec<&super::FileCoverage> = side
            .files
            .iter()
            .filter(|f| !f.reached.is_empty())
            .collect();
        files.sort_by_key(|f| mark.is_none_or(|m| m.file != f.file));
        let mut budget = ROUTE_LINES;
        for file in files {
            let part = mark.filter(|m| m.file == file.file).map(|m| m.line);
            out.push_str(&route_file(number, file, part, sources, &mut budget));
        }
        out.push_str("</div>\n");
    }
    out.push_str("</div>\n</details>\n");
    out
}

/// One file of a side's route: the lines run with [`ROUTE_CONTEXT`] around them and the
/// line `part`, at most `budget` lines (what is shown is taken off it).
fn route_file(
    number: usize,
    file: &super::FileCoverage,
    part: Option<u32>,
    sources: &mut Sources,
    budget: &mut usize,
) -> String {
    let mut out = format!("<h5>{}</h5>\n", text(&file.file));
    let path = file.path.as_deref().unwrap_or(&file.file);
    let Some(source) = sources.lines(path) else {
        let run: Vec<String> = file.reached.iter().map(u32::to_string).collect();
        let _ = writeln!(
            out,
            "<p>(source not found) run: lines {}</p>",
            run.join(", ")
        );
        if let Some(line) = part {
            let _ = writeln!(
                out,
                "<p class=\"line part\" id=\"part-{number}\" data-line=\"{line}\">the sides part at line {line}</p>"
            );
        }
        return out;
    };
    let near =
        |n: u32| part == Some(n) || (file.reached.iter()).any(|&r| r.abs_diff(n) <= ROUTE_CONTEXT);
    out.push_str("<pre class=\"source\">");
    let mut gap = false;
    for (n, line) in (1..).zip(source) {
        if !near(n) {
            gap = true;
            continue;
        }
        if *budget == 0 {
            out.push_str("<span class=\"gap\">     … (the rest not shown)</span>\n");
            break;
        }
        *budget -= 1;
        if gap {
            out.push_str("<span class=\"gap\">     ⋯</span>\n");
            gap = false;
        }
        let mut class = if file.reached.binary_search(&n).is_ok() {
            "line ran"
        } else if file.lines.binary_search(&n).is_ok() {
            "line skip"
        } else {
            "line"
        }
        .to_string();
        let mut id = String::new();
        let mut note = "";
        if part == Some(n) {
            class.push_str(" part");
            id = format!(" id=\"part-{number}\"");
            note = "   ◀ the sides part here";
        }
        let _ = writeln!(
            out,
            "<span class=\"{class}\"{id} data-line=\"{n}\">{n:>4}  {}{note}</span>",
            text(line)
        );
    }
    out.push_str("</pre>\n");
    out
}

/// A row's inputs as a table of name and value, every one whole, scalars first.
fn inputs_table(row: &PathRow) -> String {
    if row.inputs.is_empty() {
        return "<p>(no inputs)</p>\n".to_string();
    }
    let mut out = String::from("<table class=\"inputs\">\n");
    for input in ordered_inputs(row) {
        let _ = writeln!(
            out,
            "<tr><th>{}</th><td><pre>{}</pre></td></tr>",
            text(&input.name),
            text(&input.display)
        );
    }
    out.push_str("</table>\n");
    out
}

/// A's and B's results, escaped, with the characters only A has in `<del>` and those only
/// B has in `<ins>`; unmarked once `deadline` has passed.
pub(crate) fn marked_diff(a: &str, b: &str, deadline: Instant) -> (String, String) {
    let now = Instant::now();
    if now >= deadline {
        return (text(a), text(b));
    }
    let diff = similar::TextDiff::configure()
        .deadline(deadline.min(now + DIFF_TIME))
        .diff_chars(a, b);
    let (mut left, mut right) = (Marked::default(), Marked::default());
    for change in diff.iter_all_changes() {
        let value = change.value();
        match change.tag() {
            similar::ChangeTag::Equal => {
                left.push(value, None);
                right.push(value, None);
            }
            similar::ChangeTag::Delete => left.push(value, Some("del")),
            similar::ChangeTag::Insert => right.push(value, Some("ins")),
        }
    }
    (left.finish(), right.finish())
}

/// Escaped text with runs of marked characters inside one element each.
#[derive(Default)]
struct Marked {
    out: String,
    open: Option<&'static str>,
}

impl Marked {
    /// Adds `value`, inside a `mark` element when one is given.
    fn push(&mut self, value: &str, mark: Option<&'static str>) {
        if self.open != mark {
            if let Some(tag) = self.open {
                let _ = write!(self.out, "</{tag}>");
            }
            if let Some(tag) = mark {
                let _ = write!(self.out, "<{tag}>");
            }
            self.open = mark;
        }
        self.out.push_str(&text(value));
    }

    fn finish(mut self) -> String {
        self.push("", None);
        self.out
    }
}

/// The undecided rows, each with its reason and inputs: at most [`HTML_UNDECIDED`].
fn undecided(rows: &[PathRow]) -> String {
    let unknown: Vec<&PathRow> = rows
        .iter()
        .filter(|r| r.verdict == PathVerdict::Unknown)
        .collect();
    if unknown.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "<section id=\"undecided\">\n<h2>Undecided ({})</h2>\n<ul>\n",
        plural(unknown.len(), "row", "rows")
    );
    for row in unknown.iter().take(HTML_UNDECIDED) {
        let reason = if row.detail.is_empty() {
            "no reason given"
        } else {
            &row.detail
        };
        let _ = writeln!(
            out,
            "<li class=\"undecided\">path {}: {}{}</li>",
            row.id,
            text(reason),
            if row.inputs.is_empty() {
                String::new()
            } else {
                inputs_table(row)
            }
        );
    }
    out.push_str("</ul>\n");
    if unknown.len() > HTML_UNDECIDED {
        let _ = writeln!(
            out,
            "<p>{} more in the table below and in report.json.</p>",
            plural(
                unknown.len() - HTML_UNDECIDED,
                "undecided row",
                "undecided rows"
            )
        );
    }
    out.push_str("</section>\n");
    out
}

/// Every row (at most [`HTML_ROWS`]): id, verdict, inputs, results, detail, test.
fn rows_table(report: &Report) -> String {
    let rows = &report.rows;
    let three = rows.iter().any(|r| r.three.is_some());
    let mut out = format!(
        "<section id=\"rows\">\n<h2>Every path ({})</h2>\n",
        plural(rows.len(), "row", "rows")
    );
    if rows.is_empty() {
        out.push_str("<p>No path was compared.</p>\n</section>\n");
        return out;
    }
    out.push_str("<table class=\"rows\">\n<tr><th>id</th><th>verdict</th><th>inputs</th>");
    out.push_str("<th>A</th><th>B</th>");
    if three {
        out.push_str("<th>C</th><th>agreement</th>");
    }
    out.push_str("<th>detail</th><th>test</th></tr>\n");
    for row in rows.iter().take(HTML_ROWS) {
        let verdict = super::schema::verdict_name(&row.verdict);
        let inputs: Vec<String> = ordered_inputs(row)
            .iter()
            .map(|i| format!("{} = {}", text(&i.name), text(&i.display)))
            .collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"{verdict}\">{}</td><td><pre>{}</pre></td>\
             <td><pre>{}</pre></td><td><pre>{}</pre></td>",
            row.id,
            text(&row.verdict.to_string()),
            inputs.join("\n"),
            text(&row.result_a),
            text(&row.result_b),
        );
        if three {
            let (c, agreement) = row.three.as_ref().map_or_else(Default::default, |t| {
                (t.result_c.clone(), t.agreement.to_string())
            });
            let _ = write!(
                out,
                "<td><pre>{}</pre></td><td>{}</td>",
                text(&c),
                text(&agreement)
            );
        }
        let mut test = test_link(row).unwrap_or_default();
        if let Some(mark) = confirmation(row) {
            let _ = write!(test, " ({mark})");
        }
        let _ = writeln!(out, "<td>{}</td><td>{test}</td></tr>", text(&row.detail));
    }
    out.push_str("</table>\n");
    if rows.len() > HTML_ROWS {
        let _ = writeln!(
            out,
            "<p>{} more in <a href=\"report.json\">report.json</a>.</p>",
            plural(rows.len() - HTML_ROWS, "row", "rows")
        );
    }
    out.push_str("</section>\n");
    out
}

/// A link to the row's test, when its file was written.
fn test_link(row: &PathRow) -> Option<String> {
    row.ktest
        .as_ref()
        .map(|name| format!("<a href=\"{}\">{}</a>", href(name), text(name)))
}

/// A relative path as an `href` value: bytes other than letters, digits and `-._~/=`
/// percent-encoded (a `:` would make `f::g/report.html` a URL scheme), then escaped for a
/// double-quoted attribute.
pub(crate) fn href(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/=".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    html_escape::encode_double_quoted_attribute(&out).into_owned()
}

/// The verdict's name as `report.json` writes it, also the page's class for its colour.
pub(crate) fn overall_name(overall: Overall) -> &'static str {
    match overall {
        Overall::Equivalent => "equivalent",
        Overall::Diverged => "diverged",
        Overall::Inconclusive => "inconclusive",
    }
}

/// `s` escaped for an element's text, its control characters but newline and tab as
/// `\u{…}` (a NUL or an escape byte is not text a page can show).
pub(crate) fn text(s: &str) -> String {
    let visible: std::borrow::Cow<str> =
        if s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
            s.chars()
                .map(|c| {
                    if c.is_control() && c != '\n' && c != '\t' {
                        format!("\\u{{{:x}}}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect::<String>()
                .into()
        } else {
            s.into()
        };
    html_escape::encode_text(&visible).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use crate::report::Summary;

    // Issue 34: coverage over all paths, per side; a source that cannot be read is listed
    // by its line numbers.
    #[test]
    fn coverage_marks_lines_run_and_lists_unreadable_sources() {
        let mut report = sample_report();
        report.summary.coverage = vec![crate::report::SideCoverage {
            side: "A".into(),
            files: vec![crate::report::FileCoverage {
                file: "gone.c".into(),
                path: Some("/nonexistent/gone.c".into()),
                lines: vec![3, 4, 7],
                reached: vec![3, 7],
            }],
        }];
        let html = render_html(&report);
        assert!(
            html.contains("data-side=\"A\" data-lines=\"3\" data-reached=\"2\""),
            "{html}"
        );
        assert!(
            html.contains("(source not found) run: lines 3, 7; not run: lines 4"),
            "{html}"
        );
        report.summary.coverage.clear();
        assert!(!render_html(&report).contains("id=\"coverage\""));
    }

    #[test]
    fn text_is_escaped_and_control_characters_shown() {
        assert_eq!(
            text("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert('x')&lt;/script&gt; &amp; \"q\""
        );
        assert_eq!(text("a\0b\x1b\nc"), "a\\u{0}b\\u{1b}\nc");
        let mut report = sample_report();
        report.rows[1].result_a = "stdout \"<b>&amp;</b>\"".to_string();
        report.rows[1].inputs[1].display = "\"</pre><script>\"".to_string();
        report.summary.title = "<i>a</i>  vs  b".to_string();
        let html = render_html(&report);
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(!html.contains("<i>"), "{html}");
        assert!(html.contains("&lt;b&gt;&amp;amp;&lt;/b&gt;"), "{html}");
    }

    #[test]
    fn links_are_relative_paths_percent_encoded() {
        assert_eq!(href("test000001.ktest"), "test000001.ktest");
        assert_eq!(href("f=g/report.html"), "f=g/report.html");
        assert_eq!(href("ns::f/a b\"<"), "ns%3A%3Af/a%20b%22%3C");
    }

    #[test]
    fn the_differing_characters_are_marked() {
        let later = Instant::now() + Duration::from_secs(60);
        let (a, b) = marked_diff("ret 17 <x>", "ret 18 <x>", later);
        assert_eq!(a, "ret 1<del>7</del> &lt;x&gt;");
        assert_eq!(b, "ret 1<ins>8</ins> &lt;x&gt;");
        assert_eq!(marked_diff("", "", later), (String::new(), String::new()));
        // Past the page's time for diffs, the results are shown unmarked.
        let past = Instant::now();
        let (a, b) = marked_diff("ret 17", "ret 18 &", past);
        assert_eq!((a.as_str(), b.as_str()), ("ret 17", "ret 18 &amp;"));
    }

    #[test]
    fn the_sample_has_its_counts_kinds_and_links() {
        let report = sample_report();
        let html = render_html(&report);
        assert!(html.contains(
            "<p id=\"verdict\" class=\"verdict diverged\" data-overall=\"diverged\">NOT EQUIVALENT: 2 paths differ</p>"
        ), "{html}");
        assert!(html.contains(
            "<table id=\"totals\" data-paths=\"5\" data-proved=\"1\" data-diverged=\"1\" data-errors-both=\"1\" data-errors-one=\"1\" data-unconfirmed=\"0\" data-not-replayed=\"0\" data-unknown=\"1\">"
        ), "{html}");
        assert_eq!(html.matches("class=\"kind\"").count(), 2);
        assert!(html.contains("data-count=\"1\" data-confirmed=\"1\""));
        assert!(html.contains("<a href=\"test000001.ktest\">test000001.ktest</a> (confirmed)"));
        assert!(
            html.contains("<th>s</th><td><pre>\"ab\\0\"</pre></td>"),
            "{html}"
        );
        assert!(html.contains("<pre>ret <del>7</del></pre>"), "{html}");
        assert!(html.contains("id=\"undecided\""));
        assert!(html.contains("Assumed"));
        assert!(html.contains("'p' points to a buffer of 16 bytes"));
    }

    #[test]
    fn a_report_without_rows_is_a_page() {
        let report = Report {
            summary: Summary::of_rows("a.bc  vs  b.bc".to_string(), &[], true),
            rows: Vec::new(),
        };
        let html = render_html(&report);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.ends_with("</html>\n"));
        assert!(html.contains("class=\"verdict inconclusive\""), "{html}");
        assert!(html.contains("data-paths=\"0\""));
        assert!(html.contains("No path was compared."));
        assert!(!html.contains("class=\"kind\""));
        assert!(!html.contains("id=\"undecided\""));
    }

    // Hundreds of kinds whose examples' results differ all along: the diffs share one
    // budget, so the page (rewritten while a check runs) takes about a second, not minutes.
    #[test]
    fn many_kinds_of_long_results_render_in_bounded_time() {
        let mut report = sample_report();
        let template = report.rows[1].clone();
        let noise = |seed: usize| -> String {
            (0..4000)
                .map(|i| char::from(b'a' + ((i * 7919 + seed * 104_729) % 26) as u8))
                .collect()
        };
        report.rows = (1..=400)
            .map(|id| PathRow {
                id,
                detail: format!("kind {id}"),
                result_a: noise(id),
                result_b: noise(id + 1000),
                ..template.clone()
            })
            .collect();
        report.summary.classes = crate::report::divergence_classes(&report.rows);
        let start = Instant::now();
        let html = render_html(&report);
        let took = start.elapsed();
        assert_eq!(html.matches("class=\"kind\"").count(), 400);
        assert!(took < Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn the_table_is_capped_with_a_note() {
        let mut report = sample_report();
        let template = report.rows[1].clone();
        report.rows = (1..=HTML_ROWS + 7)
            .map(|id| PathRow {
                id,
                ..template.clone()
            })
            .collect();
        let html = render_html(&report);
        assert_eq!(html.matches("<tr><td>").count(), HTML_ROWS);
        assert!(html.contains("<p>7 rows more in <a href=\"report.json\">report.json</a>.</p>"));
    }
}
