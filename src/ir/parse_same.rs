//! [`same_structure`]: a function read from IR text compared with a lowered one, up to what
//! the text leaves open (the lowering snapshots of `tests/it/lowering.rs` parse back).

use super::parse_words::ConstKey;
use super::{Callee, ConstId, FuncId, Function, Inst, LocId, Module, Operand, Param, Terminator};
use std::collections::HashMap;

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
