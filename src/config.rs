//! The `--config xcheck.toml` file: which module pairs and functions a CI run checks, and
//! which outcomes fail it.
//!
//! ```toml
//! [defaults]                      # settings for every check, all optional
//! buffer_size = 16                # bytes behind pointer parameters, 1 to 1048576
//! max_time = "60s"                # per function pair: 90, 90s, 1500ms, 5m, 1h (at most 720h); "0" or "none": no limit
//! search = "interleaved"
//! seed = 0
//! globals = "symbolic"            # how mutable globals start: symbolic (any state) or initial
//! fail_on = ["diverged", "error"] # outcomes that fail the run: diverged, error, unknown
//!
//! [[pair]]                        # one module pair; paths relative to this file's directory
//! a = "build/old.bc"
//! b = "build/new.bc"
//! all_functions = true            # every function defined in both with the same signature
//! include = ["parse_*", "fmt_*"]  # globs (`*`, `?`) on the names found by all_functions
//! exclude = ["*_debug"]
//!
//!   [[pair.function]]             # one function, with its own settings
//!   name = "parse"                # or a = "parse", b = "parse_v2" for a renamed function
//!   buffer_size = 8
//!   buffer_sizes = { s = 5 }      # per parameter
//!   assume = ["s[4] == 0", "n < 10"]
//!   max_time = "5m"
//!   accept = "diverged"           # a known, intended outcome that does not fail the run
//!   note = "parse now rejects leading '+': intended (issue #12)"
//! ```
//!
//! A pair checks its `[[pair.function]]` entries, and with `all_functions` also every function
//! both modules define with the same signature whose name matches an `include` pattern (any
//! name when there is none) and no `exclude` pattern; an entry's settings apply to its
//! function, and an entry is checked even when the filters would leave its name out.
//! `fail_on`, `include`, `exclude` and `assume` take a list or a single string.
//!
//! The outcomes are those of a finished check's report (see [`outcomes`]): `diverged` (an
//! input on which the results differ), `error` (a failure on one side only) and `unknown`
//! (a path left undecided or exploration cut short). [`fails`] applies the policy.
//!
//! [`load_config`] checks everything it can without the modules: unknown keys, types,
//! ranges, durations, the syntax of `assume`, duplicate entries. Each [`ConfigError`] is one
//! line naming the file, the line and the key: `xcheck.toml:7: pair[0].function[1]: unknown
//! key 'asume' (expected one of: …)`. TOML syntax errors also give the column.

use crate::report::{Overall, PathVerdict, Report};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;
use toml::Spanned;

/// The largest buffer size a config accepts, in bytes, as `--buffer-size` does.
pub const MAX_BUFFER_SIZE: u32 = 1 << 20;

/// The search strategies `search` accepts (the names `--search` takes).
pub const SEARCH_NAMES: [&str; 6] = [
    "dfs",
    "bfs",
    "random-state",
    "random-path",
    "coverage-new",
    "interleaved",
];

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defaults {
    /// Bytes behind each pointer parameter.
    pub buffer_size: Option<u32>,
    /// Time limit of one function pair; [`Duration::ZERO`] means no limit.
    pub max_time: Option<Duration>,
    /// The search strategy, one of [`SEARCH_NAMES`].
    pub search: Option<String>,
    /// Seed of the search's random choices.
    pub seed: Option<u64>,
    /// How mutable globals start in function checks (`--globals`).
    pub globals: Option<crate::crosscheck::globals::GlobalsMode>,
    /// The outcomes that fail the run, without repeats.
    pub fail_on: Option<Vec<FailOn>>,
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
    /// Preconditions in the `--assume` language, syntax-checked.
    pub assume: Vec<String>,
    /// Time limit, overriding the default; [`Duration::ZERO`] means no limit.
    pub max_time: Option<Duration>,
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
    let root: Node = toml::from_str(text).map_err(|e| ctx.syntax_error(&e))?;
    let Node::Table(entries) = &root else {
        return Err(ctx.error(&(0..0), "", "expected a TOML table"));
    };
    let root = TableView {
        entries,
        key: String::new(),
        at: 0..0,
    };
    root.check_keys(&ctx, &["defaults", "pair"])?;
    let defaults = match root.get("defaults") {
        Some(v) => ctx.defaults(&v)?,
        None => Defaults::default(),
    };
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let pairs = match root.get("pair") {
        Some(v) => ctx.pairs(&v, &dir)?,
        None => Vec::new(),
    };
    if pairs.is_empty() {
        return Err(ctx.error(
            &(0..0),
            "pair",
            "no [[pair]] tables: the config checks nothing",
        ));
    }
    Ok(Config {
        defaults,
        pairs,
        dir,
    })
}

