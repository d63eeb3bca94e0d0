//! The `--assume` precondition language: small C-like expressions parsed to an [`AssumeExpr`].
//!
//! An assumption such as `n > 0 && s[0] != '\0'` names parameters (by name or as `arg0`),
//! integers (`42`, `0x1f`, `10u`, `5UL`, or `'a'` with the escapes
//! `\0 \n \t \r \\ \' \"`), floating literals (`1.5`, `.5`, `1.`, `1e6`, `1E-3`, hexadecimal
//! `0x1.8p+1`, `0.1f`), the macros `INFINITY` and `NAN`, buffer elements (`s[i + 1]`), the
//! unary operators `! - ~` and C's binary operators with C's precedence (tightest first) and
//! left associativity:
//!
//! ```text
//! * / %   >   + -   >   << >>   >   < <= > >=   >   == !=   >   &   >   ^   >   |   >   &&   >   ||
//! ```
//!
//! Integer literals get their C type here, as a C compiler gives it (C11 6.4.4.1, LP64): a
//! decimal literal is the first of `int`, `long` that holds it, a hexadecimal one the first
//! of `int`, `unsigned int`, `long`, `unsigned long`, narrowed by `u` and `l` suffixes; a
//! literal that fits none of them is an error. Character literals are `int`. A floating
//! literal (C11 6.4.4.2) is a `double`, or a `float` with an `f` or `F` suffix, and holds the
//! value of that type nearest to the written one, ties to even, as C rounds it (a decimal
//! `0.1f` rounds to `float` directly, not through `double`); one too large for its type is
//! an error, one too small rounds to a subnormal or zero. `long double` (an `l` or `L`
//! suffix) is not supported. `INFINITY` and `NAN` are `float` constants, as `<math.h>`
//! defines them (`NAN` is the quiet NaN `0x7FC00000`). There are no casts and no function
//! calls.
//!
//! A run of operators of one precedence (`a && b && c`, `x + y - z`) is one [`AssumeExpr::Chain`],
//! so long flat conditions are not deep trees; only parentheses, unary operators, indexing and
//! operators of rising precedence nest, at most [`MAX_DEPTH`] levels.
//!
//! This module only parses; checking the names against the function and giving the
//! expression a meaning happen elsewhere. Every error carries the 1-based column (counted in
//! characters) where the problem starts.

mod hexfloat;
use hexfloat::round_hex;
use std::fmt;

/// How deeply expressions may nest, so that parsing, printing and dropping never exhaust
/// the stack.
pub const MAX_DEPTH: usize = 256;

/// The longest assumption text accepted, in characters.
pub const MAX_LEN: usize = 65_536;

/// A C arithmetic type: an integer type with its width in bits (1 for `_Bool`) and
/// signedness, or `float` (32 bits) or `double` (64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    Int { bits: u32, signed: bool },
    Float { bits: u32 },
}

impl CType {
    pub const INT: CType = CType::Int {
        bits: 32,
        signed: true,
    };
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    pub const LONG: CType = CType::Int {
        bits: 64,
        signed: true,
    };
    pub const ULONG: CType = CType::Int {
        bits: 64,
        signed: false,
    };
    pub const FLOAT: CType = CType::Float { bits: 32 };
    pub const DOUBLE: CType = CType::Float { bits: 64 };

    /// The width of a value of the type in bits.
    pub fn bits(self) -> u32 {
        match self {
            CType::Int { bits, .. } | CType::Float { bits } => bits,
        }
    }

    /// Whether values of the type can be negative: a signed integer type, `float` or
    /// `double`.
    pub fn signed(self) -> bool {
        !matches!(self, CType::Int { signed: false, .. })
    }

