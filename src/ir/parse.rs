//! The IR text form (`text.rs`) read back into a [`Module`], so that lowering snapshots and
//! hand-written IR are data (as cranelift's filetests and KLEE's `.kquery` files are).
//!
//! The text is one or more functions, each `define …{ … }` or `declare …`, blank lines between
//! them. Printing what was parsed gives the same text ([`Parsed::text`]): the grammar is the
//! printer's, line by line. What the text does not say is made up so that it prints alike: a
//! symbol `@name` that no line defines, declares or calls is a global (at an address of its
//! own, large enough for the offsets used), a callee that is not defined is a declaration
//! returning `void`, parameters carry no pointee facts and no C type.
//! [`same_structure`] compares a parsed function with a lowered one: constants by value or by
//! the symbol they address, callees by name, locations by text.

use super::{
    split_name, BinOp, Block, BlockId, Callee, CastKind, ConstId, Constant, FloatOp, FpBinOp,
    FpPred, FpUnOp, FuncId, Function, GepIndex, Global, Inst, Intrinsic, LocId, Module, Operand,
    Param, ParamPass, Phi, Predicate, RangeOf, ReduceOp, RegId, Terminator, VectorOp,
    FUNCTION_BASE, FUNCTION_STRIDE, GLOBAL_BASE, PTR_WIDTH,
};
use std::collections::HashMap;
use std::fmt;

/// Why a text is not IR: the line (from 1) and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A parsed text: the module, and the functions the text defines or declares, in its order
/// (the module also holds declarations made up for callees the text only calls).
#[derive(Debug, Clone)]
pub struct Parsed {
    pub module: Module,
    pub functions: Vec<FuncId>,
}

impl Parsed {
    /// The text of the parsed functions, as `xcheck show --ir` joins them.
    pub fn text(&self) -> String {
        let texts: Vec<String> = self
            .functions
            .iter()
            .map(|&f| self.module.function_text(f).to_string())
            .collect();
        texts.join("\n")
    }
}

/// Parses the IR text of one or more functions.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut p = Parser::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() {
            continue;
        }
        let at = i;
        let err = |message: String| ParseError { line: at, message };
        if let Some(header) = line.strip_prefix("declare ") {
            let f = p.header(header).map_err(err)?;
            p.order.push(f);
            continue;
        }
        let Some(header) = line.strip_prefix("define ") else {
            return Err(err(format!(
                "expected 'define' or 'declare', found '{line}'"
            )));
        };
        let header = header
            .strip_suffix(" {")
            .ok_or_else(|| err("a definition's first line ends in ' {'".into()))?;
        let f = p.header(header).map_err(err)?;
        p.order.push(f);
        let start = i;
        let end = (i..lines.len())
            .find(|&k| lines[k] == "}")
            .ok_or_else(|| err("the definition has no closing '}'".into()))?;
        p.body(f, &lines[start..end], start)?;
        i = end + 1;
    }
    p.finish()
}

/// A constant as the text names it: a value, or an address by symbol and offset.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum ConstKey {
    Value(u32, u128),
    Symbol(String, u64),
}

#[derive(Default)]
struct Parser {
    /// Functions by id; `None` until defined or declared (only called so far).
    functions: Vec<Option<Function>>,
    function_ids: HashMap<String, FuncId>,
    order: Vec<FuncId>,
    constants: Vec<ConstKey>,
    constant_ids: HashMap<ConstKey, ConstId>,
    locs: Vec<String>,
    loc_ids: HashMap<String, LocId>,
}

type Res<T> = Result<T, String>;

impl Parser {
    fn function_id(&mut self, name: &str) -> FuncId {
        if let Some(&id) = self.function_ids.get(name) {
            return id;
        }
        let id = FuncId(self.functions.len() as u32);
        self.functions.push(None);
        self.function_ids.insert(name.to_string(), id);
        id
    }

    fn constant(&mut self, key: ConstKey) -> ConstId {
        if let Some(&id) = self.constant_ids.get(&key) {
            return id;
        }
        let id = ConstId(self.constants.len() as u32);
        self.constants.push(key.clone());
        self.constant_ids.insert(key, id);
        id
    }

    fn loc(&mut self, text: &str) -> LocId {
        if let Some(&id) = self.loc_ids.get(text) {
            return id;
        }
        let id = LocId(self.locs.len() as u32);
        self.locs.push(text.to_string());
        self.loc_ids.insert(text.to_string(), id);
        id
    }

