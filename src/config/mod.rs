//! The `--config xcheck.toml` file: which module pairs and functions a CI run checks, and
//! which outcomes fail it.
//!
//! ```toml
//! [defaults]                      # settings for every check, all optional
//! buffer_size = 16                # bytes behind pointer parameters, 1 to 1048576
//! buffer_cap = 256                # most bytes such a buffer grows to on demand, 0 to 65536
//! buffer_offset = "any"           # where buffers start within 16 bytes: "any" or 0 to 15
//! max_time = "60s"                # per function pair: 90, 90s, 1500ms, 5m, 1h (at most 720h); 0, "0s" or "none": no limit
//! search = "interleaved"
//! seed = 0
//! globals = "symbolic"            # how mutable globals start: symbolic (any state) or initial
//! fail_on = ["diverged", "error"] # outcomes that fail the run: diverged, error, unknown
//! abstract_calls = ["sin", "cos"] # functions called as uninterpreted, not run as musl's code
//! fp_equal = "bits"               # floating-point results: bits, ieee, ulp:N, abs:E or rel:E
//!
//! [[pair]]                        # one module pair; paths relative to this file's directory
//! a = "build/old.bc"
//! b = "build/new.bc"
//! all_functions = true            # every function defined in both with the same signature
//! include = ["parse_*", "fmt_*"]  # globs (`*`, `?`) on the names found by all_functions
//! exclude = ["*_debug"]
//! abstract_calls = ["exp"]        # this pair's own list, instead of the default one
//!
//!   [[pair.function]]             # one function, with its own settings
//!   name = "parse"                # or a = "parse", b = "parse_v2" for a renamed function
//!   buffer_size = 8
//!   buffer_sizes = { s = 5 }      # per parameter
//!   alias = ["dst", "src"]        # these pointers point into one object ([] for all)
//!   assume = ["s[4] == 0", "n < 10"]
//!   max_time = "5m"
//!   fp_equal = "ulp:2"            # this function's own floating-point equality
//!   accept = "diverged"           # a known, intended outcome that does not fail the run
//!   note = "parse now rejects leading '+': intended (issue #12)"
//! ```
//!
//! A pair checks its `[[pair.function]]` entries, and with `all_functions` also every function
//! both modules define with the same signature whose name matches an `include` pattern (any
//! name when there is none) and no `exclude` pattern; an entry's settings apply to its
//! function, and an entry is checked even when the filters would leave its name out.
//! `fail_on`, `include`, `exclude`, `assume` and `abstract_calls` take a list or a single
//! string. `abstract_calls` (`--abstract-calls`) is set for a whole pair, not per function:
//! a pair's modules are linked once, and the functions it names are left out of that link.
//!
//! The outcomes are those of a finished check's report (see [`outcomes`]): `diverged` (an
//! input on which the results differ), `error` (a failure on one side only) and `unknown`
//! (a path left undecided or exploration cut short). [`fails`] applies the policy.
//!
//! [`load_config`] checks everything it can without the modules: unknown keys, types,
//! ranges, durations, the syntax of `assume`, duplicate entries. Each [`ConfigError`] is one
//! line naming the file, the line and the key: `xcheck.toml:7: pair[0].function[1]: unknown
//! key 'asume' (expected one of: …)`. TOML syntax errors also give the column.
//!
//! The schema is written once, as serde structs with `deny_unknown_fields`. Each kind of
//! value (a buffer size, a time limit, an outcome, …) has a [`schema::Check`] that runs while serde
//! reads the value, so a rejected value's error carries the key path (tracked by
//! `serde_path_to_error`) and the value's line (`toml`'s span); [`Ctx::pair`] then checks
//! what involves several keys (names, duplicates, `include` without `all_functions`) with the
//! spans of the `[[pair]]` and `[[pair.function]]` headers ([`Spanned`]).

mod schema;

use crate::crosscheck::globals::GlobalsMode;
use crate::crosscheck::FpEquality;
use crate::exec::SearchKind;
use crate::report::{Overall, PathVerdict, Report};
use schema::{
    BufferSize, Globals, Limit, Many, Name, RawConfig, RawFunction, RawPair, Read, Search, Seed,
    Table, DATETIME,
};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;
use toml::Spanned;

/// The largest buffer size a config accepts, in bytes, as `--buffer-size` does.
pub const MAX_BUFFER_SIZE: u32 = 1 << 20;

/// The outcomes that fail a run when neither the config nor `--fail-on` says otherwise.
pub const DEFAULT_FAIL_ON: [FailOn; 2] = [FailOn::Diverged, FailOn::Error];

/// A loaded config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Settings for every check.
    pub defaults: Defaults,
    /// The module pairs, in file order.
    pub pairs: Vec<PairConfig>,
    /// The directory of the config file, against which the pairs' paths were resolved.
    pub dir: PathBuf,
}

