//! Exhaustive enumeration for queries over few input bytes.
//!
//! CDCL is at its worst on small formulas that hold dividers, multipliers or floating point:
//! proving `n / d + (n % d ≠ 0) = 1 + (n - 1) / d` over two bytes takes Bitwuzla about
//! 180 ms, and the questions musl's `strtod` asks about a number of two or three characters
//! (80-bit floating point, a table of 32-bit digits indexed by them) take it seconds, or
//! more than it is given. Evaluating such a formula on every input the path allows takes
//! milliseconds. This layer compiles the constraints and the query once into a straight-line
//! program (every node the interpreter evaluates: bit-vector, floating-point and array nodes,
//! with the same folds) and searches the inputs, when they are at most [`MAX_BYTES`] bytes:
//! - each constraint is a filter, run once the inputs it reads are fixed, cheapest first;
//! - each byte first gets its *domain*, the values that pass the filters reading it alone
//!   (a path's constraints are mostly of that kind: "this character is a digit");
//! - a depth-first search then fixes the bytes in order over their domains.
//!
//! Values are kept while the inputs they read stay fixed, so the search computes an
//! operation at most once per combination of the domains of the inputs up to the last one it
//! reads; entering a level, it walks the earlier levels' operations that level's filters
//! need once per combination of the earlier domains. It starts only when that bound (both
//! counts, weighted) fits its budget (at
//! most [`MAX_STEPS`] weighted operations), and the domains stop at the budget too. So a
//! query this layer passes on has cost it at most the budget and usually only the domains;
//! one it takes, at most the budget: milliseconds (the weights are estimates; the longest
//! search measured in eight checks of the KLEE paper's utilities took about 30 ms).
//!
//! The answer is exact: `Unsat` only after every input failed, and a model is an input on
//! which every constraint and the query evaluated to 1 (the validating layer re-checks it).

use super::layer::{wraps_inner, Layer};
use super::{
    assignment_from_bytes, fill_missing_arrays, symbolic_bytes, SatResult, Solver, SolverError,
    SolverStats,
};
use crate::expr::{
    fold_binary, fold_fp_binary, fold_fp_cmp, fold_fp_convert, fold_fp_fma, fold_fp_to_sint,
    fold_fp_unary, fold_int_to_fp, fold_unary, mask, sign_extend, BinOp, ExprId, ExprPool, FpBinOp,
    FpCmp, FpUnOp, Node, UnOp, Width, X87_IEEE_WIDTH,
};
use rustc_hash::FxHashMap;

/// Most symbolic bytes a query may mention to be enumerated (a bit each in a `u64`).
const MAX_BYTES: usize = 16;
/// Most weighted operations (see [`Program::weights`]) one enumeration may run.
const MAX_STEPS: u64 = 1 << 24;
/// The budget of a formula over at most two bytes without hard operations or memory.
const SMALL_STEPS: u64 = 1 << 23;
/// The budget of other formulas without hard operations.
const EASY_STEPS: u64 = 1 << 18;
/// Stores an array must have below a read at a symbolic index for the read to be hard.
const HARD_STORES: u32 = 8;

/// One operation of the compiled program; operands index earlier results. Array operations
/// have no value of their own: a read walks its array's stores, as `ExprPool::eval` does.
#[derive(Clone, Copy)]
enum Op {
    Const(u128),
    Input(usize),
    Unary(UnOp, Width, usize),
    Binary(BinOp, Width, usize, usize),
    Ite(usize, usize, usize),
    Extract(usize, u32, Width),
    SExt(usize, Width, Width),
    Concat(usize, Width, usize),
    /// The operand itself (a zero extension).
    Copy(usize),
    FpBinary(FpBinOp, Width, usize, usize),
    FpUnary(FpUnOp, Width, usize),
    FpFma(Width, usize, usize, usize),
    FpCmp(FpCmp, Width, usize, usize),
    FpConvert(Width, Width, usize),
    FpToSInt(Width, Width, usize),
    IntToFp(Width, Width, bool, usize),
    /// An array whose every byte is this one.
    ArrayConst(u8),
    /// Array, index, byte.
    ArrayStore(usize, usize, usize),
    /// Array, index.
    ArrayRead(usize, usize),
    /// A multiplexer: the value, and its table in `Program::tables`.
    Table(usize, usize),
}

impl Op {
    /// Whether this operation is one CDCL is slow on: floating point, a product or quotient
    /// wider than a byte, or a read at an index that is not constant through at least
    /// [`HARD_STORES`] stores. `stores` counts the stores below each array operation.
    fn is_hard(self, ops: &[Op], stores: &[u32]) -> bool {
        match self {
            Op::Binary(op, width, _, _) => {
                width > 8
                    && matches!(
                        op,
                        BinOp::Mul | BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem
                    )
            }
            Op::ArrayRead(array, index) => {
                !matches!(ops[index], Op::Const(_)) && stores[array] >= HARD_STORES
            }
            Op::FpBinary(..)
            | Op::FpUnary(..)
            | Op::FpFma(..)
            | Op::FpCmp(..)
            | Op::FpConvert(..)
            | Op::FpToSInt(..)
            | Op::IntToFp(..) => true,
            _ => false,
        }
    }