    /// Whether the type is `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, CType::Float { .. })
    }

    /// The C name of the type (LP64), for messages.
    pub fn name(self) -> String {
        let (bits, signed) = match self {
            CType::Float { bits: 32 } => return "float".into(),
            CType::Float { bits: 64 } => return "double".into(),
            CType::Float { bits } => return format!("{bits}-bit floating type"),
            CType::Int { bits, signed } => (bits, signed),
        };
        let base = match bits {
            1 => return "_Bool".into(),
            8 => "char",
            16 => "short",
            32 => "int",
            64 => "long",
            128 => "__int128",
            n => {
                return format!(
                    "{}{n}-bit integer",
                    if signed { "signed " } else { "unsigned " }
                )
            }
        };
        match (signed, bits) {
            (true, 8) => "signed char".into(),
            (true, _) => base.into(),
            (false, 32) => "unsigned int".into(),
            (false, _) => format!("unsigned {base}"),
        }
    }

    /// Whether `value` (as a non-negative mathematical integer) is representable in an
    /// integer type (false for floating types).
    pub fn holds(self, value: u128) -> bool {
        let CType::Int { bits, signed } = self else {
            return false;
        };
        let max = if signed {
            (1u128 << (bits - 1)) - 1
        } else if bits == 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        value <= max
    }
}

/// A numeric literal: its C type and value, for an integer type the (non-negative) value,
/// for a floating type the IEEE bit pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Literal {
    pub value: u128,
    pub ty: CType,
}

impl Literal {
    /// An `int` literal (character literals, and small numbers in tests).
    pub fn int(value: u128) -> Literal {
        Literal {
            value,
            ty: CType::INT,
        }
    }
}

/// Prints an integer literal in decimal and a floating one as C reads it back to the same
/// value: the shortest decimal form (`0.1`, `1e300`), `f` after a `float`'s, and
/// `INFINITY` or `NAN` for those values.
impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (text, suffix) = match self.ty {
            CType::Int { .. } => return write!(f, "{}", self.value),
            CType::Float { bits: 32 } => (format!("{:?}", f32::from_bits(self.value as u32)), "f"),
            CType::Float { .. } => (format!("{:?}", f64::from_bits(self.value as u64)), ""),
        };
        match text.as_str() {
            "inf" => f.write_str("INFINITY"),
            "-inf" => f.write_str("-INFINITY"),
            "NaN" => f.write_str("NAN"),
            _ => write!(f, "{text}{suffix}"),
        }
    }
}

/// A parsed assumption.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssumeExpr {
    /// A numeric literal with its C type; character literals give their byte value as `int`.
    Num(Literal),
    /// A parameter, by name or position (`arg0`).
    Var(String),
    /// An element of a buffer parameter: `s[4]`.
    Index(String, Box<AssumeExpr>),
    /// A unary operation.
    Unary(UnaryOp, Box<AssumeExpr>),
    /// A binary operation.
    Binary(BinaryOp, Box<AssumeExpr>, Box<AssumeExpr>),
    /// Two or more operators of one precedence applied left to right:
    /// `a - b + c` is `Chain(a, [(-, b), (+, c)])`, the same as `(a - b) + c`.
    Chain(Box<AssumeExpr>, Vec<(BinaryOp, AssumeExpr)>),
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Logical not, `!`.
    Not,
    /// Negation, `-`.
    Neg,
    /// Bitwise complement, `~`.
    BitNot,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl UnaryOp {
    /// The operator as written in C.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "!",
            UnaryOp::Neg => "-",
            UnaryOp::BitNot => "~",
        }
    }
}

impl BinaryOp {
    /// Every binary operator.
    pub const ALL: [BinaryOp; 18] = [
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Rem,
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Shl,
        BinaryOp::Shr,
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::BitAnd,
        BinaryOp::BitXor,
        BinaryOp::BitOr,
        BinaryOp::And,
        BinaryOp::Or,
    ];

    /// The operator as written in C.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }

