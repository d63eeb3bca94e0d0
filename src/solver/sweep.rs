//! SAT sweeping (as combinational equivalence checkers such as ABC's do): a query the layers
//! below do not decide within [`FIRST_TRY`] is simplified by merging the sub-terms its
//! constraints prove equal, and asked again.
//!
//! At a path's end a function check asks `pc ∧ resultA ≠ resultB`; the two sides usually
//! compute the same intermediate values in different spellings. The layer
//!
//! 1. evaluates every sub-term of the query (its DAG) on a few dozen inputs: the path's model
//!    (the hint), all zeroes, all ones and random bytes, and buckets the terms of one width by
//!    their values (a term whose values are all one constant is a candidate for it);
//! 2. walks the terms children first, each rebuilt over the representatives of its children
//!    (through the simplifying builders), and proves it equal to the representative of its
//!    bucket by a small local query: first with the terms a few operators below them cut off
//!    as fresh variables (constrained by their known bits: true for every value, so true for
//!    theirs), then, if that fails, `constraints ∧ a ≠ b` itself, each within
//!    [`LOCAL_LIMIT`];
//! 3. asks the rebuilt query with what is left of the time limit.
//!
//! Only proved equalities are used: every merge holds wherever the constraints hold, so the
//! rebuilt query has the same models as the original under them (the layers above validate
//! a model against the original anyway). The model of a local query that fails is a new
//! input the later candidates are compared on first, so that a bucket split by it is not
//! asked again. The cost is bounded: only queries past their first try, at most
//! [`LOCAL_QUERIES`] local queries and half of the time left.

use super::layer::{wraps_inner, Layer};
use super::{SatResult, Solver, SolverError, SolverStats, TIMEOUT};
use crate::expr::{ArrayId, Assignment, ExprId, ExprPool, Node, Sort};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a query is asked as it is before it is swept: a sweep that merges terms without
/// making the query easier costs the first try again, so it is kept for queries that take
/// long (with a first try of 1 s, a bytewise CRC-32 against a table-driven one on four bytes,
/// -O0, took 11 s instead of 5.6 s: its 1–3 s queries were swept for nothing). A check limited
/// to this or less is not swept.
pub const FIRST_TRY: Duration = Duration::from_secs(5);

/// The time limit of one local query.
pub const LOCAL_LIMIT: Duration = Duration::from_millis(200);

/// The most local queries of one sweep.
pub const LOCAL_QUERIES: u32 = 4096;

/// Queries with more distinct sub-terms are not swept (evaluation is linear in them).
const MAX_TERMS: usize = 200_000;

/// The inputs every term is evaluated on (the hint, zeroes, ones, then random bytes).
const SAMPLES: usize = 48;

/// The most representatives one bucket keeps (terms equal on the samples but proved apart).
const REPRESENTATIVES: usize = 3;

/// How many operators below the two terms a local query keeps before it cuts.
const CUT_DEPTH: u32 = 12;

/// Bytes of the array the cut variables are read from (one per pool).
const CUT_BYTES: u32 = 4096;

/// The sweeping layer (see the module documentation).
pub struct SweepingSolver {
    inner: Box<dyn Solver>,
    /// The backend's own limit, and a shorter one set for the coming checks.
    timeout: Option<Duration>,
    limit: Option<Duration>,
    hint: Option<Arc<Assignment>>,
    /// How long a query is asked as it is first ([`FIRST_TRY`]; `None` in tests: swept at
    /// once).
    first_try: Option<Duration>,
    /// The array of cut variables, per pool.
    cut: Option<(u64, ArrayId)>,
    stats: SolverStats,
}

/// The outcome of one local proof.
enum Proof {
    Equal,
    /// Apart, with the inputs that show it when they satisfy the constraints.
    Apart(Option<Assignment>),
    Unknown,
}

impl SweepingSolver {
    /// Sweeps the queries `inner` does not answer within [`FIRST_TRY`]; `timeout` is the
    /// backend's own limit of a check.
    pub fn new(inner: Box<dyn Solver>, timeout: Option<Duration>) -> Self {
        Self {
            inner,
            timeout,
            limit: None,
            hint: None,
            first_try: Some(FIRST_TRY),
            cut: None,
            stats: SolverStats::default(),
        }
    }

    fn ask(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
        limit: Option<Duration>,
    ) -> Result<SatResult, SolverError> {
        self.inner.set_time_limit(limit);
        let result = self.inner.check(pool, constraints, query);
        self.inner.set_time_limit(self.limit);
        result
    }

