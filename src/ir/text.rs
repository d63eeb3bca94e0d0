//! The engine's IR as text: a lowered function printed block by block, for people (`xcheck
//! show --ir`) and for the lowering's snapshot tests (`tests/it/lowering.rs`, whose expected
//! files are `tests/data/lowering/*.ir`).
//!
//! One line per phi, instruction and terminator, each with its source location after `;`
//! when it has one. Registers are `%N`, blocks `bbN`; a constant is `iW V` (V signed when its
//! sign bit is set), or `@name` / `@name+offset` when it is the address of a function or a
//! global, which the loader fixed. Operators are named as the IR names them (`Debug`).
//! `parse.rs` reads the form back.

use super::{
    Callee, Flags, FuncId, GepIndex, Inst, Module, Operand, Param, ParamPass, Phi, Terminator,
};
use std::fmt::{self, Write};

/// A function of `module`, printable as text ([`Module::function_text`]).
pub struct FunctionText<'m> {
    module: &'m Module,
    func: FuncId,
}

impl Module {
    /// The function `func` as text (its [`fmt::Display`]).
    pub fn function_text(&self, func: FuncId) -> FunctionText<'_> {
        FunctionText { module: self, func }
    }
}

impl Module {
    /// The function or global whose address a pointer-wide constant is, and the offset
    /// into it: how the text names the constant (`@name`, `@name+offset`).
    pub fn symbol(&self, k: super::Constant) -> Option<(&str, u64)> {
        if k.width != super::PTR_WIDTH || k.value > u64::MAX as u128 {
            return None;
        }
        let address = k.value as u64;
        if let Some(func) = self.function_at(address) {
            return Some((&self.function(func).name, 0));
        }
        let global = self.globals.iter().find(|g| {
            g.size > 0 && address >= g.address && address - g.address < g.size
                || g.size == 0 && address == g.address
        })?;
        Some((&global.name, address - global.address))
    }
}

impl fmt::Display for FunctionText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.module;
        let func = m.function(self.func);
        let params: Vec<String> = func.params.iter().map(param).collect();
        let ret = match func.ret_width {
            Some(w) if func.ret_is_pointer => format!("ptr{w}"),
            Some(w) if func.ret_is_float => format!("f{w}"),
            Some(w) => format!("i{w}"),
            None => "void".into(),
        };
        let dots = if func.is_var_arg { ", ..." } else { "" };
        let kind = if func.is_declaration() {
            "declare"
        } else {
            "define"
        };
        write!(
            f,
            "{kind} {ret} @{}({}{dots})",
            func.name,
            params.join(", ")
        )?;
        if func.is_declaration() {
            return writeln!(f);
        }
        writeln!(f, " {{")?;
        for (b, block) in func.blocks.iter().enumerate() {
            writeln!(f, "bb{b}:")?;
            for phi in &block.phis {
                writeln!(f, "  {}", self.phi(phi))?;
            }
            for (inst, &loc) in block.insts.iter().zip(&block.locs) {
                self.line(f, &self.inst(inst), m.loc(loc))?;
            }
            self.line(f, &self.terminator(&block.term), m.loc(block.term_loc))?;
        }
        writeln!(f, "}}")
    }
}

/// A parameter: its type, register and source name.
fn param(p: &Param) -> String {
    let ty = if p.is_pointer {
        format!("ptr{}", p.width)
    } else if p.float {
        format!("f{}", p.width)
    } else {
        format!("i{}", p.width)
    };
    let pass = match p.pass {
        ParamPass::Direct => "",
        ParamPass::ByVal => " byval",
        ParamPass::StructReturn => " sret",
    };
    let name = p.name.as_deref().map_or(String::new(), |n| format!(" {n}"));
    format!("{ty}{pass} %{}{name}", p.reg.0)
}

