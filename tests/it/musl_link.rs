//! Program-only bitcode (the program's own functions, libc calls undefined) linked with the
//! bundled musl at load: the same verdicts as the `xcheck cc` builds of the same sources,
//! divergences confirmed on the native binaries the check builds, and a call musl cannot
//! serve named in the report. The refusal of glibc bitcode is `programs.rs`'s
//! `a_program_without_musl_is_refused_with_the_reason`.
//!
//! Needs the bundled musl (`scripts/build-musl.sh`) and Debian's musl-dev.

use crate::common::{repo, stderr, stdout, xcheck};
use crate::programs::{build_programs, program};
use std::path::{Path, PathBuf};
use std::process::Command;

pub(crate) fn musl_dir() -> PathBuf {
    std::env::var_os("XCHECK_MUSL_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XCHECK_BUILD_DIR").map(|b| PathBuf::from(b).join("musl")))
        .unwrap_or_else(|| repo().join("build/musl"))
}

/// Compiles `src` to program-only bitcode `out` for musl, as a build outside `xcheck cc`
/// would (`clang -c -emit-llvm --target x86_64-linux-musl` against musl's headers).
fn compile_for_musl(src: &Path, out: &Path) {
    let resource = Command::new(xcheck::toolchain::CLANG)
        .arg("-print-resource-dir")
        .output()
        .unwrap();
    let resource = String::from_utf8_lossy(&resource.stdout).trim().to_string();
    let musl = musl_dir();
    let ok = Command::new(xcheck::toolchain::CLANG)
        .args(["-c", "-emit-llvm", "-O1", "-g", "-std=c99"])
        .args([
            "--target=x86_64-linux-musl",
            "-nostdinc",
            "-fno-stack-protector",
        ])
        .arg("-isystem")
        .arg(musl.join("include"))
        .arg("-isystem")
        .arg(Path::new(&resource).join("include"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .status()
        .unwrap();
    assert!(ok.success(), "clang failed on {}", src.display());
}

/// Compiles a corpus pair's sources program-only into `dir/NAME/{a,b}.bc`.
fn program_only_pair(name: &str, dir: &Path) -> (PathBuf, PathBuf) {
    let out = dir.join(name);
    std::fs::create_dir_all(&out).unwrap();
    let src = repo().join("corpora/programs").join(name);
    let (a, b) = (out.join("a.bc"), out.join("b.bc"));
    compile_for_musl(&src.join("a.c"), &a);
    compile_for_musl(&src.join("b.c"), &b);
    (a, b)
}

/// Runs a program check of `a` against `b` writing to `out`; returns the exit code and
/// the terminal's text.
fn check(dir: &Path, a: &Path, b: &Path, out: &Path, env: &[&str]) -> (Option<i32>, String) {
    let (a, b, o) = (
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let mut args = vec![a, b, "-j", "1", "-o", o, "--max-time", "120"];
    args.extend(env);
    let run = xcheck(dir, &args);
    let text = format!("{}{}", stdout(&run), stderr(&run));
    (run.status.code(), text)
}

#[test]
fn program_only_bitcode_gets_the_verdict_of_its_xcheck_cc_build() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 3] = [
        ("cat_n", &["--sym-stdin", "3"]),
        ("wc_w", &["--sym-stdin", "3"]),
        ("wc_l", &["--sym-stdin", "4"]),
    ];
    let mut diverged = 0;
    for (name, env) in cases {
        let (a, b) = program_only_pair(name, dir.path());
        let auto_out = dir.path().join(format!("{name}-auto"));
        let (auto, text) = check(dir.path(), &a, &b, &auto_out, env);
        assert!(
            text.contains("A (")
                && text.contains("B (")
                && text.contains("linked with the bundled musl"),
            "{name}: {text}"
        );
        let (ca, cb) = (program(name, "a"), program(name, "b"));
        let cc_out = dir.path().join(format!("{name}-cc"));
        let (cc, cc_text) = check(
            dir.path(),
            &ca.with_extension("bc"),
            &cb.with_extension("bc"),
            &cc_out,
            env,
        );
        assert!(
            !cc_text.contains("linked with the bundled musl"),
            "{cc_text}"
        );
        assert!(matches!(cc, Some(0 | 1)), "{name} (xcheck cc): {cc_text}");
        assert_eq!(
            auto, cc,
            "{name}: program-only {text}\nxcheck cc: {cc_text}"
        );
        // A side given each way: the same verdict again.
        let mixed_out = dir.path().join(format!("{name}-mixed"));
        let (mixed, mixed_text) = check(dir.path(), &a, &cb.with_extension("bc"), &mixed_out, env);
        assert_eq!(mixed, cc, "{name}: mixed {mixed_text}");
        if auto == Some(1) {
            diverged += 1;
            // The check built each side's native binary; the divergences happen natively.
            let native = |s: &str| auto_out.join("native").join(s);
            assert!(native("a").is_file() && native("b").is_file(), "{text}");
            let o = auto_out.to_str().unwrap();
            let replay = xcheck(
                dir.path(),
                &[
                    "replay",
                    o,
                    "--native",
                    native("a").to_str().unwrap(),
                    native("b").to_str().unwrap(),
                ],
            );
            assert_eq!(replay.status.code(), Some(0), "{name}: {}", stdout(&replay));
        }
    }
    assert_eq!(diverged, 2, "cat_n and wc_w diverge");
}

#[test]
fn a_call_musl_does_not_define_is_named_and_its_path_ends_unknown() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("ext.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\nint frobnicate(int);\n\
         int main(void) { int c = getchar(); if (c == 'x') return frobnicate(c); puts(\"ok\"); return 0; }\n",
    )
    .unwrap();
    let bc = dir.path().join("ext.bc");
    compile_for_musl(&src, &bc);
    let out = dir.path().join("out");
    let (code, text) = check(dir.path(), &bc, &bc, &out, &["--sym-stdin", "1"]);
    assert!(
        text.contains("neither it nor musl defines: frobnicate"),
        "{text}"
    );
    // The path that reads 'x' stops at the call: the check cannot be complete.
    assert_eq!(code, Some(3), "{text}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("frobnicate"), "{report}");
}

#[test]
fn a_suite_replays_program_only_bitcode_on_the_binary_its_check_built() {
    build_programs();
    let dir = tempfile::tempdir().unwrap();
    let suite = crate::suite::suite_dir(dir.path(), &["wc_w"]);
    // Side b becomes program-only bitcode, with no executable beside it.
    std::fs::remove_file(suite.join("b-wc_w")).unwrap();
    std::fs::remove_file(suite.join("b-wc_w.bc")).unwrap();
    let src = repo().join("corpora/programs/wc_w/b.c");
    compile_for_musl(&src, &suite.join("b-wc_w.bc"));
    let out = dir.path().join("out");
    let (suite, o) = (suite.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "suite",
        suite,
        "--against",
        "a",
        "-o",
        o,
        "--",
        "--sym-stdin",
        "3",
    ];
    let run = xcheck(dir.path(), &args);
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}{}",
        stdout(&run),
        stderr(&run)
    );
    let table: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("suite.json")).unwrap()).unwrap();
    let row = &table["rows"][0];
    let diverged = row["diverged"].as_u64().unwrap();
    assert!(diverged > 0, "{row}");
    assert_eq!(row["native_replayed"].as_u64(), Some(diverged), "{row}");
    assert_eq!(row["native_confirmed"].as_u64(), Some(diverged), "{row}");
}

