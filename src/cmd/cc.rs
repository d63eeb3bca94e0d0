//! `xcheck cc`: a clang wrapper (`toolchain::CLANG`, clang-19) that compiles C programs against
//! the bitcode musl.
//!
//! Every invocation adds the musl target, musl's headers (built by scripts/build-musl.sh)
//! and `-flto`, so objects are LLVM bitcode. Vectorisation is switched off after the
//! user's flags, because a later `-O2` would switch it on again.
//!
//! - Compile-only invocations (`-c`, `-S`, `-E`, `-M`, `-MM`, ..., or no input files at
//!   all, like `--version`) run clang once and return its exit code.
//! - Partial links (`-r`, as in Kbuild's `$(LD) -r` with `LD = $(CC) -nostdlib`) merge
//!   the input bitcode objects into one with llvm-link; other flags are ignored.
//! - Link invocations produce two outputs from the same inputs: the native static
//!   executable at the `-o` path (default `a.out`), linked against Debian's native musl so
//!   that configure scripts can run it and counterexamples can be replayed; and the
//!   whole-program bitcode at `<output>.bc`, linked against the bitcode libc. lld writes
//!   the merged module before code generation; `opt` then keeps only what is reachable
//!   from `main`, from `__libc_start_main` (the C start-up code: given argv, envp and
//!   auxv as the kernel lays them out, it sets up libc and calls `main`) and from the
//!   memory functions LLVM's intrinsics lower to.
//!
//! `XCHECK_MUSL_DIR` names the musl build (the directory holding `lib/libc.a`);
//! otherwise `$XCHECK_BUILD_DIR/musl`, otherwise `build/musl` in the nearest ancestor of
//! the executable's directory that has one. `XCHECK_CC_VERBOSE=1` prints each command.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::EXIT_ERROR;
use crate::load::{native_link_args, tail_flags, PROGRAM_ROOTS as BITCODE_ROOTS};
use crate::toolchain::{CLANG, LLVM_LINK, OPT};

/// Prints `xcheck cc --help`.
pub(super) fn help() -> i32 {
    print!("{}", help_text());
    0
}

/// Compiles (or links) with the compiler's arguments `args` and returns the exit code.
pub(super) fn run(args: &[OsString]) -> i32 {
    match compile(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("xcheck cc: error: {msg}");
            EXIT_ERROR
        }
    }
}

/// `xcheck cc --help`: what the wrapper adds to clang and what a link writes (clang's own
/// options: `clang-19 --help`).
fn help_text() -> String {
    let clang = CLANG;
    format!(
        "Compile C programs against the bundled musl: native code and LLVM bitcode for xcheck

Usage: xcheck cc [CLANG OPTIONS] FILE... [-o OUT]

Every argument is {clang}'s (`{clang} --help` lists them); xcheck cc adds the musl target,
musl's headers and -flto, so that objects are LLVM bitcode.

  -c, -S, -E, -M…   compile only, as clang does (a -c object is bitcode)
  (a link)          writes the native static executable OUT (default a.out), linked with
                    Debian's musl, and OUT.bc, the whole program's bitcode linked with the
                    bundled musl: `xcheck OUT1.bc OUT2.bc` checks two programs, and
                    `xcheck replay DIR --native OUT1 OUT2` replays their tests natively
  -r                a partial link of bitcode objects (llvm-link)

It works as CC=\"xcheck cc\" for a whole autotools or Kbuild build. A function check needs
no musl: `{clang} -c -emit-llvm -g f.c -o f.bc`.

Environment: XCHECK_MUSL_DIR, the musl build (the directory holding lib/libc.a; default
build/musl, made by scripts/build-musl.sh); XCHECK_CC_VERBOSE=1 prints each command.

Example:
  xcheck cc -O1 -o wc1 wc1.c          # writes wc1 and wc1.bc
  xcheck cc -O1 -o wc2 wc2.c
  xcheck wc1.bc wc2.bc --sym-stdin 8
"
    )
}

/// Flags that end compilation before the link (or print something and stop).
const COMPILE_ONLY: &[&str] = &[
    "-c",
    "-S",
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
    "--precompile",
    "--analyze",
    "-###",
];

