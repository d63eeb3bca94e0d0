//! A text form of expressions, for tests and logs, with a parser.
//!
//! Grammar:
//! - a constant is `VALUE:wWIDTH`, the value in unsigned decimal (`3:w32`, `1:w1`);
//! - a symbolic byte is `NAME[OFFSET]`; a name that is not a plain identifier is quoted
//!   as `|NAME|`, with `\|` and `\\` escaping inside the bars;
//! - every other node is `(OP ARGS...)`: `(add A B)` and the other binary operators,
//!   `(not A)`, `(neg A)`, `(ite C T E)`, `(extract LO WIDTH A)`, `(zext WIDTH A)`,
//!   `(sext WIDTH A)`, `(concat HI LO)`, `(array-const V)`, `(store ARR IDX VAL)` and
//!   `(read ARR IDX)`. The parser also accepts `ne`, `ugt`, `uge`, `sgt` and `sge`.
//! - `;` starts a comment that runs to the end of the line.
//!
//! The parser builds through the simplifying constructors and checks sorts itself, so
//! ill-sorted text is an error rather than a panic. `parse_sexp(to_sexp(e))` is `e` for
//! every expression built by the constructors. Both directions use explicit stacks rather
//! than recursion, so very deep expressions print and parse.

use super::eval::children;
use super::float::is_fp_width;
use super::{
    BinOp, ExprId, ExprPool, FpBinOp, FpCmp, FpUnOp, Node, Sort, UnOp, Width, INDEX_WIDTH,
    MAX_WIDTH,
};
use std::fmt::{self, Write as _};

/// A syntax or sort error in expression text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    /// Byte offset in the text where the problem was found.
    pub position: usize,
}

impl ParseError {
    fn new(message: impl Into<String>, position: usize) -> Self {
        Self {
            message: message.into(),
            position,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.position)
    }
}

impl std::error::Error for ParseError {}

/// The name of a binary operator in the text form.
fn binop_name(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "add",
        BinOp::Sub => "sub",
        BinOp::Mul => "mul",
        BinOp::UDiv => "udiv",
        BinOp::SDiv => "sdiv",
        BinOp::URem => "urem",
        BinOp::SRem => "srem",
        BinOp::And => "and",
        BinOp::Or => "or",
        BinOp::Xor => "xor",
        BinOp::Shl => "shl",
        BinOp::LShr => "lshr",
        BinOp::AShr => "ashr",
        BinOp::Eq => "eq",
        BinOp::Ult => "ult",
        BinOp::Ule => "ule",
        BinOp::Slt => "slt",
        BinOp::Sle => "sle",
    }
}

const BINOPS: [BinOp; 18] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::UDiv,
    BinOp::SDiv,
    BinOp::URem,
    BinOp::SRem,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
    BinOp::Eq,
    BinOp::Ult,
    BinOp::Ule,
    BinOp::Slt,
    BinOp::Sle,
];

/// Whether `name` prints without quotes: an identifier that cannot be read as a number.
fn is_plain_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '.' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-' | '@'))
}

