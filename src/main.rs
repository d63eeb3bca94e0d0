//! The `xcheck` binary: parse arguments, run, map the outcome to an exit code.

fn main() {
    // Like other command-line tools, end quietly when the reader of stdout goes away
    // (`xcheck … | head`) instead of panicking on the failed write.
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let code = xcheck::cli::main(std::env::args_os().collect());
    std::process::exit(code);
}