/// The `[defaults]` table: settings for every check; `None` where the file sets nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Bytes behind each pointer parameter.
    #[serde(default, deserialize_with = "schema::read::<BufferSize, _>")]
    pub buffer_size: Option<u32>,
    /// The most bytes a buffer grows to (`--buffer-cap`).
    #[serde(default, deserialize_with = "schema::read::<schema::BufferCap, _>")]
    pub buffer_cap: Option<u32>,
    /// Where buffers start within a 16-byte boundary (`--buffer-offset`).
    #[serde(default, deserialize_with = "schema::read::<schema::BufferOffset, _>")]
    pub buffer_offset: Option<crate::crosscheck::BufferOffset>,
    /// Time limit of one function pair; `Some(None)` is no limit.
    #[serde(default, deserialize_with = "schema::read::<Limit, _>")]
    pub max_time: Option<Option<Duration>>,
    /// The search strategy.
    #[serde(default, deserialize_with = "schema::read::<Search, _>")]
    pub search: Option<SearchKind>,
    /// Seed of the search's random choices.
    #[serde(default, deserialize_with = "schema::read::<Seed, _>")]
    pub seed: Option<u64>,
    /// How mutable globals start in function checks (`--globals`).
    #[serde(default, deserialize_with = "schema::read::<Globals, _>")]
    pub globals: Option<GlobalsMode>,
    /// The outcomes that fail the run, without repeats.
    #[serde(default, deserialize_with = "schema::unique::<schema::Outcome, _>")]
    pub fail_on: Option<Vec<FailOn>>,
    /// Functions whose calls are uninterpreted (`--abstract-calls`), without repeats.
    #[serde(default, deserialize_with = "schema::unique::<schema::CallName, _>")]
    pub abstract_calls: Option<Vec<String>>,
    /// When floating-point return values are equal (`--fp-equal`, `--fp-tolerance`).
    #[serde(default, deserialize_with = "schema::read::<schema::FpEqual, _>")]
    pub fp_equal: Option<FpEquality>,
}

/// An outcome of a check that a policy can fail the run on, or accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailOn {
    /// Some input makes the results differ.
    Diverged,
    /// Some input makes exactly one side fail.
    Error,
    /// Some path was left undecided, or exploration stopped early.
    Unknown,
}

impl FailOn {
    /// Every outcome, in the order they are listed in messages.
    pub const ALL: [FailOn; 3] = [FailOn::Diverged, FailOn::Error, FailOn::Unknown];

    /// The word used in configs and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Diverged => "diverged",
            FailOn::Error => "error",
            FailOn::Unknown => "unknown",
        }
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FailOn {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let word = s.trim();
        FailOn::ALL
            .into_iter()
            .find(|o| o.as_str() == word)
            .ok_or_else(|| {
                format!(
                    "'{}' is not an outcome (diverged, error, unknown)",
                    shown(s)
                )
            })
    }
}

/// Parses the argument of `--abstract-calls`: comma-separated C function names, without
/// repeats.
pub fn parse_abstract_calls(list: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    for item in list.split(',') {
        let name = call_name(item)?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// A function name of `--abstract-calls`: a C identifier.
pub fn call_name(text: &str) -> Result<String, String> {
    let name = text.trim();
    let mut chars = name.chars();
    let starts = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !starts || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(if name.is_empty() {
            "an empty function name".to_string()
        } else {
            format!("'{}' is not a C function name", shown(name))
        });
    }
    Ok(name.to_string())
}

/// Parses a comma-separated list of outcomes such as `diverged,unknown` (the argument of
/// `--fail-on`); `none` is the empty list. Repeats are dropped.
pub fn parse_fail_on(list: &str) -> Result<Vec<FailOn>, String> {
    if list.trim() == "none" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for word in list.split(',') {
        if word.trim().is_empty() {
            return Err(format!(
                "'{}': expected outcomes separated by commas (diverged, error, unknown) or none",
                shown(list)
            ));
        }
        let outcome: FailOn = word.parse()?;
        if !out.contains(&outcome) {
            out.push(outcome);
        }
    }
    Ok(out)
}

/// The outcomes a finished check shows, in [`FailOn::ALL`] order.
///
/// A report whose verdict is `NOT EQUIVALENT` without a counted divergence or one-sided error
/// counts as diverged, and an inconclusive report always counts as unknown, so no verdict
/// escapes the policy.
pub fn outcomes(report: &Report) -> Vec<FailOn> {
    let s = &report.summary;
    // Only differences that concrete replay confirmed are divergences or errors; one it did
    // not confirm leaves the check unknown.
    let has = |v: PathVerdict| {
        report
            .rows
            .iter()
            .any(|r| r.verdict == v && r.is_confirmed_difference())
    };
    let error = s.errors_one > 0 || has(PathVerdict::ErrorOne);
    let diverged =
        s.diverged > 0 || has(PathVerdict::Diverged) || (s.overall == Overall::Diverged && !error);
    let unknown = s.unknown > 0
        || s.unconfirmed > 0
        || !s.complete
        || report
            .rows
            .iter()
            .any(|r| r.verdict == PathVerdict::Unknown)
        || s.overall == Overall::Inconclusive;
    let mut out = Vec::new();
    for (outcome, present) in [
        (FailOn::Diverged, diverged),
        (FailOn::Error, error),
        (FailOn::Unknown, unknown),
    ] {
        if present {
            out.push(outcome);
        }
    }
    out
}

/// Whether a finished check fails the run: it shows an outcome in `fail_on` other than the
/// `accept`ed one.
pub fn fails(report: &Report, fail_on: &[FailOn], accept: Option<FailOn>) -> bool {
    outcomes(report)
        .into_iter()
        .any(|o| fail_on.contains(&o) && Some(o) != accept)
}

impl Config {
    /// The outcomes that fail the run: `defaults.fail_on`, or [`DEFAULT_FAIL_ON`].
    pub fn fail_on(&self) -> Vec<FailOn> {
        self.defaults
            .fail_on
            .clone()
            .unwrap_or_else(|| DEFAULT_FAIL_ON.to_vec())
    }
}

/// One `[[pair]]`: two modules and what to check in them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairConfig {
    /// Module A, resolved against the config file's directory.
    pub a: PathBuf,
    /// Module B, resolved against the config file's directory.
    pub b: PathBuf,
    /// Whether to check every function both modules define with the same signature.
    pub all_functions: bool,
    /// Glob patterns; with `all_functions`, only names matching one of them (any name when
    /// empty) are checked.
    pub include: Vec<String>,
    /// Glob patterns; with `all_functions`, names matching one of them are not checked.
    pub exclude: Vec<String>,
    /// The `[[pair.function]]` entries, in file order.
    pub functions: Vec<FunctionConfig>,
    /// Functions whose calls are uninterpreted in this pair, overriding the default.
    pub abstract_calls: Option<Vec<String>>,
    /// The line of the `[[pair]]` header, for messages about the pair.
    pub line: usize,
}