/// Options whose value is the next argument (so that value is not an input file).
const TAKES_VALUE: &[&str] = &[
    "-o",
    "--output",
    "-x",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-isystem",
    "-idirafter",
    "-iquote",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-iframework",
    "-ivfsoverlay",
    "-include-pch",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-L",
    "-l",
    "-u",
    "-e",
    "-T",
    "-z",
    "-B",
    "-A",
    "-Xlinker",
    "-Xclang",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xanalyzer",
    "-mllvm",
    "-target",
    "-arch",
    "--sysroot",
    "--param",
    "-resource-dir",
    "-working-directory",
    "-serialize-diagnostics",
    "-dependency-file",
    "-dependency-dot",
];

/// Runs `xcheck cc ARGS...`. Returns the exit code of the compiler (or of the first
/// failing step of a link), or a one-line message when the wrapper itself cannot work.
fn compile(args: &[OsString]) -> Result<i32, String> {
    let musl = locate_musl()?;
    let invocation = Invocation::parse(args);
    if invocation.mode == Mode::PartialLink {
        // Not lld: its emit-llvm output carries an "LTOPostLink" module flag, and LTO
        // adds a second one when the merged object is linked again (a broken module).
        let mut cmd: Vec<OsString> = invocation.inputs.iter().map(|&i| args[i].clone()).collect();
        cmd.push("-o".into());
        cmd.push(invocation.output_path(args));
        return run_step(LLVM_LINK, &cmd);
    }

    let mut head = crate::load::musl_compile_flags(&musl.dir)?;
    if invocation.mode == Mode::CompileOnly {
        head.extend(args.iter().cloned());
        head.extend(tail_flags());
        return run_step(CLANG, &head);
    }

    // A link of objects alone would warn that -nostdinc went unused.
    head.push("-Qunused-arguments".into());
    let output = invocation.output_path(args);
    let code = run_step(CLANG, &native_link_args(&head, args)?)?;
    // A probe linked to /dev/null gets no bitcode (nor a file /dev/null.bc).
    if code != 0 || Path::new(&output).starts_with("/dev") {
        return Ok(code);
    }
    let mut bitcode = output.clone();
    bitcode.push(".bc");
    let code = link_bitcode(&musl, &head, &invocation, args, Path::new(&bitcode))?;
    if code != 0 {
        eprintln!(
            "xcheck cc: linking the whole-program bitcode {} failed (the native executable {} was built)",
            Path::new(&bitcode).display(),
            Path::new(&output).display()
        );
    }
    Ok(code)
}

/// The musl build: include directories and the bitcode archive.
struct Musl {
    dir: PathBuf,
}

impl Musl {
    fn include(&self) -> PathBuf {
        self.dir.join("include")
    }
    fn lib_dir(&self) -> PathBuf {
        self.dir.join("lib")
    }
    fn libc(&self) -> PathBuf {
        crate::load::libc_archive(&self.dir)
    }
}

fn locate_musl() -> Result<Musl, String> {
    let dir = crate::load::musl_dir()?;
    let musl = Musl { dir };
    if !musl.libc().is_file() || !musl.include().is_dir() {
        return Err(format!(
            "musl bitcode library not found at {}: run scripts/build-musl.sh",
            musl.libc().display()
        ));
    }
    Ok(musl)
}

/// What an argument list asks clang to do, as far as this wrapper cares.
#[derive(Debug, PartialEq, Eq)]
struct Invocation {
    mode: Mode,
    /// The last output option, if any.
    output: Option<OutputArg>,
    /// The indices of the input files among the arguments.
    inputs: Vec<usize>,
}

#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Mode {
    /// Stops before the link, or has no input files (`--version`, `-print-...`).
    CompileOnly,
    /// `-r`: objects merged into one object, as Kbuild's `$(LD) -r` steps do.
    PartialLink,
    /// A program: native executable plus whole-program bitcode.
    Link,
}

