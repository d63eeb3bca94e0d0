//! The KLEE-style harnesses of `corpora/klee` (issue 11's comparison with KLEE): each run of
//! `xcheck run` at -O0 completes and reports exactly the assertion failures its entry in
//! `harnesses.toml` expects (the benchmark times them; the slow ones are left to it).

use crate::common::*;

#[derive(serde::Deserialize)]
struct Harness {
    errors: usize,
    #[serde(default)]
    slow: bool,
}

// See: #11, never slower than KLEE: the harness set the benchmark compares with KLEE's times.
#[test]
fn every_klee_harness_finds_exactly_its_errors() {
    let dir = repo().join("corpora/klee");
    let text = std::fs::read_to_string(dir.join("harnesses.toml")).unwrap();
    let harnesses: std::collections::BTreeMap<String, Harness> = toml::from_str(&text).unwrap();
    assert!(harnesses.len() >= 10, "{} harnesses", harnesses.len());
    let work = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, h) in harnesses.iter().filter(|(_, h)| !h.slow) {
        let bc = work.path().join(format!("{name}.bc"));
        let status = std::process::Command::new(xcheck::toolchain::CLANG)
            .args([
                "-c",
                "-emit-llvm",
                "-g",
                "-O0",
                "-Xclang",
                "-disable-O0-optnone",
            ])
            .arg("-I")
            .arg(repo().join("harness/include"))
            .arg(dir.join(format!("{name}.c")))
            .arg("-o")
            .arg(&bc)
            .status()
            .expect("clang runs");
        assert!(status.success(), "clang failed on {name}.c");
        let out = work.path().join(format!("out-{name}"));
        let o = xcheck(
            work.path(),
            &[
                "run",
                bc.to_str().unwrap(),
                "--json",
                "--max-time",
                "60",
                "-o",
                out.to_str().unwrap(),
            ],
        );
        let v: serde_json::Value = match serde_json::from_str(stdout(&o).trim()) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: no JSON ({e}): {}", stderr(&o)));
                continue;
            }
        };
        let errors = v["run"]["errors"].as_array().map_or(0, Vec::len);
        let complete = v["run"]["complete"] == serde_json::Value::Bool(true);
        let want_code = if h.errors > 0 { 1 } else { 0 };
        if errors != h.errors || !complete || o.status.code() != Some(want_code) {
            failures.push(format!(
                "{name}: {errors} errors (want {}), complete {complete}, exit {:?}",
                h.errors,
                o.status.code()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
