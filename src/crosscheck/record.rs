//! Nothing found is lost: tests and reports on disk while a check runs.
//!
//! Every worker's driver is wrapped in a [`Recording`] driver, which hands each new row to
//! the check's [`Recorder`]. A row that needs a test gets one at once, in the order found,
//! as `found000001.ktest`, … (each written to a temporary name and renamed). The reports are
//! rewritten (each atomically) at most once per [`FLUSH_INTERVAL`] (and at most a tenth of
//! the time, for long reports) while something new is unwritten, by a thread of the
//! exploration, so that `kill -9` at any moment leaves a directory whose reports list only
//! tests that exist, and every counterexample found more than about a second before (ten
//! times the time one rewrite takes, when that is longer); the tests themselves are all
//! there.
//!
//! When exploration ends, [`Recorder::finish`] numbers the tests in path order (`test000001.
//! ktest`, …: the same whatever `-j` or the exploration order), writes them, then the
//! report, and only then removes the `found` files; a crash between these steps leaves
//! either the interim report with its files or the final one with its own.

use super::rows::RowDriver;
use crate::error::{Error, Result};
use crate::exec::{Driver, Executor, Exit, State};
use crate::ktest::{test_file_name, KTest};
use crate::report::{PathRow, Report, Summary};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How often, at most, the reports are rewritten while the check runs.
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// The prefix of the tests written during the run, before they are numbered in path order.
const FOUND_PREFIX: &str = "found";

/// The name of the `n`th test found during the run (from 1).
fn found_file_name(n: usize) -> String {
    format!("{FOUND_PREFIX}{n:06}.ktest")
}

/// Whether `name` is a test file name this crate writes (`test000001.ktest`,
/// `found000001.ktest`), so that a rerun may remove it.
pub(crate) fn is_test_file_name(name: &str) -> bool {
    [("test", ".ktest"), (FOUND_PREFIX, ".ktest")]
        .iter()
        .any(|(prefix, suffix)| {
            name.len() == prefix.len() + 6 + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
                && name[prefix.len()..prefix.len() + 6]
                    .bytes()
                    .all(|b| b.is_ascii_digit())
        })
}

/// Whether a row gets a test: every row that is not a proof or unknown.
pub(crate) fn needs_test(row: &PathRow) -> bool {
    row.needs_test()
}

/// The test of a row.
pub(crate) type MakeTest<'a> = dyn Fn(&PathRow) -> KTest + Sync + 'a;

/// Writes a check's tests as they are found and its reports as the check goes.
pub(crate) struct Recorder<'a> {
    dir: PathBuf,
    make_test: &'a MakeTest<'a>,
    /// The summary of an interim report, from its rows.
    interim: &'a (dyn Fn(&[PathRow]) -> Summary + Sync + 'a),
    /// The most test files a kind of difference gets (`--tests-per-kind`); `None`: all.
    tests_per_kind: Option<usize>,
    found: Mutex<Found>,
}

#[derive(Default)]
struct Found {
    /// Rows in the order found, with their paths; test rows name their `found` file.
    rows: Vec<(Vec<u8>, PathRow)>,
    /// Tests written so far.
    tests: usize,
    /// Of those, per kind (`PathRow::test_kind`), for `--tests-per-kind`.
    per_kind: std::collections::HashMap<String, usize>,
    /// When the reports were last written, if ever, and how long writing them took.
    flushed: Option<Instant>,
    flush_took: Duration,
    /// Whether rows were found since.
    dirty: bool,
    /// The first failure to write.
    error: Option<Error>,
    /// Whether the final report is written (nothing interim may replace it).
    finished: bool,
    /// The shard this check is (`--shard`): interim reports say so, and give rows paths.
    shard: Option<crate::report::ShardInfo>,
}

