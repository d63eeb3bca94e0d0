//! The words of one line of IR text, for the parser (`parse.rs`): a cursor over them
//! (names, numbers, types, flags, strings), the values Rust's `Debug` wrote (intrinsics,
//! float and vector operations are printed so), and a constant as the text names it.

use super::{BlockId, RegId};
use std::fmt;

/// What reading a word gives: the value, or why the text is not IR (the parser adds the
/// line).
pub(super) type Res<T> = Result<T, String>;

/// A constant as the text names it: a value, or an address by symbol and offset.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) enum ConstKey {
    Value(u32, u128),
    Symbol(String, u64),
}

/// A cursor over the rest of a line.
pub(super) struct Cur<'a> {
    pub(super) s: &'a str,
}

impl<'a> Cur<'a> {
    pub(super) fn new(s: &'a str) -> Self {
        Cur { s }
    }

    pub(super) fn eat(&mut self, prefix: &str) -> bool {
        match self.s.strip_prefix(prefix) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }

    pub(super) fn expect(&mut self, prefix: &str) -> Res<()> {
        if self.eat(prefix) {
            Ok(())
        } else {
            Err(format!("expected '{prefix}' at '{}'", self.s))
        }
    }

    pub(super) fn end(&self) -> Res<()> {
        if self.s.is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected '{}'", self.s))
        }
    }

    /// Letters, digits and `_` (possibly none).
    pub(super) fn word(&mut self) -> &'a str {
        let n = self
            .s
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(self.s.len());
        let (w, rest) = self.s.split_at(n);
        self.s = rest;
        w
    }

    /// A symbol's name: up to a space, a delimiter or `+`.
    pub(super) fn name(&mut self) -> Res<&'a str> {
        let n = self
            .s
            .find([' ', ',', '(', ')', '[', ']', '+', ';'])
            .unwrap_or(self.s.len());
        if n == 0 {
            return Err(format!("expected a name at '{}'", self.s));
        }
        let (w, rest) = self.s.split_at(n);
        self.s = rest;
        Ok(w)
    }

    /// A decimal number, or a hexadecimal one after `0x`.
    pub(super) fn uint(&mut self) -> Res<u128> {
        let hex = self.eat("0x");
        let n = self
            .s
            .find(|ch: char| !ch.is_ascii_hexdigit() || !hex && !ch.is_ascii_digit())
            .unwrap_or(self.s.len());
        let digits = &self.s[..n];
        let value = u128::from_str_radix(digits, if hex { 16 } else { 10 })
            .map_err(|_| format!("expected a number at '{}'", self.s))?;
        self.s = &self.s[n..];
        Ok(value)
    }

    pub(super) fn int(&mut self) -> Res<i64> {
        let negative = self.eat("-");
        let n = self.uint()?;
        let v = if negative {
            i64::try_from(-(n as i128)).ok()
        } else {
            i64::try_from(n).ok()
        };
        v.ok_or_else(|| "an offset out of range".to_string())
    }

    /// `%N = `, if the line starts so.
    pub(super) fn dst(&mut self) -> Res<Option<RegId>> {
        if !self.s.starts_with('%') {
            return Ok(None);
        }
        self.expect("%")?;
        let r = RegId(self.uint()? as u32);
        self.expect(" = ")?;
        Ok(Some(r))
    }

    pub(super) fn block(&mut self) -> Res<BlockId> {
        self.expect("bb")?;
        Ok(BlockId(self.uint()? as u32))
    }

    /// `iW`, `fW` or `ptrW`: (width, pointer, float).
    pub(super) fn ty(&mut self) -> Res<(u32, bool, bool)> {
        let (pointer, float) = if self.eat("ptr") {
            (true, false)
        } else if self.eat("f") {
            (false, true)
        } else {
            self.expect("i")?;
            (false, false)
        };
        Ok((self.uint()? as u32, pointer, float))
    }

    /// `<L x iE>`.
    pub(super) fn vector_type(&mut self) -> Res<(u32, u32)> {
        self.expect("<")?;
        let lanes = self.uint()? as u32;
        self.expect(" x i")?;
        let elem = self.uint()? as u32;
        self.expect(">")?;
        Ok((lanes, elem))
    }

    /// ` bits LO..HI`: (lo, width).
    pub(super) fn bits(&mut self) -> Res<(u32, u32)> {
        self.expect(" bits ")?;
        let lo = self.uint()? as u32;
        self.expect("..")?;
        let hi = self.uint()? as u32;
        Ok((lo, hi.checked_sub(lo).ok_or("bits LO..HI with HI < LO")?))
    }

    /// Poison flags, each after a space, in the printer's order.
    pub(super) fn flags(&mut self) -> super::Flags {
        let mut f = super::Flags::NONE;
        for (flag, name) in [
            (&mut f.nsw, " nsw"),
            (&mut f.nuw, " nuw"),
            (&mut f.exact, " exact"),
            (&mut f.disjoint, " disjoint"),
            (&mut f.nneg, " nneg"),
        ] {
            *flag = self.eat(name);
        }
        f
    }

    /// A string as Rust's `Debug` writes it.
    pub(super) fn debug_str(&mut self) -> Res<String> {
        self.expect("\"")?;
        let mut out = String::new();
        let mut chars = self.s.char_indices();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '"' => {
                    self.s = &self.s[i + 1..];
                    return Ok(out);
                }
                '\\' => {
                    let (_, e) = chars.next().ok_or("an unfinished escape")?;
                    out.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        '\\' | '"' | '\'' => e,
                        'u' => {
                            let rest = &self.s[i + 2..];
                            let close = rest.find('}').ok_or("an unfinished \\u{…}")?;
                            let code = rest
                                .get(1..close)
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                                .ok_or("a bad \\u{…}")?;
                            for _ in 0..=close {
                                chars.next();
                            }
                            code
                        }
                        _ => return Err(format!("an unknown escape \\{e}")),
                    });
                }
                _ => out.push(ch),
            }
        }
        Err("an unfinished string".into())
    }

    /// A value as Rust's `Debug` writes an enum: `Name`, `Name(a, b)`, `Name { f: v }`, a
    /// number or a boolean.
    pub(super) fn debug(&mut self) -> Res<Debug> {
        let word = self.word();
        if word.is_empty() {
            return Err(format!("expected a name at '{}'", self.s));
        }
        if word.starts_with(|ch: char| ch.is_ascii_digit()) {
            return word
                .parse()
                .map(Debug::Num)
                .map_err(|_| format!("a bad number {word}"));
        }
        let mut args = Vec::new();
        if self.eat("(") {
            loop {
                args.push((String::new(), self.debug()?));
                if self.eat(")") {
                    break;
                }
                self.expect(", ")?;
            }
        } else if self.eat(" { ") {
            loop {
                let field = self.word().to_string();
                self.expect(": ")?;
                args.push((field, self.debug()?));
                if self.eat(" }") {
                    break;
                }
                self.expect(", ")?;
            }
        }
        Ok(Debug::Named(word.to_string(), args))
    }
}