/// Where the output path is among the arguments.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum OutputArg {
    /// `-o PATH` or `--output PATH`: the index of the option; the path follows it.
    Next(usize),
    /// `-oPATH` or `--output=PATH`: the index of the argument holding both.
    Joined(usize),
}

impl Invocation {
    fn parse(args: &[OsString]) -> Invocation {
        let (mut compile_only, mut relocatable) = (false, false);
        let (mut output, mut inputs) = (None, Vec::new());
        let mut i = 0;
        while i < args.len() {
            let arg = args[i].to_string_lossy();
            if arg == "-" || !arg.starts_with('-') {
                inputs.push(i);
            } else if COMPILE_ONLY.contains(&arg.as_ref())
                || arg.starts_with("-print-")
                || arg.starts_with("--print-")
                || arg.starts_with("-dump")
            {
                compile_only = true;
            } else if arg == "-r" || arg == "-Wl,-r" || arg == "-Wl,--relocatable" {
                relocatable = true;
            } else if arg == "-o" || arg == "--output" {
                output = Some(OutputArg::Next(i));
            } else if arg.starts_with("-o") || arg.starts_with("--output=") {
                output = Some(OutputArg::Joined(i));
            }
            if TAKES_VALUE.contains(&arg.as_ref()) {
                i += 1;
            }
            i += 1;
        }
        let mode = match (!inputs.is_empty() && !compile_only, relocatable) {
            (false, _) => Mode::CompileOnly,
            (true, true) => Mode::PartialLink,
            (true, false) => Mode::Link,
        };
        Invocation {
            mode,
            output,
            inputs,
        }
    }

    /// The path the link writes, `a.out` unless an output option names one.
    fn output_path(&self, args: &[OsString]) -> OsString {
        let path = match self.output {
            Some(OutputArg::Next(i)) => args.get(i + 1).cloned(),
            Some(OutputArg::Joined(i)) => {
                let arg = args[i].to_string_lossy();
                let path = arg
                    .strip_prefix("--output=")
                    .or_else(|| arg.strip_prefix("-o"));
                path.map(OsString::from)
            }
            None => None,
        };
        path.unwrap_or_else(|| OsString::from("a.out"))
    }

    /// The arguments with the output replaced by `path` (added when there was none).
    fn with_output(&self, args: &[OsString], path: &OsStr) -> Vec<OsString> {
        let mut out = args.to_vec();
        match self.output {
            Some(OutputArg::Next(i)) if i + 1 < out.len() => out[i + 1] = path.to_os_string(),
            Some(OutputArg::Next(i) | OutputArg::Joined(i)) => {
                let mut joined = OsString::from("-o");
                joined.push(path);
                out[i] = joined;
            }
            None => {
                out.push("-o".into());
                out.push(path.to_os_string());
            }
        }
        out
    }
}

/// Links the whole-program bitcode at `bitcode`: the same inputs against the bitcode
/// libc, written by lld before code generation, then reduced to what the roots reach.
fn link_bitcode(
    musl: &Musl,
    head: &[OsString],
    invocation: &Invocation,
    args: &[OsString],
    bitcode: &Path,
) -> Result<i32, String> {
    let mut merged = bitcode.as_os_str().to_os_string();
    merged.push(".tmp");
    let mut cmd = head.to_vec();
    cmd.extend(["-fuse-ld=lld", "-nostdlib"].map(OsString::from));
    // `-lc`, `-lm`, `-lpthread`... find the bitcode libc and its empty companions first.
    let mut search = OsString::from("-L");
    search.push(musl.lib_dir());
    cmd.push(search);
    cmd.extend(
        [
            "-Wl,--plugin-opt=emit-llvm",
            "-Wl,-e,main",
            "-Wl,--unresolved-symbols=ignore-all",
        ]
        .map(OsString::from),
    );
    for root in BITCODE_ROOTS.iter().filter(|r| **r != "main") {
        cmd.push(format!("-Wl,-u,{root}").into());
    }
    cmd.extend(invocation.with_output(args, &merged));
    cmd.extend(tail_flags());
    cmd.push(musl.libc().into_os_string());
    let code = run_step(CLANG, &cmd)?;
    if code != 0 {
        let _ = std::fs::remove_file(&merged);
        return Ok(code);
    }

    // lld keeps every libc function LTO code generation might call (sin, fmod, ...);
    // internalizing all but the roots lets globaldce drop what the program never reaches.
    // (The new pass manager's syntax: opt 19 has no `-internalize`/`-globaldce` flags.)
    let opt: Vec<OsString> = vec![
        "-passes=internalize,globaldce".into(),
        format!("-internalize-public-api-list={}", BITCODE_ROOTS.join(",")).into(),
        merged.clone(),
        "-o".into(),
        bitcode.as_os_str().to_os_string(),
    ];
    let code = run_step(OPT, &opt);
    let _ = std::fs::remove_file(&merged);
    code
}

