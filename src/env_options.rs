//! KLEE's environment options of whole-program checks (`--sym-arg`, `--sym-args`,
//! `--sym-files`, `--sym-stdin`, `--max-fail`, …): one typed model, parsed once (from the
//! command line, or from a test's recorded command line) and passed as data to the program
//! check, the native replay and the POSIX model (`harness/posix/env.c`), which gets its argv
//! form from [`EnvOptions::to_args`]. The model's limits are here, once; a unit test checks
//! that the C model's copies agree. Which symbolic object plays which part (an argument, a
//! file's bytes, stdin…) is [`role`].

use std::fmt;

/// The largest symbolic argument, file and stdin, in bytes (`XC_MAX_SYM_LEN`).
pub const MAX_SYM_LEN: u32 = 4096;
/// The most symbolic files: `A` to `Z`.
pub const MAX_SYM_FILES: u32 = 26;
/// The largest MIN and MAX of one `--sym-args`.
pub const MAX_SYM_ARGS_RANGE: u32 = 32;
/// The most symbolic arguments in all (`XC_MAX_SYM_ARGS`: objects `arg00` to `arg99`).
pub const MAX_SYM_ARGS_TOTAL: u32 = 100;
/// The most arguments, program name included (`XC_MAX_ARGS`).
pub const MAX_ARGS: u32 = 1024;
/// The largest `--max-fail` (the model reads at most nine digits).
pub const MAX_FAILURES: u32 = 100_000_000;

/// One option or concrete argument, in command-line order (the order decides the order of
/// the program's arguments and of the symbolic objects).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvItem {
    /// `--sym-arg N`: one symbolic argument of at most N characters.
    SymArg { len: u32 },
    /// `--sym-args MIN MAX N`: MIN to MAX symbolic arguments of at most N characters.
    SymArgs { min: u32, max: u32, len: u32 },
    /// `--sym-files NUM N`: files `A`, `B`, … of N symbolic bytes each.
    SymFiles { count: u32, size: u32 },
    /// `--sym-stdin N`: N symbolic bytes of standard input.
    SymStdin { size: u32 },
    /// `--max-fail N`: at most N injected system-call failures per path.
    MaxFail { failures: u32 },
    /// `--fd-fail`: system calls on descriptors may fail (as `--max-fail 1`).
    FdFail,
    /// `--save-all-writes`: accepted for KLEE's command lines; writes always land in full.
    SaveAllWrites,
    /// A concrete argument, passed as it is.
    Arg(String),
}

/// The whole symbolic environment of a program check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvOptions {
    pub items: Vec<EnvItem>,
}

/// Why a list of environment options was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvError {
    /// An option lacks its numbers.
    MissingNumbers { option: &'static str, arity: usize },
    /// A value is not a decimal number.
    NotANumber {
        option: &'static str,
        values: String,
        value: String,
    },
    /// A number is larger than the model allows.
    OutOfRange {
        option: &'static str,
        values: String,
        value: String,
        max: u32,
        unit: &'static str,
    },
    /// `--sym-args` with MIN above MAX.
    MinAboveMax { values: String },
    /// `--sym-args` with MAX 0.
    ZeroMax { values: String },
    /// `--sym-files` with files of no bytes.
    EmptyFiles { values: String },
    /// An option that may appear once appears again.
    Twice { option: &'static str },
    /// More symbolic arguments than the model names.
    TooManySymbolic { most: u64 },
    /// More arguments than the model holds.
    TooManyArgs { most: u64 },
    /// A KLEE option the model does not support.
    Unsupported { option: String, why: &'static str },
    /// An unknown `--sym-*` option.
    Unknown { option: String },
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnvError::MissingNumbers { option, arity } => {
                write!(f, "{option} takes {arity} number(s)")
            }
            EnvError::NotANumber {
                option,
                values,
                value,
            } => write!(f, "{option} {values}: '{value}' is not a number"),
            EnvError::OutOfRange {
                option,
                values,
                value,
                max,
                unit,
            } => write!(
                f,
                "{option} {values}: '{value}' is out of range (at most {max} {unit})"
            ),
            EnvError::MinAboveMax { values } => {
                write!(f, "--sym-args {values}: MIN is larger than MAX")
            }
            EnvError::ZeroMax { values } => write!(f, "--sym-args {values}: MAX must be positive"),
            EnvError::EmptyFiles { values } => {
                write!(f, "--sym-files {values}: the file size must be positive")
            }
            EnvError::Twice { option } => write!(f, "{option} given twice"),
            EnvError::TooManySymbolic { most } => write!(
                f,
                "up to {most} symbolic arguments: at most {MAX_SYM_ARGS_TOTAL} in all"
            ),
            EnvError::TooManyArgs { most } => write!(
                f,
                "up to {most} arguments: at most {MAX_ARGS} in all, program name included"
            ),
            EnvError::Unsupported { option, why } => write!(f, "{option} is not supported ({why})"),
            EnvError::Unknown { option } => write!(
                f,
                "unknown option '{option}' (known: --sym-arg, --sym-args, --sym-files, --sym-stdin, --max-fail, --fd-fail, --save-all-writes)"
            ),
        }
    }
}

