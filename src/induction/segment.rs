//! One side's straight-line pieces between cut points, as expressions: from the function's
//! entry, or from its loop's header with every value live there a fresh variable, along each
//! acyclic path to the next arrival at the header or to a return.
//!
//! Registers are values; stack objects whose address is only loaded from and stored to
//! whole (`int i; … i++`, what clang emits at -O0) are values too, each with a flag saying
//! whether it was written. A path records its guard and where it has undefined behaviour
//! (`bad`): a division that traps, a shift by at least the width, a read of a stack object
//! never written, unreachable code, and under `--ub report` a failed poison flag. The proof
//! asks that no reachable path be bad, so none of these is ever given a value.
//! Anything else (memory through pointers, calls, floating point, vectors) is not handled
//! and named.

use super::cfg::{successors, Loop};
use crate::exec::undefined::{cast_flag_operands, flag_conditions, is_shift};
use crate::expr::{BinOp, ExprId, ExprPool};
use crate::ir::{BlockId, Function, Inst, Intrinsic, Module, Operand, RegId};
use crate::ir::{CastKind, Terminator};
use std::collections::BTreeMap;

/// A part of a side's state at its loop header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) enum Key {
    Reg(RegId),
    /// A promoted stack object's contents (the register holding its address).
    Slot(RegId),
    /// Whether it was written (width 1).
    Written(RegId),
}

/// Where a path ends.
#[derive(Clone, Debug)]
pub(super) enum End {
    /// At the loop header, with the value of each state key (in the side's key order).
    Header(Vec<ExprId>),
    /// At a return, with the returned value.
    Return(Option<ExprId>),
}

/// One acyclic path of a piece.
#[derive(Clone, Debug)]
pub(super) struct Path {
    pub guard: ExprId,
    pub bad: ExprId,
    pub end: End,
}

/// What the proof knows of one side's function.
pub(super) struct Side<'m> {
    pub module: &'m Module,
    pub f: &'m Function,
    pub the_loop: Option<Loop>,
    /// Promoted stack objects: the register holding the address, and the object's size.
    pub slots: BTreeMap<RegId, u32>,
    /// Report failed poison flags as undefined behaviour (`--ub report`).
    pub poison_is_ub: bool,
}

const MAX_PATHS: usize = 256;
const MAX_STEPS: usize = 200_000;

#[derive(Clone)]
struct Env {
    regs: Vec<Option<ExprId>>,
    slots: BTreeMap<RegId, (ExprId, ExprId)>,
}

struct Walk {
    block: BlockId,
    from: Option<BlockId>,
    env: Env,
    guard: ExprId,
    bad: ExprId,
}

impl<'m> Side<'m> {
    /// The side of `f`, or why the proof cannot handle it.
    pub fn new(module: &'m Module, f: &'m Function, poison_is_ub: bool) -> Result<Self, String> {
        let the_loop = super::cfg::the_loop(f)?;
        let slots = promoted_slots(module, f)?;
        if let Some(l) = &the_loop {
            for (b, block) in f.blocks.iter().enumerate() {
                if l.body[b] && block.insts.iter().any(|i| matches!(i, Inst::Alloca { .. })) {
                    return Err("a stack object made inside the loop".into());
                }
            }
        }
        Ok(Side {
            module,
            f,
            the_loop,
            slots,
            poison_is_ub,
        })
    }

