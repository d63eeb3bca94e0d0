//! The engine primitives beneath the POSIX model of `harness/posix/`: recording what a
//! program writes to stdout and stderr, ending it with an exit status or a signal, reading a
//! host file named concretely, counting unmodelled system calls, and the allocator entry
//! points with alignment that musl's bitcode leaves to the engine (`setjmp`/`longjmp`, also
//! assembly in musl, are `jump.rs`). Files, descriptors and
//! the symbolic environment are C in the harness; the engine knows nothing of them. These
//! are handlers of the table in `table.rs`, which names them.

use crate::exec::executor::{offset_plus, Executor, Offset};
use crate::exec::memory::{ObjectKind, ObjectState};
use crate::exec::special::{Call, End};
use crate::exec::state::{State, Termination};
use crate::exec::value::Value;
use crate::ir::PTR_WIDTH;
use std::sync::Arc;

/// Largest host file `__xc_host_file` reads.
const HOST_FILE_LIMIT: u64 = 1 << 20;

/// `__xc_exit_signal(sig)`: the program is killed by a signal (`SIGABRT` if unknown).
pub(crate) fn exit_signal(_: &Executor<'_>, _: &State, call: &Call<'_>) -> End {
    let sig = call.args.first().and_then(|v| v.as_concrete()).unwrap_or(6) as i32;
    End::Fail(Termination::Signal(sig))
}

/// `__xc_note_syscall(n)`: counts a system call the model does not implement.
pub(crate) fn note_syscall(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let n = call.args.first().and_then(|v| v.as_concrete()).unwrap_or(0) as i64;
    *ex.stats.unmodelled_syscalls.entry(n).or_insert(0) += 1;
    Some(state)
}

/// `__xc_note_pinned(what)`: counts a read of a part of the environment the model pins.
pub(crate) fn note_pinned(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let what = call.args.first().and_then(|v| v.as_concrete()).unwrap_or(0) as i64;
    *ex.stats.pinned_reads.entry(what).or_insert(0) += 1;
    Some(state)
}

/// `malloc_usable_size(p)`: the size of the object at `p` (0 if none).
pub(crate) fn malloc_usable_size(
    ex: &mut Executor<'_>,
    mut state: State,
    call: &Call<'_>,
) -> Option<State> {
    let size = call
        .args
        .first()
        .and_then(|v| v.as_concrete())
        .and_then(|p| state.memory.get(p as u64).map(|(o, _)| o.size))
        .unwrap_or(0);
    ex.set_result(&mut state, call, Value::concrete(PTR_WIDTH, size as u128));
    Some(state)
}

/// `aligned_alloc(align, size)` and `memalign(align, size)`.
pub(crate) fn aligned_alloc(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let (state, align) = ex.concrete_arg(state, call, 0, "alignment")?;
    let (state, size) = ex.size_arg(state, call, 1)?;
    ex.heap_object(state, call, size, Some(align))
        .map(|(s, _)| s)
}

/// `posix_memalign(&p, align, size)`: the new object's address in `*p`, result 0.
pub(crate) fn posix_memalign(
    ex: &mut Executor<'_>,
    state: State,
    call: &Call<'_>,
) -> Option<State> {
    let (state, out) = ex.concrete_arg(state, call, 0, "result pointer")?;
    let (state, align) = ex.concrete_arg(state, call, 1, "alignment")?;
    let (state, size) = ex.size_arg(state, call, 2)?;
    let result_only = Call { dst: None, ..*call };
    let (state, address) = ex.heap_object(state, &result_only, size, Some(align))?;
    let target = Value::concrete(PTR_WIDTH, out as u128);
    let mut resolved = ex.resolve(state, target, 8);
    let (mut state, key, offset) = resolved.pop()?;
    let pointer = Value::concrete(PTR_WIDTH, address as u128);
    ex.write(&mut state, key, offset, pointer, 8);
    ex.set_result(&mut state, call, Value::concrete(32, 0));
    Some(state)
}

