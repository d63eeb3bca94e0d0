//! Search heuristics: which live state runs next.
//!
//! States are named by their slot in the executor's state table. Every searcher is
//! deterministic for a given seed. The default interleaves random-path selection (which
//! favours states high in the execution tree, so a loop that forks endlessly cannot
//! starve the rest) with coverage-new (which favours states that recently reached new code),
//! as KLEE does.

use crate::exec::state::State;
use std::collections::VecDeque;
use std::fmt;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SearchKind {
    Dfs,
    Bfs,
    RandomState,
    RandomPath,
    CoverageNew,
    /// Random-path and coverage-new, alternating.
    Interleaved,
}

impl SearchKind {
    /// Every strategy, in the order messages list them; the one list of search names that
    /// `--search` and a config's `search` take.
    pub const ALL: [SearchKind; 6] = [
        SearchKind::Dfs,
        SearchKind::Bfs,
        SearchKind::RandomState,
        SearchKind::RandomPath,
        SearchKind::CoverageNew,
        SearchKind::Interleaved,
    ];

    /// The name `--search` takes.
    pub fn name(self) -> &'static str {
        match self {
            SearchKind::Dfs => "dfs",
            SearchKind::Bfs => "bfs",
            SearchKind::RandomState => "random-state",
            SearchKind::RandomPath => "random-path",
            SearchKind::CoverageNew => "coverage-new",
            SearchKind::Interleaved => "interleaved",
        }
    }
}

impl std::str::FromStr for SearchKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        // `covnew` and `default` are older spellings, still accepted.
        let name = match s {
            "covnew" => "coverage-new",
            "default" => "interleaved",
            other => other,
        };
        SearchKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = SearchKind::ALL.iter().map(|k| k.name()).collect();
                format!(
                    "unknown search '{}' (expected one of: {})",
                    s.escape_debug(),
                    names.join(", ")
                )
            })
    }
}

impl fmt::Display for SearchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Chooses the next state. `states` is the executor's table (slots of ended states are `None`).
pub trait Searcher {
    /// A new live state in `slot`, forked from `parent` (if any).
    fn add(&mut self, slot: usize, parent: Option<usize>, states: &[Option<State>]);
    /// The state in `slot` ended.
    fn remove(&mut self, slot: usize, states: &[Option<State>]);
    /// The next state to run, or `None` when no state is live.
    fn select(&mut self, states: &[Option<State>]) -> Option<usize>;
    /// The state in `slot` ran a slice and is still live (its priority may have changed).
    fn ran(&mut self, _slot: usize, _states: &[Option<State>]) {}
}

pub fn new(kind: SearchKind, seed: u64) -> Box<dyn Searcher> {
    match kind {
        SearchKind::Dfs => Box::new(Dfs::default()),
        SearchKind::Bfs => Box::new(Bfs::default()),
        SearchKind::RandomState => Box::new(RandomState {
            slots: Vec::new(),
            rng: Rng::new(seed),
        }),
        SearchKind::RandomPath => Box::new(RandomPath::new(seed)),
        SearchKind::CoverageNew => Box::new(CoverageNew::new(seed)),
        SearchKind::Interleaved => Box::new(Interleaved {
            searchers: vec![
                Box::new(RandomPath::new(seed)),
                Box::new(CoverageNew::new(seed ^ 0x9e37)),
            ],
            turn: 0,
        }),
    }
}

/// SplitMix64: small, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[derive(Default)]
struct Dfs {
    stack: Vec<usize>,
}

impl Searcher for Dfs {
    fn add(&mut self, slot: usize, _: Option<usize>, _: &[Option<State>]) {
        self.stack.push(slot);
    }
    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        if let Some(i) = self.stack.iter().rposition(|&s| s == slot) {
            self.stack.remove(i);
        }
    }
    fn select(&mut self, _: &[Option<State>]) -> Option<usize> {
        self.stack.last().copied()
    }
}

#[derive(Default)]
struct Bfs {
    queue: VecDeque<usize>,
}

impl Searcher for Bfs {
    fn add(&mut self, slot: usize, _: Option<usize>, _: &[Option<State>]) {
        self.queue.push_back(slot);
    }
    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        if let Some(i) = self.queue.iter().position(|&s| s == slot) {
            self.queue.remove(i);
        }
    }
    fn select(&mut self, _: &[Option<State>]) -> Option<usize> {
        // Rotate so that every live state gets a slice in turn.
        let front = self.queue.pop_front()?;
        self.queue.push_back(front);
        Some(front)
    }
}