    /// `RET @NAME(PARAMS)`: the function, with no blocks yet.
    fn header(&mut self, text: &str) -> Res<FuncId> {
        let mut c = Cur::new(text);
        let (ret_width, ret_is_pointer, ret_is_float) = if c.eat("void") {
            (None, false, false)
        } else {
            let (w, pointer, float) = c.ty()?;
            (Some(w), pointer, float)
        };
        c.expect(" @")?;
        let name = c.name()?.to_string();
        c.expect("(")?;
        let inner =
            c.s.strip_suffix(')')
                .ok_or("the parameter list ends in ')'")?;
        let mut params = Vec::new();
        let mut is_var_arg = false;
        for (k, part) in inner.split(", ").enumerate() {
            if part.is_empty() && k == 0 {
                continue;
            }
            if part == "..." {
                is_var_arg = true;
                continue;
            }
            params.push(param(part)?);
        }
        let id = self.function_id(&name);
        if self.functions[id.index()].is_some() {
            return Err(format!("@{name} is defined twice"));
        }
        let (side, source) = split_name(&name);
        self.functions[id.index()] = Some(Function {
            source_name: source.to_string(),
            side,
            params,
            ret_width,
            ret_is_pointer,
            ret_is_float,
            ret_float_fields: Vec::new(),
            is_var_arg,
            blocks: Vec::new(),
            num_regs: 0,
            address: FUNCTION_BASE + id.0 as u64 * FUNCTION_STRIDE,
            signature: text.to_string(),
            name,
        });
        Ok(id)
    }

    /// The lines between a definition's header and its `}`; `first` is the index of the
    /// first (from 0).
    fn body(&mut self, f: FuncId, lines: &[&str], first: usize) -> Result<(), ParseError> {
        let mut blocks: Vec<Block> = Vec::new();
        let mut k = 0;
        while k < lines.len() {
            let err = |at: usize, message: String| ParseError {
                line: first + at + 1,
                message,
            };
            let label = format!("bb{}:", blocks.len());
            if lines[k] != label {
                return Err(err(k, format!("expected '{label}', found '{}'", lines[k])));
            }
            let start = k + 1;
            let end = (start..lines.len())
                .find(|&j| !lines[j].starts_with("  "))
                .unwrap_or(lines.len());
            if start == end {
                return Err(err(k, "a block without a terminator".into()));
            }
            let mut block = Block {
                phis: Vec::new(),
                insts: Vec::new(),
                locs: Vec::new(),
                term: Terminator::Unreachable,
                term_loc: LocId(0),
            };
            for (j, full) in lines.iter().enumerate().take(end).skip(start) {
                let line = &full[2..];
                let mut c = Cur::new(line);
                let result = if j + 1 == end {
                    self.terminator(&mut c).and_then(|t| {
                        block.term = t;
                        block.term_loc = self.loc_of(&mut c)?;
                        Ok(())
                    })
                } else if line.contains(" = phi ") && block.insts.is_empty() {
                    self.phi(&mut c).and_then(|phi| {
                        block.phis.push(phi);
                        c.end()
                    })
                } else {
                    self.inst(&mut c).and_then(|inst| {
                        block.insts.push(inst);
                        block.locs.push(self.loc_of(&mut c)?);
                        Ok(())
                    })
                };
                result.map_err(|m| err(j, m))?;
            }
            blocks.push(block);
            k = end;
        }
        if blocks.is_empty() {
            return Err(ParseError {
                line: first,
                message: "a definition without blocks".into(),
            });
        }
        let func = self.functions[f.index()].as_mut().expect("header parsed");
        let mut regs = func.params.iter().map(|p| p.reg.0 + 1).max().unwrap_or(0);
        for b in &blocks {
            for phi in &b.phis {
                regs = regs.max(phi.dst.0 + 1);
            }
            for inst in &b.insts {
                let defined = inst.defined().into_iter();
                let read = inst.operands().into_iter().filter_map(|o| match o {
                    Operand::Reg(r) => Some(r),
                    Operand::Const(_) => None,
                });
                for r in defined.chain(read) {
                    regs = regs.max(r.0 + 1);
                }
            }
        }
        func.num_regs = regs;
        func.blocks = blocks;
        Ok(())
    }

    /// The location after an instruction (`; TEXT`), or the empty one.
    fn loc_of(&mut self, c: &mut Cur) -> Res<LocId> {
        let rest = c.s.trim_start_matches(' ');
        if rest.is_empty() {
            return Ok(self.loc(""));
        }
        let text = rest
            .strip_prefix("; ")
            .ok_or_else(|| format!("unexpected '{rest}' after the instruction"))?;
        Ok(self.loc(text))
    }

    fn operand(&mut self, c: &mut Cur) -> Res<Operand> {
        if c.eat("%") {
            return Ok(Operand::Reg(RegId(c.uint()? as u32)));
        }
        if c.eat("@") {
            let name = c.name()?.to_string();
            let offset = if c.eat("+") { c.uint()? as u64 } else { 0 };
            return Ok(Operand::Const(
                self.constant(ConstKey::Symbol(name, offset)),
            ));
        }
        if c.eat("i") {
            let width = c.uint()? as u32;
            c.expect(" ")?;
            let value = if c.eat("-") {
                let n = c.uint()?;
                if width == 0 || width >= 128 || n == 0 || n > 1u128 << (width - 1) {
                    return Err(format!("-{n} is not an i{width}"));
                }
                (1u128 << width) - n
            } else {
                c.uint()?
            };
            if width == 0 || width > 128 || width < 128 && value >> width != 0 {
                return Err(format!("{value} is not an i{width}"));
            }
            return Ok(Operand::Const(self.constant(ConstKey::Value(width, value))));
        }
        Err(format!("expected an operand at '{}'", c.s))
    }

