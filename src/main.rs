//! The `xcheck` binary: parse arguments, run, map the outcome to an exit code.

fn main() {
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`xcheck … | head`) instead of panicking on the failed write.
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // SAFETY: installing an async-signal-safe handler (one atomic store) before any thread
    // starts.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as *const () as libc::sighandler_t,
        );
    }
    // Bitcode is parsed first by a child process running this binary, so that LLVM's reader
    // aborting on a corrupt file cannot take xcheck down (src/load/isolate.rs).
    if let Ok(exe) = std::env::current_exe() {
        xcheck::load::parse_in_child(exe);
    }
    let code = xcheck::cli::main(std::env::args_os().collect());
    std::process::exit(code);
}

/// The first Ctrl-C stops exploration as a limit would (results are still written); the
/// second ends the process at once.
extern "C" fn on_interrupt(_: libc::c_int) {
    use std::sync::atomic::Ordering;
    if xcheck::exec::executor::INTERRUPTED.swap(true, Ordering::Relaxed) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
}