fn write_name(out: &mut String, name: &str) {
    if is_plain_name(name) {
        out.push_str(name);
        return;
    }
    out.push('|');
    for c in name.chars() {
        if c == '|' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('|');
}

/// One step of the printer's work list.
enum Print {
    Expr(ExprId),
    Space,
    Close,
}

impl ExprPool {
    /// The text form of `e` (shared subterms are printed in full).
    pub fn to_sexp(&self, e: ExprId) -> String {
        let inner = self.inner.read().expect("expression pool lock");
        let mut out = String::new();
        let mut work = vec![Print::Expr(e)];
        while let Some(item) = work.pop() {
            let id = match item {
                Print::Expr(id) => id,
                Print::Space => {
                    out.push(' ');
                    continue;
                }
                Print::Close => {
                    out.push(')');
                    continue;
                }
            };
            let node = self.node(id);
            // Writing to a String cannot fail, so the results of `write!` are ignored.
            match node {
                Node::Const { width, value } => {
                    let _ = write!(out, "{value}:w{width}");
                    continue;
                }
                Node::Sym { array, offset } => {
                    match inner.arrays.get(array.0 as usize) {
                        Some(info) => write_name(&mut out, &info.name),
                        None => write_name(&mut out, &format!("?{}", array.0)),
                    }
                    let _ = write!(out, "[{offset}]");
                    continue;
                }
                Node::Unary { op: UnOp::Not, .. } => out.push_str("(not"),
                Node::Unary { op: UnOp::Neg, .. } => out.push_str("(neg"),
                Node::Binary { op, .. } => {
                    out.push('(');
                    out.push_str(binop_name(op));
                }
                Node::Ite { .. } => out.push_str("(ite"),
                Node::Extract { lo, width, .. } => {
                    let _ = write!(out, "(extract {lo} {width}");
                }
                Node::ZExt { width, .. } => {
                    let _ = write!(out, "(zext {width}");
                }
                Node::SExt { width, .. } => {
                    let _ = write!(out, "(sext {width}");
                }
                Node::Concat { .. } => out.push_str("(concat"),
                Node::ArrayConst { value } => {
                    let _ = write!(out, "(array-const {value}");
                }
                Node::ArrayStore { .. } => out.push_str("(store"),
                Node::ArrayRead { .. } => out.push_str("(read"),
                Node::FpBinary { op, .. } => {
                    out.push('(');
                    out.push_str(Op::FpBinary(op).name());
                }
                Node::FpUnary { op, .. } => {
                    out.push('(');
                    out.push_str(Op::FpUnary(op).name());
                }
                Node::FpFma { .. } => out.push_str("(ffma"),
                Node::FpCmp { op, .. } => {
                    out.push('(');
                    out.push_str(Op::FpCmp(op).name());
                }
                Node::FpConvert { width, .. } => {
                    let _ = write!(out, "(fconvert {width}");
                }
                Node::FpToSInt { width, .. } => {
                    let _ = write!(out, "(fptosi {width}");
                }
                Node::IntToFp { width, signed, .. } => {
                    let _ = write!(out, "({} {width}", Op::IntToFp(signed).name());
                }
            }
            work.push(Print::Close);
            for child in children(node).rev() {
                work.push(Print::Expr(child));
                work.push(Print::Space);
            }
        }
        out
    }

    /// Parses the text form of one expression, building it through the simplifying
    /// constructors. Arrays are found by name; an unknown name registers a new array of
    /// size `u32::MAX`.
    pub fn parse_sexp(&self, text: &str) -> Result<ExprId, ParseError> {
        let mut lexer = Lexer { text, pos: 0 };
        let mut frames: Vec<Frame> = Vec::new();
        let result = loop {
            let Some((token, pos)) = lexer.next_token()? else {
                return Err(match frames.last() {
                    Some(frame) => ParseError::new("unclosed '('", frame.pos),
                    None => ParseError::new("expected an expression", text.len()),
                });
            };
            let arg = match token {
                Token::Open => {
                    let op = match lexer.next_token()? {
                        Some((Token::Atom(name), at)) => Op::from_name(name).ok_or_else(|| {
                            ParseError::new(format!("unknown operator `{name}`"), at)
                        })?,
                        _ => return Err(ParseError::new("expected an operator after '('", pos)),
                    };
                    frames.push(Frame {
                        op,
                        pos,
                        args: Vec::new(),
                    });
                    continue;
                }
                Token::Close => {
                    let frame = frames
                        .pop()
                        .ok_or_else(|| ParseError::new("unexpected ')'", pos))?;
                    let open = frame.pos;
                    Arg::Expr(self.build_frame(frame)?, open)
                }
                Token::Atom(atom) => self.parse_atom(atom, pos)?,
            };
            match frames.last_mut() {
                Some(frame) => frame.args.push(arg),
                None => break self.expect_expr(arg)?,
            }
        };
        if let Some((_, pos)) = lexer.next_token()? {
            return Err(ParseError::new("unexpected text after the expression", pos));
        }
        Ok(result)
    }

    /// A constant, a symbolic byte or a plain number.
    fn parse_atom(&self, atom: &str, pos: usize) -> Result<Arg, ParseError> {
        if let Some(open) = symbolic_name_end(atom) {
            let (name, index) = (&atom[..open], &atom[open..]);
            let name = unquote(name).ok_or_else(|| ParseError::new("bad array name", pos))?;
            let offset = index
                .strip_prefix('[')
                .and_then(|rest| rest.strip_suffix(']'))
                .and_then(parse_number)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| ParseError::new(format!("bad byte offset in `{atom}`"), pos))?;
            let array = self
                .array_by_name(&name)
                .unwrap_or_else(|| self.new_array(&name, u32::MAX));
            return Ok(Arg::Expr(self.sym(array, offset), pos));
        }
        if let Some((value, width)) = atom.split_once(":w") {
            let value = parse_number(value)
                .ok_or_else(|| ParseError::new(format!("bad constant `{atom}`"), pos))?;
            let width = parse_number(width)
                .and_then(|w| Width::try_from(w).ok())
                .filter(|w| (1..=MAX_WIDTH).contains(w))
                .ok_or_else(|| ParseError::new(format!("bad width in `{atom}`"), pos))?;
            if super::mask(width, value) != value {
                return Err(ParseError::new(
                    format!("`{atom}` does not fit in {width} bits"),
                    pos,
                ));
            }
            return Ok(Arg::Expr(self.constant(width, value), pos));
        }
        parse_number(atom)
            .map(|n| Arg::Num(n, pos))
            .ok_or_else(|| ParseError::new(format!("unexpected `{atom}`"), pos))
    }

    fn expect_expr(&self, arg: Arg) -> Result<ExprId, ParseError> {
        match arg {
            Arg::Expr(e, _) => Ok(e),
            Arg::Num(_, pos) => Err(ParseError::new(
                "expected an expression, found a number without a width",
                pos,
            )),
        }
    }

    /// A bit-vector operand and its width.
    fn expect_bv(&self, arg: Arg) -> Result<(ExprId, Width), ParseError> {
        let pos = arg.pos();
        let e = self.expect_expr(arg)?;
        match self.sort(e) {
            Sort::Bv(w) => Ok((e, w)),
            Sort::Array => Err(ParseError::new(
                "expected a bit-vector, found an array",
                pos,
            )),
        }
    }

    /// A bit-vector operand of exactly `width` bits.
    fn expect_width(&self, arg: Arg, width: Width) -> Result<ExprId, ParseError> {
        let pos = arg.pos();
        let (e, w) = self.expect_bv(arg)?;
        if w == width {
            Ok(e)
        } else {
            Err(ParseError::new(
                format!("expected {width} bits, found {w}"),
                pos,
            ))
        }
    }

    fn expect_array(&self, arg: Arg) -> Result<ExprId, ParseError> {
        let pos = arg.pos();
        let e = self.expect_expr(arg)?;
        match self.sort(e) {
            Sort::Array => Ok(e),
            Sort::Bv(_) => Err(ParseError::new(
                "expected an array, found a bit-vector",
                pos,
            )),
        }
    }

    /// Checks the operands of a finished `(OP ...)` form and builds it.
    fn build_frame(&self, frame: Frame) -> Result<ExprId, ParseError> {
        let Frame { op, pos, args } = frame;
        if args.len() != op.arity() {
            return Err(ParseError::new(
                format!(
                    "`{}` takes {} operands, found {}",
                    op.name(),
                    op.arity(),
                    args.len()
                ),
                pos,
            ));
        }
        let mut args = args.into_iter();
        let mut next = || args.next().expect("arity checked above");
        Ok(match op {
            Op::Unary(op) => self.unary(op, self.expect_bv(next())?.0),
            Op::Binary(op) => {
                let (a, w) = self.expect_bv(next())?;
                let b = self.expect_width(next(), w)?;
                self.binary(op, a, b)
            }
            Op::Derived(_, build) => {
                let (a, w) = self.expect_bv(next())?;
                let b = self.expect_width(next(), w)?;
                build(self, a, b)
            }
            Op::Ite => {
                let cond = self.expect_width(next(), 1)?;
                let then_arg = next();
                let then_pos = then_arg.pos();
                let then = self.expect_expr(then_arg)?;
                let els = self.expect_expr(next())?;
                if self.sort(then) != self.sort(els) {
                    return Err(ParseError::new("`ite` arms of different sorts", then_pos));
                }
                self.ite(cond, then, els)
            }
            Op::Extract => {
                let lo = expect_small(next(), MAX_WIDTH - 1)?;
                let width_arg = next();
                let width_pos = width_arg.pos();
                let width = expect_small(width_arg, MAX_WIDTH)?;
                let (a, w) = self.expect_bv(next())?;
                if width == 0 || lo + width > w {
                    return Err(ParseError::new(
                        format!("cannot extract {width} bits at {lo} from {w} bits"),
                        width_pos,
                    ));
                }
                self.extract(a, lo, width)
            }
            Op::ZExt | Op::SExt => {
                let width_arg = next();
                let width_pos = width_arg.pos();
                let width = expect_small(width_arg, MAX_WIDTH)?;
                let (a, w) = self.expect_bv(next())?;
                if width < w {
                    return Err(ParseError::new(
                        format!("cannot extend {w} bits to {width}"),
                        width_pos,
                    ));
                }
                if matches!(op, Op::ZExt) {
                    self.zext(a, width)
                } else {
                    self.sext(a, width)
                }
            }
            Op::Concat => {
                let (hi, hw) = self.expect_bv(next())?;
                let lo_arg = next();
                let lo_pos = lo_arg.pos();
                let (lo, lw) = self.expect_bv(lo_arg)?;
                if hw + lw > MAX_WIDTH {
                    return Err(ParseError::new(
                        format!("concatenation of {} bits is too wide", hw + lw),
                        lo_pos,
                    ));
                }
                self.concat(hi, lo)
            }
            Op::ArrayConst => {
                let value = match next() {
                    Arg::Num(n, pos) => u8::try_from(n)
                        .map_err(|_| ParseError::new("array element does not fit a byte", pos))?,
                    arg => {
                        let pos = arg.pos();
                        let e = self.expect_width(arg, 8)?;
                        self.as_const(e)
                            .and_then(|v| u8::try_from(v).ok())
                            .ok_or_else(|| ParseError::new("expected a constant byte", pos))?
                    }
                };
                self.array_const(value)
            }
            Op::Store => {
                let array = self.expect_array(next())?;
                let index = self.expect_width(next(), INDEX_WIDTH)?;
                let value = self.expect_width(next(), 8)?;
                self.array_store(array, index, value)
            }
            Op::Read => {
                let array = self.expect_array(next())?;
                let index = self.expect_width(next(), INDEX_WIDTH)?;
                self.array_read(array, index)
            }
            Op::FpBinary(op) => {
                let a = self.expect_float(next())?;
                let b = self.expect_width(next(), self.width(a))?;
                self.fp_binary_raw(op, a, b)
            }
            Op::FpUnary(op) => self.fp_unary_raw(op, self.expect_float(next())?),
            Op::FpFma => {
                let a = self.expect_float(next())?;
                let b = self.expect_width(next(), self.width(a))?;
                let c = self.expect_width(next(), self.width(a))?;
                self.fp_fma_raw(a, b, c)
            }
            Op::FpCmp(op) => {
                let a = self.expect_float(next())?;
                let b = self.expect_width(next(), self.width(a))?;
                self.fp_cmp(op, a, b)
            }
            Op::FpConvert | Op::FpToSInt | Op::IntToFp(_) => {
                let width_arg = next();
                let width_pos = width_arg.pos();
                let width = expect_small(width_arg, MAX_WIDTH)?;
                let bad = |what: &str| ParseError::new(format!("{what}: {width} bits"), width_pos);
                match op {
                    Op::FpConvert => {
                        let a = self.expect_float(next())?;
                        if !is_fp_width(width) {
                            return Err(bad("not a floating-point format"));
                        }
                        self.fp_convert_raw(a, width)
                    }
                    Op::FpToSInt => {
                        let a = self.expect_float(next())?;
                        if width == 0 {
                            return Err(bad("no integer"));
                        }
                        self.fp_to_sint_raw(a, width)
                    }
                    _ => {
                        let (a, _) = self.expect_bv(next())?;
                        if !is_fp_width(width) {
                            return Err(bad("not a floating-point format"));
                        }
                        self.int_to_fp(a, width, matches!(op, Op::IntToFp(true)))
                    }
                }
            }
        })
    }

    /// A bit-vector operand of a floating-point width (32 or 64).
    fn expect_float(&self, arg: Arg) -> Result<ExprId, ParseError> {
        let pos = arg.pos();
        let (e, w) = self.expect_bv(arg)?;
        if is_fp_width(w) {
            Ok(e)
        } else {
            Err(ParseError::new(
                format!("expected a float (32 or 64 bits), found {w} bits"),
                pos,
            ))
        }
    }
}