impl PairConfig {
    /// Whether `all_functions` picks the function `name`, by the include and exclude
    /// patterns.
    pub fn selects(&self, name: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|p| glob_match(p, name)))
            && !self.exclude.iter().any(|p| glob_match(p, name))
    }

    /// The functions whose calls are uninterpreted in this pair: its own list, else the
    /// file's default, else `base` (the command line's).
    pub fn abstract_calls<'s>(
        &'s self,
        defaults: &'s Defaults,
        base: &'s [String],
    ) -> &'s [String] {
        self.abstract_calls
            .as_deref()
            .or(defaults.abstract_calls.as_deref())
            .unwrap_or(base)
    }

    /// The entry for the function named `a_name` in A and `b_name` in B, if there is one.
    pub fn function(&self, a_name: &str, b_name: &str) -> Option<&FunctionConfig> {
        self.functions
            .iter()
            .find(|f| f.a_name == a_name && f.b_name == b_name)
    }
}

/// One `[[pair.function]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionConfig {
    /// The function's name in A.
    pub a_name: String,
    /// The function's name in B (the same as in A unless the entry gives `a` and `b`).
    pub b_name: String,
    /// Bytes behind each pointer parameter, overriding the default.
    pub buffer_size: Option<u32>,
    /// Bytes behind the named pointer parameters, in file order.
    pub buffer_sizes: Vec<(String, u32)>,
    /// The most bytes a buffer grows to, overriding the default.
    pub buffer_cap: Option<u32>,
    /// Where buffers start, overriding the default.
    pub buffer_offset: Option<crate::crosscheck::BufferOffset>,
    /// Pointer parameters that point into one object (`--alias`; empty: all of them).
    pub alias: Option<Vec<String>>,
    /// Preconditions in the `--assume` language, syntax-checked.
    pub assume: Vec<String>,
    /// Time limit, overriding the default; `Some(None)` is no limit.
    pub max_time: Option<Option<Duration>>,
    /// When floating-point return values are equal, overriding the default.
    pub fp_equal: Option<FpEquality>,
    /// An outcome that does not fail the run for this function.
    pub accept: Option<FailOn>,
    /// Why, for people reading the config or the results.
    pub note: Option<String>,
    /// The line of the `[[pair.function]]` header, for messages about the entry.
    pub line: usize,
}

/// Why a config file was rejected; displays as one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file, as it was named.
    pub file: PathBuf,
    /// The line of the problem, from 1, when it has one.
    pub line: Option<usize>,
    /// The column of a TOML syntax error, from 1, counted in characters.
    pub column: Option<usize>,
    /// Where in the config the problem is, for example `pair[0].function[1].assume[0]`.
    pub key: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", shown_all(&self.file.display().to_string()))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        if let Some(key) = &self.key {
            write!(f, ": {}", shown_all(key))?;
        }
        write!(f, ": {}", shown_all(&self.message))
    }
}

impl std::error::Error for ConfigError {}

/// Reads and checks the config file at `path`; paths in it are resolved against its
/// directory.
pub fn load_config(path: &Path) -> Result<Config, ConfigError> {
    let error = |line, message: String| ConfigError {
        file: path.to_path_buf(),
        line,
        column: None,
        key: None,
        message,
    };
    let limit = crate::input::MAX_CONFIG_BYTES;
    let bytes = crate::input::read_limited(path, limit, "config files")
        .map_err(|e| error(None, format!("cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let line = line_of(&bytes, e.valid_up_to());
        error(Some(line), "not UTF-8 text".to_string())
    })?;
    parse_config(text, path)
}

/// Checks config `text` as if read from `file`, whose directory the pairs' paths are
/// resolved against.
pub fn parse_config(text: &str, file: &Path) -> Result<Config, ConfigError> {
    let ctx = Ctx { file, text };
    // Syntax first, so that a syntax error says so and gives its column.
    text.parse::<toml::Table>()
        .map_err(|e| ctx.syntax_error(&e))?;
    let raw: RawConfig = serde_path_to_error::deserialize(toml::Deserializer::new(text))
        .map_err(|e| ctx.schema_error(&e))?;
    if raw.pair.is_empty() {
        return Err(ctx.error(
            Some(1),
            "pair",
            "no [[pair]] tables: the config checks nothing",
        ));
    }
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let pairs = (raw.pair.into_iter().enumerate())
        .map(|(i, pair)| ctx.pair(i, pair, &dir))
        .collect::<Result<_, _>>()?;
    Ok(Config {
        defaults: raw.defaults.0,
        pairs,
        dir,
    })
}

/// The longest duration a limit takes: 30 days (`720h`). Longer ones are surely mistakes,
/// and a deadline computed from them (`Instant + duration`) would overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Parses a time limit, as `--max-time`, `--solver-timeout` and a config's `max_time` take
/// it: a duration as [`parse_duration`] reads it, where `0` (in any unit: `0s`, `0ms`) and
/// `none` mean no limit (`None`).
pub fn parse_limit(text: &str) -> Result<Option<Duration>, String> {
    if text.trim() == "none" {
        return Ok(None);
    }
    let d = duration(text)?;
    Ok((!d.is_zero()).then_some(d))
}

/// Parses a positive duration: `90` (seconds), `90s`, `1500ms`, `5m`, `1h`, decimals such
/// as `1.5h`; at most [`MAX_DURATION`]. Zero is an error: only a limit
/// ([`parse_limit`]) has a meaning for it.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    match duration(text)? {
        d if d.is_zero() => Err(format!("'{}': must be positive", shown(text))),
        d => Ok(d),
    }
}