/// The poison-producing flags that are set, each after a space.
fn flags(fl: &Flags) -> String {
    let mut out = String::new();
    for (set, name) in [
        (fl.nsw, "nsw"),
        (fl.nuw, "nuw"),
        (fl.exact, "exact"),
        (fl.disjoint, "disjoint"),
        (fl.nneg, "nneg"),
    ] {
        if set {
            out.push(' ');
            out.push_str(name);
        }
    }
    out
}

/// An operator's name: its `Debug` form in lower case (`add`, `slt`, `zext`).
fn lower(x: &impl fmt::Debug) -> String {
    format!("{x:?}").to_lowercase()
}

impl FunctionText<'_> {
    fn line(&self, f: &mut fmt::Formatter<'_>, text: &str, loc: &str) -> fmt::Result {
        if loc.is_empty() {
            writeln!(f, "  {text}")
        } else {
            writeln!(f, "  {text:<48} ; {loc}")
        }
    }

    fn op(&self, o: &Operand) -> String {
        let k = match *o {
            Operand::Reg(r) => return format!("%{}", r.0),
            Operand::Const(c) => self.module.constant(c),
        };
        if let Some((name, off)) = self.module.symbol(k) {
            return match off {
                0 => format!("@{name}"),
                off => format!("@{name}+{off}"),
            };
        }
        let sign = k.width > 1 && k.width <= 128 && k.value >> (k.width - 1) & 1 == 1;
        if sign && k.width < 128 {
            let negative = (1u128 << k.width) - k.value;
            format!("i{} -{negative}", k.width)
        } else if k.value > u64::MAX as u128 {
            format!("i{} {:#x}", k.width, k.value)
        } else {
            format!("i{} {}", k.width, k.value)
        }
    }

    fn ops(&self, ops: &[Operand]) -> String {
        ops.iter()
            .map(|o| self.op(o))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn phi(&self, phi: &Phi) -> String {
        let incoming: Vec<String> = phi
            .incoming
            .iter()
            .map(|(b, o)| format!("[bb{}: {}]", b.0, self.op(o)))
            .collect();
        format!("%{} = phi {}", phi.dst.0, incoming.join(", "))
    }

    fn gep(&self, base: &Operand, offset: i64, indices: &[GepIndex]) -> String {
        let mut out = self.op(base);
        if offset != 0 {
            let _ = write!(out, " + {offset}");
        }
        for GepIndex { index, scale } in indices {
            let _ = write!(out, " + {} * {scale}", self.op(index));
        }
        out
    }

    fn inst(&self, inst: &Inst) -> String {
        let vec = |lanes: &u32, elem: &u32| format!("<{lanes} x i{elem}>");
        let dst = |d: &Option<super::RegId>| d.map_or(String::new(), |r| format!("%{} = ", r.0));
        match inst {
            Inst::Binary {
                dst,
                op,
                lhs,
                rhs,
                flags: fl,
            } => format!(
                "%{} = {}{} {}, {}",
                dst.0,
                lower(op),
                flags(fl),
                self.op(lhs),
                self.op(rhs)
            ),
            Inst::ICmp {
                dst,
                pred,
                lhs,
                rhs,
            } => format!(
                "%{} = icmp {} {}, {}",
                dst.0,
                lower(pred),
                self.op(lhs),
                self.op(rhs)
            ),
            Inst::Cast {
                dst,
                kind,
                src,
                width,
                flags: fl,
            } => format!(
                "%{} = {}{} {} to i{width}",
                dst.0,
                lower(kind),
                flags(fl),
                self.op(src)
            ),
            Inst::Copy { dst, src } => format!("%{} = copy {}", dst.0, self.op(src)),
            Inst::Select {
                dst,
                cond,
                then,
                els,
            } => format!("%{} = select {}", dst.0, self.ops(&[*cond, *then, *els])),
            Inst::Alloca { dst, size, count } => {
                format!("%{} = alloca {size} x {}", dst.0, self.op(count))
            }
            Inst::Load {
                dst,
                addr,
                bytes,
                width,
                pointer,
            } => {
                let ty = if *pointer { "ptr" } else { "i" };
                let addr = self.op(addr);
                format!("%{} = load {ty}{width} {addr} ({bytes} bytes)", dst.0)
            }
            Inst::Store { value, addr, bytes } => {
                let (value, addr) = (self.op(value), self.op(addr));
                format!("store {value} -> {addr} ({bytes} bytes)")
            }
            Inst::Gep {
                dst,
                base,
                offset,
                indices,
            } => format!("%{} = gep {}", dst.0, self.gep(base, *offset, indices)),
            Inst::ExtractValue {
                dst,
                agg,
                lo,
                width,
            } => format!(
                "%{} = extractvalue {} bits {lo}..{}",
                dst.0,
                self.op(agg),
                lo + width
            ),
            Inst::InsertValue {
                dst,
                agg,
                value,
                lo,
                width,
            } => format!(
                "%{} = insertvalue {}, {} bits {lo}..{}",
                dst.0,
                self.op(agg),
                self.op(value),
                lo + width
            ),
            Inst::Call {
                dst: d,
                callee,
                args,
            } => {
                let callee = match callee {
                    Callee::Direct(func) => format!("@{}", self.module.function(*func).name),
                    Callee::Indirect(o) => format!("*{}", self.op(o)),
                };
                format!("{}call {callee}({})", dst(d), self.ops(args))
            }
            Inst::Intrinsic {
                dst: d,
                kind,
                args,
                width,
            } => format!("{}intrinsic {kind:?} i{width} ({})", dst(d), self.ops(args)),
            Inst::Vector {
                dst,
                op,
                args,
                lanes,
                elem,
            } => format!(
                "%{} = vector {op:?} {} ({})",
                dst.0,
                vec(lanes, elem),
                self.ops(args)
            ),
            Inst::ExtractElement {
                dst,
                vector,
                index,
                elem,
                lanes,
            } => format!(
                "%{} = extractelement {} {}",
                dst.0,
                vec(lanes, elem),
                self.ops(&[*vector, *index])
            ),
            Inst::InsertElement {
                dst,
                vector,
                value,
                index,
                elem,
                lanes,
            } => format!(
                "%{} = insertelement {} {}",
                dst.0,
                vec(lanes, elem),
                self.ops(&[*vector, *value, *index])
            ),
            Inst::Shuffle {
                dst,
                a,
                b,
                mask,
                elem,
                lanes,
            } => {
                let mask: Vec<String> = mask
                    .iter()
                    .map(|m| m.map_or("undef".into(), |i| i.to_string()))
                    .collect();
                format!(
                    "%{} = shuffle {} {}, [{}]",
                    dst.0,
                    vec(lanes, elem),
                    self.ops(&[*a, *b]),
                    mask.join(", ")
                )
            }
            Inst::Reduce {
                dst,
                op,
                vector,
                start,
                elem,
                lanes,
            } => {
                let start = start.map_or(String::new(), |s| format!(" from {}", self.op(&s)));
                format!(
                    "%{} = reduce {op:?} {} {}{start}",
                    dst.0,
                    vec(lanes, elem),
                    self.op(vector)
                )
            }
            Inst::Float {
                dst,
                op,
                args,
                width,
                flags: fl,
            } => format!(
                "%{} = float {op:?}{} i{width} ({})",
                dst.0,
                flags(fl),
                self.ops(args)
            ),
            Inst::Poison {
                dst,
                width,
                poison,
                frozen,
            } => {
                let what = if *poison { "poison" } else { "undef" };
                let frozen = if *frozen { " frozen" } else { "" };
                format!("%{} = {what}{frozen} i{width}", dst.0)
            }
            Inst::InRange { reg, ranges, of } => {
                let ranges: Vec<String> = ranges
                    .iter()
                    .map(|(lo, hi)| format!("[{lo}, {hi})"))
                    .collect();
                format!("inrange %{} {} ({of})", reg.0, ranges.join(" "))
            }
            Inst::Unsupported { what } => format!("unsupported {what:?}"),
        }
    }

    fn terminator(&self, term: &Terminator) -> String {
        match term {
            Terminator::Br(b) => format!("br bb{}", b.0),
            Terminator::CondBr { cond, then, els } => {
                format!("br {}, bb{}, bb{}", self.op(cond), then.0, els.0)
            }
            Terminator::Switch {
                value,
                default,
                cases,
            } => {
                let cases: Vec<String> = cases
                    .iter()
                    .map(|(k, b)| format!("{k}: bb{}", b.0))
                    .collect();
                format!(
                    "switch {}, default bb{} [{}]",
                    self.op(value),
                    default.0,
                    cases.join(", ")
                )
            }
            Terminator::Ret(None) => "ret".into(),
            Terminator::Ret(Some(o)) => format!("ret {}", self.op(o)),
            Terminator::Unreachable => "unreachable".into(),
            Terminator::Unsupported { what } => format!("unsupported {what:?}"),
        }
    }
}