/// A builder of one of the derived comparisons (`ne`, `ugt`, ...).
type Derived = fn(&ExprPool, ExprId, ExprId) -> ExprId;

/// The operator of a `(OP ...)` form.
#[derive(Copy, Clone)]
enum Op {
    Unary(UnOp),
    Binary(BinOp),
    Derived(&'static str, Derived),
    Ite,
    Extract,
    ZExt,
    SExt,
    Concat,
    ArrayConst,
    Store,
    Read,
    FpBinary(FpBinOp),
    FpUnary(FpUnOp),
    FpFma,
    FpCmp(FpCmp),
    FpConvert,
    FpToSInt,
    /// `true` for a signed integer.
    IntToFp(bool),
}

/// The floating-point operators, for the name lookup.
const FP_OPS: [Op; 17] = [
    Op::FpBinary(FpBinOp::Add),
    Op::FpBinary(FpBinOp::Sub),
    Op::FpBinary(FpBinOp::Mul),
    Op::FpBinary(FpBinOp::Div),
    Op::FpBinary(FpBinOp::Rem),
    Op::FpUnary(FpUnOp::Sqrt),
    Op::FpUnary(FpUnOp::RoundEven),
    Op::FpUnary(FpUnOp::Floor),
    Op::FpUnary(FpUnOp::Ceil),
    Op::FpUnary(FpUnOp::Trunc),
    Op::FpUnary(FpUnOp::Round),
    Op::FpFma,
    Op::FpCmp(FpCmp::Eq),
    Op::FpCmp(FpCmp::Lt),
    Op::FpCmp(FpCmp::Le),
    Op::FpConvert,
    Op::FpToSInt,
];

impl Op {
    fn from_name(name: &str) -> Option<Op> {
        if let Some(&op) = BINOPS.iter().find(|&&op| binop_name(op) == name) {
            return Some(Op::Binary(op));
        }
        if let Some(&op) = FP_OPS.iter().find(|op| op.name() == name) {
            return Some(op);
        }
        Some(match name {
            "not" => Op::Unary(UnOp::Not),
            "neg" => Op::Unary(UnOp::Neg),
            "ne" => Op::Derived("ne", ExprPool::ne),
            "ugt" => Op::Derived("ugt", ExprPool::ugt),
            "uge" => Op::Derived("uge", ExprPool::uge),
            "sgt" => Op::Derived("sgt", ExprPool::sgt),
            "sge" => Op::Derived("sge", ExprPool::sge),
            "ite" => Op::Ite,
            "extract" => Op::Extract,
            "zext" => Op::ZExt,
            "sext" => Op::SExt,
            "concat" => Op::Concat,
            "array-const" => Op::ArrayConst,
            "store" => Op::Store,
            "read" => Op::Read,
            "sitofp" => Op::IntToFp(true),
            "uitofp" => Op::IntToFp(false),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Op::Unary(UnOp::Not) => "not",
            Op::Unary(UnOp::Neg) => "neg",
            Op::Binary(op) => binop_name(op),
            Op::Derived(name, _) => name,
            Op::Ite => "ite",
            Op::Extract => "extract",
            Op::ZExt => "zext",
            Op::SExt => "sext",
            Op::Concat => "concat",
            Op::ArrayConst => "array-const",
            Op::Store => "store",
            Op::Read => "read",
            Op::FpBinary(FpBinOp::Add) => "fadd",
            Op::FpBinary(FpBinOp::Sub) => "fsub",
            Op::FpBinary(FpBinOp::Mul) => "fmul",
            Op::FpBinary(FpBinOp::Div) => "fdiv",
            Op::FpBinary(FpBinOp::Rem) => "frem",
            Op::FpUnary(FpUnOp::Sqrt) => "fsqrt",
            Op::FpUnary(FpUnOp::RoundEven) => "frint",
            Op::FpUnary(FpUnOp::Floor) => "ffloor",
            Op::FpUnary(FpUnOp::Ceil) => "fceil",
            Op::FpUnary(FpUnOp::Trunc) => "ftrunc",
            Op::FpUnary(FpUnOp::Round) => "fround",
            Op::FpFma => "ffma",
            Op::FpCmp(FpCmp::Eq) => "feq",
            Op::FpCmp(FpCmp::Lt) => "flt",
            Op::FpCmp(FpCmp::Le) => "fle",
            Op::FpConvert => "fconvert",
            Op::FpToSInt => "fptosi",
            Op::IntToFp(true) => "sitofp",
            Op::IntToFp(false) => "uitofp",
        }
    }

    fn arity(self) -> usize {
        match self {
            Op::Unary(_) | Op::ArrayConst | Op::FpUnary(_) => 1,
            Op::Binary(_)
            | Op::Derived(..)
            | Op::ZExt
            | Op::SExt
            | Op::Concat
            | Op::Read
            | Op::FpBinary(_)
            | Op::FpCmp(_)
            | Op::FpConvert
            | Op::FpToSInt
            | Op::IntToFp(_) => 2,
            Op::Ite | Op::Extract | Op::Store | Op::FpFma => 3,
        }
    }
}

/// An operand of a form being parsed, with its position.
enum Arg {
    Expr(ExprId, usize),
    /// A number without a width: the parameter of `extract`, `zext`, `sext`, `array-const`.
    Num(u128, usize),
}

impl Arg {
    fn pos(&self) -> usize {
        match *self {
            Arg::Expr(_, pos) | Arg::Num(_, pos) => pos,
        }
    }
}

/// A `(OP ...)` form whose `)` has not been read yet.
struct Frame {
    op: Op,
    /// Position of the `(`.
    pos: usize,
    args: Vec<Arg>,
}

/// A number parameter of at most `max`.
fn expect_small(arg: Arg, max: u32) -> Result<u32, ParseError> {
    match arg {
        Arg::Num(n, pos) => u32::try_from(n)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| ParseError::new(format!("{n} is out of range (at most {max})"), pos)),
        Arg::Expr(_, pos) => Err(ParseError::new("expected a number without a width", pos)),
    }
}

/// A decimal number, or a hexadecimal one with a `0x` prefix.
fn parse_number(text: &str) -> Option<u128> {
    let (digits, radix) = match text.strip_prefix("0x") {
        Some(hex) => (hex, 16),
        None => (text, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u128::from_str_radix(digits, radix).ok()
}

/// Where the `[` of a symbolic byte `NAME[OFFSET]` is, if `atom` is one.
fn symbolic_name_end(atom: &str) -> Option<usize> {
    if atom.starts_with('|') {
        let mut escaped = false;
        for (i, c) in atom.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '|' => return Some(i + 1),
                _ => {}
            }
        }
        // An unterminated quote: let the name check report it.
        return Some(atom.len());
    }
    atom.find('[')
}

/// The name in `text`, with its quotes and escapes removed.
fn unquote(text: &str) -> Option<String> {
    let Some(quoted) = text.strip_prefix('|') else {
        return (!text.is_empty()).then(|| text.to_string());
    };
    let quoted = quoted.strip_suffix('|')?;
    let mut name = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next()?),
            '|' => return None,
            c => name.push(c),
        }
    }
    Some(name)
}

