//! JUnit XML for CI systems: one test case per checked function pair, failed per the
//! `--fail-on` policy.
//!
//! [`render_junit`] turns finished checks into one `<testsuites>` document with one
//! `<testsuite>`: a case the policy fails gets a `<failure>` whose text lists every path that
//! differs (or, for an inconclusive case, every undecided path); an inconclusive case that
//! is not failed is `<skipped>`; an accepted difference passes and keeps its details in
//! `<system-out>`. The output is deterministic (no timestamps or host names), and every
//! string from the report is escaped: the markup characters become entities and characters
//! XML 1.0 forbids (control characters other than tab, line feed and carriage return, and
//! U+FFFE/U+FFFF) are shown as `\u{..}` escapes, so any input gives a well-formed document.

use super::table::{one_line, verdict_sentence};
use super::Overall;
use super::{PathRow, PathVerdict, Report};
use std::fmt::Write as _;
use std::path::Path;

/// Renders finished checks as a JUnit XML document.
///
/// Each case is its test case name (for example `mod` or `a.bc:f vs b.bc:g`), the check's
/// report, and whether the `--fail-on` policy fails it. Times are the reports' wall times in
/// seconds with three decimals; the suite's time is their sum.
pub fn render_junit(suite_name: &str, cases: &[(String, &Report, bool)]) -> String {
    let tests = cases.len();
    let failures = cases.iter().filter(|(_, _, failed)| *failed).count();
    let skipped = cases
        .iter()
        .filter(|(_, r, failed)| !*failed && r.summary.overall == Overall::Inconclusive)
        .count();
    let total_ms = cases.iter().fold(0u64, |t, (_, r, _)| {
        t.saturating_add(r.summary.wall_time_ms)
    });
    let counts = format!(
        "tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\" time=\"{}\"",
        seconds(total_ms)
    );
    let suite = attr(suite_name);

    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"{suite}\" {counts}>");
    let _ = writeln!(out, "  <testsuite name=\"{suite}\" {counts}>");
    for (name, report, failed) in cases {
        render_case(&mut out, name, report, *failed);
    }
    out.push_str("  </testsuite>\n");
    out.push_str("</testsuites>\n");
    out
}

/// Writes a rendered document to `path` atomically (a temporary file renamed over it).
pub fn write_junit(path: &Path, xml: &str) -> std::io::Result<()> {
    crate::ktest::write_atomic(path, xml.as_bytes())
}

fn render_case(out: &mut String, name: &str, report: &Report, failed: bool) {
    let s = &report.summary;
    let _ = write!(
        out,
        "    <testcase classname=\"xcheck\" name=\"{}\" time=\"{}\"",
        attr(name),
        seconds(s.wall_time_ms)
    );
    let verdict = verdict_sentence(s);
    if failed {
        let kind = match s.overall {
            Overall::Diverged => "diverged",
            Overall::Inconclusive => "inconclusive",
            Overall::Equivalent => "failed",
        };
        let _ = writeln!(
            out,
            ">\n      <failure message=\"{}\" type=\"{kind}\">{}</failure>\n    </testcase>",
            attr(&verdict),
            text(&details(report))
        );
    } else if s.overall == Overall::Inconclusive {
        let _ = writeln!(
            out,
            ">\n      <skipped message=\"{}\"/>\n    </testcase>",
            attr(&verdict)
        );
    } else if s.overall == Overall::Diverged {
        let body = format!(
            "{verdict} (not a failure under the --fail-on policy)\n{}",
            details(report)
        );
        let _ = writeln!(
            out,
            ">\n      <system-out>{}</system-out>\n    </testcase>",
            text(&body)
        );
    } else {
        out.push_str("/>\n");
    }
}

