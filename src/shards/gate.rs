//! Merging the shards of a gate run: every shard checked whole functions (the i-th check of
//! the run belongs to shard `i mod N + 1`), so the merge copies each check's directory into
//! OUT and joins the shards' manifests into the tables, JUnit file and exit code one
//! unsharded gate run gives.

use super::{check_complete_set, copy_test, read_report};
use crate::error::{Error, Result};
use crate::gate::report::{
    render_gate_table, write_gate_html, write_gate_summary, GateEntry, GateManifest, GateRow,
    GateSummaryPart, Skipped, MANIFEST,
};
use crate::report::Report;
use std::path::{Component, Path, PathBuf};

/// A gate run put back together.
pub struct MergedGate {
    pub sections: Vec<MergedSection>,
}

/// One module pair of a merged gate run: every check of every shard, in the run's order.
pub struct MergedSection {
    pub title: String,
    pub skipped: Vec<Skipped>,
    /// Each check with its report (read from OUT) or why it could not run.
    pub checks: Vec<(GateEntry, std::result::Result<Report, String>)>,
}

/// The gate's row of one merged check.
fn row<'a>(e: &GateEntry, outcome: &'a std::result::Result<Report, String>) -> GateRow<'a> {
    GateRow {
        label: e.label.clone(),
        outcome: outcome.as_ref().map_err(String::as_str),
        failed: e.failed,
        accepted: e.accepted,
    }
}

impl MergedGate {
    /// The gate's tables, one per module pair, as a gate run prints them.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (i, s) in self.sections.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let rows: Vec<GateRow<'_>> = s.checks.iter().map(|(e, o)| row(e, o)).collect();
            out.push_str(&render_gate_table(&s.title, &rows, &s.skipped));
        }
        out
    }

    /// Writes the gate's `summary.md` and `report.html` into `out`, as a gate run writes them.
    pub fn write_summary(&self, out: &Path) -> Result<()> {
        let parts: Vec<GateSummaryPart<'_>> = self
            .sections
            .iter()
            .map(|s| GateSummaryPart {
                title: s.title.clone(),
                rows: s
                    .checks
                    .iter()
                    .map(|(e, outcome)| (row(e, outcome), e.dir.clone()))
                    .collect(),
                skipped: &s.skipped,
            })
            .collect();
        write_gate_summary(out, &parts).map_err(|e| Error::Output {
            path: out.join("summary.md"),
            source: e,
        })?;
        write_gate_html(out, &parts).map_err(|e| Error::Output {
            path: out.join("report.html"),
            source: e,
        })
    }

    /// Writes the JUnit file (if asked for) and returns the exit code a gate run gives: 2
    /// when a check could not run, else 1 when one failed the policy, else 0.
    pub fn finish(&self, junit: Option<&Path>) -> Result<i32> {
        let mut cases = Vec::new();
        let (mut any_failed, mut any_error) = (false, false);
        for (i, s) in self.sections.iter().enumerate() {
            for (e, outcome) in &s.checks {
                any_failed |= e.failed;
                match outcome {
                    Ok(report) => cases.push((format!("{}: {}", i + 1, e.label), report, e.failed)),
                    Err(_) => any_error = true,
                }
            }
        }
        if let Some(path) = junit {
            let xml = crate::report::junit::render_junit("xcheck", &cases);
            crate::report::junit::write_junit(path, &xml).map_err(|e| Error::Output {
                path: path.to_path_buf(),
                source: e,
            })?;
        }
        Ok(if any_error { 2 } else { any_failed as i32 })
    }
}

/// Reads a gate shard's manifest.
fn read_manifest(dir: &Path) -> Result<GateManifest> {
    let path = dir.join(MANIFEST);
    let text = crate::input::read_text_limited(&path, crate::input::MAX_REPORT_BYTES, "manifest")
        .map_err(|e| Error::input(&path, e.to_string()))?;
    serde_json::from_str(&text)
        .map_err(|e| Error::input(&path, format!("not a manifest xcheck wrote ({e})")))
}

