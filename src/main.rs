//! The `xcheck` binary: parse arguments, run, map the outcome to an exit code.

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

/// The run's interrupt flag, for the signal handlers (set once, before they are installed).
static FLAG: AtomicPtr<AtomicBool> = AtomicPtr::new(std::ptr::null_mut());

fn main() {
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`xcheck … | head`) instead of panicking on the failed write.
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let stop = xcheck::stop::Stop::new();
    // The flag lives as long as the process: the leaked `Arc` is never dropped.
    let flag: &'static std::sync::Arc<AtomicBool> = Box::leak(Box::new(stop.flag().clone()));
    FLAG.store(
        std::sync::Arc::as_ptr(flag) as *mut AtomicBool,
        Ordering::SeqCst,
    );
    // SAFETY: installing an async-signal-safe handler (an atomic load and swap, or _exit)
    // before any thread starts.
    unsafe {
        for sig in [libc::SIGINT, libc::SIGTERM] {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
    // Bitcode is parsed first by a child process running this binary, so that LLVM's reader
    // aborting on a corrupt file cannot take xcheck down (src/load/isolate.rs).
    if let Ok(exe) = std::env::current_exe() {
        xcheck::load::parse_in_child(exe);
    }
    let code = xcheck::cli::main_with_stop(std::env::args_os().collect(), stop);
    std::process::exit(code);
}

/// The first SIGINT or SIGTERM stops the run as a limit would (every test found is already
/// on disk, and the reports are written); the second ends the process at once.
extern "C" fn on_signal(sig: libc::c_int) {
    let flag = FLAG.load(Ordering::Relaxed);
    // SAFETY: a non-null `FLAG` points to the leaked flag, which is never freed.
    if !flag.is_null() && unsafe { &*flag }.swap(true, Ordering::Relaxed) {
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(128 + sig) };
    }
}
