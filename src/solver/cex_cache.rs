//! KLEE's counterexample cache: answers a query from earlier answers to subsets and supersets.
//!
//! A question `constraints ∧ query` is treated as the set `Q` of its width-1 expressions
//! (sorted, deduplicated ids; the constant `true` is left out because it constrains nothing).
//! For a new set `Q`, in this order:
//! 1. a cached unsatisfiable set `U ⊆ Q` makes `Q` unsatisfiable;
//! 2. a cached satisfiable set `S ⊇ Q` has a model that satisfies `Q`;
//! 3. the models of the most recent satisfiable sets, and of cached satisfiable subsets of `Q`,
//!    are tried by evaluation: a model of a set `S` already satisfies `S ∩ Q`, so only `Q \ S`
//!    is evaluated (arrays the model lacks read 0), cheapest difference first, and the first
//!    model under which all of it is true answers `Q`;
//! 4. otherwise the wrapped solver answers, and its `Sat` and `Unsat` answers are cached for
//!    `Q`. `Unknown` answers are not cached, because they depend on the load of the machine.
//!
//! Soundness. A model is cached only after concrete evaluation showed that it satisfies every
//! expression of its set, so every model this layer returns satisfies the whole question: a
//! superset's model by that check, a reused model by that check on `S ∩ Q` and by evaluation
//! of `Q \ S`. A reused model is completed with all-zero contents for the arrays of `Q \ S` it
//! lacks (the values it was evaluated with), so it assigns every array the question mentions.
//! Models may also assign arrays that the question does not mention, as KLEE's do.
//!
//! Indexes. Every cached set is indexed by its rarest element (the one in the fewest cached
//! sets when it is inserted), so the candidate subsets of `Q` are the sets filed under an
//! element of `Q`, each seen once; satisfiable sets are also indexed by every element, so the
//! candidate supersets of `Q` are those filed under the element of `Q` with the shortest list.
//! Candidates are examined newest first: a 512-bit signature of each set rejects most of those
//! that are not subsets (or supersets) at once, and a galloping search over the sorted ids
//! decides the others. Each search stops after a fixed number of candidates, which bounds the
//! cost of a question whatever the cache holds. An exact repeat of a cached set is found by
//! hashing. The cache is emptied when it holds too many sets, expression ids or model bytes;
//! the recent models survive that, as they stay valid for the pool.
//!
//! Expression ids are only meaningful in the pool that created them, so all state is dropped
//! when the layer is handed a different pool.

use super::layer::{wraps_inner, Layer};
use super::{fill_missing_arrays, pool_key, SatResult, Solver, SolverError, SolverStats};
use crate::expr::{Assignment, ExprId, ExprPool};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::sync::Arc;

/// Sets held before the cache is emptied.
pub const DEFAULT_CEX_CAPACITY: usize = 50_000;

/// Expression ids held in all cached sets together before the cache is emptied.
const ELEMENT_LIMIT: usize = 1 << 22;

/// Model bytes held by all cached sets together before the cache is emptied.
const MODEL_BYTES_LIMIT: usize = 1 << 26;

/// Distinct models kept for reuse, most recent last.
const RECENT_MODELS: usize = 32;

/// Candidate sets examined by one subset or superset search.
const CANDIDATE_LIMIT: usize = 1024;

/// Cached subsets of the question whose models are tried, on top of the recent models.
const SUBSET_MODELS: usize = 16;

/// Models evaluated for one question before the wrapped solver is asked.
const EVALUATION_LIMIT: usize = 16;

/// A sorted, deduplicated set of width-1 expressions.
type Set = Arc<[ExprId]>;

/// A 512-bit Bloom signature of a set: one bit per element, chosen by a hash of its id. A set
/// whose signature has a bit that another's lacks is not a subset of it, which rejects most
/// candidates of a search without looking at their elements.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Signature([u64; 8]);

impl Signature {
    fn of(set: &[ExprId]) -> Self {
        let mut words = [0u64; 8];
        for e in set {
            // Fibonacci hashing: the top 9 bits of the product pick one of 512 bits.
            let bit = ((e.index() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 55) as usize;
            words[bit / 64] |= 1 << (bit % 64);
        }
        Self(words)
    }

    /// Whether the set of `self` may be a subset of the set of `other`.
    fn may_be_subset_of(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }
}

/// A question's set and its signature.
struct Question<'a> {
    set: &'a [ExprId],
    signature: Signature,
}