    /// The operations this one reads.
    fn operands(self) -> [Option<usize>; 3] {
        match self {
            Op::Const(_) | Op::Input(_) | Op::ArrayConst(_) => [None, None, None],
            Op::Unary(_, _, a)
            | Op::Extract(a, _, _)
            | Op::SExt(a, _, _)
            | Op::Copy(a)
            | Op::FpUnary(_, _, a)
            | Op::FpConvert(_, _, a)
            | Op::FpToSInt(_, _, a)
            | Op::IntToFp(_, _, _, a)
            | Op::Table(a, _) => [Some(a), None, None],
            Op::Binary(_, _, a, b)
            | Op::Concat(a, _, b)
            | Op::FpBinary(_, _, a, b)
            | Op::FpCmp(_, _, a, b)
            | Op::ArrayRead(a, b) => [Some(a), Some(b), None],
            Op::Ite(a, b, c) | Op::FpFma(_, a, b, c) | Op::ArrayStore(a, b, c) => {
                [Some(a), Some(b), Some(c)]
            }
        }
    }
}

/// A constraint (or the query) to hold: its result, the operations it needs (its cone, in
/// evaluation order) with their weighted cost, and the inputs it reads (a bit per input).
struct Filter {
    /// The constraint itself: the key of its domain in a [`DomainCache`].
    expr: ExprId,
    root: usize,
    cone: Vec<u32>,
    cost: u64,
    reads: u64,
}

/// The values of its one input byte on which a constraint holds, as 256 bits.
type ByteSet = [u64; 4];

/// Highest weighted cost of a constraint over one byte whose domain is computed over all 256
/// values and kept: cheaper ones (a path's "this byte is a digit", "n > 3") are asked again
/// by every later query of the path and its descendants, which then intersect bit sets
/// instead of evaluating them again. Dearer ones (usually the query) are evaluated only on
/// the values the others leave.
const CACHED_FILTER_COST: u64 = 256;
/// Most domains a [`DomainCache`] keeps before it starts again.
const CACHE_ENTRIES: usize = 1 << 16;

/// Domains of single-byte constraints already computed, per expression of one pool.
#[derive(Default)]
struct DomainCache {
    pool: u64,
    sets: FxHashMap<ExprId, ByteSet>,
}

impl DomainCache {
    /// The cache for expressions of `pool`: emptied when the pool (or the size) changes.
    fn for_pool(&mut self, pool: &ExprPool) -> &mut FxHashMap<ExprId, ByteSet> {
        if self.pool != pool.id() || self.sets.len() >= CACHE_ENTRIES {
            self.pool = pool.id();
            self.sets.clear();
        }
        &mut self.sets
    }
}

/// The formula as a program: `ops` in evaluation order (operands first), and the filters,
/// cheapest first.
struct Program {
    /// The tables of the multiplexers ([`Op::Table`]).
    tables: Vec<MuxTable>,
    /// Whether the formula holds an operation that is hard for bit-blasting (see
    /// [`Op::is_hard`]).
    hard: bool,
    /// Whether the formula reads memory.
    arrays: bool,
    ops: Vec<Op>,
    weights: Vec<u32>,
    /// Each operation's level (see [`level`]).
    levels: Vec<usize>,
    filters: Vec<Filter>,
    inputs: Vec<(crate::expr::ArrayId, u32)>,
}

/// A tree of `ite`s on single bits of one value, with constant leaves: how the memory model
/// reads a constant table at a symbolic offset (`Object::read_symbolic`). Evaluated as a
/// lookup, it costs a few operations instead of one per `ite`.
struct MuxTable {
    /// The value's bits the tree selects on, lowest first.
    bits: Vec<u32>,
    /// The leaf for each combination of those bits (bit `i` of the position: `bits[i]`).
    leaves: Vec<u128>,
}

/// Fewest `ite`s a tree must have to be compiled as a table.
const TABLE_MIN_ITES: usize = 8;
/// Most bits a table may select on.
const TABLE_MAX_BITS: usize = 12;

/// The value and table of `root` when it is such a tree.
fn mux_table(pool: &ExprPool, root: ExprId) -> Option<(ExprId, MuxTable)> {
    let Node::Ite { .. } = pool.node(root) else {
        return None;
    };
    /// A node of the tree: a leaf, or a choice on a bit of the value.
    enum Step {
        Leaf(u128),
        Split(u32, ExprId, ExprId),
    }
    let (mut value, mut bits) = (None, Vec::new());
    let mut tree: FxHashMap<ExprId, Step> = FxHashMap::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if tree.contains_key(&id) {
            continue;
        }
        let step = match pool.node(id) {
            Node::Const { value, .. } => Step::Leaf(value),
            Node::Ite { cond, then, els } => {
                let Node::Extract { arg, lo, width: 1 } = pool.node(cond) else {
                    return None;
                };
                if *value.get_or_insert(arg) != arg {
                    return None;
                }
                if !bits.contains(&lo) {
                    bits.push(lo);
                }
                stack.extend([then, els]);
                Step::Split(lo, then, els)
            }
            _ => return None,
        };
        tree.insert(id, step);
        if bits.len() > TABLE_MAX_BITS || tree.len() >= 2 << TABLE_MAX_BITS {
            return None;
        }
    }
    let ites = tree
        .values()
        .filter(|s| matches!(s, Step::Split(..)))
        .count();
    if ites < TABLE_MIN_ITES {
        return None;
    }
    bits.sort_unstable();
    let leaves = (0..1usize << bits.len())
        .map(|at| {
            let mut cur = root;
            loop {
                match tree[&cur] {
                    Step::Leaf(leaf) => break leaf,
                    Step::Split(lo, then, els) => {
                        let i = bits.partition_point(|&b| b < lo);
                        cur = if at >> i & 1 == 1 { then } else { els };
                    }
                }
            }
        })
        .collect();
    Some((value?, MuxTable { bits, leaves }))
}