    /// The keys of the state at the header: the header's phis, the registers defined before
    /// the loop and read from the header on, and every promoted stack object.
    pub fn keys(&self) -> Vec<Key> {
        let Some(l) = &self.the_loop else {
            return Vec::new();
        };
        let f = self.f;
        let mut keys: Vec<Key> = f.blocks[l.header.index()]
            .phis
            .iter()
            .map(|p| Key::Reg(p.dst))
            .collect();
        // Blocks reachable from the header.
        let mut after = vec![false; f.blocks.len()];
        let mut work = vec![l.header];
        while let Some(b) = work.pop() {
            if std::mem::replace(&mut after[b.index()], true) {
                continue;
            }
            work.extend(successors(&f.blocks[b.index()].term));
        }
        let mut used = std::collections::BTreeSet::new();
        for (_, block) in f.blocks.iter().enumerate().filter(|(b, _)| after[*b]) {
            let phi_ops = block
                .phis
                .iter()
                .flat_map(|p| p.incoming.iter().map(|(_, o)| *o));
            let inst_ops = block.insts.iter().flat_map(|i| i.operands());
            let term_ops = terminator_operands(&block.term);
            for op in phi_ops.chain(inst_ops).chain(term_ops) {
                if let Operand::Reg(r) = op {
                    used.insert(r);
                }
            }
        }
        let params: Vec<RegId> = f.params.iter().map(|p| p.reg).collect();
        for (b, block) in f.blocks.iter().enumerate() {
            if after[b] {
                continue;
            }
            for inst in &block.insts {
                if let Some(dst) = inst.defined() {
                    let new = !keys.contains(&Key::Reg(dst));
                    if new && used.contains(&dst) && !self.slots.contains_key(&dst) {
                        keys.push(Key::Reg(dst));
                    }
                }
            }
            for p in &block.phis {
                if used.contains(&p.dst) {
                    keys.push(Key::Reg(p.dst));
                }
            }
        }
        keys.retain(|k| !matches!(k, Key::Reg(r) if params.contains(r)));
        for &s in self.slots.keys() {
            keys.push(Key::Slot(s));
            keys.push(Key::Written(s));
        }
        keys
    }

    /// The paths from the function's entry, with `params` as its arguments.
    pub fn prefix(
        &self,
        pool: &ExprPool,
        params: &[ExprId],
        keys: &[Key],
    ) -> Result<Vec<Path>, String> {
        let env = self.entry_env(params);
        self.walk(pool, BlockId(0), None, env, keys, false)
    }

    /// The paths from the loop header in the state `state` (values of `keys`).
    pub fn at_header(
        &self,
        pool: &ExprPool,
        params: &[ExprId],
        keys: &[Key],
        state: &[ExprId],
    ) -> Result<Vec<Path>, String> {
        let l = self.the_loop.as_ref().ok_or("no loop")?;
        let mut env = self.entry_env(params);
        for (k, &v) in keys.iter().zip(state) {
            match *k {
                Key::Reg(r) => env.regs[r.index()] = Some(v),
                // Written unless a `Written` key says otherwise.
                Key::Slot(s) => env.slots.entry(s).or_insert((v, pool.true_())).0 = v,
                Key::Written(s) => env.slots.entry(s).or_insert((v, v)).1 = v,
            }
        }
        self.walk(pool, l.header, None, env, keys, true)
    }

    fn entry_env(&self, params: &[ExprId]) -> Env {
        let mut regs = vec![None; self.f.num_regs as usize];
        for (p, &v) in self.f.params.iter().zip(params) {
            regs[p.reg.index()] = Some(v);
        }
        Env {
            regs,
            slots: BTreeMap::new(),
        }
    }