/// One cached answer.
struct Entry {
    set: Set,
    signature: Signature,
    /// A model of every expression of the set, or `None` when the set is unsatisfiable.
    model: Option<Arc<Assignment>>,
}

/// The cached answers of one pool and their indexes. Entries are numbered by insertion, so
/// larger numbers are newer.
#[derive(Default)]
struct Tables {
    entries: Vec<Entry>,
    exact: FxHashMap<Set, u32>,
    /// In how many cached sets each expression occurs.
    frequency: FxHashMap<ExprId, u32>,
    /// Unsatisfiable sets, filed under their rarest element.
    unsat_by_key: FxHashMap<ExprId, Vec<u32>>,
    /// Satisfiable sets, filed under their rarest element.
    sat_by_key: FxHashMap<ExprId, Vec<u32>>,
    /// Satisfiable sets, filed under every element.
    sat_by_element: FxHashMap<ExprId, Vec<u32>>,
    elements: usize,
    model_bytes: usize,
}

impl Tables {
    /// Whether a cached unsatisfiable set is a subset of the question's.
    fn has_unsat_subset(&self, q: &Question) -> bool {
        let mut budget = CANDIDATE_LIMIT;
        // Newer expressions (larger ids) first: the query is usually among them.
        for e in q.set.iter().rev() {
            for &i in self.unsat_by_key.get(e).into_iter().flatten().rev() {
                if budget == 0 {
                    return false;
                }
                budget -= 1;
                if self.entries[i as usize].is_subset_of(q) {
                    return true;
                }
            }
        }
        false
    }

    /// The model of a cached satisfiable superset of the question's set, if one is found.
    fn sat_superset(&self, q: &Question) -> Option<&Arc<Assignment>> {
        let mut shortest: Option<&Vec<u32>> = None;
        for e in q.set {
            // An element in no satisfiable set rules every superset out.
            let list = self.sat_by_element.get(e)?;
            match shortest {
                Some(s) if s.len() <= list.len() => {}
                _ => shortest = Some(list),
            }
        }
        shortest?
            .iter()
            .rev()
            .take(CANDIDATE_LIMIT)
            .map(|&i| &self.entries[i as usize])
            .find(|entry| entry.is_superset_of(q))
            .and_then(|entry| entry.model.as_ref())
    }

    /// Up to [`SUBSET_MODELS`] cached satisfiable subsets of the question's set with their
    /// models, newest first.
    fn sat_subsets(&self, q: &Question) -> Vec<(&Set, &Arc<Assignment>)> {
        let mut found = Vec::new();
        let mut budget = CANDIDATE_LIMIT;
        for e in q.set.iter().rev() {
            for &i in self.sat_by_key.get(e).into_iter().flatten().rev() {
                if budget == 0 || found.len() == SUBSET_MODELS {
                    return found;
                }
                budget -= 1;
                let entry = &self.entries[i as usize];
                if let Some(model) = &entry.model {
                    if entry.is_subset_of(q) {
                        found.push((&entry.set, model));
                    }
                }
            }
        }
        found
    }

    /// Caches the answer for `set` (a model, or `None` for unsatisfiable), emptying the
    /// tables first when they are full. A set already cached keeps its first answer.
    fn insert(&mut self, capacity: usize, set: Set, model: Option<Arc<Assignment>>) {
        if self.exact.contains_key(&set) {
            return;
        }
        let bytes = model.as_deref().map_or(0, model_bytes);
        if self.entries.len() >= capacity
            || self.elements + set.len() > ELEMENT_LIMIT
            || self.model_bytes + bytes > MODEL_BYTES_LIMIT
        {
            *self = Tables::default();
        }
        let index = u32::try_from(self.entries.len()).expect("cache capacity fits in u32");
        // The rarest element; among equally rare ones the newest, which is the most specific.
        let key = set
            .iter()
            .copied()
            .min_by_key(|e| (self.frequency.get(e).copied().unwrap_or(0), Reverse(*e)))
            .expect("cached sets are not empty");
        for &e in set.iter() {
            *self.frequency.entry(e).or_default() += 1;
        }
        if model.is_some() {
            self.sat_by_key.entry(key).or_default().push(index);
            for &e in set.iter() {
                self.sat_by_element.entry(e).or_default().push(index);
            }
        } else {
            self.unsat_by_key.entry(key).or_default().push(index);
        }
        self.elements += set.len();
        self.model_bytes += bytes;
        self.exact.insert(Arc::clone(&set), index);
        let signature = Signature::of(&set);
        self.entries.push(Entry {
            set,
            signature,
            model,
        });
    }
}

