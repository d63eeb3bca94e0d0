//! What the commands print on stdout besides tables: the end of a check, `xcheck run`'s
//! summary, and one entry per replayed test (in the engine or natively).

use crate::report::json::RunResult;
use std::path::Path;

/// The line after a check's table.
pub fn written_to(out_dir: &Path) -> String {
    format!("Tests and reports written to {}\n", out_dir.display())
}

/// `xcheck run`'s errors, undecided paths and totals.
pub fn render_run(s: &RunResult, out_dir: &Path) -> String {
    let mut out = String::new();
    for e in &s.errors {
        out.push_str(&format!("error: {}  ({})\n", e.what, e.test.display()));
    }
    for why in &s.unknown {
        out.push_str(&format!("unknown: {why}\n"));
    }
    out.push_str(&format!(
        "paths completed: {}, errors: {}, tests written: {} in {}, instructions: {}{}\n",
        s.completed,
        s.errors.len(),
        s.tests,
        out_dir.display(),
        s.instructions,
        match &s.stop_reason {
            Some(r) => format!(", stopped: {r}"),
            None => String::new(),
        }
    ));
    out
}

/// A replay that found no test to run.
pub fn no_tests(path: &Path) -> String {
    format!("{}: no tests to replay\n", path.display())
}

/// One test replayed in the engine: both sides' results and the verdict, with why.
pub fn engine_replay(test: &Path, a: &str, b: &str, verdict: &str, detail: &str) -> String {
    let why = if detail.is_empty() {
        String::new()
    } else {
        format!(" ({detail})")
    };
    format!("{}: A {a}; B {b} => {verdict}{why}\n", test.display())
}

/// A test that cannot be replayed natively.
pub fn native_impossible(test: &Path, why: &dyn std::fmt::Display) -> String {
    format!("{}: cannot replay natively: {why}\n", test.display())
}

/// One test replayed natively: its environment, both runs, and what that says of the
/// engine's verdict.
pub struct NativeEntry<'a> {
    pub test: &'a Path,
    /// The command line and stdin, quoted.
    pub argv: String,
    pub stdin: String,
    /// How each side ended and its quoted stdout.
    pub a: (String, String),
    pub b: (String, String),
    /// Whether the engine reported the test as a divergence.
    pub divergent: bool,
    /// Whether the native runs differ.
    pub differ: bool,
}

/// What a native replay says of the engine's verdict: whether the engine reported a
/// divergence, and whether the native runs differ.
fn native_status(divergent: bool, differ: bool) -> &'static str {
    match (divergent, differ) {
        (true, true) => "divergence CONFIRMED natively",
        (true, false) => "divergence NOT confirmed natively: engine or model bug",
        (false, true) => {
            "natively they differ, though the engine found agreement: engine or model bug"
        }
        (false, false) => "agree natively, as the engine found",
    }
}

/// The lines of one natively replayed function test: its inputs (`name = value`), how each
/// side ended, and what that says of the engine's verdict.
pub fn native_function_replay(
    test: &Path,
    inputs: &[String],
    (a, b): (&str, &str),
    divergent: bool,
    differ: bool,
) -> String {
    format!(
        "{}: {}\n  A: {a}\n  B: {b}\n  => {}\n",
        test.display(),
        inputs.join(", "),
        native_status(divergent, differ)
    )
}

/// The lines of one natively replayed test.
pub fn native_replay(e: &NativeEntry<'_>) -> String {
    let status = native_status(e.divergent, e.differ);
    format!(
        "{}: argv {}, stdin {}\n  A: {}, stdout {}\n  B: {}, stdout {}\n  => {status}\n",
        e.test.display(),
        e.argv,
        e.stdin,
        e.a.0,
        e.a.1,
        e.b.0,
        e.b.1
    )
}

/// Says that a replay was interrupted with `left` tests to go.
pub fn interrupted_replay(left: usize) -> String {
    format!(
        "interrupted: {left} test{} not replayed\n",
        if left == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_entries() {
        assert_eq!(
            engine_replay(Path::new("t.ktest"), "ret 1", "ret 2", "DIVERGED", ""),
            "t.ktest: A ret 1; B ret 2 => DIVERGED\n"
        );
        assert_eq!(interrupted_replay(1), "interrupted: 1 test not replayed\n");
        let e = NativeEntry {
            test: Path::new("t.ktest"),
            argv: "wc -l".into(),
            stdin: "\"\"".into(),
            a: ("exit 0".into(), "\"0\\n\"".into()),
            b: ("exit 0".into(), "\"1\\n\"".into()),
            divergent: true,
            differ: true,
        };
        assert!(native_replay(&e).ends_with("  => divergence CONFIRMED natively\n"));
    }
}
