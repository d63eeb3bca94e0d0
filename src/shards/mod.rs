//! `xcheck merge DIR… -o OUT`: the output directories of a sharded run (`--shard K/N`)
//! joined into the report, tests and verdict one unsharded run gives.
//!
//! A check's shards each wrote the rows of their part with the rows' paths; the merged rows
//! are every shard's, in path order (the order one run numbers them), their tests copied and
//! renumbered in that order. Counts and the verdict are computed again from the rows as a
//! check computes them (`report::Summary::of_rows`); a shard that stopped early makes the merge
//! incomplete, naming the shard. Shards of a gate run (`--all-functions`, `--config`) each
//! checked whole functions: their directories are copied into OUT and their manifests
//! (`shard.json`, [`GateManifest`]) joined into one gate table (`shards/gate.rs`).

mod gate;

pub use gate::MergedGate;

use crate::error::{Error, Result};
use crate::exec::shard::parse_path;
use crate::ktest::KTest;
use crate::report::{PathRow, Report, ShardInfo, Summary};
use std::path::{Path, PathBuf};

/// What a merge produced.
pub enum Merged {
    /// One check's report (written to OUT with its tests).
    Check(Box<Report>),
    /// A gate run's sections, each function's report read back from OUT.
    Gate(MergedGate),
}

/// Merges the shards in `dirs` into `out` (created; its earlier tests and reports removed),
/// with at most `tests_per_kind` tests per kind of difference (`None`: all), chosen over
/// the merged rows as one run chooses them (the shards of a check write every test).
pub fn merge(dirs: &[PathBuf], out: &Path, tests_per_kind: Option<usize>) -> Result<Merged> {
    if dirs.is_empty() {
        return Err(Error::Usage(
            "give the output directory of every shard".into(),
        ));
    }
    for dir in dirs {
        if same_dir(dir, out) {
            return Err(Error::Usage(format!(
                "{}: the merged output must go to another directory than the shards' (-o)",
                dir.display()
            )));
        }
    }
    if dirs
        .iter()
        .any(|d| d.join(crate::gate::report::MANIFEST).is_file())
    {
        return gate::merge_gate(dirs, out).map(Merged::Gate);
    }
    let shards = dirs
        .iter()
        .map(|d| read_shard(d).map(|(report, info)| (d.as_path(), report, info)))
        .collect::<Result<Vec<_>>>()?;
    check_complete_set(
        &shards
            .iter()
            .map(|(d, _, info)| (*d, info.clone()))
            .collect::<Vec<_>>(),
    )?;
    let title = &shards[0].1.summary.title;
    if let Some((d, r, _)) = shards.iter().find(|(_, r, _)| r.summary.title != *title) {
        return Err(Error::input(
            d.join("report.json"),
            format!(
                "a shard of another check ('{}', not '{title}')",
                r.summary.title
            ),
        ));
    }
    crate::crosscheck::prepare_out_dir(out)?;
    let report = merge_reports(&shards, out, tests_per_kind)?;
    crate::report::write_reports(out, &report).map_err(|e| Error::Output {
        path: out.to_path_buf(),
        source: e,
    })?;
    Ok(Merged::Check(Box::new(report)))
}

/// Whether two paths name the same directory (both existing) or are equal.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Reads `dir/report.json`, which must be a shard's.
fn read_shard(dir: &Path) -> Result<(Report, ShardInfo)> {
    let report = read_report(&dir.join("report.json"))?;
    let info = report.summary.shard.clone().ok_or_else(|| {
        Error::input(
            dir.join("report.json"),
            "not a shard's report (the run had no --shard K/N)",
        )
    })?;
    Ok((report, info))
}

/// Reads a `report.json` that xcheck wrote.
pub(crate) fn read_report(path: &Path) -> Result<Report> {
    let text = crate::input::read_text_limited(path, crate::input::MAX_REPORT_BYTES, "report")
        .map_err(|e| Error::input(path, e.to_string()))?;
    crate::report::schema::parse(&text)
        .map_err(|e| Error::input(path, format!("not a report xcheck wrote ({e})")))
}