impl Entry {
    /// Whether this set is a subset of the question's.
    fn is_subset_of(&self, q: &Question) -> bool {
        self.signature.may_be_subset_of(&q.signature) && is_subset(&self.set, q.set)
    }

    /// Whether this set is a superset of the question's.
    fn is_superset_of(&self, q: &Question) -> bool {
        q.signature.may_be_subset_of(&self.signature) && is_subset(q.set, &self.set)
    }
}

/// A [`Solver`] layer that answers questions from the answers to their subsets and supersets.
pub struct CexCachingSolver {
    inner: Box<dyn Solver>,
    tables: Tables,
    /// The last [`RECENT_MODELS`] distinct models with the sets they satisfy, newest last.
    /// They survive the emptying of a full cache, but not a change of pool.
    recent: VecDeque<(Set, Arc<Assignment>)>,
    capacity: usize,
    pool: usize,
    unsat_subset_hits: u64,
    sat_superset_hits: u64,
    model_reuse_hits: u64,
    /// Questions that reached model reuse, and those that tried it.
    reuse_questions: u64,
    reuse_attempts: u64,
    misses: u64,
}

/// Attempts after which model reuse is judged by its hit rate.
const REUSE_TRIAL: u64 = 64;
/// Below one hit in this many attempts, model reuse is only tried on every
/// [`REUSE_TRIAL`]-th question (to notice when it starts paying again).
const REUSE_RATE: u64 = 32;

