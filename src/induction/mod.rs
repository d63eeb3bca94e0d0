//! Proofs for every trip count: a function pair whose loops run as often as an input says
//! is proved equal by induction over a product of the two loops, where path-by-path
//! exploration can only ever prove the trip counts it reached.
//!
//! The product runs both sides from their entries to their loop headers, then both loops in
//! lockstep, one iteration of each per step; once one side has returned, the other goes on
//! alone. Its states fall in three phases (both at their headers, only A, only B), each with
//! an invariant over the parameters and the live values of the sides still looping (and
//! the result of the side that returned). The invariants are guessed from concrete runs of
//! the product ([`candidates`]) and weakened until inductive (Houdini): every query is a
//! bit-vector query through the solver chain, so wrapping arithmetic is exact. The proof
//! then asks that no reachable step has undefined behaviour and that wherever both sides
//! have returned, they returned the same value. A proof that fails says why and proves
//! nothing; the check goes on with what exploration found.
//!
//! Handled: integer parameters and results, registers and whole local variables, branches,
//! one loop per side (or none on one side). Not handled, and named: memory through
//! pointers, calls, floating point, vectors, nested or several loops.

mod candidates;
mod cfg;
mod linear;
mod nowrap;
mod segment;

use crate::expr::{ArrayId, Assignment, ExprId, ExprPool};
use crate::ir::{FuncId, Module, Operand};
use crate::solver::{SatResult, Solver};
use crate::stop::Stop;
use candidates::{Cand, Products};
use segment::{End, Key, Path, Side};
use std::time::{Duration, Instant};

/// How an attempt runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// A failed poison flag is undefined behaviour (`--ub report`), not a wrapped value.
    pub poison_is_ub: bool,
    /// The run's stop token; the attempt also ends at `deadline`.
    pub stop: Stop,
    pub deadline: Option<Instant>,
    /// The longest one query may take.
    pub query_limit: Duration,
}

/// What an attempt gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attempt {
    Proved(Proof),
    /// No proof, and why (nothing is concluded from it).
    NotProved(String),
}

/// A proof for every input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The loops inducted over: `the loop at a.c:5 / b.c:7`.
    pub loops: String,
    /// The invariant of the lockstep phase, in words (`A.x = B.x`…).
    pub invariant: Vec<String>,
    /// Solver queries the proof took.
    pub queries: u32,
}

/// How the reason of an attempt that could not rule out undefined behaviour begins.
pub const UNDEFINED: &str = "undefined behaviour (or a trap) is not ruled out";

/// Why an attempt on a pair without loops proves nothing: exploration decides it.
pub const NO_LOOP: &str = "neither side has a loop";

/// Rounds of weakening before the attempt gives up.
const MAX_ROUNDS: usize = 60;
/// Concrete runs of the product the first guesses come from, and the longest one.
const RUNS: usize = 120;
const RUN_STEPS: usize = 24;

/// Tries to prove functions `a` and `b` of `module` equal on every input: `params` are the
/// check's arguments (integers, shared by both sides) and `pre` the preconditions on them.
pub fn prove(
    module: &Module,
    (a, b): (FuncId, FuncId),
    params: &[ExprId],
    pre: &[ExprId],
    pool: &ExprPool,
    solver: &mut dyn Solver,
    cfg: &Config,
) -> Attempt {
    solver.set_time_limit(Some(cfg.query_limit));
    // Lockstep first, then two iterations of one side to one of the other (a loop unrolled
    // by hand); the first attempt's reason is the one reported.
    let mut first = None;
    let mut outcome = None;
    // Affine invariants first; products of two values only where those did not prove it
    // (they are true of more loops, and dearer to check).
    // Those that define a value first: they cost the queries nothing.
    let shapes = [Products::None, Products::Defining, Products::All]
        .into_iter()
        .flat_map(|q| [[1, 1], [2, 1], [1, 2]].map(|r| (r, q)));
    for (ratio, products) in shapes {
        // Stronger invariants do not remove undefined behaviour the affine ones allow.
        if products != Products::None
            && first
                .as_deref()
                .is_some_and(|w: &str| w.starts_with(UNDEFINED))
        {
            break;
        }
        let result = Prover::new(module, (a, b), params, pre, pool, cfg, ratio)
            .map(|mut p| {
                p.products = products;
                p
            })
            .map_err(|why| (why, true))
            .and_then(|mut p| p.run(solver).map_err(|why| (why, false)));
        match result {
            Ok(proof) => {
                outcome = Some(Attempt::Proved(proof));
                break;
            }
            // A round that would try what an earlier one tried says nothing new.
            Err((why, _)) if why == NOTHING_NEW => {}
            Err((why, structural)) => {
                let out_of_time = why == OUT_OF_TIME;
                first.get_or_insert(why);
                if structural || out_of_time {
                    break;
                }
            }
        }
    }
    solver.set_time_limit(None);
    outcome.unwrap_or_else(|| Attempt::NotProved(first.unwrap_or_default()))
}

