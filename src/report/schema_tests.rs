//! Tests of `report.json`'s schema: the shape of the file (a golden file of a report with
//! every optional field), reports written by xcheck read and written back byte for byte,
//! and the model through the file and back.

use super::*;
use crate::report::files::render_json;
use crate::report::tests::{bare_row, sample_report};
use crate::report::{self as model, NativeReplay, Replay};

/// The sample report with every optional field of the file set: a three-way row, native
/// replay, a path, a kind, a parting, undefined behaviour, a shard, a proof, counters and
/// the odd one out.
fn full_report() -> model::Report {
    let mut report = sample_report();
    report.rows[1].native = NativeReplay::Reproduced;
    report.rows[1].path = Some("0110".into());
    report.rows[1].class = Some("return value".into());
    report.rows[1].parts_at = Some("B b.c:7 (f)".into());
    report.rows[2].native = NativeReplay::NotReproduced;
    report.rows[2].three = Some(model::ThreeWay {
        result_c: "ret 0".into(),
        agreement: model::Agreement::BDiffers,
    });
    report.rows.push(model::PathRow {
        undefined: Some("A: signed overflow in add (nsw) at a.c:3".into()),
        three: Some(model::ThreeWay {
            result_c: "ret 1".into(),
            agreement: model::Agreement::AllDiffer,
        }),
        ..bare_row(6, model::PathVerdict::Unknown)
    });
    let s = &mut report.summary;
    s.proof = Some("proved for all inputs (by induction over the loop at a.c:5 / b.c:7)".into());
    s.counters = vec![("backend queries".into(), 9), ("merges".into(), 0)];
    s.shard = Some(model::ShardInfo {
        index: 2,
        count: 3,
        checks: false,
        frontier: 4,
        digest: "0123abcd".into(),
    });
    s.classes = model::divergence_classes(&report.rows);
    s.odd_one_out = model::odd_one_out("a  vs  b  vs  c", &report.rows);
    report
}

// The file's shape: every key, in the order written, and how each value is written. A change
// here is a change of report.json for every reader (`UPDATE_EXPECT=1` to accept one).
#[test]
fn report_json_has_its_shape() {
    let text = render_json(&full_report()).unwrap();
    expect_test::expect_file!["../../tests/data/report-json/golden.json"].assert_eq(&text);
}

// Reports xcheck wrote before the schema had types of its own (a function check, a
// three-way program check with native replay, a shard with paths, a lib run's check
// confirmed natively) read and written back byte for byte; with XCHECK_REPORT_JSON_DIR,
// also every `report.json` under that directory.
#[test]
fn reports_xcheck_wrote_read_and_write_back_unchanged() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-json");
    let mut files: Vec<std::path::PathBuf> = ["function", "three-way", "shard", "native"]
        .iter()
        .map(|name| dir.join(format!("{name}.json")))
        .collect();
    if let Some(more) = std::env::var_os("XCHECK_REPORT_JSON_DIR") {
        let mut todo = vec![std::path::PathBuf::from(more)];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    todo.push(path);
                } else if path.file_name() == Some("report.json".as_ref()) {
                    files.push(path);
                }
            }
        }
    }
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let report = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(render_json(&report).unwrap(), text, "{}", path.display());
    }
    eprintln!("{} report.json files written back unchanged", files.len());
}

// The model through the file and back: every field the file holds comes back; coverage and
// routes (report.html's) are not in the file.
#[test]
fn the_model_round_trips_through_the_file() {
    let mut report = full_report();
    report.summary.coverage = vec![model::SideCoverage {
        side: "A".into(),
        files: Vec::new(),
    }];
    let text = render(&report, true).unwrap();
    let back = parse(&text).unwrap();
    assert_eq!(Report::from(&back), Report::from(&report));
    assert!(back.summary.coverage.is_empty() && back.summary.routes.is_empty());
    // Compact text reads back the same.
    let compact = render(&report, false).unwrap();
    assert!(!compact.contains('\n'));
    assert_eq!(
        Report::from(&parse(&compact).unwrap()),
        Report::from(&report)
    );
    // The typed replays and agreements come back as they were.
    for (a, b) in report.rows.iter().zip(&back.rows) {
        assert_eq!((a.confirmed, a.native), (b.confirmed, b.native));
        assert_eq!(a.three, b.three);
        assert_eq!(a.verdict, b.verdict);
    }
    assert_eq!(back.summary.shard, report.summary.shard);
    assert_eq!(back.summary.overall, report.summary.overall);
}

// What the file says of replays: `confirmed` true, false or null; `native` true, false or
// absent; a three-way row names the odd one out, which reading ignores.
#[test]
fn replays_and_agreements_are_written_as_before() {
    let row = |confirmed, native| {
        let r = model::PathRow {
            confirmed,
            native,
            ..bare_row(1, model::PathVerdict::Diverged)
        };
        serde_json::to_value(PathRow::from(&r)).unwrap()
    };
    let v = row(Replay::NotRun, NativeReplay::NotRun);
    assert_eq!(v["confirmed"], serde_json::Value::Null);
    assert!(v.get("native").is_none());
    let v = row(Replay::Confirmed, NativeReplay::NotReproduced);
    assert_eq!(
        (&v["confirmed"], &v["native"]),
        (&true.into(), &false.into())
    );
    let v = row(Replay::NotConfirmed, NativeReplay::Reproduced);
    assert_eq!(
        (&v["confirmed"], &v["native"]),
        (&false.into(), &true.into())
    );
    for (ab, ac, bc) in [
        (true, true, true),
        (true, false, false),
        (false, true, false),
        (false, false, true),
        (false, false, false),
    ] {
        let a = model::Agreement::of(ab, ac, bc);
        let t = ThreeWay::from(&model::ThreeWay {
            result_c: String::new(),
            agreement: a,
        });
        let v = serde_json::to_value(&t).unwrap();
        assert_eq!(v["agreement"], a.name());
        assert_eq!(v.get("odd").and_then(|o| o.as_str()), a.odd());
        // `odd` is not read: a wrong one does not change the agreement.
        let mut wrong = v.clone();
        wrong["odd"] = "Z".into();
        let back: ThreeWay = serde_json::from_value(wrong).unwrap();
        assert_eq!(model::Agreement::from(back.agreement), a);
    }
}

#[test]
fn verdict_names_are_serdes() {
    use model::PathVerdict as V;
    for v in [
        V::Proved,
        V::Diverged,
        V::ErrorBoth,
        V::ErrorOne,
        V::Unknown,
    ] {
        let json = serde_json::to_value(PathVerdict::from(&v)).unwrap();
        assert_eq!(json, verdict_name(&v));
    }
    assert_eq!(verdict_name(&V::ErrorOne), "error_one");
    let o = serde_json::to_string(&Overall::from(model::Overall::Inconclusive)).unwrap();
    assert_eq!(o, r#""inconclusive""#);
}

// A file xcheck did not write is an error, not a report.
#[test]
fn other_json_is_refused() {
    assert!(parse("{}").is_err());
    assert!(parse(r#"{"summary": 1, "rows": []}"#).is_err());
    let mut v: serde_json::Value =
        serde_json::from_str(&render(&sample_report(), false).unwrap()).unwrap();
    v["rows"][0]["verdict"] = "maybe".into();
    assert!(parse(&v.to_string()).is_err());
}