impl CexCachingSolver {
    /// Caches the answers of `inner`, holding at most
    /// [`DEFAULT_CEX_CAPACITY`](super::DEFAULT_CEX_CAPACITY) sets.
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self::with_capacity(inner, DEFAULT_CEX_CAPACITY)
    }

    /// Caches the answers of `inner`, emptying the cache when it holds `capacity` sets.
    pub fn with_capacity(inner: Box<dyn Solver>, capacity: usize) -> Self {
        Self {
            inner,
            tables: Tables::default(),
            recent: VecDeque::with_capacity(RECENT_MODELS + 1),
            capacity: capacity.clamp(1, u32::MAX as usize),
            pool: 0,
            unsat_subset_hits: 0,
            sat_superset_hits: 0,
            model_reuse_hits: 0,
            reuse_questions: 0,
            reuse_attempts: 0,
            misses: 0,
        }
    }

    /// The number of cached sets.
    pub fn len(&self) -> usize {
        self.tables.entries.len()
    }

    /// Whether no set is cached.
    pub fn is_empty(&self) -> bool {
        self.tables.entries.is_empty()
    }

    /// Answers `set` from the cache, or `None` when the wrapped solver must be asked.
    fn lookup(&mut self, pool: &ExprPool, set: &[ExprId]) -> Option<SatResult> {
        if let Some(&i) = self.tables.exact.get(set) {
            return Some(match &self.tables.entries[i as usize].model {
                None => {
                    self.unsat_subset_hits += 1;
                    SatResult::Unsat
                }
                Some(model) => {
                    self.sat_superset_hits += 1;
                    SatResult::Sat(Assignment::clone(model))
                }
            });
        }
        let q = Question {
            set,
            signature: Signature::of(set),
        };
        if self.tables.has_unsat_subset(&q) {
            self.unsat_subset_hits += 1;
            return Some(SatResult::Unsat);
        }
        if let Some(model) = self.tables.sat_superset(&q) {
            self.sat_superset_hits += 1;
            return Some(SatResult::Sat(Assignment::clone(model)));
        }
        // Evaluating every recent model costs more than a query when the path's own model
        // already answered what it could (whole programs: about a quarter of the run, with
        // no hit at all); reuse that keeps failing is only tried now and then.
        self.reuse_questions += 1;
        let failing = self.reuse_attempts >= REUSE_TRIAL
            && self.model_reuse_hits * REUSE_RATE < self.reuse_attempts;
        if failing && !self.reuse_questions.is_multiple_of(REUSE_TRIAL) {
            return None;
        }
        self.reuse_attempts += 1;
        let model = self.reuse(pool, &q)?;
        self.model_reuse_hits += 1;
        Some(SatResult::Sat(model))
    }

    /// Tries the recent models and those of cached subsets of the question's set: the first
    /// under which every expression of the set is true is completed, cached for the set and
    /// returned.
    fn reuse(&mut self, pool: &ExprPool, q: &Question) -> Option<Assignment> {
        let set = q.set;
        // Each candidate: the expressions of `set` its model is not known to satisfy, and the
        // model. Recent models come first, newest first, then those of subsets.
        let mut candidates: Vec<(Vec<ExprId>, Arc<Assignment>)> = Vec::new();
        let recent = self.recent.iter().rev().map(|(s, m)| (s, m));
        for (satisfied, model) in recent.chain(self.tables.sat_subsets(q)) {
            if candidates.iter().any(|(_, m)| Arc::ptr_eq(m, model)) {
                continue;
            }
            candidates.push((difference(set, satisfied), Arc::clone(model)));
        }
        // Cheapest evaluation first; the sort is stable, so newer models win ties.
        candidates.sort_by_key(|(unknown, _)| unknown.len());
        let (unknown, model) = candidates
            .into_iter()
            .take(EVALUATION_LIMIT)
            .find(|(unknown, model)| pool.eval_all(unknown, model).iter().all(|&v| v == 1))?;
        let mut completed = Assignment::clone(&model);
        fill_missing_arrays(pool, &mut completed, &unknown);
        // Completion only adds arrays: when it added none, the model is shared, not copied.
        let completed = if completed.len() == model.len() {
            Arc::clone(&model)
        } else {
            Arc::new(completed)
        };
        let set: Set = set.into();
        // The completed model replaces the one it was made from among the recent models.
        self.recent.retain(|(_, m)| !Arc::ptr_eq(m, &model));
        self.remember(Arc::clone(&set), Arc::clone(&completed));
        self.tables
            .insert(self.capacity, set, Some(Arc::clone(&completed)));
        Some(Assignment::clone(&completed))
    }

    /// Makes `model`, a model of `set`, the most recent one, forgetting an equal older one
    /// and the oldest beyond [`RECENT_MODELS`].
    fn remember(&mut self, set: Set, model: Arc<Assignment>) {
        self.recent.retain(|(_, m)| **m != *model);
        self.recent.push_back((set, model));
        if self.recent.len() > RECENT_MODELS {
            self.recent.pop_front();
        }
    }
}

impl Layer for CexCachingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let key = pool_key(pool);
        if key != self.pool {
            self.tables = Tables::default();
            self.recent.clear();
            self.pool = key;
        }
        let truth = pool.true_();
        let mut set: Vec<ExprId> = constraints
            .iter()
            .copied()
            .chain([query])
            .filter(|&e| e != truth)
            .collect();
        set.sort_unstable();
        set.dedup();
        if !set.is_empty() {
            if let Some(answer) = self.lookup(pool, &set) {
                return Ok(answer);
            }
        }
        self.misses += 1;
        let answer = self.inner.check(pool, constraints, query)?;
        if set.is_empty() {
            return Ok(answer);
        }
        match &answer {
            SatResult::Unsat => self.tables.insert(self.capacity, set.into(), None),
            // A model that fails evaluation is not cached; the validating layer reports it.
            SatResult::Sat(model) if pool.eval_all(&set, model).iter().all(|&v| v == 1) => {
                let set: Set = set.into();
                let model = Arc::new(model.clone());
                self.remember(Arc::clone(&set), Arc::clone(&model));
                self.tables.insert(self.capacity, set, Some(model));
            }
            SatResult::Sat(_) | SatResult::Unknown(_) => {}
        }
        Ok(answer)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.cex_unsat_subset_hits += self.unsat_subset_hits;
        stats.cex_sat_superset_hits += self.sat_superset_hits;
        stats.cex_model_reuse_hits += self.model_reuse_hits;
        stats.cex_misses += self.misses;
    }
}