    /// The array cut variables are read from.
    fn cut_array(&mut self, pool: &ExprPool) -> ArrayId {
        match self.cut {
            Some((id, array)) if id == pool.id() => array,
            _ => {
                let array = pool.new_array("xcheck.sweep.cut", CUT_BYTES);
                self.cut = Some((pool.id(), array));
                array
            }
        }
    }

    /// Proves `a = b` wherever `constraints` hold (see the module documentation).
    fn prove(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        a: ExprId,
        b: ExprId,
        local: &mut u32,
    ) -> Result<Proof, SolverError> {
        if let Some((a_cut, b_cut, facts)) = self.cut_shared(pool, a, b) {
            *local += 1;
            let differ = pool.bool_not(pool.eq(a_cut, b_cut));
            if pool.as_const(differ) == Some(0) {
                return Ok(Proof::Equal);
            }
            if self
                .ask(pool, &facts, differ, Some(LOCAL_LIMIT))?
                .is_unsat()
            {
                return Ok(Proof::Equal);
            }
        }
        *local += 1;
        let differ = pool.bool_not(pool.eq(a, b));
        Ok(
            match self.ask(pool, constraints, differ, Some(LOCAL_LIMIT))? {
                SatResult::Unsat => Proof::Equal,
                SatResult::Sat(model) => Proof::Apart(Some(model)),
                SatResult::Unknown(_) => Proof::Unknown,
            },
        )
    }

    /// `a` and `b` with the terms [`CUT_DEPTH`] below them replaced by fresh variables (the
    /// same term by the same variable), and the known bits of those terms as facts about the
    /// variables; `None` when no term is that deep or the variables do not fit. The window
    /// keeps the local query small whatever the depth of the query: walking whole cones for
    /// every candidate cost more than the local queries themselves (zlib's braided CRC-32).
    fn cut_shared(
        &mut self,
        pool: &ExprPool,
        a: ExprId,
        b: ExprId,
    ) -> Option<(ExprId, ExprId, Vec<ExprId>)> {
        let mut seen: FxHashSet<ExprId> = FxHashSet::default();
        let mut level = vec![a, b];
        seen.extend([a, b]);
        for _ in 0..CUT_DEPTH {
            let mut next = Vec::new();
            for id in level {
                for c in pool.node(id).children() {
                    if seen.insert(c) {
                        next.push(c);
                    }
                }
            }
            level = next;
        }
        let mut frontier = level;
        frontier.retain(|&t| {
            !matches!(
                pool.node(t),
                Node::Const { .. } | Node::Sym { .. } | Node::ArrayConst { .. }
            ) && matches!(pool.sort(t), Sort::Bv(w) if w <= 128)
        });
        if frontier.is_empty() {
            return None;
        }
        let array = self.cut_array(pool);
        let mut offset = 0u32;
        let mut map: FxHashMap<ExprId, ExprId> = FxHashMap::default();
        let mut facts = Vec::new();
        for &t in &frontier {
            let width = pool.width(t);
            let bytes = width.div_ceil(8);
            if offset + bytes > CUT_BYTES {
                return None;
            }
            let syms: Vec<ExprId> = (offset..offset + bytes)
                .map(|i| pool.sym(array, i))
                .collect();
            offset += bytes;
            let mut var = pool.concat_bytes(&syms);
            if !width.is_multiple_of(8) {
                var = pool.extract(var, 0, width);
            }
            let known = pool.known_bits(t);
            if known.mask != 0 {
                let mask = pool.constant(width, known.mask);
                let value = pool.constant(width, known.value);
                facts.push(pool.eq(pool.and(var, mask), value));
            }
            map.insert(t, var);
        }
        let a_cut = replace(pool, a, &map);
        let b_cut = replace(pool, b, &map);
        Some((a_cut, b_cut, facts))
    }

