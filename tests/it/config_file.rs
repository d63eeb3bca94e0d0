//! Config files under `tests/data/config/`, checked by `xcheck::config::load_config`.
//!
//! `good_NAME.toml` must load, and the loaded config's `{:#?}` (with the data directory
//! shown as `$DIR`) must equal `good_NAME.expected`; run with `XCHECK_BLESS=1` to write the
//! expected files after a deliberate change, and review the difference. `bad_NAME.toml` must
//! start with `# expect-error: FILE:LINE: ...`, and loading it must fail with one line that
//! contains that text, so the expectation names the line too. Any other file, a good file
//! without its expectation, or an empty directory fails the test.

use std::fs;
use std::path::{Path, PathBuf};
use xcheck::config::load_config;

/// The data directory, found from this file's path so that the test also runs when it is
/// compiled into another crate; `XCHECK_CONFIG_DATA` overrides it.
fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XCHECK_CONFIG_DATA") {
        return PathBuf::from(dir);
    }
    let this = Path::new(file!());
    let candidates = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join(this),
        this.to_path_buf(),
    ];
    for file in candidates {
        let tests = file.parent().and_then(Path::parent);
        if let Some(dir) = tests.map(|p| p.join("data").join("config")) {
            if dir.is_dir() {
                return dir.canonicalize().unwrap_or(dir);
            }
        }
    }
    panic!(
        "tests/data/config not found next to {}; set XCHECK_CONFIG_DATA",
        file!()
    );
}

/// The text after `# expect-error:` on a bad file's first line.
fn expected_error(bytes: &[u8]) -> Option<String> {
    let first = bytes.split(|&b| b == b'\n').next()?;
    let first = std::str::from_utf8(first).ok()?;
    let text = first.strip_prefix("# expect-error:")?.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Whether `expected` starts with `FILE:LINE:` for the file `name`.
fn names_a_line(expected: &str, name: &str) -> bool {
    expected
        .strip_prefix(name)
        .and_then(|rest| rest.strip_prefix(':'))
        .and_then(|rest| rest.split_once(':'))
        .is_some_and(|(line, _)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
}

#[test]
fn config_files() {
    let dir = data_dir();
    let dir_text = dir.display().to_string();
    let bless = std::env::var_os("XCHECK_BLESS").is_some();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let (mut good, mut bad) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        let path = dir.join(name);
        if let Some(stem) = name.strip_suffix(".expected") {
            if !names.contains(&format!("{stem}.toml")) {
                failures.push(format!("{name}: no {stem}.toml"));
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".toml") else {
            failures.push(format!("{name}: not a .toml or .expected file"));
            continue;
        };
        let bytes = fs::read(&path).unwrap();
        let expectation = expected_error(&bytes);
        if stem.starts_with("good_") {
            good += 1;
            if let Some(e) = expectation {
                failures.push(format!("{name}: a good file expects an error: {e}"));
                continue;
            }
            let config = match load_config(&path) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let summary = format!("{config:#?}\n").replace(&dir_text, "$DIR");
            let expected_path = dir.join(format!("{stem}.expected"));
            if bless {
                fs::write(&expected_path, &summary).unwrap();
                continue;
            }
            match fs::read_to_string(&expected_path) {
                Ok(expected) if expected == summary => {}
                Ok(expected) => failures.push(format!(
                    "{name}: the loaded config differs from {stem}.expected\n--- expected\n{expected}--- got\n{summary}"
                )),
                Err(_) => failures.push(format!(
                    "{name}: no {stem}.expected (run with XCHECK_BLESS=1 to write it)"
                )),
            }
        } else if stem.starts_with("bad_") {
            bad += 1;
            let Some(expected) = expectation else {
                failures.push(format!(
                    "{name}: a bad file must start with `# expect-error: {name}:LINE: ...`"
                ));
                continue;
            };
            if !names_a_line(&expected, name) {
                failures.push(format!(
                    "{name}: the expectation must start with `{name}:LINE:`: {expected}"
                ));
                continue;
            }
            match load_config(&path) {
                Ok(_) => failures.push(format!("{name}: loaded, expected: {expected}")),
                Err(e) => {
                    let e = e.to_string();
                    if !e.contains(&expected) || e.contains('\n') {
                        failures.push(format!("{name}:\n  got      {e}\n  expected {expected}"));
                    }
                }
            }
        } else {
            failures.push(format!("{name}: name it good_*.toml or bad_*.toml"));
        }
    }
    if good == 0 || bad == 0 {
        failures.push(format!(
            "{}: expected good_*.toml and bad_*.toml files, found {good} good and {bad} bad",
            dir.display()
        ));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn expectations_must_name_a_line() {
    assert!(names_a_line("bad_x.toml:7: pair[0]: oops", "bad_x.toml"));
    assert!(names_a_line("bad_x.toml:7:5: invalid TOML", "bad_x.toml"));
    assert!(!names_a_line("bad_x.toml: oops", "bad_x.toml"));
    assert!(!names_a_line("pair[0]: oops", "bad_x.toml"));
    assert!(!names_a_line("bad_x.toml:7", "bad_x.toml"));
    assert_eq!(
        expected_error(b"# expect-error: a.toml:1: x\n[x]"),
        Some("a.toml:1: x".to_string())
    );
    assert_eq!(expected_error(b"# expect-error:   \n"), None);
    assert_eq!(expected_error(b"[x]\n# expect-error: a\n"), None);
}
