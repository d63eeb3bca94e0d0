//! The schema of `xcheck.toml`, written once: serde structs with `deny_unknown_fields`, and a
//! [`Check`] for each kind of value, run inside serde's visitor so that a rejected value's error
//! keeps its key path and its line (see the parent module).

use super::{
    buffer_size, call_name, parse_abstract_calls, parse_fail_on, parse_limit, shown, Defaults,
    FailOn, MAX_BUFFER_CAP,
};
use crate::crosscheck::globals::GlobalsMode;
use crate::exec::SearchKind;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::time::Duration;
use toml::Spanned;

/// The file as serde reads it; [`Ctx::pair`] checks what involves several keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) defaults: Table<Defaults>,
    #[serde(default)]
    pub(super) pair: Vec<Spanned<Table<RawPair>>>,
}

/// A `[[pair]]` as serde reads it; the span is its header's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPair {
    pub(super) a: Option<Read<Name>>,
    pub(super) b: Option<Read<Name>>,
    pub(super) all_functions: Option<Read<Flag>>,
    pub(super) include: Option<Spanned<Many<Name>>>,
    pub(super) exclude: Option<Spanned<Many<Name>>>,
    #[serde(default)]
    pub(super) function: Vec<Spanned<Table<RawFunction>>>,
    #[serde(default, deserialize_with = "unique::<CallName, _>")]
    pub(super) abstract_calls: Option<Vec<String>>,
}

/// A `[[pair.function]]` as serde reads it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFunction {
    pub(super) name: Option<Read<Name>>,
    pub(super) a: Option<Read<Name>>,
    pub(super) b: Option<Read<Name>>,
    pub(super) buffer_size: Option<Read<BufferSize>>,
    #[serde(default)]
    pub(super) buffer_sizes: BufferSizes,
    pub(super) buffer_cap: Option<Read<BufferCap>>,
    pub(super) buffer_offset: Option<Read<BufferOffset>>,
    pub(super) alias: Option<Many<Param>>,
    #[serde(default)]
    pub(super) assume: Many<Assume>,
    pub(super) max_time: Option<Read<Limit>>,
    pub(super) fp_equal: Option<Read<FpEqual>>,
    pub(super) accept: Option<Read<Outcome>>,
    pub(super) note: Option<Read<Text>>,
}

/// A struct read only from a TOML table (serde would also read one from an array).
#[derive(Default)]
pub(super) struct Table<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Table<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Map<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Map<T> {
            type Value = Table<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Table<T>, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Table)
            }
        }
        deserializer.deserialize_map(Map(std::marker::PhantomData))
    }
}

/// What a date or time in a config is told.
pub(super) const DATETIME: &str =
    "dates and times have no meaning in an xcheck config (write a duration as a string: \"5m\")";

/// One kind of setting: from the TOML value that holds it to what it means, or why not.
pub(super) trait Check {
    type Out;
    fn check(value: toml::Value) -> Result<Self::Out, String>;

    /// A list written as one string (`fail_on = "diverged,error"`): by default one item.
    fn one(text: &str) -> Result<Vec<Self::Out>, String> {
        Self::check(toml::Value::String(text.to_string())).map(|x| vec![x])
    }
}

/// A value read through its [`Check`] while serde reads it, so that a rejected value's
/// error carries its key path and line.
pub(super) struct Read<C: Check>(pub(super) C::Out);