    /// C's binding strength: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Rem => 10,
            BinaryOp::Add | BinaryOp::Sub => 9,
            BinaryOp::Shl | BinaryOp::Shr => 8,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 7,
            BinaryOp::Eq | BinaryOp::Ne => 6,
            BinaryOp::BitAnd => 5,
            BinaryOp::BitXor => 4,
            BinaryOp::BitOr => 3,
            BinaryOp::And => 2,
            BinaryOp::Or => 1,
        }
    }
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// `e` in C syntax; an operation below the top (`top` false) in parentheses.
fn c_text(e: &AssumeExpr, top: bool) -> String {
    let wrap = |s: String| if top { s } else { format!("({s})") };
    match e {
        AssumeExpr::Num(v) => v.to_string(),
        AssumeExpr::Var(name) => name.clone(),
        AssumeExpr::Index(name, index) => format!("{name}[{}]", c_text(index, true)),
        AssumeExpr::Unary(op, inner) => match **inner {
            // `-(-x)`, not `--x`.
            AssumeExpr::Unary(..) => format!("{op}({})", c_text(inner, true)),
            _ => format!("{op}{}", c_text(inner, false)),
        },
        AssumeExpr::Binary(op, l, r) => {
            wrap(format!("{} {op} {}", c_text(l, false), c_text(r, false)))
        }
        AssumeExpr::Chain(first, rest) => {
            let mut s = c_text(first, false);
            for (op, e) in rest {
                s = format!("{s} {op} {}", c_text(e, false));
            }
            wrap(s)
        }
    }
}

/// Prints the expression as an s-expression: `(== (+ a (* b 2)) 3)`, `(index s 4)`.
impl fmt::Display for AssumeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssumeExpr::Num(v) => write!(f, "{v}"),
            AssumeExpr::Var(name) => f.write_str(name),
            AssumeExpr::Index(name, index) => write!(f, "(index {name} {index})"),
            AssumeExpr::Unary(op, e) => write!(f, "({op} {e})"),
            AssumeExpr::Binary(op, l, r) => write!(f, "({op} {l} {r})"),
            // As nested binary operations, without recursing along the chain.
            AssumeExpr::Chain(first, rest) => {
                for (op, _) in rest.iter().rev() {
                    write!(f, "({op} ")?;
                }
                write!(f, "{first}")?;
                for (_, e) in rest {
                    write!(f, " {e})")?;
                }
                Ok(())
            }
        }
    }
}

impl AssumeExpr {
    /// The expression in C syntax, as people write it in `--assume` and configs (`lo <= high`,
    /// `s[4] == 0`, `(a + b) * 2 < n`): each nested operation in parentheses. For messages;
    /// the s-expression form (`Display`) is the test format.
    pub fn c_syntax(&self) -> String {
        c_text(self, true)
    }

    /// The parameter names the expression refers to, including indexed buffers, each once,
    /// in order of first appearance.
    pub fn vars(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars<'a>(&'a self, out: &mut Vec<&'a str>) {
        let (name, children): (Option<&str>, Vec<&AssumeExpr>) = match self {
            AssumeExpr::Num(_) => (None, Vec::new()),
            AssumeExpr::Var(name) => (Some(name), Vec::new()),
            AssumeExpr::Index(name, index) => (Some(name), vec![index]),
            AssumeExpr::Unary(_, e) => (None, vec![e]),
            AssumeExpr::Binary(_, l, r) => (None, vec![l, r]),
            AssumeExpr::Chain(first, rest) => (
                None,
                std::iter::once(&**first)
                    .chain(rest.iter().map(|(_, e)| e))
                    .collect(),
            ),
        };
        if let Some(name) = name.filter(|n| !out.contains(n)) {
            out.push(name);
        }
        children.into_iter().for_each(|c| c.collect_vars(out));
    }
}

/// A syntax error in an assumption, at a 1-based character column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssumeError {
    /// Where the problem starts; one past the last character for a premature end.
    pub column: usize,
    /// What is wrong, for example `expected ')' after expression`.
    pub message: String,
}

impl fmt::Display for AssumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for AssumeError {}

fn error<T>(column: usize, message: impl Into<String>) -> Result<T, AssumeError> {
    Err(AssumeError {
        column,
        message: message.into(),
    })
}