struct RandomState {
    slots: Vec<usize>,
    rng: Rng,
}

impl Searcher for RandomState {
    fn add(&mut self, slot: usize, _: Option<usize>, _: &[Option<State>]) {
        self.slots.push(slot);
    }
    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        if let Some(i) = self.slots.iter().position(|&s| s == slot) {
            self.slots.swap_remove(i);
        }
    }
    fn select(&mut self, _: &[Option<State>]) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        Some(self.slots[self.rng.below(self.slots.len())])
    }
}

/// The execution tree: inner nodes are fork points, leaves are live states.
struct RandomPath {
    nodes: Vec<TreeNode>,
    /// The leaf of each live slot.
    leaf_of: Vec<Option<usize>>,
    root: Option<usize>,
    /// The node that holds several roots as its children (states added without a parent: a
    /// shard's frontier, states another worker handed over). A root is chosen as a walk from
    /// the start of the exploration would reach it: with weight 2^-d for d branch decisions
    /// on its path (relative to the shortest), so that a shard explores its part of the tree
    /// as one run explores the whole.
    forest: Option<usize>,
    /// The branch decisions on each forest child's path, by node.
    depth: Vec<u32>,
    free: Vec<usize>,
    rng: Rng,
}

#[derive(Clone, Default)]
struct TreeNode {
    parent: Option<usize>,
    children: Vec<usize>,
    slot: Option<usize>,
}

impl RandomPath {
    fn new(seed: u64) -> Self {
        RandomPath {
            nodes: Vec::new(),
            leaf_of: Vec::new(),
            root: None,
            forest: None,
            depth: Vec::new(),
            free: Vec::new(),
            rng: Rng::new(seed),
        }
    }

    fn node(&mut self, n: TreeNode) -> usize {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i] = n;
                i
            }
            None => {
                self.nodes.push(n);
                self.nodes.len() - 1
            }
        }
    }

    fn set_leaf(&mut self, slot: usize, node: Option<usize>) {
        if self.leaf_of.len() <= slot {
            self.leaf_of.resize(slot + 1, None);
        }
        self.leaf_of[slot] = node;
    }
}

impl RandomPath {
    /// A child of the forest node `forest`, with weight 2^-(its depth - the least depth).
    fn choose_root(&mut self, forest: usize) -> usize {
        let children = &self.nodes[forest].children;
        let least = children.iter().map(|&c| self.depth[c]).min().unwrap_or(0);
        let weight = |c: usize| (-f64::from(self.depth[c] - least)).exp2();
        let total: f64 = children.iter().map(|&c| weight(c)).sum();
        let mut pick = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        for &c in children {
            pick -= weight(c);
            if pick < 0.0 {
                return c;
            }
        }
        *children.last().expect("the forest has children")
    }
}

