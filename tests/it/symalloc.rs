//! Allocation sizes that depend on the input (`malloc(k + 1)`, a variable-length array):
//! the engine takes each feasible size on a path of its own instead of giving up, so a
//! program pair is proved over every size, and a difference at one size is found and
//! reproduces natively.

use crate::common::{repo, stderr, stdout, xcheck};
use std::path::Path;

fn cc(dir: &Path, out: &str, defines: &[&str]) {
    let src = repo().join("tests/fixtures/symalloc.c");
    let mut args = vec!["cc", "-O0", "-g", "-o", out];
    args.extend(defines);
    args.push(src.to_str().unwrap());
    let o = xcheck(dir, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn symbolic_allocation_sizes_are_split_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cc(d, "heap", &[]);
    cc(d, "vla", &["-DVLA"]);
    cc(d, "off", &["-DOFF_BY_ONE"]);
    let run = |a: &str, b: &str, out: &str| {
        let o = xcheck(
            d,
            &[
                &format!("{a}.bc"),
                &format!("{b}.bc"),
                "-j",
                "1",
                "-o",
                out,
                "--sym-stdin",
                "1",
            ],
        );
        (o.status.code(), format!("{}{}", stdout(&o), stderr(&o)))
    };
    let (code, text) = run("heap", "vla", "hv");
    assert_eq!(code, Some(0), "{text}");
    assert!(
        !text.contains("unsupported") && !text.contains("symbolic allocation"),
        "{text}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("hv/report.json")).unwrap()).unwrap();
    let counters = json["summary"]["counters"].as_array().unwrap();
    let splits = counters
        .iter()
        .find(|c| c[0] == "symbolic sizes split by value")
        .and_then(|c| c[1].as_u64())
        .unwrap_or(0);
    // Five sizes on each side: at least four splits per side.
    assert!(splits >= 8, "{counters:?}");

    let (code, text) = run("heap", "off", "ho");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("\"30\\n\"") && text.contains("\"31\\n\""),
        "{text}"
    );
    let native = xcheck(d, &["replay", "ho", "--native", "heap", "off"]);
    assert_eq!(native.status.code(), Some(0), "{}", stdout(&native));
    assert!(stdout(&native).contains("CONFIRMED"), "{}", stdout(&native));
}

/// `free` of a pointer that a select chose: each feasible value is freed on a path of its own
/// (it was unknown: "free of a symbolic pointer"), so the pair is proved on both.
#[test]
fn a_symbolic_pointer_is_freed_one_value_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = repo().join("tests/fixtures/symfree.c");
    let o = xcheck(d, &["cc", "-O1", "-o", "p", src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = xcheck(d, &["p.bc", "p.bc", "-j", "1", "--sym-stdin", "1"]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("proved 2") && !text.contains("unsupported"),
        "{text}"
    );
}