    fn walk(
        &self,
        pool: &ExprPool,
        start: BlockId,
        from: Option<BlockId>,
        env: Env,
        keys: &[Key],
        at_header: bool,
    ) -> Result<Vec<Path>, String> {
        let mut out = Vec::new();
        let mut steps = 0usize;
        let mut work = vec![Walk {
            block: start,
            from,
            env,
            guard: pool.true_(),
            bad: pool.false_(),
        }];
        let mut skip_phis = at_header;
        while let Some(mut w) = work.pop() {
            let block = &self.f.blocks[w.block.index()];
            if !std::mem::take(&mut skip_phis) {
                if let Some(from) = w.from {
                    self.enter(pool, &mut w.env, w.block, from)?;
                }
            }
            for inst in &block.insts {
                steps += 1;
                if steps > MAX_STEPS {
                    return Err("pieces too long".into());
                }
                let bad = self.exec(pool, &mut w.env, inst)?;
                if let Some(bad) = bad {
                    w.bad = pool.bool_or(w.bad, bad);
                }
            }
            let targets: Vec<(BlockId, ExprId)> = match &block.term {
                Terminator::Ret(v) => {
                    let v = v.map(|v| self.operand(pool, &w.env, v)).transpose()?;
                    out.push(Path {
                        guard: w.guard,
                        bad: w.bad,
                        end: End::Return(v),
                    });
                    continue;
                }
                Terminator::Unreachable => {
                    out.push(Path {
                        guard: w.guard,
                        bad: pool.true_(),
                        end: End::Return(None),
                    });
                    continue;
                }
                Terminator::Unsupported { what } => return Err(what.clone()),
                Terminator::Br(t) => vec![(*t, pool.true_())],
                Terminator::CondBr { cond, then, els } => {
                    let c = self.operand(pool, &w.env, *cond)?;
                    vec![(*then, c), (*els, pool.bool_not(c))]
                }
                Terminator::Switch {
                    value,
                    default,
                    cases,
                } => {
                    let v = self.operand(pool, &w.env, *value)?;
                    let width = pool.width(v);
                    let mut none = pool.true_();
                    let mut t = Vec::new();
                    for &(c, b) in cases {
                        let hit = pool.eq(v, pool.constant(width, c));
                        none = pool.bool_and(none, pool.bool_not(hit));
                        t.push((b, hit));
                    }
                    t.push((*default, none));
                    t
                }
            };
            for (target, cond) in targets {
                let guard = pool.bool_and(w.guard, cond);
                if pool.as_const(guard) == Some(0) {
                    continue;
                }
                if out.len() + work.len() > MAX_PATHS {
                    return Err("too many paths between loop iterations".into());
                }
                let mut env = w.env.clone();
                if self.the_loop.as_ref().is_some_and(|l| l.header == target) {
                    self.enter(pool, &mut env, target, w.block)?;
                    let state = self.state_of(pool, &env, keys)?;
                    out.push(Path {
                        guard,
                        bad: w.bad,
                        end: End::Header(state),
                    });
                    continue;
                }
                work.push(Walk {
                    block: target,
                    from: Some(w.block),
                    env,
                    guard,
                    bad: w.bad,
                });
            }
        }
        Ok(out)
    }

    fn state_of(&self, pool: &ExprPool, env: &Env, keys: &[Key]) -> Result<Vec<ExprId>, String> {
        keys.iter()
            .map(|k| match *k {
                Key::Reg(r) => env.regs[r.index()]
                    .ok_or_else(|| format!("%{} not defined before the loop", r.0)),
                Key::Slot(s) => Ok(env
                    .slots
                    .get(&s)
                    .map_or_else(|| pool.zero(self.slots[&s] * 8), |v| v.0)),
                Key::Written(s) => Ok(env.slots.get(&s).map_or(pool.false_(), |v| v.1)),
            })
            .collect()
    }

    /// The phis of `block` entered from `from`, assigned at once.
    fn enter(
        &self,
        pool: &ExprPool,
        env: &mut Env,
        block: BlockId,
        from: BlockId,
    ) -> Result<(), String> {
        let phis = &self.f.blocks[block.index()].phis;
        let mut values = Vec::with_capacity(phis.len());
        for p in phis {
            let (_, op) = p
                .incoming
                .iter()
                .find(|(b, _)| *b == from)
                .ok_or("a phi without a value for its predecessor")?;
            values.push((p.dst, self.operand(pool, env, *op)?));
        }
        for (dst, v) in values {
            env.regs[dst.index()] = Some(v);
        }
        Ok(())
    }

    fn operand(&self, pool: &ExprPool, env: &Env, op: Operand) -> Result<ExprId, String> {
        match op {
            Operand::Reg(r) => {
                if self.slots.contains_key(&r) {
                    return Err("the address of a stack object used as a value".into());
                }
                env.regs[r.index()].ok_or_else(|| format!("%{} read before it is defined", r.0))
            }
            Operand::Const(c) => {
                let c = self.module.constant(c);
                Ok(pool.constant(c.width, c.value))
            }
        }
    }

