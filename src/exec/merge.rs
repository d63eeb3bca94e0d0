//! State merging: the states a conditional branch forks meet again at the branch's
//! immediate post-dominator, and are merged there into one state whose registers and memory
//! are `ite` expressions over the branch conditions, so that a function with a branch per
//! input bit is explored as one path instead of 2^n.
//!
//! Where it happens is the [`MergeMode`]: by default (`Auto`) only at the join of a branch
//! whose *region* (the blocks between the branch and its join) is small, acyclic and free
//! of effects that must be seen per path (calls, allocations, memory intrinsics); each
//! function's qualifying branches are found once ([`mergeable_joins`]). `--merge` (`All`)
//! merges at every join, `--no-merge` (`Off`) nowhere.
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
use crate::exec::state::{Flush, MergeMarker, State};
use crate::exec::value::Value;
use crate::expr::{ExprId, ExprPool};
use crate::ir::{BlockId, FuncId, Function, Inst, Intrinsic, Operand, RegId, Terminator};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

#[derive(Default)]
struct Group {
    active: usize,
    parked: Vec<State>,
}

/// Where the states of a branch are merged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum MergeMode {
    /// Nowhere: every path is explored on its own (`--no-merge`).
    Off,
    /// At the join of a branch whose region is small, acyclic and free of effects (the
    /// default; see [`mergeable_joins`]).
    #[default]
    Auto,
    /// At the join of every branch that has one (`--merge`).
    All,
}

/// The largest region (blocks between a branch and its join) merged automatically.
const MAX_REGION_BLOCKS: usize = 16;
/// The most instructions (phis included) such a region may hold.
const MAX_REGION_INSTS: usize = 160;
/// The fewest regions, one after another on a path, that `Auto` merges outside a loop.
const MIN_SEQUENCE: usize = 3;

/// The merge groups of one exploration, and the join of each branch that merges, per
/// function seen.
pub struct Merger {
    mode: MergeMode,
    groups: FxHashMap<u64, Group>,
    next_group: u64,
    joins: FxHashMap<u32, Vec<Option<BlockId>>>,
}

crate::counters::counters! {
    /// What merging did in one exploration (a check's report counters, in this order).
    #[derive(Clone, Copy, Default, Debug)]
    pub struct MergeStats {
        /// Merges of states at a join.
        merges: u64 = "merges",
        /// Paths merged away (a merge of k states removes k - 1).
        merged_away: u64 = "paths merged away",
        /// Merges given up because the states' shapes differed.
        refused: u64 = "merges refused",
    }
}

/// What merging needs of the executor that runs it: the expression pool, the queue that
/// resumed and merged states go to, the state ids and the statistics.
pub(crate) struct Resume<'e> {
    pub pool: &'e ExprPool,
    pub pending: &'e mut Vec<State>,
    pub next_state_id: &'e mut u64,
    pub stats: &'e mut ConstraintStats,
    pub counts: &'e mut MergeStats,
}

impl Merger {
    /// Merging in `mode` (which is not `Off`).
    pub fn new(mode: MergeMode) -> Self {
        Merger {
            mode,
            groups: FxHashMap::default(),
            next_group: 0,
            joins: FxHashMap::default(),
        }
    }

    /// The block where the states forked by the branch ending block `from` of `func` are
    /// merged, if they are (computed once per function).
    pub(crate) fn join(
        &mut self,
        (func_id, func): (FuncId, &Function),
        from: BlockId,
    ) -> Option<BlockId> {
        let mode = self.mode;
        let joins = self.joins.entry(func_id.0).or_insert_with(|| match mode {
            MergeMode::All => post_dominators(func),
            _ => mergeable_joins(func),
        });
        joins[from.index()]
    }

    /// States parked and not yet resumed.
    pub fn parked(&self) -> usize {
        self.groups.values().map(|g| g.parked.len()).sum()
    }

