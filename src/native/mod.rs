//! Native replay of whole-program tests: rebuilds a test's argv, stdin and symbolic files
//! from its `.ktest` (KLEE's object names and order, in any of the layouts
//! [`model_layout`] reads; a file's mode and times come from its stat object, as KLEE's
//! `klee-replay` takes them), runs the unmodified native binaries
//! in a scratch directory with a timeout, and compares what they did. Function-check tests
//! run on an executable built from the two bitcode files: `function.rs`.

pub mod function;
pub mod replay;

use crate::env_options::{model_layout, pinned_stat, role, EnvError, EnvItem, EnvOptions, Role};
use crate::ktest::KTest;
use crate::stop::Stop;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The concrete environment of one test.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NativeEnv {
    /// `argv`, program name first.
    pub argv: Vec<Vec<u8>>,
    /// The whole of stdin.
    pub stdin: Vec<u8>,
    /// The mode and times of the file stdin reads (`stdin_stat`), when the test has them.
    pub stdin_stat: Option<FileStat>,
    /// Files to create in the working directory.
    pub files: Vec<NativeFile>,
}

/// The permission bits and times a native run's file gets from its stat object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// Permission bits (`st_mode & 0o777`).
    pub mode: u32,
    /// Access and modification times, seconds since 1970 (`st_atime`, `st_mtime`).
    pub atime: i64,
    pub mtime: i64,
}

/// A symbolic file as a native run finds it in its working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeFile {
    pub name: String,
    pub bytes: Vec<u8>,
    /// Permission bits (`st_mode & 0o777` of its stat object).
    pub mode: u32,
    /// Access and modification times, seconds since 1970 (`st_atime`, `st_mtime`).
    pub atime: i64,
    pub mtime: i64,
}

impl NativeFile {
    /// File `name` with `bytes`, its mode and times from `stat` (a `struct stat64`); only a
    /// regular file can be made (as klee-replay's file creator does for `S_IFREG`).
    fn new(name: &str, bytes: &[u8], stat: &[u8]) -> Result<NativeFile, ReplayError> {
        if stat.len() != crate::env_options::STAT_SIZE {
            return Err(ReplayError::BadObject(format!(
                "the stat object of file {name} has {} bytes, not {}",
                stat.len(),
                crate::env_options::STAT_SIZE
            )));
        }
        let u32_at = |at: usize| u32::from_le_bytes(stat[at..at + 4].try_into().expect("4"));
        let i64_at = |at: usize| i64::from_le_bytes(stat[at..at + 8].try_into().expect("8"));
        let mode = u32_at(24);
        let kind = mode & 0o170000;
        if kind != 0o100000 && kind != 0 {
            return Err(ReplayError::BadObject(format!(
                "the stat object of file {name} says file type {kind:#o}: native replay makes regular files only"
            )));
        }
        Ok(NativeFile {
            name: name.to_string(),
            bytes: bytes.to_vec(),
            mode: mode & 0o777,
            atime: i64_at(72),
            mtime: i64_at(88),
        })
    }
}

