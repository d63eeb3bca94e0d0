//! `report.html` (issue 34) as a browser renders it: a real check's page loaded in headless
//! Chromium, its links, its counts against `report.json`, a program's markup shown as text,
//! the lines each side ran on a kind's example with the line where they part, and what
//! differs within the first screen.

use crate::common::{compile_fixture, stderr, stdout, xcheck};
use std::path::Path;
use std::process::Command;

/// The DOM of `page` after headless Chromium loaded it (scripts/install.sh installs
/// `chromium`); `profile` is a fresh directory for the browser's own files.
pub(crate) fn rendered_dom(page: &Path, profile: &Path) -> String {
    let installed = Command::new("chromium").arg("--version").output();
    assert!(
        installed.as_ref().is_ok_and(|o| o.status.success()),
        "chromium is missing: scripts/install.sh installs it (Debian's `chromium`) ({installed:?})"
    );
    let url = format!("file://{}", page.display());
    // `timeout` bounds a browser that hangs; root needs --no-sandbox.
    let o = Command::new("timeout")
        .args([
            "120",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", &url])
        .output()
        .expect("timeout runs chromium");
    assert!(o.status.success(), "chromium: {}", stderr(&o));
    stdout(&o)
}

/// The value of attribute `name` in the first start tag of the DOM that has `marker` in it.
fn attribute(dom: &str, marker: &str, name: &str) -> Option<String> {
    let at = dom.find(marker)?;
    let start = dom[..at].rfind('<')?;
    let tag = &dom[start..start + dom[start..].find('>')?];
    let key = format!(" {name}=\"");
    let from = tag.find(&key)? + key.len();
    Some(tag[from..from + tag[from..].find('"')?].to_string())
}

/// Every start tag of the DOM that has `marker` in it.
fn tags_with<'a>(dom: &'a str, marker: &str) -> Vec<&'a str> {
    dom.match_indices(marker)
        .filter_map(|(at, _)| {
            let start = dom[..at].rfind('<')?;
            Some(&dom[start..at + dom[at..].find('>')?])
        })
        .collect()
}

/// The DOM's links (`href`), each checked to be a relative path to a file in `dir`, or a
/// fragment (`#part-1`) naming an element of the page.
pub(crate) fn links_resolve(dom: &str, dir: &Path) -> Vec<String> {
    let links: Vec<String> = tags_with(dom, "href=\"")
        .iter()
        .map(|tag| {
            let from = tag.find("href=\"").unwrap() + 6;
            let raw = &tag[from..from + tag[from..].find('"').unwrap()];
            html_escape::decode_html_entities(raw).into_owned()
        })
        .collect();
    for link in &links {
        if let Some(id) = link.strip_prefix('#') {
            assert!(
                dom.contains(&format!(" id=\"{id}\"")),
                "{link} names no element"
            );
            continue;
        }
        assert!(!link.contains(':') && !link.starts_with('/'), "{link}");
        assert!(
            dir.join(link).is_file(),
            "{link} is not a file beside {}",
            dir.display()
        );
    }
    links
}