    /// Runs `inst` on `env`; gives the condition under which it has undefined behaviour.
    fn exec(&self, pool: &ExprPool, env: &mut Env, inst: &Inst) -> Result<Option<ExprId>, String> {
        let mut bad = None;
        let value = match inst {
            Inst::Binary {
                dst,
                op,
                lhs,
                rhs,
                flags,
            } => {
                let (a, b) = (
                    self.operand(pool, env, *lhs)?,
                    self.operand(pool, env, *rhs)?,
                );
                let width = pool.width(a);
                let r = pool.binary(*op, a, b);
                let mut conds = Vec::new();
                if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) {
                    conds.push(pool.eq(b, pool.zero(width)));
                    if matches!(op, BinOp::SDiv | BinOp::SRem) {
                        let min = pool.eq(a, pool.constant(width, 1 << (width - 1)));
                        conds.push(pool.bool_and(min, pool.eq(b, pool.all_ones(width))));
                    }
                }
                if is_shift(*op) {
                    conds.push(pool.uge(b, pool.constant(width, width as u128)));
                }
                if self.poison_is_ub && flags.any() {
                    let none = |_: ExprId| None;
                    conds.extend(
                        flag_conditions(pool, *op, *flags, (a, b), r, &none)
                            .into_iter()
                            .map(|(c, _)| c),
                    );
                }
                bad = Some(pool.or_all(&conds));
                (*dst, r)
            }
            Inst::ICmp {
                dst,
                pred,
                lhs,
                rhs,
            } => {
                let (a, b) = (
                    self.operand(pool, env, *lhs)?,
                    self.operand(pool, env, *rhs)?,
                );
                (*dst, pred.build(pool, a, b))
            }
            Inst::Cast {
                dst,
                kind,
                src,
                width,
                flags,
            } => {
                let a = self.operand(pool, env, *src)?;
                let r = match kind {
                    CastKind::ZExt => pool.zext(a, *width),
                    CastKind::SExt => pool.sext(a, *width),
                    CastKind::Trunc => pool.trunc(a, *width),
                };
                if self.poison_is_ub && flags.any() {
                    let (op, k) = cast_flag_operands(*kind, *width);
                    let b = pool.constant(pool.width(a), k);
                    let plain = pool.binary(op, a, b);
                    let none = |_: ExprId| None;
                    let conds: Vec<ExprId> =
                        flag_conditions(pool, op, *flags, (a, b), plain, &none)
                            .into_iter()
                            .map(|(c, _)| c)
                            .collect();
                    bad = Some(pool.or_all(&conds));
                }
                (*dst, r)
            }
            Inst::Copy { dst, src } => (*dst, self.operand(pool, env, *src)?),
            Inst::Select {
                dst,
                cond,
                then,
                els,
            } => {
                let c = self.operand(pool, env, *cond)?;
                let (t, e) = (
                    self.operand(pool, env, *then)?,
                    self.operand(pool, env, *els)?,
                );
                (*dst, pool.ite(c, t, e))
            }
            Inst::Alloca { dst, .. } => {
                let size = *self
                    .slots
                    .get(dst)
                    .ok_or("a stack object whose address is used")?;
                env.slots.insert(*dst, (pool.zero(size * 8), pool.false_()));
                return Ok(None);
            }
            Inst::Load {
                dst, addr, width, ..
            } => {
                let s = self.slot_of(*addr)?;
                let &(v, written) = env
                    .slots
                    .get(&s)
                    .ok_or("a load from a stack object before it is made")?;
                bad = Some(pool.bool_not(written));
                let w = pool.width(v);
                let r = if *width < w {
                    pool.trunc(v, *width)
                } else {
                    pool.zext(v, *width)
                };
                (*dst, r)
            }
            Inst::Store { value, addr, bytes } => {
                let s = self.slot_of(*addr)?;
                let v = self.operand(pool, env, *value)?;
                let w = bytes * 8;
                let v = match pool.width(v) {
                    x if x < w => pool.zext(v, w),
                    x if x > w => pool.trunc(v, w),
                    _ => v,
                };
                env.slots.insert(s, (v, pool.true_()));
                return Ok(None);
            }
            Inst::Intrinsic {
                dst: Some(dst),
                kind,
                args,
                ..
            } if matches!(
                kind,
                Intrinsic::SMin
                    | Intrinsic::SMax
                    | Intrinsic::UMin
                    | Intrinsic::UMax
                    | Intrinsic::Abs
            ) =>
            {
                let a = self.operand(pool, env, args[0])?;
                let b = self.operand(pool, env, args[1])?;
                let r = match kind {
                    Intrinsic::SMin => pool.ite(pool.slt(a, b), a, b),
                    Intrinsic::SMax => pool.ite(pool.sgt(a, b), a, b),
                    Intrinsic::UMin => pool.ite(pool.ult(a, b), a, b),
                    Intrinsic::UMax => pool.ite(pool.ugt(a, b), a, b),
                    _ => {
                        let w = pool.width(a);
                        let neg = pool.slt(a, pool.zero(w));
                        if self.poison_is_ub && pool.as_const(b) != Some(0) {
                            bad = Some(pool.eq(a, pool.constant(w, 1 << (w - 1))));
                        }
                        pool.ite(neg, pool.neg(a), a)
                    }
                };
                (*dst, r)
            }
            Inst::Intrinsic {
                dst,
                kind: Intrinsic::PassThrough,
                args,
                ..
            } => match (dst, args.first()) {
                (None, _) => return Ok(None),
                (Some(dst), Some(&arg)) => (*dst, self.operand(pool, env, arg)?),
                (Some(_), None) => return Err("an intrinsic without its value".into()),
            },
            Inst::Poison { dst, width, .. } if !self.poison_is_ub => (*dst, pool.zero(*width)),
            Inst::InRange { .. } if !self.poison_is_ub => return Ok(None),
            other => return Err(format!("{} not handled", inst_name(other))),
        };
        env.regs[value.0.index()] = Some(value.1);
        Ok(bad)
    }

    fn slot_of(&self, addr: Operand) -> Result<RegId, String> {
        match addr {
            Operand::Reg(r) if self.slots.contains_key(&r) => Ok(r),
            _ => Err("memory other than whole local variables".into()),
        }
    }
}