/// Why a test cannot be replayed natively.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The test records no command line (no program name).
    NoCommandLine,
    /// The recorded command line is not a valid environment.
    BadOptions(EnvError),
    /// System calls fail on purpose on the test's path, which a native run cannot do.
    InjectsFailures(&'static str),
    /// The test lacks an object its options make.
    MissingObject(String),
    /// An object has the wrong size for its role.
    BadObject(String),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::NoCommandLine => f.write_str("the test records no command line"),
            ReplayError::BadOptions(e) => write!(f, "its command line: {e}"),
            ReplayError::InjectsFailures(option) => write!(
                f,
                "uses {option}: injected system-call failures cannot be replayed natively"
            ),
            ReplayError::MissingObject(what) => write!(f, "the test lacks {what}"),
            ReplayError::BadObject(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Rebuilds the environment of `test` from its command line and objects: the options are
/// parsed into [`EnvOptions`], and each symbolic object is taken by its role, in the order
/// the model made them.
pub fn env_of(test: &KTest) -> Result<NativeEnv, ReplayError> {
    let Some((argv0, options)) = test.args.split_first() else {
        return Err(ReplayError::NoCommandLine);
    };
    let options = EnvOptions::parse(options).map_err(ReplayError::BadOptions)?;
    if let Some(option) = options.injects_failures() {
        return Err(ReplayError::InjectsFailures(option));
    }
    // The layout must be consistent; the objects are then taken by role, whatever their
    // spelling (`A_data` or `A-data`).
    model_layout(
        test.objects
            .iter()
            .map(|o| (o.name.as_str(), o.bytes.as_slice())),
    )
    .map_err(|e| ReplayError::BadObject(format!("its objects: {e}")))?;
    let mut env = NativeEnv {
        argv: vec![argv0.as_bytes().to_vec()],
        ..NativeEnv::default()
    };
    // Argument objects and counts, in the order the model made them.
    let mut args = test
        .objects
        .iter()
        .filter(|o| matches!(role(&o.name), Role::Arg | Role::ArgCount));
    let mut next = |wanted: Role, what: &str| {
        args.next()
            .filter(|o| role(&o.name) == wanted)
            .ok_or_else(|| ReplayError::MissingObject(what.to_string()))
    };
    let object = |wanted: Role| test.objects.iter().find(|o| role(&o.name) == wanted);
    for item in &options.items {
        match item {
            EnvItem::SymArg { .. } => {
                env.argv
                    .push(c_string(&next(Role::Arg, "an argument object")?.bytes));
            }
            EnvItem::SymArgs { min, max, .. } => {
                let count = if min == max {
                    *min as usize
                } else {
                    let o = next(Role::ArgCount, "its n_args object")?;
                    let bytes: [u8; 4] = o.bytes.as_slice().try_into().map_err(|_| {
                        ReplayError::BadObject(format!("n_args has {} bytes, not 4", o.bytes.len()))
                    })?;
                    i32::from_le_bytes(bytes).max(0) as usize
                };
                for _ in 0..count {
                    env.argv
                        .push(c_string(&next(Role::Arg, "an argument object")?.bytes));
                }
            }
            EnvItem::SymFiles { count, .. } => {
                for k in 0..*count {
                    let name = char::from(b'A' + k as u8);
                    let data = object(Role::File(name)).ok_or_else(|| {
                        ReplayError::MissingObject(format!("object '{name}_data'"))
                    })?;
                    // The old layout has no stat object: the model's values stand for it.
                    let pinned = pinned_stat(data.bytes.len() as u64, 10 + u64::from(k));
                    let stat = object(Role::FileStat(name)).map_or(&pinned[..], |o| &o.bytes);
                    env.files
                        .push(NativeFile::new(&name.to_string(), &data.bytes, stat)?);
                }
            }
            EnvItem::SymStdin { .. } => {
                let data = object(Role::Stdin)
                    .ok_or_else(|| ReplayError::MissingObject("object 'stdin'".into()))?;
                env.stdin = data.bytes.clone();
                if let Some(stat) = object(Role::StdinStat) {
                    let file = NativeFile::new("stdin", &[], &stat.bytes)?;
                    env.stdin_stat = Some(FileStat {
                        mode: file.mode,
                        atime: file.atime,
                        mtime: file.mtime,
                    });
                }
            }
            EnvItem::MaxFail { .. } | EnvItem::FdFail | EnvItem::SaveAllWrites => {}
            EnvItem::Arg(a) => env.argv.push(a.as_bytes().to_vec()),
        }
    }
    Ok(env)
}

/// Gives the file at `path` the times, then the mode, of `stat`.
fn apply_stat(path: &Path, stat: &FileStat) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let time = |secs: i64| {
        let d = Duration::from_secs(secs.unsigned_abs());
        if secs < 0 {
            std::time::UNIX_EPOCH.checked_sub(d)
        } else {
            std::time::UNIX_EPOCH.checked_add(d)
        }
    };
    if let (Some(a), Some(m)) = (time(stat.atime), time(stat.mtime)) {
        let times = std::fs::FileTimes::new().set_accessed(a).set_modified(m);
        std::fs::File::options()
            .write(true)
            .open(path)?
            .set_times(times)?;
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(stat.mode))
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
    /// Killed before it ended: out of its time, or told to stop (an interrupt, a check's
    /// deadline).
    pub timed_out: bool,
    /// What the working directory held when it ended (the test's files as given, and what
    /// the program made of them), in name order.
    pub files: Vec<FileState>,
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

/// Runs `binary` on `env` in a fresh scratch directory, with an empty environment, for at
/// most `timeout` and not past the moment `stop` says to stop (its deadline, an interrupt):
/// the process is killed then, and the run says it timed out.
pub fn run_native(
    binary: &Path,
    env: &NativeEnv,
    timeout: Duration,
    stop: &Stop,
) -> std::io::Result<NativeRun> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    let binary = std::fs::canonicalize(binary)?;
    // A fresh directory of an unpredictable name, removed when `scratch` drops, on every
    // return: the program runs in `cwd` inside it, its stdin is beside `cwd` (the model's
    // file system has no such file).
    let scratch = tempfile::Builder::new()
        .prefix("xcheck-replay-")
        .tempdir()?;
    let dir = scratch.path().join("cwd");
    std::fs::create_dir(&dir)?;
    for f in &env.files {
        // As klee-replay: the contents, then the times and the mode of the stat object.
        let path = dir.join(&f.name);
        std::fs::write(&path, &f.bytes)?;
        let stat = FileStat {
            mode: f.mode,
            atime: f.atime,
            mtime: f.mtime,
        };
        apply_stat(&path, &stat)?;
    }
    let stdin_path = scratch.path().join("stdin");
    std::fs::write(&stdin_path, &env.stdin)?;
    if let Some(stat) = &env.stdin_stat {
        apply_stat(&stdin_path, stat)?;
    }
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
        if started.elapsed() > timeout || stop.should_stop() {
            timed_out = true;
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    let mut files = Vec::new();
    snapshot(&dir, "", &mut files)?;
    files.sort_by(|x, y| x.name.cmp(&y.name));
    drop(scratch);
    Ok(NativeRun {
        stdout,
        stderr,
        status: status.code(),
        signal: status.signal(),
        timed_out,
        files,
    })
}

/// One entry of the directory a native run ended with: its path below the run's working
/// directory, whether it is a directory, its permission bits and a file's contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub name: String,
    pub directory: bool,
    pub mode: u32,
    pub contents: Vec<u8>,
}

/// The entries below `dir` (`prefix` names it), depth first; symbolic links as files of
/// their target's name.
fn snapshot(dir: &Path, prefix: &str, out: &mut Vec<FileState>) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        let meta = entry.path().symlink_metadata()?;
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            out.push(FileState {
                name: name.clone(),
                directory: true,
                mode,
                contents: Vec::new(),
            });
            snapshot(&entry.path(), &format!("{name}/"), out)?;
        } else {
            let contents = if meta.file_type().is_symlink() {
                std::fs::read_link(entry.path())?
                    .to_string_lossy()
                    .into_owned()
                    .into_bytes()
            } else {
                std::fs::read(entry.path()).unwrap_or_default()
            };
            out.push(FileState {
                name,
                directory: false,
                mode,
                contents,
            });
        }
    }
    Ok(())
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
        || (compare.files && a.files != b.files)
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

    /// A test with the command line `args` (words separated by spaces) and `objects`.
    fn ktest(args: &str, objects: Vec<KTestObject>) -> KTest {
        KTest {
            args: args.split(' ').map(String::from).collect(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects,
        }
    }

    #[test]
    fn rebuilds_arguments_files_and_stdin_in_klee_order() {
        let test = ktest(
            "wc -l --sym-args 0 2 2 --sym-files 1 3 --sym-stdin 2",
            vec![
                obj("n_args", &1i32.to_le_bytes()),
                obj("arg00", b"A\0\0"),
                obj("A-data", b"x\ny"),
                obj("stdin", b"ab"),
                obj("model_version", &1u32.to_le_bytes()),
            ],
        );
        let env = env_of(&test).unwrap();
        assert_eq!(
            env.argv,
            vec![b"wc".to_vec(), b"-l".to_vec(), b"A".to_vec()]
        );
        let file = |mode| NativeFile {
            name: "A".into(),
            bytes: b"x\ny".to_vec(),
            mode,
            atime: crate::env_options::MODEL_EPOCH,
            mtime: crate::env_options::MODEL_EPOCH,
        };
        // The old layout has no stat object: the model's pinned values stand for it.
        assert_eq!(env.files, vec![file(0o644)]);
        assert_eq!(env.stdin, b"ab".to_vec());
        // The same test in KLEE 3.x's layout, with A's mode changed to 0600 and its times to
        // 1 and 2: the file gets them.
        let mut stat = pinned_stat(3, 10);
        stat[24..28].copy_from_slice(&0o100600u32.to_le_bytes());
        stat[72..80].copy_from_slice(&1i64.to_le_bytes());
        stat[88..96].copy_from_slice(&2i64.to_le_bytes());
        let klee3 = ktest(
            "wc -l --sym-args 0 2 2 --sym-files 1 3 --sym-stdin 2",
            vec![
                obj("n_args", &1i32.to_le_bytes()),
                obj("arg00", b"A\0\0"),
                obj("A_data", b"x\ny"),
                obj("A_data_stat", &stat),
                obj("stdin", b"ab"),
                obj("stdin_stat", &pinned_stat(2, 9)),
            ],
        );
        let env3 = env_of(&klee3).unwrap();
        let want = NativeFile {
            atime: 1,
            mtime: 2,
            ..file(0o600)
        };
        assert_eq!(env3.files, vec![want]);
        assert_eq!((&env3.argv, &env3.stdin), (&env.argv, &env.stdin));
        // A directory in the stat object cannot be made; a stat object out of place is an
        // inconsistent test.
        let mut objects = klee3.objects.clone();
        objects[3].bytes[24..28].copy_from_slice(&0o040755u32.to_le_bytes());
        let dir = ktest(
            "wc -l --sym-args 0 2 2 --sym-files 1 3 --sym-stdin 2",
            objects,
        );
        assert!(matches!(env_of(&dir), Err(ReplayError::BadObject(m)) if m.contains("0o40000")));
        let mut objects = klee3.objects.clone();
        objects.swap(2, 3);
        let swapped = ktest(
            "wc -l --sym-args 0 2 2 --sym-files 1 3 --sym-stdin 2",
            objects,
        );
        assert!(
            matches!(env_of(&swapped), Err(ReplayError::BadObject(m)) if m.contains("A_data_stat"))
        );
    }

    /// A native run finds file A with the contents, mode and modification time of the test.
    #[test]
    fn files_get_the_stat_objects_mode_and_time() {
        let stat = std::path::Path::new("/usr/bin/stat");
        if !stat.exists() {
            return;
        }
        let env = NativeEnv {
            argv: ["stat", "-c", "%a %Y %s", "A"]
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            stdin: Vec::new(),
            stdin_stat: None,
            files: vec![NativeFile {
                name: "A".into(),
                bytes: b"abcde".to_vec(),
                mode: 0o640,
                atime: 5,
                mtime: crate::env_options::MODEL_EPOCH,
            }],
        };
        let run = run_native(stat, &env, Duration::from_secs(10), &Stop::default()).unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "640 1577836800 5\n");
        // Stdin's file gets the mode and times of its stat object too.
        let env = NativeEnv {
            argv: ["stat", "-L", "-c", "%a %Y", "/dev/stdin"]
                .iter()
                .map(|a| a.as_bytes().to_vec())
                .collect(),
            stdin: b"xyz".to_vec(),
            stdin_stat: Some(FileStat {
                mode: 0o444,
                atime: 7,
                mtime: 12345,
            }),
            files: Vec::new(),
        };
        let run = run_native(stat, &env, Duration::from_secs(10), &Stop::default()).unwrap();
        assert_eq!(String::from_utf8_lossy(&run.stdout), "444 12345\n");
    }

    /// A test's stdin_stat reaches the native environment.
    #[test]
    fn stdin_takes_its_stat_objects_mode_and_times() {
        let mut stat = pinned_stat(3, 9);
        stat[24..28].copy_from_slice(&0o100444u32.to_le_bytes());
        stat[88..96].copy_from_slice(&99i64.to_le_bytes());
        let test = ktest(
            "p --sym-stdin 3",
            vec![obj("stdin", b"abc"), obj("stdin_stat", &stat)],
        );
        let env = env_of(&test).unwrap();
        assert_eq!(
            env.stdin_stat,
            Some(FileStat {
                mode: 0o444,
                atime: crate::env_options::MODEL_EPOCH,
                mtime: 99
            })
        );
    }

    #[test]
    fn each_sym_args_takes_its_own_count() {
        let test = ktest(
            "p --sym-args 0 2 1 -x --sym-args 1 3 2 --sym-arg 1",
            vec![
                obj("n_args", &0i32.to_le_bytes()),
                obj("n_args", &2i32.to_le_bytes()),
                obj("arg00", b"ab\0"),
                obj("arg01", b"c\0\0"),
                obj("arg02", b"d\0"),
                obj("model_version", &1u32.to_le_bytes()),
            ],
        );
        let env = env_of(&test).unwrap();
        let argv: Vec<&[u8]> = env.argv.iter().map(Vec::as_slice).collect();
        assert_eq!(argv, [&b"p"[..], b"-x", b"ab", b"c", b"d"]);
    }

    #[test]
    fn failure_injection_bad_options_and_missing_objects_are_typed_errors() {
        assert_eq!(
            env_of(&ktest("p --max-fail 1", vec![])),
            Err(ReplayError::InjectsFailures("--max-fail"))
        );
        assert!(matches!(
            env_of(&ktest("p --sym-stdin x", vec![])),
            Err(ReplayError::BadOptions(EnvError::NotANumber { .. }))
        ));
        // A missing object is an error, not a guess.
        assert!(matches!(
            env_of(&ktest("p --sym-arg 2", vec![])),
            Err(ReplayError::MissingObject(_))
        ));
    }
}