    /// After a `br` or a `switch` forked `states` out of one state: gives them a merge
    /// group that meets at `join` (the branch's, from [`Merger::join`]).
    pub(crate) fn start_group(
        &mut self,
        states: &mut [&mut State],
        join: BlockId,
        snapshot: &ConstraintSet,
        log_len: usize,
        path_len: usize,
    ) {
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
        forget_log(state);
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
            forget_log(&mut parked[0]);
            resume.pending.extend(parked);
            return;
        }
        let k = parked.len();
        match merge_states(parked, &marker, resume.pool, &mut *resume.stats) {
            Ok(mut merged) => {
                resume.counts.merges += 1;
                resume.counts.merged_away += k as u64 - 1;
                // The merged state stands for k members of each outer group.
                for m in &merged.markers {
                    if let Some(outer) = self.groups.get_mut(&m.group) {
                        outer.active -= k - 1;
                    }
                }
                *resume.next_state_id += 1;
                merged.id = *resume.next_state_id;
                forget_log(&mut merged);
                resume.pending.push(merged);
            }
            Err(mut states) => {
                resume.counts.refused += 1;
                states.iter_mut().for_each(forget_log);
                resume.pending.extend(states);
            }
        }
    }
}

/// Empties the constraint log of a state that belongs to no merge group any more: only a
/// group reads it (from where the group started), so that it does not grow along a path.
fn forget_log(state: &mut State) {
    if state.markers.is_empty() {
        state.log.clear();
    }
}

/// The join block of each branch whose states `Auto` merges: the block's immediate
/// post-dominator, when every path from the block to it stays within a region of at most
/// `MAX_REGION_BLOCKS` blocks and `MAX_REGION_INSTS` instructions, without a cycle, a
/// call (intrinsics that compute a value are not calls), an `alloca`, a memory intrinsic
/// (`memcpy`, `memset`: sizes that may split the path) or a `ret`. Such a region only
/// computes values, loads and stores: its states differ in registers and a few bytes,
/// which `ite`s join cheaply, and what a path does that must be seen on its own (output,
/// system calls, allocation, calls that may fork deeply) is outside it.
///
/// And only where merging pays: when paths multiply, that is when the branch is in a loop
/// or one path may pass at least `MIN_SEQUENCE` such regions one after the other (not one
/// inside another: nested branches add paths, they do not multiply them). A few paths are
/// cheaper apart, each with what its path condition pins (the implied values that make a
/// loop bound or a length concrete), than merged into one harder query.
///
/// And only where what the region writes (the join's phis, what it stores, followed through
/// later instructions, loads of what was stored and stores of what was computed) decides
/// nothing after the join: no branch condition, `switch` value, address or call argument.
/// A merged value that is branched on makes each later branch a question about every
/// merged path (a loop bound, a bisection's interval, a running maximum), where the paths
/// apart often had it concrete or simple; `--merge` merges those too (a bitwise CRC).
pub fn mergeable_joins(f: &Function) -> Vec<Option<BlockId>> {
    let n = f.blocks.len();
    let ipdom = post_dominators(f);
    let quiet: Vec<bool> = f
        .blocks
        .iter()
        .map(|b| b.insts.iter().all(quiet_inst))
        .collect();
    let regions: Vec<Option<(usize, Vec<bool>)>> =
        (0..n).map(|b| region(f, &ipdom, &quiet, b)).collect();
    // The branches with a region, each with its join and region.
    let branches: Vec<(usize, &(usize, Vec<bool>))> = regions
        .iter()
        .enumerate()
        .filter_map(|(b, r)| r.as_ref().map(|r| (b, r)))
        .collect();
    // The blocks each of those branches may reach.
    let reach: Vec<Vec<bool>> = branches.iter().map(|&(b, _)| reachable(f, b)).collect();
    let inside = |q: usize, b: usize| regions[b].as_ref().is_some_and(|(_, r)| r[q]);
    let mut joins = vec![None; n];
    for (i, &(b, (join, region))) in branches.iter().enumerate() {
        let in_loop = reach[i][b];
        let sequence = 1 + branches
            .iter()
            .enumerate()
            .filter(|&(j, &(q, _))| {
                q != b && !inside(q, b) && !inside(b, q) && (reach[i][q] || reach[j][b])
            })
            .count();
        if !in_loop && sequence < MIN_SEQUENCE {
            continue;
        }
        let blocks: Vec<usize> = (0..n).filter(|&w| region[w]).collect();
        if !decides_later(f, &blocks, *join) {
            joins[b] = Some(BlockId(*join as u32));
        }
    }
    joins
}

