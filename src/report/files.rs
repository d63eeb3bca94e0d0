//! Saving a [`Report`] as `report.md`, `report.csv`, `report.json`, `summary.md` and
//! `report.html` in an output directory.
//!
//! Each file is written to a temporary file in the same directory and then renamed, so a
//! crash never leaves a half-written report. The CSV has one row per path after a header row,
//! with the inputs joined as `name=display;name=display`. The JSON is the serialized report,
//! pretty-printed (`report/schema.rs`).

use super::html::render_html;
use super::summary::render_summary;
use super::table::render_markdown;
use super::Report;
use crate::ktest::write_atomic;
use std::io;
use std::path::Path;

/// The columns of `report.csv`, in order.
pub const CSV_HEADER: [&str; 12] = [
    "id",
    "verdict",
    "merged_paths",
    "inputs",
    "result_a",
    "result_b",
    "detail",
    "ktest",
    "confirmed",
    "native",
    "result_c",
    "agreement",
];

/// The files [`write_reports`] writes, which a rerun into the same directory replaces.
pub const REPORT_FILES: [&str; 5] = [
    "report.md",
    "report.csv",
    "report.json",
    "summary.md",
    "report.html",
];

/// Writes `report.md`, `report.csv`, `report.json`, `summary.md` and `report.html`
/// ([`REPORT_FILES`]) into `dir`, creating it if needed;
/// each file is rendered and written on a thread of its own (a check's last writing happens
/// just before its time limit: tens of thousands of rows take a second or more in turn).
pub fn write_reports(dir: &Path, report: &Report) -> io::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| with_path(e, dir))?;
    type Render = fn(&Report, &Path) -> io::Result<String>;
    let files: [(&str, Render); 5] = [
        ("report.md", |r, _| Ok(render_markdown(r))),
        ("report.csv", |r, _| render_csv(r)),
        ("report.json", |r, _| render_json(r)),
        ("summary.md", |r, dir| {
            Ok(render_summary(r, &dir.display().to_string()))
        }),
        ("report.html", |r, _| Ok(render_html(r))),
    ];
    std::thread::scope(|scope| {
        let writers: Vec<_> = files
            .iter()
            .map(|&(name, render)| {
                scope.spawn(move || {
                    let path = dir.join(name);
                    let text = render(report, dir).map_err(|e| with_path(e, &path))?;
                    write_atomic(&path, text.as_bytes()).map_err(|e| with_path(e, &path))
                })
            })
            .collect();
        writers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect::<io::Result<Vec<()>>>()
    })?;
    Ok(())
}

/// Renders the rows as CSV: a header row, then one row per path.
///
/// The verdict is the serialized name (`diverged`, `error_one`), `ktest` is empty when no
/// file was written, `confirmed` (concrete replay) and `native` (the native executables)
/// are `true`, `false` or empty. `result_c` and `agreement` (which sides agree, the odd one
/// out) are filled for a three-way check and empty otherwise.
pub fn render_csv(report: &Report) -> io::Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_HEADER)?;
    for row in &report.rows {
        let inputs: Vec<String> = super::table::ordered_inputs(row)
            .iter()
            .map(|i| format!("{}={}", i.name, i.display))
            .collect();
        let verdict = super::schema::verdict_name(&row.verdict);
        let confirmed = row
            .confirmed
            .as_bool()
            .map(|c| c.to_string())
            .unwrap_or_default();
        let native = row
            .native
            .as_bool()
            .map(|c| c.to_string())
            .unwrap_or_default();
        let (result_c, agreement) = row
            .three
            .as_ref()
            .map(|t| (t.result_c.as_str(), t.agreement.name()))
            .unwrap_or_default();
        w.write_record([
            row.id.to_string().as_str(),
            verdict,
            &row.merged_paths.to_string(),
            &inputs.join(";"),
            &row.result_a,
            &row.result_b,
            &row.detail,
            row.ktest.as_deref().unwrap_or(""),
            &confirmed,
            &native,
            result_c,
            agreement,
        ])?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| io::Error::other(e.error().to_string()))?;
    String::from_utf8(bytes).map_err(io::Error::other)
}

