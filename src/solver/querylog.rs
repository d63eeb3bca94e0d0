//! The query log (`--log-queries FILE`) and its replayer (`xcheck query FILE`), like KLEE's
//! `kleaver`: solver regressions are reproduced from the log without the program.
//!
//! [`LoggingSolver`] sits right above the backend in the chain ([`super::build_chain`]), so
//! it sees exactly the queries that reach Bitwuzla or Z3 after the other layers. It writes each
//! one as an SMT-LIB 2 benchmark (printed by [`super::smtlib`]) behind a header comment with
//! its answer, wall time and backend:
//!
//! ```text
//! ; xcheck query log
//! ; query 1: sat in 0.412 ms by bitwuzla
//! (set-info :status unknown)
//! (set-logic QF_BV)
//! (declare-fun |x[0]| () (_ BitVec 8))
//! (assert (bvult |x[0]| #x07))
//! (check-sat)
//! ```
//!
//! Every exploration thread has its own chain, and all of them share one [`QueryLog`]: a
//! query's block is written with one `write` under the log's lock, and numbered there, so
//! blocks never interleave and numbers follow the file.
//!
//! [`read_log`] splits a log into its queries (a file that does not start with the log's
//! first line, or a malformed header, is an error naming the line), and [`replay_queries`] asks each
//! backend, through its own SMT-LIB parser, to decide each query again. A replayed query is a
//! mismatch when two of its definite answers (sat or unsat: the logged one and each backend's)
//! differ; `unknown` (a timeout) never counts as a mismatch.

use super::layer::{wraps_inner, Layer};
use super::{Answer, Backend, SatResult, Solver, SolverError};
use crate::expr::{ExprId, ExprPool};
use crate::stop::Stop;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The first line of every query log.
pub const LOG_HEADER: &str = "; xcheck query log";

/// The start of a query's header line.
const QUERY_PREFIX: &str = "; query ";

/// The largest log `xcheck query` reads.
pub const MAX_LOG_BYTES: u64 = 1 << 30;

/// A query log being written, shared by the chains of every exploration thread.
#[derive(Debug)]
pub struct QueryLog {
    path: PathBuf,
    /// The file, the number of queries written so far, and the first failed write's error.
    file: Mutex<(std::fs::File, u64, Option<String>)>,
    /// Only queries that took at least this long are written.
    slower_than: Duration,
}

impl QueryLog {
    /// Creates (or empties) the log at `path` and writes its first line.
    pub fn create(path: &Path) -> Result<Self, String> {
        let mut file = std::fs::File::create(path)
            .map_err(|e| format!("{}: cannot create: {e}", path.display()))?;
        writeln!(file, "{LOG_HEADER}")
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            file: Mutex::new((file, 0, None)),
            slower_than: Duration::ZERO,
        })
    }

    /// The same log, writing only the queries that take at least `limit` (the others are
    /// not numbered either).
    pub fn slower_than(self, limit: Duration) -> Self {
        Self {
            slower_than: limit,
            ..self
        }
    }

    /// The first write that failed, if one did (the check went on without its log). The
    /// engine does not print: the check's report carries this as a note.
    pub fn write_error(&self) -> Option<String> {
        let guard = match self.file.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        guard
            .2
            .as_ref()
            .map(|e| format!("{}: {e}", self.path.display()))
    }

    /// The log's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one query: its header with `answer`, `took` and `backend`, then `body`. A
    /// failed write is kept for [`QueryLog::write_error`] and does not stop the check.
    fn append(&self, answer: Answer, took: Duration, backend: &str, body: &str) {
        let mut guard = match self.file.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (file, count, failed) = &mut *guard;
        *count += 1;
        let mut block = format!(
            "{QUERY_PREFIX}{count}: {} in {:.3} ms by {backend}\n",
            answer.name(),
            took.as_secs_f64() * 1000.0
        );
        block.push_str(body);
        if !block.ends_with('\n') {
            block.push('\n');
        }
        if let Err(e) = file.write_all(block.as_bytes()) {
            failed.get_or_insert_with(|| e.to_string());
        }
    }
}

/// The chain layer that logs every query of the backend it wraps.
pub struct LoggingSolver {
    inner: Box<dyn Solver>,
    backend: &'static str,
    log: std::sync::Arc<QueryLog>,
    printer: super::SmtlibPrinter,
}

impl LoggingSolver {
    /// Logs the queries of `inner`, the backend named `backend`, into `log`.
    pub fn new(
        inner: Box<dyn Solver>,
        backend: &'static str,
        log: std::sync::Arc<QueryLog>,
    ) -> Self {
        Self {
            inner,
            backend,
            log,
            printer: super::SmtlibPrinter::default(),
        }
    }
}