/// Merges the gate shards in `dirs` into `out`.
pub(super) fn merge_gate(dirs: &[PathBuf], out: &Path) -> Result<MergedGate> {
    let manifests = dirs
        .iter()
        .map(|d| read_manifest(d).map(|m| (d.as_path(), m)))
        .collect::<Result<Vec<_>>>()?;
    let infos: Vec<(&Path, crate::report::ShardInfo)> = manifests
        .iter()
        .map(|(d, m)| (*d, m.shard.clone()))
        .collect();
    check_complete_set(&infos)?;
    let first = &manifests[0].1;
    for (dir, m) in &manifests {
        let titles = |m: &GateManifest| {
            m.sections
                .iter()
                .map(|s| s.title.clone())
                .collect::<Vec<_>>()
        };
        if m.shard.digest != first.shard.digest || titles(m) != titles(first) {
            return Err(Error::input(
                dir.join(MANIFEST),
                "a shard of another gate run (its checks differ from the first shard's)",
            ));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| Error::Output {
        path: out.to_path_buf(),
        source: e,
    })?;
    let mut sections = Vec::new();
    for (k, section) in first.sections.iter().enumerate() {
        let mut entries: Vec<(&Path, &GateEntry)> = manifests
            .iter()
            .flat_map(|(d, m)| m.sections[k].entries.iter().map(move |e| (*d, e)))
            .collect();
        entries.sort_by_key(|(_, e)| e.index);
        let mut checks = Vec::new();
        for (dir, entry) in entries {
            let rel = relative(&entry.dir).ok_or_else(|| {
                Error::input(
                    dir.join(MANIFEST),
                    format!("'{}' is not a directory inside the shard's", entry.dir),
                )
            })?;
            let to = out.join(&rel);
            copy_check(&dir.join(&rel), &to)?;
            let outcome = match &entry.error {
                Some(e) => Err(e.clone()),
                None => Ok(read_report(&to.join("report.json"))?),
            };
            checks.push((entry.clone(), outcome));
        }
        sections.push(MergedSection {
            title: section.title.clone(),
            skipped: section.skipped.clone(),
            checks,
        });
    }
    Ok(MergedGate { sections })
}

/// `dir` as a relative path that stays inside the directory it is joined to.
fn relative(dir: &str) -> Option<PathBuf> {
    let path = PathBuf::from(dir);
    let inside = path.components().count() > 0
        && path.components().all(|c| matches!(c, Component::Normal(_)));
    inside.then_some(path)
}

/// Copies one check's reports and tests from `from` into `to` (emptied of earlier ones).
fn copy_check(from: &Path, to: &Path) -> Result<()> {
    crate::crosscheck::prepare_out_dir(to)?;
    let entries = match std::fs::read_dir(from) {
        Ok(entries) => entries,
        // A check that could not run may have left nothing.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::input(from, e.to_string())),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    // Tests first, then the reports that list them.
    for name in names.iter().filter(|n| n.ends_with(".ktest")) {
        copy_test(&from.join(name), &to.join(name))?;
    }
    for name in crate::report::files::REPORT_FILES {
        let src = from.join(name);
        if !src.is_file() {
            continue;
        }
        let bytes = crate::input::read_limited(&src, crate::input::MAX_REPORT_BYTES, "report")
            .map_err(|e| Error::input(&src, e.to_string()))?;
        let dst = to.join(name);
        crate::ktest::write_atomic(&dst, &bytes).map_err(|e| Error::Output {
            path: dst.clone(),
            source: e,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_directories_stay_inside() {
        assert_eq!(relative("pair1/f"), Some(PathBuf::from("pair1/f")));
        assert_eq!(relative("f"), Some(PathBuf::from("f")));
        assert_eq!(relative("../f"), None);
        assert_eq!(relative("/etc"), None);
        assert_eq!(relative(""), None);
        assert_eq!(relative("a/./b"), Some(PathBuf::from("a/b")));
    }
}