/// Parses an assumption such as `n > 0 && s[n - 1] == '\0'`.
pub fn parse_assume(text: &str) -> Result<AssumeExpr, AssumeError> {
    let length = text.chars().count();
    if length > MAX_LEN {
        return error(
            MAX_LEN + 1,
            format!("expression too long ({length} characters; at most {MAX_LEN})"),
        );
    }
    let tokens = lex(text)?;
    if tokens.len() == 1 {
        return error(1, "empty expression");
    }
    let mut p = Parser {
        tokens,
        pos: 0,
        nesting: 0,
    };
    let (expr, _) = p.expr(0)?;
    let tok = p.peek();
    match &tok.kind {
        Tok::End => Ok(expr),
        Tok::Punct(')') => error(tok.column, "unexpected ')' with no matching '('"),
        Tok::Punct(']') => error(tok.column, "unexpected ']' with no matching '['"),
        other => error(
            tok.column,
            format!(
                "unexpected {} after the end of the expression",
                other.describe()
            ),
        ),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(Literal),
    Ident(String),
    Binary(BinaryOp),
    /// `!` or `~`; `-` is lexed as [`BinaryOp::Sub`] and read as negation where it starts an operand.
    Unary(UnaryOp),
    /// One of `( ) [ ]`.
    Punct(char),
    End,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Num(v) => format!("number {v}"),
            Tok::Ident(name) => format!("'{name}'"),
            Tok::Binary(op) => format!("'{op}'"),
            Tok::Unary(op) => format!("'{op}'"),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::End => "end of input".to_string(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    kind: Tok,
    column: usize,
}

fn lex(text: &str) -> Result<Vec<Token>, AssumeError> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        let kind = if c.is_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let (value, end) = lex_number(&chars, i)?;
            i = end;
            Tok::Num(value)
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            // C's macros for the special values, as <math.h> defines them: `float`
            // constants.
            match name.as_str() {
                "INFINITY" => Tok::Num(Literal {
                    value: 0x7f80_0000,
                    ty: CType::FLOAT,
                }),
                "NAN" => Tok::Num(Literal {
                    value: 0x7fc0_0000,
                    ty: CType::FLOAT,
                }),
                _ => Tok::Ident(name),
            }
        } else if c == '\'' {
            let (value, end) = lex_char(&chars, i)?;
            i = end;
            Tok::Num(Literal::int(value as u128))
        } else if let Some(op) = binary_op_at(&chars[i..]) {
            i += op.symbol().len();
            Tok::Binary(op)
        } else {
            i += 1;
            match c {
                '!' => Tok::Unary(UnaryOp::Not),
                '~' => Tok::Unary(UnaryOp::BitNot),
                '(' | ')' | '[' | ']' => Tok::Punct(c),
                '=' => return error(column, "'=' is assignment; use '==' to compare"),
                '"' => return error(column, "string literals are not supported"),
                _ => return error(column, format!("unexpected character {c:?}")),
            }
        };
        tokens.push(Token { kind, column });
    }
    tokens.push(Token {
        kind: Tok::End,
        column: chars.len() + 1,
    });
    Ok(tokens)
}

/// The binary operator spelled at the start of `chars`, preferring two-character spellings.
fn binary_op_at(chars: &[char]) -> Option<BinaryOp> {
    let spelled = |op: &BinaryOp, len: usize| {
        let sym = op.symbol();
        sym.len() == len && len <= chars.len() && sym.chars().zip(chars).all(|(a, &b)| a == b)
    };
    [2, 1]
        .into_iter()
        .find_map(|len| BinaryOp::ALL.into_iter().find(|op| spelled(op, len)))
}