/// How the reason of an attempt whose query the solver could not answer begins.
const GAVE_UP: &str = "the solver gave up";

/// Why a round with products ends before its queries: it has none of its kind.
const NOTHING_NEW: &str = "no candidate of this round's kind";

/// The reason of an attempt that ran out of its time.
const OUT_OF_TIME: &str = "out of time";

/// A phase of the product: which sides are at their headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PhaseKind {
    Both,
    OnlyA,
    OnlyB,
}

impl PhaseKind {
    /// Whether A and B loop in this phase.
    fn looping(self) -> [bool; 2] {
        match self {
            PhaseKind::Both => [true, true],
            PhaseKind::OnlyA => [true, false],
            PhaseKind::OnlyB => [false, true],
        }
    }
}

/// The ends of a step, with their guards.
fn ends(s: &Step) -> Vec<(ExprId, End)> {
    let mut out = Vec::new();
    if let Some((g, next)) = &s.header {
        out.push((*g, End::Header(next.clone())));
    }
    if let Some((g, r)) = &s.ret {
        out.push((*g, End::Return(*r)));
    }
    out
}

/// One phase: its variables (the parameters first), what was seen of it, its candidates.
struct Phase {
    kind: PhaseKind,
    vars: Vec<ExprId>,
    /// The array of each variable of its own (none for the parameters).
    arrays: Vec<Option<ArrayId>>,
    widths: Vec<u32>,
    names: Vec<String>,
    samples: Vec<Vec<u128>>,
    cands: Vec<Cand>,
    /// The variables in the order equalities define them: those a step changes, those it
    /// keeps, the parameters.
    order: Vec<usize>,
}

/// One side's step from a point: the paths to the header merged (their guards' union and
/// the next state as a choice by guard), the paths to a return likewise, and where some
/// path has undefined behaviour.
struct Step {
    header: Option<(ExprId, Vec<ExprId>)>,
    ret: Option<(ExprId, Option<ExprId>)>,
    bad: ExprId,
}

/// Where a transition of the product goes.
#[derive(Clone)]
enum Target {
    Phase(usize, Vec<ExprId>),
    /// Both sides returned these values (`None`: a void function).
    Equal(Option<(ExprId, ExprId)>),
}

struct Transition {
    guard: ExprId,
    to: Target,
}

struct Prover<'a> {
    module: &'a Module,
    pool: &'a ExprPool,
    cfg: &'a Config,
    params: Vec<ExprId>,
    pre: Vec<ExprId>,
    sides: [Side<'a>; 2],
    keys: [Vec<Key>; 2],
    phases: Vec<Phase>,
    /// The phase of each kind (both looping, only A, only B), if the sides can be in it.
    index: [Option<usize>; 3],
    ret_width: Option<u32>,
    entry: [Step; 2],
    /// From the entries: the transitions, and where a side has undefined behaviour first.
    entry_moves: (Vec<Transition>, ExprId),
    /// Per phase, the same from its own variables (what concrete runs follow).
    moves: Vec<(Vec<Transition>, ExprId)>,
    constants: Vec<u128>,
    queries: u32,
    /// Iterations of each side's loop per step of the product.
    ratio: [usize; 2],
    /// The measures that show each lone phase returns (`b decreases`), for the proof's text.
    measures: Vec<String>,
    /// Which equalities with products of two values are candidates.
    products: Products,
}

impl<'a> Prover<'a> {
    fn new(
        module: &'a Module,
        (a, b): (FuncId, FuncId),
        params: &[ExprId],
        pre: &[ExprId],
        pool: &'a ExprPool,
        cfg: &'a Config,
        ratio: [usize; 2],
    ) -> Result<Self, String> {
        let (fa, fb) = (module.function(a), module.function(b));
        for f in [fa, fb] {
            if f.params.len() != params.len() {
                return Err("the sides take different parameters".into());
            }
            if f.params.iter().any(|p| p.is_pointer || p.float) {
                return Err("a pointer or floating-point parameter".into());
            }
            if f.ret_is_pointer || f.ret_is_float {
                return Err("a pointer or floating-point result".into());
            }
        }
        if fa.ret_width != fb.ret_width {
            return Err("the sides return different types".into());
        }
        let sides = [
            Side::new(module, fa, cfg.poison_is_ub).map_err(|e| format!("A: {e}"))?,
            Side::new(module, fb, cfg.poison_is_ub).map_err(|e| format!("B: {e}"))?,
        ];
        if sides.iter().all(|s| s.the_loop.is_none()) {
            return Err(NO_LOOP.into());
        }
        let mut keys = [sides[0].keys(), sides[1].keys()];
        let mut entry = [pool.false_(), pool.false_()].map(|bad| Step {
            header: None,
            ret: None,
            bad,
        });
        for side in 0..2 {
            let name = side_name(side);
            let prefix = |keys: &[Key]| {
                let paths = sides[side].prefix(pool, params, keys);
                paths
                    .map(|p| merge(pool, &p))
                    .map_err(|e| format!("{name}: {e}"))
            };
            let step = prefix(&keys[side])?;
            // A variable written before the loop on every path stays written: no flag.
            if let Some((_, next)) = &step.header {
                let always: Vec<Key> = keys[side]
                    .iter()
                    .zip(next)
                    .filter(|(k, &v)| matches!(k, Key::Written(_)) && pool.as_const(v) == Some(1))
                    .map(|(k, _)| *k)
                    .collect();
                if !always.is_empty() {
                    keys[side].retain(|k| !always.contains(k));
                    entry[side] = prefix(&keys[side])?;
                    continue;
                }
            }
            entry[side] = step;
        }
        let mut constants = Vec::new();
        for f in [fa, fb] {
            for block in &f.blocks {
                for inst in &block.insts {
                    if let crate::ir::Inst::ICmp { lhs, rhs, .. } = inst {
                        for op in [lhs, rhs] {
                            if let Operand::Const(c) = op {
                                constants.push(module.constant(*c).value);
                            }
                        }
                    }
                }
            }
        }
        constants.sort_unstable();
        constants.dedup();
        constants.truncate(16);
        let mut p = Prover {
            module,
            pool,
            cfg,
            params: params.to_vec(),
            pre: pre.to_vec(),
            sides,
            keys,
            phases: Vec::new(),
            index: [None; 3],
            ret_width: fa.ret_width.filter(|&w| w > 0),
            entry,
            entry_moves: (Vec::new(), pool.false_()),
            moves: Vec::new(),
            constants,
            queries: 0,
            ratio,
            measures: Vec::new(),
            products: Products::None,
        };
        p.build()?;
        Ok(p)
    }