    /// `a, b, …` up to (not including) `close`.
    fn operand_list(&mut self, c: &mut Cur, close: &str) -> Res<Vec<Operand>> {
        let mut out = Vec::new();
        if c.s.starts_with(close) {
            return Ok(out);
        }
        loop {
            out.push(self.operand(c)?);
            if !c.eat(", ") {
                return Ok(out);
            }
        }
    }

    /// `(a, b, …)`.
    fn args(&mut self, c: &mut Cur) -> Res<Vec<Operand>> {
        c.expect("(")?;
        let out = self.operand_list(c, ")")?;
        c.expect(")")?;
        Ok(out)
    }

    fn phi(&mut self, c: &mut Cur) -> Res<Phi> {
        let dst = c.dst()?.ok_or("a phi defines a register")?;
        c.expect("phi ")?;
        let mut incoming = Vec::new();
        loop {
            c.expect("[")?;
            let b = c.block()?;
            c.expect(": ")?;
            incoming.push((b, self.operand(c)?));
            c.expect("]")?;
            if !c.eat(", ") {
                return Ok(Phi { dst, incoming });
            }
        }
    }

    fn terminator(&mut self, c: &mut Cur) -> Res<Terminator> {
        let word = c.word();
        Ok(match word {
            "br" => {
                c.expect(" ")?;
                if c.s.starts_with("bb") {
                    Terminator::Br(c.block()?)
                } else {
                    let cond = self.operand(c)?;
                    c.expect(", ")?;
                    let then = c.block()?;
                    c.expect(", ")?;
                    Terminator::CondBr {
                        cond,
                        then,
                        els: c.block()?,
                    }
                }
            }
            "switch" => {
                c.expect(" ")?;
                let value = self.operand(c)?;
                c.expect(", default ")?;
                let default = c.block()?;
                c.expect(" [")?;
                let mut cases = Vec::new();
                while !c.eat("]") {
                    if !cases.is_empty() {
                        c.expect(", ")?;
                    }
                    let k = c.uint()?;
                    c.expect(": ")?;
                    cases.push((k, c.block()?));
                }
                Terminator::Switch {
                    value,
                    default,
                    cases,
                }
            }
            "ret" if [" %", " @", " i"].iter().any(|p| c.s.starts_with(p)) => {
                c.expect(" ")?;
                Terminator::Ret(Some(self.operand(c)?))
            }
            "ret" => Terminator::Ret(None),
            "unreachable" => Terminator::Unreachable,
            "unsupported" => {
                c.expect(" ")?;
                Terminator::Unsupported {
                    what: c.debug_str()?,
                }
            }
            _ => return Err(format!("expected a terminator, found '{word}'")),
        })
    }

