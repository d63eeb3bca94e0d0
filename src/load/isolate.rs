//! Untrusted bitcode is parsed first in a child process, where a crash cannot take xcheck down.
//!
//! LLVM's bitcode reader aborts (`LLVM ERROR: Invalid abbrev number`, or the verifier's
//! `Broken module found` while it upgrades debug info) or segfaults on corrupt files. The
//! binary calls [`parse_in_child`] with its own path; from then on every load first has a
//! child parse and verify (LLVM's verifier) the same bytes: a forked copy of the process
//! when it has one thread (as the binary has when it loads), else `xcheck
//! __check-bitcode`, which reads the files again (and always with
//! [`CHECK_BY_EXEC_VARIABLE`] set). A child that dies by a signal becomes one error line
//! naming the file it was parsing; a child that fails cleanly passes its error on; debug info the reader had to
//! drop as invalid is an error too (LLVM would print the verifier's dump and go on). Only
//! then does the parent parse the files itself, without the verifier, and link and lower
//! them: the verifier has shown them well-formed.
//!
//! The child's stdout is the protocol, one line each: `xcheck-check-bitcode 1` first, then
//! `parsing I` before input `I` is parsed, and last `ok` (exit 0) or `error I MESSAGE`
//! (exit 2; `I` is the input the error names, `-` for none). Its arguments are a hash of
//! the bytes the parent read and the paths: a file that changed in between is an error, so
//! the child checks the bytes the parent then uses. Byte strings already checked are
//! remembered for the life of the process (a replay of a directory loads the same pair once
//! per test).

use super::{check_parse, read_bitcode, Input};
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::ffi::OsString;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The hidden subcommand that runs the child's side ([`check_bitcode_main`]).
pub const CHECK_SUBCOMMAND: &str = "__check-bitcode";

/// The child's first line: proof that the program run is this one.
const HANDSHAKE: &str = "xcheck-check-bitcode 1";

/// How long the child may take before it is killed and the file refused.
const TIME_LIMIT: Duration = Duration::from_secs(300);

/// The binary whose `__check-bitcode` loads inputs first; unset, loads happen in-process
/// (library use, where the caller trusts its files).
static CHECKER: OnceLock<PathBuf> = OnceLock::new();

/// Hashes of the inputs a child has parsed without error.
static VETTED: Mutex<Option<HashSet<u64>>> = Mutex::new(None);

/// From now on, every load of bitcode first runs `exe __check-bitcode` on the files. The
/// binary calls this with its own path (`std::env::current_exe`).
pub fn parse_in_child(exe: PathBuf) {
    let _ = CHECKER.set(exe);
}

/// Checks `inputs` in a child process, unless isolation is off or they were checked
/// before; returns whether they have been checked (the parent may then skip the verifier).
pub(super) fn vet(inputs: &[Input]) -> Result<bool> {
    let Some(exe) = CHECKER.get() else {
        return Ok(false);
    };
    let key = fingerprint(inputs);
    let seen = |add: bool| {
        let mut set = VETTED.lock().unwrap_or_else(|e| e.into_inner());
        let set = set.get_or_insert_with(HashSet::new);
        if add {
            set.insert(key)
        } else {
            set.contains(&key)
        }
    };
    if seen(false) {
        return Ok(true);
    }
    let run = run_child(exe, inputs, key).map_err(|e| {
        Error::input(
            &inputs[0].path,
            format!(
                "cannot run the bitcode checker ({} {CHECK_SUBCOMMAND}): {e}",
                exe.display()
            ),
        )
    })?;
    judge(inputs, &run)?;
    seen(true);
    Ok(true)
}

/// One hash of every input's bytes.
fn fingerprint(inputs: &[Input]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for input in inputs {
        input.bytes.hash(&mut h);
    }
    h.finish()
}

/// What the child did: how it ended (`None`: killed at the time limit), its stdout
/// lines and its stderr.
struct ChildRun {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
}

fn run_child(exe: &PathBuf, inputs: &[Input], key: u64) -> std::io::Result<ChildRun> {
    if fork_is_safe() && std::env::var_os(CHECK_BY_EXEC_VARIABLE).is_none() {
        return fork_child(inputs);
    }
    let mut child = Command::new(exe)
        .arg(CHECK_SUBCOMMAND)
        .arg(format!("{key:016x}"))
        .args(inputs.iter().map(|i| &i.path))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let (out, err) = (child.stdout.take(), child.stderr.take());
    let run = drain_and_wait(out, err, || {
        let _ = child.kill();
    });
    let status = if run.finished {
        Some(child.wait()?)
    } else {
        let _ = child.wait();
        None
    };
    Ok(ChildRun {
        status,
        stdout: run.stdout,
        stderr: run.stderr,
    })
}

/// What a checker wrote, and whether it ended within [`TIME_LIMIT`].
struct Drained {
    finished: bool,
    stdout: String,
    stderr: String,
}

