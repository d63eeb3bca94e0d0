//! State merging (`--merge`): the states a conditional branch forks meet again at the
//! branch's immediate post-dominator, and are merged there into one state whose registers
//! and memory are `ite` expressions over the branch conditions, so that a function with a
//! branch per input bit is explored as one path instead of 2^n.
//!
//! Each fork of a `br` or a `switch` pushes a *marker* (a merge group) on every state it
//! makes (both sides of a `br`, each feasible case of a `switch`): the join block, the
//! stack depth, and what the path condition was at the fork. Every later fork of a state
//! counts one more member in each of its groups; a member that reaches the join block of its
//! innermost group parks there; one that ends leaves its groups. When a group has no active
//! member left, its parked members are merged (or, if their shapes differ, released one by
//! one). A merged path is reported as one row that says how many paths it stands for.

use crate::exec::constraints::{ConstraintSet, ConstraintStats};
use crate::exec::memory::ObjectState;
use crate::exec::state::{MergeMarker, State};
use crate::exec::value::Value;
use crate::expr::{ExprId, ExprPool};
use crate::ir::{BlockId, FuncId, Function, Terminator};
use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Default)]
struct Group {
    active: usize,
    parked: Vec<State>,
}

/// The merge groups of one exploration, and the post-dominators of the functions seen.
#[derive(Default)]
pub struct Merger {
    groups: FxHashMap<u64, Group>,
    next_group: u64,
    ipdoms: FxHashMap<u32, Vec<Option<BlockId>>>,
    /// Paths merged away (each merge of k states removes k - 1).
    pub merged: u64,
    /// Merges given up because the states' shapes differed.
    pub refused: u64,
}

/// What merging needs of the executor that runs it: the expression pool, the queue that
/// resumed and merged states go to, the state ids and the path-condition statistics.
pub(crate) struct Resume<'e> {
    pub pool: &'e ExprPool,
    pub pending: &'e mut Vec<State>,
    pub next_state_id: &'e mut u64,
    pub stats: &'e mut ConstraintStats,
}

impl Merger {
    /// States parked and not yet resumed.
    pub fn parked(&self) -> usize {
        self.groups.values().map(|g| g.parked.len()).sum()
    }

    /// After a `br` or a `switch` forked `states` out of one state in block `from` of
    /// `func`: gives them a merge group if the block has a join point.
    pub(crate) fn start_group(
        &mut self,
        (func_id, func): (FuncId, &Function),
        states: &mut [&mut State],
        from: BlockId,
        snapshot: &ConstraintSet,
        log_len: usize,
        path_len: usize,
    ) {
        let ipdom = self
            .ipdoms
            .entry(func_id.0)
            .or_insert_with(|| post_dominators(func));
        let Some(join) = ipdom[from.index()] else {
            return;
        };
        self.next_group += 1;
        let group = self.next_group;
        self.groups.insert(
            group,
            Group {
                active: states.len(),
                parked: Vec::new(),
            },
        );
        let marker = MergeMarker {
            group,
            block: join,
            depth: states[0].stack.len(),
            snapshot: Arc::new(snapshot.clone()),
            log_len,
            path_len,
        };
        for s in states.iter_mut() {
            s.markers.push(marker.clone());
        }
    }

    /// A state forked: its sibling belongs to the same groups.
    pub(crate) fn fork(&mut self, state: &State) {
        for m in &state.markers {
            if let Some(g) = self.groups.get_mut(&m.group) {
                g.active += 1;
            }
        }
    }

    /// Parks `state` if it stands at the join block of its innermost group; returns it
    /// otherwise.
    pub(crate) fn maybe_park(&mut self, state: State, resume: &mut Resume<'_>) -> Option<State> {
        let Some(top) = state.markers.last() else {
            return Some(state);
        };
        let frame = state.frame();
        if frame.pc != 0 || frame.block != top.block || state.stack.len() != top.depth {
            return Some(state);
        }
        let group = top.group;
        let g = self
            .groups
            .get_mut(&group)
            .expect("a marker's group exists");
        g.active -= 1;
        g.parked.push(state);
        self.settle(group, resume);
        None
    }

    /// `state` ends: it leaves every group it belongs to.
    pub(crate) fn leave(&mut self, state: &mut State, resume: &mut Resume<'_>) {
        self.leave_deeper(state, 0, resume);
    }

    /// `state` leaves the groups that started in frames deeper than `depth` (it left those
    /// frames without returning, by `longjmp`, so it never reaches their join blocks).
    pub(crate) fn leave_deeper(
        &mut self,
        state: &mut State,
        depth: usize,
        resume: &mut Resume<'_>,
    ) {
        let (markers, kept) = std::mem::take(&mut state.markers)
            .into_iter()
            .partition::<Vec<_>, _>(|m| m.depth > depth);
        state.markers = kept;
        for m in markers.iter().rev() {
            if let Some(g) = self.groups.get_mut(&m.group) {
                g.active -= 1;
            }
            self.settle(m.group, resume);
        }
    }