/// The longest duration a limit takes: 30 days (`720h`). Longer ones are surely mistakes,
/// and a deadline computed from them (`Instant + duration`) would overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Parses a duration: `90` (seconds), `90s`, `1500ms`, `5m`, `1h`, decimals such as `1.5h`;
/// `0` (in any unit) or `none` is [`Duration::ZERO`], which means no limit. At most
/// [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if t == "none" {
        return Ok(Duration::ZERO);
    }
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
// The TOML tree with spans.
// ---------------------------------------------------------------------------------------

/// A TOML value that keeps the spans error messages need: every key's and every array
/// element's. Values themselves are not `Spanned`, because `toml` cannot give spans of
/// tables that only dotted keys or deeper headers create (`a.b = 1`, `[x.y]`).
#[derive(Debug)]
enum Node {
    Table(Vec<(Spanned<String>, Node)>),
    Array(Vec<Spanned<Node>>),
    Str(String),
    Int(i64),
    /// A float; no setting takes one, so only its presence is kept.
    Float,
    Bool(bool),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        i64::try_from(v)
            .map(Node::Int)
            .map_err(|_| E::custom("integer too large"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Node, E> {
        Ok(Node::Float)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Node::Table(entries))
    }
}

impl Node {
    fn kind(&self) -> &'static str {
        match self {
            Node::Table(_) => "a table",
            Node::Array(_) => "an array",
            Node::Str(_) => "a string",
            Node::Int(_) => "an integer",
            Node::Float => "a float",
            Node::Bool(_) => "a boolean",
        }
    }
}

/// A value with where it is: its key path and the span of its key (or array element).
struct Val<'a> {
    node: &'a Node,
    key: String,
    at: Range<usize>,
}

/// A table's entries with the table's key path and location.
struct TableView<'a> {
    entries: &'a [(Spanned<String>, Node)],
    key: String,
    at: Range<usize>,
}

