//! Which calls a function check summarizes (`exec/summary.rs` runs them), and why.
//!
//! A function is *summarizable* when its outcome is a function of its scalar arguments
//! alone, decided from its IR and that of everything it calls:
//! - its parameters and result are scalars (no pointer, no `byval`/`sret`, not variadic);
//! - it stores only into its own stack objects (`alloca`s, and addresses computed from them),
//!   never a pointer; it loads only from its own stack objects and from constant globals;
//! - the addresses of its stack objects and of globals serve only as such addresses (never
//!   compared, converted, stored, passed or returned), and it names no mutable global;
//! - it calls only summarizable functions with bodies, directly (no declaration: no I/O, no
//!   allocation, no library function the engine implements; no call through a pointer).
//!
//! A pointer argument whose contents the callee reads would have to be part of the
//! arguments (by contents, not by address); such callees are not summarized yet.
//!
//! Two grounds make a summarizable function's calls one uninterpreted function of both
//! sides:
//! - **identical**: A's and B's functions of one name have the same instructions, up to the
//!   names of the functions and constant globals they use, which are identical in turn
//!   (a bijection over everything reached; a cycle is identical when it stays consistent);
//! - **recursive**: the entry functions' calls of themselves (directly or through other
//!   functions): Godlin and Strichman's rule for mutual summaries. If the bodies are
//!   equivalent with every such call replaced by one uninterpreted function, the entries are
//!   equivalent on every input on which both terminate: partial equivalence, by induction
//!   on the depth of the calls.

use super::rows::{Decision, RowDriver};
use super::setup::{self, Signature};
use super::Explored;
use crate::error::Result;
use crate::exec::{ExecConfig, Executor, Grounds, MergeMode, Summaries, Summary};
use crate::exec::{SideOutcome, State};
use crate::expr::ExprId;
use crate::expr::ExprPool;
use crate::ir::{Callee, FuncId, Function, Inst, Intrinsic, Module, Operand, Side, Terminator};
use crate::report::PathVerdict;
use crate::report::UnknownReason;
use crate::solver::{build_chain, SolverConfig};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// Explores the check with `plan`'s calls summarized, as an attempt at a proof, within half
/// the check's time: what it found when exploration completed and proved every path,
/// `None` otherwise (the run stops at its first row not proved: a difference there may rest
/// on results the real callee never gives, so the check explores again without summaries,
/// where a difference is found and confirmed as always).
pub(crate) fn run<D: RowDriver>(
    module: &Module,
    pool: &ExprPool,
    signature: &Signature,
    preconditions: &[crate::assume::AssumeExpr],
    (exec, solver): (&ExecConfig, &SolverConfig),
    plan: &Summaries,
    make_driver: &(dyn Fn(crate::stop::Stop, setup::Arguments) -> D + Sync),
) -> Result<std::result::Result<(Explored, Summaries), String>> {
    if exec.shard.is_some() {
        // The shards of a run split one exploration tree, which summaries would change.
        return Ok(Err("not tried in a sharded run".into()));
    }
    let mut why = String::from("no time left");
    let recursive = plan.list.iter().any(|s| s.grounds == Grounds::Recursive);
    let until = exec.max_time.map(|m| std::time::Instant::now() + m / 2);
    // Every recursive call summarized first; then, when that does not prove the pair, with
    // one level of them run (base cases that differ line up).
    for unroll in [0, 1].into_iter().filter(|&u| u == 0 || recursive) {
        let left = until.map(|u| u.saturating_duration_since(std::time::Instant::now()));
        if left.is_some_and(|l| l.is_zero()) {
            break;
        }
        let plan = Summaries {
            unroll,
            ..plan.clone()
        };
        let mut exec = exec.clone();
        exec.summaries = Some(Arc::new(plan.clone()));
        exec.max_time = left;
        exec.progress = None;
        if exec.merge == MergeMode::All {
            exec.merge = MergeMode::Auto;
        }
        let (exec, solver) = super::check_configs(&exec, solver);
        let stop = exec.stop.clone();
        let mut ex = Executor::new(module, pool, build_chain(&solver), exec);
        let (initial, args) =
            setup::initial_state(&mut ex, signature, setup::Inputs::Symbolic, preconditions)?;
        let explored = super::explore(
            ex,
            initial,
            &solver,
            || make_driver(stop.clone(), args.clone()),
            None,
        );
        let proved = explored.stats.stop_reason.is_none()
            && explored.live_at_end == 0
            && !explored.rows.is_empty()
            && explored
                .rows
                .iter()
                .all(|r| r.verdict == PathVerdict::Proved);
        if proved {
            return Ok(Ok((explored, plan)));
        }
        why = match explored
            .rows
            .iter()
            .find(|r| r.verdict != PathVerdict::Proved)
        {
            Some(row) => format!("{}: {}", row.verdict, row.detail),
            None => match &explored.stats.stop_reason {
                Some(reason) => format!("exploration stopped: {reason}"),
                None => "no path reached the end of both sides".into(),
            },
        };
    }
    Ok(Err(why))
}

