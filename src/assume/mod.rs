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
mod tests {
    use super::*;

    /// Runs a table of `input => expected` lines; blank lines are skipped. The expected text
    /// is the s-expression for inputs that parse and the full message for those that do not.
    #[track_caller]
    fn run_table(table: &str) {
        for line in table.lines().filter(|l| !l.trim().is_empty()) {
            let (input, expected) = line.split_once(" => ").expect("a line with ' => '");
            let (input, expected) = (input.trim(), expected.trim());
            match parse_assume(input) {
                Ok(e) => assert_eq!(e.to_string(), expected, "parsing {input:?}"),
                Err(e) => assert_eq!(e.to_string(), expected, "parsing {input:?}"),
            }
        }
    }

    /// Parses `text` and compares the s-expression form.
    #[track_caller]
    fn check(text: &str, sexp: &str) {
        match parse_assume(text) {
            Ok(e) => assert_eq!(e.to_string(), sexp, "parsing {text:?}"),
            Err(e) => panic!("parsing {text:?}: {e}"),
        }
    }

    #[test]
    fn precedence_and_associativity() {
        run_table(
            r"
            a + b * 2 == 3          => (== (+ a (* b 2)) 3)
            a - b - c               => (- (- a b) c)
            a / b % c * d           => (* (% (/ a b) c) d)
            a << 1 + 2              => (<< a (+ 1 2))
            a < b == c > d          => (== (< a b) (> c d))
            a & b ^ c | d           => (| (^ (& a b) c) d)
            a == b & c              => (& (== a b) c)
            a || b && c             => (|| a (&& b c))
            a && b || c && d        => (|| (&& a b) (&& c d))
            a | b && c              => (&& (| a b) c)
            a >> b <= c >= d != e   => (!= (>= (<= (>> a b) c) d) e)
            (a + b) * 2             => (* (+ a b) 2)
            ((a))                   => a
            ",
        );
    }

    #[test]
    fn unary_operators() {
        run_table(
            r"
            -a * b                  => (* (- a) b)
            !a && ~b                => (&& (! a) (~ b))
            --a                     => (- (- a))
            a - -1                  => (- a (- 1))
            !(a == 0)               => (! (== a 0))
            -s[0]                   => (- (index s 0))
            ",
        );
    }

    #[test]
    fn literals() {
        run_table(
            r#"
            0                       => 0
            42                      => 42
            0x1f                    => 31
            0XFF                    => 255
            'a'                     => 97
            '\0'                    => 0
            '\n'                    => 10
            '\\'                    => 92
            '\''                    => 39
            ' '                     => 32
            '\t' + '\r' + '"' + '\"' => (+ (+ (+ 9 13) 34) 34)
            0x00000000000000000000000000000000000001 => 1
            9223372036854775807     => 9223372036854775807
            0xffffffffffffffff      => 18446744073709551615
            10u + 5UL + 7l + 0x1LLU => (+ (+ (+ 10 5) 7) 1)
            "#,
        );
    }

    #[test]
    fn names_and_indexing() {
        run_table(
            r"
            n                       => n
            arg0 >= _x1             => (>= arg0 _x1)
            s[4]                    => (index s 4)
            s[i + 1] == '\0'        => (== (index s (+ i 1)) 0)
            buf[buf[0]]             => (index buf (index buf 0))
            ",
        );
        check(" \tn\n> 0 ", "(> n 0)");
    }