impl<'a> Recorder<'a> {
    /// A recorder writing to `dir` (already prepared by `prepare_out_dir`) at most
    /// `tests_per_kind` test files per kind of difference (`None`: every test).
    pub(crate) fn new(
        dir: &Path,
        make_test: &'a MakeTest<'a>,
        interim: &'a (dyn Fn(&[PathRow]) -> Summary + Sync + 'a),
        tests_per_kind: Option<usize>,
    ) -> Self {
        Recorder {
            dir: dir.to_path_buf(),
            make_test,
            interim,
            tests_per_kind,
            found: Mutex::new(Found::default()),
        }
    }

    /// The most test files a kind of difference gets; `None`: all.
    pub(crate) fn tests_per_kind(&self) -> Option<usize> {
        self.tests_per_kind
    }

    /// The directory the tests and reports go to.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The test of a row.
    pub(crate) fn test_of(&self, row: &PathRow) -> KTest {
        (self.make_test)(row)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Found> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes the interim reports a shard's (`--shard`): they name it and give each row its
    /// path, so that `xcheck merge` can use what a killed shard left.
    pub(crate) fn set_shard(&self, info: crate::report::ShardInfo) {
        self.lock().shard = Some(info);
    }

    /// Takes a row a worker just made: writes its test now, if it needs one and its kind
    /// has fewer than `tests_per_kind` tests.
    pub(crate) fn found(&self, key: &[u8], row: &PathRow) {
        let mut row = row.clone();
        let mut found = self.lock();
        let under_cap = needs_test(&row) && {
            let n = found.per_kind.entry(row.test_kind()).or_default();
            *n += 1;
            self.tests_per_kind.is_none_or(|cap| *n <= cap)
        };
        if under_cap {
            found.tests += 1;
            let name = found_file_name(found.tests);
            match write_test(&self.dir, &name, &self.test_of(&row)) {
                Ok(()) => row.ktest = Some(name),
                Err(e) => {
                    found.error.get_or_insert(e);
                }
            }
        }
        found.rows.push((key.to_vec(), row));
        found.dirty = true;
    }

    /// Rewrites the reports if rows were found since the last time and it was at least
    /// [`FLUSH_INTERVAL`] ago (or never).
    pub(crate) fn flush_if_due(&self) {
        let mut found = self.lock();
        // At most once a second, and at most a tenth of the time: the reports of a long run
        // hold thousands of rows, and rewriting them must not take a core from exploring.
        let interval = FLUSH_INTERVAL.max(found.flush_took * 10);
        if found.finished || !found.dirty || found.flushed.is_some_and(|t| t.elapsed() < interval) {
            return;
        }
        let began = Instant::now();
        let mut rows: Vec<(Vec<u8>, PathRow)> = found.rows.clone();
        rows.sort_by(|x, y| x.0.cmp(&y.0));
        let sharded = found.shard.is_some();
        let mut rows: Vec<PathRow> = rows
            .into_iter()
            .map(|(key, mut row)| {
                if sharded {
                    row.path = Some(crate::exec::shard::path_text(&key));
                }
                row
            })
            .collect();
        for (i, row) in rows.iter_mut().enumerate() {
            row.id = i + 1;
        }
        let mut summary = (self.interim)(&rows);
        summary.shard = found.shard.clone();
        let report = Report { summary, rows };
        if let Err(e) = write_reports(&self.dir, &report) {
            found.error.get_or_insert(e);
        }
        found.flushed = Some(Instant::now());
        found.flush_took = began.elapsed();
        found.dirty = false;
    }

    /// Flushes the reports when due until `done` is set (run on a thread of its own);
    /// returns as soon as it is set, so that the end of a check does not wait for it.
    pub(crate) fn flush_until(&self, done: &Done) {
        while !done.wait(Duration::from_millis(50)) {
            self.flush_if_due();
        }
    }

    /// Numbers the tests of the final `rows` (in path order) `test000001.ktest`, … (those
    /// `report::tests_to_write` keeps), writes them and `report` (whose rows are `rows`, changed in place; not when there is no
    /// test, since the caller writes the final report at once), then removes the tests
    /// written while exploring. Returns the paths of the tests.
    pub(crate) fn finish(&self, report: &mut Report) -> Result<(Vec<PathBuf>, Duration)> {
        let mut found = self.lock();
        if let Some(e) = found.error.take() {
            return Err(e);
        }
        // The final rows are the rows found, in path order: a test already on disk gets its
        // final name as a second link (no copy, no second sync: thousands of tests take
        // milliseconds, so a run stopped by its time limit ends within it).
        let mut found_rows: Vec<&(Vec<u8>, PathRow)> = found.rows.iter().collect();
        found_rows.sort_by(|x, y| x.0.cmp(&y.0));
        let on_disk: Vec<Option<&PathRow>> = if found_rows.len() == report.rows.len() {
            found_rows.iter().map(|(_, r)| Some(r)).collect()
        } else {
            vec![None; report.rows.len()]
        };
        let keep = crate::report::tests_to_write(&report.rows, self.tests_per_kind);
        let mut tests = Vec::new();
        for ((row, found_row), keep) in report.rows.iter_mut().zip(on_disk).zip(keep) {
            if !keep {
                row.ktest = None;
                continue;
            }
            let name = test_file_name(tests.len() + 1);
            let path = self.dir.join(&name);
            // The found test is this row's only if it holds the same inputs.
            let same = |f: &PathRow| {
                f.inputs.len() == row.inputs.len()
                    && f.inputs
                        .iter()
                        .zip(&row.inputs)
                        .all(|(x, y)| x.name == y.name && x.bytes == y.bytes)
            };
            let linked = found_row
                .filter(|f| same(f))
                .and_then(|f| f.ktest.as_deref())
                .is_some_and(|f| std::fs::hard_link(self.dir.join(f), &path).is_ok());
            if !linked {
                write_test(&self.dir, &name, &self.test_of(row))?;
            }
            row.ktest = Some(name);
            tests.push(path);
        }
        // With no test to replay the final report follows at once: this one is not written
        // (two synced writes were a third of a small check's time). The interim tests are
        // then none, so none is removed before a report names the final ones.
        let writing = Instant::now();
        if !tests.is_empty() || found.tests > 0 {
            write_reports(&self.dir, report)?;
        }
        let writing = writing.elapsed();
        // The final report is on disk: the interim tests are no longer listed anywhere.
        for n in 1..=found.tests {
            let path = self.dir.join(found_file_name(n));
            if let Err(e) = std::fs::remove_file(&path) {
                if e.kind() != std::io::ErrorKind::NotFound {
                    return Err(Error::Output { path, source: e });
                }
            }
        }
        found.finished = true;
        Ok((tests, writing))
    }
}