    fn inst(&mut self, c: &mut Cur) -> Res<Inst> {
        let dst = c.dst()?;
        let word = c.word();
        let need = |d: Option<RegId>| d.ok_or(format!("'{word}' defines a register"));
        if let Some(op) = by_lower(word, ALL_BINOPS) {
            let flags = c.flags();
            c.expect(" ")?;
            let lhs = self.operand(c)?;
            c.expect(", ")?;
            return Ok(Inst::Binary {
                dst: need(dst)?,
                op,
                lhs,
                rhs: self.operand(c)?,
                flags,
            });
        }
        if let Some(kind) = by_lower(word, &[CastKind::ZExt, CastKind::SExt, CastKind::Trunc]) {
            let flags = c.flags();
            c.expect(" ")?;
            let src = self.operand(c)?;
            c.expect(" to i")?;
            return Ok(Inst::Cast {
                dst: need(dst)?,
                kind,
                src,
                width: c.uint()? as u32,
                flags,
            });
        }
        Ok(match word {
            "icmp" => {
                c.expect(" ")?;
                let pred = by_lower(c.word(), ALL_PREDICATES).ok_or("an icmp predicate")?;
                c.expect(" ")?;
                let lhs = self.operand(c)?;
                c.expect(", ")?;
                Inst::ICmp {
                    dst: need(dst)?,
                    pred,
                    lhs,
                    rhs: self.operand(c)?,
                }
            }
            "copy" => {
                c.expect(" ")?;
                Inst::Copy {
                    dst: need(dst)?,
                    src: self.operand(c)?,
                }
            }
            "select" => {
                c.expect(" ")?;
                let ops = self.operand_list(c, ";")?;
                let [cond, then, els] = ops[..] else {
                    return Err("select has three operands".into());
                };
                Inst::Select {
                    dst: need(dst)?,
                    cond,
                    then,
                    els,
                }
            }
            "alloca" => {
                c.expect(" ")?;
                let size = c.uint()? as u64;
                c.expect(" x ")?;
                Inst::Alloca {
                    dst: need(dst)?,
                    size,
                    count: self.operand(c)?,
                }
            }
            "load" => {
                c.expect(" ")?;
                let pointer = c.eat("ptr");
                if !pointer {
                    c.expect("i")?;
                }
                let width = c.uint()? as u32;
                c.expect(" ")?;
                let addr = self.operand(c)?;
                c.expect(" (")?;
                let bytes = c.uint()? as u32;
                c.expect(" bytes)")?;
                Inst::Load {
                    dst: need(dst)?,
                    addr,
                    bytes,
                    width,
                    pointer,
                }
            }
            "store" => {
                c.expect(" ")?;
                let value = self.operand(c)?;
                c.expect(" -> ")?;
                let addr = self.operand(c)?;
                c.expect(" (")?;
                let bytes = c.uint()? as u32;
                c.expect(" bytes)")?;
                Inst::Store { value, addr, bytes }
            }
            "gep" => {
                c.expect(" ")?;
                let base = self.operand(c)?;
                let mut offset = 0;
                let mut indices = Vec::new();
                let mut first = true;
                while c.eat(" + ") {
                    let number = c.s.starts_with(|ch: char| ch == '-' || ch.is_ascii_digit());
                    if std::mem::take(&mut first) && number {
                        offset = c.int()?;
                        continue;
                    }
                    let index = self.operand(c)?;
                    c.expect(" * ")?;
                    let scale = c.uint()? as u64;
                    indices.push(GepIndex { index, scale });
                }
                Inst::Gep {
                    dst: need(dst)?,
                    base,
                    offset,
                    indices,
                }
            }
            "extractvalue" => {
                c.expect(" ")?;
                let agg = self.operand(c)?;
                let (lo, width) = c.bits()?;
                Inst::ExtractValue {
                    dst: need(dst)?,
                    agg,
                    lo,
                    width,
                }
            }
            "insertvalue" => {
                c.expect(" ")?;
                let agg = self.operand(c)?;
                c.expect(", ")?;
                let value = self.operand(c)?;
                let (lo, width) = c.bits()?;
                Inst::InsertValue {
                    dst: need(dst)?,
                    agg,
                    value,
                    lo,
                    width,
                }
            }
            "call" => {
                c.expect(" ")?;
                let callee = if c.eat("*") {
                    Callee::Indirect(self.operand(c)?)
                } else {
                    c.expect("@")?;
                    let name = c.name()?.to_string();
                    Callee::Direct(self.function_id(&name))
                };
                Inst::Call {
                    dst,
                    callee,
                    args: self.args(c)?,
                }
            }
            "intrinsic" => {
                c.expect(" ")?;
                let kind = intrinsic(&c.debug()?)?;
                c.expect(" i")?;
                let width = c.uint()? as u32;
                c.expect(" ")?;
                Inst::Intrinsic {
                    dst,
                    kind,
                    args: self.args(c)?,
                    width,
                }
            }
            "vector" => {
                c.expect(" ")?;
                let op = vector_op(&c.debug()?)?;
                c.expect(" ")?;
                let (lanes, elem) = c.vector_type()?;
                c.expect(" ")?;
                Inst::Vector {
                    dst: need(dst)?,
                    op,
                    args: self.args(c)?,
                    lanes,
                    elem,
                }
            }
            "extractelement" | "insertelement" | "shuffle" => {
                c.expect(" ")?;
                let (lanes, elem) = c.vector_type()?;
                c.expect(" ")?;
                let dst = need(dst)?;
                if word == "shuffle" {
                    let a = self.operand(c)?;
                    c.expect(", ")?;
                    let b = self.operand(c)?;
                    c.expect(", [")?;
                    let mut mask = Vec::new();
                    while !c.eat("]") {
                        if !mask.is_empty() {
                            c.expect(", ")?;
                        }
                        mask.push(if c.eat("undef") {
                            None
                        } else {
                            Some(c.uint()? as u32)
                        });
                    }
                    return Ok(Inst::Shuffle {
                        dst,
                        a,
                        b,
                        mask,
                        elem,
                        lanes,
                    });
                }
                let ops = self.operand_list(c, ";")?;
                match (word, &ops[..]) {
                    ("extractelement", &[vector, index]) => Inst::ExtractElement {
                        dst,
                        vector,
                        index,
                        elem,
                        lanes,
                    },
                    ("insertelement", &[vector, value, index]) => Inst::InsertElement {
                        dst,
                        vector,
                        value,
                        index,
                        elem,
                        lanes,
                    },
                    _ => return Err(format!("{word} has the wrong number of operands")),
                }
            }
            "reduce" => {
                c.expect(" ")?;
                let op = reduce_op(&c.debug()?)?;
                c.expect(" ")?;
                let (lanes, elem) = c.vector_type()?;
                c.expect(" ")?;
                let vector = self.operand(c)?;
                let start = if c.eat(" from ") {
                    Some(self.operand(c)?)
                } else {
                    None
                };
                Inst::Reduce {
                    dst: need(dst)?,
                    op,
                    vector,
                    start,
                    elem,
                    lanes,
                }
            }
            "float" => {
                c.expect(" ")?;
                let op = float_op(&c.debug()?)?;
                let flags = c.flags();
                c.expect(" i")?;
                let width = c.uint()? as u32;
                c.expect(" ")?;
                Inst::Float {
                    dst: need(dst)?,
                    op,
                    args: self.args(c)?,
                    width,
                    flags,
                }
            }
            "poison" | "undef" => {
                let frozen = c.eat(" frozen");
                c.expect(" i")?;
                Inst::Poison {
                    dst: need(dst)?,
                    width: c.uint()? as u32,
                    poison: word == "poison",
                    frozen,
                }
            }
            "inrange" if dst.is_none() => {
                c.expect(" %")?;
                let reg = RegId(c.uint()? as u32);
                let mut ranges = Vec::new();
                while c.eat(" [") {
                    let lo = c.uint()?;
                    c.expect(", ")?;
                    let hi = c.uint()?;
                    c.expect(")")?;
                    ranges.push((lo, hi));
                }
                c.expect(" (")?;
                let of = if c.eat("load)") {
                    RangeOf::Load
                } else if c.eat("return value)") {
                    RangeOf::Return
                } else {
                    return Err("inrange of 'load' or 'return value'".into());
                };
                Inst::InRange { reg, ranges, of }
            }
            "unsupported" if dst.is_none() => {
                c.expect(" ")?;
                Inst::Unsupported {
                    what: c.debug_str()?,
                }
            }
            _ => return Err(format!("unknown instruction '{word}'")),
        })
    }