    /// The query with the terms its constraints prove equal merged (see the module
    /// documentation), or `None` when nothing merged.
    fn sweep(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
        until: Instant,
    ) -> Result<Option<ExprId>, SolverError> {
        let order = {
            let mut order: Vec<ExprId> = cone(pool, query).into_keys().collect();
            order.sort_unstable();
            order
        };
        if order.len() > MAX_TERMS {
            return Ok(None);
        }
        let samples = self.samples(pool, constraints, query);
        // Per term: a hash of its values on the samples, and the one value when all agree.
        let mut sign: FxHashMap<ExprId, (u64, Option<u128>)> = FxHashMap::default();
        for (i, sample) in samples.iter().enumerate() {
            let values = pool.eval_order(&order, sample);
            for &id in &order {
                let v = values.get(&id).copied().unwrap_or(0);
                let entry = sign.entry(id).or_insert((0, Some(v)));
                entry.0 = (entry.0.rotate_left(7) ^ (v as u64) ^ ((v >> 64) as u64))
                    .wrapping_mul(0x100_0000_01b3);
                if i > 0 && entry.1 != Some(v) {
                    entry.1 = None;
                }
            }
        }
        let mut refuted: Vec<FxHashMap<ExprId, u128>> = Vec::new();
        let mut buckets: FxHashMap<(u32, u64), Vec<ExprId>> = FxHashMap::default();
        let mut repr: FxHashMap<ExprId, ExprId> = FxHashMap::default();
        let mut local = 0u32;
        let mut merged = 0u64;
        for &id in &order {
            let node = pool.node(id);
            let rebuilt = if node
                .children()
                .all(|c| repr.get(&c).is_none_or(|&r| r == c))
            {
                id
            } else {
                pool.rebuild(node, &|c| repr.get(&c).copied().unwrap_or(c))
            };
            repr.insert(id, rebuilt);
            let width = match pool.sort(id) {
                Sort::Bv(w) if w <= 128 => w,
                _ => continue,
            };
            if matches!(node, Node::Const { .. }) || pool.as_const(rebuilt).is_some() {
                continue;
            }
            let Some(&(hash, constant)) = sign.get(&id) else {
                continue;
            };
            let in_budget = |local: u32| local < LOCAL_QUERIES && Instant::now() < until;
            // A term constant on every sample: proved that constant, or kept.
            if let Some(c) = constant {
                if in_budget(local) && refuted.iter().all(|m| m.get(&id) == Some(&c)) {
                    let value = pool.constant(width, c);
                    match self.prove(pool, constraints, rebuilt, value, &mut local)? {
                        Proof::Equal => {
                            repr.insert(id, value);
                            merged += 1;
                            continue;
                        }
                        Proof::Apart(model) => {
                            refuted.extend(model.map(|m| pool.eval_order(&order, &m)));
                        }
                        Proof::Unknown => {}
                    }
                }
                continue;
            }
            let bucket = buckets.entry((width, hash)).or_default();
            let mut found = None;
            let mut tries = Vec::new();
            for &rep in bucket.iter() {
                let rep_now = repr[&rep];
                if rep_now == rebuilt {
                    found = Some(rep_now);
                    break;
                }
                if refuted.iter().all(|m| m.get(&id) == m.get(&rep)) {
                    tries.push(rep_now);
                }
            }
            if found.is_none() {
                for rep_now in tries {
                    if !in_budget(local) {
                        break;
                    }
                    match self.prove(pool, constraints, rebuilt, rep_now, &mut local)? {
                        Proof::Equal => {
                            found = Some(rep_now);
                            break;
                        }
                        Proof::Apart(model) => {
                            refuted.extend(model.map(|m| pool.eval_order(&order, &m)));
                        }
                        Proof::Unknown => {}
                    }
                }
            }
            match found {
                Some(rep_now) => {
                    if rep_now != rebuilt || rebuilt != id {
                        merged += 1;
                    }
                    repr.insert(id, rep_now);
                }
                None => {
                    let bucket = buckets.entry((width, hash)).or_default();
                    if bucket.len() < REPRESENTATIVES {
                        bucket.push(id);
                    }
                }
            }
        }
        self.stats.sweep_local_queries += u64::from(local);
        self.stats.sweep_merged += merged;
        let swept = repr[&query];
        Ok((swept != query).then_some(swept))
    }