/// The one duration syntax of configs and the command line, zero included.
fn duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let not_a_duration = || format!("'{}' is not a duration (use 90s, 5m, 1h)", shown(text));
    let too_long = || {
        format!(
            "'{}' is too long a duration (at most {}h)",
            shown(text),
            MAX_DURATION.as_secs() / 3600
        )
    };
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "" | "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return Err(not_a_duration()),
    };
    if !number.bytes().any(|b| b.is_ascii_digit()) {
        return Err(not_a_duration());
    }
    let duration = if number.contains('.') {
        let value: f64 = number.parse().map_err(|_| not_a_duration())?;
        Duration::try_from_secs_f64(value * unit_ms as f64 / 1000.0).map_err(|_| too_long())?
    } else {
        let value: u64 = number.parse().map_err(|_| too_long())?;
        Duration::from_millis(value.checked_mul(unit_ms).ok_or_else(too_long)?)
    };
    if duration > MAX_DURATION {
        return Err(too_long());
    }
    Ok(duration)
}

/// The largest `--buffer-cap` (and config `buffer_cap`): a buffer grows into the free space
/// the engine leaves after it (`memory::PARAMETER_GAP`).
pub const MAX_BUFFER_CAP: u32 = 1 << 16;

/// Checks a buffer size, as `--buffer-size` and a config's `buffer_size` take it: 1 to
/// [`MAX_BUFFER_SIZE`] bytes.
pub fn buffer_size(n: i64) -> Result<u32, String> {
    u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_BUFFER_SIZE).contains(n))
        .ok_or_else(|| format!("{n} is not a buffer size (1 to {MAX_BUFFER_SIZE} bytes)"))
}

/// Whether `name` matches the glob `pattern`, in which `*` stands for any run of characters
/// (also none) and `?` for exactly one; every other character stands for itself.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // Where the last `*` was, and the name position it currently stands up to.
    let mut star: Option<(usize, usize)> = None;
    while let Some(&c) = n.get(ni) {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&q) if q == '?' || q == c => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    pi = sp + 1;
                    ni = sn + 1;
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(|&c| c == '*')
}

// ---------------------------------------------------------------------------------------
// Messages.
// ---------------------------------------------------------------------------------------

/// Joins a key path and a key, quoting keys that are not bare TOML keys.
fn join_key(path: &str, key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let key = if bare {
        key.to_string()
    } else {
        format!("\"{}\"", shown(key))
    };
    if path.is_empty() {
        key
    } else {
        format!("{path}.{key}")
    }
}