impl Layer for LoggingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let start = Instant::now();
        let result = self.inner.check(pool, constraints, query);
        let took = start.elapsed();
        // A query the backend rejected is not a query to replay.
        if let (Ok(answer), true) = (&result, took >= self.log.slower_than) {
            let body = (self.printer.print(pool, constraints, query))
                .unwrap_or_else(|e| format!("; not printed: {e}\n"));
            self.log
                .append(Answer::of(answer), took, self.backend, &body);
        }
        result
    }
}

/// One query of a log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedQuery {
    /// Its number in the log.
    pub number: u64,
    /// The line of its header, from 1.
    pub line: usize,
    /// The answer the log records.
    pub answer: Answer,
    /// The backend that gave it.
    pub backend: String,
    /// The time the log records, as written (milliseconds).
    pub millis: String,
    /// The SMT-LIB text.
    pub smtlib: String,
}

/// Splits the text of a query log into its queries; an error is one line, `LINE: cause`.
pub fn read_log(text: &str) -> Result<Vec<LoggedQuery>, String> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_end() == LOG_HEADER => {}
        _ => return Err(format!("1: not a query log (expected '{LOG_HEADER}')")),
    }
    let mut queries: Vec<LoggedQuery> = Vec::new();
    for (i, line) in lines {
        let number = i + 1;
        if let Some(header) = line.strip_prefix(QUERY_PREFIX) {
            let query = parse_header(header)
                .map(|(n, answer, millis, backend)| LoggedQuery {
                    number: n,
                    line: number,
                    answer,
                    backend,
                    millis,
                    smtlib: String::new(),
                })
                .ok_or_else(|| {
                    format!(
                        "{number}: malformed query header (expected '; query N: sat|unsat|unknown in T ms by BACKEND')"
                    )
                })?;
            queries.push(query);
        } else if let Some(query) = queries.last_mut() {
            query.smtlib.push_str(line);
            query.smtlib.push('\n');
        } else if !(line.trim().is_empty() || line.starts_with(';')) {
            return Err(format!("{number}: text before the first query header"));
        }
    }
    for q in &queries {
        if !q.smtlib.contains("(check-sat)") {
            return Err(format!("{}: query {} has no (check-sat)", q.line, q.number));
        }
    }
    Ok(queries)
}

/// `N: ANSWER in T ms by BACKEND`.
fn parse_header(header: &str) -> Option<(u64, Answer, String, String)> {
    let (n, rest) = header.split_once(": ")?;
    let words: Vec<&str> = rest.split(' ').collect();
    let [answer, "in", millis, "ms", "by", backend] = words[..] else {
        return None;
    };
    millis.parse::<f64>().ok().filter(|t| *t >= 0.0)?;
    Some((
        n.parse().ok()?,
        answer.parse().ok()?,
        millis.to_string(),
        backend.to_string(),
    ))
}

/// One backend's answer to a replayed query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replayed {
    pub backend: Backend,
    pub answer: Answer,
    pub took: Duration,
}

/// A replayed query: the backends' answers, and whether any two definite answers differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayedQuery {
    pub query: LoggedQuery,
    pub answers: Vec<Replayed>,
    pub mismatch: bool,
}

/// Replays each query against each of `backends`, with `timeout` per check. A query a
/// backend cannot parse is an error: `LINE: query N: cause`.
pub fn replay_queries(
    queries: &[LoggedQuery],
    backends: &[Backend],
    timeout: Option<Duration>,
    stop: &Stop,
) -> Result<Vec<ReplayedQuery>, String> {
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        if stop.interrupted() {
            break;
        }
        let mut answers = Vec::new();
        for &backend in backends {
            let start = Instant::now();
            let answer = match backend {
                Backend::Bitwuzla => super::bitwuzla::check_smtlib(&q.smtlib, timeout, stop),
                Backend::Z3 => super::z3::check_smtlib(&q.smtlib, timeout, stop),
                Backend::Portfolio => Err(SolverError::Backend(
                    "the portfolio replays as its two backends (--solver both)".into(),
                )),
            }
            .map_err(|e| {
                let why = match e {
                    SolverError::Backend(why) => why,
                    other => other.to_string(),
                };
                let why = why.split_whitespace().collect::<Vec<_>>().join(" ");
                format!("{}: query {}: {}: {why}", q.line, q.number, backend.name())
            })?;
            if stop.interrupted() {
                // The check was cut short: the query counts as not replayed.
                return Ok(out);
            }
            answers.push(Replayed {
                backend,
                answer,
                took: start.elapsed(),
            });
        }
        let mut definite = std::iter::once(q.answer)
            .chain(answers.iter().map(|a| a.answer))
            .filter(|a| *a != Answer::Unknown);
        let first = definite.next();
        let mismatch = definite.any(|a| Some(a) != first);
        out.push(ReplayedQuery {
            query: q.clone(),
            answers,
            mismatch,
        });
    }
    Ok(out)
}