impl Searcher for RandomPath {
    fn add(&mut self, slot: usize, parent: Option<usize>, states: &[Option<State>]) {
        let parent_leaf = parent.and_then(|p| self.leaf_of.get(p).copied().flatten());
        match parent_leaf {
            None => {
                let n = self.node(TreeNode {
                    parent: None,
                    children: Vec::new(),
                    slot: Some(slot),
                });
                let depth = states
                    .get(slot)
                    .and_then(Option::as_ref)
                    .map_or(0, |s| s.path.len() as u32);
                if self.depth.len() <= n {
                    self.depth.resize(n + 1, 0);
                }
                self.depth[n] = depth;
                match self.root {
                    None => self.root = Some(n),
                    Some(r) if self.forest == Some(r) => {
                        // Another root: one more child of the forest, as likely as the others.
                        self.nodes[n].parent = Some(r);
                        self.nodes[r].children.push(n);
                    }
                    Some(r) => {
                        // A second root: both under a forest node.
                        let top = self.node(TreeNode {
                            parent: None,
                            children: vec![r, n],
                            slot: None,
                        });
                        self.nodes[r].parent = Some(top);
                        self.nodes[n].parent = Some(top);
                        self.root = Some(top);
                        self.forest = Some(top);
                    }
                }
                self.set_leaf(slot, Some(n));
            }
            Some(leaf) => {
                // The parent's leaf becomes a fork point with the parent and the child below.
                let parent_slot = self.nodes[leaf].slot.take().expect("a leaf holds a state");
                let a = self.node(TreeNode {
                    parent: Some(leaf),
                    children: Vec::new(),
                    slot: Some(parent_slot),
                });
                let b = self.node(TreeNode {
                    parent: Some(leaf),
                    children: Vec::new(),
                    slot: Some(slot),
                });
                self.nodes[leaf].children = vec![a, b];
                self.set_leaf(parent_slot, Some(a));
                self.set_leaf(slot, Some(b));
            }
        }
    }

    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        let Some(mut n) = self.leaf_of.get(slot).copied().flatten() else {
            return;
        };
        self.set_leaf(slot, None);
        // Remove the leaf and every ancestor left without children.
        loop {
            let parent = self.nodes[n].parent;
            self.nodes[n] = TreeNode::default();
            self.free.push(n);
            match parent {
                None => {
                    self.root = None;
                    self.forest = None;
                    return;
                }
                Some(p) => {
                    self.nodes[p].children.retain(|&c| c != n);
                    if !self.nodes[p].children.is_empty() {
                        return;
                    }
                    n = p;
                }
            }
        }
    }

    fn select(&mut self, _: &[Option<State>]) -> Option<usize> {
        let mut n = self.root?;
        loop {
            if let Some(slot) = self.nodes[n].slot {
                return Some(slot);
            }
            let children = &self.nodes[n].children;
            if children.is_empty() {
                return None;
            }
            n = if Some(n) == self.forest {
                self.choose_root(n)
            } else {
                children[self.rng.below(children.len())]
            };
        }
    }
}

/// Weighted random choice favouring states that reached new code recently. The weights
/// live in a Fenwick tree over slots, so adding, removing, reweighting and choosing are all
/// O(log n) however many states are live.
struct CoverageNew {
    weights: Fenwick,
    rng: Rng,
}

impl CoverageNew {
    fn new(seed: u64) -> Self {
        CoverageNew {
            weights: Fenwick::default(),
            rng: Rng::new(seed),
        }
    }

    /// An integer weight (at least 1): 2^20 / (1 + k/1000)², k instructions since the
    /// state last reached new code.
    fn weight(state: &State) -> u64 {
        let k = state.since_new_coverage as f64 / 1000.0;
        ((1u64 << 20) as f64 / (1.0 + k).powi(2)).max(1.0) as u64
    }
}

impl Searcher for CoverageNew {
    fn add(&mut self, slot: usize, _: Option<usize>, states: &[Option<State>]) {
        let w = states[slot].as_ref().map_or(1, Self::weight);
        self.weights.set(slot, w);
    }
    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        self.weights.set(slot, 0);
    }
    fn ran(&mut self, slot: usize, states: &[Option<State>]) {
        if let Some(s) = &states[slot] {
            self.weights.set(slot, Self::weight(s));
        }
    }
    fn select(&mut self, _: &[Option<State>]) -> Option<usize> {
        let total = self.weights.total();
        if total == 0 {
            return None;
        }
        Some(self.weights.find(self.rng.next_u64() % total))
    }
}

/// Non-negative integer weights by index with prefix sums (a Fenwick tree).
#[derive(Default)]
struct Fenwick {
    /// `tree[i - 1]` holds the sum of the weights in `(i - lowbit(i), i]`.
    tree: Vec<u64>,
    weights: Vec<u64>,
}