/// The line (from 1) of byte `offset` in `bytes`.
fn line_of(bytes: &[u8], offset: usize) -> usize {
    let end = offset.min(bytes.len());
    bytes[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The column (from 1, in characters) of byte `offset` in `bytes`.
fn column_of(bytes: &[u8], offset: usize) -> usize {
    let end = offset.min(bytes.len());
    let start = bytes[..end]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    // Count the bytes that start a character.
    bytes[start..end]
        .iter()
        .filter(|&&b| b & 0xc0 != 0x80)
        .count()
        + 1
}

/// Shows a user's string inside a one-line message: control characters as escapes, and at
/// most 60 characters.
fn shown(text: &str) -> String {
    let mut out = shown_all(text);
    if out.chars().count() > 60 {
        out = out.chars().take(59).collect();
        out.push('…');
    }
    out
}

/// Shows control characters as escapes, so that the text stays on one line.
fn shown_all(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The text being checked and its file name, for messages.
struct Ctx<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Ctx<'_> {
    fn error(&self, line: Option<usize>, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line,
            column: None,
            key: (!key.is_empty()).then(|| key.to_string()),
            message: message.into(),
        }
    }

    /// The line of byte `offset`.
    fn line(&self, offset: usize) -> Option<usize> {
        Some(line_of(self.text.as_bytes(), offset))
    }

    fn syntax_error(&self, e: &toml::de::Error) -> ConfigError {
        let lines: Vec<&str> = e
            .message()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        self.located(e, None, format!("invalid TOML: {}", lines.join("; ")))
    }

    /// An error at `e`'s span, with its column.
    fn located(&self, e: &toml::de::Error, key: Option<String>, message: String) -> ConfigError {
        let bytes = self.text.as_bytes();
        let span = e.span();
        ConfigError {
            file: self.file.to_path_buf(),
            line: span.as_ref().map(|s| line_of(bytes, s.start)),
            column: span.as_ref().map(|s| column_of(bytes, s.start)),
            key,
            message,
        }
    }

    /// Says what serde found wrong, with the key path it was reading, in this module's words.
    fn schema_error(&self, e: &serde_path_to_error::Error<toml::de::Error>) -> ConfigError {
        use serde_path_to_error::Segment;
        let inner = e.inner();
        let message = inner.message();
        let span = inner.span();
        // The key path, without the private names of `Spanned`'s fields.
        let mut parts: Vec<Result<usize, String>> = Vec::new();
        for segment in e.path().iter() {
            match segment {
                Segment::Seq { index } => parts.push(Ok(*index)),
                Segment::Map { key } if !key.starts_with("$__") => parts.push(Err(key.clone())),
                _ => {}
            }
        }
        let mut unknown = None;
        if message.starts_with("unknown field `") && !message.contains("$__toml_private") {
            if let Some(Err(key)) = parts.pop() {
                unknown = Some(key);
            }
        }
        let key = parts.iter().fold(String::new(), |path, part| match part {
            Ok(i) => format!("{path}[{i}]"),
            Err(k) => join_key(&path, k),
        });
        let at_text = span.as_ref().and_then(|s| self.text.get(s.clone()));
        let message = if let Some(name) = unknown {
            // "unknown field `k`, expected one of `a`, `b`" names the fields in backquotes.
            let names = message
                .strip_prefix(&format!("unknown field `{name}`, expected "))
                .unwrap_or_default();
            let names: Vec<&str> = names.split('`').skip(1).step_by(2).collect();
            format!(
                "unknown key '{}' (expected one of: {})",
                shown(&name),
                names.join(", ")
            )
        } else if message == DATETIME
            || message.contains("$__toml_private_datetime")
            || (message.starts_with("invalid type: map")
                && at_text.is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit())))
        {
            return self.located(inner, None, DATETIME.to_string());
        } else if let Some((found, what)) = message
            .strip_prefix("invalid type: ")
            .and_then(|m| m.rsplit_once(", expected "))
        {
            let found = match found.split([' ', ',']).next().unwrap_or_default() {
                "string" => "a string",
                "integer" => "an integer",
                "floating" => "a float",
                "boolean" => "a boolean",
                "map" => "a table",
                "sequence" => "an array",
                other => other,
            };
            // The only arrays of structs are `pair` and `pair.function`.
            let header: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.as_ref().err())
                .map(String::as_str)
                .collect();
            let what = if what.starts_with("struct ") {
                "a table".to_string()
            } else if what == "a sequence" {
                format!("an array of tables ([[{}]])", header.join("."))
            } else {
                what.to_string()
            };
            format!("expected {what}, found {found}")
        } else {
            message.to_string()
        };
        ConfigError {
            file: self.file.to_path_buf(),
            line: span.map(|s| line_of(self.text.as_bytes(), s.start)),
            column: None,
            key: (!key.is_empty()).then_some(key),
            message,
        }
    }

    /// Checks what involves several keys of a `[[pair]]` and its functions.
    fn pair(
        &self,
        i: usize,
        raw: Spanned<Table<RawPair>>,
        dir: &Path,
    ) -> Result<PairConfig, ConfigError> {
        let line = self.line(raw.span().start);
        let key = format!("pair[{i}]");
        let raw = raw.into_inner().0;
        let path = |side: Option<Read<Name>>, name: &str| match side {
            Some(Read(p)) => Ok(dir.join(p)),
            None => Err(self.error(line, &key, format!("'{name}' is required"))),
        };
        let (a, b) = (path(raw.a, "a")?, path(raw.b, "b")?);
        let all_functions = raw.all_functions.is_some_and(|Read(f)| f);
        let patterns = |list: Option<Spanned<Many<Name>>>, name: &str| match list {
            None => Ok(Vec::new()),
            Some(list) if !all_functions => Err(self.error(
                self.line(list.span().start),
                &format!("{key}.{name}"),
                "only applies with all_functions = true",
            )),
            Some(list) => Ok(list.into_inner().0),
        };
        let include = patterns(raw.include, "include")?;
        let exclude = patterns(raw.exclude, "exclude")?;
        let mut functions: Vec<FunctionConfig> = Vec::new();
        for (j, f) in raw.function.into_iter().enumerate() {
            let key = format!("{key}.function[{j}]");
            let entry = self.function(&key, f)?;
            if let Some(first) = functions
                .iter()
                .find(|g| g.a_name == entry.a_name && g.b_name == entry.b_name)
            {
                return Err(self.error(
                    Some(entry.line),
                    &key,
                    format!(
                        "a second entry for {} (the first is at line {})",
                        function_label(&entry),
                        first.line
                    ),
                ));
            }
            functions.push(entry);
        }
        if !all_functions && functions.is_empty() {
            return Err(self.error(
                line,
                &key,
                "nothing to check: set all_functions = true or add [[pair.function]] entries",
            ));
        }
        Ok(PairConfig {
            a,
            b,
            all_functions,
            include,
            exclude,
            functions,
            abstract_calls: raw.abstract_calls,
            line: line.unwrap_or(1),
        })
    }

    /// Checks the names of a `[[pair.function]]`.
    fn function(
        &self,
        key: &str,
        raw: Spanned<Table<RawFunction>>,
    ) -> Result<FunctionConfig, ConfigError> {
        let line = line_of(self.text.as_bytes(), raw.span().start);
        let raw = raw.into_inner().0;
        let error = |message: &str| Err(self.error(Some(line), key, message));
        let (a_name, b_name) = match (raw.name, raw.a, raw.b) {
            (Some(Read(n)), None, None) => (n.clone(), n),
            (None, Some(Read(a)), Some(Read(b))) => (a, b),
            (None, None, None) => {
                return error("'name' is required (or 'a' and 'b' for a function renamed in B)")
            }
            (None, _, _) => {
                return error("give both 'a' and 'b' (or 'name' for the same name on both sides)")
            }
            (Some(_), _, _) => return error("give either 'name' or 'a' and 'b', not both"),
        };
        Ok(FunctionConfig {
            a_name,
            b_name,
            buffer_size: raw.buffer_size.map(|Read(n)| n),
            buffer_sizes: raw.buffer_sizes.0,
            buffer_cap: raw.buffer_cap.map(|Read(n)| n),
            buffer_offset: raw.buffer_offset.map(|Read(o)| o),
            alias: raw.alias.map(|Many(names)| names),
            assume: raw.assume.0,
            max_time: raw.max_time.map(|Read(t)| t),
            fp_equal: raw.fp_equal.map(|Read(e)| e),
            accept: raw.accept.map(|Read(o)| o),
            note: raw.note.map(|Read(n)| n),
            line,
        })
    }
}