/// The text of a failure: what was compared, then each path that explains the verdict.
fn details(report: &Report) -> String {
    let s = &report.summary;
    let mut out = String::new();
    let _ = writeln!(out, "{}", one_line(&s.title));
    // The kinds of difference first, each with its example path: thousands of paths of one
    // behaviour read as one line.
    if s.overall != Overall::Inconclusive && !s.classes.is_empty() {
        out.push_str("differences by kind:\n");
        for c in &s.classes {
            let _ = writeln!(
                out,
                "  {}x {} ({} confirmed), e.g. path {}",
                c.rows,
                one_line(&c.class),
                c.confirmed,
                c.example
            );
            if !c.partings.is_empty() {
                let _ = writeln!(
                    out,
                    "      leaves agreement at {}",
                    super::table::partings_text(&c.partings)
                );
            }
        }
    }
    if let Some(line) = super::table::odd_one_out_line(s) {
        let _ = writeln!(out, "odd one out: {line}");
    }
    let shown = |row: &&PathRow| match s.overall {
        Overall::Inconclusive => row.verdict == PathVerdict::Unknown,
        _ => row.verdict.is_difference(),
    };
    for row in report.rows.iter().filter(shown) {
        let _ = writeln!(out, "path {}: {}", row.id, row.verdict);
        let inputs: Vec<String> = row
            .inputs
            .iter()
            .map(|i| format!("{}={}", i.name, i.display))
            .collect();
        let mut ktest = row.ktest.clone().unwrap_or_default();
        if let (Some(mark), false) = (super::table::confirmation(row), ktest.is_empty()) {
            ktest.push_str(&format!(" ({mark})"));
        }
        let fields = [
            ("inputs", inputs.join(", ")),
            ("A", row.result_a.clone()),
            ("B", row.result_b.clone()),
            (
                "C",
                row.three
                    .as_ref()
                    .map_or_else(String::new, |t| t.result_c.clone()),
            ),
            (
                "agree",
                row.three
                    .as_ref()
                    .map_or_else(String::new, |t| t.agreement.to_string()),
            ),
            ("detail", row.detail.clone()),
            ("ktest", ktest),
        ];
        for (label, value) in fields {
            if !value.is_empty() {
                let _ = writeln!(out, "  {label}: {}", one_line(&value));
            }
        }
    }
    if !s.complete {
        match &s.stop_reason {
            Some(reason) => {
                let _ = writeln!(out, "exploration incomplete: {}", one_line(reason));
            }
            None => out.push_str("exploration incomplete\n"),
        }
    }
    out
}

/// Milliseconds as seconds with three decimals: `61.500`.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Escapes `value` for an attribute value in double quotes; tab and line breaks become
/// character references so that parsers do not normalize them to spaces.
fn attr(value: &str) -> String {
    escape(value, true)
}

/// Escapes `value` for element content.
fn text(value: &str) -> String {
    escape(value, false)
}