impl Fenwick {
    fn set(&mut self, index: usize, weight: u64) {
        if index >= self.weights.len() {
            if weight == 0 {
                return;
            }
            self.grow(index + 1);
        }
        let delta = weight.wrapping_sub(self.weights[index]);
        self.weights[index] = weight;
        let mut i = index + 1;
        while i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Rebuilds with room for at least `n` indices (a power of two).
    fn grow(&mut self, n: usize) {
        let size = n.next_power_of_two().max(64);
        self.weights.resize(size, 0);
        self.tree = vec![0; size];
        for i in 1..=size {
            self.tree[i - 1] = self.tree[i - 1].wrapping_add(self.weights[i - 1]);
            let up = i + (i & i.wrapping_neg());
            if up <= size {
                let v = self.tree[i - 1];
                self.tree[up - 1] = self.tree[up - 1].wrapping_add(v);
            }
        }
    }

    fn total(&self) -> u64 {
        // The size is a power of two, so the last node covers everything.
        self.tree.last().copied().unwrap_or(0)
    }

    /// The index whose weight interval contains `target` (< total).
    fn find(&self, mut target: u64) -> usize {
        let mut pos = 0;
        let mut step = self.tree.len();
        while step > 0 {
            let next = pos + step;
            if next <= self.tree.len() && self.tree[next - 1] <= target {
                target -= self.tree[next - 1];
                pos = next;
            }
            step /= 2;
        }
        pos
    }
}

struct Interleaved {
    searchers: Vec<Box<dyn Searcher>>,
    turn: usize,
}

impl Searcher for Interleaved {
    fn add(&mut self, slot: usize, parent: Option<usize>, states: &[Option<State>]) {
        for s in &mut self.searchers {
            s.add(slot, parent, states);
        }
    }
    fn remove(&mut self, slot: usize, states: &[Option<State>]) {
        for s in &mut self.searchers {
            s.remove(slot, states);
        }
    }
    fn select(&mut self, states: &[Option<State>]) -> Option<usize> {
        self.turn = (self.turn + 1) % self.searchers.len();
        self.searchers[self.turn].select(states)
    }
    fn ran(&mut self, slot: usize, states: &[Option<State>]) {
        for s in &mut self.searchers {
            s.ran(slot, states);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Fenwick, RandomPath, Searcher};

    #[test]
    fn random_path_chooses_among_roots_uniformly() {
        // Sixteen states without a parent at the same depth: each about as likely. They
        // used to hang off a chain of two-child nodes, which gave the last one half the
        // choices and the first one 2^-15 of them.
        let mut rp = RandomPath::new(1);
        for slot in 0..16 {
            rp.add(slot, None, &[]);
        }
        let mut counts = [0u32; 16];
        for _ in 0..16_000 {
            counts[rp.select(&[]).unwrap()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (700..1300).contains(&c)),
            "{counts:?}"
        );
        // Removing roots keeps the others choosable; removing all empties the tree.
        for slot in 0..15 {
            rp.remove(slot, &[]);
        }
        assert_eq!(rp.select(&[]), Some(15));
        rp.remove(15, &[]);
        assert_eq!(rp.select(&[]), None);
        rp.add(3, None, &[]);
        rp.add(4, None, &[]);
        assert!(matches!(rp.select(&[]), Some(3 | 4)));
    }

    #[test]
    fn random_path_weighs_roots_as_a_walk_from_the_start_would() {
        // Roots two decisions deep and three decisions deep: a walk from the start reaches
        // each of the first kind twice as often as each of the second.
        let pool = crate::expr::ExprPool::new();
        let module = crate::ir::Module::default();
        let mut ex = crate::exec::Executor::new(
            &module,
            &pool,
            crate::solver::build_chain(&Default::default()),
            Default::default(),
        );
        let mut states = Vec::new();
        for path in [vec![0u8, 0], vec![0, 1], vec![1, 0, 0], vec![1, 0, 1]] {
            let mut s = ex.initial_state();
            s.path = path;
            states.push(Some(s));
        }
        let mut rp = RandomPath::new(7);
        for slot in 0..4 {
            rp.add(slot, None, &states);
        }
        let mut counts = [0u32; 4];
        for _ in 0..12_000 {
            counts[rp.select(&states).unwrap()] += 1;
        }
        // Expected 4000, 4000, 2000, 2000.
        assert!(
            counts[..2].iter().all(|&c| (3600..4400).contains(&c)),
            "{counts:?}"
        );
        assert!(
            counts[2..].iter().all(|&c| (1700..2300).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn choices_follow_the_weights_through_updates_and_growth() {
        let mut f = Fenwick::default();
        f.set(3, 5);
        f.set(100, 2);
        f.set(7, 1);
        assert_eq!(f.total(), 8);
        let picks: Vec<usize> = (0..8).map(|t| f.find(t)).collect();
        assert_eq!(picks, vec![3, 3, 3, 3, 3, 7, 100, 100]);
        f.set(3, 0);
        f.set(7, 4);
        assert_eq!(f.total(), 6);
        let picks: Vec<usize> = (0..6).map(|t| f.find(t)).collect();
        assert_eq!(picks, vec![7, 7, 7, 7, 100, 100]);
    }
}