/// `__xc_output(stream, buf, n)`: appends the n bytes at buf to stream 1 (stdout), 2
/// (stderr) or 3 (the record of the files changed) of the running program.
pub(crate) fn output(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let args = call.args;
    let stream = match args.first().and_then(|v| v.as_concrete()) {
        Some(1) => 0,
        Some(2) => 1,
        Some(3) => 2,
        _ => {
            ex.unsupported(state, "__xc_output to a stream other than 1, 2 or 3");
            return None;
        }
    };
    // A symbolic size is taken one feasible value at a time (the other values rerun
    // this call), so no input is lost.
    let size = args
        .get(2)
        .copied()
        .unwrap_or(Value::concrete(PTR_WIDTH, 0));
    let (state, n) = ex.split_on_value(state, size)?;
    let n = n as u64;
    if n == 0 {
        return Some(state);
    }
    if n > 1 << 24 {
        ex.unsupported(state, "a single write of more than 16 MiB");
        return None;
    }
    let buf = args
        .get(1)
        .copied()
        .unwrap_or(Value::concrete(PTR_WIDTH, 0));
    let mut resolved = ex.resolve(state, buf, n);
    let (state, key, offset) = resolved.pop()?;
    // A symbolic buffer address resolving to several objects: each resolution is a
    // path of its own.
    for (other, k, o) in resolved {
        let other = append_output(ex, other, k, o, stream, n);
        ex.pending.push(other);
    }
    Some(append_output(ex, state, key, offset, stream, n))
}

/// `__xc_syscall(n, …)` where no POSIX model defines it: a function check, whose sides
/// link musl's stdio (`load/libm.rs`). Only what writing to stdout needs is there:
/// `write` and `writev` to descriptor 1 append to the running side's stdout (compared at
/// its end like a return value), and `ioctl` fails with `ENOTTY` (stdout is no terminal,
/// as in native replay, where it is a pipe: musl buffers it fully). Any other system
/// call, or a write to another descriptor, stops the path as unsupported.
pub(crate) fn syscall(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    const WRITE: u64 = 1;
    const IOCTL: u64 = 16;
    const WRITEV: u64 = 20;
    const ENOTTY: i64 = 25;
    let (state, n) = ex.concrete_arg(state, call, 0, "system call number")?;
    let (mut state, total) = match n {
        IOCTL => (state, -ENOTTY),
        WRITE | WRITEV => {
            let (state, fd) = ex.concrete_arg(state, call, 1, "file descriptor")?;
            if fd != 1 {
                let what = format!(
                    "a write to file descriptor {fd} in a function check (only stdout is compared)"
                );
                ex.unsupported(state, &what);
                return None;
            }
            let arg = |i: usize| call.args.get(i).copied();
            let (state, pieces) = match n {
                WRITE => {
                    let size = arg(3).unwrap_or(Value::concrete(PTR_WIDTH, 0));
                    let (state, len) = ex.split_on_value(state, size)?;
                    let buf = arg(2).unwrap_or(Value::concrete(PTR_WIDTH, 0));
                    (state, vec![(buf, len as u64)])
                }
                _ => write_vector(ex, state, call)?,
            };
            let mut state = state;
            let mut total = 0u64;
            for (buf, len) in pieces {
                state = append_concrete(ex, state, buf, len)?;
                total += len;
            }
            (state, total as i64)
        }
        _ => {
            let name = syscall_name(n as i64).unwrap_or("?");
            let what = format!("system call {n} ({name}) in a function check");
            ex.unsupported(state, &what);
            return None;
        }
    };
    ex.set_result(&mut state, call, Value::concrete(64, total as u64 as u128));
    Some(state)
}