/// The join of the branch ending block `b` and the blocks of its region (see
/// [`mergeable_joins`]), if it has one that qualifies.
fn region(
    f: &Function,
    ipdom: &[Option<BlockId>],
    quiet: &[bool],
    b: usize,
) -> Option<(usize, Vec<bool>)> {
    let join = ipdom[b]?.index();
    if successors(&f.blocks[b].term).len() < 2 {
        return None;
    }
    // Depth-first from the branch's successors up to the join: 1 on the stack, 2 done.
    let mut mark = vec![0u8; f.blocks.len()];
    let (mut blocks, mut insts) = (0usize, 0usize);
    let mut stack: Vec<(usize, usize)> = Vec::new();
    mark[b] = 1;
    stack.push((b, 0));
    while let Some((v, i)) = stack.pop() {
        let next = successors(&f.blocks[v].term);
        if i == next.len() {
            mark[v] = 2;
            continue;
        }
        stack.push((v, i + 1));
        let w = next[i];
        if w == join {
            continue;
        }
        match mark[w] {
            1 => return None,
            2 => continue,
            _ => {}
        }
        let block = &f.blocks[w];
        blocks += 1;
        insts += block.insts.len() + block.phis.len();
        if blocks > MAX_REGION_BLOCKS
            || insts > MAX_REGION_INSTS
            || !quiet[w]
            || matches!(block.term, Terminator::Ret(_))
        {
            return None;
        }
        mark[w] = 1;
        stack.push((w, 0));
    }
    mark[b] = 0;
    Some((join, mark.iter().map(|&m| m != 0).collect()))
}

/// The blocks reachable from the successors of block `from` (`from` itself if it is in a
/// cycle).
fn reachable(f: &Function, from: usize) -> Vec<bool> {
    let mut seen = vec![false; f.blocks.len()];
    let mut todo = successors(&f.blocks[from].term);
    while let Some(v) = todo.pop() {
        if !seen[v] {
            seen[v] = true;
            todo.extend(successors(&f.blocks[v].term));
        }
    }
    seen
}

/// Whether what the blocks of `region` write reaches a decision in the blocks reachable from
/// `join` (see [`mergeable_joins`]): registers are followed through every instruction that
/// reads them, memory by the address operand a store names and a load reads again (another
/// operand naming the same object is not followed: an estimate, which decides only how
/// eagerly to merge).
fn decides_later(f: &Function, region: &[usize], join: usize) -> bool {
    // A register the region defines is seen after the join only through the join's phis
    // (the region's blocks do not dominate it); what it stores is seen by later loads.
    let mut regs: FxHashSet<RegId> = f.blocks[join].phis.iter().map(|p| p.dst).collect();
    let mut addrs: FxHashSet<Operand> = FxHashSet::default();
    for &b in region {
        for inst in &f.blocks[b].insts {
            if let Inst::Store { addr, .. } = inst {
                addrs.insert(*addr);
            }
        }
    }
    // The join and the blocks reachable from it.
    let mut seen = reachable(f, join);
    seen[join] = true;
    let after: Vec<usize> = (0..f.blocks.len()).filter(|&b| seen[b]).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &after {
            let block = &f.blocks[b];
            for phi in &block.phis {
                if phi.incoming.iter().any(|(_, o)| is_in(&regs, o)) {
                    changed |= regs.insert(phi.dst);
                }
            }
            for inst in &block.insts {
                match inst {
                    Inst::Store { value, addr, .. } => {
                        if is_in(&regs, value) {
                            changed |= addrs.insert(*addr);
                        }
                    }
                    Inst::Load { dst, addr, .. } => {
                        if addrs.contains(addr) || is_in(&regs, addr) {
                            changed |= regs.insert(*dst);
                        }
                    }
                    _ => {
                        if let Some(dst) = inst.defined() {
                            if inst.operands().iter().any(|o| is_in(&regs, o)) {
                                changed |= regs.insert(dst);
                            }
                        }
                    }
                }
            }
        }
    }
    after.iter().any(|&b| {
        let block = &f.blocks[b];
        let decides = match &block.term {
            Terminator::CondBr { cond, .. } => is_in(&regs, cond),
            Terminator::Switch { value, .. } => is_in(&regs, value),
            _ => false,
        };
        decides
            || block.insts.iter().any(|inst| match inst {
                Inst::Load { addr, .. } | Inst::Store { addr, .. } => is_in(&regs, addr),
                // A call's arguments, or a memory intrinsic's size (one that computes a
                // value passes it on above).
                Inst::Call { .. } | Inst::Intrinsic { .. } if !quiet_inst(inst) => {
                    inst.operands().iter().any(|o| is_in(&regs, o))
                }
                _ => false,
            })
    })
}