    /// The module: constants resolved now that every symbol is known.
    fn finish(self) -> Result<Parsed, ParseError> {
        let mut globals: Vec<Global> = Vec::new();
        let mut global_ids: HashMap<&str, usize> = HashMap::new();
        for key in &self.constants {
            if let ConstKey::Symbol(name, offset) = key {
                if self.function_ids.contains_key(name) {
                    continue;
                }
                let k = *global_ids.entry(name).or_insert_with(|| {
                    let (side, source) = split_name(name);
                    globals.push(Global {
                        name: name.clone(),
                        source_name: source.to_string(),
                        side,
                        address: GLOBAL_BASE + ((globals.len() as u64) << 32),
                        size: 1,
                        init: Vec::new(),
                        is_constant: false,
                        is_external: true,
                        holds_pointers: false,
                    });
                    globals.len() - 1
                });
                globals[k].size = globals[k].size.max(offset + 1);
            }
        }
        let mut constants = Vec::with_capacity(self.constants.len());
        for key in &self.constants {
            constants.push(match key {
                ConstKey::Value(width, value) => Constant {
                    width: *width,
                    value: *value,
                },
                ConstKey::Symbol(name, offset) => {
                    let address = match self.function_ids.get(name) {
                        Some(_) if *offset != 0 => {
                            return Err(ParseError {
                                line: 0,
                                message: format!("@{name}+{offset}: an offset into a function"),
                            })
                        }
                        Some(f) => FUNCTION_BASE + f.0 as u64 * FUNCTION_STRIDE,
                        None => globals[global_ids[name.as_str()]].address + offset,
                    };
                    Constant {
                        width: PTR_WIDTH,
                        value: address as u128,
                    }
                }
            });
        }
        let functions = self
            .functions
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                f.unwrap_or_else(|| {
                    let name = self
                        .function_ids
                        .iter()
                        .find(|(_, id)| id.index() == i)
                        .map(|(n, _)| n.clone())
                        .unwrap_or_default();
                    let (side, source) = split_name(&name);
                    Function {
                        source_name: source.to_string(),
                        side,
                        params: Vec::new(),
                        ret_width: None,
                        ret_is_pointer: false,
                        ret_is_float: false,
                        ret_float_fields: Vec::new(),
                        is_var_arg: false,
                        blocks: Vec::new(),
                        num_regs: 0,
                        address: FUNCTION_BASE + i as u64 * FUNCTION_STRIDE,
                        signature: String::new(),
                        name,
                    }
                })
            })
            .collect();
        Ok(Parsed {
            module: Module {
                functions,
                globals,
                constants,
                locs: self.locs,
                ..Module::default()
            },
            functions: self.order,
        })
    }
}