/// The row of a path on which a side ended in a summarized call that does not return
/// (`exec/summary.rs`), `None` when neither did: agreement when both did and the path
/// implies that the two are one application (equal arguments); undecided otherwise, for
/// such an end stands for whatever the real callee does there.
pub(crate) fn summarized_ends(
    ex: &mut Executor<'_>,
    state: &State,
    a: &SideOutcome,
    b: &SideOutcome,
    results: &(String, String),
) -> Option<Decision> {
    let call = |o: &SideOutcome| match o {
        SideOutcome::Failed(f) => match &f.kind {
            crate::exec::Termination::Summarized { name, call } => Some((name.clone(), *call)),
            _ => None,
        },
        _ => None,
    };
    let (ca, cb) = (call(a), call(b));
    let unknown = |why: String| {
        Decision::unknown(
            results.0.clone(),
            results.1.clone(),
            UnknownReason::Engine(why),
        )
    };
    match (ca, cb) {
        (None, None) => None,
        (Some((name, x)), Some((_, y))) => {
            let pool = ex.pool;
            let (xs, ys) = (&state.abstracted[x].args, &state.abstracted[y].args);
            let differ: Vec<ExprId> = xs.iter().zip(ys).map(|(&p, &q)| pool.ne(p, q)).collect();
            let differ = pool.or_all(&differ);
            Some(match ex.check(state, differ) {
                Ok(None) => Decision {
                    verdict: PathVerdict::Proved,
                    inputs: Vec::new(),
                    result_a: results.0.clone(),
                    result_b: results.1.clone(),
                    detail: format!(
                        "both sides' summarized call of {name} does not return: the same call"
                    ),
                    class: None,
                    three: None,
                    undefined: None,
                },
                Ok(Some(_)) => unknown(format!(
                    "both sides' summarized calls of {name} do not return, on arguments that may differ"
                )),
                Err(why) => unknown(why.to_string()),
            })
        }
        (Some((name, _)), None) | (None, Some((name, _))) => Some(unknown(format!(
            "a summarized call of {name} does not return on one side only"
        ))),
    }
}