/// Whether every element of the sorted `small` is in the sorted `big`. The elements are looked
/// up newest (largest) first, each by a galloping search down from the previous match: sets
/// that share a long prefix of path constraints usually differ in their newest elements, so a
/// failing test tends to stop early, and a succeeding one costs little more than a merge when
/// the sets are of similar size and a few binary searches when `small` is much smaller.
fn is_subset(small: &[ExprId], big: &[ExprId]) -> bool {
    match (small.first(), small.last(), big.first(), big.last()) {
        (None, ..) => return true,
        (Some(lo), Some(hi), Some(big_lo), Some(big_hi)) => {
            if small.len() > big.len() || lo < big_lo || hi > big_hi {
                return false;
            }
        }
        _ => return false,
    }
    // Invariant: every element of `small` not yet found is in `big[..end]` if it is in `big`.
    let mut end = big.len();
    for e in small.iter().rev() {
        // Find a window `big[start..end]` whose first element is at most `e`.
        let mut step = 1;
        let mut start = end.saturating_sub(1);
        while start > 0 && big[start] > *e {
            end = start;
            start = start.saturating_sub(step);
            step *= 2;
        }
        match big[start..end].binary_search(e) {
            Ok(i) => end = start + i,
            Err(_) => return false,
        }
    }
    true
}

/// The elements of the sorted `set` that are not in the sorted `other`.
fn difference(set: &[ExprId], other: &[ExprId]) -> Vec<ExprId> {
    let mut rest = other.iter().peekable();
    set.iter()
        .copied()
        .filter(|&e| {
            while rest.next_if(|&&o| o < e).is_some() {}
            rest.peek() != Some(&&e)
        })
        .collect()
}