/// The pieces `writev(fd, iov, count)` writes: each iovec's base and length, every length
/// taken one feasible value at a time before anything is written (a state split off reruns
/// the whole call).
fn write_vector(
    ex: &mut Executor<'_>,
    state: State,
    call: &Call<'_>,
) -> Option<(State, Vec<(Value, u64)>)> {
    let (state, iov) = ex.concrete_arg(state, call, 2, "iovec array")?;
    let (mut state, count) = ex.concrete_arg(state, call, 3, "iovec count")?;
    if count > 1024 {
        ex.unsupported(state, "writev of more than 1024 iovecs");
        return None;
    }
    let mut pieces = Vec::new();
    for k in 0..count {
        let at = Value::concrete(PTR_WIDTH, u128::from(iov + 16 * k));
        let mut resolved = ex.resolve(state, at, 16);
        let (s, key, offset) = resolved.pop()?;
        if !resolved.is_empty() {
            ex.unsupported(s, "an iovec array at an address that is not one object");
            return None;
        }
        let base = ex.read(&s, key, offset, 8);
        let len = ex.read(&s, key, offset_plus(ex, offset, 8), 8);
        let (s, len) = ex.split_on_value(s, len)?;
        state = s;
        pieces.push((base, len as u64));
    }
    Some((state, pieces))
}

/// Appends `len` bytes at `buf` to stdout: the buffer must be one object (a write from a
/// symbolic address that may be several stops the path as unsupported).
fn append_concrete(ex: &mut Executor<'_>, state: State, buf: Value, len: u64) -> Option<State> {
    if len == 0 {
        return Some(state);
    }
    if len > 1 << 24 {
        ex.unsupported(state, "a single write of more than 16 MiB");
        return None;
    }
    let mut resolved = ex.resolve(state, buf, len);
    let (state, key, offset) = resolved.pop()?;
    if !resolved.is_empty() {
        ex.unsupported(state, "a write from a symbolic address of several objects");
        return None;
    }
    Some(append_output(ex, state, key, offset, 0, len))
}

fn append_output(
    ex: &Executor<'_>,
    mut state: State,
    key: u64,
    offset: Offset,
    stream: usize,
    n: u64,
) -> State {
    let bytes: Vec<Value> = (0..n)
        .map(|i| ex.read(&state, key, offset_plus(ex, offset, i), 1))
        .collect();
    Arc::make_mut(&mut state.outputs[stream]).extend(bytes);
    state
}

/// `__xc_host_file(path, &data)`: the size of the host file at a concrete path, with
/// its bytes in a fresh concrete object written to `*data`; `-errno` on failure.
pub(crate) fn host_file(ex: &mut Executor<'_>, state: State, call: &Call<'_>) -> Option<State> {
    let (state, path_ptr) = ex.concrete_arg(state, call, 0, "host file path")?;
    let (state, out) = ex.concrete_arg(state, call, 1, "host file result pointer")?;
    let path = ex.read_c_string(&state, path_ptr).unwrap_or_default();
    let result = std::fs::metadata(&path).and_then(|m| {
        if m.is_dir() {
            Err(std::io::Error::from_raw_os_error(21))
        } else if !m.is_file() {
            // Devices, FIFOs and sockets are not modelled (reading /dev/zero would never
            // end): opening one fails with EACCES.
            Err(std::io::Error::from_raw_os_error(13))
        } else if m.len() > HOST_FILE_LIMIT {
            Err(std::io::Error::from_raw_os_error(27))
        } else {
            crate::input::read_limited(path.as_ref(), HOST_FILE_LIMIT, "host files")
        }
    });
    let mut state = state;
    let ret = match result {
        Ok(bytes) => {
            let size = bytes.len() as u64;
            let address = ex.allocate(
                &mut state,
                size,
                ObjectKind::Heap,
                format!("host file {path}"),
                ObjectState::from_bytes(bytes),
            );
            let mut resolved = ex.resolve(state, Value::concrete(PTR_WIDTH, out as u128), 8);
            let (s, key, offset) = resolved.pop()?;
            state = s;
            ex.write(
                &mut state,
                key,
                offset,
                Value::concrete(PTR_WIDTH, address as u128),
                8,
            );
            size as i64
        }
        Err(e) => -(e.raw_os_error().unwrap_or(2) as i64),
    };
    ex.set_result(&mut state, call, Value::concrete(64, ret as u64 as u128));
    Some(state)
}