    /// The widths of a side's state, from the entry's paths to the header.
    fn state_widths(&self, side: usize) -> Result<Vec<u32>, String> {
        match &self.entry[side].header {
            Some((_, next)) => Ok(next.iter().map(|&e| self.pool.width(e)).collect()),
            None => Err(format!("{}: the loop is never entered", side_name(side))),
        }
    }

    fn key_name(&self, side: usize, k: Key) -> String {
        let s = side_name(side);
        match k {
            Key::Reg(r) => format!("{s}.%{}", r.0),
            Key::Slot(r) => format!("{s}.[%{}]", r.0),
            Key::Written(r) => format!("{s}.[%{}].written", r.0),
        }
    }

    /// Every phase's variables, and the moves from the entries and from each phase.
    fn build(&mut self) -> Result<(), String> {
        let pool = self.pool;
        let loops = [
            self.sides[0].the_loop.is_some(),
            self.sides[1].the_loop.is_some(),
        ];
        let kinds = [PhaseKind::Both, PhaseKind::OnlyA, PhaseKind::OnlyB];
        for (i, kind) in kinds.into_iter().enumerate() {
            let looping = kind.looping();
            if (looping[0] && !loops[0]) || (looping[1] && !loops[1]) {
                continue;
            }
            let mut phase = Phase {
                kind,
                vars: self.params.clone(),
                arrays: vec![None; self.params.len()],
                widths: self.params.iter().map(|&e| pool.width(e)).collect(),
                names: self.sides[0]
                    .f
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| p.name.clone().unwrap_or_else(|| format!("arg{i}")))
                    .collect(),
                samples: Vec::new(),
                cands: Vec::new(),
                order: Vec::new(),
            };
            let tag = format!("ind{}.{i}", pool.len());
            for (side, &loops_here) in looping.iter().enumerate() {
                let named: Vec<(String, u32)> = if loops_here {
                    let widths = self.state_widths(side)?;
                    let keys = self.keys[side].iter();
                    keys.zip(widths)
                        .map(|(&k, w)| (self.key_name(side, k), w))
                        .collect()
                } else {
                    let result = format!("{}.result", side_name(side));
                    self.ret_width.map(|w| (result, w)).into_iter().collect()
                };
                for (name, w) in named {
                    let (e, array) = fresh(pool, &format!("{tag}.{name}"), w);
                    phase.vars.push(e);
                    phase.arrays.push(Some(array));
                    phase.widths.push(w);
                    phase.names.push(name);
                }
            }
            self.index[i] = Some(self.phases.len());
            self.phases.push(phase);
        }
        let mut moves = Vec::new();
        for (ga, ea) in ends(&self.entry[0]) {
            for (gb, eb) in ends(&self.entry[1]) {
                let to = self.target(&ea, &eb)?;
                let guard = pool.bool_and(ga, gb);
                moves.push(Transition { guard, to });
            }
        }
        self.entry_moves = (moves, pool.bool_or(self.entry[0].bad, self.entry[1].bad));
        let np = self.params.len();
        for p in 0..self.phases.len() {
            let vars = self.phases[p].vars.clone();
            let m = self.moves_from(p, &vars)?;
            let mut kept = vec![true; vars.len()];
            for t in &m.0 {
                if let Target::Phase(q, next) = &t.to {
                    if *q == p {
                        for (v, k) in kept.iter_mut().enumerate() {
                            *k = *k && next[v] == vars[v];
                        }
                    }
                }
            }
            let state = np..vars.len();
            let changed = state.clone().filter(|&v| !kept[v]);
            let order = changed
                .chain(state.filter(|&v| kept[v]))
                .chain(0..np)
                .collect();
            self.phases[p].order = order;
            self.moves.push(m);
        }
        Ok(())
    }

    /// Where a pair of ends goes: a phase with the ends' values, or the comparison.
    fn target(&self, a: &End, b: &End) -> Result<Target, String> {
        let (kind, a_vals, b_vals): (usize, Vec<ExprId>, Vec<ExprId>) = match (a, b) {
            (End::Header(x), End::Header(y)) => (0, x.clone(), y.clone()),
            (End::Header(x), End::Return(r)) => (1, x.clone(), r.iter().copied().collect()),
            (End::Return(r), End::Header(y)) => (2, r.iter().copied().collect(), y.clone()),
            (End::Return(x), End::Return(y)) => return Ok(Target::Equal(x.zip(*y))),
        };
        let phase = self.index[kind].ok_or("a phase the sides cannot be in")?;
        let mut vals = self.params.clone();
        vals.extend(a_vals);
        vals.extend(b_vals);
        Ok(Target::Phase(phase, vals))
    }

    /// The moves from phase `p` in the state `state` (values of its variables), and where
    /// a step from it has undefined behaviour. A side that returned stays at its result.
    fn moves_from(&self, p: usize, state: &[ExprId]) -> Result<(Vec<Transition>, ExprId), String> {
        let pool = self.pool;
        let np = self.params.len();
        let mut at = np;
        let mut side_ends: [Vec<(ExprId, End)>; 2] = [Vec::new(), Vec::new()];
        let mut bad = pool.false_();
        for (side, &loops_here) in self.phases[p].kind.looping().iter().enumerate() {
            if loops_here {
                let n = self.keys[side].len();
                let own = &state[at..at + n];
                at += n;
                let step = self.step_of(side, own)?;
                bad = pool.bool_or(bad, step.bad);
                side_ends[side] = ends(&step);
            } else {
                let r = self.ret_width.map(|_| state[at]);
                at += usize::from(r.is_some());
                side_ends[side] = vec![(pool.true_(), End::Return(r))];
            }
        }
        let mut out = Vec::new();
        for (ga, ea) in &side_ends[0] {
            for (gb, eb) in &side_ends[1] {
                let to = self.target(ea, eb)?;
                out.push(Transition {
                    guard: pool.bool_and(*ga, *gb),
                    to,
                });
            }
        }
        Ok((out, bad))
    }

    /// A looping side's step from its header in the state `own`: `ratio` iterations, or
    /// fewer when it returns first.
    fn step_of(&self, side: usize, own: &[ExprId]) -> Result<Step, String> {
        let pool = self.pool;
        let mut at: Option<(ExprId, Vec<ExprId>)> = Some((pool.true_(), own.to_vec()));
        let mut returns: Vec<Path> = Vec::new();
        let mut bad = pool.false_();
        for _ in 0..self.ratio[side] {
            let Some((g, state)) = at.take() else {
                break;
            };
            let paths = self.sides[side]
                .at_header(pool, &self.params, &self.keys[side], &state)
                .map_err(|e| format!("{}: {e}", side_name(side)))?;
            let step = merge(pool, &paths);
            bad = pool.bool_or(bad, pool.bool_and(g, step.bad));
            if let Some((gr, r)) = step.ret {
                returns.push(Path {
                    guard: pool.bool_and(g, gr),
                    bad: pool.false_(),
                    end: End::Return(r),
                });
            }
            at = step.header.map(|(gh, next)| (pool.bool_and(g, gh), next));
        }
        let mut step = merge(pool, &returns);
        step.header = at;
        step.bad = bad;
        Ok(step)
    }

    /// Phase `p`'s state for a query: its variables, those the invariant defines (`x =
    /// 5·i + c`) replaced by their definitions, which spares the solver the equalities.
    /// Sound: every state the invariant allows is one of these, as the invariant holds of
    /// it and each definition reads only the variables themselves.
    fn defined_state(&self, p: usize) -> Vec<ExprId> {
        self.state_defined_by(p, true)
    }

    /// Phase `p`'s state with the definitions substituted, those by products only with
    /// `products`.
    fn state_defined_by(&self, p: usize, products: bool) -> Vec<ExprId> {
        let phase = &self.phases[p];
        let mut state = phase.vars.clone();
        let mut done = vec![false; state.len()];
        for c in phase.cands.iter().filter(|c| products || !c.has_product()) {
            if let Some((v, e)) = c.definition(self.pool, &phase.vars, &phase.widths) {
                if v >= self.params.len() && !std::mem::replace(&mut done[v], true) {
                    state[v] = e;
                }
            }
        }
        state
    }

    /// What a query from `from` (`None`: the entries) starts with: its premise (the
    /// preconditions and the phase's invariant) and its moves.
    fn from(&self, from: Option<usize>) -> Result<(Vec<ExprId>, Vec<Transition>, ExprId), String> {
        let mut premise = self.pre.clone();
        let Some(p) = from else {
            let (moves, bad) = &self.entry_moves;
            let moves = moves
                .iter()
                .map(|t| Transition {
                    guard: t.guard,
                    to: t.to.clone(),
                })
                .collect();
            return Ok((premise, moves, *bad));
        };
        let state = self.defined_state(p);
        premise.push(self.invariant(p, &state));
        let (moves, bad) = self.moves_from(p, &state)?;
        Ok((premise, moves, bad))
    }

    fn run(&mut self, solver: &mut dyn Solver) -> Result<Proof, String> {
        self.sample();
        for p in 0..self.phases.len() {
            self.guess(p);
        }
        // Products that define a value, or those that do not: without any of this round's
        // kind, the round is one tried before.
        let of_this_round = |c: &Cand, widths: &[u32]| match self.products {
            Products::None => true,
            Products::Defining => c.has_product(),
            Products::All => c.has_product() && !c.defines_at_width(widths),
        };
        if !self
            .phases
            .iter()
            .any(|ph| ph.cands.iter().any(|c| of_this_round(c, &ph.widths)))
        {
            return Err(NOTHING_NEW.into());
        }
        let origins: Vec<Option<usize>> = std::iter::once(None)
            .chain((0..self.phases.len()).map(Some))
            .collect();
        let mut rounds = 0;
        loop {
            rounds += 1;
            if rounds > MAX_ROUNDS {
                return Err("no inductive invariant found within the rounds allowed".into());
            }
            let mut weakened = false;
            for &from in &origins {
                let (premise, moves, _) = self.from(from)?;
                let light = self.light_premise(from);
                let current = from.map(|p| self.defined_state(p));
                for t in moves {
                    let Target::Phase(to, vals) = &t.to else {
                        continue;
                    };
                    let mut premise = premise.clone();
                    premise.push(t.guard);
                    let mut light = light.clone();
                    light.push(t.guard);
                    let mut widener = nowrap::Widener::new(self.pool);
                    // Equalities the definitions make identities need no solver, also
                    // once the guard keeps the counters' steps from wrapping.
                    let mut parts = Vec::new();
                    let built: Vec<ExprId> = self.phases[*to]
                        .cands
                        .iter()
                        .map(|c| c.build(self.pool, vals))
                        .collect();
                    for (k, c) in built.into_iter().enumerate() {
                        if linear::valid_equality(self.pool, c) {
                            continue;
                        }
                        let widened = self.widen(solver, &light, &mut widener, c)?;
                        if linear::valid_equality(self.pool, widened) {
                            continue;
                        }
                        // An equality the step does not change holds after it: its two
                        // sides' difference is the same polynomial before and after.
                        if let (Some(state), true) = (&current, from == Some(*to)) {
                            let before = self.phases[*to].cands[k].build(self.pool, state);
                            let before = self.widen(solver, &light, &mut widener, before)?;
                            if linear::same_difference(self.pool, before, widened) {
                                continue;
                            }
                        }
                        if !parts.iter().any(|p: &(usize, ExprId)| p.1 == widened) {
                            parts.push((k, widened));
                        }
                    }
                    let goal = self
                        .pool
                        .and_all(&parts.iter().map(|p| p.1).collect::<Vec<_>>());
                    if self.pool.as_const(goal) == Some(1) {
                        continue;
                    }
                    // The invariant's products make a query dear; most steps are shown
                    // without them, and a model that satisfies them anyway is a real
                    // counterexample.
                    let light_limit = self.cfg.query_limit / 4;
                    let without =
                        self.ask_within(solver, &light, self.pool.bool_not(goal), light_limit);
                    let answer = match without {
                        Ok(None) => continue,
                        Ok(Some(m)) if premise.iter().all(|&c| self.pool.eval_bool(c, &m)) => {
                            Ok(Some(m))
                        }
                        Err(why) if !why.starts_with(GAVE_UP) => return Err(why),
                        _ => self.ask(solver, &premise, self.pool.bool_not(goal)),
                    };
                    let answer = match answer {
                        // Products the solver cannot decide together: each alone, and
                        // those it cannot show are dropped (Houdini keeps what it shows).
                        Err(why) if why.starts_with(GAVE_UP) => {
                            if !self.drop_unshown(solver, *to, &premise, &parts)? {
                                return Err(why);
                            }
                            weakened = true;
                            break;
                        }
                        other => other?,
                    };
                    if let Some(model) = answer {
                        let seen: Vec<u128> =
                            vals.iter().map(|&v| self.pool.eval(v, &model)).collect();
                        self.phases[*to].samples.push(seen);
                        self.guess(*to);
                        weakened = true;
                        break;
                    }
                }
            }
            if !weakened {
                break;
            }
        }
        // The invariants are inductive: no step is undefined, and the results agree.
        for &from in &origins {
            let (premise, moves, bad) = self.from(from)?;
            if self.ask(solver, &premise, bad)?.is_some() {
                return Err(format!("{UNDEFINED} {}", self.where_from(from)));
            }
            // A side looping alone must return: a measure that every iteration decreases.
            let ranked = match from {
                Some(q) if self.phases[q].kind != PhaseKind::Both => {
                    self.ranking(solver, q, &premise, &moves)?
                }
                _ => None,
            };
            if let Some(measure) = &ranked {
                self.measures.push(measure.clone());
            }
            for t in moves {
                let mut premise = premise.clone();
                premise.push(t.guard);
                // Once one side returned, the other must return at its next step: a side
                // that may go on looping may never return (the proof is of equal outcomes,
                // termination included).
                let (query, why) = match t.to {
                    Target::Equal(Some((x, y))) => (
                        self.pool.ne(x, y),
                        "the results may differ once both sides return",
                    ),
                    Target::Phase(q, _)
                        if Some(q) == from
                            && self.phases[q].kind != PhaseKind::Both
                            && ranked.is_none() =>
                    {
                        (self.pool.true_(), "the side still looping may not return")
                    }
                    _ => continue,
                };
                if self.ask(solver, &premise, query)?.is_some() {
                    return Err(format!("{why} {}", self.where_from(from)));
                }
            }
        }
        let shown = self
            .phases
            .iter()
            .position(|p| p.kind == PhaseKind::Both)
            .unwrap_or(0);
        let phase = &self.phases[shown];
        Ok(Proof {
            loops: self.loops_text(),
            invariant: phase
                .cands
                .iter()
                .filter(|c| !c.is_ordering())
                .map(|c| c.describe(&phase.names, &phase.widths))
                .chain(self.measures.iter().map(|m| format!("{m} decreases")))
                .collect(),
            queries: self.queries,
        })
    }

    /// A measure of lone phase `q` that every iteration from it decreases (unsigned), so
    /// the side looping alone returns: one of its variables (a counter down), or the
    /// distance up to a bound an ordering of the invariant names (`n - i` under `i < n`).
    /// Its description, or `None` when no candidate decreases on every iteration.
    fn ranking(
        &mut self,
        solver: &mut dyn Solver,
        q: usize,
        premise: &[ExprId],
        moves: &[Transition],
    ) -> Result<Option<String>, String> {
        let state = self.defined_state(q);
        let phase = &self.phases[q];
        let own: Vec<(ExprId, &Vec<ExprId>)> = moves
            .iter()
            .filter_map(|t| match &t.to {
                Target::Phase(to, vals) if *to == q => Some((t.guard, vals)),
                _ => None,
            })
            .collect();
        if own.is_empty() {
            return Ok(Some("no iteration".into()));
        }
        // (description, measure of a state's values)
        type Measure = (String, Box<dyn Fn(&ExprPool, &[ExprId]) -> ExprId>);
        let mut measures: Vec<Measure> = Vec::new();
        for k in self.params.len()..phase.vars.len() {
            measures.push((phase.names[k].clone(), Box::new(move |_, v| v[k])));
        }
        for c in &phase.cands {
            let Cand::Cmp { pred, a, b } = c else {
                continue;
            };
            let (lo, hi) = match pred {
                crate::ir::Predicate::Ult | crate::ir::Predicate::Ule => (*a, *b),
                crate::ir::Predicate::Ugt | crate::ir::Predicate::Uge => match b {
                    candidates::Rhs::Var(b) => (*b, candidates::Rhs::Var(*a)),
                    candidates::Rhs::Const(_) => continue,
                },
                _ => continue,
            };
            let (lo_name, w) = (phase.names[lo].clone(), phase.widths[lo]);
            match hi {
                candidates::Rhs::Var(h) if phase.widths[h] == w => measures.push((
                    format!("{} - {lo_name}", phase.names[h]),
                    Box::new(move |pool, v| pool.sub(v[h], v[lo])),
                )),
                candidates::Rhs::Const(c) => measures.push((
                    format!("{c} - {lo_name}"),
                    Box::new(move |pool, v| pool.sub(pool.constant(w, c), v[lo])),
                )),
                _ => {}
            }
        }
        'measures: for (name, m) in &measures {
            let before = m(self.pool, &state);
            for (guard, vals) in &own {
                let mut premise = premise.to_vec();
                premise.push(*guard);
                let decreases = self.pool.ult(m(self.pool, vals), before);
                if self
                    .ask(solver, &premise, self.pool.bool_not(decreases))?
                    .is_some()
                {
                    continue 'measures;
                }
            }
            return Ok(Some(name.clone()));
        }
        Ok(None)
    }

    fn where_from(&self, from: Option<usize>) -> &'static str {
        match from.map(|p| self.phases[p].kind) {
            None => "before the loops",
            Some(PhaseKind::Both) => "while both sides loop",
            Some(PhaseKind::OnlyA) => "while only A loops",
            Some(PhaseKind::OnlyB) => "while only B loops",
        }
    }

    fn loops_text(&self) -> String {
        let at = |side: usize| -> String {
            let s = &self.sides[side];
            match &s.the_loop {
                Some(l) => {
                    let block = &s.f.blocks[l.header.index()];
                    let loc = block.locs.first().copied().unwrap_or(block.term_loc);
                    self.module.loc(loc).to_string()
                }
                None => "no loop".into(),
            }
        };
        let pace = match self.ratio {
            [2, 1] => ", two iterations of A to one of B",
            [1, 2] => ", one iteration of A to two of B",
            _ => "",
        };
        format!("the loop at {} / {}{pace}", at(0), at(1))
    }

    fn invariant(&self, p: usize, vals: &[ExprId]) -> ExprId {
        let parts: Vec<ExprId> = self.phases[p]
            .cands
            .iter()
            .map(|c| c.build(self.pool, vals))
            .collect();
        self.pool.and_all(&parts)
    }

    fn guess(&mut self, p: usize) {
        let phase = &self.phases[p];
        let first = phase.cands.is_empty() || phase.cands == [Cand::False];
        // Products are guessed once, from the first samples; a weakening keeps those every
        // state still satisfies (computing their hull again would cost more than the proof).
        let mut cands = candidates::guess(
            &phase.samples,
            &phase.widths,
            &self.constants,
            &phase.order,
            if first { self.products } else { Products::None },
        );
        if !first {
            // Weakening only: a candidate dropped stays dropped.
            cands.retain(|c| phase.cands.contains(c) || matches!(c, Cand::Affine { .. }));
            let kept = phase.cands.iter().filter(|c| {
                c.has_product()
                    && !cands.contains(c)
                    && phase.samples.iter().all(|s| c.holds(s, &phase.widths))
            });
            cands.extend(kept.cloned().collect::<Vec<_>>());
        }
        self.phases[p].cands = cands;
    }

    /// The premise of a query from `from` without the invariant's products: the
    /// preconditions and the phase's other candidates (what shows a counter's step does not
    /// wrap, at a fraction of the cost).
    fn light_premise(&self, from: Option<usize>) -> Vec<ExprId> {
        let mut premise = self.pre.clone();
        if let Some(p) = from {
            let state = self.state_defined_by(p, false);
            let phase = &self.phases[p];
            premise.extend(
                phase
                    .cands
                    .iter()
                    .filter(|c| !c.has_product())
                    .map(|c| c.build(self.pool, &state)),
            );
        }
        premise
    }

    /// After the solver gave up on a step's candidates together: each candidate with a
    /// product in `parts` (index into phase `to`'s candidates, condition) asked alone, and
    /// dropped unless shown; a counterexample becomes a sample. Whether any was dropped.
    fn drop_unshown(
        &mut self,
        solver: &mut dyn Solver,
        to: usize,
        premise: &[ExprId],
        parts: &[(usize, ExprId)],
    ) -> Result<bool, String> {
        let mut dropped = Vec::new();
        for &(k, part) in parts {
            if !self.phases[to].cands[k].has_product() {
                continue;
            }
            match self.ask(solver, premise, self.pool.bool_not(part)) {
                Ok(None) => {}
                Ok(Some(_)) => dropped.push(k),
                Err(why) if why.starts_with(GAVE_UP) => dropped.push(k),
                Err(why) => return Err(why),
            }
        }
        // `parts` lists candidates in order, so `dropped` ascends.
        for &k in dropped.iter().rev() {
            self.phases[to].cands.remove(k);
        }
        Ok(!dropped.is_empty())
    }

    /// The condition `c` with the extensions of sums `premise` keeps from wrapping
    /// split (`zext(i + 1)` as `zext(i) + 1` under `i < n`), each split shown by a query;
    /// `widener` keeps what was shown under this premise.
    fn widen(
        &mut self,
        solver: &mut dyn Solver,
        premise: &[ExprId],
        widener: &mut nowrap::Widener<'_>,
        c: ExprId,
    ) -> Result<ExprId, String> {
        // A split the solver cannot show in time is not made.
        widener.widen(c, &mut |wrapped| match self.ask(solver, premise, wrapped) {
            Ok(model) => Ok(model.is_some()),
            Err(why) if why.starts_with(GAVE_UP) => Ok(true),
            Err(why) => Err(why),
        })
    }

    /// A model of `premise ∧ query`, if any.
    fn ask(
        &mut self,
        solver: &mut dyn Solver,
        premise: &[ExprId],
        query: ExprId,
    ) -> Result<Option<Assignment>, String> {
        self.ask_within(solver, premise, query, self.cfg.query_limit)
    }

    /// A model of `premise ∧ query`, if any, asked with the limit `limit`.
    fn ask_within(
        &mut self,
        solver: &mut dyn Solver,
        premise: &[ExprId],
        query: ExprId,
        limit: Duration,
    ) -> Result<Option<Assignment>, String> {
        if self.cfg.stop.should_stop() || self.cfg.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(OUT_OF_TIME.into());
        }
        self.queries += 1;
        // No query outlives the attempt's deadline.
        let left = self.cfg.deadline.map_or(self.cfg.query_limit, |d| {
            d.saturating_duration_since(Instant::now())
        });
        solver.set_time_limit(Some(left.min(limit)));
        let r = solver.check(self.pool, premise, query);
        match r {
            Ok(SatResult::Unsat) => Ok(None),
            Ok(SatResult::Sat(model)) => Ok(Some(model)),
            Ok(SatResult::Unknown(why)) => Err(format!("{GAVE_UP} ({why})")),
            Err(e) => Err(format!("the solver failed ({e})")),
        }
    }

    /// Concrete runs of the product from random arguments: the states each phase is seen
    /// in.
    fn sample(&mut self) {
        let pool = self.pool;
        let mut arrays: Vec<(ArrayId, u32)> = Vec::new();
        for &p in &self.params {
            for a in pool.arrays_in(p) {
                if !arrays.iter().any(|x| x.0 == a) {
                    arrays.push((a, pool.array_info(a).size));
                }
            }
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for run in 0..RUNS {
            let mut assign = Assignment::new();
            for &(a, size) in &arrays {
                let v = rng.value(run);
                let bytes = (0..size).map(|i| (v >> (8 * i.min(15))) as u8).collect();
                assign.set(a, bytes);
            }
            if !self.pre.iter().all(|&c| pool.eval_bool(c, &assign)) {
                continue;
            }
            self.run_once(&mut assign);
        }
    }

    fn run_once(&mut self, assign: &mut Assignment) {
        let pool = self.pool;
        let params: Vec<u128> = self.params.iter().map(|&p| pool.eval(p, assign)).collect();
        // Where the entries go.
        let mut current: Option<(usize, Vec<u128>)> = None;
        let mut from: Option<usize> = None;
        for _ in 0..RUN_STEPS {
            if let Some((p, vals)) = &current {
                let phase = &self.phases[*p];
                for (i, &v) in vals.iter().enumerate().skip(params.len()) {
                    if let Some(a) = phase.arrays[i] {
                        set_value(assign, a, phase.widths[i], v);
                    }
                }
            }
            let (moves, bad) = match from {
                None => &self.entry_moves,
                Some(p) => &self.moves[p],
            };
            if pool.eval_bool(*bad, assign) {
                return;
            }
            let taken = moves.iter().find(|t| pool.eval_bool(t.guard, assign));
            match taken.map(|t| &t.to) {
                Some(Target::Phase(to, vals)) => {
                    let seen: Vec<u128> = vals.iter().map(|&v| pool.eval(v, assign)).collect();
                    self.phases[*to].samples.push(seen.clone());
                    current = Some((*to, seen));
                    from = Some(*to);
                }
                _ => return,
            }
        }
    }
}

