//! The result cache of `xcheck lib --cache DIR`: one file per function check, named by a
//! digest of its key and holding the whole key, so a stored result is reused only for the
//! very same key (a digest collision is a miss, never a wrong result).
//!
//! The key is everything the result depends on: xcheck's version, the normalised IR of
//! both sides with everything each reaches (`Listing::closure`), and the check's options
//! (limits, buffers, preconditions, engine and solver settings) without its paths and
//! output directory.

use super::identical::Listing;
use crate::crosscheck::FunctionCheck;
use crate::error::{Error, Result};
use crate::report::Report;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One stored result.
#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    report: crate::report::schema::Report,
}

/// The key of `check` on the two listings.
pub fn key(a: &Listing, b: &Listing, check: &FunctionCheck) -> String {
    let mut options = check.clone();
    options.a_path = PathBuf::new();
    options.b_path = PathBuf::new();
    options.out_dir = PathBuf::new();
    format!(
        "xcheck {}\noptions {}\n--- A {}\n{}--- B {}\n{}",
        env!("CARGO_PKG_VERSION"),
        without_stop(&format!("{options:?}")),
        check.a_name,
        a.closure(&check.a_name),
        check.b_name,
        b.closure(&check.b_name)
    )
}

fn file_of(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!(
        "{}.json",
        crate::exec::shard::digest(std::iter::once(key.as_bytes()))
    ))
}

/// The result stored under `key`, if any.
pub fn load(dir: &Path, key: &str) -> Option<Report> {
    let text = std::fs::read_to_string(file_of(dir, key)).ok()?;
    let entry: Entry = serde_json::from_str(&text).ok()?;
    (entry.key == key).then(|| entry.report.into())
}

/// Stores `report` under `key`.
pub fn store(dir: &Path, key: &str, report: &Report) -> Result<()> {
    let path = file_of(dir, key);
    let entry = Entry {
        key: key.to_string(),
        report: report.into(),
    };
    let text = serde_json::to_string(&entry).map_err(|e| Error::Output {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    std::fs::create_dir_all(dir)
        .and_then(|()| crate::ktest::write_atomic(&path, text.as_bytes()))
        .map_err(|e| Error::Output { path, source: e })
}

/// The options' text without its stop tokens (the engine's and the solver's: an interrupt
/// flag and a deadline counted from an instant of this process, no part of what a result
/// depends on).
fn without_stop(text: &str) -> String {
    const FIELD: &str = "stop: Stop {";
    let mut text = text.to_string();
    while let Some(start) = text.find(FIELD) {
        let mut depth = 0;
        let end = text[start..].char_indices().find_map(|(i, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => return None,
            }
            (depth == 0).then_some(start + i + 1)
        });
        match end {
            Some(end) => text.replace_range(start..end, ""),
            None => break,
        }
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stop_token_is_not_part_of_the_key() {
        let a = super::without_stop(
            "x: 1, stop: Stop { origin: Instant { t: 5 }, d: 0 }, s: S { stop: Stop { i: 2 } }",
        );
        assert_eq!(a, "x: 1, , s: S {  }");
    }
}