/// The construct an instruction is, for the lowering snapshots' coverage: its kind with the
/// operator and the flags that change its meaning (`add nsw`, `icmp slt`, `intrinsic
/// AddOverflow { signed: true }`, `load ptr`), without operands, widths or constants.
pub fn construct(inst: &Inst) -> String {
    match inst {
        Inst::Binary { op, flags: fl, .. } => format!("{}{}", lower(op), flags(fl)),
        Inst::ICmp { pred, .. } => format!("icmp {}", lower(pred)),
        Inst::Cast {
            kind, flags: fl, ..
        } => format!("{}{}", lower(kind), flags(fl)),
        Inst::Copy { .. } => "copy".into(),
        Inst::Select { .. } => "select".into(),
        Inst::Alloca { .. } => "alloca".into(),
        Inst::Load { pointer: true, .. } => "load ptr".into(),
        Inst::Load { .. } => "load".into(),
        Inst::Store { .. } => "store".into(),
        Inst::Gep { indices, .. } if indices.is_empty() => "gep".into(),
        Inst::Gep { .. } => "gep indexed".into(),
        Inst::ExtractValue { .. } => "extractvalue".into(),
        Inst::InsertValue { .. } => "insertvalue".into(),
        Inst::Call {
            callee: Callee::Direct(_),
            ..
        } => "call".into(),
        Inst::Call { .. } => "call indirect".into(),
        Inst::Intrinsic { kind, .. } => format!("intrinsic {}", intrinsic_kind(kind)),
        Inst::Vector { op, .. } => format!(
            "vector {}",
            match op {
                super::VectorOp::Cast(kind, _) => format!("Cast({kind:?})"),
                super::VectorOp::Float(op, _) => format!("Float({op:?})"),
                super::VectorOp::Intrinsic(kind) => format!("Intrinsic({})", intrinsic_kind(kind)),
                other => format!("{other:?}"),
            }
        ),
        Inst::ExtractElement { .. } => "extractelement".into(),
        Inst::InsertElement { .. } => "insertelement".into(),
        Inst::Shuffle { .. } => "shuffle".into(),
        Inst::Reduce { op, .. } => format!("reduce {op:?}"),
        Inst::Float { op, flags: fl, .. } => format!("float {op:?}{}", flags(fl)),
        Inst::Poison { poison, frozen, .. } => {
            let what = if *poison { "poison" } else { "undef" };
            format!("{what}{}", if *frozen { " frozen" } else { "" })
        }
        Inst::InRange { of, .. } => format!("inrange ({of})"),
        Inst::Unsupported { .. } => "unsupported".into(),
    }
}