/// An enum value as `Debug` wrote it: a variant's name and its fields (names empty for a
/// tuple variant), or a number.
#[derive(Debug)]
pub(super) enum Debug {
    Named(String, Vec<(String, Debug)>),
    Num(u128),
}

impl Debug {
    pub(super) fn name(&self) -> &str {
        match self {
            Debug::Named(n, _) => n,
            Debug::Num(_) => "",
        }
    }

    pub(super) fn args(&self) -> &[(String, Debug)] {
        match self {
            Debug::Named(_, a) => a,
            Debug::Num(_) => &[],
        }
    }

    pub(super) fn arg(&self, i: usize) -> Res<&Debug> {
        self.args()
            .get(i)
            .map(|(_, d)| d)
            .ok_or_else(|| format!("{} lacks an operand", self.name()))
    }

    pub(super) fn num(&self) -> Res<u128> {
        match self {
            Debug::Num(n) => Ok(*n),
            Debug::Named(n, _) => Err(format!("expected a number, found {n}")),
        }
    }

    pub(super) fn flag(&self, field: &str) -> Res<bool> {
        match self.args().iter().find(|(f, _)| f == field) {
            Some((_, Debug::Named(v, _))) if v == "true" => Ok(true),
            Some((_, Debug::Named(v, _))) if v == "false" => Ok(false),
            _ => Err(format!("{} lacks '{field}: true|false'", self.name())),
        }
    }

    /// A variant without fields, of the listed ones.
    pub(super) fn unit<T: fmt::Debug + Copy>(&self, all: &[T]) -> Res<T> {
        if !self.args().is_empty() {
            return Err(format!("{} takes no operand", self.name()));
        }
        all.iter()
            .copied()
            .find(|v| format!("{v:?}") == self.name())
            .ok_or_else(|| format!("unknown '{}'", self.name()))
    }
}