impl std::error::Error for EnvError {}

/// An option's canonical name, its numbers and their largest values with units.
struct Spec {
    name: &'static str,
    maxima: &'static [(u32, &'static str)],
}

const BYTES: (u32, &str) = (MAX_SYM_LEN, "bytes");
const ARGS: (u32, &str) = (MAX_SYM_ARGS_RANGE, "arguments");

/// Every option of the model, by canonical name.
const SPECS: &[Spec] = &[
    Spec {
        name: "--sym-arg",
        maxima: &[BYTES],
    },
    Spec {
        name: "--sym-args",
        maxima: &[ARGS, ARGS, BYTES],
    },
    Spec {
        name: "--sym-files",
        maxima: &[(MAX_SYM_FILES, "files (A to Z)"), BYTES],
    },
    Spec {
        name: "--sym-stdin",
        maxima: &[BYTES],
    },
    Spec {
        name: "--max-fail",
        maxima: &[(MAX_FAILURES, "failures")],
    },
    Spec {
        name: "--fd-fail",
        maxima: &[],
    },
    Spec {
        name: "--save-all-writes",
        maxima: &[],
    },
];

/// The spec of `word`, in KLEE's `--name` or `-name` spelling.
fn spec_of(word: &str) -> Option<&'static Spec> {
    let long = match word.strip_prefix('-') {
        Some(rest) if !rest.starts_with('-') => format!("-{word}"),
        _ => word.to_string(),
    };
    SPECS.iter().find(|s| s.name == long)
}

/// How many values `word` takes when it is an environment option, in either spelling.
pub fn arity(word: &str) -> Option<usize> {
    spec_of(word).map(|s| s.maxima.len())
}

/// Whether `word` looks like a `--sym-*` option (known or not).
fn is_sym_option(word: &str) -> bool {
    word.strip_prefix("--")
        .or_else(|| word.strip_prefix('-'))
        .is_some_and(|w| w.starts_with("sym-"))
}

impl Default for EnvOptions {
    /// The environment of the KLEE paper's coreutils runs:
    /// `--sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8`.
    fn default() -> Self {
        EnvOptions {
            items: vec![
                EnvItem::SymArgs {
                    min: 0,
                    max: 1,
                    len: 10,
                },
                EnvItem::SymArgs {
                    min: 0,
                    max: 2,
                    len: 2,
                },
                EnvItem::SymFiles { count: 1, size: 8 },
                EnvItem::SymStdin { size: 8 },
            ],
        }
    }
}

