//! Poison-producing flags at a path's end (`--ub report`).
//!
//! An operation whose `nsw`/`nuw`/`exact`/`disjoint` flag may fail keeps the operator's
//! value while the path runs (`exec/undefined.rs: FlaggedValue`): a fresh value there would
//! ride along in every later expression and make every query of the path harder. Whether
//! the outcome rests on the poison is asked here, once the path has ended, and only of the
//! operations whose value the outcome or a branch reads (`reaching`):
//!
//! - a branch that read a flagged value where its flag fails branched on poison, which is
//!   undefined behaviour whatever the results are ([`Poisoned::branch_poison`]);
//! - a result that reads one is made again with the value fresh where the flag fails, each
//!   side's own ([`fresh_outcome`]): the results agree only if they agree for every value
//!   the poison may take, as the language gives none.
//!
//! The verdict (`verdict.rs`) turns what is found into a row naming the operations.

use crate::exec::{FlaggedValue, SideOutcome, State, Value};
use crate::expr::{BinOp, ExprId, ExprPool, Node};
use rustc_hash::{FxHashMap, FxHashSet};

/// The indices of the operations of `flagged` (restricted to `keep`) whose value the
/// expressions `roots` read, directly or through the results that absorbed it (`links`,
/// `State::flagged_links`).
pub(super) fn reaching(
    pool: &ExprPool,
    (flagged, links): (&[FlaggedValue], &[(ExprId, ExprId)]),
    keep: impl Fn(usize, &FlaggedValue) -> bool,
    roots: &[ExprId],
) -> Vec<usize> {
    let mut by_node: FxHashMap<ExprId, Vec<usize>> = FxHashMap::default();
    let mut found = Vec::new();
    for (i, f) in flagged.iter().enumerate().filter(|&(i, f)| keep(i, f)) {
        by_node.entry(f.node).or_default().push(i);
    }
    if by_node.is_empty() {
        return found;
    }
    // A link is one more child: what the absorber was computed from.
    let mut absorbed: FxHashMap<ExprId, Vec<ExprId>> = FxHashMap::default();
    for &(from, to) in links {
        absorbed.entry(to).or_default().push(from);
    }
    let mut reached: FxHashSet<ExprId> = FxHashSet::default();
    let mut stack: Vec<ExprId> = roots.to_vec();
    while let Some(id) = stack.pop() {
        if !reached.insert(id) {
            continue;
        }
        stack.extend(pool.node(id).children());
        stack.extend(absorbed.get(&id).into_iter().flatten());
    }
    for (node, events) in &by_node {
        if reached.contains(node) {
            found.extend(events);
        }
    }
    // A fresh value (of a flag that failed on concrete operands) is read wherever its
    // bytes are: a comparison with a constant reads them one by one.
    let fresh: FxHashMap<crate::expr::ArrayId, usize> = flagged
        .iter()
        .enumerate()
        .filter(|&(i, f)| keep(i, f))
        .filter_map(|(i, f)| Some((f.fresh?, i)))
        .collect();
    if !fresh.is_empty() {
        for &id in &reached {
            if let Node::Sym { array, .. } = pool.node(id) {
                found.extend(fresh.get(&array));
            }
        }
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// Which flagged operations of `state` may fail on its whole path: the path condition as
/// it ended often rules out what it could not when the operation ran (a shift `exact` by
/// one, run before the branch that tests the bit it drops).
fn possible(pool: &ExprPool, state: &State) -> Vec<bool> {
    let mut stats = crate::exec::constraints::ConstraintStats::default();
    state
        .flagged
        .iter()
        .map(|f| state.constraints.decide(pool, f.cond, &mut stats) != Some(false))
        .collect()
}

/// The expressions a side's outcome holds: its return value, buffers and globals, or its
/// exit status.
pub(super) fn outcome_roots(pool: &ExprPool, outcome: &SideOutcome) -> Vec<ExprId> {
    let values: Vec<&Value> = match outcome {
        SideOutcome::Returned { value, buffers } => {
            value.iter().chain(buffers.iter().flatten()).collect()
        }
        SideOutcome::Exited(v) => vec![v],
        SideOutcome::Failed(_) => Vec::new(),
    };
    values
        .into_iter()
        .filter(|v| !v.is_concrete())
        .map(|v| v.expr(pool))
        .collect()
}

/// Fresh values for the flagged operations of one path, one per operation, shared by
/// everything made fresh for the path's decision (a branch and a result that read the same
/// poison see the same value).
pub(super) struct Poisoned<'p> {
    pool: &'p ExprPool,
    flagged: &'p [FlaggedValue],
    links: &'p [(ExprId, ExprId)],
    branched: &'p [ExprId],
    /// Which operations the path condition allows to fail ([`possible`]).
    live: Vec<bool>,
    fresh: FxHashMap<usize, (crate::expr::ArrayId, ExprId)>,
}

impl<'p> Poisoned<'p> {
    pub(super) fn new(pool: &'p ExprPool, state: &'p State) -> Self {
        let lists = (&state.flagged[..], &state.flagged_links[..]);
        Poisoned {
            live: possible(pool, state),
            ..Self::of(pool, lists, &state.branched)
        }
    }

    /// The flagged operations the path condition lets fail whose value `roots` read.
    pub(super) fn reaching(&self, roots: &[ExprId]) -> Vec<usize> {
        let lists = (self.flagged, self.links);
        reaching(self.pool, lists, |i, _| self.live[i], roots)
    }

    /// The flagged operations of side `phase` its outcome reads.
    pub(super) fn reaching_outcome(&self, phase: u8, outcome: &SideOutcome) -> Vec<usize> {
        let roots = outcome_roots(self.pool, outcome);
        let lists = (self.flagged, self.links);
        reaching(
            self.pool,
            lists,
            |i, f| self.live[i] && f.phase == phase,
            &roots,
        )
    }

    /// The flagged operations a branch of the path read (`State::branched`).
    pub(super) fn branch_events(&self) -> Vec<usize> {
        self.reaching(self.branched)
    }

    /// From a path's flagged operations, links and branch conditions.
    fn of(
        pool: &'p ExprPool,
        (flagged, links): (&'p [FlaggedValue], &'p [(ExprId, ExprId)]),
        branched: &'p [ExprId],
    ) -> Self {
        Poisoned {
            pool,
            flagged,
            links,
            branched,
            live: vec![true; flagged.len()],
            fresh: FxHashMap::default(),
        }
    }

    /// Node → (condition, fresh value) for `events` (indices into `State::flagged`): each
    /// operation's value and, in the order they were made, the results that absorbed it.
    fn map(&mut self, events: &[usize]) -> FxHashMap<ExprId, Vec<(ExprId, ExprId)>> {
        let pool = self.pool;
        let mut map: FxHashMap<ExprId, Vec<(ExprId, ExprId)>> = FxHashMap::default();
        for &i in events {
            let f = &self.flagged[i];
            let node = f.node;
            let (_, fresh) = *self.fresh.entry(i).or_insert_with(|| {
                let bytes = pool.width(node).div_ceil(8);
                let array = pool.new_array("poison", bytes);
                let parts: Vec<ExprId> = (0..bytes).map(|k| pool.sym(array, k)).collect();
                (array, pool.concat_bytes(&parts))
            });
            let mut carriers: FxHashSet<ExprId> = [node].into_iter().collect();
            for &(from, to) in self.links {
                if carriers.contains(&from) {
                    carriers.insert(to);
                }
            }
            let bits = pool.width(fresh);
            for c in carriers {
                let w = pool.width(c);
                let value = if w <= bits {
                    pool.trunc(fresh, w)
                } else {
                    pool.zext(fresh, w)
                };
                map.entry(c).or_default().push((f.cond, value));
            }
        }
        map
    }

    /// The flagged operation of index `i`.
    pub(super) fn flagged(&self, i: usize) -> &'p FlaggedValue {
        &self.flagged[i]
    }

    /// The fresh inputs made so far.
    pub(super) fn arrays(&self) -> impl Iterator<Item = crate::expr::ArrayId> + '_ {
        self.fresh.values().map(|&(a, _)| a)
    }

    /// `outcome` with the values of `events` fresh where their flags fail: what the side
    /// computes when poison may be any value. A result that absorbed such a value is fresh
    /// there too, as poison spreads to what is computed from it.
    pub(super) fn outcome(&mut self, outcome: &SideOutcome, events: &[usize]) -> SideOutcome {
        let pool = self.pool;
        let map = self.map(events);
        let mut memo: FxHashMap<ExprId, ExprId> = FxHashMap::default();
        let mut value = |v: &Value| match v {
            Value::Con { .. } => *v,
            Value::Sym(e) => Value::from_expr(pool, replace_nodes(pool, *e, &map, &mut memo)),
        };
        match outcome {
            SideOutcome::Returned { value: v, buffers } => SideOutcome::Returned {
                value: v.as_ref().map(&mut value),
                buffers: buffers
                    .iter()
                    .map(|b| b.iter().map(&mut value).collect())
                    .collect(),
            },
            SideOutcome::Exited(v) => SideOutcome::Exited(value(v)),
            SideOutcome::Failed(f) => SideOutcome::Failed(f.clone()),
        }
    }

    /// Where a branch of the path read poison: a branch on poison is undefined behaviour
    /// whatever value the poison has (`events`, [`Poisoned::branch_events`], through
    /// [`poison_where`]); false when no branch can.
    pub(super) fn branch_poison(&self, events: &[usize]) -> ExprId {
        poison_where(self.pool, (self.flagged, self.links), events, self.branched)
    }
}