/// Lexes a decimal or hexadecimal literal with its suffix starting at `start`; returns it,
/// typed as C types it, and its end.
fn lex_number(chars: &[char], start: usize) -> Result<(Literal, usize), AssumeError> {
    let column = start + 1;
    let hex = chars[start] == '0' && matches!(chars.get(start + 1), Some('x' | 'X'));
    let radix = if hex { 16 } else { 10 };
    let digits_start = if hex { start + 2 } else { start };
    let mut i = digits_start;
    let mut value: Option<u128> = Some(0);
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(radix)) {
        value = value
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
        i += 1;
    }
    let fraction_or_exponent = match chars.get(i) {
        Some('.') => true,
        Some('e' | 'E') => !hex,
        Some('p' | 'P') => hex,
        _ => false,
    };
    if fraction_or_exponent {
        return lex_float(chars, start, hex);
    }
    if hex && i == digits_start {
        return error(column, "expected hexadecimal digits after '0x'");
    }
    let digits_end = i;
    // Suffixes: u or U, and l, L, ll or LL, in either order.
    let (mut unsigned, mut long) = (false, false);
    while let Some(&c) = chars.get(i) {
        match c {
            'u' | 'U' if !unsigned => unsigned = true,
            'l' | 'L' if !long => {
                long = true;
                if chars.get(i + 1) == Some(&c) {
                    i += 1;
                }
            }
            _ => break,
        }
        i += 1;
    }
    if let Some(&c) = chars.get(i) {
        if c.is_ascii_alphanumeric() || c == '_' {
            let kind = if hex { "hexadecimal" } else { "decimal" };
            return error(i + 1, format!("invalid character {c:?} in {kind} literal"));
        }
    }
    if !hex && chars[start] == '0' && digits_end > start + 1 {
        return error(
            column,
            "leading zeros are not allowed (C would read an octal number); write it in decimal or hex",
        );
    }
    let text: String = chars[start..i].iter().collect();
    let candidates: &[CType] = match (hex, unsigned, long) {
        (false, false, false) => &[CType::INT, CType::LONG],
        (false, false, true) => &[CType::LONG],
        (true, false, false) => &[CType::INT, CType::UINT, CType::LONG, CType::ULONG],
        (true, false, true) => &[CType::LONG, CType::ULONG],
        (_, true, false) => &[CType::UINT, CType::ULONG],
        (_, true, true) => &[CType::ULONG],
    };
    let ty = value.and_then(|v| candidates.iter().copied().find(|t| t.holds(v)));
    match (value, ty) {
        (Some(value), Some(ty)) => Ok((Literal { value, ty }, i)),
        _ => {
            let widest = candidates[candidates.len() - 1];
            let max = if widest.signed() {
                i64::MAX as u128
            } else {
                u64::MAX as u128
            };
            let name = widest.name();
            let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            error(
                column,
                format!("integer literal {text} fits no C integer type (the largest is {max} for this literal, {article} {name})"),
            )
        }
    }
}

/// The preprocessing number starting at `start` (C11 6.4.8): the literal and the letters,
/// digits, dots and exponent signs run into it, for messages.
fn pp_number(chars: &[char], start: usize) -> String {
    let mut end = start;
    while let Some(&c) = chars.get(end) {
        let sign = matches!(c, '+' | '-')
            && end > start
            && matches!(chars[end - 1], 'e' | 'E' | 'p' | 'P');
        if !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || sign) {
            break;
        }
        end += 1;
    }
    chars[start..end].iter().collect()
}

