//! Bad input never crashes: corrupt bitcode, absurd option values, devices and FIFOs given
//! as inputs, corrupt `.ktest` and config files all end with one error line naming the file
//! or option, and exit code 2 — never a signal, an abort (134) or a panic (101).

use crate::common::{repo, stderr, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs the xcheck binary in `dir`, killing it if it runs past `limit` (a FIFO or a device
/// as input must not make it wait or read forever).
fn xcheck_within(dir: &Path, args: &[&str], limit: Duration) -> Output {
    xcheck_with_env(dir, args, limit, &[])
}

/// [`xcheck_within`] with `env` added to the environment.
fn xcheck_with_env(dir: &Path, args: &[&str], limit: Duration, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xcheck"))
        .envs(env.iter().copied())
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the xcheck binary runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("xcheck {args:?} did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn xcheck(dir: &Path, args: &[&str]) -> Output {
    xcheck_within(dir, args, Duration::from_secs(60))
}

/// Exit code 2 and exactly one line on stderr, an error that mentions `needle`.
fn assert_one_line_error(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "status {:?}, stderr: {err}",
        o.status
    );
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("xcheck: error: "), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

fn corpus(case: &str, file: &str) -> PathBuf {
    repo().join("build/corpora").join(case).join(file)
}

/// The function a corpus case checks (its `case.toml`).
fn function_of(case: &str) -> String {
    let toml = std::fs::read_to_string(repo().join("corpora").join(case).join("case.toml"))
        .expect("the corpus case has a case.toml");
    let line = toml
        .lines()
        .find_map(|l| l.strip_prefix("function = "))
        .expect("case.toml names its function");
    line.trim().trim_matches('"').to_string()
}

/// Writes `source` with 1 to 4 random bits flipped to `out`.
fn flip_bits(source: &Path, out: &Path, rng: &mut Rng) {
    let mut bytes = std::fs::read(source).unwrap();
    for _ in 0..1 + rng.below(4) {
        let bit = rng.below(bytes.len() * 8);
        bytes[bit / 8] ^= 1 << (bit % 8);
    }
    std::fs::write(out, bytes).unwrap();
}

/// A corpus file with bits flipped so that LLVM's reader aborts on it (the first such
/// mutant of a fixed sequence).
fn crashing_mutant(dir: &Path) -> PathBuf {
    let source = corpus("clamp", "a.O2.bc");
    let (b, f) = (corpus("clamp", "b.O2.bc"), function_of("clamp"));
    let mut rng = Rng(7);
    for i in 0..200 {
        let mutant = dir.join(format!("crash{i}.bc"));
        flip_bits(&source, &mutant, &mut rng);
        let o = xcheck(
            dir,
            &[
                mutant.to_str().unwrap(),
                b.to_str().unwrap(),
                "--function",
                &f,
            ],
        );
        if stderr(&o).contains("corrupt bitcode (LLVM's reader") {
            return mutant;
        }
    }
    panic!("no mutant of {} crashed LLVM's reader", source.display());
}

// See: #14, bitcode from today's compilers. A file LLVM 19's reader refuses is one line
// naming the reader's version and, once the file said it, the producer's: what a user with
// bitcode from a newer clang sees.
#[test]
fn a_refused_file_names_the_reader_and_the_producer() {
    let dir = tempfile::tempdir().unwrap();
    let source = corpus("clamp", "a.O2.bc");
    let (b, f) = (corpus("clamp", "b.O2.bc"), function_of("clamp"));
    let mut rng = Rng(3);
    for i in 0..300 {
        let mutant = dir.path().join(format!("r{i}.bc"));
        flip_bits(&source, &mutant, &mut rng);
        let o = xcheck(
            dir.path(),
            &[
                mutant.to_str().unwrap(),
                b.to_str().unwrap(),
                "--function",
                &f,
            ],
        );
        let err = stderr(&o);
        if err.contains("(Producer: ") {
            assert_one_line_error(&o, &format!("r{i}.bc"));
            assert!(
                err.contains("not bitcode that LLVM 19.") && err.contains("Reader: 'LLVM 19."),
                "{err}"
            );
            assert!(err.contains("Producer: 'LLVM19."), "{err}");
            return;
        }
    }
    panic!(
        "no mutant of {} was refused with its producer named",
        source.display()
    );
}

#[test]
fn flipped_bits_in_corpus_bitcode_never_crash_xcheck() {
    let dir = tempfile::tempdir().unwrap();
    let cases = ["abs", "clamp", "gcd", "checked_add", "day_of_year"];
    let mut rng = Rng(0x0b17_f11b);
    let mut reader_crashes = 0;
    // At least 60 mutants, and on until three crashed the reader (at most 400).
    for i in 0..400 {
        if i >= 60 && reader_crashes >= 3 {
            break;
        }
        let case = cases[rng.below(cases.len())];
        let opt = ["O0", "O2"][rng.below(2)];
        let (a, b) = (
            corpus(case, &format!("a.{opt}.bc")),
            corpus(case, &format!("b.{opt}.bc")),
        );
        let mutant = dir.path().join(format!("m{i}.bc"));
        flip_bits(&a, &mutant, &mut rng);
        let f = function_of(case);
        let out = dir.path().join("out");
        let args = [
            mutant.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            &f,
            "-j",
            "1",
            "--max-time",
            "5",
            "-o",
            out.to_str().unwrap(),
        ];
        let o = xcheck(dir.path(), &args);
        let err = stderr(&o);
        let code = o.status.code();
        assert!(
            matches!(code, Some(0..=3)),
            "mutant {i} of {}: status {:?}, stderr: {err}",
            a.display(),
            o.status
        );
        if code == Some(2) {
            assert_one_line_error(&o, &format!("m{i}.bc"));
            reader_crashes += err.contains("corrupt bitcode (LLVM's reader") as usize;
        }
    }
    // A few in a hundred such mutants crash LLVM 19's reader (a quarter crashed LLVM 14's):
    // the isolation was exercised.
    assert!(reader_crashes >= 3, "only {reader_crashes} reader crashes");
}

#[test]
fn every_command_that_loads_bitcode_survives_a_reader_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mutant = crashing_mutant(dir.path());
    let m = mutant.to_str().unwrap();
    let b = corpus("clamp", "b.O2.bc");
    let b = b.to_str().unwrap();
    let f = function_of("clamp");
    let ktest = dir.path().join("t.ktest");
    xcheck::ktest::KTest {
        args: vec![],
        sym_argvs: 0,
        sym_argv_len: 0,
        objects: vec![],
    }
    .write(&ktest)
    .unwrap();
    let config = dir.path().join("xcheck.toml");
    std::fs::write(
        &config,
        format!("[[pair]]\na = \"{m}\"\nb = \"{b}\"\nall_functions = true\n"),
    )
    .unwrap();
    let k = ktest.to_str().unwrap();
    let c = config.to_str().unwrap();
    let commands: [&[&str]; 7] = [
        &[m, b, "--function", &f],
        &[b, m, "--function", &f],
        &[m, b, "--all-functions"],
        &["--config", c],
        &[m, b],
        &["run", m],
        &["replay", k, m, b, "--function", &f],
    ];
    // The checker is a forked copy of the binary (a process with one thread), or the binary
    // run again as `xcheck __check-bitcode`: both ways, the crash is the same one line.
    let by_exec = [(xcheck::load::CHECK_BY_EXEC_VARIABLE, "1")];
    for args in commands {
        for env in [&[][..], &by_exec[..]] {
            let o = xcheck_with_env(dir.path(), args, Duration::from_secs(60), env);
            assert_one_line_error(&o, "corrupt bitcode (LLVM's reader");
            assert!(
                stderr(&o).contains(&format!("{m}: ")),
                "{args:?} {env:?}: {}",
                stderr(&o)
            );
        }
    }
}

/// A reader crash leaves no core file behind, even where core files are on: the child
/// that crashes exists for that, and its crash is already the one-line error.
#[test]
fn a_reader_crash_leaves_no_core_file() {
    let pattern = std::fs::read_to_string("/proc/sys/kernel/core_pattern").unwrap_or_default();
    let pattern = pattern.trim();
    if pattern.is_empty() || pattern.contains('/') || pattern.starts_with('|') {
        eprintln!("core files go to {pattern:?}, not the working directory: nothing to observe");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mutant = crashing_mutant(dir.path());
    let b = corpus("clamp", "b.O2.bc");
    let f = function_of("clamp");
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let o = Command::new("sh")
        .args(["-c", "ulimit -c unlimited && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_xcheck"))
        .args([
            mutant.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            &f,
        ])
        .current_dir(&run)
        .output()
        .unwrap();
    assert_one_line_error(&o, "corrupt bitcode (LLVM's reader");
    let left: Vec<_> = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn absurd_option_values_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (corpus("abs", "a.O2.bc"), corpus("abs", "b.O2.bc"));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let f = function_of("abs");
    // (`--solver-timeout 0` is valid: no limit.)
    let cases: [(&[&str], &str); 8] = [
        (&["--max-time", "99999999999999999999"], "at most 720h"),
        (&["--max-time", "1000000h"], "at most 720h"),
        (&["-j", "100000"], "at most 256"),
        (
            &["--solver-timeout", "99999999999999999999"],
            "at most 720h",
        ),
        (&["--max-memory", "99999999999999"], "at most 16777216 MiB"),
        (&["--buffer-size", "99999999999"], "1 to 1048576"),
        (&["--buffer-size", "0"], "1 to 1048576"),
        (&["--max-time", "5 minutes"], "not a duration"),
    ];
    for (extra, needle) in cases {
        let mut args = vec![a, b, "--function", &f];
        args.extend_from_slice(extra);
        assert_one_line_error(&xcheck(dir.path(), &args), needle);
    }
    let (pa, pb) = (
        repo().join("build/programs/wc_l/a.bc"),
        repo().join("build/programs/wc_l/b.bc"),
    );
    let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
    let env: [(&[&str], &str); 4] = [
        (
            &["--sym-stdin", "99999999999"],
            "out of range (at most 4096 bytes)",
        ),
        (
            &["--sym-args", "0", "99999999999", "2"],
            "out of range (at most 32 arguments)",
        ),
        (
            &["--sym-files", "27", "8"],
            "out of range (at most 26 files",
        ),
        (&["--sym-arg", "x"], "'x' is not a number"),
    ];
    for (extra, needle) in env {
        let mut args = vec![pa, pb];
        args.extend_from_slice(extra);
        assert_one_line_error(&xcheck(dir.path(), &args), needle);
    }
    let replay = [
        "replay",
        ".",
        "--native",
        "a",
        "b",
        "--timeout",
        "99999999h",
    ];
    assert_one_line_error(&xcheck(dir.path(), &replay), "--timeout");
    // Errors clap finds itself are one line too, naming the option.
    let clap_cases: [(&[&str], &str); 4] = [
        (&[a, b, "--bogus"], "unexpected argument '--bogus'"),
        (&[a, b, "-j"], "a value is required for '--jobs <N>'"),
        (
            &[a, b, "--function", &f, "--log-queries-slower-than", "1s"],
            "required arguments were not provided: --log-queries <FILE>",
        ),
        (&["query"], "required arguments were not provided: <LOG>"),
    ];
    for (args, needle) in clap_cases {
        assert_one_line_error(&xcheck(dir.path(), args), needle);
    }
    let toml = dir.path().join("long.toml");
    for value in ["99999999999", "\"99999999999999h\"", "\"1e300h\""] {
        std::fs::write(&toml, format!("[defaults]\nmax_time = {value}\n")).unwrap();
        let o = xcheck(dir.path(), &["--config", toml.to_str().unwrap()]);
        assert_one_line_error(&o, "long.toml:2: defaults.max_time");
    }
}

#[test]
fn devices_fifos_and_huge_files_are_refused_as_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let fifo = fifo.to_str().unwrap();
    let b = corpus("abs", "b.O2.bc");
    let b = b.to_str().unwrap();
    let limit = Duration::from_secs(20);
    let not_regular = "not a regular file";
    for args in [
        &["/dev/zero", b, "--function", "f"][..],
        &[b, fifo, "--function", "f"],
        &["/dev/zero", b],
        &["run", fifo],
        &["show", "/dev/zero"],
        &["show", fifo],
        &["--config", fifo],
        &["--config", "/dev/zero"],
        &["replay", fifo, b, b, "--function", "f"],
    ] {
        let o = xcheck_within(dir.path(), args, limit);
        assert_one_line_error(&o, not_regular);
    }
    // Sparse files one byte over each limit: refused from their size, without reading.
    for (name, size, args, needle) in [
        (
            "big.bc",
            (1u64 << 30) + 1,
            vec!["big.bc", b],
            "1 GiB limit of bitcode files",
        ),
        (
            "big.ktest",
            (256 << 20) + 1,
            vec!["show", "big.ktest"],
            "256 MiB limit",
        ),
        (
            "big.toml",
            (16 << 20) + 1,
            vec!["--config", "big.toml"],
            "16 MiB limit",
        ),
    ] {
        let file = std::fs::File::create(dir.path().join(name)).unwrap();
        file.set_len(size).unwrap();
        let o = xcheck_within(dir.path(), &args, limit);
        assert_one_line_error(&o, needle);
        assert!(stderr(&o).contains(&format!("{name}: ")), "{}", stderr(&o));
    }
}

#[test]
fn corrupt_ktest_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let valid = xcheck::ktest::KTest {
        args: vec!["p".into()],
        sym_argvs: 0,
        sym_argv_len: 0,
        objects: vec![xcheck::ktest::KTestObject {
            name: "n".into(),
            bytes: vec![1, 2, 3, 4],
        }],
    }
    .to_bytes();
    let mut four_gb = valid.clone();
    let at = four_gb.len() - 8;
    four_gb[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    let (a, b) = (corpus("abs", "a.O2.bc"), corpus("abs", "b.O2.bc"));
    let f = function_of("abs");
    for (name, bytes, needle) in [
        (
            "truncated.ktest",
            valid[..valid.len() - 3].to_vec(),
            "truncated: object 0 data",
        ),
        ("huge.ktest", four_gb, "needs 4294967295 bytes"),
        ("magic.ktest", b"\x7fELF\x02\x01\x01".to_vec(), "bad magic"),
        ("empty.ktest", vec![], "truncated: magic"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let p = path.to_str().unwrap();
        let show = xcheck(dir.path(), &["show", p]);
        assert_one_line_error(&show, needle);
        // The file is named once, not twice.
        assert_eq!(stderr(&show).matches(name).count(), 1, "{}", stderr(&show));
        let replay = [
            "replay",
            p,
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--function",
            &f,
        ];
        assert_one_line_error(&xcheck(dir.path(), &replay), needle);
    }
    // A name that is not UTF-8 is shown with replacement characters, not refused.
    let mut bad_name = valid.clone();
    let name_at = bad_name.len() - 9;
    assert_eq!(bad_name[name_at], b'n');
    bad_name[name_at] = 0xff;
    let path = dir.path().join("name.ktest");
    std::fs::write(&path, bad_name).unwrap();
    let o = xcheck(dir.path(), &["show", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(crate::common::stdout(&o).contains("name: '\u{fffd}'"));
}

#[test]
fn bad_config_files_are_one_line_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("x = {}", "[".repeat(100_000));
    let garbage: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    for (name, bytes) in [
        ("deep.toml", deep.into_bytes()),
        ("garbage.toml", garbage),
        ("truncated.toml", b"[[pair]]\na = \"x.bc".to_vec()),
        ("utf8.toml", b"[defaults]\nseed = 1 # \xff\xfe\n".to_vec()),
        (
            "numbers.toml",
            b"[defaults]\nbuffer_size = 99999999999999999999\n".to_vec(),
        ),
        ("seed.toml", b"[defaults]\nseed = -1\n".to_vec()),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let o = xcheck(dir.path(), &["--config", path.to_str().unwrap()]);
        assert_one_line_error(&o, name);
    }
}