/// The replayer's report: one line per query, then a summary line.
pub fn render(replayed: &[ReplayedQuery]) -> String {
    let mut out = String::new();
    for r in replayed {
        let q = &r.query;
        let _ = write!(
            out,
            "query {} (line {}): logged {} in {} ms by {}",
            q.number,
            q.line,
            q.answer.name(),
            q.millis,
            q.backend
        );
        for a in &r.answers {
            let _ = write!(
                out,
                "; {} {} in {:.3} ms",
                a.backend.name(),
                a.answer.name(),
                a.took.as_secs_f64() * 1000.0
            );
        }
        out.push_str(if r.mismatch { "  MISMATCH\n" } else { "\n" });
    }
    let mismatches = replayed.iter().filter(|r| r.mismatch).count();
    let _ = writeln!(
        out,
        "{} {} replayed, {mismatches} {}",
        replayed.len(),
        if replayed.len() == 1 {
            "query"
        } else {
            "queries"
        },
        if mismatches == 1 {
            "mismatch"
        } else {
            "mismatches"
        }
    );
    out
}

/// The help text of `xcheck query --solver` (the front end does not name the backends).
pub const REPLAY_SOLVER_HELP: &str = "Backends to replay with: bitwuzla, z3 or both.";

/// The backends `--solver` names: one backend's name, or `both`.
pub fn backends_of(text: &str) -> Result<Vec<Backend>, String> {
    match text.trim() {
        "both" => Ok(Backend::ALL.to_vec()),
        one => Backend::ALL
            .into_iter()
            .find(|b| b.name() == one)
            .map(|b| vec![b])
            .ok_or_else(|| format!("unknown solver '{text}' (expected bitwuzla, z3 or both)")),
    }
}