/// Reads a checker's stdout and stderr to their ends (both while it runs, so that neither
/// pipe can fill and stall it); `kill` is called when its stdout is still open after
/// [`TIME_LIMIT`]. The caller waits for the process.
fn drain_and_wait(
    out: Option<impl Read + Send>,
    err: Option<impl Read + Send>,
    kill: impl FnOnce(),
) -> Drained {
    fn drain(pipe: Option<impl Read>) -> String {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }
    std::thread::scope(|s| {
        // The end of stdout is the child's end: waiting for it needs no polling.
        let (done, ended) = std::sync::mpsc::channel();
        let stdout = s.spawn(move || {
            let text = drain(out);
            let _ = done.send(());
            text
        });
        let stderr = s.spawn(move || drain(err));
        let finished = match ended.recv_timeout(TIME_LIMIT) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                kill();
                false
            }
            _ => true,
        };
        Drained {
            finished,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        }
    })
}

/// Set (to anything), the checker is always started as `xcheck __check-bitcode`, never
/// forked: the tests run the corrupt inputs through both ways.
pub const CHECK_BY_EXEC_VARIABLE: &str = "XCHECK_CHECK_BITCODE_BY_EXEC";

/// Whether this process has a single thread, so that a forked child, which has only the
/// thread that forked, finds no lock held by a thread it does not have (LLVM's, the
/// standard streams', the allocator's).
fn fork_is_safe() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|tasks| tasks.count() == 1)
}

/// The checker as a forked copy of this process: the same protocol on the same pipes as
/// the executed one (its stdout and stderr are pipes to the parent), without starting a
/// program (some 4 ms a check, most of a small check's time: mapping and relocating the
/// binary, LLVM's static constructors). The child checks the bytes already read, and
/// leaves by `_exit`, running no destructor of the parent's state.
fn fork_child(inputs: &[Input]) -> std::io::Result<ChildRun> {
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::ExitStatusExt;
    let pipe = || -> std::io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array it is given.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: both descriptors were just opened and are owned by nothing else.
        Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
    };
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    // What the parent's streams hold must not be written a second time by the child.
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: the process has one thread (`fork_is_safe`), so the child's copy holds no
    // lock another thread took; the child only parses and writes, then `_exit`s.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        use std::os::fd::AsRawFd;
        // SAFETY: the child's own descriptors and signal dispositions; `_exit` ends it
        // without running the parent's exit handlers or destructors.
        unsafe {
            libc::dup2(out_write.as_raw_fd(), 1);
            libc::dup2(err_write.as_raw_fd(), 2);
            // Ended by an interrupt as an executed checker would be, not by the parent's
            // handlers (which only set the parent's stop flag).
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            let code = check_inputs(inputs);
            let _ = std::io::stdout().flush();
            libc::_exit(code);
        }
    }
    drop((out_write, err_write));
    let (out, err) = (std::fs::File::from(out_read), std::fs::File::from(err_read));
    let run = drain_and_wait(Some(out), Some(err), || {
        // SAFETY: the pid is this process's child, not yet waited for.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    });
    let mut status = 0;
    // SAFETY: waits for the child forked above, once.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    if waited < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ChildRun {
        status: run.finished.then(|| ExitStatus::from_raw(status)),
        stdout: run.stdout,
        stderr: run.stderr,
    })
}

/// Turns the child's run into the parent's verdict on the inputs.
fn judge(inputs: &[Input], run: &ChildRun) -> Result<()> {
    let lines: Vec<&str> = run.stdout.lines().collect();
    let answered = lines.first() == Some(&HANDSHAKE);
    let index = |i: &str| i.parse::<usize>().ok().filter(|&i| i < inputs.len());
    let first = &inputs[0].path;
    if answered && lines.last() == Some(&"ok") && run.status.is_some_and(|s| s.success()) {
        return match dropped_debug_info(inputs, &run.stderr) {
            Some((i, why)) => Err(Error::input(
                &inputs[i].path,
                format!(
                    "corrupt bitcode: invalid debug info ({why}); strip it ({} -strip-debug) to check the code",
                    crate::toolchain::OPT
                ),
            )),
            None => Ok(()),
        };
    }
    if let Some(rest) = lines.iter().rev().find_map(|l| l.strip_prefix("error ")) {
        let (i, msg) = rest.split_once(' ').unwrap_or((rest, ""));
        return Err(match index(i) {
            Some(i) => Error::input(&inputs[i].path, msg),
            None => Error::Usage(msg.to_string()),
        });
    }
    let parsing = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("parsing "))
        .and_then(index);
    let how = match run.status {
        None => format!("did not finish in {} s", TIME_LIMIT.as_secs()),
        Some(s) => ended(s),
    };
    let detail = last_line(&run.stderr)
        .map(|l| format!(": {l}"))
        .unwrap_or_default();
    let crashed = run.status.and_then(|s| s.signal()).is_some_and(is_crash);
    Err(match parsing {
        _ if !answered => Error::input(
            first,
            format!("the bitcode checker did not answer (it {how}{detail})"),
        ),
        Some(i) if crashed => Error::input(
            &inputs[i].path,
            format!("corrupt bitcode (LLVM's reader {how}{detail})"),
        ),
        i => Error::input(
            &inputs[i.unwrap_or(0)].path,
            format!("checking the bitcode stopped: the checker {how}{detail}"),
        ),
    })
}