/// The summaries of the check of `a` against `b`: none when nothing they reach is
/// summarizable on either ground.
pub(crate) fn plan(
    module: &Module,
    a: FuncId,
    b: FuncId,
    proved: &[super::ProvedPair],
) -> Summaries {
    let (reached, _) = super::globals::reachable(module, &[a, b]);
    let pure = summarizable(module, &reached);
    let places = Places::new(module);
    let failing: HashSet<FuncId> = pure
        .iter()
        .copied()
        .filter(|&f| may_fail(&places, module.function(f)))
        .collect();
    let fails = |roots: &[FuncId]| {
        let mut seen: HashSet<FuncId> = HashSet::new();
        let mut work = roots.to_vec();
        while let Some(f) = work.pop() {
            if failing.contains(&f) {
                return true;
            }
            if seen.insert(f) {
                work.extend(callees(module.function(f)));
            }
        }
        false
    };
    let mut list = Vec::new();
    let mut inherited = Vec::new();
    let recursive_a = pure.contains(&a) && calls_itself(module, a);
    let recursive_b = pure.contains(&b) && calls_itself(module, b);
    let fa = module.function(a);
    let entries = pure.contains(&a) && pure.contains(&b) && same_type(module, a, b);
    if (recursive_a || recursive_b) && entries {
        list.push(Summary {
            name: fa.source_name.clone(),
            grounds: Grounds::Recursive,
            functions: vec![a, b],
            may_fail: fails(&[a, b]),
        });
    }
    let mut identical = Identity::new(module);
    for &f in reached.iter().filter(|&&f| f != a && f != b) {
        let function = module.function(f);
        if function.side != Side::A || !pure.contains(&f) {
            continue;
        }
        let Some(g) = module.function_on_side(Side::B, &function.source_name) else {
            continue;
        };
        if g == b || !pure.contains(&g) || !reached.contains(&g) {
            continue;
        }
        if identical.functions(f, g) {
            list.push(Summary {
                name: function.source_name.clone(),
                grounds: Grounds::Identical,
                functions: vec![f, g],
                may_fail: fails(&[f, g]),
            });
        }
    }
    for pair in proved {
        let (Some(f), Some(g)) = (
            module.function_on_side(Side::A, &pair.a),
            module.function_on_side(Side::B, &pair.b),
        ) else {
            continue;
        };
        let known = list
            .iter()
            .any(|s| s.functions.contains(&f) || s.functions.contains(&g));
        let used = reached.contains(&f) || reached.contains(&g);
        if known || !used || f == a || g == b || !pure.contains(&f) || !pure.contains(&g) {
            continue;
        }
        if same_type(module, f, g) {
            list.push(Summary {
                name: module.function(f).source_name.clone(),
                grounds: Grounds::Proved,
                functions: vec![f, g],
                may_fail: fails(&[f, g]),
            });
            inherited.extend(pair.assumptions.iter().cloned());
        }
    }
    Summaries {
        list,
        unroll: 0,
        inherited,
    }
}

/// The report's lines about a run's summaries: what was summarized and why (a note), and
/// what a verdict reached with them assumes.
pub(crate) fn note(summaries: &Summaries) -> String {
    let list: Vec<String> = summaries
        .list
        .iter()
        .map(|s| match s.grounds {
            Grounds::Identical => format!("{} (identical on both sides)", s.name),
            Grounds::Proved => format!("{} (proved equivalent in this run)", s.name),
            Grounds::Recursive if summaries.unroll > 0 => format!(
                "{}'s recursive calls below the first {} level(s) (recursive)",
                s.name, summaries.unroll
            ),
            Grounds::Recursive => format!("{}'s recursive calls (recursive)", s.name),
        })
        .collect();
    format!("calls summarized: {}", list.join(", "))
}

/// What an equivalence proved with `summaries` rests on.
pub(crate) fn assumptions(summaries: &Summaries) -> Vec<String> {
    let mut out = Vec::new();
    let names = |g: Grounds| -> Vec<&str> {
        summaries
            .list
            .iter()
            .filter(|s| s.grounds == g)
            .map(|s| s.name.as_str())
            .collect()
    };
    let recursive = names(Grounds::Recursive);
    if !recursive.is_empty() {
        out.push(format!(
            "recursive calls summarized ({}): partial equivalence, assuming both terminate; \
             the inner calls are one uninterpreted function of both sides (the induction \
             hypothesis)",
            recursive.join(", ")
        ));
    }
    let proved = names(Grounds::Proved);
    if !proved.is_empty() {
        out.push(format!(
            "calls of {} summarized (proved equivalent for all inputs earlier in this run, \
             reading only their scalar arguments): one uninterpreted function of both sides; \
             what happens inside them is not looked for again",
            proved.join(", ")
        ));
    }
    for a in &summaries.inherited {
        if !out.contains(a) {
            out.push(a.clone());
        }
    }
    let identical = names(Grounds::Identical);
    if !identical.is_empty() {
        out.push(format!(
            "calls of {} summarized (identical on both sides, reading only their scalar \
             arguments): one uninterpreted function of both sides, equal arguments giving \
             equal outcomes; what happens inside them (undefined behaviour, a failure, not \
             ending) is the same on both sides for the same arguments and is not looked for",
            identical.join(", ")
        ));
    }
    out
}