// A difference whose results hold `<script>` and `&amp;`: the page renders with its verdict,
// its counts and kinds are report.json's, every link is a file beside it, and the program's
// markup is text in the DOM, not elements.
#[test]
fn r34_report_html_renders_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("html_a.c", dir.path(), "-O0");
    let b = compile_fixture("html_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "markup",
            "--buffer-size",
            "40",
            "-o",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out");
    let dom = rendered_dom(&out.join("report.html"), &dir.path().join("profile"));

    let verdict = attribute(&dom, "id=\"verdict\"", "data-overall");
    assert_eq!(verdict.as_deref(), Some("diverged"), "{dom}");
    assert!(dom.contains("NOT EQUIVALENT: 1 path differs</p>"), "{dom}");

    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let s = &report["summary"];
    for (attr, field) in [
        ("data-paths", "paths"),
        ("data-proved", "proved"),
        ("data-diverged", "diverged"),
        ("data-errors-both", "errors_both"),
        ("data-errors-one", "errors_one"),
        ("data-unconfirmed", "unconfirmed"),
        ("data-not-replayed", "not_replayed"),
        ("data-unknown", "unknown"),
    ] {
        let shown = attribute(&dom, "id=\"totals\"", attr).unwrap_or_else(|| panic!("{attr}"));
        assert_eq!(shown, s[field].to_string(), "{attr}");
    }
    assert_eq!(s["paths"], 2, "a difference and a proof");
    let classes = s["classes"].as_array().unwrap();
    let kinds = tags_with(&dom, "class=\"kind\"");
    assert_eq!(kinds.len(), classes.len(), "{dom}");
    for (tag, class) in kinds.iter().zip(classes) {
        assert!(
            tag.contains(&format!("data-count=\"{}\"", class["rows"])),
            "{tag} {class}"
        );
    }

    let links = links_resolve(&dom, &out);
    assert!(links.iter().any(|l| l.ends_with(".ktest")), "{links:?}");

    // Each side's coverage over all paths, side by side: the counts of report.json's notes
    // (`coverage A: 8/8 lines …`), each line run marked in the sources (found through the
    // debug information's directory).
    let coverage = dom
        .split("id=\"coverage\"")
        .nth(1)
        .expect("a coverage section");
    let sides = tags_with(coverage, "class=\"side\"");
    assert_eq!(sides.len(), 2, "{dom}");
    let mut hits = 0;
    for (tag, side) in sides.iter().zip(["A", "B"]) {
        let prefix = format!("coverage {side}: ");
        let note = s["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n.as_str()?.strip_prefix(&prefix))
            .next()
            .unwrap_or_else(|| panic!("no {prefix}note: {s}"));
        let (reached, lines) = note.split(' ').next().unwrap().split_once('/').unwrap();
        assert!(tag.contains(&format!("data-side=\"{side}\"")), "{tag}");
        assert!(
            tag.contains(&format!("data-lines=\"{lines}\"")),
            "{tag} {note}"
        );
        assert!(
            tag.contains(&format!("data-reached=\"{reached}\"")),
            "{tag} {note}"
        );
        hits += reached.parse::<usize>().unwrap();
    }
    assert!(hits > 0);
    assert_eq!(tags_with(&dom, "class=\"line hit\"").len(), hits, "{dom}");
    // B's source line where the sides differ is shown, run.
    assert!(dom.contains("out[i] = n == 3 ? '!' : '.';</span>"), "{dom}");

    // The program's markup is text: escaped in the DOM, no element made of it.
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;"),
        "{dom}"
    );
    assert!(!dom.contains("<script"), "{dom}");
}