/// Where any of `roots` is poison, by LLVM's propagation: an operation on a poison operand
/// is poison, except a `select` (`ite`) whose condition is not poison and picks the other
/// arm, and a one-bit `and`/`or` one of whose operands is not poison and decides it (the
/// pool's spelling of `select c, x, false`; a bitwise `and i1` of a false and a poison,
/// poison to LLVM, counts as false: a refinement); the values of `events` (and the
/// results that absorbed them, `links`) are poison where their flags fail. Unlike a fresh value, poison stays poison through a comparison:
/// `x + 1 > x` at `x = INT_MAX` is a branch on poison, though any value would compare false.
pub(super) fn poison_where(
    pool: &ExprPool,
    (flagged, links): (&[FlaggedValue], &[(ExprId, ExprId)]),
    events: &[usize],
    roots: &[ExprId],
) -> ExprId {
    let mut sources: FxHashMap<ExprId, Vec<ExprId>> = FxHashMap::default();
    for &i in events {
        let f = &flagged[i];
        let mut carriers: FxHashSet<ExprId> = [f.node].into_iter().collect();
        for &(from, to) in links {
            if carriers.contains(&from) {
                carriers.insert(to);
            }
        }
        for c in carriers {
            sources.entry(c).or_default().push(f.cond);
        }
    }
    if sources.is_empty() {
        return pool.false_();
    }
    let mut memo: FxHashMap<ExprId, ExprId> = FxHashMap::default();
    fold_up(pool, roots, &mut memo, |id, node, memo| {
        let p = |c: ExprId| memo[&c];
        let mut poison = match node {
            Node::Ite { cond, then, els } => pool.bool_or(p(cond), pool.ite(cond, p(then), p(els))),
            // The pool keeps `select c, x, false` as `and c, x` (and `select c, true, x` as
            // `or`): an operand that is not poison and decides the result blocks the other's.
            Node::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } if pool.width(id) == 1 => {
                let decides = |x: ExprId| {
                    let value = if op == BinOp::And {
                        pool.bool_not(x)
                    } else {
                        x
                    };
                    pool.bool_and(pool.bool_not(p(x)), value)
                };
                let blocked = pool.bool_or(decides(lhs), decides(rhs));
                pool.bool_and(pool.bool_or(p(lhs), p(rhs)), pool.bool_not(blocked))
            }
            _ => pool.or_all(&node.children().map(p).collect::<Vec<_>>()),
        };
        if let Some(conds) = sources.get(&id) {
            poison = pool.bool_or(poison, pool.or_all(conds));
        }
        poison
    });
    pool.or_all(&roots.iter().map(|r| memo[r]).collect::<Vec<_>>())
}