    #[test]
    fn syntax_errors_have_columns() {
        run_table(
            r#"
            (a + b                  => column 7: expected ')' after expression
            (a + b c                => column 8: expected ')' after expression
            a + b)                  => column 6: unexpected ')' with no matching '('
            a b                     => column 3: unexpected 'b' after the end of the expression
            a + 1 2                 => column 7: unexpected number 2 after the end of the expression
            a +                     => column 4: expected an expression, found end of input
            a + * b                 => column 5: expected an expression, found '*'
            ()                      => column 2: expected an expression, found ')'
            s[1                     => column 4: expected ']' after index
            s[]                     => column 3: expected an expression, found ']'
            a]                      => column 2: unexpected ']' with no matching '['
            s[1][2]                 => column 5: only a parameter name can be indexed
            (s)[1]                  => column 4: only a parameter name can be indexed
            3[1]                    => column 2: only a parameter name can be indexed
            a = 1                   => column 3: '=' is assignment; use '==' to compare
            a # 1                   => column 3: unexpected character '#'
            n > "x"                 => column 5: string literals are not supported
            é                       => column 1: unexpected character 'é'
            +a                      => column 1: expected an expression, found '+'
            "#,
        );
        for blank in ["", "   ", "\t\n"] {
            let err = parse_assume(blank).unwrap_err();
            assert_eq!(err.to_string(), "column 1: empty expression");
        }
    }

    #[test]
    fn literal_errors() {
        run_table(
            r"
            9223372036854775808     => column 1: integer literal 9223372036854775808 fits no C integer type (the largest is 9223372036854775807 for this literal, a long)
            x < 18446744073709551616 => column 5: integer literal 18446744073709551616 fits no C integer type (the largest is 9223372036854775807 for this literal, a long)
            n < 0x10000000000000000 => column 5: integer literal 0x10000000000000000 fits no C integer type (the largest is 18446744073709551615 for this literal, an unsigned long)
            0x                      => column 1: expected hexadecimal digits after '0x'
            0x1g                    => column 4: invalid character 'g' in hexadecimal literal
            10uu                    => column 4: invalid character 'u' in decimal literal
            10lul                   => column 5: invalid character 'l' in decimal literal
            1a                      => column 2: invalid character 'a' in decimal literal
            010                     => column 1: leading zeros are not allowed (C would read an octal number); write it in decimal or hex
            '                       => column 1: unterminated character literal
            'a                      => column 1: unterminated character literal
            '\                      => column 1: unterminated character literal
            ''                      => column 1: empty character literal
            'ab'                    => column 3: expected ' to close the character literal (it holds one character)
            '\01'                   => column 4: expected ' to close the character literal (it holds one character)
            '\q'                    => column 3: unknown escape '\q' in character literal
            '\x41'                  => column 3: unknown escape '\x' in character literal
            'é'                     => column 2: character literal holds 'é'; only printable ASCII is allowed
            ",
        );
        let err = parse_assume(&"9".repeat(500)).unwrap_err();
        assert!(err.to_string().contains("fits no C integer type"), "{err}");
    }

    /// C11 6.4.4.1: the type of an integer literal is the first of its list that holds it.
    #[test]
    fn literals_get_c_types() {
        let ty = |text: &str| match parse_assume(text) {
            Ok(AssumeExpr::Num(l)) => l.ty.name(),
            other => panic!("{text}: {other:?}"),
        };
        for (text, expected) in [
            ("0", "int"),
            ("2147483647", "int"),
            ("2147483648", "long"),
            ("0x7fffffff", "int"),
            ("0x80000000", "unsigned int"),
            ("0xffffffff", "unsigned int"),
            ("0x100000000", "long"),
            ("0x8000000000000000", "unsigned long"),
            ("3000000000u", "unsigned int"),
            ("5000000000u", "unsigned long"),
            ("1l", "long"),
            ("0x1L", "long"),
            ("1ul", "unsigned long"),
            ("1LLU", "unsigned long"),
            ("'a'", "int"),
        ] {
            assert_eq!(ty(text), expected, "{text}");
        }
    }

    /// The type and bit pattern of a literal.
    #[track_caller]
    fn float_bits(text: &str) -> (String, u128) {
        match parse_assume(text) {
            Ok(AssumeExpr::Num(l)) => (l.ty.name(), l.value),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn floating_literals() {
        run_table(
            r"
            1.5                     => 1.5
            .5                      => 0.5
            1.                      => 1.0
            1e6                     => 1000000.0
            1E-3                    => 0.001
            1e+300                  => 1e300
            2.5e-3f                 => 0.0025f
            1.f                     => 1.0f
            0x1p-3                  => 0.125
            0x1.8p+1                => 3.0
            0X.8P1F                 => 1.0f
            0x10p0                  => 16.0
            010.5                   => 10.5
            0e0                     => 0.0
            INFINITY                => INFINITY
            NAN                     => NAN
            x >= 0.0 && x < 1e6     => (&& (>= x 0.0) (< x 1000000.0))
            -.5 < x                 => (< (- 0.5) x)
            INFINITY_x + 1          => (+ INFINITY_x 1)
            ",
        );
        for (text, ty, bits) in [
            ("0.1", "double", 0x3FB9_9999_9999_999A),
            ("0.1f", "float", 0x3DCC_CCCD),
            ("0.1F", "float", 0x3DCC_CCCD),
            ("1e-3", "double", 0.001f64.to_bits().into()),
            ("0x1.8p+1", "double", 3.0f64.to_bits().into()),
            ("0x1p-1074", "double", 1),
            ("0x1p-149f", "float", 1),
            (
                "0x1.fffffffffffffp1023",
                "double",
                f64::MAX.to_bits().into(),
            ),
            ("0x1.fffffep127f", "float", f32::MAX.to_bits().into()),
            ("4.9e-324", "double", 1),
            ("2e-324", "double", 0),
            ("1e-50f", "float", 0),
            ("INFINITY", "float", 0x7F80_0000),
            ("NAN", "float", 0x7FC0_0000),
            // Decimal literals round to the type directly: through double, this one would
            // be a tie and round to 1.0f.
            ("1.0000000596046447753906251f", "float", 0x3F80_0001),
            ("1.000000059604644775390625f", "float", 0x3F80_0000),
            // Hexadecimal ones round to nearest, ties to even, however many digits.
            ("0x1.00000000000008p0", "double", 1.0f64.to_bits().into()),
            ("0x1.00000000000018p0", "double", 0x3FF0_0000_0000_0002),
            (
                "0x1.000000000000080000000000000000000000001p0",
                "double",
                0x3FF0_0000_0000_0001,
            ),
            ("0x1.000001p0f", "float", 0x3F80_0000),
            ("0x1.000003p0f", "float", 0x3F80_0002),
            ("0x1.fffffffp0f", "float", 0x4000_0000),
            (
                "0x0.00000000000000000000000001p0",
                "double",
                0x3970_0000_0000_0000,
            ),
            (
                "0x123456789abcdef0123456789abcdef0p-124",
                "double",
                0x3FF2_3456_789A_BCDF,
            ),
            // The largest subnormal rounds up to the smallest normal.
            ("0x1.ffffffffffffffp-1023", "double", 0x0010_0000_0000_0000),
            ("0x1p-1075", "double", 0),
            ("0x1.0000000001p-1075", "double", 1),
        ] {
            assert_eq!(float_bits(text), (ty.to_string(), bits), "{text}");
        }
    }

    #[test]
    fn floating_literal_errors() {
        run_table(
            r"
            1e                      => column 1: floating literal '1e' has no digits in its exponent
            x < 1e+                 => column 5: floating literal '1e+' has no digits in its exponent
            0x1p                    => column 1: floating literal '0x1p' has no digits in its exponent
            0x1.8                   => column 1: hexadecimal floating literal '0x1.8' needs a binary exponent ('p')
            0x.p1                   => column 1: floating literal '0x.p1' has no digits
            1.5L                    => column 1: floating literal '1.5L' is a long double, which is not supported
            0x1p3l                  => column 1: floating literal '0x1p3l' is a long double, which is not supported
            1.5x                    => column 4: invalid character 'x' in floating literal '1.5x'
            1.5ff                   => column 5: invalid character 'f' in floating literal '1.5ff'
            1.2.3                   => column 4: invalid character '.' in floating literal '1.2.3'
            1e5u                    => column 4: invalid character 'u' in floating literal '1e5u'
            1f                      => column 2: invalid character 'f' in decimal literal
            1e309                   => column 1: floating literal '1e309' is too large for double (use INFINITY for infinity)
            3.5e38f                 => column 1: floating literal '3.5e38f' is too large for float (use INFINITY for infinity)
            0x1p1024                => column 1: floating literal '0x1p1024' is too large for double (use INFINITY for infinity)
            0x1.ffffffp127f         => column 1: floating literal '0x1.ffffffp127f' is too large for float (use INFINITY for infinity)
            x < .                   => column 5: unexpected character '.'
            NAN[0]                  => column 4: only a parameter name can be indexed
            ",
        );
    }

    /// The exact decimal expansion of the hexadecimal number `digits` times 2^`exp`.
    fn exact_decimal(digits: &str, exp: i64) -> String {
        // Little-endian limbs of 10^9.
        fn mul_add(n: &mut Vec<u64>, m: u64, a: u64) {
            let mut carry = a;
            for limb in n.iter_mut() {
                let v = *limb * m + carry;
                *limb = v % 1_000_000_000;
                carry = v / 1_000_000_000;
            }
            if carry > 0 {
                n.push(carry);
            }
        }
        let mut n = vec![0u64];
        for c in digits.chars() {
            mul_add(&mut n, 16, u64::from(c.to_digit(16).unwrap()));
        }
        let (factor, times) = if exp >= 0 { (2, exp) } else { (5, -exp) };
        for _ in 0..times {
            mul_add(&mut n, factor, 0);
        }
        let mut text = n.last().unwrap().to_string();
        for limb in n.iter().rev().skip(1) {
            text += &format!("{limb:09}");
        }
        // m * 5^k / 10^k = m * 2^-k.
        if exp >= 0 {
            text
        } else {
            format!("{text}e-{}", -exp)
        }
    }

    proptest::proptest! {
        /// Hexadecimal literals round as Rust's (correctly rounded) parsing rounds their
        /// exact decimal value.
        #[test]
        fn hex_literals_round_correctly(
            int in "[0-9a-f]{0,18}",
            frac in "[0-9a-f]{0,18}",
            exp in -1200i64..1100,
            float in proptest::bool::ANY,
        ) {
            proptest::prop_assume!(!(int.is_empty() && frac.is_empty()));
            let suffix = if float { "f" } else { "" };
            let text = format!("0x{int}.{frac}p{exp}{suffix}");
            let exact = exact_decimal(&format!("{int}{frac}"), exp - 4 * frac.len() as i64);
            let expected = if float {
                exact.parse::<f32>().ok().filter(|v| v.is_finite()).map(|v| u128::from(v.to_bits()))
            } else {
                exact.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| u128::from(v.to_bits()))
            };
            match (parse_assume(&text), expected) {
                (Ok(AssumeExpr::Num(l)), Some(bits)) => proptest::prop_assert_eq!(l.value, bits, "{}", text),
                (Err(e), None) => proptest::prop_assert!(e.message.contains("too large"), "{}", e),
                (got, want) => proptest::prop_assert!(false, "{}: {:?}, expected {:?}", text, got, want),
            }
        }

        /// Decimal literals round as Rust's parsing of the same digits does.
        #[test]
        fn decimal_literals_round_correctly(
            int in "[0-9]{0,25}",
            frac in "[0-9]{0,25}",
            exp in -360i64..330,
        ) {
            proptest::prop_assume!(!(int.is_empty() && frac.is_empty()));
            let text = format!("{int}.{frac}e{exp}");
            match (parse_assume(&text), text.parse::<f64>()) {
                (Ok(AssumeExpr::Num(l)), Ok(v)) => proptest::prop_assert_eq!(l.value, u128::from(v.to_bits())),
                (Err(e), Ok(v)) => proptest::prop_assert!(v.is_infinite() && e.message.contains("too large"), "{}", e),
                (got, want) => proptest::prop_assert!(false, "{}: {:?}, expected {:?}", text, got, want),
            }
        }
    }

    #[test]
    fn vars_lists_each_name_once_in_order() {
        let e = parse_assume("s[i] == c && n > i && s[0] != 0").unwrap();
        assert_eq!(e.vars(), ["s", "i", "c", "n"]);
        assert!(parse_assume("1 + 2").unwrap().vars().is_empty());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let parens = |n| format!("{}a{}", "(".repeat(n), ")".repeat(n));
        let err = parse_assume(&parens(30_000)).unwrap_err();
        assert_eq!(err.column, MAX_DEPTH + 1);
        let brackets = format!("{}0{}", "s[".repeat(10_000), "]".repeat(10_000));
        let chain = |n, op: &str| vec!["a"; n].join(op);
        // Rising precedence nests: `a || a && a | a ^ …` is one level per operator.
        let rising = |n| {
            let ops = ["||", "&&", "|", "^", "&", "==", "<", "<<", "+", "*"];
            let mut s = "a".to_string();
            for k in 0..n {
                s = format!("({s} {} a)", ops[k % ops.len()]);
            }
            s
        };
        for deep in [
            parens(30_000),
            "!".repeat(60_000),
            rising(MAX_DEPTH + 1),
            brackets,
        ] {
            let err = parse_assume(&deep).unwrap_err();
            assert!(err.message.contains("nested too deeply"), "{err}");
        }
        check(&parens(MAX_DEPTH), "a");
        // A flat chain is one level, however long (257 conditions were once too deep).
        for op in [" && ", " + ", " - ", " || "] {
            assert!(parse_assume(&chain(257, op)).is_ok());
            assert!(parse_assume(&chain(10_000, op)).is_ok());
        }
        let long = chain(20_000, " && ");
        let err = parse_assume(&long).unwrap_err();
        assert!(err.message.contains("too long"), "{err}");
    }

    #[test]
    fn chains_print_as_nested_operations() {
        check("a - b + c", "(+ (- a b) c)");
        check("a && b && c && d", "(&& (&& (&& a b) c) d)");
        check("a * b + c * d - e", "(- (+ (* a b) (* c d)) e)");
        check("a + b * c + d", "(+ (+ a (* b c)) d)");
        check("a < b < c == d", "(== (< (< a b) c) d)");
    }

    #[test]
    fn every_operator_round_trips_through_display() {
        for op in BinaryOp::ALL {
            let text = format!("x {} y", op.symbol());
            check(&text, &format!("({} x y)", op.symbol()));
        }
    }

    // Issue 34: messages print preconditions as C, not as s-expressions.
    #[test]
    fn c_syntax_is_what_people_write() {
        for (text, c) in [
            ("lo <= high", "lo <= high"),
            ("s[4] == 0 && n < 10", "(s[4] == 0) && (n < 10)"),
            ("(a + b) * 2 < n", "((a + b) * 2) < n"),
            ("- -x > 0", "-(-x) > 0"),
        ] {
            let e = parse_assume(text).unwrap();
            assert_eq!(e.c_syntax(), c, "{text}: {e}");
            // The C text reads back as the same expression.
            assert_eq!(
                parse_assume(&e.c_syntax()).unwrap().to_string(),
                e.to_string()
            );
        }
    }

    /// Prints an expression as C with every operation in parentheses.
    fn to_c(e: &AssumeExpr) -> String {
        match e {
            AssumeExpr::Num(v) => v.to_string(),
            AssumeExpr::Var(name) => name.clone(),
            AssumeExpr::Index(name, i) => format!("{name}[{}]", to_c(i)),
            AssumeExpr::Unary(op, e) => format!("({op}{})", to_c(e)),
            AssumeExpr::Binary(op, l, r) => format!("({} {op} {})", to_c(l), to_c(r)),
            AssumeExpr::Chain(first, rest) => {
                let mut s = to_c(first);
                for (op, e) in rest {
                    s = format!("({s} {op} {})", to_c(e));
                }
                s
            }
        }
    }

    fn bin((op, l, r): (BinaryOp, AssumeExpr, AssumeExpr)) -> AssumeExpr {
        AssumeExpr::Binary(op, Box::new(l), Box::new(r))
    }

    fn arb_expr() -> impl proptest::strategy::Strategy<Value = AssumeExpr> {
        use proptest::{prelude::*, sample::select};
        let leaf = prop_oneof![
            (0..=i64::MAX as u128).prop_map(|v| {
                let ty = [CType::INT, CType::LONG]
                    .into_iter()
                    .find(|t| t.holds(v))
                    .unwrap_or(CType::LONG);
                AssumeExpr::Num(Literal { value: v, ty })
            }),
            // Every finite non-negative double and float, and the float infinity and NaN.
            (0..0x7FF0_0000_0000_0000u128).prop_map(|value| AssumeExpr::Num(Literal {
                value,
                ty: CType::DOUBLE
            })),
            prop_oneof![0..0x7F80_0000u128, Just(0x7F80_0000), Just(0x7FC0_0000)].prop_map(
                |value| AssumeExpr::Num(Literal {
                    value,
                    ty: CType::FLOAT
                })
            ),
            "[a-z_][a-z0-9_]{0,3}".prop_map(AssumeExpr::Var),
        ];
        leaf.prop_recursive(6, 48, 2, |e| {
            let unary = select(vec![UnaryOp::Not, UnaryOp::Neg, UnaryOp::BitNot]);
            prop_oneof![
                ("[a-z]{1,3}", e.clone()).prop_map(|(n, i)| AssumeExpr::Index(n, Box::new(i))),
                (unary, e.clone()).prop_map(|(op, x)| AssumeExpr::Unary(op, Box::new(x))),
                (select(BinaryOp::ALL.to_vec()), e.clone(), e).prop_map(bin),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn parenthesised_c_parses_back(e in arb_expr()) {
            let text = to_c(&e);
            proptest::prop_assert_eq!(parse_assume(&text), Ok(e), "{}", text);
        }

        #[test]
        fn arbitrary_text_never_panics(text in "[ -~]{0,40}") {
            let _ = parse_assume(&text);
        }
    }
}
