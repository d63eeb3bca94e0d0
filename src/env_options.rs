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
/// declares it with: KLEE 3.x's names (`arg00`, `n_args`, `A_data`, `A_data_stat`, `stdin`,
/// `stdin_stat`, `read_fail`), and those of older tests (KLEE 2.x's and xcheck's former
/// `A-data`, `A-data-stat`, `stdin-stat`, `model_version`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A symbolic argument (a NUL-terminated string).
    Arg,
    /// How many arguments one `--sym-args` gave (an `i32`).
    ArgCount,
    /// The bytes of symbolic file `A`, `B`, …
    File(char),
    /// The `struct stat64` of symbolic file `A`, `B`, …
    FileStat(char),
    /// Standard input.
    Stdin,
    /// The `struct stat64` of standard input.
    StdinStat,
    /// A counter of injected failures (an `i32`).
    FailCounter,
    /// The model's version (an `u32`, older layouts only).
    ModelVersion,
    /// Anything else (a harness's own object).
    Other,
}

/// The file letter of `name` when it is `X` followed by `suffix` or by `suffix` with `-`
/// for `_` (KLEE 2.x's spelling), and whether it used the dashes.
fn file_letter(name: &str, suffix: &str) -> Option<(char, bool)> {
    let mut c = name.chars();
    let letter = c.next().filter(char::is_ascii_uppercase)?;
    let rest = c.as_str();
    if rest == suffix {
        Some((letter, false))
    } else if rest == suffix.replace('_', "-") {
        Some((letter, true))
    } else {
        None
    }
}

/// The role of the object named `name` (see [`Role`]).
pub fn role(name: &str) -> Role {
    match name {
        "n_args" => Role::ArgCount,
        "stdin" => Role::Stdin,
        "stdin_stat" | "stdin-stat" => Role::StdinStat,
        "model_version" => Role::ModelVersion,
        "read_fail" | "write_fail" | "close_fail" | "ftruncate_fail" | "getcwd_fail" => {
            Role::FailCounter
        }
        _ if name.len() == 5
            && name.starts_with("arg")
            && name[3..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            Role::Arg
        }
        _ => match (file_letter(name, "_data"), file_letter(name, "_data_stat")) {
            (Some((c, _)), _) => Role::File(c),
            (_, Some((c, _))) => Role::FileStat(c),
            _ => Role::Other,
        },
    }
}

/// The size of a stat object: `struct stat64` on x86-64 (glibc's and musl's `struct stat`).
pub const STAT_SIZE: usize = 144;

/// The fixed time of the model's clocks and files: 2020-01-01T00:00:00Z (`XC_EPOCH`).
pub const MODEL_EPOCH: i64 = 1_577_836_800;

/// The bytes the POSIX model pins a symbolic file's or stdin's stat object to (its
/// `xc_fs_stat` of the file when it is made; `env.c`): device 0x803, inode `ino` (10 + k for
/// file k, 9 for stdin), one link, `S_IFREG | 0644`, owner 0, `size` bytes, block size
/// 4096, 8 blocks, every time [`MODEL_EPOCH`]. KLEE leaves these objects symbolic; the
/// model leaves only the permission bits and the access and modification times symbolic
/// ([`stat_of_model`]), so that no path forks on the others.
pub fn pinned_stat(size: u64, ino: u64) -> [u8; STAT_SIZE] {
    let mut s = [0u8; STAT_SIZE];
    let mut put = |at: usize, bytes: &[u8]| s[at..at + bytes.len()].copy_from_slice(bytes);
    put(0, &0x803u64.to_le_bytes());
    put(8, &ino.to_le_bytes());
    put(16, &1u64.to_le_bytes());
    put(24, &0o100644u32.to_le_bytes());
    put(48, &size.to_le_bytes());
    put(56, &4096u64.to_le_bytes());
    put(64, &8u64.to_le_bytes());
    for at in [72, 88, 104] {
        put(at, &MODEL_EPOCH.to_le_bytes());
    }
    s
}