/// Writes `ktest` as `dir/name`, atomically.
fn write_test(dir: &Path, name: &str, ktest: &KTest) -> Result<()> {
    let path = dir.join(name);
    ktest.write(&path).map_err(|e| Error::Output {
        path: path.clone(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Writes the report files of `report` into `dir`, each atomically.
pub(crate) fn write_reports(dir: &Path, report: &Report) -> Result<()> {
    crate::report::write_reports(dir, report).map_err(|e| Error::Output {
        path: dir.to_path_buf(),
        source: e,
    })
}

/// A driver that hands every row its inner driver makes to a [`Recorder`].
pub(crate) struct Recording<'r, 'a, D> {
    pub inner: D,
    recorder: Option<&'r Recorder<'a>>,
    /// Rows of `inner` already handed over.
    seen: usize,
}

impl<'r, 'a, D: RowDriver> Recording<'r, 'a, D> {
    pub(crate) fn new(inner: D, recorder: Option<&'r Recorder<'a>>) -> Self {
        Recording {
            inner,
            recorder,
            seen: 0,
        }
    }
}

impl<D: RowDriver> Driver for Recording<'_, '_, D> {
    fn on_exit(&mut self, ex: &mut Executor<'_>, state: State, exit: Exit) -> Option<State> {
        let next = self.inner.on_exit(ex, state, exit);
        if let Some(recorder) = self.recorder {
            let rows = self.inner.rows();
            for (key, row) in rows.since(self.seen) {
                recorder.found(key, row);
            }
            self.seen = rows.rows().len();
        }
        next
    }

    fn tally(&self) -> crate::exec::Tally {
        self.inner.tally()
    }
}

/// Set once when exploration ends; the flushing thread waits on it.
#[derive(Default)]
pub(crate) struct Done {
    set: Mutex<bool>,
    changed: Condvar,
}

impl Done {
    /// Marks exploration ended and wakes the waiting thread.
    pub(crate) fn set(&self) {
        *self.set.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.changed.notify_all();
    }

    /// Waits at most `timeout` for [`Done::set`]; returns whether it was set.
    fn wait(&self, timeout: Duration) -> bool {
        let guard = self.set.lock().unwrap_or_else(|e| e.into_inner());
        let (guard, _) = self
            .changed
            .wait_timeout_while(guard, timeout, |set| !*set)
            .unwrap_or_else(|e| e.into_inner());
        *guard
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names_of_both_kinds_are_recognized() {
        assert!(is_test_file_name("test000001.ktest"));
        assert!(is_test_file_name(&found_file_name(12)));
        assert!(!is_test_file_name("test00001.ktest"));
        assert!(!is_test_file_name("found00000a.ktest"));
        assert!(!is_test_file_name("report.json"));
    }
}