/// `xcheck query FILE`: reads the log at `path` and replays it with `backends`, until `stop`
/// is interrupted (the report then says how many queries were left). Returns the report and
/// whether some query is a mismatch; an error is one line naming the file.
pub fn replay_query_log(
    path: &Path,
    backends: &[Backend],
    timeout: Option<Duration>,
    stop: &Stop,
) -> Result<(String, bool), String> {
    let file = path.display();
    let bytes = crate::input::read_limited(path, MAX_LOG_BYTES, "query logs")
        .map_err(|e| format!("{file}: cannot read: {e}"))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| format!("{file}: not UTF-8 text"))?;
    let queries = read_log(text).map_err(|e| format!("{file}:{e}"))?;
    let replayed =
        replay_queries(&queries, backends, timeout, stop).map_err(|e| format!("{file}:{e}"))?;
    let mismatch = replayed.iter().any(|r| r.mismatch);
    let mut report = render(&replayed);
    let left = queries.len() - replayed.len();
    if left > 0 {
        let _ = writeln!(
            report,
            "interrupted: {left} of {} queries not replayed",
            queries.len()
        );
    }
    Ok((report, mismatch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{build_chain, SolverConfig};

    fn byte_query(pool: &ExprPool, value: u128) -> (Vec<ExprId>, ExprId) {
        let x = pool.new_array("x", 3);
        let bytes: Vec<ExprId> = (0..3).map(|i| pool.sym(x, i)).collect();
        let word = pool.concat_bytes(&bytes);
        let c = pool.ult(word, pool.constant(24, 1000));
        (vec![c], pool.eq(word, pool.constant(24, value)))
    }

    #[test]
    fn only_queries_slower_than_the_threshold_are_logged_and_write_errors_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let pool = ExprPool::new();
        let run = |log: QueryLog| {
            let log = std::sync::Arc::new(log);
            let cfg = SolverConfig {
                log: Some(log.clone()),
                ..SolverConfig::default()
            };
            let mut chain = build_chain(&cfg);
            let (cs, q) = byte_query(&pool, 7);
            chain.check(&pool, &cs, q).unwrap();
            log
        };
        let slow = dir.path().join("slow.smt2");
        run(QueryLog::create(&slow)
            .unwrap()
            .slower_than(Duration::from_secs(3600)));
        let text = std::fs::read_to_string(&slow).unwrap();
        assert_eq!(read_log(&text).unwrap().len(), 0, "{text}");
        let all = dir.path().join("all.smt2");
        let log = run(QueryLog::create(&all).unwrap());
        let text = std::fs::read_to_string(&all).unwrap();
        assert_eq!(read_log(&text).unwrap().len(), 1, "{text}");
        assert_eq!(log.write_error(), None);

        // A log whose writes fail (a full device) keeps the first error for the report.
        let full = std::path::Path::new("/dev/full");
        if full.exists() {
            let log = run(QueryLog {
                path: full.to_path_buf(),
                file: Mutex::new((
                    std::fs::OpenOptions::new().write(true).open(full).unwrap(),
                    0,
                    None,
                )),
                slower_than: Duration::ZERO,
            });
            let error = log.write_error().expect("the write to /dev/full failed");
            assert!(error.starts_with("/dev/full: "), "{error}");
        }
    }

    #[test]
    fn logged_queries_replay_with_both_backends() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.smt2");
        let log = std::sync::Arc::new(QueryLog::create(&path).unwrap());
        let pool = ExprPool::new();
        for backend in Backend::ALL {
            // without the range layer, whose XOR-linear forms decide the unsat query
            let cfg = SolverConfig {
                backend,
                log: Some(log.clone()),
                ranges: false,
                ..SolverConfig::default()
            };
            let mut chain = build_chain(&cfg);
            for value in [7, 5000] {
                let (cs, q) = byte_query(&pool, value);
                chain.check(&pool, &cs, q).unwrap();
            }
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let queries = read_log(&text).unwrap();
        assert_eq!(queries.len(), 4, "{text}");
        let answers: Vec<Answer> = queries.iter().map(|q| q.answer).collect();
        use Answer::*;
        assert_eq!(answers, [Sat, Unsat, Sat, Unsat]);
        assert_eq!(queries[2].backend, "z3");
        let replayed = replay_queries(
            &queries,
            &Backend::ALL,
            Some(Duration::from_secs(30)),
            &Stop::new(),
        )
        .unwrap();
        assert!(
            replayed.iter().all(|r| !r.mismatch),
            "{}",
            render(&replayed)
        );
        for r in &replayed {
            assert!(r.answers.iter().all(|a| a.answer == r.query.answer));
        }

        // A wrong recorded answer is a mismatch.
        let mut wrong = queries[0].clone();
        wrong.answer = Unsat;
        let replayed = replay_queries(&[wrong], &[Backend::Bitwuzla], None, &Stop::new()).unwrap();
        assert!(replayed[0].mismatch);
        assert!(render(&replayed).contains("MISMATCH\n1 query replayed, 1 mismatch"));
    }

    #[test]
    fn malformed_logs_are_errors_naming_the_line() {
        let q = "; query 1: sat in 0.5 ms by z3\n(check-sat)\n";
        assert_eq!(read_log(&format!("{LOG_HEADER}\n{q}")).unwrap().len(), 1);
        assert_eq!(read_log(&format!("{LOG_HEADER}\n")).unwrap(), []);
        let bad = [
            ("", "1: not a query log"),
            ("(check-sat)\n", "1: not a query log"),
            ("\n(assert true)\n", "2: text before the first query header"),
            (
                "\n; query 1: maybe in 1 ms by z3\n(check-sat)\n",
                "2: malformed query header",
            ),
            (
                "\n; query x: sat in 1 ms by z3\n(check-sat)\n",
                "2: malformed query header",
            ),
            (
                "\n; query 1: sat in -1 ms by z3\n(check-sat)\n",
                "2: malformed query header",
            ),
            (
                "\n; query 1: sat in 1 ms by z3\n(assert true)\n",
                "2: query 1 has no (check-sat)",
            ),
        ];
        for (rest, expected) in bad {
            let text = if rest.is_empty() || !rest.starts_with('\n') {
                rest.to_string()
            } else {
                format!("{LOG_HEADER}{rest}")
            };
            let e = read_log(&text).unwrap_err();
            assert!(e.starts_with(expected), "{text:?}: {e}");
        }
    }

    #[test]
    fn unparsable_smtlib_is_an_error_of_each_backend() {
        let text = format!(
            "{LOG_HEADER}\n; query 1: sat in 1 ms by z3\n(assert (bvult x))\n(check-sat)\n"
        );
        let queries = read_log(&text).unwrap();
        for backend in Backend::ALL {
            let e = replay_queries(&queries, &[backend], None, &Stop::new()).unwrap_err();
            assert!(
                e.starts_with(&format!("2: query 1: {}: ", backend.name())),
                "{e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
