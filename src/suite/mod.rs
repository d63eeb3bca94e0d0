//! `xcheck suite DIR`: crosschecks every utility of a suite, as the KLEE paper did for
//! BusyBox against GNU coreutils, under one set of environment options, with one table.
//!
//! DIR holds whole programs named `IMPL-UTIL.bc` with their native executables `IMPL-UTIL`
//! beside them, as `scripts/build-utils.sh` writes them (`busybox-tee.bc`,
//! `coreutils-tee.bc`, `toybox-tee.bc`). Every implementation but the reference (`--against`,
//! coreutils by default) is checked against it, utility by utility, where both exist.
//!
//! Each check runs as a child process of this binary (`xcheck A.bc B.bc -o OUT/...` with the
//! options after `--`): a check that runs out of memory or crashes costs its own row, not
//! the suite, and every check keeps its own limits. `-j N` checks run at once. Each check
//! replays what it found on the native executables itself (within its own limit); the row
//! says how many differences ran natively and how many reproduced. A stop (Ctrl-C,
//! SIGTERM) is passed on to the running checks, which stop as at a limit and write their
//! reports; no further check starts, and the table is written with what ran.
//!
//! With `--three`, a utility that the reference and exactly two other implementations
//! provide gets one three-way check instead of two pairs (`xcheck X.bc REF.bc Y.bc`: the
//! reference is side B), whose differences are confirmed on the three native executables;
//! its row names the odd implementation of each kind.
//!
//! With `--mismatches FILE`, each mismatch reported before (the KLEE paper's) of a utility a
//! pair check covered is looked up (`suite/known.rs`): did the check find a difference on
//! that command line, and do the native executables still differ on it.

mod mismatches;

pub use mismatches::{read_mismatches, KnownMismatch};

use crate::error::{Error, Result};
use crate::report::suite::{SuiteReport, SuiteRow};
use crate::report::{Overall, Report};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a suite runs.
pub struct Suite {
    /// The binary whose checks run as children (this one).
    pub exe: PathBuf,
    pub dir: PathBuf,
    /// The reference implementation.
    pub against: String,
    /// The implementations checked against it (every other one in `dir` when empty).
    pub sides: Vec<String>,
    /// Only these utilities (all when empty).
    pub only: Vec<String>,
    pub output_dir: PathBuf,
    /// Checks run at once.
    pub jobs: usize,
    /// Options every check gets (environment, limits, comparison).
    pub check_args: Vec<OsString>,
    pub stop: crate::stop::Stop,
    /// One three-way check per utility where the reference and two others provide it.
    pub three: bool,
    /// Mismatches reported before, looked up in the pair checks' results.
    pub known: Vec<KnownMismatch>,
    /// What the checks compare (for running the known mismatches natively).
    pub compare: crate::crosscheck::program::Compare,
}

/// One check of the suite: a utility of one implementation against the reference's.
#[derive(Clone, Debug)]
struct Pair {
    util: String,
    side: String,
    /// The third implementation of a three-way check (side C; the reference is B).
    third: Option<String>,
}