enum Token<'a> {
    Open,
    Close,
    Atom(&'a str),
}

/// Splits text into parentheses and atoms, skipping whitespace and comments.
struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn next_token(&mut self) -> Result<Option<(Token<'a>, usize)>, ParseError> {
        let bytes = self.text.as_bytes();
        loop {
            match bytes.get(self.pos) {
                Some(b) if b.is_ascii_whitespace() => self.pos += 1,
                Some(b';') => {
                    while bytes.get(self.pos).is_some_and(|&b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let start = self.pos;
        let token = match bytes.get(start) {
            None => return Ok(None),
            Some(b'(') => {
                self.pos += 1;
                Token::Open
            }
            Some(b')') => {
                self.pos += 1;
                Token::Close
            }
            Some(_) => {
                let mut quoted = false;
                let mut escaped = false;
                while let Some(&b) = bytes.get(self.pos) {
                    if quoted {
                        match b {
                            _ if escaped => escaped = false,
                            b'\\' => escaped = true,
                            b'|' => quoted = false,
                            _ => {}
                        }
                    } else if b == b'|' {
                        quoted = true;
                    } else if b.is_ascii_whitespace() || matches!(b, b'(' | b')' | b';') {
                        break;
                    }
                    self.pos += 1;
                }
                if quoted {
                    return Err(ParseError::new("unterminated '|'", start));
                }
                Token::Atom(&self.text[start..self.pos])
            }
        };
        Ok(Some((token, start)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `input` in a fresh pool (arrays `x` and `y` registered first) and checks that
    /// it prints as `expected`.
    fn check(input: &str, expected: &str) {
        let pool = ExprPool::new();
        pool.new_array("x", 16);
        pool.new_array("y", 16);
        let e = pool
            .parse_sexp(input)
            .unwrap_or_else(|err| panic!("{input}: {err}"));
        assert_eq!(pool.to_sexp(e), expected, "{input}");
        assert_eq!(pool.parse_sexp(expected), Ok(e), "{expected} reparses");
    }

    /// Checks that `input` fails to parse with a message containing `message` at `position`.
    fn check_error(input: &str, message: &str, position: usize) {
        let pool = ExprPool::new();
        pool.new_array("x", 16);
        let err = pool
            .parse_sexp(input)
            .expect_err(&format!("{input} should not parse"));
        assert!(
            err.message.contains(message),
            "{input}: `{err}` does not mention `{message}`"
        );
        assert_eq!(err.position, position, "{input}: {err}");
    }

    #[test]
    fn prints_every_form() {
        check("5:w32", "5:w32");
        check("1:w1", "1:w1");
        check("0xff:w8", "255:w8");
        check(
            "340282366920938463463374607431768211455:w128",
            "340282366920938463463374607431768211455:w128",
        );
        check("x[3]", "x[3]");
        check("  ( add  x[0]\n\t x[1] ) ; comment", "(add x[0] x[1])");
        check("(udiv x[0] x[1])", "(udiv x[0] x[1])");
        check("(sdiv x[0] x[1])", "(sdiv x[0] x[1])");
        check("(urem x[0] x[1])", "(urem x[0] x[1])");
        check("(srem x[0] x[1])", "(srem x[0] x[1])");
        check("(shl x[0] x[1])", "(shl x[0] x[1])");
        check("(lshr x[0] x[1])", "(lshr x[0] x[1])");
        check("(ashr x[0] x[1])", "(ashr x[0] x[1])");
        check("(sub x[0] x[1])", "(sub x[0] x[1])");
        check("(ule x[0] x[1])", "(ule x[0] x[1])");
        check("(sle x[0] x[1])", "(sle x[0] x[1])");
        check("(neg x[0])", "(neg x[0])");
        check(
            "(ite (slt x[0] x[1]) x[2] x[3])",
            "(ite (slt x[0] x[1]) x[2] x[3])",
        );
        check("(extract 2 3 x[0])", "(extract 2 3 x[0])");
        check("(zext 32 x[0])", "(zext 32 x[0])");
        check("(sext 9 x[0])", "(sext 9 x[0])");
        check("(concat x[1] x[0])", "(concat x[1] x[0])");
        check("(array-const 7)", "(array-const 7)");
        check("(array-const 7:w8)", "(array-const 7)");
        check(
            "(read (store (array-const 0) (zext 32 x[0]) x[1]) (zext 32 y[0]))",
            "(read (store (array-const 0) (zext 32 x[0]) x[1]) (zext 32 y[0]))",
        );
    }

    #[test]
    fn derived_comparisons() {
        check("(ne x[0] x[1])", "(not (eq x[0] x[1]))");
        check("(ugt x[0] x[1])", "(ult x[1] x[0])");
        check("(uge x[0] x[1])", "(ule x[1] x[0])");
        check("(sgt x[0] x[1])", "(slt x[1] x[0])");
        check("(sge x[0] x[1])", "(sle x[1] x[0])");
    }

    #[test]
    fn builds_through_the_simplifier() {
        check("(add 0:w32 (zext 32 x[0]))", "(zext 32 x[0])");
        check("(add 1:w8 (add 2:w8 x[0]))", "(add 3:w8 x[0])");
    }

    #[test]
    fn names() {
        check("new[2]", "new[2]");
        check("|two words|[0]", "|two words|[0]");
        check("|1st|[0]", "|1st|[0]");
        check(r"|a\|b\\c|[1]", r"|a\|b\\c|[1]");
        check("(add |(x)|[0] arg.1_$-@[4])", "(add |(x)|[0] arg.1_$-@[4])");

        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let x1 = pool.new_array("x", 4);
        assert_eq!(pool.to_sexp(pool.sym(x1, 0)), "x_1[0]");
        assert_eq!(pool.parse_sexp("x_1[0] "), Ok(pool.sym(x1, 0)));
        assert_eq!(pool.parse_sexp("x[2]"), Ok(pool.sym(x, 2)));
        let fresh = pool.parse_sexp("z[0]").expect("parses");
        let z = pool.array_by_name("z").expect("registered");
        assert_eq!(
            pool.node(fresh),
            Node::Sym {
                array: z,
                offset: 0
            }
        );
        assert_eq!(pool.array_info(z).size, u32::MAX);
    }

    #[test]
    fn syntax_errors() {
        check_error("", "expected an expression", 0);
        check_error("   ", "expected an expression", 3);
        check_error("(add x[0] x[1]", "unclosed", 0);
        check_error("(add x[0] x[1]))", "unexpected text", 15);
        check_error("x[0] x[1]", "unexpected text", 5);
        check_error(")", "unexpected ')'", 0);
        check_error("()", "expected an operator", 0);
        check_error("(frob x[0])", "unknown operator `frob`", 1);
        check_error("(add x[0] frob)", "unexpected `frob`", 10);
        check_error("3", "without a width", 0);
        check_error("3:w0", "bad width", 0);
        check_error("3:w129", "bad width", 0);
        check_error("3:wx", "bad width", 0);
        check_error("-3:w8", "bad constant", 0);
        check_error("256:w8", "does not fit", 0);
        check_error("x[-1]", "bad byte offset", 0);
        check_error("x[4294967296]", "bad byte offset", 0);
        check_error("x[1", "bad byte offset", 0);
        check_error("|x[1]", "unterminated", 0);
        check_error("[1]", "bad array name", 0);
    }

    #[test]
    fn sort_errors() {
        check_error("(add x[0] 1:w16)", "expected 8 bits, found 16", 10);
        check_error("(add x[0])", "takes 2 operands, found 1", 0);
        check_error("(not x[0] x[1])", "takes 1 operands, found 2", 0);
        check_error("(ite x[0] x[1] x[2])", "expected 1 bits", 5);
        check_error("(ite 1:w1 x[1] 1:w16)", "different sorts", 10);
        check_error("(extract 4 8 x[0])", "cannot extract", 11);
        check_error("(extract 0 0 x[0])", "cannot extract", 11);
        check_error("(extract 200 1 x[0])", "out of range", 9);
        check_error("(extract x[0] 1 x[0])", "expected a number", 9);
        check_error("(zext 4 x[0])", "cannot extend", 6);
        check_error("(sext 129 x[0])", "out of range", 6);
        check_error("(zext 16 4)", "without a width", 9);
        check_error("(concat (zext 128 x[0]) x[1])", "too wide", 24);
        check_error("(array-const 256)", "does not fit a byte", 13);
        check_error("(array-const x[0])", "constant byte", 13);
        check_error("(store (array-const 0) 1:w32 1:w16)", "expected 8 bits", 29);
        check_error("(store x[0] 1:w32 1:w8)", "expected an array", 7);
        check_error("(read (array-const 0) 1:w8)", "expected 32 bits", 22);
        check_error("(add (array-const 0) x[0])", "found an array", 5);
    }

    #[test]
    fn error_display() {
        let err = ParseError::new("oops", 4);
        assert_eq!(err.to_string(), "oops at byte 4");
        let boxed: Box<dyn std::error::Error> = Box::new(err);
        assert_eq!(boxed.to_string(), "oops at byte 4");
    }

    #[test]
    fn deep_expressions_print_and_parse() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let mut e = pool.sym(x, 0);
        for i in 0..10_000u32 {
            let s = pool.sym(x, i % 4);
            e = if i % 2 == 0 {
                pool.mul(e, s)
            } else {
                pool.xor(s, e)
            };
        }
        let text = pool.to_sexp(e);
        assert!(text.starts_with("(xor"));
        assert_eq!(pool.parse_sexp(&text), Ok(e));
    }
}
