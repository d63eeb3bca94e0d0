//! The `--assume` precondition language: small C-like expressions parsed to an [`AssumeExpr`].
//!
//! An assumption such as `n > 0 && s[0] != '\0'` names parameters (by name or as `arg0`),
//! integers (`42`, `0x1f`, or `'a'` with the escapes `\0 \n \t \r \\ \' \"`), buffer
//! elements (`s[i + 1]`), the unary operators `! - ~` and C's binary operators with C's
//! precedence (tightest first) and left associativity:
//!
//! ```text
//! * / %   >   + -   >   << >>   >   < <= > >=   >   == !=   >   &   >   ^   >   |   >   &&   >   ||
//! ```
//!
//! This module only parses; checking the names against the function and giving the
//! expression a meaning happen elsewhere. Every error carries the 1-based column (counted in
//! characters) where the problem starts.

use std::fmt;

/// How deeply expressions may nest, so that parsing, printing and dropping never exhaust
/// the stack.
pub const MAX_DEPTH: usize = 256;

/// A parsed assumption.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AssumeExpr {
    /// An integer literal; character literals give their byte value, 0 to 255.
    Int(i128),
    /// A parameter, by name or position (`arg0`).
    Var(String),
    /// An element of a buffer parameter: `s[4]`.
    Index(String, Box<AssumeExpr>),
    /// A unary operation.
    Unary(UnaryOp, Box<AssumeExpr>),
    /// A binary operation.
    Binary(BinaryOp, Box<AssumeExpr>, Box<AssumeExpr>),
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

/// Prints the expression as an s-expression: `(== (+ a (* b 2)) 3)`, `(index s 4)`.
impl fmt::Display for AssumeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AssumeExpr::Int(v) => write!(f, "{v}"),
            AssumeExpr::Var(name) => f.write_str(name),
            AssumeExpr::Index(name, index) => write!(f, "(index {name} {index})"),
            AssumeExpr::Unary(op, e) => write!(f, "({op} {e})"),
            AssumeExpr::Binary(op, l, r) => write!(f, "({op} {l} {r})"),
        }
    }
}