impl Suite {
    /// The checks, utility by utility (in name order), each side in the order given.
    fn plan(&self) -> Result<Vec<Pair>> {
        let entries = std::fs::read_dir(&self.dir)
            .map_err(|e| Error::input(&self.dir, format!("cannot read the directory: {e}")))?;
        let mut found: Vec<(String, String)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".bc") else {
                continue;
            };
            if let Some((imp, util)) = stem.split_once('-') {
                if !imp.is_empty() && !util.is_empty() {
                    found.push((imp.to_string(), util.to_string()));
                }
            }
        }
        let has = |imp: &str, util: &str| found.iter().any(|(i, u)| i == imp && u == util);
        let mut sides = self.sides.clone();
        if sides.is_empty() {
            sides = found
                .iter()
                .map(|(i, _)| i.clone())
                .filter(|i| *i != self.against)
                .collect();
            sides.sort();
            sides.dedup();
        }
        let mut utils: Vec<String> = found
            .iter()
            .filter(|(i, _)| *i == self.against)
            .map(|(_, u)| u.clone())
            .filter(|u| self.only.is_empty() || self.only.contains(u))
            .collect();
        utils.sort();
        if let Some(missing) = self.only.iter().find(|u| !utils.contains(u)) {
            return Err(Error::input(
                &self.dir,
                format!("--only {missing}: no {}-{missing}.bc here", self.against),
            ));
        }
        let mut plan = Vec::new();
        for util in &utils {
            let present: Vec<&String> = sides.iter().filter(|s| has(s, util)).collect();
            if let (true, [x, y]) = (self.three, present.as_slice()) {
                plan.push(Pair {
                    util: util.clone(),
                    side: x.to_string(),
                    third: Some(y.to_string()),
                });
                continue;
            }
            for side in present {
                plan.push(Pair {
                    util: util.clone(),
                    side: side.clone(),
                    third: None,
                });
            }
        }
        if plan.is_empty() {
            return Err(Error::input(
                &self.dir,
                format!(
                    "no utility both {} and {} provide (files IMPL-UTIL.bc, as scripts/build-utils.sh writes them)",
                    if sides.is_empty() { "another implementation".to_string() } else { sides.join("/") },
                    self.against
                ),
            ));
        }
        Ok(plan)
    }

    /// Runs every check and returns the suite's table (also written to the output
    /// directory as suite.md and suite.json).
    pub fn run(&self) -> Result<SuiteReport> {
        let plan = self.plan()?;
        std::fs::create_dir_all(&self.output_dir).map_err(|e| Error::Output {
            path: self.output_dir.clone(),
            source: e,
        })?;
        let started = Instant::now();
        let next = AtomicUsize::new(0);
        let rows: Mutex<Vec<Option<SuiteRow>>> = Mutex::new(vec![None; plan.len()]);
        let report = |rows: &Mutex<Vec<Option<SuiteRow>>>| SuiteReport {
            against: self.against.clone(),
            options: self
                .check_args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            rows: rows
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .flatten()
                .cloned()
                .collect(),
            planned: plan.len(),
            wall_time_ms: started.elapsed().as_millis() as u64,
            stopped: self.stop.interrupted(),
            known_unchecked: self
                .known
                .iter()
                .filter(|k| {
                    !plan
                        .iter()
                        .any(|p| p.util == k.utility && p.third.is_none())
                })
                .map(mismatches::unchecked)
                .collect(),
        };
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.clamp(1, plan.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= plan.len() || self.stop.interrupted() {
                        break;
                    }
                    let row = self.check(&plan[i]);
                    rows.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(row);
                    // The table so far, so that a killed suite still leaves one.
                    let _ = report(&rows).write(&self.output_dir);
                });
            }
        });
        let report = report(&rows);
        report
            .write(&self.output_dir)
            .map_err(|(path, source)| Error::Output { path, source })?;
        Ok(report)
    }

    /// Runs one check as a child process, then replays its differences natively.
    fn check(&self, pair: &Pair) -> SuiteRow {
        let file = |imp: &str| self.dir.join(format!("{imp}-{}", pair.util));
        let (a, b) = (file(&pair.side), file(&self.against));
        let c = pair.third.as_deref().map(file);
        let (dir, label) = match &pair.third {
            Some(third) => (
                format!("{}-{}-{third}", pair.side, self.against),
                format!("{}+{third}", pair.side),
            ),
            None => (
                format!("{}-vs-{}", pair.side, self.against),
                pair.side.clone(),
            ),
        };
        let out = self.output_dir.join(dir).join(&pair.util);
        let mut row = SuiteRow::new(&pair.util, &label, &out);
        let (abc, bbc) = (a.with_extension("bc"), b.with_extension("bc"));
        let started = Instant::now();
        let child = Command::new(&self.exe)
            .arg(&abc)
            .arg(&bbc)
            .args(c.as_ref().map(|c| c.with_extension("bc")))
            .arg("-o")
            .arg(&out)
            .args(&self.check_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(c) => c,
            Err(e) => {
                row.error = Some(format!("cannot start {}: {e}", self.exe.display()));
                return row;
            }
        };
        let stderr = child.stderr.take();
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut s) = stderr {
                let _ = std::io::Read::read_to_string(&mut s, &mut text);
            }
            text
        });
        let mut forwarded = false;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) => {}
                Err(_) => break None,
            }
            // A stop of the suite stops the check as at a limit: with its reports.
            if self.stop.interrupted() && !forwarded {
                forwarded = true;
                let _ = Command::new("kill")
                    .args(["-s", "INT", &child.id().to_string()])
                    .status();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stderr = reader.join().unwrap_or_default();
        row.exit_code = status.and_then(|s| s.code());
        row.time_ms = started.elapsed().as_millis() as u64;
        let report = std::fs::read(out.join("report.json"))
            .ok()
            .and_then(|bytes| crate::report::schema::parse_bytes(&bytes).ok());
        let checked = match (row.exit_code, &report) {
            (Some(0 | 1 | 3), Some(report)) => Some(report),
            _ => None,
        };
        if pair.third.is_none() {
            let words: Vec<String> = self
                .check_args
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            for k in self.known.iter().filter(|k| k.utility == pair.util) {
                row.known.push(mismatches::look_up(
                    k,
                    &mismatches::CheckSeen {
                        side: &pair.side,
                        report: checked,
                        out: &out,
                        exes: (&a, &b),
                        bitcode: (&abc, &bbc),
                        check_args: &words,
                        compare: self.compare,
                        stop: &self.stop,
                    },
                ));
            }
        }
        match (row.exit_code, report) {
            (Some(0 | 1 | 3), Some(report)) => {
                row.fill(&report);
                native_counts(&mut row, &report, (&a, &b), &out);
                if let Some(third) = &pair.third {
                    // The kinds name the odd implementation, not its letter.
                    let names = [pair.side.as_str(), self.against.as_str(), third];
                    name_sides(&mut row, names);
                }
            }
            _ => {
                let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
                row.error = Some(match (status, last) {
                    (_, Some(line)) => {
                        let line = line.trim();
                        line.strip_prefix("xcheck: error: ")
                            .unwrap_or(line)
                            .to_string()
                    }
                    (Some(s), None) => format!("the check ended with {s}"),
                    (None, None) => "the check could not be waited for".into(),
                });
            }
        }
        row
    }
}