/// Whether `f` and `g` take parameters and give results of the same widths.
fn same_type(module: &Module, f: FuncId, g: FuncId) -> bool {
    let (ff, fg) = (module.function(f), module.function(g));
    ff.ret_width == fg.ret_width
        && ff.params.len() == fg.params.len()
        && ff
            .params
            .iter()
            .zip(&fg.params)
            .all(|(p, q)| p.width == q.width)
}

/// Whether `f` can reach a call of itself.
fn calls_itself(module: &Module, f: FuncId) -> bool {
    let mut seen = HashSet::new();
    let mut work = callees(module.function(f));
    while let Some(g) = work.pop() {
        if g == f {
            return true;
        }
        if seen.insert(g) {
            work.extend(callees(module.function(g)));
        }
    }
    false
}

/// The functions `function` calls directly.
fn callees(function: &Function) -> Vec<FuncId> {
    function
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            Inst::Call {
                callee: Callee::Direct(g),
                ..
            } => Some(*g),
            _ => None,
        })
        .collect()
}

/// What a register or operand holds, for the rules of summarizable functions: a set of
/// origins (an address of the function's own stack, of a constant global, or data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Origin {
    local: bool,
    constant: bool,
    data: bool,
}

impl Origin {
    const DATA: Origin = Origin {
        local: false,
        constant: false,
        data: true,
    };
    const LOCAL: Origin = Origin {
        local: true,
        constant: false,
        data: false,
    };
    const CONSTANT: Origin = Origin {
        local: false,
        constant: true,
        data: false,
    };

    fn join(self, o: Origin) -> Origin {
        Origin {
            local: self.local || o.local,
            constant: self.constant || o.constant,
            data: self.data || o.data,
        }
    }

    /// Only data (what arithmetic may use).
    fn is_data(self) -> bool {
        !self.local && !self.constant
    }

    /// Only addresses one may load from.
    fn loadable(self) -> bool {
        !self.data && (self.local || self.constant)
    }

    /// Only addresses of the function's own stack.
    fn storable(self) -> bool {
        self.local && !self.data && !self.constant
    }
}

/// What a constant is to the rules: the address of a constant global, of anything else the
/// module places (a mutable global, a function: `None`, never allowed), or data.
struct Places<'m> {
    module: &'m Module,
    /// Globals by address: (start, size, index).
    globals: Vec<(u64, u64, usize)>,
}

impl<'m> Places<'m> {
    fn new(module: &'m Module) -> Self {
        let mut globals: Vec<(u64, u64, usize)> = module
            .globals
            .iter()
            .enumerate()
            .map(|(i, g)| (g.address, g.size.max(1), i))
            .collect();
        globals.sort_unstable();
        Places { module, globals }
    }

    /// The global whose bytes (or one-past-the-end address) hold `address`.
    fn global_at(&self, address: u64) -> Option<usize> {
        let i = self.globals.partition_point(|&(a, _, _)| a <= address);
        let &(a, size, g) = self.globals.get(i.checked_sub(1)?)?;
        (address - a <= size).then_some(g)
    }