/// `e` rebuilt bottom-up through the simplifying constructors, each node of `map` (once
/// its own children are) wrapped as `ite(cond, fresh, node)` for each of its entries.
/// `memo` may be kept between calls with the same `map`.
fn replace_nodes(
    pool: &ExprPool,
    e: ExprId,
    map: &FxHashMap<ExprId, Vec<(ExprId, ExprId)>>,
    memo: &mut FxHashMap<ExprId, ExprId>,
) -> ExprId {
    if map.is_empty() {
        return e;
    }
    fold_up(pool, &[e], memo, |id, node, memo| {
        let m = |c: ExprId| memo[&c];
        let mut new = if node.children().all(|c| m(c) == c) {
            id
        } else {
            pool.rebuild(node, &m)
        };
        for &(cond, fresh) in map.get(&id).into_iter().flatten() {
            new = pool.ite(cond, fresh, new);
        }
        new
    });
    memo[&e]
}

/// Folds the expressions under `roots` bottom-up: `f` gets each node not in `memo` once,
/// after its children, with what it gave them in `memo` (which may be kept between calls
/// with the same `f`), and what it returns is kept there.
fn fold_up(
    pool: &ExprPool,
    roots: &[ExprId],
    memo: &mut FxHashMap<ExprId, ExprId>,
    mut f: impl FnMut(ExprId, Node, &FxHashMap<ExprId, ExprId>) -> ExprId,
) {
    let mut stack: Vec<(ExprId, bool)> = roots.iter().map(|&r| (r, false)).collect();
    while let Some((id, expanded)) = stack.pop() {
        if memo.contains_key(&id) {
            continue;
        }
        let node = pool.node(id);
        if !expanded {
            stack.push((id, true));
            stack.extend(
                node.children()
                    .filter(|c| !memo.contains_key(c))
                    .map(|c| (c, false)),
            );
            continue;
        }
        let value = f(id, node, memo);
        memo.insert(id, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flagged(node: ExprId, cond: ExprId, phase: u8) -> FlaggedValue {
        FlaggedValue {
            node,
            cond,
            phase,
            op: crate::expr::BinOp::Add,
            flags: crate::ir::Flags {
                nsw: true,
                ..crate::ir::Flags::NONE
            },
            loc: None,
            fresh: None,
            label: None,
        }
    }

    #[test]
    fn reaching_finds_the_flagged_nodes_an_expression_reads() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let v = pool.concat_bytes(&(0..4).map(|k| pool.sym(x, k)).collect::<Vec<_>>());
        let one = pool.constant(32, 1);
        let sum = pool.add(v, one);
        let other = pool.mul(v, pool.constant(32, 3));
        let cond = pool.slt(sum, v);
        let events = [
            flagged(sum, cond, 0),
            flagged(other, cond, 0),
            flagged(pool.add(v, v), pool.true_(), 1),
        ];
        let root = pool.ult(sum, pool.constant(32, 10));
        let lists = (&events[..], &[][..]);
        assert_eq!(reaching(&pool, lists, |_, _| true, &[root]), vec![0]);
        assert_eq!(
            reaching(&pool, lists, |_, f| f.phase == 0, &[root]),
            vec![0]
        );
        assert_eq!(
            reaching(&pool, lists, |_, f| f.phase == 0, &[v]),
            Vec::<usize>::new()
        );
        // `other` absorbed into a result the root reads reaches it.
        let absorber = pool.sub(pool.constant(32, 7), v);
        let root = pool.ult(absorber, pool.constant(32, 10));
        let links = [(other, absorber)];
        let lists = (&events[..], &links[..]);
        assert_eq!(
            reaching(&pool, lists, |_, f| f.phase == 0, &[root]),
            vec![1]
        );
    }

    #[test]
    fn a_fresh_outcome_replaces_the_flagged_value_where_its_flag_fails_only() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let v = pool.concat_bytes(&(0..4).map(|k| pool.sym(x, k)).collect::<Vec<_>>());
        let sum = pool.add(v, pool.constant(32, 1));
        let cond = pool.slt(sum, v);
        let events = [flagged(sum, cond, 0)];
        let outcome = SideOutcome::Returned {
            value: Some(Value::Sym(pool.mul(sum, pool.constant(32, 2)))),
            buffers: vec![vec![Value::Sym(v)]],
        };
        let mut poisoned = Poisoned::of(&pool, (&events, &[]), &[]);
        let SideOutcome::Returned { value, buffers } = poisoned.outcome(&outcome, &[0]) else {
            panic!("not returned")
        };
        let e = value.unwrap().expr(&pool);
        let arrays = pool.arrays_in(e);
        assert_eq!(arrays.len(), 2, "the input and one fresh value");
        // Where the flag holds the value is the operator's.
        let mut m = crate::expr::Assignment::new();
        m.set(x, vec![5, 0, 0, 0]);
        assert_eq!(pool.eval(e, &m), 12);
        // An untouched buffer stays as it was.
        assert_eq!(buffers[0][0], Value::Sym(v));
    }

    #[test]
    fn poison_stays_through_a_comparison_and_a_select_or_deciding_operand_blocks_it() {
        let pool = ExprPool::new();
        let (xa, ca) = (pool.new_array("x", 4), pool.new_array("c", 1));
        let x = pool.concat_bytes(&(0..4).map(|k| pool.sym(xa, k)).collect::<Vec<_>>());
        let c = pool.ne(pool.sym(ca, 0), pool.constant(8, 0));
        let sum = pool.add(x, pool.constant(32, 1));
        let overflow = pool.slt(sum, x);
        let events = [flagged(sum, overflow, 0)];
        let lists = (&events[..], &[][..]);
        let at = |x: u32, c: u8, e: ExprId| {
            let mut m = crate::expr::Assignment::new();
            m.set(xa, x.to_le_bytes().to_vec());
            m.set(ca, vec![c]);
            pool.eval(e, &m)
        };
        // `x + 1 > x` at INT_MAX compares poison: any value compares false, poison does not.
        let greater = pool.sgt(sum, x);
        let p = poison_where(&pool, lists, &[0], &[greater]);
        assert_eq!((at(i32::MAX as u32, 0, p), at(5, 0, p)), (1, 0));
        // `select c, x + 1 > x, false` and the pool's `and c, …`: poison only where c holds.
        for e in [
            pool.ite(c, greater, pool.false_()),
            pool.bool_and(c, greater),
        ] {
            let p = poison_where(&pool, lists, &[0], &[e]);
            assert_eq!(at(i32::MAX as u32, 1, p), 1, "{}", pool.to_sexp(e));
            assert_eq!(at(i32::MAX as u32, 0, p), 0, "{}", pool.to_sexp(e));
        }
    }
}