/// How an enumeration ended.
enum Search {
    /// The input (bytes in `inputs` order) on which every filter holds.
    Found(Vec<u8>),
    /// No input satisfies every filter.
    None,
    /// Trying every input the filters of single bytes leave would take more than the budget.
    OverBudget,
}

/// The level of something that reads the inputs in `reads`: 0 when it reads none, else one
/// more than the last input (in `inputs` order) it reads. The search fixes the inputs in
/// order, so it can run a filter at its level, as soon as every input it reads is fixed.
fn level(reads: u64) -> usize {
    (u64::BITS - reads.leading_zeros()) as usize
}

impl Program {
    /// Compiles `roots`, or `None` when they mention too many bytes.
    fn compile(pool: &ExprPool, roots: &[ExprId]) -> Option<Self> {
        let mut bytes = symbolic_bytes(pool, roots.iter().copied());
        if bytes.len() > MAX_BYTES {
            return None;
        }
        bytes.sort_unstable_by_key(|&(_, array, offset)| (array, offset));
        let inputs: Vec<_> = bytes.iter().map(|&(_, a, o)| (a, o)).collect();
        let input_of: FxHashMap<ExprId, usize> = bytes
            .iter()
            .enumerate()
            .map(|(i, &(id, _, _))| (id, i))
            .collect();
        // Post-order over the DAG, children first.
        let mut slot: FxHashMap<ExprId, usize> = FxHashMap::default();
        let mut ops = Vec::new();
        let mut tables = Vec::new();
        let mut muxes: FxHashMap<ExprId, (ExprId, usize)> = FxHashMap::default();
        let mut stack: Vec<(ExprId, bool)> = roots.iter().map(|&r| (r, false)).collect();
        while let Some((id, expanded)) = stack.pop() {
            if slot.contains_key(&id) {
                continue;
            }
            let node = pool.node(id);
            if !expanded {
                stack.push((id, true));
                if let Some((index, table)) = mux_table(pool, id) {
                    muxes.insert(id, (index, tables.len()));
                    tables.push(table);
                    if !slot.contains_key(&index) {
                        stack.push((index, false));
                    }
                    continue;
                }
                stack.extend(
                    super::children(&node)
                        .filter(|c| !slot.contains_key(c))
                        .map(|c| (c, false)),
                );
                continue;
            }
            if let Some(&(index, table)) = muxes.get(&id) {
                slot.insert(id, ops.len());
                ops.push(Op::Table(slot[&index], table));
                continue;
            }
            let s = |c: ExprId| slot[&c];
            let w = |c: ExprId| pool.width(c);
            let op = match node {
                Node::Const { value, .. } => Op::Const(value),
                Node::Sym { .. } => Op::Input(input_of[&id]),
                Node::Unary { op, arg } => Op::Unary(op, w(arg), s(arg)),
                Node::Binary { op, lhs, rhs } => Op::Binary(op, w(lhs), s(lhs), s(rhs)),
                Node::Ite { cond, then, els } => Op::Ite(s(cond), s(then), s(els)),
                Node::Extract { arg, lo, width } => Op::Extract(s(arg), lo, width),
                Node::ZExt { arg, .. } => Op::Copy(s(arg)),
                Node::SExt { arg, width } => Op::SExt(s(arg), w(arg), width),
                Node::Concat { hi, lo } => Op::Concat(s(hi), w(lo), s(lo)),
                Node::FpBinary { op, lhs, rhs } => Op::FpBinary(op, w(lhs), s(lhs), s(rhs)),
                Node::FpUnary { op, arg } => Op::FpUnary(op, w(arg), s(arg)),
                Node::FpFma { a, b, c } => Op::FpFma(w(a), s(a), s(b), s(c)),
                Node::FpCmp { op, lhs, rhs } => Op::FpCmp(op, w(lhs), s(lhs), s(rhs)),
                Node::FpConvert { arg, width } => Op::FpConvert(w(arg), width, s(arg)),
                Node::FpToSInt { arg, width } => Op::FpToSInt(w(arg), width, s(arg)),
                Node::IntToFp { arg, width, signed } => Op::IntToFp(w(arg), width, signed, s(arg)),
                Node::ArrayConst { value } => Op::ArrayConst(value),
                Node::ArrayStore {
                    array,
                    index,
                    value,
                } => Op::ArrayStore(s(array), s(index), s(value)),
                Node::ArrayRead { array, index } => Op::ArrayRead(s(array), s(index)),
            };
            slot.insert(id, ops.len());
            ops.push(op);
        }
        let (weights, stores) = Self::weights(&ops);
        let hard = ops.iter().any(|op| op.is_hard(&ops, &stores));
        let arrays = ops.iter().any(|op| matches!(op, Op::ArrayConst(_)));
        let mut reads = vec![0u64; ops.len()];
        for (k, op) in ops.iter().enumerate() {
            reads[k] = match *op {
                Op::Input(i) => 1 << i,
                _ => op
                    .operands()
                    .into_iter()
                    .flatten()
                    .fold(0, |m, a| m | reads[a]),
            };
        }
        // Which filter last marked each operation: one array for every cone, so a cone costs
        // its own size, not the program's.
        let mut marked = vec![usize::MAX; ops.len()];
        let mut filters: Vec<Filter> = roots
            .iter()
            .enumerate()
            .map(|(f, r)| {
                let cone = Self::cone(&ops, slot[r], f, &mut marked);
                let cost = cone.iter().map(|&k| u64::from(weights[k as usize])).sum();
                Filter {
                    expr: *r,
                    root: slot[r],
                    cone,
                    cost,
                    reads: reads[slot[r]],
                }
            })
            .collect();
        filters.sort_by_key(|f| f.cost);
        let levels = reads.iter().map(|&m| level(m)).collect();
        Some(Program {
            tables,
            hard,
            arrays,
            ops,
            weights,
            levels,
            filters,
            inputs,
        })
    }