    /// What the constant operand `c` is (`None`: an address the rules refuse).
    fn origin(&self, value: u128, width: u32) -> Option<Origin> {
        if width != crate::ir::PTR_WIDTH || value == 0 {
            return Some(Origin::DATA);
        }
        let address = value as u64;
        if self.module.function_at(address).is_some() {
            return None;
        }
        match self.global_at(address) {
            Some(g)
                if self.module.globals[g].is_constant && !self.module.globals[g].is_external =>
            {
                Some(Origin::CONSTANT)
            }
            Some(_) => None,
            None => Some(Origin::DATA),
        }
    }
}

/// The summarizable functions among `reached` (see the module documentation): those whose
/// own instructions follow the rules, less those calling one that does not, until none
/// changes.
fn summarizable(module: &Module, reached: &BTreeSet<FuncId>) -> HashSet<FuncId> {
    let places = Places::new(module);
    let mut pure: HashSet<FuncId> = reached
        .iter()
        .copied()
        .filter(|&f| follows_rules(&places, module.function(f)))
        .collect();
    loop {
        let before = pure.len();
        let kept: HashSet<FuncId> = pure
            .iter()
            .copied()
            .filter(|&f| {
                callees(module.function(f))
                    .iter()
                    .all(|g| pure.contains(g) && !module.function(*g).is_declaration())
            })
            .collect();
        pure = kept;
        if pure.len() == before {
            return pure;
        }
    }
}