/// `ty [byval|sret] %N [name]`.
fn param(text: &str) -> Res<Param> {
    let mut c = Cur::new(text);
    let (width, is_pointer, float) = c.ty()?;
    let pass = if c.eat(" byval") {
        ParamPass::ByVal
    } else if c.eat(" sret") {
        ParamPass::StructReturn
    } else {
        ParamPass::Direct
    };
    c.expect(" %")?;
    let reg = RegId(c.uint()? as u32);
    let name = if c.eat(" ") {
        Some(c.s.to_string())
    } else {
        c.end()?;
        None
    };
    Ok(Param {
        reg,
        width,
        name,
        pointee_size: None,
        pointee_is_scalar: false,
        pointee_open: false,
        is_pointer,
        float,
        pass,
        source_type: None,
    })
}

/// A cursor over the rest of a line.
struct Cur<'a> {
    s: &'a str,
}

impl<'a> Cur<'a> {
    fn new(s: &'a str) -> Self {
        Cur { s }
    }

    fn eat(&mut self, prefix: &str) -> bool {
        match self.s.strip_prefix(prefix) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, prefix: &str) -> Res<()> {
        if self.eat(prefix) {
            Ok(())
        } else {
            Err(format!("expected '{prefix}' at '{}'", self.s))
        }
    }

    fn end(&self) -> Res<()> {
        if self.s.is_empty() {
            Ok(())
        } else {
            Err(format!("unexpected '{}'", self.s))
        }
    }