    /// The cost of each operation: 1 for bit-vector operations, more for floating point
    /// (`long double` is computed in software), and a read one more than the stores it may
    /// walk; and the number of stores below each array operation.
    fn weights(ops: &[Op]) -> (Vec<u32>, Vec<u32>) {
        let mut stores = vec![0u32; ops.len()];
        let mut weights = Vec::with_capacity(ops.len());
        for (k, op) in ops.iter().enumerate() {
            let fp = |widths: &[Width]| {
                if widths.contains(&X87_IEEE_WIDTH) {
                    32
                } else {
                    4
                }
            };
            let weight = match *op {
                Op::ArrayStore(a, _, _) => {
                    stores[k] = stores[a].saturating_add(1);
                    1
                }
                Op::Ite(_, t, e) => {
                    stores[k] = stores[t].max(stores[e]);
                    1
                }
                Op::ArrayRead(a, _) => stores[a].saturating_add(1),
                Op::Table(..) => 4,
                Op::FpBinary(_, w, _, _)
                | Op::FpUnary(_, w, _)
                | Op::FpFma(w, _, _, _)
                | Op::FpCmp(_, w, _, _) => fp(&[w]),
                Op::FpConvert(from, to, _)
                | Op::FpToSInt(from, to, _)
                | Op::IntToFp(from, to, _, _) => fp(&[from, to]),
                _ => 1,
            };
            weights.push(weight);
        }
        (weights, stores)
    }

    /// The operations `root` needs, itself included, in evaluation order.
    /// `marked` records, per operation, the last `mark` that took it.
    fn cone(ops: &[Op], root: usize, mark: usize, marked: &mut [usize]) -> Vec<u32> {
        let mut stack = vec![root];
        let mut cone = Vec::new();
        while let Some(k) = stack.pop() {
            if std::mem::replace(&mut marked[k], mark) == mark {
                continue;
            }
            cone.push(k as u32);
            stack.extend(ops[k].operands().into_iter().flatten());
        }
        // Operands have smaller indices than the operations that read them.
        cone.sort_unstable();
        cone
    }

    /// The weighted operations the search may take: [`MAX_STEPS`] for a formula with hard
    /// operations, [`SMALL_STEPS`] for one over at most two bytes without memory, and
    /// [`EASY_STEPS`] otherwise (the backend answers those in a millisecond or two).
    fn budget(&self) -> u64 {
        if self.hard {
            MAX_STEPS
        } else if self.inputs.len() <= 2 && !self.arrays {
            SMALL_STEPS
        } else {
            EASY_STEPS
        }
    }

    /// The value of operation `k` on the input `bytes`, its operands computed.
    fn eval(&self, k: usize, values: &[u128], bytes: &[u8]) -> u128 {
        match self.ops[k] {
            Op::Const(v) => v,
            Op::Input(i) => u128::from(bytes[i]),
            Op::Unary(op, w, a) => fold_unary(op, w, values[a]),
            Op::Binary(op, w, a, b) => fold_binary(op, w, values[a], values[b]),
            Op::Ite(c, t, e) => {
                if values[c] == 1 {
                    values[t]
                } else {
                    values[e]
                }
            }
            Op::Extract(a, lo, w) => mask(w, values[a] >> lo),
            Op::SExt(a, from, to) => sign_extend(from, to, values[a]),
            Op::Concat(hi, lw, lo) => (values[hi] << lw) | values[lo],
            Op::Copy(a) => values[a],
            Op::FpBinary(op, w, a, b) => fold_fp_binary(op, w, values[a], values[b]),
            Op::FpUnary(op, w, a) => fold_fp_unary(op, w, values[a]),
            Op::FpFma(w, a, b, c) => fold_fp_fma(w, values[a], values[b], values[c]),
            Op::FpCmp(op, w, a, b) => u128::from(fold_fp_cmp(op, w, values[a], values[b])),
            Op::FpConvert(from, to, a) => fold_fp_convert(from, to, values[a]),
            Op::FpToSInt(from, to, a) => fold_fp_to_sint(from, to, values[a]),
            Op::IntToFp(from, to, signed, a) => fold_int_to_fp(from, to, signed, values[a]),
            Op::Table(value, table) => {
                let MuxTable { bits, leaves } = &self.tables[table];
                let v = values[value];
                let at = bits
                    .iter()
                    .enumerate()
                    .fold(0, |at, (i, &bit)| at | ((v >> bit) as usize & 1) << i);
                leaves[at]
            }
            Op::ArrayConst(_) | Op::ArrayStore(..) => 0,
            Op::ArrayRead(array, index) => {
                let index = values[index];
                let mut cur = array;
                loop {
                    match self.ops[cur] {
                        Op::ArrayConst(v) => break u128::from(v),
                        Op::ArrayStore(a, at, v) => {
                            if values[at] == index {
                                break values[v];
                            }
                            cur = a;
                        }
                        Op::Ite(c, t, e) => cur = if values[c] == 1 { t } else { e },
                        // Not an array: only reachable from an ill-sorted expression.
                        _ => break 0,
                    }
                }
            }
        }
    }