/// Checks that `shards` are shards 1 to N of one N, each once, all of the same kind.
fn check_complete_set(shards: &[(&Path, ShardInfo)]) -> Result<()> {
    let count = shards[0].1.count;
    if !(1..=crate::exec::shard::MAX_SHARDS).contains(&count) {
        return Err(Error::input(
            shards[0].0,
            format!("{count} shards: not a count xcheck writes"),
        ));
    }
    let mut seen = vec![None::<&Path>; count as usize];
    for (dir, info) in shards {
        if info.count != count {
            return Err(Error::input(
                *dir,
                format!(
                    "shard {}/{} of a run split into {} shards, not {count}",
                    info.index, info.count, info.count
                ),
            ));
        }
        if info.checks != shards[0].1.checks {
            return Err(Error::input(
                *dir,
                "a shard of a gate run mixed with shards of one check",
            ));
        }
        let slot = seen
            .get_mut(info.index.wrapping_sub(1) as usize)
            .ok_or_else(|| {
                Error::input(*dir, format!("shard {}/{count}: no such shard", info.index))
            })?;
        if let Some(other) = slot {
            return Err(Error::input(
                *dir,
                format!(
                    "shard {}/{count} is given twice (also {})",
                    info.index,
                    other.display()
                ),
            ));
        }
        *slot = Some(dir);
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(k, _)| format!("{}/{count}", k + 1))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "shard {} missing: give the output directory of every shard",
            missing.join(", ")
        )));
    }
    Ok(())
}

/// The merged report of one check's shards; copies their tests into `out` in path order.
fn merge_reports(
    shards: &[(&Path, Report, ShardInfo)],
    out: &Path,
    tests_per_kind: Option<usize>,
) -> Result<Report> {
    let mut keyed: Vec<(Vec<u8>, &Path, &PathRow)> = Vec::new();
    for (dir, report, _) in shards {
        for row in &report.rows {
            let key = row.path.as_deref().and_then(parse_path).ok_or_else(|| {
                Error::input(
                    dir.join("report.json"),
                    format!("row {} has no path (not written by a sharded run)", row.id),
                )
            })?;
            keyed.push((key, dir, row));
        }
    }
    keyed.sort_by(|x, y| x.0.cmp(&y.0));
    // Shards that split different trees may both have explored a path: keep it once.
    keyed.dedup_by(|x, y| x.0 == y.0);
    let mut rows: Vec<PathRow> = keyed
        .iter()
        .enumerate()
        .map(|(i, (_, _, row))| PathRow {
            id: i + 1,
            path: None,
            ..(*row).clone()
        })
        .collect();
    // Of the tests the shards wrote, those one run writes (`--tests-per-kind`).
    let keep = crate::report::tests_to_write(&rows, tests_per_kind);
    let mut tests = 0;
    for ((row, (_, dir, _)), keep) in rows.iter_mut().zip(&keyed).zip(keep) {
        let Some(name) = row.ktest.take().filter(|_| keep) else {
            continue;
        };
        tests += 1;
        let new = crate::ktest::test_file_name(tests);
        copy_test(&dir.join(&name), &out.join(&new))?;
        row.ktest = Some(new);
    }
    let mut report = Report {
        summary: merge_summaries(shards, &rows),
        rows,
    };
    let note = report.unwritten_note(tests_per_kind);
    report.summary.notes.extend(note);
    Ok(report)
}