    /// The inputs the terms are evaluated on.
    fn samples(&self, pool: &ExprPool, constraints: &[ExprId], query: ExprId) -> Vec<Assignment> {
        let mut arrays: Vec<ArrayId> = constraints
            .iter()
            .chain([&query])
            .flat_map(|&e| pool.arrays_in(e))
            .collect();
        arrays.sort_unstable();
        arrays.dedup();
        let sizes: Vec<(ArrayId, u32)> = arrays
            .iter()
            .map(|&a| (a, pool.array_info(a).size))
            .collect();
        let filled = |f: &mut dyn FnMut() -> u8| -> Assignment {
            sizes
                .iter()
                .map(|&(a, n)| (a, (0..n).map(|_| f()).collect()))
                .collect()
        };
        let mut samples = Vec::with_capacity(SAMPLES);
        if let Some(hint) = &self.hint {
            samples.push((**hint).clone());
        }
        samples.push(filled(&mut || 0));
        samples.push(filled(&mut || 0xff));
        let mut rng = super::SplitMix(0x9e37_79b9_7f4a_7c15u64 ^ u64::from(query.index() as u32));
        let mut next = move || rng.next();
        while samples.len() < SAMPLES {
            // Some samples small (bytes below 4), as inputs that pass bounds often are.
            let small = samples.len() % 4 == 0;
            samples.push(filled(&mut || {
                let r = next() as u8;
                if small {
                    r & 3
                } else {
                    r
                }
            }));
        }
        samples
    }
}

/// Every term `root` reaches (the value is unused).
fn cone(pool: &ExprPool, root: ExprId) -> FxHashMap<ExprId, ()> {
    let mut seen = FxHashMap::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if seen.insert(id, ()).is_none() {
            stack.extend(pool.node(id).children());
        }
    }
    seen
}

/// `root` with the terms of `map` replaced, rebuilt through the simplifying builders (the
/// terms below those of `map` are not visited).
fn replace(pool: &ExprPool, root: ExprId, map: &FxHashMap<ExprId, ExprId>) -> ExprId {
    let mut memo: FxHashMap<ExprId, ExprId> = map.clone();
    let mut stack = vec![(root, false)];
    let mut expanded: FxHashSet<ExprId> = FxHashSet::default();
    while let Some((id, done)) = stack.pop() {
        if memo.contains_key(&id) {
            continue;
        }
        let node = pool.node(id);
        if !done {
            if expanded.insert(id) {
                stack.push((id, true));
                stack.extend(node.children().map(|c| (c, false)));
            }
            continue;
        }
        let new = if node.children().all(|c| memo[&c] == c) {
            id
        } else {
            pool.rebuild(node, &|c| memo[&c])
        };
        memo.insert(id, new);
    }
    memo[&root]
}