    /// Runs `filter` on `bytes` from scratch, counting its cost in `steps`; whether it holds.
    fn holds(&self, filter: &Filter, values: &mut [u128], bytes: &[u8], steps: &mut u64) -> bool {
        for &k in &filter.cone {
            values[k as usize] = self.eval(k as usize, values, bytes);
        }
        *steps += filter.cost;
        values[filter.root] == 1
    }

    /// The first input on which every filter holds, when finding it (or that there is none)
    /// takes at most `budget` weighted operations.
    ///
    /// First the filters that read no input, then each input's values that pass the filters
    /// reading that input alone (its domain: the cached domains of cheap filters intersected,
    /// the other cheap ones computed over every value and cached, the dear ones run on the
    /// values left). If the domains leave few enough combinations for the other filters to run on
    /// each within the budget, a depth-first search fixes the inputs in order, each over its
    /// domain, and runs each filter once the inputs it reads are fixed; otherwise the search
    /// does not start.
    fn search(&self, budget: u64, cache: &mut FxHashMap<ExprId, ByteSet>) -> Search {
        let n = self.inputs.len();
        let mut values = vec![0u128; self.ops.len()];
        let mut bytes = vec![0u8; n];
        let mut steps = 0u64;
        for filter in self.filters.iter().filter(|f| f.reads == 0) {
            if !self.holds(filter, &mut values, &bytes, &mut steps) {
                return Search::None;
            }
        }
        let mut domains: Vec<Vec<u8>> = Vec::with_capacity(n);
        for i in 0..n {
            let own: Vec<&Filter> = self.filters.iter().filter(|f| f.reads == 1 << i).collect();
            // Known domains first, as one intersection; then the cheap filters' domains over
            // every value, kept; then the dear ones on the values left.
            let mut set: ByteSet = [u64::MAX; 4];
            let mut rest = Vec::new();
            for filter in own {
                if let Some(known) = cache.get(&filter.expr) {
                    for (word, k) in set.iter_mut().zip(known) {
                        *word &= k;
                    }
                } else {
                    rest.push(filter);
                }
            }
            for filter in rest {
                let everywhere = filter.cost <= CACHED_FILTER_COST;
                let mut holds: ByteSet = [0; 4];
                for v in 0..=255u8 {
                    let live = set[usize::from(v >> 6)] >> (v & 63) & 1 == 1;
                    if !live && !everywhere {
                        continue;
                    }
                    bytes[i] = v;
                    if self.holds(filter, &mut values, &bytes, &mut steps) {
                        holds[usize::from(v >> 6)] |= 1 << (v & 63);
                    }
                    if steps > budget {
                        return Search::OverBudget;
                    }
                }
                if everywhere {
                    cache.insert(filter.expr, holds);
                }
                for (word, k) in set.iter_mut().zip(holds) {
                    *word &= k;
                }
            }
            let domain: Vec<u8> = (0..=255u8)
                .filter(|&v| set[usize::from(v >> 6)] >> (v & 63) & 1 == 1)
                .collect();
            if domain.is_empty() {
                return Search::None;
            }
            domains.push(domain);
        }
        let mut at_level: Vec<Vec<&Filter>> = vec![Vec::new(); n + 1];
        for filter in self.filters.iter().filter(|f| f.reads.count_ones() > 1) {
            at_level[level(filter.reads)].push(filter);
        }
        if at_level.iter().all(Vec::is_empty) {
            return Search::Found(domains.iter().map(|d| d[0]).collect());
        }
        // The search computes an operation of level `l` once per combination of the domains
        // of the first `l` inputs, at most: its values are kept while those inputs stay.
        let mut combinations = vec![1u64; n + 1];
        for (l, domain) in domains.iter().enumerate() {
            combinations[l + 1] = combinations[l].saturating_mul(domain.len() as u64);
        }
        let mut needed = vec![false; self.ops.len()];
        for filter in at_level.iter().flatten() {
            for &k in &filter.cone {
                needed[k as usize] = true;
            }
        }
        let computing = needed
            .iter()
            .enumerate()
            .filter(|(_, &needed)| needed)
            .fold(0u64, |sum, (k, _)| {
                let runs = combinations[self.levels[k]];
                sum.saturating_add(runs.saturating_mul(u64::from(self.weights[k])))
            });
        let plans: Vec<LevelPlan> = (0..=n)
            .map(|l| LevelPlan::new(self, l, &at_level[l]))
            .collect();
        // Each time the search enters a level, it walks that level's lower operations.
        let walking = plans
            .iter()
            .enumerate()
            .skip(1)
            .fold(0u64, |sum, (l, plan)| {
                let walk = plan.lower.len() as u64;
                sum.saturating_add(combinations[l - 1].saturating_mul(walk))
            });
        let rest = computing.saturating_add(walking);
        if steps.saturating_add(rest) > budget {
            return Search::OverBudget;
        }
        let mut dfs = Dfs {
            program: self,
            domains: &domains,
            plans: &plans,
            bytes,
            values,
            computed_at: vec![0; self.ops.len()],
            fixed_at: vec![1; n + 1],
            clock: 1,
        };
        if dfs.descend(1) {
            Search::Found(dfs.bytes)
        } else {
            Search::None
        }
    }
}