/// How many of the check's differences its native replay ran, and how many reproduced (the
/// check itself replays what concrete replay confirmed, on the executables beside the bitcode
/// or those it built into `OUT/native/` for program-only bitcode).
fn native_counts(row: &mut SuiteRow, report: &Report, (a, b): (&Path, &Path), out: &Path) {
    let built = |p: &Path| match p.file_name() {
        Some(name) if !p.is_file() => out.join("native").join(name),
        _ => p.to_path_buf(),
    };
    if !built(a).is_file() || !built(b).is_file() {
        row.native_note = Some("no native executables beside the bitcode".into());
        return;
    }
    for r in &report.rows {
        if r.verdict.is_difference() && r.confirmed.is_confirmed() {
            if let Some(reproduced) = r.native.as_bool() {
                row.native_replayed += 1;
                row.native_confirmed += usize::from(reproduced);
            }
        }
    }
}

/// A three-way check's kinds with its sides named by their implementations
/// (`toybox differs: stdout: only toybox prints`).
fn name_sides(row: &mut SuiteRow, names: [&str; 3]) {
    // A class names sides by their letters, as words (`only B prints`, `A and C print`,
    // `a prefix of A's`): each such word becomes the implementation's name.
    let named = |word: &str| -> String {
        let (letter, tail) = match word.strip_suffix("'s") {
            Some(l) => (l, "'s"),
            None => (word, ""),
        };
        match ["A", "B", "C"].iter().position(|l| *l == letter) {
            Some(i) => format!("{}{tail}", names[i]),
            None => word.to_string(),
        }
    };
    for (kind, _) in &mut row.kinds {
        *kind = kind.split(' ').map(named).collect::<Vec<_>>().join(" ");
    }
}

/// The suite's exit code: 1 when a check found a confirmed difference, 3 when none did but
/// one was inconclusive, failed to run or did not run, 0 when every check proved its pair
/// equivalent.
pub fn exit_code(report: &SuiteReport) -> i32 {
    let rows = &report.rows;
    if rows.iter().any(|r| r.overall == Some(Overall::Diverged)) {
        1
    } else if rows.len() < report.planned
        || rows.iter().any(|r| r.overall != Some(Overall::Equivalent))
    {
        3
    } else {
        0
    }
}