/// An intrinsic's construct: its `Debug` form without the mask of `FpClass`.
fn intrinsic_kind(kind: &super::Intrinsic) -> String {
    match kind {
        super::Intrinsic::FpClass { .. } => "FpClass".into(),
        other => format!("{other:?}"),
    }
}

/// The construct a terminator is (`br`, `br cond`, `switch`, `ret`, `ret void`…).
pub fn terminator_construct(term: &Terminator) -> &'static str {
    match term {
        Terminator::Br(_) => "br",
        Terminator::CondBr { .. } => "br cond",
        Terminator::Switch { .. } => "switch",
        Terminator::Ret(Some(_)) => "ret",
        Terminator::Ret(None) => "ret void",
        Terminator::Unreachable => "unreachable",
        Terminator::Unsupported { .. } => "unsupported terminator",
    }
}

impl super::Function {
    /// Every construct of the function's body ([`construct`], [`terminator_construct`],
    /// `phi`), each once.
    pub fn constructs(&self) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        for block in &self.blocks {
            if !block.phis.is_empty() {
                out.insert("phi".to_string());
            }
            out.extend(block.insts.iter().map(construct));
            out.insert(terminator_construct(&block.term).to_string());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    /// A function built by hand prints as the text says; a changed operand changes the text.
    #[test]
    fn a_small_function_prints_block_by_block() {
        let c = |v: u32| Operand::Const(ConstId(v));
        let module = Module {
            constants: vec![
                Constant {
                    width: 32,
                    value: 0,
                },
                Constant {
                    width: 32,
                    value: 0xffff_ffff,
                },
            ],
            locs: vec![String::new(), "abs.c:3:9".into()],
            functions: vec![Function {
                name: "A.abs".into(),
                params: vec![Param {
                    reg: RegId(0),
                    width: 32,
                    name: Some("x".into()),
                    pointee_size: None,
                    pointee_is_scalar: false,
                    pointee_open: false,
                    is_pointer: false,
                    float: false,
                    pass: ParamPass::Direct,
                    source_type: None,
                }],
                ..Function::for_tests(
                    vec![
                        Block {
                            phis: Vec::new(),
                            insts: vec![Inst::ICmp {
                                dst: RegId(1),
                                pred: Predicate::Slt,
                                lhs: Operand::Reg(RegId(0)),
                                rhs: c(0),
                            }],
                            locs: vec![LocId(1)],
                            term: Terminator::CondBr {
                                cond: Operand::Reg(RegId(1)),
                                then: BlockId(1),
                                els: BlockId(2),
                            },
                            term_loc: LocId(0),
                        },
                        Block {
                            phis: Vec::new(),
                            insts: vec![Inst::Binary {
                                dst: RegId(2),
                                op: BinOp::Mul,
                                lhs: Operand::Reg(RegId(0)),
                                rhs: c(1),
                                flags: Flags {
                                    nsw: true,
                                    ..Flags::NONE
                                },
                            }],
                            locs: vec![LocId(0)],
                            term: Terminator::Br(BlockId(2)),
                            term_loc: LocId(0),
                        },
                        Block {
                            phis: vec![Phi {
                                dst: RegId(3),
                                incoming: vec![
                                    (BlockId(0), Operand::Reg(RegId(0))),
                                    (BlockId(1), Operand::Reg(RegId(2))),
                                ],
                            }],
                            insts: Vec::new(),
                            locs: Vec::new(),
                            term: Terminator::Ret(Some(Operand::Reg(RegId(3)))),
                            term_loc: LocId(0),
                        },
                    ],
                    4,
                )
            }],
            ..Module::default()
        };
        let text = module.function_text(FuncId(0)).to_string();
        let expected = "\
define i32 @A.abs(i32 %0 x) {
bb0:
  %1 = icmp slt %0, i32 0                          ; abs.c:3:9
  br %1, bb1, bb2
bb1:
  %2 = mul nsw %0, i32 -1
  br bb2
bb2:
  %3 = phi [bb0: %0], [bb1: %2]
  ret %3
}
";
        assert_eq!(text, expected);
    }
}