/// What the search runs at one level.
struct LevelPlan {
    /// The operations of earlier levels that the level's filters need, in evaluation order:
    /// brought up to date once each time the search enters the level.
    lower: Vec<u32>,
    /// Per filter, in order: the operations of this level it needs that no earlier filter
    /// of the level computes (computed for every value of the level's input), and its
    /// result.
    filters: Vec<(Vec<u32>, usize)>,
}

impl LevelPlan {
    fn new(program: &Program, level: usize, filters: &[&Filter]) -> Self {
        let mut lower: Vec<u32> = Vec::new();
        let mut taken = rustc_hash::FxHashSet::default();
        let mut plan = Vec::new();
        for filter in filters {
            let mut own = Vec::new();
            for &k in &filter.cone {
                if !taken.insert(k) {
                    continue;
                }
                if program.levels[k as usize] == level {
                    own.push(k);
                } else {
                    lower.push(k);
                }
            }
            plan.push((own, filter.root));
        }
        lower.sort_unstable();
        LevelPlan {
            lower,
            filters: plan,
        }
    }
}

/// The depth-first search over the inputs' domains.
struct Dfs<'a> {
    program: &'a Program,
    domains: &'a [Vec<u8>],
    plans: &'a [LevelPlan],
    bytes: Vec<u8>,
    values: Vec<u128>,
    /// When each value was computed (0: never).
    computed_at: Vec<u64>,
    /// When the input of each level was last fixed. Fixing an input fixes every later one
    /// again before a filter of a later level runs, so a value of level `l` is current when
    /// it was computed at or after `fixed_at[l]`.
    fixed_at: Vec<u64>,
    clock: u64,
}

impl Dfs<'_> {
    /// Whether some values of the inputs of `level` and after, the earlier ones as fixed,
    /// make every filter hold; `bytes` holds them when so.
    fn descend(&mut self, level: usize) -> bool {
        let n = self.domains.len();
        let plan = &self.plans[level];
        for &k in &plan.lower {
            let k = k as usize;
            let computed = self.computed_at[k];
            if computed == 0 || computed < self.fixed_at[self.program.levels[k]] {
                self.values[k] = self.program.eval(k, &self.values, &self.bytes);
                self.computed_at[k] = self.clock;
            }
        }
        for &v in &self.domains[level - 1] {
            self.bytes[level - 1] = v;
            self.clock += 1;
            self.fixed_at[level] = self.clock;
            let holds = plan.filters.iter().all(|(own, root)| {
                for &k in own {
                    let k = k as usize;
                    self.values[k] = self.program.eval(k, &self.values, &self.bytes);
                    self.computed_at[k] = self.clock;
                }
                self.values[*root] == 1
            });
            if holds && (level == n || self.descend(level + 1)) {
                return true;
            }
        }
        false
    }
}

/// A [`Solver`] layer that decides queries over few input bytes by trying every input.
pub struct EnumeratingSolver {
    inner: Box<dyn Solver>,
    decided: u64,
    over_budget: u64,
    domains: DomainCache,
}

impl EnumeratingSolver {
    pub fn new(inner: Box<dyn Solver>) -> Self {
        Self {
            inner,
            decided: 0,
            over_budget: 0,
            domains: DomainCache::default(),
        }
    }
}

impl Layer for EnumeratingSolver {
    wraps_inner!();

    fn answer(
        &mut self,
        pool: &ExprPool,
        constraints: &[ExprId],
        query: ExprId,
    ) -> Result<SatResult, SolverError> {
        let mut roots = constraints.to_vec();
        roots.push(query);
        let Some(program) = Program::compile(pool, &roots) else {
            return self.inner.check(pool, constraints, query);
        };
        let answer = match program.search(program.budget(), self.domains.for_pool(pool)) {
            Search::OverBudget => {
                self.over_budget += 1;
                return self.inner.check(pool, constraints, query);
            }
            Search::None => SatResult::Unsat,
            Search::Found(values) => {
                let bytes = program
                    .inputs
                    .iter()
                    .zip(values)
                    .map(|(&(array, offset), v)| (array, offset, v));
                let mut model = assignment_from_bytes(pool, bytes);
                fill_missing_arrays(pool, &mut model, &roots);
                SatResult::Sat(model)
            }
        };
        self.decided += 1;
        Ok(answer)
    }