fn inst_name(inst: &Inst) -> &'static str {
    match inst {
        Inst::Call { .. } => "a call",
        Inst::Gep { .. } => "address arithmetic",
        Inst::Float { .. } => "floating point",
        Inst::Vector { .. }
        | Inst::ExtractElement { .. }
        | Inst::InsertElement { .. }
        | Inst::Shuffle { .. }
        | Inst::Reduce { .. } => "a vector operation",
        Inst::ExtractValue { .. } | Inst::InsertValue { .. } => "an aggregate value",
        Inst::Intrinsic { .. } => "an intrinsic",
        Inst::Poison { .. } => "an undefined value",
        Inst::InRange { .. } => "a range LLVM promises",
        Inst::Load { .. } | Inst::Store { .. } => "memory",
        _ => "an instruction",
    }
}

fn terminator_operands(term: &Terminator) -> Vec<Operand> {
    match term {
        Terminator::CondBr { cond, .. } => vec![*cond],
        Terminator::Switch { value, .. } => vec![*value],
        Terminator::Ret(Some(v)) => vec![*v],
        _ => Vec::new(),
    }
}

/// The stack objects of `f` that are only loaded from and stored to whole, at their
/// address: register → size. Any other use of an address is named.
fn promoted_slots(module: &Module, f: &Function) -> Result<BTreeMap<RegId, u32>, String> {
    let mut slots = BTreeMap::new();
    for block in &f.blocks {
        for inst in &block.insts {
            if let Inst::Alloca { dst, size, count } = inst {
                let one = matches!(count, Operand::Const(c) if module.constant(*c).value == 1);
                if !one || *size == 0 || *size > 16 {
                    return Err("a stack object that is not one scalar".into());
                }
                slots.insert(*dst, *size as u32);
            }
        }
    }
    for block in &f.blocks {
        let is_slot = |op: &Operand| matches!(op, Operand::Reg(r) if slots.contains_key(r));
        for inst in &block.insts {
            let whole = |addr: &Operand, bytes: u32| match addr {
                Operand::Reg(r) => slots.get(r).is_none_or(|&s| s == bytes),
                _ => true,
            };
            let ok = match inst {
                Inst::Load { addr, bytes, .. } => whole(addr, *bytes),
                Inst::Store { value, addr, bytes } => !is_slot(value) && whole(addr, *bytes),
                other => !other.operands().iter().any(is_slot),
            };
            if !ok {
                return Err("a stack object used other than by whole loads and stores".into());
            }
        }
        let phi_use = block
            .phis
            .iter()
            .any(|p| p.incoming.iter().any(|(_, o)| is_slot(o)));
        if phi_use || terminator_operands(&block.term).iter().any(is_slot) {
            return Err("the address of a stack object used as a value".into());
        }
    }
    Ok(slots)
}