impl EnvOptions {
    /// Parses options and concrete arguments (no program name) in KLEE's spelling, checking
    /// every number against the model's limits.
    pub fn parse(words: &[String]) -> Result<EnvOptions, EnvError> {
        let mut items = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let word = &words[i];
            let Some(spec) = spec_of(word) else {
                if word == "--sym-stdout" || word == "-sym-stdout" {
                    return Err(EnvError::Unsupported {
                        option: word.clone(),
                        why: "stdout is compared, not symbolic",
                    });
                }
                if is_sym_option(word) {
                    return Err(EnvError::Unknown {
                        option: word.clone(),
                    });
                }
                items.push(EnvItem::Arg(word.clone()));
                i += 1;
                continue;
            };
            let arity = spec.maxima.len();
            let values = &words[i + 1..(i + 1 + arity).min(words.len())];
            if values.len() < arity {
                return Err(EnvError::MissingNumbers {
                    option: spec.name,
                    arity,
                });
            }
            let shown = values.join(" ");
            let mut n = Vec::new();
            for (v, &(max, unit)) in values.iter().zip(spec.maxima) {
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(EnvError::NotANumber {
                        option: spec.name,
                        values: shown,
                        value: v.clone(),
                    });
                }
                match v.parse::<u32>().ok().filter(|&x| x <= max) {
                    Some(x) => n.push(x),
                    None => {
                        return Err(EnvError::OutOfRange {
                            option: spec.name,
                            values: shown,
                            value: v.clone(),
                            max,
                            unit,
                        })
                    }
                }
            }
            items.push(match spec.name {
                "--sym-arg" => EnvItem::SymArg { len: n[0] },
                "--sym-args" if n[0] > n[1] => return Err(EnvError::MinAboveMax { values: shown }),
                "--sym-args" if n[1] == 0 => return Err(EnvError::ZeroMax { values: shown }),
                "--sym-args" => EnvItem::SymArgs {
                    min: n[0],
                    max: n[1],
                    len: n[2],
                },
                "--sym-files" if n[0] > 0 && n[1] == 0 => {
                    return Err(EnvError::EmptyFiles { values: shown })
                }
                "--sym-files" => EnvItem::SymFiles {
                    count: n[0],
                    size: n[1],
                },
                "--sym-stdin" => EnvItem::SymStdin { size: n[0] },
                "--max-fail" => EnvItem::MaxFail { failures: n[0] },
                "--fd-fail" => EnvItem::FdFail,
                _ => EnvItem::SaveAllWrites,
            });
            i += 1 + arity;
        }
        let options = EnvOptions { items };
        options.check_totals()?;
        Ok(options)
    }

    /// The limits over all options: files and stdin once, the number of arguments.
    fn check_totals(&self) -> Result<(), EnvError> {
        let once = |f: fn(&EnvItem) -> bool, option| {
            if self.items.iter().filter(|i| f(i)).count() > 1 {
                return Err(EnvError::Twice { option });
            }
            Ok(())
        };
        once(|i| matches!(i, EnvItem::SymFiles { .. }), "--sym-files")?;
        once(|i| matches!(i, EnvItem::SymStdin { .. }), "--sym-stdin")?;
        let (mut symbolic, mut concrete) = (0u64, 0u64);
        for item in &self.items {
            match item {
                EnvItem::SymArg { .. } => symbolic += 1,
                EnvItem::SymArgs { max, .. } => symbolic += u64::from(*max),
                EnvItem::Arg(_) => concrete += 1,
                _ => {}
            }
        }
        if symbolic > u64::from(MAX_SYM_ARGS_TOTAL) {
            return Err(EnvError::TooManySymbolic { most: symbolic });
        }
        let most = 1 + symbolic + concrete;
        if most > u64::from(MAX_ARGS) {
            return Err(EnvError::TooManyArgs { most });
        }
        Ok(())
    }

    /// The options as words of a command line (canonical spellings), as the POSIX model
    /// and the recorded tests take them.
    pub fn to_args(&self) -> Vec<String> {
        let mut out = Vec::new();
        for item in &self.items {
            let (name, numbers): (&str, Vec<u32>) = match item {
                EnvItem::SymArg { len } => ("--sym-arg", vec![*len]),
                EnvItem::SymArgs { min, max, len } => ("--sym-args", vec![*min, *max, *len]),
                EnvItem::SymFiles { count, size } => ("--sym-files", vec![*count, *size]),
                EnvItem::SymStdin { size } => ("--sym-stdin", vec![*size]),
                EnvItem::MaxFail { failures } => ("--max-fail", vec![*failures]),
                EnvItem::FdFail => ("--fd-fail", vec![]),
                EnvItem::SaveAllWrites => ("--save-all-writes", vec![]),
                EnvItem::Arg(a) => {
                    out.push(a.clone());
                    continue;
                }
            };
            out.push(name.to_string());
            out.extend(numbers.iter().map(u32::to_string));
        }
        out
    }

    /// Whether system calls may fail on some path (`--max-fail`, `--fd-fail`).
    pub fn injects_failures(&self) -> Option<&'static str> {
        self.items.iter().find_map(|i| match i {
            EnvItem::MaxFail { .. } => Some("--max-fail"),
            EnvItem::FdFail => Some("--fd-fail"),
            _ => None,
        })
    }
}

/// What a symbolic object of a program check stands for, by the name the POSIX model
/// declares it with (KLEE's names: `arg00`, `n_args`, `A-data`, `stdin`, `read_fail`,
/// `model_version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A symbolic argument (a NUL-terminated string).
    Arg,
    /// How many arguments one `--sym-args` gave (an `i32`).
    ArgCount,
    /// The bytes of symbolic file `A`, `B`, …
    File(char),
    /// Standard input.
    Stdin,
    /// A counter of injected failures (an `i32`).
    FailCounter,
    /// The model's version (an `u32`).
    ModelVersion,
    /// Anything else (a harness's own object).
    Other,
}