/// Whether LLVM's reader dropped invalid debug info of an input (it says so in a warning
/// after the verifier's dump): the input's index and the dump's first line.
fn dropped_debug_info(inputs: &[Input], stderr: &str) -> Option<(usize, String)> {
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning: ignoring invalid debug info in "))?;
    let name = warning.trim_start_matches("warning: ignoring invalid debug info in ");
    let i = inputs
        .iter()
        .position(|i| i.path.display().to_string() == name)
        .unwrap_or(0);
    let why = stderr.lines().map(str::trim).find(|l| !l.is_empty());
    Some((i, why.unwrap_or("the verifier failed").to_string()))
}

/// Signals that mean the process crashed, rather than being stopped from outside.
fn is_crash(signal: i32) -> bool {
    [
        libc::SIGSEGV,
        libc::SIGABRT,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGTRAP,
        libc::SIGSYS,
    ]
    .contains(&signal)
}

/// `aborted`, `crashed with SIGSEGV`, `was killed by SIGKILL`, `exited with code 101`.
fn ended(status: ExitStatus) -> String {
    let Some(sig) = status.signal() else {
        return format!("exited with code {}", status.code().unwrap_or(-1));
    };
    let name = match sig {
        libc::SIGABRT => return "aborted".to_string(),
        libc::SIGSEGV => "SIGSEGV".to_string(),
        libc::SIGBUS => "SIGBUS".to_string(),
        libc::SIGILL => "SIGILL".to_string(),
        libc::SIGFPE => "SIGFPE".to_string(),
        libc::SIGKILL => "SIGKILL".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        libc::SIGINT => "SIGINT".to_string(),
        _ => format!("signal {sig}"),
    };
    if is_crash(sig) {
        format!("crashed with {name}")
    } else {
        format!("was killed by {name}")
    }
}

/// The last non-empty line of `text`, cut to 200 characters.
fn last_line(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty())?;
    Some(match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    })
}

/// The child's side: `xcheck __check-bitcode HASH PATH...`. Reads, parses and verifies the
/// files as the parent would, and says how it went on stdout; returns the exit code.
pub fn check_bitcode_main(args: &[OsString]) -> i32 {
    no_core_dumps();
    println!("{HANDSHAKE}");
    let fail = |index: Option<usize>, msg: &str| {
        let i = index.map_or("-".to_string(), |i| i.to_string());
        println!("error {i} {}", msg.replace(['\n', '\r'], "; "));
        crate::error::EXIT_ERROR
    };
    let key = args.first().and_then(|k| k.to_str());
    let Some(key) = key.and_then(|k| u64::from_str_radix(k, 16).ok()) else {
        return fail(
            None,
            &format!("usage: xcheck {CHECK_SUBCOMMAND} HASH FILE..."),
        );
    };
    let mut inputs = Vec::new();
    for (i, path) in args[1..].iter().enumerate() {
        match read_bitcode(std::path::Path::new(path)) {
            Ok(input) => inputs.push(input),
            Err(Error::Input { msg, .. }) => return fail(Some(i), &msg),
            Err(e) => return fail(Some(i), &e.to_string()),
        }
    }
    if inputs.is_empty() || fingerprint(&inputs) != key {
        return fail(Some(0), "the file changed while xcheck read it");
    }
    parse_and_say(&inputs)
}

/// A forked checker's side: the inputs are the bytes the parent read.
fn check_inputs(inputs: &[Input]) -> i32 {
    no_core_dumps();
    println!("{HANDSHAKE}");
    parse_and_say(inputs)
}

/// Parses and verifies `inputs`, saying on stdout before each which one (`parsing I`) and
/// at the end how it went (`ok`, or `error I MESSAGE`); returns the exit code.
fn parse_and_say(inputs: &[Input]) -> i32 {
    let fail = |index: Option<usize>, msg: &str| {
        let i = index.map_or("-".to_string(), |i| i.to_string());
        println!("error {i} {}", msg.replace(['\n', '\r'], "; "));
        crate::error::EXIT_ERROR
    };
    match check_parse(inputs, &mut |i| println!("parsing {i}")) {
        Ok(()) => {
            println!("ok");
            0
        }
        Err(Error::Input { path, msg }) => match inputs.iter().position(|i| i.path == path) {
            Some(i) => fail(Some(i), &msg),
            None => fail(None, &format!("{}: {msg}", path.display())),
        },
        Err(e) => fail(None, &e.to_string()),
    }
}

/// This process exists to crash in LLVM instead of xcheck; a crash is reported as one line,
/// so it must not also leave a core file (often of a gigabyte) in the user's directory.
fn no_core_dumps() {
    let none = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: setrlimit reads the struct it is given and changes only this process's limit.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &none);
    }
}