    /// Merges (or releases) the parked members of `group` once none is active.
    fn settle(&mut self, group: u64, resume: &mut Resume<'_>) {
        let Some(g) = self.groups.get(&group) else {
            return;
        };
        if g.active > 0 {
            return;
        }
        let mut parked = self
            .groups
            .remove(&group)
            .map(|g| g.parked)
            .unwrap_or_default();
        if parked.is_empty() {
            return;
        }
        let mut marker = None;
        for s in &mut parked {
            marker = s.markers.pop();
        }
        let marker = marker.expect("a parked state holds its group's marker");
        if parked.len() == 1 {
            resume.pending.extend(parked);
            return;
        }
        let k = parked.len();
        match merge_states(parked, &marker, resume.pool, &mut *resume.stats) {
            Ok(mut merged) => {
                self.merged += k as u64 - 1;
                // The merged state stands for k members of each outer group.
                for m in &merged.markers {
                    if let Some(outer) = self.groups.get_mut(&m.group) {
                        outer.active -= k - 1;
                    }
                }
                *resume.next_state_id += 1;
                merged.id = *resume.next_state_id;
                resume.pending.push(merged);
            }
            Err(states) => {
                self.refused += 1;
                resume.pending.extend(states);
            }
        }
    }
}

/// One state equivalent to the disjunction of `states` (all parked at the same join point,
/// forked from one state), or the states back if their shapes differ. The merged state's id
/// is the caller's to give.
fn merge_states(
    states: Vec<State>,
    marker: &MergeMarker,
    pool: &ExprPool,
    stats: &mut ConstraintStats,
) -> Result<State, Vec<State>> {
    let first = &states[0];
    let same_shape = states.iter().all(|s| {
        s.stack.len() == first.stack.len()
            && s.stack.iter().zip(first.stack.iter()).all(|(a, b)| {
                a.serial == b.serial
                    && a.func == b.func
                    && a.block == b.block
                    && a.pc == b.pc
                    && a.ret_dst == b.ret_dst
                    && a.allocas == b.allocas
                    && a.regs.len() == b.regs.len()
            })
            && s.allocator == first.allocator
            && s.inputs == first.inputs
            && s.phase == first.phase
            && s.buffers == first.buffers
            && s.first == first.first
            && s.outputs == first.outputs
            && s.first_outputs == first.first_outputs
            && s.second == first.second
            && s.memory.len() == first.memory.len()
            && s.memory
                .objects()
                .zip(first.memory.objects())
                .all(|((a, _), (b, _))| a.address == b.address && a.size == b.size)
    });
    if !same_shape {
        return Err(states);
    }
    // Each member's guard: what it added to the path condition since the fork.
    let guards: Vec<ExprId> = states
        .iter()
        .map(|s| pool.and_all(&s.log[marker.log_len.min(s.log.len())..]))
        .collect();
    let choose = |values: &[Value]| -> Option<Value> {
        if values.iter().all(|v| *v == values[0]) {
            return Some(values[0]);
        }
        let w = values[0].width(pool);
        if values.iter().any(|v| v.width(pool) != w) {
            // Only a dead register can differ in width (SSA): any value will do.
            return Some(values[0]);
        }
        let mut acc = values[values.len() - 1].expr(pool);
        for i in (0..values.len() - 1).rev() {
            acc = pool.ite(guards[i], values[i].expr(pool), acc);
        }
        Some(Value::from_expr(pool, acc))
    };
    let mut merged = states[0].clone();
    for (f, frame) in merged.stack.iter_mut().enumerate() {
        for r in 0..frame.regs.len() {
            let values: Vec<Value> = states.iter().map(|s| s.stack[f].regs.get(r)).collect();
            if let Some(v) = choose(&values) {
                frame.regs.set(r, v);
            }
        }
    }
    let keys: Vec<u64> = first.memory.objects().map(|(o, _)| o.address).collect();
    for key in keys {
        let contents: Vec<&Arc<ObjectState>> = states
            .iter()
            .map(|s| s.memory.get(key).map(|(_, c)| c).expect("same objects"))
            .collect();
        if contents.iter().all(|c| Arc::ptr_eq(c, contents[0])) {
            continue;
        }
        if contents
            .iter()
            .any(|c| c.in_array_mode() || c.size() != contents[0].size())
        {
            return Err(states);
        }
        let size = contents[0].size();
        let target = merged.memory.get_mut(key).expect("same objects");
        for i in 0..size {
            let bytes: Vec<Value> = contents.iter().map(|c| c.byte(pool, i)).collect();
            if bytes.iter().all(|b| *b == bytes[0]) {
                continue;
            }
            if let Some(v) = choose(&bytes) {
                target.set_byte(pool, i, v);
            }
        }
    }
    let mut constraints = (*marker.snapshot).clone();
    let either = pool.or_all(&guards);
    constraints.add(pool, either, stats);
    merged.constraints = constraints;
    merged.log.truncate(marker.log_len);
    merged.log.push(either);
    merged.path.truncate(marker.path_len);
    merged.merged = states.iter().map(|s| s.merged).sum();
    // A frame pushed later must not take a number a member gave to a frame that returned
    // (a `jmp_buf` may still name it).
    let pushed = states.iter().map(|s| s.stack.pushed()).max().unwrap_or(0);
    merged.stack.number_after(pushed);
    merged.instructions = states.iter().map(|s| s.instructions).max().unwrap_or(0);
    merged.since_new_coverage = states
        .iter()
        .map(|s| s.since_new_coverage)
        .min()
        .unwrap_or(0);
    Ok(merged)
}