fn side_name(side: usize) -> &'static str {
    if side == 0 {
        "A"
    } else {
        "B"
    }
}

/// A fresh variable of `width` bits and its array.
fn fresh(pool: &ExprPool, name: &str, width: u32) -> (ExprId, ArrayId) {
    let bytes = width.div_ceil(8);
    let array = pool.new_array(name, bytes);
    let all: Vec<ExprId> = (0..bytes).map(|i| pool.sym(array, i)).collect();
    let e = pool.concat_bytes(&all);
    let e = if width.is_multiple_of(8) {
        e
    } else {
        pool.trunc(e, width)
    };
    (e, array)
}

fn set_value(assign: &mut Assignment, array: ArrayId, width: u32, v: u128) {
    let bytes = width.div_ceil(8);
    assign.set(array, (0..bytes).map(|i| (v >> (8 * i)) as u8).collect());
}

/// The paths of a piece merged by where they end.
fn merge(pool: &ExprPool, paths: &[Path]) -> Step {
    let mut bad = pool.false_();
    let mut header: Option<(ExprId, Vec<ExprId>)> = None;
    let mut ret: Option<(ExprId, Option<ExprId>)> = None;
    for p in paths.iter().rev() {
        bad = pool.bool_or(bad, pool.bool_and(p.guard, p.bad));
        match &p.end {
            End::Header(next) => {
                header = Some(match header {
                    None => (p.guard, next.clone()),
                    Some((g, acc)) => (
                        pool.bool_or(g, p.guard),
                        next.iter()
                            .zip(acc)
                            .map(|(&n, a)| pool.ite(p.guard, n, a))
                            .collect(),
                    ),
                });
            }
            End::Return(v) => {
                ret = Some(match ret {
                    None => (p.guard, *v),
                    Some((g, acc)) => (
                        pool.bool_or(g, p.guard),
                        v.zip(acc).map(|(v, a)| pool.ite(p.guard, v, a)),
                    ),
                });
            }
        }
    }
    Step { header, ret, bad }
}

/// A small deterministic generator of arguments: small values mostly, some of any size.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn value(&mut self, run: usize) -> u128 {
        let r = self.next();
        let v: i64 = match run % 10 {
            0..=5 => (r % 25) as i64 - 4,
            6 | 7 => (r % 201) as i64 - 100,
            _ => r as i64,
        };
        v as i128 as u128
    }
}