/// Runs one tool with inherited standard streams and returns its exit code.
fn run_step(tool: &str, args: &[OsString]) -> Result<i32, String> {
    if std::env::var_os("XCHECK_CC_VERBOSE").is_some_and(|v| !v.is_empty() && v != "0") {
        let line: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        eprintln!("xcheck cc: {tool} {}", line.join(" "));
    }
    let status = Command::new(tool)
        .args(args)
        .status()
        .map_err(|e| format!("cannot run {tool}: {e}"))?;
    exit_code(tool, status)
}

fn exit_code(tool: &str, status: std::process::ExitStatus) -> Result<i32, String> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ok(code),
        (None, Some(signal)) => Err(format!("{tool} was killed by signal {signal}")),
        (None, None) => Err(format!("{tool} ended without an exit code")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn parse(args: &[&str]) -> Invocation {
        Invocation::parse(&os(args))
    }

    #[test]
    fn compile_only_invocations_do_not_link() {
        for args in [
            &["-c", "x.c"][..],
            &["-S", "-o", "x.s", "x.c"],
            &["-E", "x.c"],
            &["-MM", "x.c"],
            &["--version"],
            &["-v"],
            &["-print-prog-name=ld"],
            &["-dumpmachine"],
            &["-I", "x.c"],
            &["-lm"],
        ] {
            assert_eq!(parse(args).mode, Mode::CompileOnly, "{args:?}");
        }
    }

    #[test]
    fn inputs_without_compile_only_flags_link() {
        for args in [
            &["x.c"][..],
            &["-O1", "-o", "/tmp/hello", "/tmp/hello.c"],
            &["-MD", "-MF", "x.d", "x.c", "y.o", "-lm"],
            &["-x", "c", "-"],
            &["-Wl,--gc-sections", "libfoo.a", "main.o"],
        ] {
            assert_eq!(parse(args).mode, Mode::Link, "{args:?}");
        }
    }

    #[test]
    fn relocatable_links_are_partial() {
        assert_eq!(
            parse(&["-nostdlib", "-r", "-o", "built-in.o", "a.o", "b.o"]).mode,
            Mode::PartialLink
        );
        assert_eq!(parse(&["-c", "-r", "a.c"]).mode, Mode::CompileOnly);
    }

    #[test]
    fn output_path_forms() {
        let cases: [(&[&str], &str); 5] = [
            (&["x.c"], "a.out"),
            (&["-o", "prog", "x.c"], "prog"),
            (&["-oprog", "x.c"], "prog"),
            (&["--output=prog", "x.c"], "prog"),
            (&["-o", "first", "-o", "last", "x.c"], "last"),
        ];
        for (args, want) in cases {
            let args = os(args);
            assert_eq!(Invocation::parse(&args).output_path(&args), want);
        }
    }

    #[test]
    fn output_is_replaced_or_added() {
        let cases: [(&[&str], &[&str]); 3] = [
            (&["-o", "prog", "x.c"], &["-o", "prog.bc", "x.c"]),
            (&["-oprog", "x.c"], &["-oprog.bc", "x.c"]),
            (&["x.c"], &["x.c", "-o", "prog.bc"]),
        ];
        for (args, want) in cases {
            let args = os(args);
            let got = Invocation::parse(&args).with_output(&args, OsStr::new("prog.bc"));
            assert_eq!(got, os(want));
        }
    }
}
