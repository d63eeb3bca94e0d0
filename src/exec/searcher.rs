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

impl std::str::FromStr for SearchKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "dfs" => SearchKind::Dfs,
            "bfs" => SearchKind::Bfs,
            "random-state" => SearchKind::RandomState,
            "random-path" => SearchKind::RandomPath,
            "coverage-new" | "covnew" => SearchKind::CoverageNew,
            "interleaved" | "default" => SearchKind::Interleaved,
            other => return Err(format!("unknown search '{other}' (dfs, bfs, random-state, random-path, coverage-new, interleaved)")),
        })
    }
}

impl fmt::Display for SearchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SearchKind::Dfs => "dfs",
            SearchKind::Bfs => "bfs",
            SearchKind::RandomState => "random-state",
            SearchKind::RandomPath => "random-path",
            SearchKind::CoverageNew => "coverage-new",
            SearchKind::Interleaved => "interleaved",
        })
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
        SearchKind::CoverageNew => Box::new(CoverageNew {
            slots: Vec::new(),
            rng: Rng::new(seed),
        }),
        SearchKind::Interleaved => Box::new(Interleaved {
            searchers: vec![
                Box::new(RandomPath::new(seed)),
                Box::new(CoverageNew {
                    slots: Vec::new(),
                    rng: Rng::new(seed ^ 0x9e37),
                }),
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

impl Searcher for RandomPath {
    fn add(&mut self, slot: usize, parent: Option<usize>, _: &[Option<State>]) {
        let parent_leaf = parent.and_then(|p| self.leaf_of.get(p).copied().flatten());
        match parent_leaf {
            None => {
                let n = self.node(TreeNode {
                    parent: None,
                    children: Vec::new(),
                    slot: Some(slot),
                });
                match self.root {
                    None => self.root = Some(n),
                    Some(r) => {
                        // A second root: hang both under a new root.
                        let top = self.node(TreeNode {
                            parent: None,
                            children: vec![r, n],
                            slot: None,
                        });
                        self.nodes[r].parent = Some(top);
                        self.nodes[n].parent = Some(top);
                        self.root = Some(top);
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
            n = children[self.rng.below(children.len())];
        }
    }
}

/// Weighted random choice favouring states that reached new code recently.
struct CoverageNew {
    slots: Vec<usize>,
    rng: Rng,
}

impl Searcher for CoverageNew {
    fn add(&mut self, slot: usize, _: Option<usize>, _: &[Option<State>]) {
        self.slots.push(slot);
    }
    fn remove(&mut self, slot: usize, _: &[Option<State>]) {
        if let Some(i) = self.slots.iter().position(|&s| s == slot) {
            self.slots.remove(i);
        }
    }
    fn select(&mut self, states: &[Option<State>]) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let weight = |slot: usize| match &states[slot] {
            Some(s) => 1.0 / (1.0 + s.since_new_coverage as f64 / 1000.0).powi(2),
            None => 0.0,
        };
        let total: f64 = self.slots.iter().map(|&s| weight(s)).sum();
        let mut pick = self.rng.unit() * total;
        for &s in &self.slots {
            pick -= weight(s);
            if pick <= 0.0 {
                return Some(s);
            }
        }
        self.slots.last().copied()
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
}