/// The immediate post-dominator of every block (`None` for blocks that reach no `ret`).
pub fn post_dominators(f: &Function) -> Vec<Option<BlockId>> {
    let n = f.blocks.len();
    // Successors, and the exit blocks (ending in `ret`).
    let succ: Vec<Vec<usize>> = f
        .blocks
        .iter()
        .map(|b| match &b.term {
            Terminator::Br(t) => vec![t.index()],
            Terminator::CondBr { then, els, .. } => vec![then.index(), els.index()],
            Terminator::Switch { default, cases, .. } => {
                let mut v: Vec<usize> = cases.iter().map(|(_, t)| t.index()).collect();
                v.push(default.index());
                v
            }
            _ => Vec::new(),
        })
        .collect();
    let exits: Vec<usize> = (0..n)
        .filter(|&i| matches!(f.blocks[i].term, Terminator::Ret(_)))
        .collect();
    // Reverse post-order of the reverse graph, from a virtual exit node `n`.
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for (i, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s].push(i);
        }
    }
    for &e in &exits {
        pred[n].push(e);
    }
    let mut order = Vec::new();
    let mut seen = vec![false; n + 1];
    let mut stack = vec![(n, 0usize)];
    seen[n] = true;
    while let Some((v, i)) = stack.pop() {
        if i < pred[v].len() {
            stack.push((v, i + 1));
            let w = pred[v][i];
            if !seen[w] {
                seen[w] = true;
                stack.push((w, 0));
            }
        } else {
            order.push(v);
        }
    }
    order.reverse();
    let mut rpo = vec![usize::MAX; n + 1];
    for (k, &v) in order.iter().enumerate() {
        rpo[v] = k;
    }
    // Cooper–Harvey–Kennedy on the reverse graph: a node's "predecessors" there are its
    // successors here (plus the virtual exit for `ret` blocks).
    let mut idom: Vec<Option<usize>> = vec![None; n + 1];
    idom[n] = Some(n);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| -> usize {
        while a != b {
            while rpo[a] > rpo[b] {
                a = idom[a].expect("processed");
            }
            while rpo[b] > rpo[a] {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &v in order.iter().skip(1) {
            let mut reverse_preds: Vec<usize> = succ[v].clone();
            if exits.contains(&v) {
                reverse_preds.push(n);
            }
            let mut new: Option<usize> = None;
            for p in reverse_preds {
                if rpo[p] == usize::MAX || idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, p, x),
                });
            }
            if new.is_some() && idom[v] != new {
                idom[v] = new;
                changed = true;
            }
        }
    }
    (0..n)
        .map(|v| idom[v].filter(|&d| d != n).map(|d| BlockId(d as u32)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Block, LocId, Operand, RegId, Side};

    fn block(term: Terminator) -> Block {
        Block {
            phis: Vec::new(),
            insts: Vec::new(),
            locs: Vec::new(),
            term,
            term_loc: LocId(0),
        }
    }

    #[test]
    fn diamonds_and_loops_join_where_expected() {
        let cond = Operand::Reg(RegId(0));
        // 0 → {1, 2} → 3 → {1 (loop back), 4}; 4 returns; 5 is a dead end.
        let f = Function {
            name: "f".into(),
            source_name: "f".into(),
            side: Side::A,
            params: Vec::new(),
            ret_width: None,
            ret_is_pointer: false,
            ret_is_float: false,
            is_var_arg: false,
            blocks: vec![
                block(Terminator::CondBr {
                    cond,
                    then: BlockId(1),
                    els: BlockId(2),
                }),
                block(Terminator::Br(BlockId(3))),
                block(Terminator::CondBr {
                    cond,
                    then: BlockId(3),
                    els: BlockId(5),
                }),
                block(Terminator::CondBr {
                    cond,
                    then: BlockId(1),
                    els: BlockId(4),
                }),
                block(Terminator::Ret(None)),
                block(Terminator::Unreachable),
            ],
            num_regs: 1,
            address: 0,
            signature: String::new(),
        };
        let ipdom = post_dominators(&f);
        assert_eq!(ipdom[0], Some(BlockId(3)));
        assert_eq!(ipdom[1], Some(BlockId(3)));
        assert_eq!(ipdom[2], Some(BlockId(3)), "the dead end does not count");
        assert_eq!(ipdom[3], Some(BlockId(4)));
        assert_eq!(ipdom[4], None);
        assert_eq!(ipdom[5], None);
    }
}