fn is_in(regs: &FxHashSet<RegId>, o: &Operand) -> bool {
    matches!(o, Operand::Reg(r) if regs.contains(r))
}

/// The blocks `term` may go to.
fn successors(term: &Terminator) -> Vec<usize> {
    match term {
        Terminator::Br(t) => vec![t.index()],
        Terminator::CondBr { then, els, .. } => vec![then.index(), els.index()],
        Terminator::Switch { default, cases, .. } => {
            let mut v: Vec<usize> = cases.iter().map(|(_, t)| t.index()).collect();
            v.push(default.index());
            v.sort_unstable();
            v.dedup();
            v
        }
        _ => Vec::new(),
    }
}

/// Whether an instruction only computes, loads or stores (see [`mergeable_joins`]).
fn quiet_inst(inst: &Inst) -> bool {
    match inst {
        Inst::Call { .. } | Inst::Alloca { .. } => false,
        Inst::Intrinsic { kind, .. } => !matches!(
            kind,
            Intrinsic::Memcpy
                | Intrinsic::Memmove
                | Intrinsic::Memset
                | Intrinsic::VaStart
                | Intrinsic::VaCopy
        ),
        _ => true,
    }
}

/// The events `list` holds in each of `states`: the prefix they all share once, then each
/// member's own, its condition (`cond`, if it has one) conjoined with the member's guard.
fn union_under_guards<T: Clone + PartialEq>(
    pool: &ExprPool,
    states: &[State],
    guards: &[ExprId],
    list: impl Fn(&State) -> &Vec<T>,
    cond: impl Fn(&mut T) -> Option<&mut ExprId>,
) -> Vec<T> {
    let first = list(&states[0]);
    let shared = (0..first.len())
        .take_while(|&k| states.iter().all(|s| list(s).get(k) == Some(&first[k])))
        .count();
    let mut out = first[..shared].to_vec();
    for (s, &guard) in states.iter().zip(guards) {
        for e in &list(s)[shared..] {
            let mut e = e.clone();
            if let Some(c) = cond(&mut e) {
                *c = pool.bool_and(*c, guard);
            }
            out.push(e);
        }
    }
    out
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
            && matches!(s.flush, Flush::Before)
            && matches!(first.flush, Flush::Before)
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
    // Undefined behaviour of every member, each under its member's guard: what they share
    // from before the fork once, the rest in member order (on an input only one member's
    // guard holds, so a replay meets the shared ones and that member's, in its order).
    merged.undefined = union_under_guards(
        pool,
        &states,
        &guards,
        |s| &s.undefined,
        |u| Some(&mut u.cond),
    );
    merged.flagged = union_under_guards(
        pool,
        &states,
        &guards,
        |s| &s.flagged,
        |f| Some(&mut f.cond),
    );
    merged.flagged_links =
        union_under_guards(pool, &states, &guards, |s| &s.flagged_links, |_| None);
    merged.branched = union_under_guards(pool, &states, &guards, |s| &s.branched, |_| None);
    let mut constraints = (*marker.snapshot).clone();
    let either = pool.or_all(&guards);
    constraints.add(pool, either, stats);
    merged.constraints = constraints;
    merged.log.truncate(marker.log_len);
    merged.log.push(either);
    merged.path.truncate(marker.path_len);
    merged.path_hash = crate::exec::state::path_hash(&merged.path);
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
    let succ: Vec<Vec<usize>> = f.blocks.iter().map(|b| successors(&b.term)).collect();
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

    fn function(blocks: Vec<Block>) -> Function {
        Function {
            name: "f".into(),
            source_name: "f".into(),
            side: Side::A,
            params: Vec::new(),
            ret_width: None,
            ret_is_pointer: false,
            ret_is_float: false,
            ret_float_fields: Vec::new(),
            is_var_arg: false,
            blocks,
            num_regs: 8,
            address: 0,
            signature: String::new(),
        }
    }

    fn cond_br(cond: Operand, then: u32, els: u32) -> Block {
        block(Terminator::CondBr {
            cond,
            then: BlockId(then),
            els: BlockId(els),
        })
    }

    fn with(mut b: Block, insts: Vec<Inst>) -> Block {
        b.insts = insts;
        b
    }

    #[test]
    fn automatic_merging_needs_a_loop_or_regions_in_a_row() {
        let c = Operand::Reg(RegId(0));
        let ret = || block(Terminator::Ret(None));
        let br = |t| block(Terminator::Br(BlockId(t)));
        // 0: loop header → {1, 4}; 1: an `if` in the loop → {2, 3}; 2 → 3 → 0.
        let looped = function(vec![
            cond_br(c, 1, 4),
            cond_br(c, 2, 3),
            br(3),
            br(0),
            ret(),
        ]);
        let joins = mergeable_joins(&looped);
        assert_eq!(joins[1], Some(BlockId(3)));
        assert_eq!(joins[0], None, "the header's region is a cycle");
        // Nested: 0 → {1, 3}, 1 → {2, 3}, 2 → 3: paths add, nothing merges.
        let nested = function(vec![cond_br(c, 1, 3), cond_br(c, 2, 3), br(3), ret()]);
        assert!(mergeable_joins(&nested).iter().all(Option::is_none));
        // Three `if`s in a row: each merges, but the first when it stores what the second
        // branches on.
        let addr = Operand::Reg(RegId(5));
        let store = Inst::Store {
            value: c,
            addr,
            bytes: 4,
        };
        let load = Inst::Load {
            dst: RegId(6),
            addr,
            bytes: 4,
            width: 32,
            pointer: false,
        };
        let row = |first: Inst| {
            function(vec![
                cond_br(c, 1, 2),
                with(br(2), vec![first]),
                with(cond_br(Operand::Reg(RegId(6)), 3, 4), vec![load.clone()]),
                br(4),
                cond_br(c, 5, 6),
                br(6),
                ret(),
            ])
        };
        let blocks = |f: &Function| -> Vec<Option<u32>> {
            mergeable_joins(f).iter().map(|j| j.map(|j| j.0)).collect()
        };
        let quiet = Inst::Store {
            value: c,
            addr: Operand::Reg(RegId(7)),
            bytes: 4,
        };
        assert_eq!(
            blocks(&row(quiet)),
            [Some(2), None, Some(4), None, Some(6), None, None]
        );
        assert_eq!(
            blocks(&row(store)),
            [None, None, Some(4), None, Some(6), None, None]
        );
        // Two in a row are not enough.
        let two = function(vec![
            cond_br(c, 1, 2),
            br(2),
            cond_br(c, 3, 4),
            br(4),
            ret(),
        ]);
        assert!(mergeable_joins(&two).iter().all(Option::is_none));
        // A call in the first region: its branch does not merge, which leaves two in a row.
        let call = Inst::Call {
            dst: None,
            callee: crate::ir::Callee::Direct(FuncId(0)),
            args: Vec::new(),
        };
        assert!(mergeable_joins(&row(call)).iter().all(Option::is_none));
    }

    #[test]
    fn diamonds_and_loops_join_where_expected() {
        let cond = Operand::Reg(RegId(0));
        // 0 → {1, 2} → 3 → {1 (loop back), 4}; 4 returns; 5 is a dead end.
        let f = function(vec![
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
        ]);
        let ipdom = post_dominators(&f);
        assert_eq!(ipdom[0], Some(BlockId(3)));
        assert_eq!(ipdom[1], Some(BlockId(3)));
        assert_eq!(ipdom[2], Some(BlockId(3)), "the dead end does not count");
        assert_eq!(ipdom[3], Some(BlockId(4)));
        assert_eq!(ipdom[4], None);
        assert_eq!(ipdom[5], None);
    }
}
