//! The `xcheck` binary: parse arguments, run, map the outcome to an exit code.

fn main() {
    let code = xcheck::cli::main(std::env::args_os().collect());
    std::process::exit(code);
}