/// The role of the object named `name` (see [`Role`]).
pub fn role(name: &str) -> Role {
    let file = name
        .strip_suffix("-data")
        .and_then(|f| {
            let mut c = f.chars();
            c.next().filter(|_| c.next().is_none())
        })
        .filter(char::is_ascii_uppercase);
    match name {
        "n_args" => Role::ArgCount,
        "stdin" => Role::Stdin,
        "model_version" => Role::ModelVersion,
        "read_fail" | "write_fail" | "close_fail" | "ftruncate_fail" | "getcwd_fail" => {
            Role::FailCounter
        }
        _ if file.is_some() => Role::File(file.unwrap_or('A')),
        _ if name.len() == 5
            && name.starts_with("arg")
            && name[3..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            Role::Arg
        }
        _ => Role::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn parse(s: &str) -> Result<EnvOptions, EnvError> {
        EnvOptions::parse(&words(s))
    }

    #[test]
    fn parses_in_order_and_prints_back() {
        let e = parse("-l --sym-args 0 2 2 -sym-files 1 8 --sym-stdin 8 --fd-fail").unwrap();
        assert_eq!(e.items[0], EnvItem::Arg("-l".into()));
        assert_eq!(e.items[2], EnvItem::SymFiles { count: 1, size: 8 });
        assert_eq!(
            e.to_args().join(" "),
            "-l --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8 --fd-fail"
        );
        assert_eq!(e.injects_failures(), Some("--fd-fail"));
        assert_eq!(
            EnvOptions::default().to_args().join(" "),
            "--sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8"
        );
    }

    #[test]
    fn every_limit_is_a_typed_error() {
        let cases = [
            ("--sym-arg", "--sym-arg takes 1 number(s)"),
            ("--sym-arg x", "--sym-arg x: 'x' is not a number"),
            (
                "--sym-stdin 4097",
                "--sym-stdin 4097: '4097' is out of range (at most 4096 bytes)",
            ),
            (
                "--sym-args 3 1 2",
                "--sym-args 3 1 2: MIN is larger than MAX",
            ),
            ("--sym-args 0 0 2", "--sym-args 0 0 2: MAX must be positive"),
            (
                "--sym-files 1 0",
                "--sym-files 1 0: the file size must be positive",
            ),
            ("--sym-stdin 1 --sym-stdin 2", "--sym-stdin given twice"),
            (
                "--sym-stdout",
                "--sym-stdout is not supported (stdout is compared, not symbolic)",
            ),
        ];
        for (args, want) in cases {
            assert_eq!(parse(args).unwrap_err().to_string(), want, "{args}");
        }
        assert!(matches!(
            parse("--sym-foo 1"),
            Err(EnvError::Unknown { .. })
        ));
        let many = "--sym-args 0 32 1 ".repeat(4);
        assert!(matches!(
            parse(&many),
            Err(EnvError::TooManySymbolic { most: 128 })
        ));
        assert!(parse("--sym-files 0 0").is_ok());
    }

    #[test]
    fn roles_follow_the_models_names() {
        assert_eq!(role("arg07"), Role::Arg);
        assert_eq!(role("argument"), Role::Other);
        assert_eq!(role("n_args"), Role::ArgCount);
        assert_eq!(role("B-data"), Role::File('B'));
        assert_eq!(role("stdin"), Role::Stdin);
        assert_eq!(role("read_fail"), Role::FailCounter);
        assert_eq!(role("model_version"), Role::ModelVersion);
    }

    /// The C model checks the same limits (it also serves `xcheck run`): they must agree.
    #[test]
    fn the_c_model_has_the_same_limits() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
        let c = read("harness/posix/env.c") + &read("harness/include/xcheck/posix.h");
        for (name, value) in [
            ("XC_MAX_SYM_LEN", MAX_SYM_LEN),
            ("XC_MAX_SYM_ARGS", MAX_SYM_ARGS_TOTAL),
            ("XC_MAX_ARGS", MAX_ARGS),
        ] {
            assert!(
                c.contains(&format!("#define {name} {value}\n")),
                "the C model's {name} is not {value}"
            );
        }
        assert!(c.contains(&format!("nfiles > {MAX_SYM_FILES}")));
    }
}