// A gate run's report.html: one row per function checked, each linking the function's own
// report.html (which a browser renders too), the count of checks that failed the gate.
#[test]
fn r34_gate_report_html_links_every_function() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("gate_old.c", dir.path(), "-O2");
    let b = compile_fixture("gate_new.c", dir.path(), "-O2");
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let o = xcheck(dir.path(), &[a, b, "--all-functions", "-o", "out"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out");
    let dom = rendered_dom(&out.join("report.html"), &dir.path().join("profile"));
    assert_eq!(
        attribute(&dom, "id=\"verdict\"", "data-failed").as_deref(),
        Some("1"),
        "{dom}"
    );
    assert_eq!(
        attribute(&dom, "id=\"verdict\"", "data-checks").as_deref(),
        Some("3")
    );
    assert_eq!(tags_with(&dom, "class=\"check\"").len(), 3, "{dom}");
    let links = links_resolve(&dom, &out);
    for function in ["add_sat", "mix", "parse_digit"] {
        let page = format!("{function}/report.html");
        assert!(links.contains(&page), "{page} not in {links:?}");
        let own = std::fs::read_to_string(out.join(&page)).unwrap();
        links_resolve(&own, &out.join(function));
    }
    assert!(dom.contains("legacy_only: defined only in A"), "{dom}");
    // What differs is on the first screen: the failed check's counterexample under its row.
    let cex = tags_with(&dom, "class=\"counterexample\"");
    assert_eq!(cex.len(), 1, "{dom}");
    assert!(
        dom.contains("counterexample (path 1): c = 58\n  A: returns -1\n  B: returns 10"),
        "{dom}"
    );
    let bottom = first_screen_bottom(
        &out.join("report.html"),
        ".counterexample",
        &dir.path().join("profile"),
    );
    assert!(bottom <= 800.0, "the counterexample ends at {bottom} px");
}

/// Where the bottom of the first element `selector` matches is when `page` is shown in a
/// 1280×800 window (a laptop's first screen), in pixels from the top: headless Chromium
/// loads the page into a frame of a probe page beside it whose script measures it.
fn first_screen_bottom(page: &Path, selector: &str, profile: &Path) -> f64 {
    let probe = page.with_file_name("first-screen-probe.html");
    let name = page.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        &probe,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\">\
             <iframe id=\"f\" src=\"{name}\" style=\"width:1280px;height:800px;border:0\"></iframe>\
             <pre id=\"result\">pending</pre><script>\
             document.getElementById('f').addEventListener('load', function () {{\
               var e = this.contentDocument.querySelector('{selector}');\
               document.getElementById('result').textContent =\
                 e ? 'bottom=' + e.getBoundingClientRect().bottom : 'missing';\
             }});</script></body></html>"
        ),
    )
    .unwrap();
    let url = format!("file://{}", probe.display());
    let o = Command::new("timeout")
        .args([
            "120",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args([
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
        ])
        .args(["--dump-dom", &url])
        .output()
        .expect("timeout runs chromium");
    assert!(o.status.success(), "chromium: {}", stderr(&o));
    std::fs::remove_file(&probe).unwrap();
    let dom = stdout(&o);
    let result = dom
        .split("<pre id=\"result\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap_or_default()
        .to_string();
    result
        .strip_prefix("bottom=")
        .and_then(|b| b.parse().ok())
        .unwrap_or_else(|| panic!("{selector} in {}: {result}", page.display()))
}

// A pair whose sides part at a known line (route_b.c:9, where B counts 1000 as large):
// the kind's example shows each side's source with the lines it ran on that input (A's
// `return -1` and `return 2` not run, though other paths run them), B's line 9 marked as
// where the sides part and linked from the summary; the inputs and both results are on the
// first screen.
#[test]
fn r34_route_marks_the_lines_run_and_the_parting_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = compile_fixture("route_a.c", dir.path(), "-O0");
    let b = compile_fixture("route_b.c", dir.path(), "-O0");
    let o = xcheck(
        dir.path(),
        &[
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            "classify",
            "-o",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = dir.path().join("out");
    let page = out.join("report.html");
    let profile = dir.path().join("profile");
    let dom = rendered_dom(&page, &profile);
    let route = dom
        .split("<details class=\"route\"")
        .nth(1)
        .and_then(|r| r.split("</details>").next())
        .unwrap_or_else(|| panic!("no route: {dom}"));
    let sides: Vec<&str> = route.split("class=\"side\"").skip(1).collect();
    assert_eq!(sides.len(), 2, "{route}");
    let ran = |side: &str| -> Vec<u32> {
        tags_with(side, "class=\"line ran")
            .iter()
            .map(|t| {
                let from = t.find("data-line=\"").unwrap() + 11;
                t[from..from + t[from..].find('"').unwrap()]
                    .parse()
                    .unwrap()
            })
            .collect()
    };
    // x = 1000: A tests x < 0 and x > 1000 and returns 1; B tests negative and x >= 1000
    // and returns 2.
    assert!(sides[0].contains("data-side=\"A\""), "{route}");
    assert_eq!(ran(sides[0]), [4, 6, 8, 9], "{route}");
    assert!(sides[1].contains("data-side=\"B\""), "{route}");
    assert_eq!(ran(sides[1]), [5, 6, 9, 10, 12], "{route}");
    let part = tags_with(route, " part\"");
    assert_eq!(part.len(), 1, "{route}");
    assert!(part[0].contains("data-line=\"9\""), "{}", part[0]);
    assert!(part[0].contains("id=\"part-1\""), "{}", part[0]);
    assert!(
        sides[1].contains(part[0]),
        "the parting line is B's: {route}"
    );
    assert!(
        route.contains("where they part: <a href=\"#part-1\">B route_b.c:9</a>"),
        "{route}"
    );
    // Every path's coverage marks A's line 5 run; the route does not.
    assert!(dom.contains("class=\"line hit\" data-line=\"5\""), "{dom}");
    links_resolve(&dom, &out);

    let bottom = first_screen_bottom(&page, "#kind-1 .sides", &profile);
    assert!(bottom <= 800.0, "the results end at {bottom} px");
}