/// The bytes of contents a model holds.
fn model_bytes(model: &Assignment) -> usize {
    model.iter().map(|(_, bytes)| bytes.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::testing::Scripted;
    use crate::solver::BitwuzlaSolver;

    /// A pool with an input array `x` of two bytes and an input array `y` of one byte.
    struct Vars {
        pool: ExprPool,
        x: crate::expr::ArrayId,
        y: crate::expr::ArrayId,
    }

    impl Vars {
        fn new() -> Self {
            let pool = ExprPool::new();
            let x = pool.new_array("x", 2);
            let y = pool.new_array("y", 1);
            Self { pool, x, y }
        }

        /// `x[i] == v`.
        fn x_is(&self, i: u32, v: u128) -> ExprId {
            self.pool
                .eq(self.pool.sym(self.x, i), self.pool.constant(8, v))
        }

        /// `x[i] < v`.
        fn x_below(&self, i: u32, v: u128) -> ExprId {
            self.pool
                .ult(self.pool.sym(self.x, i), self.pool.constant(8, v))
        }

        /// A model giving `x` the bytes `bytes`.
        fn model(&self, bytes: [u8; 2]) -> Assignment {
            let mut model = Assignment::new();
            model.set(self.x, bytes.to_vec());
            model
        }
    }

    /// Whether every expression of `es` is true under `model`.
    fn all_true(pool: &ExprPool, es: &[ExprId], model: &Assignment) -> bool {
        pool.eval_all(es, model).iter().all(|&v| v == 1)
    }

    #[test]
    fn an_unsat_subset_answers_its_supersets() {
        let v = Vars::new();
        let (a, b, c, d) = (v.x_is(0, 1), v.x_is(0, 2), v.x_below(1, 9), v.x_is(1, 3));
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert_eq!(solver.check(&v.pool, &[a], b).unwrap(), SatResult::Unsat);
        // Supersets of {a, b}, whatever the split between constraints and query.
        assert_eq!(solver.check(&v.pool, &[a, c], b).unwrap(), SatResult::Unsat);
        assert_eq!(
            solver.check(&v.pool, &[d, b, c, a], c).unwrap(),
            SatResult::Unsat
        );
        assert_eq!(solver.check(&v.pool, &[b], a).unwrap(), SatResult::Unsat);
        assert_eq!(calls.lock().unwrap().len(), 1);
        // Sets that lack `a` or `b` are not supersets.
        solver.check(&v.pool, &[a, c], d).unwrap();
        solver.check(&v.pool, &[c, d], b).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 3);
        let stats = solver.stats();
        assert_eq!(stats.cex_unsat_subset_hits, 3);
        assert_eq!(stats.cex_misses, 3);
        assert_eq!(stats.cex_sat_superset_hits + stats.cex_model_reuse_hits, 0);
    }

    #[test]
    fn a_sat_supersets_model_answers_its_subsets() {
        let v = Vars::new();
        let (a, b, q) = (v.x_below(0, 9), v.x_is(1, 4), v.x_is(0, 3));
        let model = v.model([3, 4]);
        let answer = model.clone();
        let (inner, calls) = Scripted::new(move |_, _, _| SatResult::Sat(answer.clone()));
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert_eq!(
            solver.check(&v.pool, &[a, b], q).unwrap(),
            SatResult::Sat(model.clone())
        );
        for (constraints, query) in [(&[a][..], q), (&[b][..], a), (&[][..], b), (&[q, a], a)] {
            let SatResult::Sat(found) = solver.check(&v.pool, constraints, query).unwrap() else {
                panic!("expected Sat");
            };
            assert_eq!(found, model);
            assert!(all_true(&v.pool, &[constraints, &[query]].concat(), &found));
        }
        assert_eq!(calls.lock().unwrap().len(), 1);
        let stats = solver.stats();
        assert_eq!(stats.cex_sat_superset_hits, 4);
        assert_eq!(stats.cex_misses, 1);
    }

    #[test]
    fn a_recent_model_that_satisfies_a_new_query_is_reused() {
        let v = Vars::new();
        let (a, q) = (v.x_below(0, 9), v.x_is(0, 3));
        let on_x1 = v.x_below(1, 5);
        let on_y = v.pool.eq(v.pool.sym(v.y, 0), v.pool.constant(8, 0));
        let (inner, calls) = Scripted::new({
            let model = v.model([3, 0]);
            move |_, _, _| SatResult::Sat(model.clone())
        });
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert!(solver.check(&v.pool, &[a], q).unwrap().is_sat());
        // Neither subset nor superset of {a, q}, but true under its model; `y` is missing
        // from that model, reads 0, and is given its zero bytes in the returned model.
        let SatResult::Sat(found) = solver.check(&v.pool, &[a, on_y], on_x1).unwrap() else {
            panic!("expected Sat");
        };
        assert!(all_true(&v.pool, &[a, on_y, on_x1], &found));
        assert_eq!(found.get(v.x), Some(&[3, 0][..]));
        assert_eq!(found.get(v.y), Some(&[0][..]));
        assert_eq!(calls.lock().unwrap().len(), 1);
        // The reused answer was cached: its subsets are now superset hits.
        assert!(solver.check(&v.pool, &[on_y], a).unwrap().is_sat());
        // A query the recent models falsify goes to the inner solver.
        solver.check(&v.pool, &[a], v.x_is(0, 5)).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 2);
        let stats = solver.stats();
        assert_eq!(stats.cex_model_reuse_hits, 1);
        assert_eq!(stats.cex_sat_superset_hits, 1);
        assert_eq!(stats.cex_misses, 2);
    }

    #[test]
    fn models_of_cached_subsets_are_reused() {
        let v = Vars::new();
        let (a, b, c) = (v.x_below(0, 9), v.x_below(1, 9), v.x_below(1, 7));
        let (inner, calls) = Scripted::new({
            let model = v.model([2, 2]);
            move |_, _, _| SatResult::Sat(model.clone())
        });
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert!(solver.check(&v.pool, &[a], b).unwrap().is_sat());
        // Without recent models, only the index of subsets can find the model of {a, b}.
        solver.recent.clear();
        let SatResult::Sat(found) = solver.check(&v.pool, &[a, b], c).unwrap() else {
            panic!("expected Sat");
        };
        assert!(all_true(&v.pool, &[a, b, c], &found));
        assert_eq!(calls.lock().unwrap().len(), 1);
        assert_eq!(solver.stats().cex_model_reuse_hits, 1);
    }

    #[test]
    fn returned_models_always_satisfy_the_query() {
        let v = Vars::new();
        let pool = &v.pool;
        let (x0, x1) = (pool.sym(v.x, 0), pool.sym(v.x, 1));
        let k = |n| pool.constant(8, n);
        let atoms = [
            pool.ult(x0, k(10)),
            pool.ult(k(4), x0),
            pool.eq(x0, k(7)),
            pool.ne(x1, k(0)),
            pool.ult(x1, k(3)),
            pool.eq(pool.add(x0, x1), k(9)),
            pool.ult(pool.add(x0, x1), k(12)),
            pool.eq(x1, k(2)),
            pool.ult(k(200), pool.mul(x0, k(3))),
            pool.eq(pool.sym(v.y, 0), x0),
            pool.ult(pool.sym(v.y, 0), k(5)),
        ];
        let mut solver = CexCachingSolver::new(Box::new(BitwuzlaSolver::new(None)));
        let mut reference = BitwuzlaSolver::new(None);
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..400 {
            let constraints: Vec<ExprId> = (0..next(5)).map(|_| atoms[next(atoms.len())]).collect();
            let query = atoms[next(atoms.len())];
            let expected = reference.check(pool, &constraints, query).unwrap();
            match solver.check(pool, &constraints, query).unwrap() {
                SatResult::Sat(model) => {
                    assert!(expected.is_sat(), "{constraints:?} {query:?}");
                    assert!(all_true(
                        pool,
                        &[&constraints[..], &[query]].concat(),
                        &model
                    ));
                }
                other => assert_eq!(other, expected, "{constraints:?} {query:?}"),
            }
        }
        let stats = solver.stats();
        let hits =
            stats.cex_unsat_subset_hits + stats.cex_sat_superset_hits + stats.cex_model_reuse_hits;
        assert_eq!(hits + stats.cex_misses, 400);
        assert!(stats.cex_unsat_subset_hits > 0 && stats.cex_sat_superset_hits > 0);
        assert!(stats.cex_model_reuse_hits > 0);
        assert!(stats.backend_queries < 200, "{stats:?}");
    }

    #[test]
    fn an_invalid_model_is_returned_but_not_cached() {
        let v = Vars::new();
        let (a, q) = (v.x_below(0, 9), v.x_is(0, 3));
        let (inner, calls) = Scripted::new({
            let model = v.model([5, 0]);
            move |_, _, _| SatResult::Sat(model.clone())
        });
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert_eq!(
            solver.check(&v.pool, &[a], q).unwrap(),
            SatResult::Sat(v.model([5, 0]))
        );
        assert!(solver.is_empty());
        assert!(solver.recent.is_empty());
        solver.check(&v.pool, &[], q).unwrap();
        assert_eq!(calls.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_new_pool_clears_the_cache() {
        let first = Vars::new();
        let (q, c) = (first.x_is(0, 1), first.x_below(1, 4));
        let (inner, calls) = Scripted::new(|_, constraints: &[ExprId], _| {
            if constraints.is_empty() {
                SatResult::Unsat
            } else {
                SatResult::Unknown("timeout".into())
            }
        });
        let mut solver = CexCachingSolver::new(Box::new(inner));
        assert_eq!(solver.check(&first.pool, &[], q).unwrap(), SatResult::Unsat);
        assert_eq!(solver.len(), 1);
        // The same ids in another pool: the superset {c, q} is not answered from the first.
        let second = Vars::new();
        assert_eq!((second.x_is(0, 1), second.x_below(1, 4)), (q, c));
        assert_eq!(
            solver.check(&second.pool, &[c], q).unwrap(),
            SatResult::Unknown("timeout".into())
        );
        assert_eq!(calls.lock().unwrap().len(), 2);
        assert!(solver.is_empty());
    }

    #[test]
    fn a_new_pool_forgets_the_recent_models() {
        let first = Vars::new();
        let (inner, calls) = Scripted::new({
            let model = first.model([3, 0]);
            move |_, _, _| SatResult::Sat(model.clone())
        });
        let mut solver = CexCachingSolver::new(Box::new(inner));
        solver.check(&first.pool, &[], first.x_is(0, 3)).unwrap();
        let second = Vars::new();
        solver
            .check(&second.pool, &[], second.x_below(0, 9))
            .unwrap();
        assert_eq!(calls.lock().unwrap().len(), 2);
        assert_eq!(solver.stats().cex_model_reuse_hits, 0);
    }

    #[test]
    fn unknown_answers_are_not_cached() {
        let v = Vars::new();
        let q = v.x_is(0, 1);
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Unknown("timeout".into()));
        let mut solver = CexCachingSolver::new(Box::new(inner));
        for _ in 0..2 {
            assert_eq!(
                solver.check(&v.pool, &[], q).unwrap(),
                SatResult::Unknown("timeout".into())
            );
        }
        assert_eq!(calls.lock().unwrap().len(), 2);
        assert!(solver.is_empty());
        assert_eq!(solver.stats().cex_misses, 2);
    }

    #[test]
    fn questions_without_expressions_pass_through() {
        let pool = ExprPool::new();
        let (inner, calls) = Scripted::new(|_, _, _| SatResult::Sat(Assignment::new()));
        let mut solver = CexCachingSolver::new(Box::new(inner));
        let t = pool.true_();
        for _ in 0..2 {
            assert!(solver.check(&pool, &[t], t).unwrap().is_sat());
        }
        assert_eq!(calls.lock().unwrap().len(), 2);
        assert!(solver.is_empty());
    }

    #[test]
    fn a_full_cache_is_emptied() {
        let v = Vars::new();
        let (inner, _) = Scripted::new(|_, _, _| SatResult::Unsat);
        let mut solver = CexCachingSolver::with_capacity(Box::new(inner), 2);
        for value in 0..3 {
            solver.check(&v.pool, &[], v.x_is(0, value)).unwrap();
        }
        assert_eq!(solver.len(), 1);
    }

    #[test]
    fn set_operations() {
        let ids: Vec<ExprId> = {
            let pool = ExprPool::new();
            (0..40).map(|n| pool.constant(8, n)).collect()
        };
        let pick = |ns: &[usize]| -> Vec<ExprId> { ns.iter().map(|&n| ids[n]).collect() };
        let big = pick(&(0..40).step_by(2).collect::<Vec<_>>());
        assert!(is_subset(&pick(&[2, 4, 38]), &big));
        assert!(is_subset(&pick(&[4]), &big));
        assert!(is_subset(&[], &big));
        assert!(!is_subset(&pick(&[2, 3]), &big));
        assert!(!is_subset(&pick(&[3]), &big));
        assert!(!is_subset(&pick(&[0, 39]), &big));
        assert!(is_subset(&big, &big));
        assert!(!is_subset(&big, &pick(&[0, 2])));
        assert_eq!(
            difference(&pick(&[1, 2, 3, 4, 9]), &pick(&[0, 2, 4, 6])),
            pick(&[1, 3, 9])
        );
        assert_eq!(difference(&pick(&[1, 2]), &[]), pick(&[1, 2]));
        assert_eq!(difference(&[], &pick(&[1])), vec![]);
        // Against the definitions, on pseudo-random sets of every density.
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut random_set = |density: u64| -> Vec<ExprId> {
            ids.iter()
                .copied()
                .filter(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed % 100 < density
                })
                .collect()
        };
        for round in 0..2000u64 {
            let small = random_set(round % 50);
            let big = random_set(50 + round % 50);
            let mut merged = big.clone();
            merged.extend(&small);
            merged.sort_unstable();
            merged.dedup();
            for (a, b) in [(&small, &big), (&big, &small), (&small, &merged)] {
                assert_eq!(is_subset(a, b), a.iter().all(|e| b.contains(e)));
                let expected: Vec<ExprId> = a.iter().copied().filter(|e| !b.contains(e)).collect();
                assert_eq!(difference(a, b), expected);
            }
        }
    }
}