/// The name of x86-64 Linux system call `n`, for the report (the model notes numbers).
pub fn syscall_name(n: i64) -> Option<&'static str> {
    Some(match n {
        0 => "read",
        1 => "write",
        2 => "open",
        3 => "close",
        4 => "stat",
        5 => "fstat",
        6 => "lstat",
        7 => "poll",
        8 => "lseek",
        9 => "mmap",
        10 => "mprotect",
        11 => "munmap",
        12 => "brk",
        13 => "rt_sigaction",
        14 => "rt_sigprocmask",
        15 => "rt_sigreturn",
        16 => "ioctl",
        17 => "pread64",
        18 => "pwrite64",
        19 => "readv",
        20 => "writev",
        21 => "access",
        22 => "pipe",
        23 => "select",
        24 => "sched_yield",
        25 => "mremap",
        26 => "msync",
        27 => "mincore",
        28 => "madvise",
        29 => "shmget",
        30 => "shmat",
        31 => "shmctl",
        32 => "dup",
        33 => "dup2",
        34 => "pause",
        35 => "nanosleep",
        36 => "getitimer",
        37 => "alarm",
        38 => "setitimer",
        39 => "getpid",
        40 => "sendfile",
        41 => "socket",
        42 => "connect",
        43 => "accept",
        44 => "sendto",
        45 => "recvfrom",
        46 => "sendmsg",
        47 => "recvmsg",
        49 => "bind",
        50 => "listen",
        51 => "getsockname",
        53 => "socketpair",
        54 => "setsockopt",
        55 => "getsockopt",
        56 => "clone",
        57 => "fork",
        58 => "vfork",
        59 => "execve",
        60 => "exit",
        61 => "wait4",
        62 => "kill",
        63 => "uname",
        64 => "semget",
        65 => "semop",
        66 => "semctl",
        68 => "msgget",
        71 => "msgctl",
        72 => "fcntl",
        73 => "flock",
        74 => "fsync",
        75 => "fdatasync",
        76 => "truncate",
        77 => "ftruncate",
        78 => "getdents",
        79 => "getcwd",
        80 => "chdir",
        81 => "fchdir",
        82 => "rename",
        83 => "mkdir",
        84 => "rmdir",
        85 => "creat",
        86 => "link",
        87 => "unlink",
        88 => "symlink",
        89 => "readlink",
        90 => "chmod",
        91 => "fchmod",
        92 => "chown",
        93 => "fchown",
        94 => "lchown",
        95 => "umask",
        96 => "gettimeofday",
        97 => "getrlimit",
        98 => "getrusage",
        99 => "sysinfo",
        100 => "times",
        102 => "getuid",
        104 => "getgid",
        105 => "setuid",
        106 => "setgid",
        107 => "geteuid",
        108 => "getegid",
        109 => "setpgid",
        110 => "getppid",
        111 => "getpgrp",
        112 => "setsid",
        113 => "setreuid",
        114 => "setregid",
        115 => "getgroups",
        116 => "setgroups",
        117 => "setresuid",
        118 => "getresuid",
        119 => "setresgid",
        120 => "getresgid",
        121 => "getpgid",
        122 => "setfsuid",
        123 => "setfsgid",
        124 => "getsid",
        125 => "capget",
        126 => "capset",
        127 => "rt_sigpending",
        128 => "rt_sigtimedwait",
        130 => "rt_sigsuspend",
        131 => "sigaltstack",
        132 => "utime",
        133 => "mknod",
        134 => "uselib",
        135 => "personality",
        136 => "ustat",
        137 => "statfs",
        138 => "fstatfs",
        139 => "sysfs",
        140 => "getpriority",
        141 => "setpriority",
        149 => "mlock",
        150 => "munlock",
        157 => "prctl",
        158 => "arch_prctl",
        160 => "setrlimit",
        161 => "chroot",
        162 => "sync",
        163 => "acct",
        165 => "mount",
        166 => "umount2",
        167 => "swapon",
        168 => "swapoff",
        169 => "reboot",
        170 => "sethostname",
        175 => "init_module",
        186 => "gettid",
        188 => "setxattr",
        191 => "getxattr",
        192 => "lgetxattr",
        193 => "fgetxattr",
        194 => "listxattr",
        195 => "llistxattr",
        196 => "flistxattr",
        200 => "tkill",
        201 => "time",
        202 => "futex",
        203 => "sched_setaffinity",
        204 => "sched_getaffinity",
        206 => "io_setup",
        209 => "io_submit",
        212 => "lookup_dcookie",
        213 => "epoll_create",
        217 => "getdents64",
        218 => "set_tid_address",
        221 => "fadvise64",
        228 => "clock_gettime",
        229 => "clock_getres",
        230 => "clock_nanosleep",
        231 => "exit_group",
        232 => "epoll_wait",
        233 => "epoll_ctl",
        234 => "tgkill",
        235 => "utimes",
        253 => "inotify_init",
        254 => "inotify_add_watch",
        255 => "inotify_rm_watch",
        256 => "migrate_pages",
        257 => "openat",
        258 => "mkdirat",
        259 => "mknodat",
        260 => "fchownat",
        261 => "futimesat",
        262 => "newfstatat",
        263 => "unlinkat",
        264 => "renameat",
        265 => "linkat",
        266 => "symlinkat",
        267 => "readlinkat",
        268 => "fchmodat",
        269 => "faccessat",
        270 => "pselect6",
        271 => "ppoll",
        273 => "set_robust_list",
        274 => "get_robust_list",
        275 => "splice",
        276 => "tee",
        277 => "sync_file_range",
        278 => "vmsplice",
        280 => "utimensat",
        281 => "epoll_pwait",
        283 => "timerfd_create",
        284 => "eventfd",
        285 => "fallocate",
        288 => "accept4",
        290 => "eventfd2",
        291 => "epoll_create1",
        292 => "dup3",
        293 => "pipe2",
        294 => "inotify_init1",
        295 => "preadv",
        296 => "pwritev",
        302 => "prlimit64",
        303 => "name_to_handle_at",
        306 => "syncfs",
        309 => "getcpu",
        316 => "renameat2",
        318 => "getrandom",
        319 => "memfd_create",
        322 => "execveat",
        326 => "copy_file_range",
        327 => "preadv2",
        328 => "pwritev2",
        332 => "statx",
        334 => "rseq",
        424 => "pidfd_send_signal",
        425 => "io_uring_setup",
        434 => "pidfd_open",
        435 => "clone3",
        436 => "close_range",
        437 => "openat2",
        439 => "faccessat2",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::syscall_name;

    #[test]
    fn system_calls_are_named_by_their_x86_64_numbers() {
        assert_eq!(syscall_name(7), Some("poll"));
        assert_eq!(syscall_name(138), Some("fstatfs"));
        assert_eq!(syscall_name(217), Some("getdents64"));
        assert_eq!(syscall_name(326), Some("copy_file_range"));
        assert_eq!(syscall_name(100_000), None);
    }

    /// Every name agrees with the host's kernel headers (Debian's linux-libc-dev, which
    /// the C compiler the project installs depends on).
    #[test]
    fn every_name_is_the_kernel_headers_name_of_its_number() {
        let path = "/usr/include/x86_64-linux-gnu/asm/unistd_64.h";
        let header = std::fs::read_to_string(path).expect("the kernel's system call numbers");
        let mut checked = 0;
        for line in header.lines() {
            let mut words = line.split_whitespace();
            let (Some("#define"), Some(name), Some(number)) =
                (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let (Some(name), Ok(n)) = (name.strip_prefix("__NR_"), number.parse::<i64>()) else {
                continue;
            };
            if let Some(ours) = syscall_name(n) {
                assert_eq!(ours, name, "system call {n}");
                checked += 1;
            }
        }
        assert!(checked > 200, "{checked} names checked");
    }
}