/// Lexes a floating literal (C11 6.4.4.2) starting at `start`: `1.5`, `.5`, `1.`, `1e6`,
/// `0x1.8p+1`, `double` unless an `f` suffix makes it `float`. The value is the nearest
/// one of the type, ties to even, as C rounds it; returns the literal and its end.
fn lex_float(chars: &[char], start: usize, hex: bool) -> Result<(Literal, usize), AssumeError> {
    let column = start + 1;
    let radix = if hex { 16 } else { 10 };
    let digits = |from: usize| {
        let mut end = from;
        while chars.get(end).is_some_and(|c| c.is_digit(radix)) {
            end += 1;
        }
        (chars[from..end].iter().collect::<String>(), end)
    };
    let (int, mut i) = digits(if hex { start + 2 } else { start });
    let mut frac = String::new();
    if chars.get(i) == Some(&'.') {
        (frac, i) = digits(i + 1);
    }
    let text = pp_number(chars, start);
    if int.is_empty() && frac.is_empty() {
        return error(column, format!("floating literal '{text}' has no digits"));
    }
    let mut exponent = None;
    if matches!(
        (hex, chars.get(i)),
        (false, Some('e' | 'E')) | (true, Some('p' | 'P'))
    ) {
        i += 1;
        let negative = chars.get(i) == Some(&'-');
        if matches!(chars.get(i), Some('+' | '-')) {
            i += 1;
        }
        let (e, end) = {
            let mut end = i;
            while chars.get(end).is_some_and(char::is_ascii_digit) {
                end += 1;
            }
            (chars[i..end].iter().collect::<String>(), end)
        };
        if e.is_empty() {
            return error(
                column,
                format!("floating literal '{text}' has no digits in its exponent"),
            );
        }
        i = end;
        exponent = Some((negative, e));
    } else if hex {
        return error(
            column,
            format!("hexadecimal floating literal '{text}' needs a binary exponent ('p')"),
        );
    }
    let ty = match chars.get(i) {
        Some('f' | 'F') => {
            i += 1;
            CType::FLOAT
        }
        Some('l' | 'L') => {
            return error(
                column,
                format!("floating literal '{text}' is a long double, which is not supported"),
            )
        }
        _ => CType::DOUBLE,
    };
    if let Some(&c) = chars.get(i) {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            return error(
                i + 1,
                format!("invalid character {c:?} in floating literal '{text}'"),
            );
        }
    }
    let value = if hex {
        // The exponent saturates far beyond every format's range.
        let magnitude = exponent.as_ref().map_or(0, |(_, e)| {
            e.bytes()
                .fold(0i64, |acc, d| (acc * 10 + i64::from(d - b'0')).min(1 << 40))
        });
        let exp = if exponent.as_ref().is_some_and(|(neg, _)| *neg) {
            -magnitude
        } else {
            magnitude
        };
        round_hex(&int, &frac, exp, ty.bits())
    } else {
        let mut decimal = format!("{int}.{frac}");
        if let Some((negative, e)) = &exponent {
            decimal = format!("{decimal}e{}{e}", if *negative { "-" } else { "" });
        }
        // Rust's parsing is correctly rounded, to the type itself (no double rounding).
        if ty == CType::FLOAT {
            decimal
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| u128::from(v.to_bits()))
        } else {
            decimal
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| u128::from(v.to_bits()))
        }
    };
    match value {
        Some(value) => Ok((Literal { value, ty }, i)),
        None => error(
            column,
            format!(
                "floating literal '{text}' is too large for {} (use INFINITY for infinity)",
                ty.name()
            ),
        ),
    }
}

/// Lexes a character literal starting at the quote at `start`; returns its value and end.
fn lex_char(chars: &[char], start: usize) -> Result<(i128, usize), AssumeError> {
    let column = start + 1;
    let unterminated = || error(column, "unterminated character literal");
    let mut i = start + 1;
    let value = match chars.get(i) {
        None => return unterminated(),
        Some('\'') => return error(column, "empty character literal"),
        Some('\\') => {
            i += 1;
            let Some(&e) = chars.get(i) else {
                return unterminated();
            };
            i += 1;
            match e {
                '0' => 0,
                'n' => 10,
                't' => 9,
                'r' => 13,
                '\\' => 92,
                '\'' => 39,
                '"' => 34,
                _ => return error(i, format!("unknown escape '\\{e}' in character literal")),
            }
        }
        Some(&c) if c.is_ascii() && !c.is_ascii_control() => {
            i += 1;
            c as u32
        }
        Some(&c) => {
            return error(
                i + 1,
                format!("character literal holds {c:?}; only printable ASCII is allowed"),
            )
        }
    };
    match chars.get(i) {
        Some('\'') => Ok((i128::from(value), i + 1)),
        None => unterminated(),
        Some(_) => error(
            i + 1,
            "expected ' to close the character literal (it holds one character)",
        ),
    }
}

/// `first` followed by the operations of `rest`, as one expression and its depth
/// (`depth`: the deepest operand's).
fn close_chain(first: AssumeExpr, mut rest: Vec<(BinaryOp, AssumeExpr)>, depth: usize) -> Parsed {
    match rest.len() {
        0 => (first, depth),
        1 => {
            let (op, rhs) = rest.pop().expect("one operation");
            (
                AssumeExpr::Binary(op, Box::new(first), Box::new(rhs)),
                depth + 1,
            )
        }
        _ => (AssumeExpr::Chain(Box::new(first), rest), depth + 1),
    }
}

/// A precedence-climbing parser over the tokens; every token list ends with [`Tok::End`].
struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// Open parentheses, brackets and unary operators around the current position.
    nesting: usize,
}