impl AssumeExpr {
    /// The parameter names the expression refers to, including indexed buffers, each once,
    /// in order of first appearance.
    pub fn vars(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars<'a>(&'a self, out: &mut Vec<&'a str>) {
        let (name, children): (Option<&str>, [Option<&AssumeExpr>; 2]) = match self {
            AssumeExpr::Int(_) => (None, [None, None]),
            AssumeExpr::Var(name) => (Some(name), [None, None]),
            AssumeExpr::Index(name, index) => (Some(name), [Some(index), None]),
            AssumeExpr::Unary(_, e) => (None, [Some(e), None]),
            AssumeExpr::Binary(_, l, r) => (None, [Some(l), Some(r)]),
        };
        if let Some(name) = name.filter(|n| !out.contains(n)) {
            out.push(name);
        }
        children
            .into_iter()
            .flatten()
            .for_each(|c| c.collect_vars(out));
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
    Int(i128),
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
            Tok::Int(v) => format!("number {v}"),
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

const TOO_LARGE: &str = "integer literal too large (the largest is 2^127 - 1)";

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
        } else if c.is_ascii_digit() {
            let (value, end) = lex_number(&chars, i)?;
            i = end;
            Tok::Int(value)
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c == '\'' {
            let (value, end) = lex_char(&chars, i)?;
            i = end;
            Tok::Int(value)
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

/// Lexes a decimal or hexadecimal literal starting at `start`; returns its value and end.
fn lex_number(chars: &[char], start: usize) -> Result<(i128, usize), AssumeError> {
    let column = start + 1;
    let hex = chars[start] == '0' && matches!(chars.get(start + 1), Some('x' | 'X'));
    let radix = if hex { 16 } else { 10 };
    let digits_start = if hex { start + 2 } else { start };
    let mut i = digits_start;
    let mut value: Option<i128> = Some(0);
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(radix)) {
        value = value
            .and_then(|v| v.checked_mul(i128::from(radix)))
            .and_then(|v| v.checked_add(i128::from(d)));
        i += 1;
    }
    if hex && i == digits_start {
        return error(column, "expected hexadecimal digits after '0x'");
    }
    if let Some(&c) = chars.get(i) {
        if c.is_ascii_alphanumeric() || c == '_' {
            let kind = if hex { "hexadecimal" } else { "decimal" };
            return error(i + 1, format!("invalid character {c:?} in {kind} literal"));
        }
    }
    if !hex && chars[start] == '0' && i > start + 1 {
        return error(
            column,
            "leading zeros are not allowed (C would read an octal number); write it in decimal or hex",
        );
    }
    match value {
        Some(v) => Ok((v, i)),
        None => error(column, TOO_LARGE),
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

    /// Parses operators of at least `min_prec`, left-associatively.
    fn expr(&mut self, min_prec: u8) -> Result<Parsed, AssumeError> {
        let (mut lhs, mut depth) = self.unary()?;
        loop {
            let tok = self.peek();
            let Tok::Binary(op) = tok.kind else { break };
            if op.precedence() < min_prec {
                break;
            }
            let column = tok.column;
            self.advance();
            let (rhs, rhs_depth) = self.expr(op.precedence() + 1)?;
            depth = 1 + depth.max(rhs_depth);
            Self::check_depth(depth, column)?;
            lhs = AssumeExpr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok((lhs, depth))
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
            Tok::Int(v) => (AssumeExpr::Int(v), 1),
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
            170141183460469231731687303715884105727 => 170141183460469231731687303715884105727
            0x7fffffffffffffffffffffffffffffff => 170141183460469231731687303715884105727
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
            170141183460469231731687303715884105728 => column 1: integer literal too large (the largest is 2^127 - 1)
            n < 0x80000000000000000000000000000000 => column 5: integer literal too large (the largest is 2^127 - 1)
            0x                      => column 1: expected hexadecimal digits after '0x'
            0x1g                    => column 4: invalid character 'g' in hexadecimal literal
            10u                     => column 3: invalid character 'u' in decimal literal
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
        assert_eq!(err.to_string(), format!("column 1: {TOO_LARGE}"));
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
        let err = parse_assume(&parens(100_000)).unwrap_err();
        assert_eq!(err.column, MAX_DEPTH + 1);
        let brackets = format!("{}0{}", "s[".repeat(10_000), "]".repeat(10_000));
        let chain = |n| vec!["a"; n].join(" + ");
        for deep in [
            parens(100_000),
            "!".repeat(100_000),
            chain(100_000),
            brackets,
        ] {
            let err = parse_assume(&deep).unwrap_err();
            assert!(err.message.contains("nested too deeply"), "{err}");
        }
        check(&parens(MAX_DEPTH), "a");
        assert!(parse_assume(&chain(MAX_DEPTH)).is_ok());
    }

    #[test]
    fn every_operator_round_trips_through_display() {
        for op in BinaryOp::ALL {
            let text = format!("x {} y", op.symbol());
            check(&text, &format!("({} x y)", op.symbol()));
        }
    }

    /// Prints an expression as C with every operation in parentheses.
    fn to_c(e: &AssumeExpr) -> String {
        match e {
            AssumeExpr::Int(v) => v.to_string(),
            AssumeExpr::Var(name) => name.clone(),
            AssumeExpr::Index(name, i) => format!("{name}[{}]", to_c(i)),
            AssumeExpr::Unary(op, e) => format!("({op}{})", to_c(e)),
            AssumeExpr::Binary(op, l, r) => format!("({} {op} {})", to_c(l), to_c(r)),
        }
    }

    fn bin((op, l, r): (BinaryOp, AssumeExpr, AssumeExpr)) -> AssumeExpr {
        AssumeExpr::Binary(op, Box::new(l), Box::new(r))
    }

    fn arb_expr() -> impl proptest::strategy::Strategy<Value = AssumeExpr> {
        use proptest::{prelude::*, sample::select};
        let leaf = prop_oneof![
            (0..=i128::MAX).prop_map(AssumeExpr::Int),
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