fn escape(value: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' if !in_attribute => out.push(c),
            '\t' | '\n' | '\r' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            _ if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;
    use crate::report::{InputValue, Summary};
    use expect_test::expect;

    fn summary(overall: Overall, wall_time_ms: u64) -> Summary {
        Summary {
            title: "a.bc:f  vs  b.bc:f".to_string(),
            overall,
            complete: true,
            paths: 0,
            proved: 0,
            diverged: 0,
            errors_both: 0,
            errors_one: 0,
            unconfirmed: 0,
            not_replayed: 0,
            unknown: 0,
            instructions: 0,
            queries: 0,
            solver_time_ms: 0,
            wall_time_ms,
            stop_reason: None,
            proof: None,
            assumptions: Vec::new(),
            notes: Vec::new(),
            counters: Vec::new(),
            shard: None,
            classes: Vec::new(),
            odd_one_out: Vec::new(),
            coverage: Vec::new(),
            routes: Vec::new(),
        }
    }

    fn proved_row(id: usize) -> PathRow {
        crate::report::tests::bare_row(id, PathVerdict::Proved)
    }

    fn equivalent() -> Report {
        let mut s = summary(Overall::Equivalent, 11);
        s.title = "ref.bc:clamp  vs  opt.bc:clamp".to_string();
        s.paths = 2;
        s.proved = 2;
        Report {
            summary: s,
            rows: vec![proved_row(1), proved_row(2)],
        }
    }

    fn inconclusive() -> Report {
        let mut s = summary(Overall::Inconclusive, 300_000);
        s.title = "ref.bc:hash  vs  opt.bc:hash".to_string();
        s.complete = false;
        s.stop_reason = Some("max-time 5m reached".to_string());
        s.paths = 2;
        s.proved = 1;
        s.unknown = 1;
        let unknown = PathRow {
            verdict: PathVerdict::Unknown,
            detail: "solver timeout".to_string(),
            ..proved_row(2)
        };
        Report {
            summary: s,
            rows: vec![proved_row(1), unknown],
        }
    }

    /// A well-formedness checker for the subset of XML the renderer writes: one declaration,
    /// properly nested elements with quoted attributes, known entities, and only characters
    /// XML 1.0 allows.
    fn check_well_formed(xml: &str) -> Result<(), String> {
        let allowed = |c: char| {
            matches!(c, '\t' | '\n' | '\r')
                || ('\u{20}'..='\u{d7ff}').contains(&c)
                || ('\u{e000}'..='\u{fffd}').contains(&c)
                || c >= '\u{10000}'
        };
        if let Some(c) = xml.chars().find(|&c| !allowed(c)) {
            return Err(format!("character {:?} is not allowed", c));
        }
        let rest = xml
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
            .ok_or("missing declaration")?;
        let check_text = |t: &str| -> Result<(), String> {
            if t.contains('>') {
                return Err(format!("raw '>' in {t:?}"));
            }
            let mut parts = t.split('&');
            parts.next();
            for part in parts {
                let entity = part.split(';').next().unwrap_or("");
                let ok = matches!(entity, "amp" | "lt" | "gt" | "quot" | "apos")
                    || entity
                        .strip_prefix('#')
                        .is_some_and(|n| n.parse::<u32>().is_ok());
                if !ok || !part.contains(';') {
                    return Err(format!("bad entity in {t:?}"));
                }
            }
            Ok(())
        };
        let mut stack: Vec<String> = Vec::new();
        let mut roots = 0;
        let mut rest = rest;
        while let Some(open) = rest.find('<') {
            let before = &rest[..open];
            if stack.is_empty() && !before.trim().is_empty() {
                return Err(format!("text outside the root: {before:?}"));
            }
            check_text(before)?;
            let close = rest[open..].find('>').ok_or("unclosed tag")? + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                if stack.pop().as_deref() != Some(name) {
                    return Err(format!("mismatched </{name}>"));
                }
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let (name, mut attrs) = tag.split_once(' ').unwrap_or((tag, ""));
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad element name {name:?}"));
            }
            while !attrs.trim().is_empty() {
                let (key, value) = attrs
                    .trim_start()
                    .split_once("=\"")
                    .ok_or("bad attribute")?;
                if !key.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(format!("bad attribute name {key:?}"));
                }
                let end = value.find('"').ok_or("unterminated attribute")?;
                let v = &value[..end];
                if v.contains('<') || v.contains(['\t', '\n', '\r']) {
                    return Err(format!("unescaped attribute value {v:?}"));
                }
                check_text(v)?;
                attrs = &value[end + 1..];
            }
            if stack.is_empty() {
                roots += 1;
            }
            if !self_closing {
                stack.push(name.to_string());
            }
        }
        if !rest.trim().is_empty() || !stack.is_empty() || roots != 1 {
            return Err("unbalanced document".to_string());
        }
        Ok(())
    }

    #[test]
    fn exact_document_for_three_cases() {
        let diverged = sample_report();
        let (eq, inc) = (equivalent(), inconclusive());
        let cases = vec![
            ("clamp".to_string(), &eq, false),
            ("ref.bc:mod vs opt.bc:modOpt".to_string(), &diverged, true),
            ("hash".to_string(), &inc, false),
        ];
        let xml = render_junit("xcheck.toml", &cases);
        expect![[r#"
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="xcheck.toml" tests="3" failures="1" errors="0" skipped="1" time="361.511">
              <testsuite name="xcheck.toml" tests="3" failures="1" errors="0" skipped="1" time="361.511">
                <testcase classname="xcheck" name="clamp" time="0.011"/>
                <testcase classname="xcheck" name="ref.bc:mod vs opt.bc:modOpt" time="61.500">
                  <failure message="NOT EQUIVALENT: 2 paths differ" type="diverged">ref.bc:mod  vs  opt.bc:modOpt
            differences by kind:
              1x return values differ (1 confirmed), e.g. path 2
              1x B: division by zero at b.c:12 (0 confirmed), e.g. path 3
            path 2: DIVERGED
              inputs: n=5, s=&quot;ab\0&quot;
              A: ret 7
              B: ret 8
              detail: return values differ
              ktest: test000001.ktest (confirmed)
            path 3: ERROR (one side)
              inputs: n=0
              A: ret 0
              B: division by zero
              detail: B: division by zero at b.c:12
              ktest: test000002.ktest (NOT confirmed)
            exploration incomplete: max-time 60s reached
            </failure>
                </testcase>
                <testcase classname="xcheck" name="hash" time="300.000">
                  <skipped message="INCONCLUSIVE: no difference found, but 1 path is undecided and exploration is incomplete"/>
                </testcase>
              </testsuite>
            </testsuites>
        "#]].assert_eq(&xml);
        check_well_formed(&xml).unwrap();
    }

    #[test]
    fn failed_inconclusive_and_accepted_difference() {
        let inc = inconclusive();
        let mut accepted = sample_report();
        accepted.summary.complete = true;
        accepted.rows.retain(|r| r.verdict == PathVerdict::ErrorOne);
        accepted.summary.diverged = 0;
        let cases = vec![
            ("hash".to_string(), &inc, true),
            ("mod".to_string(), &accepted, false),
        ];
        let xml = render_junit("ci", &cases);
        expect![[r#"
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="ci" tests="2" failures="1" errors="0" skipped="0" time="361.500">
              <testsuite name="ci" tests="2" failures="1" errors="0" skipped="0" time="361.500">
                <testcase classname="xcheck" name="hash" time="300.000">
                  <failure message="INCONCLUSIVE: no difference found, but 1 path is undecided and exploration is incomplete" type="inconclusive">ref.bc:hash  vs  opt.bc:hash
            path 2: unknown
              detail: solver timeout
            exploration incomplete: max-time 5m reached
            </failure>
                </testcase>
                <testcase classname="xcheck" name="mod" time="61.500">
                  <system-out>NOT EQUIVALENT: 1 path differs (not a failure under the --fail-on policy)
            ref.bc:mod  vs  opt.bc:modOpt
            differences by kind:
              1x return values differ (1 confirmed), e.g. path 2
              1x B: division by zero at b.c:12 (0 confirmed), e.g. path 3
            path 3: ERROR (one side)
              inputs: n=0
              A: ret 0
              B: division by zero
              detail: B: division by zero at b.c:12
              ktest: test000002.ktest (NOT confirmed)
            </system-out>
                </testcase>
              </testsuite>
            </testsuites>
        "#]].assert_eq(&xml);
        check_well_formed(&xml).unwrap();
    }

    #[test]
    fn no_cases_is_an_empty_suite() {
        let xml = render_junit("empty", &[]);
        assert!(xml.contains(
            "<testsuite name=\"empty\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.000\">"
        ));
        check_well_formed(&xml).unwrap();
    }

    #[test]
    fn nasty_strings_are_escaped() {
        let nasty = "a&b<c>d\"e'f\tg\nh\ri\u{0}j\u{1b}k\u{7f}l\u{85}m\u{fffe}n\u{ffff}o]]>p😀";
        assert_eq!(
            attr(nasty),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f&#9;g&#10;h&#13;i\\u{0}j\\u{1b}k\\u{7f}l\\u{85}m\\u{fffe}n\\u{ffff}o]]&gt;p😀"
        );
        assert_eq!(
            text(nasty),
            "a&amp;b&lt;c&gt;d&quot;e&apos;f\tg\nh&#13;i\\u{0}j\\u{1b}k\\u{7f}l\\u{85}m\\u{fffe}n\\u{ffff}o]]&gt;p😀"
        );

        let mut report = sample_report();
        report.summary.title = nasty.to_string();
        for row in &mut report.rows {
            row.inputs.push(InputValue {
                name: nasty.to_string(),
                bytes: vec![0, 0xff],
                display: nasty.to_string(),
            });
            row.result_a = nasty.to_string();
            row.result_b = "</failure><x>".to_string();
            row.detail = nasty.to_string();
            row.ktest = Some(nasty.to_string());
        }
        report.summary.stop_reason = Some(nasty.to_string());
        let inc = inconclusive();
        let cases = vec![
            (nasty.to_string(), &report, true),
            (nasty.to_string(), &report, false),
            (nasty.to_string(), &inc, false),
        ];
        let xml = render_junit(nasty, &cases);
        check_well_formed(&xml).unwrap();
        assert!(!xml.contains("<x>"));
        assert!(xml.contains("&lt;/failure&gt;&lt;x&gt;"));
        // Row fields stay on one line inside the failure text.
        assert!(xml.contains("  A: a&amp;b&lt;c&gt;d&quot;e&apos;f\\tg\\nh\\ri\\u{0}j"));
    }

    #[test]
    fn checker_rejects_broken_documents() {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        for bad in [
            "<a><b></a></b>",
            "<a>x & y</a>",
            "<a>x < y</a>",
            "<a x=\"1\"2\"/>",
            "<a>\u{1}</a>",
            "<a/><b/>",
            "<a x=\"a\nb\"/>",
        ] {
            assert!(
                check_well_formed(&format!("{head}{bad}")).is_err(),
                "{bad:?} accepted"
            );
        }
        check_well_formed(&format!("{head}<a x=\"&#10;\"><b/>t&amp;</a>\n")).unwrap();
    }

    #[test]
    fn writes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junit.xml");
        let eq = equivalent();
        let xml = render_junit("s", &[("clamp".to_string(), &eq, false)]);
        write_junit(&path, &xml).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), xml);
    }
}