    fn add_stats(&self, stats: &mut SolverStats) {
        stats.enumerated += self.decided;
        stats.enumeration_over_budget += self.over_budget;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::FpPred;
    use crate::solver::BitwuzlaSolver;

    /// Every answer of the enumeration agrees with Bitwuzla's, on formulas with one and two
    /// bytes, signed and unsigned operators, satisfiable and not.
    #[test]
    fn enumeration_agrees_with_bitwuzla() {
        let pool = ExprPool::new();
        let (n, d) = (
            pool.sym(pool.new_array("n", 1), 0),
            pool.sym(pool.new_array("d", 1), 0),
        );
        let (n32, d32) = (pool.zext(n, 32), pool.zext(d, 32));
        let nonzero = |x: ExprId| pool.ne(x, pool.constant(8, 0));
        let ceil_a = pool.add(
            pool.constant(32, 1),
            pool.sdiv(pool.sub(n32, pool.constant(32, 1)), d32),
        );
        let ceil_b = pool.add(
            pool.udiv(n32, d32),
            pool.zext(pool.ne(pool.urem(n32, d32), pool.constant(32, 0)), 32),
        );
        let cases = [
            (vec![nonzero(n), nonzero(d)], pool.ne(ceil_a, ceil_b), false),
            (vec![nonzero(d)], pool.ne(ceil_a, ceil_b), true),
            (
                vec![],
                pool.slt(pool.sext(n, 16), pool.constant(16, 0xff80)),
                false,
            ),
            (
                vec![pool.ult(n, pool.constant(8, 7))],
                pool.eq(pool.mul(n32, d32), pool.constant(32, 1000)),
                true,
            ),
            (
                vec![],
                pool.eq(pool.concat(n, d), pool.constant(16, 0x1234)),
                true,
            ),
        ];
        for (constraints, query, expect_sat) in cases {
            let mut bitwuzla = BitwuzlaSolver::new(None);
            let reference = bitwuzla.check(&pool, &constraints, query).unwrap();
            let mut enumerating = EnumeratingSolver::new(Box::new(BitwuzlaSolver::new(None)));
            let answer = enumerating.check(&pool, &constraints, query).unwrap();
            assert_eq!(enumerating.stats().enumerated, 1, "not enumerated");
            assert_eq!(reference.is_sat(), expect_sat, "{}", pool.to_sexp(query));
            assert_eq!(answer.is_sat(), expect_sat, "{}", pool.to_sexp(query));
            if let SatResult::Sat(model) = answer {
                for &c in constraints.iter().chain([&query]) {
                    assert_eq!(pool.eval(c, &model), 1, "{}", pool.to_sexp(c));
                }
            }
        }
    }

    /// The byte `leaves[v's bits]` as a tree of `ite`s on the bits of `value`, the highest
    /// at the root (as `Object::read_symbolic` builds it).
    fn mux(pool: &ExprPool, value: ExprId, bits: &[u32], leaves: &[u64]) -> ExprId {
        let Some((&bit, lower)) = bits.split_last() else {
            return pool.constant(8, u128::from(leaves[0]));
        };
        let half = leaves.len() / 2;
        let low = mux(pool, value, lower, &leaves[..half]);
        let high = mux(pool, value, lower, &leaves[half..]);
        pool.ite(pool.extract(value, bit, 1), high, low)
    }

    /// A multiplexer is compiled as one table lookup, and a query over it gets the answer
    /// of trying every value.
    #[test]
    fn a_multiplexer_is_a_table() {
        let pool = ExprPool::new();
        let x = pool.sym(pool.new_array("x", 1), 0);
        let value = pool.zext(x, 32);
        let leaves: Vec<u64> = (0..64).map(|i| (i * 37 + 11) % 251).collect();
        let read = mux(&pool, value, &[1, 2, 3, 5, 6, 7], &leaves);
        let query = pool.eq(read, pool.constant(8, 104));
        let program = Program::compile(&pool, &[query]).unwrap();
        assert_eq!(program.tables.len(), 1);
        assert!(program.ops.len() < 8, "{} operations", program.ops.len());
        let expected: Vec<u8> = (0..=255u8)
            .filter(|&b| {
                let mut input = crate::expr::Assignment::new();
                input.set(pool.arrays_in(query)[0], vec![b]);
                pool.eval(query, &input) == 1
            })
            .collect();
        assert!(!expected.is_empty());
        match program.search(MAX_STEPS, &mut FxHashMap::default()) {
            Search::Found(bytes) => assert_eq!(bytes[0], expected[0]),
            _ => panic!("not found"),
        }
    }

    /// A formula over `n` bytes of `x` for the property test: each byte kept to 8 values by
    /// constraints of its own, and constraints and a query over several bytes built from
    /// integer arithmetic, `double` and `long double` arithmetic, table reads at symbolic
    /// offsets and stores to them.
    fn random_formula(
        pool: &ExprPool,
        x: crate::expr::ArrayId,
        n: u32,
        next: &mut impl FnMut(u64) -> u64,
    ) -> (Vec<ExprId>, ExprId, Vec<u8>) {
        let byte = |i: u32| pool.sym(x, i);
        let c8 = |v: u64| pool.constant(8, u128::from(v));
        let c32 = |v: u64| pool.constant(32, u128::from(v));
        let los: Vec<u8> = (0..n).map(|_| next(248) as u8).collect();
        let mut constraints = Vec::new();
        for i in 0..n {
            let lo = u64::from(los[i as usize]);
            constraints.push(pool.ule(c8(lo), byte(i)));
            constraints.push(pool.ule(byte(i), c8(lo + 7)));
            if next(3) == 0 {
                constraints.push(pool.ne(byte(i), c8(lo + next(8))));
            }
        }
        // The byte's value within its range, 0 to 7, in 32 bits.
        let digit = |i: u32| pool.zext(pool.sub(byte(i), c8(u64::from(los[i as usize]))), 32);
        let template = |next: &mut dyn FnMut(u64) -> u64| -> ExprId {
            let (i, j) = (next(u64::from(n)) as u32, next(u64::from(n)) as u32);
            let k = next(u64::from(n)) as u32;
            match next(6) {
                0 => {
                    let v = pool.add(
                        pool.mul(digit(i), c32(8)),
                        pool.mul(digit(j), pool.add(digit(k), c32(1))),
                    );
                    pool.ult(pool.urem(v, c32(1 + next(9))), c32(next(4)))
                }
                1 | 2 => {
                    let width = if next(2) == 0 { 64 } else { 80 };
                    let a = pool.int_to_fp(digit(i), width, true);
                    let b = pool.int_to_fp(pool.add(digit(j), c32(1)), width, false);
                    let q = pool.fp_binary(FpBinOp::Div, a, b);
                    let q = pool.fp_binary(FpBinOp::Mul, q, pool.int_to_fp(digit(k), width, true));
                    let bound = pool.int_to_fp(c32(next(8)), width, true);
                    let pred = [FpPred::Olt, FpPred::Oge, FpPred::Oeq][next(3) as usize];
                    pool.fp_pred(pred, pool.fp_convert(q, 64), pool.fp_convert(bound, 64))
                }
                3 => {
                    let mut table = pool.array_const(next(256) as u8);
                    for t in 0..8 {
                        if next(2) == 0 {
                            table = pool.array_store(table, c32(t), c8(next(8)));
                        }
                    }
                    let read = pool.array_read(table, digit(i));
                    pool.eq(read, pool.extract(digit(j), 0, 8))
                }
                4 => {
                    // A table read as the memory model multiplexes it.
                    let v = pool.add(pool.mul(digit(i), c32(8)), digit(j));
                    let leaves: Vec<u64> = (0..32).map(|_| next(8)).collect();
                    let read = mux(pool, v, &[0, 1, 2, 3, 4], &leaves);
                    pool.eq(read, pool.extract(digit(k), 0, 8))
                }
                _ => {
                    let mem = pool.array_store(pool.array_const(0), digit(i), byte(j));
                    let read = pool.array_read(mem, digit(k));
                    let other = pool.ite(pool.ult(digit(i), digit(k)), byte(k), byte(i));
                    pool.ule(read, other)
                }
            }
        };
        for _ in 0..1 + next(3) {
            constraints.push(template(next));
        }
        let query = template(next);
        (constraints, query, los)
    }

    /// The search (domains, then depth first over them, values reused while their inputs
    /// stay) answers as trying every input in the bytes' ranges with `ExprPool::eval` does,
    /// on formulas over three and four bytes with floating point and arrays, satisfiable
    /// and not; each is decided here, none passed on.
    #[test]
    fn search_agrees_with_trying_every_input() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let mut seed = 0x5eed_u64;
        let mut next = move |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let (mut sat, mut unsat) = (0, 0);
        // One solver for every round: the rounds share constraints (the same byte ranges
        // come back), so later rounds take their domains from the cache.
        let mut solver = EnumeratingSolver::new(Box::new(BitwuzlaSolver::new(None)));
        for round in 0..80 {
            let n = 3 + (round % 2);
            let (constraints, query, los) = random_formula(&pool, x, n, &mut next);
            let mut roots = constraints.clone();
            roots.push(query);
            let mut expected = None;
            for combination in 0..8u32.pow(n) {
                let bytes: Vec<u8> = (0..n)
                    .map(|i| los[i as usize] + ((combination >> (3 * i)) & 7) as u8)
                    .collect();
                let mut input = crate::expr::Assignment::new();
                input.set(x, bytes.clone());
                if pool.eval_all(&roots, &input).iter().all(|&v| v == 1) {
                    expected = Some(bytes);
                    break;
                }
            }
            let answer = solver.check(&pool, &constraints, query).unwrap();
            let label = format!("round {round}: {}", pool.to_sexp(query));
            assert_eq!(
                solver.stats().enumerated,
                u64::from(round) + 1,
                "passed on, {label}"
            );
            assert_eq!(answer.is_sat(), expected.is_some(), "{label}");
            if let SatResult::Sat(model) = answer {
                for &root in &roots {
                    assert_eq!(
                        pool.eval(root, &model),
                        1,
                        "{label}: {}",
                        pool.to_sexp(root)
                    );
                }
                sat += 1;
            } else {
                unsat += 1;
            }
        }
        assert!(sat >= 10 && unsat >= 10, "{sat} sat, {unsat} unsat");
    }

    #[test]
    fn three_bytes_go_to_the_next_layer() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 3);
        let sum = pool.add(pool.add(pool.sym(x, 0), pool.sym(x, 1)), pool.sym(x, 2));
        let mut solver = EnumeratingSolver::new(Box::new(BitwuzlaSolver::new(None)));
        let answer = solver
            .check(&pool, &[], pool.eq(sum, pool.constant(8, 7)))
            .unwrap();
        assert!(answer.is_sat());
        assert_eq!(solver.stats().enumerated, 0);
        assert_eq!(solver.stats().backend_queries, 1);
    }
}