/// `f`, or `f=g` for a function renamed in B, as `--function` writes it.
fn function_label(f: &FunctionConfig) -> String {
    if f.a_name == f.b_name {
        format!("'{}'", shown(&f.a_name))
    } else {
        format!("'{}={}'", shown(&f.a_name), shown(&f.b_name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tests::sample_report;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        parse_config(text, Path::new("ci/xcheck.toml"))
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(c) => panic!("accepted: {c:?}"),
            Err(e) => e.to_string(),
        }
    }

    const MINIMAL: &str = "[[pair]]\na = \"a.bc\"\nb = \"b.bc\"\nall_functions = true\n";

    #[test]
    fn the_documented_example_loads() {
        let text = r#"
[defaults]
buffer_size = 16
buffer_cap = 64
max_time = "60s"
search = "interleaved"
seed = 0
fail_on = ["diverged", "error"]

[[pair]]
a = "build/old.bc"
b = "build/new.bc"
all_functions = true
include = ["parse_*", "fmt_*"]
exclude = ["*_debug"]

  [[pair.function]]
  name = "parse"
  buffer_size = 8
  buffer_sizes = { s = 5 }
  buffer_offset = "any"
  alias = ["d", "s"]
  assume = ["s[4] == 0", "n < 10"]
  max_time = "5m"
  accept = "diverged"
  note = "parse now rejects leading '+': intended (issue #12)"

  [[pair.function]]
  a = "fmt"
  b = "fmt_v2"
"#;
        let c = parse(text).unwrap();
        assert_eq!(c.dir, Path::new("ci"));
        assert_eq!(
            c.defaults,
            Defaults {
                buffer_size: Some(16),
                buffer_cap: Some(64),
                buffer_offset: None,
                max_time: Some(Some(Duration::from_secs(60))),
                search: Some(SearchKind::Interleaved),
                seed: Some(0),
                globals: None,
                fail_on: Some(vec![FailOn::Diverged, FailOn::Error]),
                abstract_calls: None,
                fp_equal: None,
            }
        );
        let p = &c.pairs[0];
        assert_eq!(p.a, Path::new("ci/build/old.bc"));
        assert_eq!(p.b, Path::new("ci/build/new.bc"));
        assert_eq!(p.line, 10);
        assert!(p.all_functions);
        assert_eq!(p.include, ["parse_*", "fmt_*"]);
        assert_eq!(p.exclude, ["*_debug"]);
        let f = &p.functions[0];
        assert_eq!((f.a_name.as_str(), f.b_name.as_str()), ("parse", "parse"));
        assert_eq!(f.buffer_size, Some(8));
        assert_eq!(f.buffer_sizes, [("s".to_string(), 5)]);
        assert_eq!(f.buffer_offset, Some(crate::crosscheck::BufferOffset::Any));
        assert_eq!(f.alias, Some(vec!["d".to_string(), "s".to_string()]));
        assert_eq!(f.assume, ["s[4] == 0", "n < 10"]);
        assert_eq!(f.max_time, Some(Some(Duration::from_secs(300))));
        assert_eq!(f.accept, Some(FailOn::Diverged));
        assert_eq!(f.line, 17);
        let g = &p.functions[1];
        assert_eq!((g.a_name.as_str(), g.b_name.as_str()), ("fmt", "fmt_v2"));
        assert_eq!(g.line, 28);
        assert_eq!(p.function("fmt", "fmt_v2"), Some(g));
        assert_eq!(p.function("fmt", "fmt"), None);
        assert!(p.selects("parse_int") && p.selects("fmt_x"));
        assert!(!p.selects("parse_debug") && !p.selects("main"));
        assert_eq!(c.fail_on(), DEFAULT_FAIL_ON);
    }

    #[test]
    fn minimal_config_and_dotted_keys() {
        let c = parse(MINIMAL).unwrap();
        assert_eq!(c.defaults, Defaults::default());
        assert_eq!(c.fail_on(), DEFAULT_FAIL_ON);
        assert!(c.pairs[0].selects("anything"));
        let dotted = "defaults.seed = 7\n[[pair]]\na = \"x\"\nb = \"y\"\n[[pair.function]]\nname = \"f\"\nbuffer_sizes.s = 3\nbuffer_sizes.\"t u\" = 4\n";
        let c = parse(dotted).unwrap();
        assert_eq!(c.defaults.seed, Some(7));
        assert_eq!(
            c.pairs[0].functions[0].buffer_sizes,
            [("s".to_string(), 3), ("t u".to_string(), 4)]
        );
        let inline = "pair = [{ a = \"x\", b = \"y\", function = [{ name = \"f\" }] }]\n";
        assert_eq!(parse(inline).unwrap().pairs[0].functions[0].line, 1);
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let cases: &[(&str, &str)] = &[
            (
                "[x]\n[x]\n",
                "ci/xcheck.toml:2:1: invalid TOML: invalid table header; duplicate key `x` in document root",
            ),
            (
                "[pair]\na = \"x\"\n",
                "ci/xcheck.toml:1: pair: expected an array of tables ([[pair]]), found a table",
            ),
            (
                "pair = [[]]\n",
                "ci/xcheck.toml:1: pair[0]: expected a table, found an array",
            ),
            (
                "defaults = []\n",
                "ci/xcheck.toml:1: defaults: expected a table, found an array",
            ),
            (
                "pair = [1979-05-27]\n",
                "ci/xcheck.toml:1:9: dates and times have no meaning",
            ),
            (
                "[defaults]\nmax_time = 99999999\n",
                "ci/xcheck.toml:2: defaults.max_time: '99999999' is too long a duration (at most 720h)",
            ),
            (
                "[defaults]\nbuffer_cap = 70000\n",
                "ci/xcheck.toml:2: defaults.buffer_cap: 70000 is not a buffer cap (0 to 65536 bytes)",
            ),
            (
                "[defaults]\nbuffer_offset = 16\n",
                "ci/xcheck.toml:2: defaults.buffer_offset: '16': expected any or an offset from 0 to 15",
            ),
            (
                "[defaults]\nsearch = \"depth-first\"\n",
                "ci/xcheck.toml:2: defaults.search: unknown search 'depth-first' (expected one of: dfs, bfs,",
            ),
            (
                "pairs = 1\n",
                "ci/xcheck.toml:1: unknown key 'pairs' (expected one of: defaults, pair)",
            ),
            (
                "[defaults]\nbuffer_size = 0\n",
                "ci/xcheck.toml:2: defaults.buffer_size: 0 is not a buffer size (1 to 1048576 bytes)",
            ),
            (
                "[defaults]\nbuffer_size = 1048577\n",
                "defaults.buffer_size: 1048577 is not a buffer size",
            ),
            (
                "[defaults]\nbuffer_size = \"16\"\n",
                "ci/xcheck.toml:2: defaults.buffer_size: expected an integer, found a string",
            ),
            (
                "[defaults]\nseed = -1\n",
                "ci/xcheck.toml:2: defaults.seed: -1 is negative",
            ),
            (
                "[defaults]\nfail_on = \"diverged,,error\"\n",
                "ci/xcheck.toml:2: defaults.fail_on: 'diverged,,error': expected outcomes",
            ),
            (
                "[defaults]\nmax_time = 1.5\n",
                "ci/xcheck.toml:2: defaults.max_time: expected a duration such as \"90s\" or \"5m\", found a float",
            ),
            (
                "[[pair]]\na = \"x\"\nb = \"\"\nall_functions = true\n",
                "ci/xcheck.toml:3: pair[0].b: must not be empty",
            ),
            (
                &format!("{MINIMAL}exclude = [\"ok\", \"\"]\n"),
                "ci/xcheck.toml:5: pair[0].exclude[1]: must not be empty",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\na = \"f\"\n"),
                "ci/xcheck.toml:5: pair[0].function[0]: give both 'a' and 'b'",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\nname = \"f\"\n[[pair.function]]\nname = \"f\"\n"),
                "ci/xcheck.toml:7: pair[0].function[1]: a second entry for 'f' (the first is at line 5)",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\nname = \"f\"\nbuffer_sizes = 5\n"),
                "ci/xcheck.toml:7: pair[0].function[0].buffer_sizes: expected a table, found an integer",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\nname = \"f\"\nmax_time = \"-5s\"\n"),
                "ci/xcheck.toml:7: pair[0].function[0].max_time: '-5s' is not a duration",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\nname = \"f\"\nnote = 12\n"),
                "ci/xcheck.toml:7: pair[0].function[0].note: expected a string, found an integer",
            ),
            (
                &format!("{MINIMAL}[[pair.function]]\nname = \"f\"\n\"bad\\nkey\" = 1\n"),
                "ci/xcheck.toml:7: pair[0].function[0]: unknown key 'bad\\nkey'",
            ),
        ];
        for (text, expected) in cases {
            let e = error(text);
            assert!(
                e.contains(expected),
                "for {text:?}\n  got      {e}\n  expected {expected}"
            );
            assert!(!e.contains('\n'), "{e:?} is not one line");
        }
    }

    #[test]
    fn durations() {
        let ok =
            |t: &str, ms: u64| assert_eq!(parse_duration(t), Ok(Duration::from_millis(ms)), "{t}");
        ok("90", 90_000);
        ok("90s", 90_000);
        ok("1500ms", 1500);
        ok("5m", 300_000);
        ok("5min", 300_000);
        ok("1h", 3_600_000);
        ok("1.5h", 5_400_000);
        ok(" 2s ", 2000);
        // Zero is a limit's "none", and no positive duration.
        for zero in ["0", "0s", "0ms", "0.0h", "none"] {
            assert_eq!(parse_limit(zero), Ok(None), "{zero}");
        }
        for zero in ["0", "0s", "0ms"] {
            assert!(parse_duration(zero)
                .unwrap_err()
                .contains("must be positive"));
        }
        assert!(parse_duration("none")
            .unwrap_err()
            .contains("is not a duration"));
        assert_eq!(parse_limit("2m"), Ok(Some(Duration::from_secs(120))));
        for bad in [
            "",
            "s",
            "5 minutes",
            "5 m",
            "-5s",
            "1e3s",
            "1.2.3s",
            ".",
            "5d",
            "5S",
            "٣s",
        ] {
            let e = parse_duration(bad).unwrap_err();
            assert!(
                e.contains("is not a duration (use 90s, 5m, 1h)"),
                "{bad}: {e}"
            );
        }
        for huge in [
            "99999999999999999999h",
            "18446744073709551615h",
            "1e308",
            "9".repeat(400).as_str(),
        ] {
            assert!(parse_duration(huge).is_err(), "{huge}");
        }
        assert!(parse_duration(&format!("{}.5h", "9".repeat(400)))
            .unwrap_err()
            .contains("too long"));
        assert_eq!(
            parse(&format!("[defaults]\nmax_time = 90\n{MINIMAL}"))
                .unwrap()
                .defaults
                .max_time,
            Some(Some(Duration::from_secs(90)))
        );
    }

    #[test]
    fn fail_on_lists() {
        use FailOn::*;
        assert_eq!(
            parse_fail_on("diverged,unknown"),
            Ok(vec![Diverged, Unknown])
        );
        assert_eq!(
            parse_fail_on(" error , error,diverged "),
            Ok(vec![Error, Diverged])
        );
        assert_eq!(parse_fail_on("none"), Ok(vec![]));
        assert!(parse_fail_on("").is_err());
        assert!(parse_fail_on("diverged,").is_err());
        assert_eq!(
            parse_fail_on("diverged,nope").unwrap_err(),
            "'nope' is not an outcome (diverged, error, unknown)"
        );
        for o in FailOn::ALL {
            assert_eq!(o.to_string().parse::<FailOn>(), Ok(o));
        }
        let c = parse(&format!(
            "[defaults]\nfail_on = \"unknown,diverged\"\n{MINIMAL}"
        ))
        .unwrap();
        assert_eq!(c.fail_on(), [Unknown, Diverged]);
        let c = parse(&format!("[defaults]\nfail_on = []\n{MINIMAL}")).unwrap();
        assert_eq!(c.fail_on(), []);
    }

    #[test]
    fn policy_on_reports() {
        use FailOn::*;
        // The sample diverged, has a one-sided error, an unknown row and stopped early.
        let mut r = sample_report();
        assert_eq!(outcomes(&r), [Diverged, Error, Unknown]);
        assert!(fails(&r, &DEFAULT_FAIL_ON, None));
        assert!(fails(&r, &DEFAULT_FAIL_ON, Some(Diverged)));
        assert!(!fails(&r, &[Unknown], Some(Unknown)));
        assert!(!fails(&r, &[], None));

        r.rows.retain(|row| row.verdict == PathVerdict::Diverged);
        r.summary.errors_one = 0;
        r.summary.unknown = 0;
        r.summary.complete = true;
        assert_eq!(outcomes(&r), [Diverged]);
        assert!(!fails(&r, &DEFAULT_FAIL_ON, Some(Diverged)));
        assert!(!fails(&r, &[Error, Unknown], None));

        // A verdict without counted rows still counts.
        r.rows.clear();
        r.summary.diverged = 0;
        assert_eq!(outcomes(&r), [Diverged]);
        r.summary.overall = Overall::Inconclusive;
        assert_eq!(outcomes(&r), [Unknown]);
        r.summary.overall = Overall::Equivalent;
        assert_eq!(outcomes(&r), []);
    }

    #[test]
    fn globs() {
        let yes = [
            ("*", ""),
            ("*", "abc"),
            ("parse_*", "parse_int"),
            ("parse_*", "parse_"),
            ("*_debug", "x_debug"),
            ("a?c", "abc"),
            ("a*b*c", "aXbYbZc"),
            ("*a*a*a*", "aaa"),
            ("é?", "éé"),
            ("**", "x"),
            ("abc", "abc"),
        ];
        let no = [
            ("", "a"),
            ("a?c", "ac"),
            ("parse_*", "parse"),
            ("*_debug", "x_debug2"),
            ("a*b*c", "aXbYbZ"),
            ("abc", "abd"),
            ("?", ""),
        ];
        for (p, n) in yes {
            assert!(glob_match(p, n), "{p} should match {n}");
        }
        for (p, n) in no {
            assert!(!glob_match(p, n), "{p} should not match {n}");
        }
        // Backtracking stays linear enough for long names.
        let long = "a".repeat(10_000);
        assert!(!glob_match("*a*a*a*a*b", &long));
    }

    #[test]
    fn no_panics_on_odd_input() {
        let odd = [
            "\u{feff}[[pair]]",
            "[[pair]]\na = 1\n",
            "[[pair]]\na = \"x\"\nb = \"y\"\nfunction = 3\n",
            "[[pair]]\na = \"x\"\nb = \"y\"\nfunction = [1]\n",
            "[[pair]]\na = \"x\"\nb = \"y\"\n[pair.function]\nname = \"f\"\n",
            "pair = [[]]",
            "defaults = []",
            "[defaults]\nseed = 18446744073709551615\n",
            "[[pair]]\na = \"é\u{0}\"\nb = \"y\"\nall_functions = true\ninclude = [[\"x\"]]\n",
            "x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            "a = \"\u{1}\"",
            "\"\" = 1",
            "\u{1}",
        ];
        for text in odd {
            let e = error(text);
            assert!(e.starts_with("ci/xcheck.toml:"), "{e}");
            assert!(!e.contains('\n'), "{e:?} is not one line");
        }
    }

    #[test]
    fn loads_files_and_reports_unreadable_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("xcheck.toml");
        std::fs::write(&path, MINIMAL).unwrap();
        let c = load_config(&path).unwrap();
        assert_eq!(c.dir, dir.path());
        assert_eq!(c.pairs[0].a, dir.path().join("a.bc"));

        let missing = dir.path().join("missing.toml");
        let e = load_config(&missing).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: cannot read: ", missing.display())),
            "{e}"
        );

        std::fs::write(&path, b"# ok\n\nname = \"\xff\"\n").unwrap();
        let e = load_config(&path).unwrap_err().to_string();
        assert_eq!(e, format!("{}:3: not UTF-8 text", path.display()));

        let e = parse_config("x = 1", Path::new("odd\nname.toml")).unwrap_err();
        assert!(e.to_string().starts_with("odd\\nname.toml:1: "), "{e}");
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_of("aé b".as_bytes(), 4), 4);
        assert_eq!(column_of("aé b".as_bytes(), 3), 3);
        assert_eq!(column_of(b"x\nab", 4), 3);
        assert_eq!(column_of(b"x\n", 99), 1);
        assert_eq!(line_of(b"x\ny\n", 99), 3);
        let e = error("k = 'é' é");
        assert!(e.starts_with("ci/xcheck.toml:1:9: invalid TOML"), "{e}");
    }
}