    /// Letters, digits and `_` (possibly none).
    fn word(&mut self) -> &'a str {
        let n = self
            .s
            .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
            .unwrap_or(self.s.len());
        let (w, rest) = self.s.split_at(n);
        self.s = rest;
        w
    }

    /// A symbol's name: up to a space, a delimiter or `+`.
    fn name(&mut self) -> Res<&'a str> {
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
    fn uint(&mut self) -> Res<u128> {
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

    fn int(&mut self) -> Res<i64> {
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
    fn dst(&mut self) -> Res<Option<RegId>> {
        if !self.s.starts_with('%') {
            return Ok(None);
        }
        self.expect("%")?;
        let r = RegId(self.uint()? as u32);
        self.expect(" = ")?;
        Ok(Some(r))
    }

    fn block(&mut self) -> Res<BlockId> {
        self.expect("bb")?;
        Ok(BlockId(self.uint()? as u32))
    }

    /// `iW`, `fW` or `ptrW`: (width, pointer, float).
    fn ty(&mut self) -> Res<(u32, bool, bool)> {
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
    fn vector_type(&mut self) -> Res<(u32, u32)> {
        self.expect("<")?;
        let lanes = self.uint()? as u32;
        self.expect(" x i")?;
        let elem = self.uint()? as u32;
        self.expect(">")?;
        Ok((lanes, elem))
    }

    /// ` bits LO..HI`: (lo, width).
    fn bits(&mut self) -> Res<(u32, u32)> {
        self.expect(" bits ")?;
        let lo = self.uint()? as u32;
        self.expect("..")?;
        let hi = self.uint()? as u32;
        Ok((lo, hi.checked_sub(lo).ok_or("bits LO..HI with HI < LO")?))
    }

    /// Poison flags, each after a space, in the printer's order.
    fn flags(&mut self) -> super::Flags {
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
    fn debug_str(&mut self) -> Res<String> {
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
    fn debug(&mut self) -> Res<Debug> {
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
enum Debug {
    Named(String, Vec<(String, Debug)>),
    Num(u128),
}

impl Debug {
    fn name(&self) -> &str {
        match self {
            Debug::Named(n, _) => n,
            Debug::Num(_) => "",
        }
    }

    fn args(&self) -> &[(String, Debug)] {
        match self {
            Debug::Named(_, a) => a,
            Debug::Num(_) => &[],
        }
    }

    fn arg(&self, i: usize) -> Res<&Debug> {
        self.args()
            .get(i)
            .map(|(_, d)| d)
            .ok_or_else(|| format!("{} lacks an operand", self.name()))
    }

    fn num(&self) -> Res<u128> {
        match self {
            Debug::Num(n) => Ok(*n),
            Debug::Named(n, _) => Err(format!("expected a number, found {n}")),
        }
    }

    fn flag(&self, field: &str) -> Res<bool> {
        match self.args().iter().find(|(f, _)| f == field) {
            Some((_, Debug::Named(v, _))) if v == "true" => Ok(true),
            Some((_, Debug::Named(v, _))) if v == "false" => Ok(false),
            _ => Err(format!("{} lacks '{field}: true|false'", self.name())),
        }
    }

    /// A variant without fields, of the listed ones.
    fn unit<T: fmt::Debug + Copy>(&self, all: &[T]) -> Res<T> {
        if !self.args().is_empty() {
            return Err(format!("{} takes no operand", self.name()));
        }
        all.iter()
            .copied()
            .find(|v| format!("{v:?}") == self.name())
            .ok_or_else(|| format!("unknown '{}'", self.name()))
    }
}

/// Every variant of a field-less enum; a variant added later fails to compile here until
/// it is listed.
macro_rules! all_variants {
    ($name:ident: $ty:ident [$($v:ident),* $(,)?]) => {
        const $name: &[$ty] = &[$($ty::$v),*];
        const _: fn($ty) = |v| match v {
            $($ty::$v)|* => {}
        };
    };
}

all_variants!(ALL_BINOPS: BinOp [Add, Sub, Mul, UDiv, SDiv, URem, SRem, And, Or, Xor, Shl,
    LShr, AShr, Eq, Ult, Ule, Slt, Sle]);
all_variants!(ALL_PREDICATES: Predicate [Eq, Ne, Ugt, Uge, Ult, Ule, Sgt, Sge, Slt, Sle]);
all_variants!(ALL_FP_BINOPS: FpBinOp [Add, Sub, Mul, Div, Rem]);
all_variants!(ALL_FP_UNOPS: FpUnOp [Sqrt, RoundEven, Floor, Ceil, Trunc, Round]);
all_variants!(ALL_FP_PREDS: FpPred [False, Oeq, Ogt, Oge, Olt, Ole, One, Ord, Ueq, Ugt, Uge,
    Ult, Ule, Une, Uno, True]);
all_variants!(ALL_CASTS: CastKind [ZExt, SExt, Trunc]);

/// The variant of `all` whose lower-case `Debug` name is `word`.
fn by_lower<T: fmt::Debug + Copy>(word: &str, all: &[T]) -> Option<T> {
    all.iter()
        .copied()
        .find(|v| format!("{v:?}").to_lowercase() == word)
}

fn intrinsic(d: &Debug) -> Res<Intrinsic> {
    use Intrinsic::*;
    let signed = || d.flag("signed");
    Ok(match d.name() {
        "AddOverflow" => AddOverflow { signed: signed()? },
        "SubOverflow" => SubOverflow { signed: signed()? },
        "MulOverflow" => MulOverflow { signed: signed()? },
        "AddSat" => AddSat { signed: signed()? },
        "SubSat" => SubSat { signed: signed()? },
        "ThreeWayCmp" => ThreeWayCmp { signed: signed()? },
        "FpClass" => {
            let (_, mask) = d
                .args()
                .iter()
                .find(|(f, _)| f == "mask")
                .ok_or("FpClass lacks its mask")?;
            FpClass {
                mask: u16::try_from(mask.num()?).map_err(|_| "a mask of 16 bits")?,
            }
        }
        _ => d.unit(&[
            Memcpy,
            Memmove,
            Memset,
            Ctpop,
            Ctlz,
            Cttz,
            Bswap,
            Bitreverse,
            Fshl,
            Fshr,
            Abs,
            SMin,
            SMax,
            UMin,
            UMax,
            PassThrough,
            Trap,
            VaStart,
            VaCopy,
            LoadRelative,
        ])?,
    })
}

fn float_op(d: &Debug) -> Res<FloatOp> {
    use FloatOp::*;
    Ok(match d.name() {
        "Binary" => Binary(d.arg(0)?.unit(ALL_FP_BINOPS)?),
        "Cmp" => Cmp(d.arg(0)?.unit(ALL_FP_PREDS)?),
        "Unary" => Unary(d.arg(0)?.unit(ALL_FP_UNOPS)?),
        _ => d.unit(&[
            Neg, Abs, CopySign, Fma, MulAdd, Min, Max, Convert, ToSInt, ToUInt, FromSInt, FromUInt,
        ])?,
    })
}

fn vector_op(d: &Debug) -> Res<VectorOp> {
    let width = |i: usize| -> Res<u32> {
        u32::try_from(d.arg(i)?.num()?).map_err(|_| "a width of 32 bits".into())
    };
    Ok(match d.name() {
        "Binary" => VectorOp::Binary(d.arg(0)?.unit(ALL_BINOPS)?),
        "ICmp" => VectorOp::ICmp(d.arg(0)?.unit(ALL_PREDICATES)?),
        "Cast" => VectorOp::Cast(d.arg(0)?.unit(ALL_CASTS)?, width(1)?),
        "Select" => VectorOp::Select,
        "Intrinsic" => VectorOp::Intrinsic(intrinsic(d.arg(0)?)?),
        "Float" => VectorOp::Float(float_op(d.arg(0)?)?, width(1)?),
        other => return Err(format!("unknown vector operation '{other}'")),
    })
}

fn reduce_op(d: &Debug) -> Res<ReduceOp> {
    use ReduceOp::*;
    Ok(match d.name() {
        "Ordered" => Ordered(d.arg(0)?.unit(ALL_FP_BINOPS)?),
        _ => d.unit(&[Add, Mul, And, Or, Xor, SMax, SMin, UMax, UMin])?,
    })
}

/// Whether function `fa` of `a` and `fb` of `b` are the same up to what the text leaves
/// open: the same signature as the text shows it, the same blocks, phis, instructions and
/// terminators, with constants compared by value or by the symbol and offset they address,
/// callees by name and locations by text. `Err` says where they differ first.
pub fn same_structure(a: (&Module, FuncId), b: (&Module, FuncId)) -> Result<(), String> {
    let mut names = Canon::default();
    let (fa, fb) = (names.function(a.0, a.1), names.function(b.0, b.1));
    let shown = |p: &Param| {
        (
            p.reg,
            p.width,
            p.name.clone(),
            p.is_pointer,
            p.float,
            p.pass,
        )
    };
    let sig = |f: &Function| {
        let params: Vec<_> = f.params.iter().map(shown).collect();
        let ret = (f.ret_width, f.ret_is_pointer, f.ret_is_float, f.is_var_arg);
        (f.name.clone(), params, ret)
    };
    if sig(&fa) != sig(&fb) {
        return Err(format!(
            "signatures differ: {:?} and {:?}",
            sig(&fa),
            sig(&fb)
        ));
    }
    if fa.blocks.len() != fb.blocks.len() {
        return Err(format!(
            "{} blocks and {}",
            fa.blocks.len(),
            fb.blocks.len()
        ));
    }
    for (i, (x, y)) in fa.blocks.iter().zip(&fb.blocks).enumerate() {
        if x != y {
            return Err(format!("block bb{i} differs:\n{x:?}\n{y:?}"));
        }
    }
    Ok(())
}

/// One numbering of constants (by value or symbol), locations and callees for two modules.
#[derive(Default)]
struct Canon {
    constants: HashMap<ConstKey, u32>,
    locs: HashMap<String, u32>,
    callees: HashMap<String, u32>,
}

impl Canon {
    fn number<K: std::hash::Hash + Eq>(map: &mut HashMap<K, u32>, key: K) -> u32 {
        let next = map.len() as u32;
        *map.entry(key).or_insert(next)
    }

    /// `func` of `m` with every id replaced by its number here.
    fn function(&mut self, m: &Module, func: FuncId) -> Function {
        let mut f = m.function(func).clone();
        let op = |o: &mut Operand, this: &mut Canon| {
            if let Operand::Const(c) = *o {
                let k = m.constant(c);
                let key = match m.symbol(k) {
                    Some((name, off)) => ConstKey::Symbol(name.to_string(), off),
                    None => ConstKey::Value(k.width, k.value),
                };
                *o = Operand::Const(ConstId(Canon::number(&mut this.constants, key)));
            }
        };
        for block in &mut f.blocks {
            for phi in &mut block.phis {
                for (_, o) in &mut phi.incoming {
                    op(o, self);
                }
            }
            for inst in &mut block.insts {
                for o in operands_mut(inst) {
                    op(o, self);
                }
                if let Inst::Call {
                    callee: Callee::Direct(callee),
                    ..
                } = inst
                {
                    let name = m.function(*callee).name.clone();
                    *callee = FuncId(Canon::number(&mut self.callees, name));
                }
            }
            match &mut block.term {
                Terminator::CondBr { cond: o, .. }
                | Terminator::Switch { value: o, .. }
                | Terminator::Ret(Some(o)) => op(o, self),
                _ => {}
            }
            for loc in block.locs.iter_mut().chain([&mut block.term_loc]) {
                *loc = LocId(Canon::number(&mut self.locs, m.loc(*loc).to_string()));
            }
        }
        f
    }
}

/// Every operand an instruction reads, to rewrite (the callee of an indirect call too).
fn operands_mut(inst: &mut Inst) -> Vec<&mut Operand> {
    match inst {
        Inst::Binary { lhs, rhs, .. } | Inst::ICmp { lhs, rhs, .. } => vec![lhs, rhs],
        Inst::Cast { src, .. } | Inst::Copy { src, .. } => vec![src],
        Inst::Select {
            cond, then, els, ..
        } => vec![cond, then, els],
        Inst::Alloca { count, .. } => vec![count],
        Inst::Load { addr, .. } => vec![addr],
        Inst::Store { value, addr, .. } => vec![value, addr],
        Inst::Gep { base, indices, .. } => std::iter::once(base)
            .chain(indices.iter_mut().map(|i| &mut i.index))
            .collect(),
        Inst::ExtractValue { agg, .. } => vec![agg],
        Inst::InsertValue { agg, value, .. } => vec![agg, value],
        Inst::Call { callee, args, .. } => {
            let mut v: Vec<&mut Operand> = args.iter_mut().collect();
            if let Callee::Indirect(op) = callee {
                v.push(op);
            }
            v
        }
        Inst::Intrinsic { args, .. } | Inst::Vector { args, .. } | Inst::Float { args, .. } => {
            args.iter_mut().collect()
        }
        Inst::ExtractElement { vector, index, .. } => vec![vector, index],
        Inst::InsertElement {
            vector,
            value,
            index,
            ..
        } => vec![vector, value, index],
        Inst::Shuffle { a, b, .. } => vec![a, b],
        Inst::Reduce { vector, start, .. } => start.iter_mut().chain([vector]).collect(),
        Inst::InRange { .. } | Inst::Unsupported { .. } | Inst::Poison { .. } => Vec::new(),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