impl<'a> TableView<'a> {
    /// Rejects the first key (in file order) that is not `allowed`.
    fn check_keys(&self, ctx: &Ctx<'_>, allowed: &[&str]) -> Result<(), ConfigError> {
        for (key, _) in self.entries {
            if !allowed.contains(&key.get_ref().as_str()) {
                return Err(ctx.error(
                    &key.span(),
                    &self.key,
                    format!(
                        "unknown key '{}' (expected one of: {})",
                        shown(key.get_ref()),
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    fn get(&self, name: &str) -> Option<Val<'a>> {
        self.entries
            .iter()
            .find(|(k, _)| k.get_ref() == name)
            .map(|(k, node)| Val {
                node,
                key: join_key(&self.key, k.get_ref()),
                at: k.span(),
            })
    }
}

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
    fn error(&self, at: &Range<usize>, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.to_path_buf(),
            line: Some(line_of(self.text.as_bytes(), at.start)),
            column: None,
            key: (!key.is_empty()).then(|| key.to_string()),
            message: message.into(),
        }
    }

    fn syntax_error(&self, e: &toml::de::Error) -> ConfigError {
        let bytes = self.text.as_bytes();
        let (line, column) = match e.span() {
            Some(span) => (
                Some(line_of(bytes, span.start)),
                Some(column_of(bytes, span.start)),
            ),
            None => (None, None),
        };
        // `toml` reports a date or time where this module asks for spans with the private
        // name of its date-time representation; say what that means instead.
        let message = if e.message().contains("$__toml_private_datetime") {
            "dates and times have no meaning in an xcheck config (write a duration as a string: \"5m\")".to_string()
        } else {
            let lines: Vec<&str> = e
                .message()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            format!("invalid TOML: {}", lines.join("; "))
        };
        ConfigError {
            file: self.file.to_path_buf(),
            line,
            column,
            key: None,
            message,
        }
    }

    fn type_error(&self, v: &Val<'_>, expected: &str) -> ConfigError {
        self.error(
            &v.at,
            &v.key,
            format!("expected {expected}, found {}", v.node.kind()),
        )
    }

    fn table<'a>(&self, v: &Val<'a>) -> Result<TableView<'a>, ConfigError> {
        match v.node {
            Node::Table(entries) => Ok(TableView {
                entries,
                key: v.key.clone(),
                at: v.at.clone(),
            }),
            _ => Err(self.type_error(v, "a table")),
        }
    }

    fn string<'a>(&self, v: &Val<'a>) -> Result<&'a str, ConfigError> {
        match v.node {
            Node::Str(s) => Ok(s),
            _ => Err(self.type_error(v, "a string")),
        }
    }

    /// A string that must not be empty or blank.
    fn name(&self, v: &Val<'_>) -> Result<String, ConfigError> {
        let s = self.string(v)?;
        if s.trim().is_empty() {
            return Err(self.error(&v.at, &v.key, "must not be empty"));
        }
        Ok(s.to_string())
    }

    fn boolean(&self, v: &Val<'_>) -> Result<bool, ConfigError> {
        match v.node {
            Node::Bool(b) => Ok(*b),
            _ => Err(self.type_error(v, "true or false")),
        }
    }

    fn integer(&self, v: &Val<'_>) -> Result<i64, ConfigError> {
        match v.node {
            Node::Int(i) => Ok(*i),
            _ => Err(self.type_error(v, "an integer")),
        }
    }

    fn buffer_size(&self, v: &Val<'_>) -> Result<u32, ConfigError> {
        let n = self.integer(v)?;
        u32::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_BUFFER_SIZE).contains(n))
            .ok_or_else(|| {
                self.error(
                    &v.at,
                    &v.key,
                    format!("{n} is not a buffer size (1 to {MAX_BUFFER_SIZE} bytes)"),
                )
            })
    }

    fn duration(&self, v: &Val<'_>) -> Result<Duration, ConfigError> {
        match v.node {
            Node::Str(s) => parse_duration(s).map_err(|m| self.error(&v.at, &v.key, m)),
            Node::Int(n) => match u64::try_from(*n).map(Duration::from_secs) {
                Ok(d) if d <= MAX_DURATION => Ok(d),
                Ok(_) => Err(self.error(
                    &v.at,
                    &v.key,
                    format!(
                        "{n} seconds is too long a duration (at most {}h)",
                        MAX_DURATION.as_secs() / 3600
                    ),
                )),
                Err(_) => Err(self.error(&v.at, &v.key, format!("{n} is not a duration"))),
            },
            _ => Err(self.type_error(v, "a duration such as \"90s\" or \"5m\"")),
        }
    }

    /// A single string or an array of strings, each with its own key path and location.
    fn strings<'a>(&self, v: &Val<'a>) -> Result<Vec<Val<'a>>, ConfigError> {
        let items: Vec<Val<'a>> = match v.node {
            Node::Str(_) => vec![Val {
                node: v.node,
                key: v.key.clone(),
                at: v.at.clone(),
            }],
            Node::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| Val {
                    node: item.get_ref(),
                    key: format!("{}[{i}]", v.key),
                    at: item.span(),
                })
                .collect(),
            _ => return Err(self.type_error(v, "a string or an array of strings")),
        };
        for item in &items {
            self.string(item)?;
        }
        Ok(items)
    }

    /// An array of tables, written `header` (`[[pair]]`) in a file.
    fn tables<'a>(&self, v: &Val<'a>, header: &str) -> Result<Vec<TableView<'a>>, ConfigError> {
        let Node::Array(items) = v.node else {
            return Err(self.type_error(v, &format!("an array of tables ({header})")));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let val = Val {
                    node: item.get_ref(),
                    key: format!("{}[{i}]", v.key),
                    at: item.span(),
                };
                self.table(&val)
            })
            .collect()
    }

    fn defaults(&self, v: &Val<'_>) -> Result<Defaults, ConfigError> {
        let t = self.table(v)?;
        t.check_keys(
            self,
            &[
                "buffer_size",
                "max_time",
                "search",
                "seed",
                "globals",
                "fail_on",
            ],
        )?;
        let mut d = Defaults::default();
        if let Some(v) = t.get("buffer_size") {
            d.buffer_size = Some(self.buffer_size(&v)?);
        }
        if let Some(v) = t.get("max_time") {
            d.max_time = Some(self.duration(&v)?);
        }
        if let Some(v) = t.get("search") {
            let s = self.string(&v)?;
            if !SEARCH_NAMES.contains(&s) {
                return Err(self.error(
                    &v.at,
                    &v.key,
                    format!(
                        "unknown search '{}' (expected one of: {})",
                        shown(s),
                        SEARCH_NAMES.join(", ")
                    ),
                ));
            }
            d.search = Some(s.to_string());
        }
        if let Some(v) = t.get("globals") {
            let s = self.string(&v)?;
            d.globals = Some(
                s.parse()
                    .map_err(|m: String| self.error(&v.at, &v.key, format!("unknown mode {m}")))?,
            );
        }
        if let Some(v) = t.get("seed") {
            let n = self.integer(&v)?;
            d.seed = Some(u64::try_from(n).map_err(|_| {
                self.error(&v.at, &v.key, format!("{n} is negative; a seed is from 0"))
            })?);
        }
        if let Some(v) = t.get("fail_on") {
            let mut list = Vec::new();
            for item in self.strings(&v)? {
                let words = self.string(&item)?;
                let parsed = if matches!(v.node, Node::Str(_)) {
                    parse_fail_on(words)
                } else {
                    words.parse::<FailOn>().map(|o| vec![o])
                };
                for outcome in parsed.map_err(|m| self.error(&item.at, &item.key, m))? {
                    if !list.contains(&outcome) {
                        list.push(outcome);
                    }
                }
            }
            d.fail_on = Some(list);
        }
        Ok(d)
    }

    fn pairs(&self, v: &Val<'_>, dir: &Path) -> Result<Vec<PairConfig>, ConfigError> {
        self.tables(v, "[[pair]]")?
            .iter()
            .map(|t| self.pair(t, dir))
            .collect()
    }

    fn pair(&self, t: &TableView<'_>, dir: &Path) -> Result<PairConfig, ConfigError> {
        t.check_keys(
            self,
            &["a", "b", "all_functions", "include", "exclude", "function"],
        )?;
        let path = |side: &str| -> Result<PathBuf, ConfigError> {
            let v = t
                .get(side)
                .ok_or_else(|| self.error(&t.at, &t.key, format!("'{side}' is required")))?;
            Ok(dir.join(self.name(&v)?))
        };
        let (a, b) = (path("a")?, path("b")?);
        let all_functions = match t.get("all_functions") {
            Some(v) => self.boolean(&v)?,
            None => false,
        };
        let patterns = |key: &str| -> Result<Vec<String>, ConfigError> {
            let Some(v) = t.get(key) else {
                return Ok(Vec::new());
            };
            if !all_functions {
                return Err(self.error(&v.at, &v.key, "only applies with all_functions = true"));
            }
            self.strings(&v)?.iter().map(|p| self.name(p)).collect()
        };
        let include = patterns("include")?;
        let exclude = patterns("exclude")?;
        let mut functions: Vec<FunctionConfig> = Vec::new();
        if let Some(v) = t.get("function") {
            for f in self.tables(&v, "[[pair.function]]")? {
                let entry = self.function(&f)?;
                if let Some(first) = functions
                    .iter()
                    .find(|g| g.a_name == entry.a_name && g.b_name == entry.b_name)
                {
                    return Err(self.error(
                        &f.at,
                        &f.key,
                        format!(
                            "a second entry for {} (the first is at line {})",
                            function_label(&entry),
                            first.line
                        ),
                    ));
                }
                functions.push(entry);
            }
        }
        if !all_functions && functions.is_empty() {
            return Err(self.error(
                &t.at,
                &t.key,
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
            line: line_of(self.text.as_bytes(), t.at.start),
        })
    }

    fn function(&self, t: &TableView<'_>) -> Result<FunctionConfig, ConfigError> {
        t.check_keys(
            self,
            &[
                "name",
                "a",
                "b",
                "buffer_size",
                "buffer_sizes",
                "assume",
                "max_time",
                "accept",
                "note",
            ],
        )?;
        let name = t.get("name").map(|v| self.name(&v)).transpose()?;
        let a = t.get("a").map(|v| self.name(&v)).transpose()?;
        let b = t.get("b").map(|v| self.name(&v)).transpose()?;
        let (a_name, b_name) = match (name, a, b) {
            (Some(n), None, None) => (n.clone(), n),
            (None, Some(a), Some(b)) => (a, b),
            (None, None, None) => {
                return Err(self.error(
                    &t.at,
                    &t.key,
                    "'name' is required (or 'a' and 'b' for a function renamed in B)",
                ))
            }
            (None, Some(_), None) | (None, None, Some(_)) => {
                return Err(self.error(
                    &t.at,
                    &t.key,
                    "give both 'a' and 'b' (or 'name' for the same name on both sides)",
                ))
            }
            (Some(_), _, _) => {
                return Err(self.error(
                    &t.at,
                    &t.key,
                    "give either 'name' or 'a' and 'b', not both",
                ))
            }
        };
        let buffer_size = t
            .get("buffer_size")
            .map(|v| self.buffer_size(&v))
            .transpose()?;
        let mut buffer_sizes = Vec::new();
        if let Some(v) = t.get("buffer_sizes") {
            let sizes = self.table(&v)?;
            for (param, _) in sizes.entries {
                if let Some(size) = sizes.get(param.get_ref()) {
                    if param.get_ref().trim().is_empty() {
                        return Err(self.error(&size.at, &v.key, "empty parameter name"));
                    }
                    buffer_sizes.push((param.get_ref().clone(), self.buffer_size(&size)?));
                }
            }
        }
        let mut assume = Vec::new();
        if let Some(v) = t.get("assume") {
            for item in self.strings(&v)? {
                let text = self.string(&item)?;
                crate::assume::parse_assume(text).map_err(|e| {
                    self.error(&item.at, &item.key, format!("'{}': {e}", shown(text)))
                })?;
                assume.push(text.to_string());
            }
        }
        let max_time = t.get("max_time").map(|v| self.duration(&v)).transpose()?;
        let accept = match t.get("accept") {
            Some(v) => Some(
                self.string(&v)?
                    .parse::<FailOn>()
                    .map_err(|m| self.error(&v.at, &v.key, m))?,
            ),
            None => None,
        };
        let note = t
            .get("note")
            .map(|v| self.string(&v).map(str::to_string))
            .transpose()?;
        Ok(FunctionConfig {
            a_name,
            b_name,
            buffer_size,
            buffer_sizes,
            assume,
            max_time,
            accept,
            note,
            line: line_of(self.text.as_bytes(), t.at.start),
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
                max_time: Some(Duration::from_secs(60)),
                search: Some("interleaved".to_string()),
                seed: Some(0),
                globals: None,
                fail_on: Some(vec![FailOn::Diverged, FailOn::Error]),
            }
        );
        let p = &c.pairs[0];
        assert_eq!(p.a, Path::new("ci/build/old.bc"));
        assert_eq!(p.b, Path::new("ci/build/new.bc"));
        assert_eq!(p.line, 9);
        assert!(p.all_functions);
        assert_eq!(p.include, ["parse_*", "fmt_*"]);
        assert_eq!(p.exclude, ["*_debug"]);
        let f = &p.functions[0];
        assert_eq!((f.a_name.as_str(), f.b_name.as_str()), ("parse", "parse"));
        assert_eq!(f.buffer_size, Some(8));
        assert_eq!(f.buffer_sizes, [("s".to_string(), 5)]);
        assert_eq!(f.assume, ["s[4] == 0", "n < 10"]);
        assert_eq!(f.max_time, Some(Duration::from_secs(300)));
        assert_eq!(f.accept, Some(FailOn::Diverged));
        assert_eq!(f.line, 16);
        let g = &p.functions[1];
        assert_eq!((g.a_name.as_str(), g.b_name.as_str()), ("fmt", "fmt_v2"));
        assert_eq!(g.line, 25);
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
        ok("0", 0);
        ok("0s", 0);
        ok("none", 0);
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
            Some(Duration::from_secs(90))
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
