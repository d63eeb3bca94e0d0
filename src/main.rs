//! The `xcheck` binary: parse arguments, run, map the outcome to an exit code.

use signal_hook::consts::{SIGINT, SIGPIPE, SIGTERM};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn main() {
    let stop = xcheck::stop::Stop::new();
    if let Err(e) = install_signal_handlers(stop.flag()) {
        eprintln!("xcheck: error: cannot install signal handlers: {e}");
        std::process::exit(xcheck::error::EXIT_ERROR);
    }
    // Bitcode is parsed first by a child process running this binary, so that LLVM's reader
    // aborting on a corrupt file cannot take xcheck down (src/load/isolate.rs).
    if let Ok(exe) = std::env::current_exe() {
        xcheck::load::parse_in_child(exe);
    }
    let code = xcheck::cmd::main_with_stop(std::env::args_os().collect(), stop);
    std::process::exit(code);
}

/// The first SIGINT or SIGTERM sets the run's stop token: the run stops as at a limit (every
/// test found is already on disk, and the reports are written). The second ends the process
/// at once, with exit code 128 + the signal. Like other command-line tools, xcheck ends
/// quietly when the reader of stdout goes away (`xcheck … | head`), instead of panicking on
/// the failed write.
fn install_signal_handlers(flag: &Arc<AtomicBool>) -> std::io::Result<()> {
    for sig in [SIGINT, SIGTERM] {
        // Registered first, so that it sees the flag as it was before this signal.
        signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, flag.clone())?;
        signal_hook::flag::register(sig, flag.clone())?;
    }
    let always = Arc::new(AtomicBool::new(true));
    signal_hook::flag::register_conditional_shutdown(SIGPIPE, 128 + SIGPIPE, always)?;
    Ok(())
}