/// The stat object a test records for `symbolic`, the bytes a path's model gives a stat
/// object: `pinned` (see [`pinned_stat`]) with what the model leaves symbolic taken from
/// `symbolic` as the model takes it (`harness/posix/env.c`): the permission bits of a
/// regular file (`st_mode & 0777`) and the access and modification times (their low 31
/// bits, seconds up to 2038).
pub fn stat_of_model(pinned: [u8; STAT_SIZE], symbolic: &[u8]) -> [u8; STAT_SIZE] {
    let mut s = pinned;
    if symbolic.len() < STAT_SIZE {
        return s;
    }
    let word = |at: usize, n: usize| {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&symbolic[at..at + n]);
        u64::from_le_bytes(b)
    };
    let mode = 0o100000 | (word(24, 4) as u32 & 0o777);
    s[24..28].copy_from_slice(&mode.to_le_bytes());
    for at in [72, 88] {
        s[at..at + 8].copy_from_slice(&(word(at, 8) & 0x7fff_ffff).to_le_bytes());
    }
    s
}

/// The pinned value of the stat object `name` (`A_data_stat`, `stdin_stat`… in either
/// spelling) of a file of `size` bytes; `None` for other objects.
pub fn pinned_stat_named(name: &str, size: u64) -> Option<[u8; STAT_SIZE]> {
    match role(name) {
        Role::FileStat(c) => Some(pinned_stat(size, 10 + u64::from(c as u8 - b'A'))),
        Role::StdinStat => Some(pinned_stat(size, 9)),
        _ => None,
    }
}

/// A symbolic object of a test: its name and bytes.
pub type NamedBytes = (String, Vec<u8>);

/// Which layout of the POSIX objects a test has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// KLEE 3.x's, which the model writes: `A_data`, `A_data_stat`, …, no `model_version`.
    Klee3,
    /// KLEE 2.x's: `A-data`, `A-data-stat`, `stdin-stat`, `model_version`.
    Klee2,
    /// xcheck's former one: `A-data`, `stdin`, `model_version`, no stat objects.
    XcheckOld,
}