/// Whether `function`'s own instructions follow the rules (its callees are judged apart).
fn follows_rules(places: &Places<'_>, function: &Function) -> bool {
    if function.is_declaration()
        || function.is_var_arg
        || function.ret_is_pointer
        || function
            .params
            .iter()
            .any(|p| p.is_pointer || p.pass != crate::ir::ParamPass::Direct)
    {
        return false;
    }
    let mut regs = vec![Origin::default(); function.num_regs as usize];
    for p in &function.params {
        if let Some(r) = regs.get_mut(p.reg.index()) {
            *r = Origin::DATA;
        }
    }
    // Origins flow forward through copies, address arithmetic, selects and phis: repeat
    // until they settle (each only grows, over three flags).
    loop {
        let mut changed = false;
        let mut set = |regs: &mut Vec<Origin>, dst: crate::ir::RegId, o: Origin| {
            if let Some(r) = regs.get_mut(dst.index()) {
                let joined = r.join(o);
                if joined != *r {
                    *r = joined;
                    changed = true;
                }
            }
        };
        for block in &function.blocks {
            for phi in &block.phis {
                for (_, op) in &phi.incoming {
                    let Some(o) = origin(places, &regs, *op) else {
                        return false;
                    };
                    set(&mut regs, phi.dst, o);
                }
            }
            for inst in &block.insts {
                let o = match inst {
                    Inst::Alloca { dst, .. } => Some((*dst, Origin::LOCAL)),
                    Inst::Gep { dst, base, .. } | Inst::Copy { dst, src: base } => {
                        let Some(o) = origin(places, &regs, *base) else {
                            return false;
                        };
                        Some((*dst, o))
                    }
                    Inst::Select { dst, then, els, .. } => {
                        let (Some(x), Some(y)) =
                            (origin(places, &regs, *then), origin(places, &regs, *els))
                        else {
                            return false;
                        };
                        Some((*dst, x.join(y)))
                    }
                    _ => None,
                };
                if let Some((dst, o)) = o {
                    set(&mut regs, dst, o);
                }
                for dst in data_results(inst) {
                    set(&mut regs, dst, Origin::DATA);
                }
            }
        }
        if !changed {
            break;
        }
    }
    let all_data = |ops: &[Operand]| {
        ops.iter()
            .all(|&op| origin(places, &regs, op).is_some_and(Origin::is_data))
    };
    for block in &function.blocks {
        for inst in &block.insts {
            let ok = match inst {
                Inst::Alloca { count, .. } => all_data(&[*count]),
                Inst::Gep { base, indices, .. } => {
                    origin(places, &regs, *base).is_some()
                        && all_data(&indices.iter().map(|i| i.index).collect::<Vec<_>>())
                }
                Inst::Copy { src, .. } => origin(places, &regs, *src).is_some(),
                Inst::Select {
                    cond, then, els, ..
                } => {
                    all_data(&[*cond])
                        && origin(places, &regs, *then).is_some()
                        && origin(places, &regs, *els).is_some()
                }
                Inst::Load { addr, .. } => {
                    origin(places, &regs, *addr).is_some_and(Origin::loadable)
                }
                Inst::Store { value, addr, .. } => {
                    all_data(&[*value])
                        && origin(places, &regs, *addr).is_some_and(Origin::storable)
                }
                Inst::Call { callee, args, .. } => {
                    matches!(callee, Callee::Direct(_)) && all_data(args)
                }
                Inst::Intrinsic { kind, args, .. } => match kind {
                    Intrinsic::Memcpy | Intrinsic::Memmove => {
                        args.len() >= 3
                            && origin(places, &regs, args[0]).is_some_and(Origin::storable)
                            && origin(places, &regs, args[1]).is_some_and(Origin::loadable)
                            && all_data(&args[2..])
                    }
                    Intrinsic::Memset => {
                        !args.is_empty()
                            && origin(places, &regs, args[0]).is_some_and(Origin::storable)
                            && all_data(&args[1..])
                    }
                    Intrinsic::VaStart | Intrinsic::VaCopy | Intrinsic::LoadRelative => false,
                    _ => all_data(args),
                },
                Inst::Unsupported { .. } => false,
                other => all_data(&other.operands()),
            };
            if !ok {
                return false;
            }
        }
        let ok = match &block.term {
            Terminator::Ret(Some(op))
            | Terminator::CondBr { cond: op, .. }
            | Terminator::Switch { value: op, .. } => all_data(&[*op]),
            Terminator::Unsupported { .. } => false,
            _ => true,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether one of `function`'s own instructions may fail (its callees are judged apart):
/// a division whose divisor is not a constant other than 0 and -1, a load or store that is
/// not at a constant place inside a stack object of constant size or a constant global,
/// a copy or fill of memory, a trap, `unreachable`.
fn may_fail(places: &Places<'_>, function: &Function) -> bool {
    let mut sized: HashMap<crate::ir::RegId, u64> = HashMap::new();
    for inst in function.blocks.iter().flat_map(|b| &b.insts) {
        if let Inst::Alloca {
            dst,
            size,
            count: Operand::Const(c),
        } = inst
        {
            let count = places.module.constant(*c).value as u64;
            sized.insert(*dst, size.saturating_mul(count));
        }
    }
    let in_bounds = |addr: Operand, bytes: u32| match addr {
        Operand::Reg(r) => sized.get(&r).is_some_and(|&size| u64::from(bytes) <= size),
        Operand::Const(c) => {
            let address = places.module.constant(c).value as u64;
            places.global_at(address).is_some_and(|g| {
                let global = &places.module.globals[g];
                address - global.address + u64::from(bytes) <= global.size
            })
        }
    };
    let safe_divisor = |op: Operand| match op {
        Operand::Const(c) => {
            let c = places.module.constant(c);
            let v = crate::expr::mask(c.width, c.value);
            v != 0 && v != crate::expr::mask(c.width, u128::MAX)
        }
        Operand::Reg(_) => false,
    };
    for block in &function.blocks {
        if matches!(block.term, Terminator::Unreachable) {
            return true;
        }
        for inst in &block.insts {
            let fails = match inst {
                Inst::Binary { op, rhs, .. } => {
                    use crate::ir::BinOp;
                    matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
                        && !safe_divisor(*rhs)
                }
                Inst::Vector {
                    op: crate::ir::VectorOp::Binary(op),
                    ..
                } => {
                    use crate::ir::BinOp;
                    matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
                }
                Inst::Load { addr, bytes, .. } | Inst::Store { addr, bytes, .. } => {
                    !in_bounds(*addr, *bytes)
                }
                Inst::Intrinsic { kind, .. } => matches!(
                    kind,
                    Intrinsic::Memcpy | Intrinsic::Memmove | Intrinsic::Memset | Intrinsic::Trap
                ),
                _ => false,
            };
            if fails {
                return true;
            }
        }
    }
    false
}

/// The registers an instruction writes whose value is data (not an address the rules
/// follow): everything but `alloca`, `gep`, copies and selects.
fn data_results(inst: &Inst) -> Vec<crate::ir::RegId> {
    match inst {
        Inst::Alloca { .. } | Inst::Gep { .. } | Inst::Copy { .. } | Inst::Select { .. } => {
            Vec::new()
        }
        Inst::Binary { dst, .. }
        | Inst::ICmp { dst, .. }
        | Inst::Cast { dst, .. }
        | Inst::Load { dst, .. }
        | Inst::ExtractValue { dst, .. }
        | Inst::InsertValue { dst, .. }
        | Inst::Vector { dst, .. }
        | Inst::ExtractElement { dst, .. }
        | Inst::InsertElement { dst, .. }
        | Inst::Shuffle { dst, .. }
        | Inst::Reduce { dst, .. }
        | Inst::Float { dst, .. }
        | Inst::Poison { dst, .. } => vec![*dst],
        Inst::Call { dst, .. } | Inst::Intrinsic { dst, .. } => dst.iter().copied().collect(),
        Inst::Store { .. } | Inst::InRange { .. } | Inst::Unsupported { .. } => Vec::new(),
    }
}

/// What operand `op` holds (`None`: an address the rules refuse).
fn origin(places: &Places<'_>, regs: &[Origin], op: Operand) -> Option<Origin> {
    match op {
        Operand::Reg(r) => Some(regs.get(r.index()).copied().unwrap_or(Origin::DATA)),
        Operand::Const(c) => {
            let c = places.module.constant(c);
            places.origin(c.value, c.width)
        }
    }
}

/// A symbol a function's text names, by its place among the symbols it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Symbol {
    Function(FuncId),
    Global(usize),
}

/// Identity of A's and B's functions up to renaming, on the engine's IR: each function's
/// text (its instructions as the IR's `Debug` prints them, with source locations left out)
/// has every constant that is an address of a function or global replaced by the place of
/// that symbol among those the text names, plus the offset; the symbols at the same places
/// must be identical in turn.
struct Identity<'m> {
    module: &'m Module,
    places: Places<'m>,
    /// Pairs assumed or shown identical (a cycle holds while they stay consistent).
    pairs: HashMap<Symbol, Symbol>,
    /// Pairs shown not identical.
    refuted: HashSet<(Symbol, Symbol)>,
}

impl<'m> Identity<'m> {
    fn new(module: &'m Module) -> Self {
        Identity {
            module,
            places: Places::new(module),
            pairs: HashMap::new(),
            refuted: HashSet::new(),
        }
    }

    /// Whether A's `f` and B's `g` are identical; on success the pairs it assumed stay.
    fn functions(&mut self, f: FuncId, g: FuncId) -> bool {
        let kept = self.pairs.clone();
        let same = self.symbols(Symbol::Function(f), Symbol::Function(g));
        if !same {
            self.pairs = kept;
            self.refuted
                .insert((Symbol::Function(f), Symbol::Function(g)));
        }
        same
    }

    fn symbols(&mut self, x: Symbol, y: Symbol) -> bool {
        if x == y {
            return true;
        }
        if let Some(&paired) = self.pairs.get(&x) {
            return paired == y;
        }
        if self.pairs.values().any(|&v| v == y) || self.refuted.contains(&(x, y)) {
            return false;
        }
        self.pairs.insert(x, y);
        match (x, y) {
            (Symbol::Function(f), Symbol::Function(g)) => {
                let (ff, fg) = (self.module.function(f), self.module.function(g));
                if ff.is_declaration() || fg.is_declaration() {
                    return false;
                }
                let (tx, sx) = self.text(ff);
                let (ty, sy) = self.text(fg);
                tx == ty
                    && sx.len() == sy.len()
                    && sx.iter().zip(&sy).all(|(&p, &q)| self.symbols(p, q))
            }
            (Symbol::Global(a), Symbol::Global(b)) => {
                let (ga, gb) = (&self.module.globals[a], &self.module.globals[b]);
                ga.size == gb.size
                    && ga.init == gb.init
                    && ga.is_constant == gb.is_constant
                    && ga.is_external == gb.is_external
                    && !ga.holds_pointers
                    && !gb.holds_pointers
            }
            _ => false,
        }
    }

    /// A function's text with its symbols numbered, and the symbols in that order.
    fn text(&self, function: &Function) -> (String, Vec<Symbol>) {
        let mut symbols: Vec<Symbol> = Vec::new();
        let mut out = format!(
            "{:?} {:?} {} {} {:?} {}\n",
            function
                .params
                .iter()
                .map(|p| (p.width, p.is_pointer, p.float, p.pass))
                .collect::<Vec<_>>(),
            function.ret_width,
            function.ret_is_pointer,
            function.ret_is_float,
            function.ret_float_fields,
            function.num_regs,
        );
        for block in &function.blocks {
            let raw = format!("{:?}\n{:?}\n{:?}\n", block.phis, block.insts, block.term);
            out.push_str(&self.renumber(&raw, &mut symbols));
        }
        (out, symbols)
    }

    /// `raw` with `ConstId(n)` replaced by the constant, as a symbol's place and offset
    /// when it is an address the module places, and `FuncId(n)` by its symbol's place.
    fn renumber(&self, raw: &str, symbols: &mut Vec<Symbol>) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut rest = raw;
        let place = |s: Symbol, symbols: &mut Vec<Symbol>| -> usize {
            match symbols.iter().position(|&t| t == s) {
                Some(i) => i,
                None => {
                    symbols.push(s);
                    symbols.len() - 1
                }
            }
        };
        loop {
            let next = [("ConstId(", true), ("FuncId(", false)]
                .iter()
                .filter_map(|&(tag, c)| rest.find(tag).map(|i| (i, tag, c)))
                .min_by_key(|&(i, _, _)| i);
            let Some((i, tag, is_const)) = next else {
                out.push_str(rest);
                return out;
            };
            out.push_str(&rest[..i]);
            let after = &rest[i + tag.len()..];
            let end = after.find(')').unwrap_or(after.len());
            let n: u32 = after[..end].parse().unwrap_or(u32::MAX);
            rest = after.get(end + 1..).unwrap_or("");
            if !is_const {
                let k = place(Symbol::Function(FuncId(n)), symbols);
                out.push_str(&format!("@#{k}"));
                continue;
            }
            let Some(c) = self.module.constants.get(n as usize) else {
                out.push('?');
                continue;
            };
            let address = c.value as u64;
            if c.width == crate::ir::PTR_WIDTH && c.value != 0 {
                if let Some(f) = self.module.function_at(address) {
                    let k = place(Symbol::Function(f), symbols);
                    out.push_str(&format!("@#{k}"));
                    continue;
                }
                if let Some(g) = self.places.global_at(address) {
                    let k = place(Symbol::Global(g), symbols);
                    let offset = address - self.module.globals[g].address;
                    out.push_str(&format!("@#{k}+{offset}"));
                    continue;
                }
            }
            out.push_str(&format!("i{}:{}", c.width, c.value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_join_and_judge() {
        let mixed = Origin::LOCAL.join(Origin::DATA);
        assert!(!mixed.loadable() && !mixed.storable() && !mixed.is_data());
        assert!(Origin::LOCAL.storable() && Origin::LOCAL.loadable());
        assert!(Origin::CONSTANT.loadable() && !Origin::CONSTANT.storable());
        assert!(Origin::DATA.is_data() && Origin::default().is_data());
    }
}