#[test]
fn a_musl_member_that_would_redefine_a_program_function_is_left_out_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("opts.c");
    // musl's getopt_long needs getopt.c's optind…, and getopt.c defines getopt as well.
    std::fs::write(
        &src,
        "#include <getopt.h>\n#include <stdio.h>\n\
         int getopt(int c, char *const v[], const char *o) { (void)c; (void)v; (void)o; return -1; }\n\
         int main(int argc, char **argv) {\n\
           static const struct option longs[] = {{\"all\", no_argument, 0, 'a'}, {0, 0, 0, 0}};\n\
           printf(\"%d\\n\", getopt_long(argc, argv, \"a\", longs, 0));\n  return 0;\n}\n",
    )
    .unwrap();
    let bc = dir.path().join("opts.bc");
    compile_for_musl(&src, &bc);
    let out = dir.path().join("out");
    let (code, text) = check(dir.path(), &bc, &bc, &out, &["--sym-args", "0", "1", "2"]);
    assert!(matches!(code, Some(0 | 1 | 3)), "{text}");
    assert!(
        text.contains("its archive member also defines getopt, which the program defines"),
        "{text}"
    );
    assert!(text.contains("optind"), "{text}");
    // lld refuses the duplicate too: no native binary, and the report says so.
    assert!(text.contains("native replay is not possible"), "{text}");
    assert!(!out.join("native/opts").exists());
}