impl<'de, C: Check> Deserialize<'de> for Read<C> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // The check runs inside the visitor, so that `toml` gives its error the value's span
        // (an array element's too).
        struct Value<C>(std::marker::PhantomData<C>);
        impl<'de, C: Check> Visitor<'de> for Value<C> {
            type Value = Read<C>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a TOML value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Read<C>, E> {
                checked(toml::Value::Boolean(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Read<C>, E> {
                checked(toml::Value::Integer(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Read<C>, E> {
                let v = i64::try_from(v).map_err(|_| E::custom(format!("{v} is too large")))?;
                checked(toml::Value::Integer(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Read<C>, E> {
                checked(toml::Value::Float(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Read<C>, E> {
                checked(toml::Value::String(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Read<C>, A::Error> {
                checked(toml::Value::deserialize(
                    de::value::SeqAccessDeserializer::new(seq),
                )?)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Read<C>, A::Error> {
                checked(toml::Value::deserialize(
                    de::value::MapAccessDeserializer::new(map),
                )?)
            }
        }
        deserializer.deserialize_any(Value(std::marker::PhantomData))
    }
}

/// `value` through the check `C`.
pub(super) fn checked<C: Check, E: de::Error>(value: toml::Value) -> Result<Read<C>, E> {
    match value {
        toml::Value::Datetime(_) => Err(E::custom(DATETIME)),
        value => C::check(value).map(Read).map_err(E::custom),
    }
}

/// For `deserialize_with` on an optional field of a public struct.
pub(super) fn read<'de, C: Check, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<C::Out>, D::Error> {
    Read::<C>::deserialize(deserializer).map(|r| Some(r.0))
}

/// A single string or an array of strings, each item checked with its own index.
pub(super) struct Many<C: Check>(pub(super) Vec<C::Out>);

impl<C: Check> Default for Many<C> {
    fn default() -> Self {
        Many(Vec::new())
    }
}

impl<'de, C: Check> Deserialize<'de> for Many<C> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items<C>(std::marker::PhantomData<C>);
        impl<'de, C: Check> Visitor<'de> for Items<C> {
            type Value = Many<C>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of strings")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Many<C>, E> {
                C::one(text).map(Many).map_err(E::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Many<C>, A::Error> {
                let mut items = Vec::new();
                while let Some(Read(item)) = seq.next_element::<Read<C>>()? {
                    items.push(item);
                }
                Ok(Many(items))
            }
        }
        deserializer.deserialize_any(Items(std::marker::PhantomData))
    }
}

/// `buffer_sizes = { s = 5 }`: parameter names and sizes, in file order.
#[derive(Default)]
pub(super) struct BufferSizes(pub(super) Vec<(String, u32)>);

impl<'de> Deserialize<'de> for BufferSizes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Sizes;
        impl<'de> Visitor<'de> for Sizes {
            type Value = BufferSizes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BufferSizes, A::Error> {
                let mut sizes = Vec::new();
                while let Some(Read(param)) = map.next_key::<Read<Param>>()? {
                    let Read(size) = map.next_value::<Read<BufferSize>>()?;
                    sizes.push((param, size));
                }
                Ok(BufferSizes(sizes))
            }
        }
        deserializer.deserialize_map(Sizes)
    }
}

/// "expected a string, found an integer".
pub(super) fn expected(what: &str, value: &toml::Value) -> String {
    let found = match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    };
    format!("expected {what}, found {found}")
}

/// The text of a string value.
pub(super) fn string(value: toml::Value) -> Result<String, String> {
    match value {
        toml::Value::String(s) => Ok(s),
        other => Err(expected("a string", &other)),
    }
}

/// Any string (`note`).
pub(super) enum Text {}
impl Check for Text {
    type Out = String;
    fn check(value: toml::Value) -> Result<String, String> {
        string(value)
    }
}

/// A string that is not empty or blank: a path, a function name, a pattern.
pub(super) enum Name {}
impl Check for Name {
    type Out = String;
    fn check(value: toml::Value) -> Result<String, String> {
        let s = string(value)?;
        if s.trim().is_empty() {
            return Err("must not be empty".to_string());
        }
        Ok(s)
    }
}

/// A parameter name in `buffer_sizes`.
pub(super) enum Param {}
impl Check for Param {
    type Out = String;
    fn check(value: toml::Value) -> Result<String, String> {
        Name::check(value).map_err(|_| "empty parameter name".to_string())
    }
}

/// `true` or `false`.
pub(super) enum Flag {}
impl Check for Flag {
    type Out = bool;
    fn check(value: toml::Value) -> Result<bool, String> {
        match value {
            toml::Value::Boolean(b) => Ok(b),
            other => Err(expected("true or false", &other)),
        }
    }
}

/// Bytes behind a pointer parameter ([`buffer_size`]).
pub(super) enum BufferSize {}
impl Check for BufferSize {
    type Out = u32;
    fn check(value: toml::Value) -> Result<u32, String> {
        match value {
            toml::Value::Integer(n) => buffer_size(n),
            other => Err(expected("an integer", &other)),
        }
    }
}

/// The most bytes a buffer grows to (`--buffer-cap`): 0 to 65536.
pub(super) enum BufferCap {}
impl Check for BufferCap {
    type Out = u32;
    fn check(value: toml::Value) -> Result<u32, String> {
        match value {
            toml::Value::Integer(n) if (0..=i64::from(MAX_BUFFER_CAP)).contains(&n) => Ok(n as u32),
            toml::Value::Integer(n) => Err(format!(
                "{n} is not a buffer cap (0 to {MAX_BUFFER_CAP} bytes)"
            )),
            other => Err(expected("an integer", &other)),
        }
    }
}

/// Where buffers start within a 16-byte boundary (`--buffer-offset`): "any" or 0 to 15.
pub(super) enum BufferOffset {}
impl Check for BufferOffset {
    type Out = crate::crosscheck::BufferOffset;
    fn check(value: toml::Value) -> Result<Self::Out, String> {
        match value {
            toml::Value::Integer(n) => n.to_string().parse(),
            toml::Value::String(s) => s.parse(),
            other => Err(expected("\"any\" or an integer", &other)),
        }
    }
}

/// A time limit ([`parse_limit`]); a bare integer is seconds.
pub(super) enum Limit {}
impl Check for Limit {
    type Out = Option<Duration>;
    fn check(value: toml::Value) -> Result<Option<Duration>, String> {
        match value {
            toml::Value::String(s) => parse_limit(&s),
            toml::Value::Integer(n) => parse_limit(&n.to_string()),
            other => Err(expected("a duration such as \"90s\" or \"5m\"", &other)),
        }
    }
}

/// A search strategy's name ([`SearchKind::ALL`]).
pub(super) enum Search {}
impl Check for Search {
    type Out = SearchKind;
    fn check(value: toml::Value) -> Result<SearchKind, String> {
        string(value)?.parse()
    }
}

/// How mutable globals start.
pub(super) enum Globals {}
impl Check for Globals {
    type Out = GlobalsMode;
    fn check(value: toml::Value) -> Result<GlobalsMode, String> {
        string(value)?
            .parse()
            .map_err(|m| format!("unknown mode {m}"))
    }
}

/// When floating-point results are equal: `bits`, `ieee`, or a tolerance (`ulp:N`, `abs:E`,
/// `rel:E`), as `--fp-equal` and `--fp-tolerance` say.
pub(super) enum FpEqual {}
impl Check for FpEqual {
    type Out = crate::crosscheck::FpEquality;
    fn check(value: toml::Value) -> Result<Self::Out, String> {
        let text = string(value)?;
        if text.contains(':') {
            crate::crosscheck::FpEquality::parse_tolerance(&text)
        } else {
            crate::crosscheck::FpEquality::parse_mode(&text)
                .map_err(|m| format!("{m}, ulp:N, abs:E or rel:E"))
        }
    }
}

/// The seed of the search's random choices.
pub(super) enum Seed {}
impl Check for Seed {
    type Out = u64;
    fn check(value: toml::Value) -> Result<u64, String> {
        match value {
            toml::Value::Integer(n) => {
                u64::try_from(n).map_err(|_| format!("{n} is negative; a seed is from 0"))
            }
            other => Err(expected("an integer", &other)),
        }
    }
}

/// An outcome; as one string, a comma-separated list ([`parse_fail_on`]).
pub(super) enum Outcome {}
impl Check for Outcome {
    type Out = FailOn;
    fn check(value: toml::Value) -> Result<FailOn, String> {
        string(value)?.parse()
    }
    fn one(text: &str) -> Result<Vec<FailOn>, String> {
        parse_fail_on(text)
    }
}

/// A list read through [`Many`], without repeats (the first of each kept): `fail_on`
/// (`Outcome`) and `abstract_calls` (`CallName`).
pub(super) fn unique<'de, C: Check, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<C::Out>>, D::Error>
where
    C::Out: PartialEq,
{
    let Many(all) = Many::<C>::deserialize(deserializer)?;
    let mut list = Vec::new();
    for item in all {
        if !list.contains(&item) {
            list.push(item);
        }
    }
    Ok(Some(list))
}

/// A precondition in the `--assume` language, syntax-checked.
pub(super) enum Assume {}
impl Check for Assume {
    type Out = String;
    fn check(value: toml::Value) -> Result<String, String> {
        let text = string(value)?;
        crate::assume::parse_assume(&text).map_err(|e| format!("'{}': {e}", shown(&text)))?;
        Ok(text)
    }
}

/// A function name of `abstract_calls`; as one string, a comma-separated list
/// ([`parse_abstract_calls`]).
pub(super) enum CallName {}
impl Check for CallName {
    type Out = String;
    fn check(value: toml::Value) -> Result<String, String> {
        call_name(&string(value)?)
    }
    fn one(text: &str) -> Result<Vec<String>, String> {
        parse_abstract_calls(text)
    }
}