/// Copies a test, checking that it is one.
pub(crate) fn copy_test(from: &Path, to: &Path) -> Result<()> {
    let test = KTest::read(from).map_err(Error::from)?;
    test.write(to).map_err(|e| Error::Output {
        path: to.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// The summary one run would give for `rows`, from the shards' summaries: counts and the
/// verdict from the rows, work summed, the wall time the longest shard's.
fn merge_summaries(shards: &[(&Path, Report, ShardInfo)], rows: &[PathRow]) -> Summary {
    let first = &shards[0].1.summary;
    let info = |k: usize| &shards[k].2;
    let same_split = shards
        .iter()
        .all(|(_, _, i)| i.digest == info(0).digest && i.frontier == info(0).frontier);
    let complete = same_split && shards.iter().all(|(_, r, _)| r.summary.complete);
    let mut summary = Summary {
        instructions: shards.iter().map(|s| s.1.summary.instructions).sum(),
        queries: shards.iter().map(|s| s.1.summary.queries).sum(),
        solver_time_ms: shards.iter().map(|s| s.1.summary.solver_time_ms).sum(),
        wall_time_ms: shards
            .iter()
            .map(|s| s.1.summary.wall_time_ms)
            .max()
            .unwrap_or(0),
        counters: merge_counters(shards.iter().map(|s| &s.1.summary)),
        ..Summary::of_rows(first.title.clone(), rows, complete)
    };
    let label = |i: &ShardInfo| format!("shard {}/{}", i.index, i.count);
    let stops: Vec<String> = shards
        .iter()
        .filter_map(|(_, r, i)| {
            r.summary
                .stop_reason
                .as_ref()
                .map(|why| format!("{}: {why}", label(i)))
        })
        .collect();
    if !stops.is_empty() {
        summary.stop_reason = Some(stops.join("; "));
    }
    let own: Vec<Summary> = shards
        .iter()
        .map(|(_, r, i)| {
            let mut s = r.summary.clone();
            s.notes.retain(|n| *n != i.note());
            s
        })
        .collect();
    let sums: Vec<(&Summary, String)> = own
        .iter()
        .zip(shards)
        .map(|(s, (_, _, i))| (s, label(i)))
        .collect();
    summary.notes = merge_notes(&sums);
    // Every shard ran the same check: its assumptions are the first shard's.
    summary.assumptions = own
        .first()
        .map(|s| s.assumptions.clone())
        .unwrap_or_default();
    if same_split {
        summary.notes.push(format!(
            "merged from {} shards, split at a frontier of {} states (digest {})",
            shards.len(),
            info(0).frontier,
            info(0).digest
        ));
    } else {
        let splits: Vec<String> = shards
            .iter()
            .map(|(_, _, i)| format!("{}: {} states, digest {}", label(i), i.frontier, i.digest))
            .collect();
        summary.notes.push(format!(
            "the shards split different exploration trees ({}): some paths may be missing, so the run is incomplete (were they all given the same options and inputs?)",
            splits.join("; ")
        ));
    }
    summary
}

/// Notes every summary has, once, in the first one's order; then each summary's own notes,
/// prefixed with its label.
pub(crate) fn merge_notes(summaries: &[(&Summary, String)]) -> Vec<String> {
    let everywhere = |note: &String| summaries.iter().all(|(s, _)| s.notes.contains(note));
    let mut notes: Vec<String> = Vec::new();
    for note in &summaries[0].0.notes {
        if everywhere(note) && !notes.contains(note) {
            notes.push(note.clone());
        }
    }
    for (s, label) in summaries {
        for note in s.notes.iter().filter(|n| !everywhere(n)) {
            notes.push(format!("{label}: {note}"));
        }
    }
    notes
}

/// The counters of several runs: summed by name, in the first one's order (a maximum,
/// named `(max)`, stays the largest).
pub(crate) fn merge_counters<'a>(
    summaries: impl Iterator<Item = &'a Summary>,
) -> Vec<(String, u64)> {
    let mut counters: Vec<(String, u64)> = Vec::new();
    for s in summaries {
        for (name, value) in &s.counters {
            match counters.iter_mut().find(|(n, _)| n == name) {
                Some((_, v)) if name.contains("(max)") => *v = (*v).max(*value),
                Some((_, v)) => *v += value,
                None => counters.push((name.clone(), *value)),
            }
        }
    }
    counters
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(index: u32, count: u32) -> ShardInfo {
        ShardInfo {
            index,
            count,
            checks: false,
            frontier: 8,
            digest: "d".into(),
        }
    }

    #[test]
    fn a_merge_needs_every_shard_once() {
        let p = Path::new("x");
        let set = |infos: Vec<ShardInfo>| {
            let v: Vec<(&Path, ShardInfo)> = infos.into_iter().map(|i| (p, i)).collect();
            check_complete_set(&v)
        };
        assert!(set(vec![info(1, 2), info(2, 2)]).is_ok());
        assert!(set(vec![info(2, 2), info(1, 2)]).is_ok());
        let missing = set(vec![info(1, 3), info(3, 3)]).unwrap_err().to_string();
        assert!(missing.contains("shard 2/3 missing"), "{missing}");
        assert!(set(vec![info(1, 2), info(1, 2)]).is_err());
        assert!(set(vec![info(1, 2), info(2, 3)]).is_err());
        assert!(set(vec![info(1, 2), info(3, 2)]).is_err());
        assert!(set(vec![info(0, 2), info(2, 2)]).is_err());
        // A count no run writes is refused before anything is allocated for it.
        assert!(set(vec![info(1, u32::MAX)]).is_err());
        assert!(set(vec![info(1, 0)]).is_err());
    }

    #[test]
    fn notes_of_every_shard_once_and_the_others_labelled() {
        let mut a = crate::report::tests::sample_report().summary;
        let mut b = a.clone();
        a.notes = vec!["same".into(), "only a".into()];
        b.notes = vec!["only b".into(), "same".into()];
        let notes = merge_notes(&[(&a, "shard 1/2".into()), (&b, "shard 2/2".into())]);
        assert_eq!(
            notes,
            ["same", "shard 1/2: only a", "shard 2/2: only b"].map(String::from)
        );
        a.counters = vec![("queries".into(), 2), ("live states (max)".into(), 5)];
        b.counters = vec![("live states (max)".into(), 7), ("queries".into(), 3)];
        assert_eq!(
            merge_counters([&a, &b].into_iter()),
            vec![("queries".into(), 5), ("live states (max)".into(), 7)]
        );
    }
}
