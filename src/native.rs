//! Native replay of whole-program tests: rebuilds a test's argv, stdin and symbolic files
//! from its `.ktest` (KLEE's object names and order), runs the unmodified native binaries
//! in a scratch directory with a timeout, and compares what they did.

use crate::ktest::KTest;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The concrete environment of one test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeEnv {
    /// `argv`, program name first.
    pub argv: Vec<Vec<u8>>,
    /// The whole of stdin.
    pub stdin: Vec<u8>,
    /// Files to create in the working directory: name and contents.
    pub files: Vec<(String, Vec<u8>)>,
}

/// Rebuilds the environment of `test` from its command line and objects.
pub fn env_of(test: &KTest) -> Result<NativeEnv, String> {
    let Some((argv0, options)) = test.args.split_first() else {
        return Err("the test records no command line".into());
    };
    let mut env = NativeEnv {
        argv: vec![argv0.as_bytes().to_vec()],
        ..NativeEnv::default()
    };
    // Argument objects (and counts) in the order the model made them.
    let mut args = test
        .objects
        .iter()
        .filter(|o| o.name == "n_args" || is_arg_object(&o.name));
    let object = |name: &str| test.objects.iter().find(|o| o.name == name);
    let number = |s: &str| -> Result<usize, String> {
        s.parse()
            .map_err(|_| format!("bad number '{s}' in the test's command line"))
    };
    let mut i = 0;
    while i < options.len() {
        let opt = options[i].as_str();
        // The model, like KLEE, also takes the single-dash spellings.
        let canonical = match opt.strip_prefix('-') {
            Some(rest) if rest.starts_with("sym-") || rest == "max-fail" => format!("-{opt}"),
            _ => opt.to_string(),
        };
        match canonical.as_str() {
            "--fd-fail" => {
                return Err(
                    "uses --fd-fail: injected system-call failures cannot be replayed natively"
                        .into(),
                )
            }
            "--save-all-writes" => i += 1,
            "--sym-arg" => {
                let o = args.next().ok_or("the test lacks an argument object")?;
                env.argv.push(c_string(&o.bytes));
                i += 2;
            }
            "--sym-args" => {
                let lo = number(options.get(i + 1).ok_or("--sym-args needs 3 numbers")?)?;
                let hi = number(options.get(i + 2).ok_or("--sym-args needs 3 numbers")?)?;
                let count = if lo == hi {
                    lo
                } else {
                    let o = args.next().ok_or("the test lacks its n_args object")?;
                    if o.name != "n_args" || o.bytes.len() != 4 {
                        return Err(format!("expected n_args, found object '{}'", o.name));
                    }
                    i32::from_le_bytes([o.bytes[0], o.bytes[1], o.bytes[2], o.bytes[3]]).max(0)
                        as usize
                };
                for _ in 0..count {
                    let o = args.next().ok_or("the test lacks an argument object")?;
                    env.argv.push(c_string(&o.bytes));
                }
                i += 4;
            }
            "--sym-files" => {
                let n = number(options.get(i + 1).ok_or("--sym-files needs 2 numbers")?)?;
                for k in 0..n.min(26) {
                    let name = ((b'A' + k as u8) as char).to_string();
                    let data = object(&format!("{name}-data"))
                        .ok_or_else(|| format!("the test lacks object '{name}-data'"))?;
                    env.files.push((name, data.bytes.clone()));
                }
                i += 3;
            }
            "--sym-stdin" => {
                let data = object("stdin").ok_or("the test lacks object 'stdin'")?;
                env.stdin = data.bytes.clone();
                i += 2;
            }
            "--max-fail" => {
                return Err(
                    "uses --max-fail: injected system-call failures cannot be replayed natively"
                        .into(),
                )
            }
            _ => {
                env.argv.push(opt.as_bytes().to_vec());
                i += 1;
            }
        }
    }
    Ok(env)
}

fn is_arg_object(name: &str) -> bool {
    name.len() >= 5 && name.starts_with("arg") && name[3..].bytes().all(|b| b.is_ascii_digit())
}