/// The objects of a test (name and bytes, in order) in the layout the POSIX model makes
/// them (KLEE 3.x's), whichever of the three layouts they are in, with the layout found.
/// Stat objects hold the model's pinned values ([`pinned_stat`]): those of an old test
/// are made, and those of a KLEE test (values its solver chose) are replaced, since the
/// model's stat is pinned. `model_version` is dropped. An inconsistent test (a stat object
/// not right after its file, one of the wrong size, names of two layouts) is an error of
/// one line.
pub fn model_layout<'a>(
    objects: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Result<(Vec<NamedBytes>, Layout), String> {
    let objects: Vec<(&str, &[u8])> = objects.into_iter().collect();
    let dashed = |name: &str| {
        file_letter(name, "_data")
            .or_else(|| file_letter(name, "_data_stat"))
            .map(|(_, d)| d)
            .or((name == "stdin-stat").then_some(true))
            .or((name == "stdin_stat").then_some(false))
    };
    let styles: Vec<bool> = objects.iter().filter_map(|(n, _)| dashed(n)).collect();
    if styles.contains(&true) && styles.contains(&false) {
        return Err("mixes KLEE 2.x names (A-data) with KLEE 3.x names (A_data)".into());
    }
    let old_names = styles.contains(&true);
    let version = objects.iter().any(|(n, _)| role(n) == Role::ModelVersion);
    let stats = objects
        .iter()
        .any(|(n, _)| matches!(role(n), Role::FileStat(_) | Role::StdinStat));
    let layout = match (old_names || version, stats) {
        (false, _) => Layout::Klee3,
        (true, true) => Layout::Klee2,
        (true, false) => Layout::XcheckOld,
    };
    let mut out = Vec::with_capacity(objects.len() + 4);
    let mut i = 0;
    while i < objects.len() {
        let (name, bytes) = objects[i];
        let (data_name, stat_name, ino) = match role(name) {
            Role::File(c) => (
                format!("{c}_data"),
                format!("{c}_data_stat"),
                10 + u64::from(c as u8 - b'A'),
            ),
            Role::Stdin => ("stdin".to_string(), "stdin_stat".to_string(), 9),
            Role::FileStat(_) | Role::StdinStat => {
                return Err(format!("object '{name}' does not follow its file's bytes"));
            }
            Role::ModelVersion if bytes.len() != 4 => {
                return Err(format!("object '{name}' has {} bytes, not 4", bytes.len()));
            }
            Role::ModelVersion => {
                i += 1;
                continue;
            }
            Role::ArgCount | Role::FailCounter if bytes.len() != 4 => {
                return Err(format!("object '{name}' has {} bytes, not 4", bytes.len()));
            }
            _ => {
                out.push((name.to_string(), bytes.to_vec()));
                i += 1;
                continue;
            }
        };
        out.push((data_name, bytes.to_vec()));
        let next = objects.get(i + 1).filter(|(n, _)| {
            let r = role(n);
            (r == Role::StdinStat && name == "stdin")
                || matches!((role(name), r), (Role::File(a), Role::FileStat(b)) if a == b)
        });
        match (next, layout) {
            (Some((n, b)), _) => {
                if b.len() != STAT_SIZE {
                    return Err(format!(
                        "object '{n}' has {} bytes, not {STAT_SIZE}",
                        b.len()
                    ));
                }
                i += 2;
            }
            (None, Layout::XcheckOld) => i += 1,
            (None, _) => {
                return Err(format!(
                    "object '{name}' is not followed by its stat object"
                ))
            }
        }
        out.push((stat_name, pinned_stat(bytes.len() as u64, ino).to_vec()));
    }
    Ok((out, layout))
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
    fn a_recorded_stat_object_keeps_the_models_mode_bits_and_times_and_pins_the_rest() {
        let pinned = pinned_stat(5, 10);
        let mut model = [0xffu8; STAT_SIZE];
        model[88..96].copy_from_slice(&0x1_2345_6789i64.to_le_bytes());
        let s = stat_of_model(pinned, &model);
        let at = |k: usize| u64::from_le_bytes(s[k..k + 8].try_into().unwrap());
        assert_eq!(at(24) as u32, 0o100777);
        assert_eq!(at(72), 0x7fff_ffff);
        assert_eq!(at(88), 0x2345_6789);
        // Everything else is the pinned object's: size, inode, owner, change time.
        for (k, (x, y)) in s.iter().zip(&pinned).enumerate() {
            if !(24..28).contains(&k) && !(72..80).contains(&k) && !(88..96).contains(&k) {
                assert_eq!(x, y, "byte {k}");
            }
        }
        // The stat of the test equals the model's when the model's values are the pinned ones.
        assert_eq!(stat_of_model(pinned, &pinned), pinned);
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
        assert_eq!(role("B_data"), Role::File('B'));
        assert_eq!(role("C_data_stat"), Role::FileStat('C'));
        assert_eq!(role("C-data-stat"), Role::FileStat('C'));
        assert_eq!(role("C_data-stat"), Role::Other);
        assert_eq!(role("a_data"), Role::Other);
        assert_eq!(role("stdin"), Role::Stdin);
        assert_eq!(role("stdin_stat"), Role::StdinStat);
        assert_eq!(role("read_fail"), Role::FailCounter);
        assert_eq!(role("model_version"), Role::ModelVersion);
    }

    type Objects = Vec<NamedBytes>;

    fn layout_of(objects: &[(&str, Vec<u8>)]) -> Result<(Objects, Layout), String> {
        model_layout(objects.iter().map(|(n, b)| (*n, b.as_slice())))
    }

    fn names(objects: &Objects) -> String {
        let v: Vec<String> = objects
            .iter()
            .map(|(n, b)| format!("{n}:{}", b.len()))
            .collect();
        v.join(" ")
    }

    /// The three layouts of one test (an argument, file A of 3 bytes, stdin of 2, the
    /// failure counters) give the same objects in the model's layout.
    #[test]
    fn every_layout_becomes_the_models() {
        let four = || 1i32.to_le_bytes().to_vec();
        let stat = |size, ino| pinned_stat(size, ino).to_vec();
        let other_stat = vec![7u8; STAT_SIZE];
        let fails = [
            "read_fail",
            "write_fail",
            "close_fail",
            "ftruncate_fail",
            "getcwd_fail",
        ];
        let mut klee3 = vec![
            ("n_args", four()),
            ("arg00", b"x\0".to_vec()),
            ("A_data", b"abc".to_vec()),
            ("A_data_stat", stat(3, 10)),
            ("stdin", b"in".to_vec()),
            ("stdin_stat", stat(2, 9)),
        ];
        klee3.extend(fails.iter().map(|f| (*f, four())));
        let mut klee2 = vec![
            ("n_args", four()),
            ("arg00", b"x\0".to_vec()),
            ("A-data", b"abc".to_vec()),
            ("A-data-stat", other_stat.clone()),
            ("stdin", b"in".to_vec()),
            ("stdin-stat", other_stat),
        ];
        klee2.extend(fails.iter().map(|f| (*f, four())));
        klee2.push(("model_version", four()));
        let mut old = vec![
            ("n_args", four()),
            ("arg00", b"x\0".to_vec()),
            ("A-data", b"abc".to_vec()),
            ("stdin", b"in".to_vec()),
        ];
        old.extend(fails.iter().map(|f| (*f, four())));
        old.push(("model_version", four()));
        let (want, layout) = layout_of(&klee3).unwrap();
        assert_eq!(layout, Layout::Klee3);
        assert_eq!(
            names(&want),
            "n_args:4 arg00:2 A_data:3 A_data_stat:144 stdin:2 stdin_stat:144 read_fail:4 \
             write_fail:4 close_fail:4 ftruncate_fail:4 getcwd_fail:4"
        );
        let klee3_owned: Objects = klee3
            .iter()
            .map(|(n, b)| (n.to_string(), b.clone()))
            .collect();
        assert_eq!(want, klee3_owned, "the model's layout is kept as it is");
        assert_eq!(layout_of(&klee2).unwrap(), (want.clone(), Layout::Klee2));
        assert_eq!(layout_of(&old).unwrap(), (want, Layout::XcheckOld));
        // Arguments only: no model_version in KLEE 3.x, one in the old layout.
        let args = [("arg00", b"x\0".to_vec())];
        assert_eq!(layout_of(&args).unwrap().1, Layout::Klee3);
        let args_old = [("arg00", b"x\0".to_vec()), ("model_version", four())];
        assert_eq!(names(&layout_of(&args_old).unwrap().0), "arg00:2");
    }

    #[test]
    fn an_inconsistent_layout_is_an_error() {
        let four = || 1i32.to_le_bytes().to_vec();
        let stat = pinned_stat(3, 10).to_vec();
        type Case<'a> = (&'a [(&'a str, Vec<u8>)], &'a str);
        let cases: [Case; 6] = [
            (
                &[("A_data", b"abc".to_vec())],
                "object 'A_data' is not followed by its stat object",
            ),
            (
                &[("A_data", b"abc".to_vec()), ("A_data_stat", vec![0; 4])],
                "object 'A_data_stat' has 4 bytes, not 144",
            ),
            (
                &[("A_data_stat", stat.clone()), ("A_data", b"abc".to_vec())],
                "object 'A_data_stat' does not follow its file's bytes",
            ),
            (
                &[("A-data", b"abc".to_vec()), ("B_data", b"abc".to_vec())],
                "mixes KLEE 2.x names (A-data) with KLEE 3.x names (A_data)",
            ),
            (
                &[
                    ("A-data", b"abc".to_vec()),
                    ("A-data-stat", stat.clone()),
                    ("B-data", b"abc".to_vec()),
                    ("model_version", four()),
                ],
                "object 'B-data' is not followed by its stat object",
            ),
            (
                &[("model_version", vec![1])],
                "object 'model_version' has 1 bytes, not 4",
            ),
        ];
        for (objects, want) in cases {
            assert_eq!(layout_of(objects).unwrap_err(), want);
        }
        // A stat object of another file in its place.
        let swapped = [("A_data", b"abc".to_vec()), ("B_data_stat", stat)];
        assert!(layout_of(&swapped).is_err());
    }

    /// The pinned stat is laid out as the C model's `struct xc_stat` (offsets asserted in
    /// `posix.h`, and against the host's `struct stat` by `harness/posix/test/run.sh`).
    #[test]
    fn the_pinned_stat_matches_the_c_layout() {
        let s = pinned_stat(8, 10);
        let u64_at = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
        assert_eq!(u64_at(8), 10);
        assert_eq!(u32::from_le_bytes(s[24..28].try_into().unwrap()), 0o100644);
        assert_eq!((u64_at(48), u64_at(56), u64_at(64)), (8, 4096, 8));
        assert_eq!(u64_at(88), MODEL_EPOCH as u64);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let h = std::fs::read_to_string(root.join("harness/include/xcheck/posix.h")).unwrap();
        assert!(h.contains(&format!("#define XC_EPOCH {MODEL_EPOCH}L\n")));
        for (field, at) in [("st_mode", 24), ("st_size", 48), ("st_blocks", 64)] {
            assert!(h.contains(&format!("offsetof(struct xc_stat, {field}) == {at}")));
        }
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