impl Layer for SweepingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let budget = self.limit.or(self.timeout);
        let first_try = self.first_try.unwrap_or_default();
        if let Some(first_try) = self.first_try {
            if budget.is_some_and(|b| b <= first_try) {
                return self.inner.check(pool, constraints, query);
            }
            let first = self.ask(pool, constraints, query, Some(first_try))?;
            if !matches!(&first, SatResult::Unknown(why) if *why == TIMEOUT) {
                return Ok(first);
            }
        }
        let start = Instant::now();
        let left = budget.map(|b| b.saturating_sub(first_try));
        let sweep_time = left.map_or(Duration::from_secs(10), |l| l / 2);
        self.stats.sweep_queries += 1;
        let swept = self.sweep(pool, constraints, query, start + sweep_time)?;
        let rest = left.map(|l| l.saturating_sub(start.elapsed()));
        let Some(swept) = swept else {
            return self.ask(pool, constraints, query, rest.or(self.limit));
        };
        let result = self.ask(pool, constraints, swept, rest.or(self.limit))?;
        if !matches!(result, SatResult::Unknown(_)) {
            self.stats.sweep_decided += 1;
        }
        Ok(result)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.add(&self.stats);
    }

    fn keep_hint(&mut self, hint: &Option<Arc<Assignment>>) {
        self.hint = hint.clone();
    }

    fn keep_time_limit(&mut self, limit: Option<Duration>) {
        self.limit = limit;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::{build_chain, SolverConfig};

    use crate::solver::SplitMix as Rng;

    /// A random 16-bit term over the leaves.
    fn term(pool: &ExprPool, rng: &mut Rng, leaves: &[ExprId], depth: u32) -> ExprId {
        if depth == 0 || rng.below(4) == 0 {
            return if rng.below(5) == 0 {
                pool.constant(16, u128::from(rng.next() as u16))
            } else {
                leaves[rng.below(leaves.len() as u64) as usize]
            };
        }
        let a = term(pool, rng, leaves, depth - 1);
        let b = term(pool, rng, leaves, depth - 1);
        match rng.below(8) {
            0 => pool.add(a, b),
            1 => pool.sub(a, b),
            2 => pool.mul(a, b),
            3 => pool.and(a, b),
            4 => pool.or(a, b),
            5 => pool.xor(a, b),
            6 => pool.lshr(a, pool.constant(16, u128::from(rng.below(16)))),
            _ => pool.ite(pool.ult(a, b), a, b),
        }
    }

    /// `e` spelled otherwise at random places: the same value on every input.
    fn respell(pool: &ExprPool, rng: &mut Rng, e: ExprId) -> ExprId {
        let one = pool.constant(16, 1);
        match pool.node(e) {
            Node::Binary { op, lhs, rhs } if pool.width(e) == 16 => {
                let (a, b) = (respell(pool, rng, lhs), respell(pool, rng, rhs));
                use crate::expr::BinOp::*;
                match (op, rng.below(2)) {
                    (Add, 0) => pool.add(pool.xor(a, b), pool.shl(pool.and(a, b), one)),
                    (Xor, 0) => pool.sub(pool.or(a, b), pool.and(a, b)),
                    (Or, 0) => pool.add(pool.xor(a, b), pool.and(a, b)),
                    (Sub, 0) => pool.add(a, pool.add(pool.not(b), one)),
                    _ => pool.binary(op, a, b),
                }
            }
            Node::Ite { cond, then, els } => {
                let (t, f) = (respell(pool, rng, then), respell(pool, rng, els));
                let c = cond;
                if rng.below(2) == 0 {
                    pool.ite(pool.bool_not(c), f, t)
                } else {
                    pool.ite(c, t, f)
                }
            }
            _ => e,
        }
    }

    /// Random pairs of terms over two input bytes, one the other respelled (a quarter of
    /// them then changed), compared under a random constraint. Wherever the sweep rewrites
    /// the query, the rewritten query agrees with the original on every input the
    /// constraint allows (all 65,536 tried), and the layer's answer is the one evaluation
    /// gives.
    #[test]
    fn sweeping_agrees_with_evaluation_on_every_input() {
        let (mut rewritten, mut merged) = (0, 0);
        for case in 0..60u64 {
            let pool = ExprPool::new();
            let input = pool.new_array("in", 2);
            let x = pool.zext(pool.sym(input, 0), 16);
            let y = pool.zext(pool.sym(input, 1), 16);
            let mut rng = Rng(case);
            let leaves = [x, y, pool.add(x, y), pool.mul(x, pool.constant(16, 3))];
            let a = term(&pool, &mut rng, &leaves, 4);
            let mut b = respell(&pool, &mut rng, a);
            if case % 4 == 3 {
                b = pool.xor(
                    b,
                    pool.ite(
                        pool.eq(x, pool.constant(16, 77)),
                        pool.constant(16, 1),
                        pool.constant(16, 0),
                    ),
                );
            }
            let constraint = pool.ult(y, pool.constant(16, u128::from(rng.below(256) + 1)));
            let query = pool.bool_not(pool.eq(a, b));
            let inner = build_chain(&SolverConfig {
                sweep: false,
                ..SolverConfig::default()
            });
            let mut sweeping = SweepingSolver::new(inner, Some(Duration::from_secs(30)));
            sweeping.first_try = None;
            let until = Instant::now() + Duration::from_secs(20);
            let swept = sweeping.sweep(&pool, &[constraint], query, until).unwrap();
            let mut sat = false;
            for v in 0..=u16::MAX {
                let mut m = Assignment::new();
                m.set(input, v.to_le_bytes().to_vec());
                if !pool.eval_bool(constraint, &m) {
                    continue;
                }
                let q = pool.eval_bool(query, &m);
                sat |= q;
                if let Some(s) = swept {
                    assert_eq!(pool.eval_bool(s, &m), q, "case {case}, input {v:#x}");
                }
            }
            rewritten += usize::from(swept.is_some());
            merged += sweeping.stats.sweep_merged;
            let answer = sweeping.check(&pool, &[constraint], query).unwrap();
            match answer {
                SatResult::Sat(m) => {
                    assert!(sat, "case {case}: sat");
                    assert!(pool.eval_bool(query, &m) && pool.eval_bool(constraint, &m));
                }
                SatResult::Unsat => assert!(!sat, "case {case}: unsat"),
                SatResult::Unknown(why) => panic!("case {case}: unknown ({why})"),
            }
        }
        eprintln!("{rewritten} of 60 queries rewritten, {merged} terms merged");
        assert!(rewritten >= 20, "only {rewritten} rewritten");
    }
}