/// Rows up to which report.json is pretty-printed; a larger report is written compact
/// (pretty-printing puts every input byte on a line of its own: 28,000 rows of `cat` made
/// 165 MB, and writing it took seconds of the run's time limit).
pub const PRETTY_JSON_ROWS: usize = 2000;

/// Renders the whole report as JSON ending in a newline: pretty-printed up to
/// [`PRETTY_JSON_ROWS`] rows, compact beyond.
pub fn render_json(report: &Report) -> io::Result<String> {
    let mut text = super::schema::render(report, report.rows.len() <= PRETTY_JSON_ROWS)
        .map_err(io::Error::other)?;
    text.push('\n');
    Ok(text)
}

/// Adds the path to an I/O error's message.
fn with_path(e: io::Error, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    #[test]
    fn writes_three_files_and_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("xcheck-out");
        let report = sample_report();
        write_reports(&out, &report).unwrap();
        // A second write replaces the files.
        write_reports(&out, &report).unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "report.csv",
                "report.html",
                "report.json",
                "report.md",
                "summary.md"
            ]
        );
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert_eq!(md, render_markdown(&report));
    }

    #[test]
    fn csv_parses_back_one_row_per_path() {
        let report = sample_report();
        let text = render_csv(&report).unwrap();
        let mut r = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        assert_eq!(header, CSV_HEADER);
        let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        assert_eq!(rows.len(), report.rows.len());
        assert_eq!(
            rows[1].iter().collect::<Vec<_>>(),
            [
                "2",
                "diverged",
                "1",
                "n=5;s=\"ab\\0\"",
                "ret 7",
                "ret 8",
                "return values differ",
                "test000001.ktest",
                "true",
                "",
                "",
                ""
            ]
        );
        assert_eq!(&rows[0][1], "proved");
        assert_eq!(&rows[0][2], "3");
        assert_eq!(&rows[0][8], "");
        assert_eq!(&rows[2][1], "error_one");
        assert_eq!(&rows[2][8], "false");
        assert_eq!(&rows[3][1], "error_both");
    }

    #[test]
    fn json_has_the_summary_fields() {
        let report = sample_report();
        let text = render_json(&report).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let s = &v["summary"];
        assert_eq!(s["title"], "ref.bc:mod  vs  opt.bc:modOpt");
        assert_eq!(s["overall"], "diverged");
        assert_eq!(s["complete"], false);
        assert_eq!(s["paths"], 5);
        assert_eq!(s["proved"], 1);
        assert_eq!(s["diverged"], 1);
        assert_eq!(s["errors_both"], 1);
        assert_eq!(s["errors_one"], 1);
        assert_eq!(s["unknown"], 1);
        assert_eq!(s["instructions"], 12345);
        assert_eq!(s["queries"], 67);
        assert_eq!(s["solver_time_ms"], 250);
        assert_eq!(s["wall_time_ms"], 61_500);
        assert_eq!(s["stop_reason"], "max-time 60s reached");
        assert_eq!(s["notes"].as_array().unwrap().len(), 2);
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 5);
        assert_eq!(rows[1]["verdict"], "diverged");
        assert_eq!(
            rows[1]["inputs"][0]["bytes"],
            serde_json::json!([5, 0, 0, 0])
        );
        assert_eq!(rows[1]["confirmed"], true);
        assert_eq!(rows[0]["ktest"], serde_json::Value::Null);
    }

    #[test]
    fn a_file_in_the_way_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("out");
        std::fs::write(&blocker, "not a directory").unwrap();
        let err = write_reports(&blocker, &sample_report()).unwrap_err();
        assert!(
            err.to_string().contains(&blocker.display().to_string()),
            "{err}"
        );
    }
}
