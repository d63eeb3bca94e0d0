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

use super::parse_ops::{
    by_lower, float_op, intrinsic, reduce_op, vector_op, ALL_BINOPS, ALL_PREDICATES,
};
pub use super::parse_same::same_structure;
use super::parse_words::{ConstKey, Cur, Res};
use super::{
    split_name, Block, Callee, CastKind, ConstId, Constant, FuncId, Function, GepIndex, Global,
    Inst, LocId, Module, Operand, Param, ParamPass, Phi, RangeOf, RegId, Terminator, FUNCTION_BASE,
    FUNCTION_STRIDE, GLOBAL_BASE, PTR_WIDTH,
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

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