/// The bytes of a NUL-terminated string object, without the terminator.
fn c_string(bytes: &[u8]) -> Vec<u8> {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes[..end].to_vec()
}

/// What one native run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeRun {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Exit status, when the program exited.
    pub status: Option<i32>,
    /// The signal that killed it, when one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
}

impl NativeRun {
    /// `exit 1` or `killed by signal 6`.
    pub fn end(&self) -> String {
        match (self.timed_out, self.status, self.signal) {
            (true, _, _) => "timed out".into(),
            (_, Some(s), _) => format!("exit {s}"),
            (_, _, Some(sig)) => format!(
                "killed by signal {sig} ({})",
                crate::exec::state::signal_name(sig)
            ),
            _ => "ended".into(),
        }
    }
}

/// Runs `binary` on `env` in a fresh scratch directory, with an empty environment and at
/// most `timeout`.
pub fn run_native(binary: &Path, env: &NativeEnv, timeout: Duration) -> std::io::Result<NativeRun> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let binary = std::fs::canonicalize(binary)?;
    let dir = scratch_dir()?;
    for (name, bytes) in &env.files {
        std::fs::write(dir.join(name), bytes)?;
    }
    // Beside the scratch directory, not in it: the model's file system has no such file.
    let stdin_path = dir.with_extension("stdin");
    std::fs::write(&stdin_path, &env.stdin)?;
    let mut command = Command::new(&binary);
    command
        .arg0(std::ffi::OsStr::from_bytes(&env.argv[0]))
        .args(env.argv[1..].iter().map(|a| std::ffi::OsStr::from_bytes(a)))
        .current_dir(&dir)
        .env_clear()
        .stdin(std::fs::File::open(&stdin_path)?)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let mut out = child.stdout.take().expect("piped");
    let mut err = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let started = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if started.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&stdin_path);
    Ok(NativeRun {
        stdout,
        stderr,
        status: status.code(),
        signal: status.signal(),
        timed_out,
    })
}

fn scratch_dir() -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("xcheck-replay-{}-{n}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Whether two runs differ in what `compare` looks at.
pub fn differ(a: &NativeRun, b: &NativeRun, compare: crate::crosscheck::program::Compare) -> bool {
    use crate::crosscheck::program::words_of;
    let same = |x: &[u8], y: &[u8]| {
        if compare.ignore_spacing {
            words_of(x) == words_of(y)
        } else {
            x == y
        }
    };
    (compare.stdout && !same(&a.stdout, &b.stdout))
        || (compare.stderr && !same(&a.stderr, &b.stderr))
        || (compare.exit
            && ((a.status.map(|s| s & 0xff), a.signal, a.timed_out)
                != (b.status.map(|s| s & 0xff), b.signal, b.timed_out)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ktest::KTestObject;

    fn obj(name: &str, bytes: &[u8]) -> KTestObject {
        KTestObject {
            name: name.into(),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn rebuilds_arguments_files_and_stdin_in_klee_order() {
        let test = KTest {
            args: [
                "wc",
                "-l",
                "--sym-args",
                "0",
                "2",
                "2",
                "--sym-files",
                "1",
                "3",
                "--sym-stdin",
                "2",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: vec![
                obj("n_args", &1i32.to_le_bytes()),
                obj("arg00", b"A\0\0"),
                obj("A-data", b"x\ny"),
                obj("stdin", b"ab"),
                obj("model_version", &1u32.to_le_bytes()),
            ],
        };
        let env = env_of(&test).unwrap();
        assert_eq!(
            env.argv,
            vec![b"wc".to_vec(), b"-l".to_vec(), b"A".to_vec()]
        );
        assert_eq!(env.files, vec![("A".to_string(), b"x\ny".to_vec())]);
        assert_eq!(env.stdin, b"ab".to_vec());
    }

    #[test]
    fn a_missing_object_is_an_error_not_a_guess() {
        let test = KTest {
            args: vec!["p".into(), "--sym-arg".into(), "2".into()],
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: vec![],
        };
        assert!(env_of(&test).is_err());
    }
}