/// An expression and the depth of its tree.
type Parsed = (AssumeExpr, usize);

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn advance(&mut self) -> Token {
        let tok = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        tok
    }

    fn check_depth(depth: usize, column: usize) -> Result<(), AssumeError> {
        if depth > MAX_DEPTH {
            return error(
                column,
                format!("expression nested too deeply (more than {MAX_DEPTH} levels)"),
            );
        }
        Ok(())
    }

    /// Enters a parenthesis, bracket or unary operator at `column`.
    fn enter(&mut self, column: usize) -> Result<(), AssumeError> {
        self.nesting += 1;
        Self::check_depth(self.nesting, column)
    }

    /// Parses operators of at least `min_prec`, left-associatively. Operators of one
    /// precedence in a row make one chain; the operators met here never rise in
    /// precedence (a tighter one is taken by the right operand's parse).
    fn expr(&mut self, min_prec: u8) -> Result<Parsed, AssumeError> {
        let (mut lhs, mut depth) = self.unary()?;
        let mut chain: Vec<(BinaryOp, AssumeExpr)> = Vec::new();
        let mut chain_depth = depth;
        loop {
            let tok = self.peek();
            let Tok::Binary(op) = tok.kind else { break };
            if op.precedence() < min_prec {
                break;
            }
            let column = tok.column;
            if chain
                .first()
                .is_some_and(|(first, _)| first.precedence() != op.precedence())
            {
                (lhs, depth) = close_chain(lhs, std::mem::take(&mut chain), chain_depth);
                chain_depth = depth;
            }
            self.advance();
            let (rhs, rhs_depth) = self.expr(op.precedence() + 1)?;
            chain_depth = chain_depth.max(rhs_depth);
            Self::check_depth(chain_depth + 1, column)?;
            chain.push((op, rhs));
        }
        Ok(close_chain(lhs, chain, chain_depth))
    }

    fn unary(&mut self) -> Result<Parsed, AssumeError> {
        let tok = self.peek();
        let op = match tok.kind {
            Tok::Unary(op) => op,
            Tok::Binary(BinaryOp::Sub) => UnaryOp::Neg,
            _ => return self.postfix(),
        };
        let column = tok.column;
        self.advance();
        self.enter(column)?;
        let (operand, depth) = self.unary()?;
        self.nesting -= 1;
        Self::check_depth(depth + 1, column)?;
        Ok((AssumeExpr::Unary(op, Box::new(operand)), depth + 1))
    }

    fn postfix(&mut self) -> Result<Parsed, AssumeError> {
        let tok = self.advance();
        let parsed = match tok.kind {
            Tok::Num(v) => (AssumeExpr::Num(v), 1),
            Tok::Ident(name) => {
                if self.peek().kind != Tok::Punct('[') {
                    (AssumeExpr::Var(name), 1)
                } else {
                    let column = self.advance().column;
                    self.enter(column)?;
                    let (index, depth) = self.expr(0)?;
                    self.nesting -= 1;
                    self.expect(Tok::Punct(']'), "expected ']' after index")?;
                    Self::check_depth(depth + 1, column)?;
                    (AssumeExpr::Index(name, Box::new(index)), depth + 1)
                }
            }
            Tok::Punct('(') => {
                self.enter(tok.column)?;
                let inner = self.expr(0)?;
                self.nesting -= 1;
                self.expect(Tok::Punct(')'), "expected ')' after expression")?;
                inner
            }
            Tok::End => return error(tok.column, "expected an expression, found end of input"),
            other => {
                return error(
                    tok.column,
                    format!("expected an expression, found {}", other.describe()),
                )
            }
        };
        let next = self.peek();
        if next.kind == Tok::Punct('[') {
            return error(next.column, "only a parameter name can be indexed");
        }
        Ok(parsed)
    }

    fn expect(&mut self, kind: Tok, message: &str) -> Result<(), AssumeError> {
        let tok = self.peek();
        if tok.kind == kind {
            self.advance();
            Ok(())
        } else {
            error(tok.column, message)
        }
    }
}

#[cfg(test)]
mod tests;
