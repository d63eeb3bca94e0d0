//! Property tests of the expression module.
//!
//! Random well-sorted expression trees are built through the simplifying constructors and
//! evaluated with `ExprPool::eval`; the result must match this file's own reference
//! interpreter, which evaluates the unsimplified tree directly. The text form must
//! round-trip, and very deep expressions must evaluate, print and parse without
//! overflowing the stack.
//!
//! Trees are decoded from a list of random choices (missing choices read as 0, which
//! decodes to a constant 0 leaf), so proptest shrinks a failing case by shrinking the
//! list: fewer choices and smaller numbers give smaller trees.

use proptest::prelude::*;
use rustc_hash::FxHashSet;
use xcheck::expr::{
    ArrayId, Assignment, BinOp, ExprId, ExprPool, Node, Sort, UnOp, Width, INDEX_WIDTH,
};

/// Widths the generator aims for; concatenations and extensions create others.
const WIDTHS: [Width; 6] = [1, 8, 16, 32, 64, 128];
/// The symbolic arrays every tree may mention.
const ARRAYS: [&str; 3] = ["a", "b", "c"];
/// Symbolic bytes are taken at offsets below this (assignments may be shorter).
const OFFSETS: u64 = 5;
/// Maximum depth of operator nodes in a generated tree.
const DEPTH: u32 = 5;

const ARITH_OPS: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::UDiv,
    BinOp::SDiv,
    BinOp::URem,
    BinOp::SRem,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
];
const COMPARISONS: [BinOp; 5] = [BinOp::Eq, BinOp::Ult, BinOp::Ule, BinOp::Slt, BinOp::Sle];

/// An unsimplified bit-vector expression.
#[derive(Clone, Debug)]
enum Tree {
    Const(Width, u128),
    Sym(usize, u32),
    Unary(UnOp, Box<Tree>),
    Binary(BinOp, Box<Tree>, Box<Tree>),
    /// `ne`, `ugt`, `uge`, `sgt`, `sge` (index into [`DERIVED`]).
    Derived(usize, Box<Tree>, Box<Tree>),
    Ite(Box<Tree>, Box<Tree>, Box<Tree>),
    Extract(u32, Width, Box<Tree>),
    ZExt(Width, Box<Tree>),
    SExt(Width, Box<Tree>),
    Concat(Box<Tree>, Box<Tree>),
    /// Little-endian bytes joined with `concat_bytes`.
    Bytes(Vec<Tree>),
    Read(Box<Mem>, Box<Tree>),
    /// The constant value of the tree under the first assignment of a test case; see [`pin`].
    /// Comparisons against it are true for at least one assignment.
    ValueOf(Box<Tree>),
}

/// An unsimplified array expression.
#[derive(Clone, Debug)]
enum Mem {
    Const(u8),
    Store(Box<Mem>, Box<Tree>, Box<Tree>),
}

type DerivedBuilder = fn(&ExprPool, ExprId, ExprId) -> ExprId;
const DERIVED: [(&str, DerivedBuilder); 5] = [
    ("ne", ExprPool::ne),
    ("ugt", ExprPool::ugt),
    ("uge", ExprPool::uge),
    ("sgt", ExprPool::sgt),
    ("sge", ExprPool::sge),
];

/// Decodes trees from a list of choices.
struct Gen<'a> {
    choices: &'a [u64],
    next: usize,
}

impl Gen<'_> {
    /// The next choice, below `n`.
    fn pick(&mut self, n: u64) -> u64 {
        let c = self.choices.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        c % n
    }

    fn pick_from<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.pick(items.len() as u64) as usize]
    }

    /// A `width`-bit constant, biased towards the values that simplifications test for.
    fn value(&mut self, width: Width) -> u128 {
        let ones = mask(width, u128::MAX);
        let msb = 1u128 << (width - 1);
        match self.pick(8) {
            0 => 0,
            1 => 1,
            2 => ones,
            3 => msb,
            4 => msb - 1,
            5 => mask(width, u128::from(self.pick(u64::from(width) + 2))),
            6 => mask(width, 1u128 << self.pick(u64::from(width))),
            _ => mask(
                width,
                (u128::from(self.pick(u64::MAX)) << 64) | u128::from(self.pick(u64::MAX)),
            ),
        }
    }

    fn sym(&mut self) -> Tree {
        let array = self.pick(ARRAYS.len() as u64) as usize;
        Tree::Sym(array, self.pick(OFFSETS) as u32)
    }

    /// A leaf of `width` bits: a constant or a few symbolic bytes.
    fn leaf(&mut self, width: Width) -> Tree {
        if self.pick(3) == 0 {
            return Tree::Const(width, self.value(width));
        }
        let sym = self.sym();
        match width {
            8 => sym,
            w if w < 8 => Tree::Extract(self.pick(u64::from(9 - w)) as u32, w, Box::new(sym)),
            w => match self.pick(3) {
                0 => Tree::ZExt(w, Box::new(sym)),
                1 => Tree::SExt(w, Box::new(sym)),
                _ => Tree::Concat(Box::new(self.leaf(w - 8)), Box::new(sym)),
            },
        }
    }

    /// A small index, likely to collide with other indices.
    fn index(&mut self, depth: u32) -> Tree {
        match self.pick(4) {
            0 | 1 => Tree::Const(INDEX_WIDTH, u128::from(self.pick(4))),
            2 => Tree::ZExt(
                INDEX_WIDTH,
                Box::new(Tree::Extract(0, 2, Box::new(self.sym()))),
            ),
            _ => self.bv(INDEX_WIDTH, depth),
        }
    }

    fn mem(&mut self, depth: u32) -> Mem {
        let mut mem = Mem::Const(self.pick(256) as u8);
        for _ in 0..self.pick(5) {
            let index = self.index(depth);
            let value = self.bv(8, depth);
            mem = Mem::Store(Box::new(mem), Box::new(index), Box::new(value));
        }
        mem
    }

    /// Two operands of `width` bits, sometimes the same tree twice.
    fn operands(&mut self, width: Width, depth: u32) -> (Box<Tree>, Box<Tree>) {
        let a = self.bv(width, depth);
        let b = if self.pick(5) == 0 {
            a.clone()
        } else {
            self.bv(width, depth)
        };
        (Box::new(a), Box::new(b))
    }

    /// Two operands of `width` bits, often one of them a constant: most simplifications
    /// look for constant operands.
    fn operands_with_constant(&mut self, width: Width, depth: u32) -> (Box<Tree>, Box<Tree>) {
        let (a, b) = self.operands(width, depth);
        match self.pick(4) {
            0 => (a, Box::new(Tree::Const(width, self.value(width)))),
            1 => (Box::new(Tree::Const(width, self.value(width))), b),
            _ => (a, b),
        }
    }

    /// A tree of `width` bits with operators nested at most `depth` deep.
    fn bv(&mut self, width: Width, depth: u32) -> Tree {
        if depth == 0 || self.pick(4) == 0 {
            return self.leaf(width);
        }
        let d = depth - 1;
        // Booleans are mostly comparisons.
        if width == 1 && self.pick(2) == 0 {
            return self.comparison(d);
        }
        match self.pick(13) {
            0 => {
                let op = self.pick_from(&[UnOp::Not, UnOp::Neg]);
                Tree::Unary(op, Box::new(self.bv(width, d)))
            }
            1..=3 => {
                let op = self.pick_from(&ARITH_OPS);
                let (a, b) = self.operands_with_constant(width, d);
                Tree::Binary(op, a, b)
            }
            4 | 5 => self.linear(width, d),
            6 => {
                let cond = self.bv(1, d);
                let (a, b) = self.operands(width, d);
                // Sometimes an arm tests the same condition again.
                let (a, b) = match self.pick(4) {
                    0 => (Box::new(Tree::Ite(Box::new(cond.clone()), a, b.clone())), b),
                    1 => (a.clone(), Box::new(Tree::Ite(Box::new(cond.clone()), a, b))),
                    _ => (a, b),
                };
                Tree::Ite(Box::new(cond), a, b)
            }
            7 => {
                let from = self.pick_from(&WIDTHS).max(width);
                let lo = self.pick(u64::from(from - width) + 1) as u32;
                Tree::Extract(lo, width, Box::new(self.bv(from, d)))
            }
            8 if width > 1 => {
                let from = 1 + self.pick(u64::from(width - 1)) as Width;
                let arg = Box::new(self.bv(from, d));
                if self.pick(2) == 0 {
                    Tree::ZExt(width, arg)
                } else {
                    Tree::SExt(width, arg)
                }
            }
            9 if width > 1 => {
                // Split one value and join the halves again, join two arbitrary pieces of
                // one value, or join unrelated halves.
                let split = 1 + self.pick(u64::from(width - 1)) as Width;
                let hw = width - split;
                let piece = |lo: u64, w: Width, whole: &Tree| {
                    Box::new(Tree::Extract(lo as u32, w, Box::new(whole.clone())))
                };
                match self.pick(3) {
                    0 => {
                        let whole = self.bv(width, d);
                        Tree::Concat(piece(u64::from(split), hw, &whole), piece(0, split, &whole))
                    }
                    1 => {
                        let whole = self.bv(width, d);
                        let hl = self.pick(u64::from(split) + 1);
                        let ll = self.pick(u64::from(hw) + 1);
                        Tree::Concat(piece(hl, hw, &whole), piece(ll, split, &whole))
                    }
                    _ => Tree::Concat(Box::new(self.bv(hw, d)), Box::new(self.bv(split, d))),
                }
            }
            10 if width.is_multiple_of(8) && width > 8 => {
                let whole = self.bv(width, d);
                let bytes = (0..width / 8)
                    .map(|i| Tree::Extract(8 * i, 8, Box::new(whole.clone())))
                    .collect();
                Tree::Bytes(bytes)
            }
            10 | 11 if width == 8 => {
                let mem = self.mem(d);
                Tree::Read(Box::new(mem), Box::new(self.index(d)))
            }
            _ => {
                let (a, b) = self.operands(width, d);
                Tree::Binary(self.pick_from(&ARITH_OPS), a, b)
            }
        }
    }

    /// A comparison of two trees of the same random width.
    fn comparison(&mut self, depth: u32) -> Tree {
        let w = self.pick_from(&WIDTHS);
        let (a, b) = match self.pick(3) {
            0 => self.operands_with_constant(w, depth),
            _ => {
                // A linear tree against a constant, often its own value, which makes the
                // comparison true or borderline for at least one assignment.
                let x = Box::new(self.linear(w, depth));
                let c = Box::new(if self.pick(2) == 0 {
                    Tree::ValueOf(x.clone())
                } else {
                    Tree::Const(w, self.value(w))
                });
                if self.pick(2) == 0 {
                    (c, x)
                } else {
                    (x, c)
                }
            }
        };
        if self.pick(4) == 0 {
            Tree::Derived(self.pick(DERIVED.len() as u64) as usize, a, b)
        } else {
            Tree::Binary(self.pick_from(&COMPARISONS), a, b)
        }
    }

    /// A few arithmetic operators nested around one tree, mostly with constant operands:
    /// the shapes that linear simplification looks for.
    fn linear(&mut self, width: Width, depth: u32) -> Tree {
        const OPS: [BinOp; 8] = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Xor,
            BinOp::And,
            BinOp::Or,
        ];
        let mut t = self.bv(width, depth);
        for _ in 0..1 + self.pick(3) {
            let op = self.pick_from(&OPS);
            let c = Box::new(Tree::Const(width, self.value(width)));
            t = match self.pick(5) {
                0 => Tree::Binary(op, c, Box::new(t)),
                1 => Tree::Binary(op, Box::new(t), c),
                2 => Tree::Unary(self.pick_from(&[UnOp::Not, UnOp::Neg]), Box::new(t)),
                3 => Tree::Binary(op, Box::new(self.bv(width, depth)), Box::new(t)),
                _ => Tree::Binary(op, Box::new(t), Box::new(self.bv(width, depth))),
            };
        }
        t
    }
}

// ---- The reference interpreter ----

/// `t` with every [`Tree::ValueOf`] replaced by its value under `env`.
fn pin(t: &Tree, env: &Env) -> Tree {
    let p = |t: &Tree| Box::new(pin(t, env));
    match t {
        Tree::Const(..) | Tree::Sym(..) => t.clone(),
        Tree::Unary(op, a) => Tree::Unary(*op, p(a)),
        Tree::Binary(op, a, b) => Tree::Binary(*op, p(a), p(b)),
        Tree::Derived(k, a, b) => Tree::Derived(*k, p(a), p(b)),
        Tree::Ite(c, a, b) => Tree::Ite(p(c), p(a), p(b)),
        Tree::Extract(lo, w, a) => Tree::Extract(*lo, *w, p(a)),
        Tree::ZExt(w, a) => Tree::ZExt(*w, p(a)),
        Tree::SExt(w, a) => Tree::SExt(*w, p(a)),
        Tree::Concat(h, l) => Tree::Concat(p(h), p(l)),
        Tree::Bytes(bytes) => Tree::Bytes(bytes.iter().map(|b| pin(b, env)).collect()),
        Tree::Read(mem, index) => Tree::Read(Box::new(pin_mem(mem, env)), p(index)),
        Tree::ValueOf(a) => {
            let (value, width) = reference(&pin(a, env), env);
            Tree::Const(width, value)
        }
    }
}

fn pin_mem(mem: &Mem, env: &Env) -> Mem {
    match mem {
        Mem::Const(c) => Mem::Const(*c),
        Mem::Store(inner, index, value) => Mem::Store(
            Box::new(pin_mem(inner, env)),
            Box::new(pin(index, env)),
            Box::new(pin(value, env)),
        ),
    }
}

fn mask(width: Width, value: u128) -> u128 {
    if width == 128 {
        value
    } else {
        value & ((1u128 << width) - 1)
    }
}

fn signed(width: Width, value: u128) -> i128 {
    if width < 128 && (value >> (width - 1)) & 1 == 1 {
        (value | (u128::MAX << width)) as i128
    } else {
        value as i128
    }
}

/// Contents of the arrays of [`ARRAYS`], in order.
type Env = Vec<Vec<u8>>;

fn reference_binary(op: BinOp, w: Width, a: u128, b: u128) -> u128 {
    let (sa, sb) = (signed(w, a), signed(w, b));
    let ones = mask(w, u128::MAX);
    // A shift amount of at least the width; `None` when the shift is in range.
    let shift = u32::try_from(b).ok().filter(|&s| s < w);
    let bit = |b: bool| u128::from(b);
    match op {
        BinOp::Add => mask(w, a.wrapping_add(b)),
        BinOp::Sub => mask(w, a.wrapping_sub(b)),
        BinOp::Mul => mask(w, a.wrapping_mul(b)),
        BinOp::UDiv => a.checked_div(b).unwrap_or(ones),
        BinOp::URem => a.checked_rem(b).unwrap_or(a),
        BinOp::SDiv if sb == 0 => {
            if sa < 0 {
                1
            } else {
                ones
            }
        }
        BinOp::SDiv => mask(w, sa.wrapping_div(sb) as u128),
        BinOp::SRem if sb == 0 => a,
        BinOp::SRem => mask(w, sa.wrapping_rem(sb) as u128),
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => shift.map_or(0, |s| mask(w, a << s)),
        BinOp::LShr => shift.map_or(0, |s| a >> s),
        BinOp::AShr => mask(w, (sa >> shift.unwrap_or(w - 1)) as u128),
        BinOp::Eq => bit(a == b),
        BinOp::Ult => bit(a < b),
        BinOp::Ule => bit(a <= b),
        BinOp::Slt => bit(sa < sb),
        BinOp::Sle => bit(sa <= sb),
    }
}

/// The value and width of `t` in `env`. `t` must be pinned.
fn reference(t: &Tree, env: &Env) -> (u128, Width) {
    match t {
        Tree::ValueOf(_) => unreachable!("trees are pinned before evaluation"),
        &Tree::Const(w, v) => (v, w),
        &Tree::Sym(array, offset) => {
            let byte = env[array].get(offset as usize).copied().unwrap_or(0);
            (u128::from(byte), 8)
        }
        Tree::Unary(op, a) => {
            let (v, w) = reference(a, env);
            let r = match op {
                UnOp::Not => !v,
                UnOp::Neg => 0u128.wrapping_sub(v),
            };
            (mask(w, r), w)
        }
        Tree::Binary(op, a, b) => {
            let ((x, w), (y, _)) = (reference(a, env), reference(b, env));
            let rw = if COMPARISONS.contains(op) { 1 } else { w };
            (reference_binary(*op, w, x, y), rw)
        }
        Tree::Derived(k, a, b) => {
            let ((x, w), (y, _)) = (reference(a, env), reference(b, env));
            let (sx, sy) = (signed(w, x), signed(w, y));
            let r = [x != y, x > y, x >= y, sx > sy, sx >= sy][*k];
            (u128::from(r), 1)
        }
        Tree::Ite(c, a, b) => {
            if reference(c, env).0 == 1 {
                reference(a, env)
            } else {
                reference(b, env)
            }
        }
        &Tree::Extract(lo, w, ref a) => (mask(w, reference(a, env).0 >> lo), w),
        &Tree::ZExt(w, ref a) => (reference(a, env).0, w),
        &Tree::SExt(w, ref a) => {
            let (v, from) = reference(a, env);
            (mask(w, signed(from, v) as u128), w)
        }
        Tree::Concat(h, l) => {
            let ((hv, hw), (lv, lw)) = (reference(h, env), reference(l, env));
            ((hv << lw) | lv, hw + lw)
        }
        Tree::Bytes(bytes) => bytes.iter().rev().fold((0, 0), |(acc, w), b| {
            ((acc << 8) | reference(b, env).0, w + 8)
        }),
        Tree::Read(mem, index) => {
            let index = reference(index, env).0;
            let mut cur = &**mem;
            let byte = loop {
                match cur {
                    Mem::Const(c) => break u128::from(*c),
                    Mem::Store(inner, at, value) => {
                        if reference(at, env).0 == index {
                            break reference(value, env).0;
                        }
                        cur = inner;
                    }
                }
            };
            (byte, 8)
        }
    }
}

// ---- Building through the constructors ----

fn build(pool: &ExprPool, arrays: &[ArrayId], t: &Tree) -> ExprId {
    let b = |t: &Tree| build(pool, arrays, t);
    match t {
        &Tree::Const(w, v) => pool.constant(w, v),
        &Tree::Sym(array, offset) => pool.sym(arrays[array], offset),
        Tree::Unary(op, a) => pool.unary(*op, b(a)),
        Tree::Binary(op, x, y) => {
            let (x, y) = (b(x), b(y));
            // Go through the named helpers too.
            match op {
                BinOp::Add => pool.add(x, y),
                BinOp::Sub => pool.sub(x, y),
                BinOp::Mul => pool.mul(x, y),
                BinOp::UDiv => pool.udiv(x, y),
                BinOp::SDiv => pool.sdiv(x, y),
                BinOp::URem => pool.urem(x, y),
                BinOp::SRem => pool.srem(x, y),
                BinOp::Eq => pool.eq(x, y),
                BinOp::Ult => pool.ult(x, y),
                BinOp::Slt => pool.slt(x, y),
                _ => pool.binary(*op, x, y),
            }
        }
        Tree::Derived(k, x, y) => {
            let (x, y) = (b(x), b(y));
            DERIVED[*k].1(pool, x, y)
        }
        Tree::Ite(c, x, y) => {
            let (c, x, y) = (b(c), b(x), b(y));
            pool.ite(c, x, y)
        }
        &Tree::Extract(lo, w, ref a) => pool.extract(b(a), lo, w),
        &Tree::ZExt(w, ref a) => pool.zext(b(a), w),
        &Tree::SExt(w, ref a) => pool.sext(b(a), w),
        Tree::Concat(h, l) => {
            let (h, l) = (b(h), b(l));
            pool.concat(h, l)
        }
        Tree::Bytes(bytes) => {
            let bytes: Vec<ExprId> = bytes.iter().map(b).collect();
            pool.concat_bytes(&bytes)
        }
        Tree::Read(mem, index) => {
            let mem = build_mem(pool, arrays, mem);
            pool.array_read(mem, b(index))
        }
        Tree::ValueOf(_) => unreachable!("trees are pinned before building"),
    }
}

fn build_mem(pool: &ExprPool, arrays: &[ArrayId], mem: &Mem) -> ExprId {
    match mem {
        Mem::Const(c) => pool.array_const(*c),
        Mem::Store(inner, index, value) => {
            let inner = build_mem(pool, arrays, inner);
            let (index, value) = (build(pool, arrays, index), build(pool, arrays, value));
            pool.array_store(inner, index, value)
        }
    }
}

/// The children of a node.
fn children(node: Node) -> Vec<ExprId> {
    node.children().collect()
}

/// Checks the canonical-form rules of `mod.rs` on every node reachable from `root`.
fn check_canonical(pool: &ExprPool, root: ExprId) -> Result<(), TestCaseError> {
    let mut seen = FxHashSet::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = pool.node(id);
        let kids = children(node);
        // Constants, and arrays made only of constants.
        let constant = |id: ExprId| {
            let mut stack = vec![id];
            while let Some(id) = stack.pop() {
                match pool.node(id) {
                    Node::Const { .. } | Node::ArrayConst { .. } => {}
                    Node::ArrayStore { .. } => stack.extend(children(pool.node(id))),
                    _ => return false,
                }
            }
            true
        };
        let folds = !matches!(node, Node::ArrayStore { .. });
        prop_assert!(
            !(folds && !kids.is_empty() && kids.iter().all(|&k| constant(k))),
            "unfolded constant node {}",
            pool.to_sexp(id)
        );
        if let Node::Binary { op, lhs, rhs } = node {
            if op.is_commutative() {
                let (cl, cr) = (pool.as_const(lhs).is_some(), pool.as_const(rhs).is_some());
                // Chains of more than two operands are ordered by structure instead.
                let chain = matches!(pool.node(rhs), Node::Binary { op: o, lhs: l, .. }
                    if o == op && pool.as_const(l).is_none());
                prop_assert!(
                    cl || (!cr && (lhs <= rhs || chain)),
                    "non-canonical {}",
                    pool.to_sexp(id)
                );
            }
        }
        if let Node::Const { width, value } = node {
            prop_assert_eq!(mask(width, value), value);
        }
        stack.extend(kids);
    }
    Ok(())
}

fn assignment(arrays: &[ArrayId], env: &Env) -> Assignment {
    arrays
        .iter()
        .zip(env)
        .map(|(&id, bytes)| (id, bytes.clone()))
        .collect()
}

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        Just(0u8),
        Just(1),
        Just(0x7f),
        Just(0x80),
        Just(0xff),
        any::<u8>()
    ]
}

fn env() -> impl Strategy<Value = Env> {
    prop::collection::vec(
        prop::collection::vec(byte(), 0..=OFFSETS as usize),
        ARRAYS.len(),
    )
}

/// A random tree of a random width, from `choices`.
fn tree(choices: &[u64]) -> Tree {
    let mut gen = Gen { choices, next: 0 };
    let width = gen.pick_from(&[1, 1, 8, 16, 32, 64, 128]);
    gen.bv(width, DEPTH)
}

fn new_pool() -> (ExprPool, Vec<ArrayId>) {
    let pool = ExprPool::new();
    let arrays = ARRAYS.iter().map(|name| pool.new_array(name, 8)).collect();
    (pool, arrays)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn constructors_agree_with_the_reference(
        choices in prop::collection::vec(any::<u64>(), 0..300),
        envs in prop::collection::vec(env(), 1..4),
    ) {
        let t = pin(&tree(&choices), &envs[0]);
        let (pool, arrays) = new_pool();
        let e = build(&pool, &arrays, &t);
        let width = reference(&t, &envs[0]).1;
        prop_assert_eq!(pool.sort(e), Sort::Bv(width));
        check_canonical(&pool, e)?;
        for env in &envs {
            let expected = reference(&t, env).0;
            let got = pool.eval(e, &assignment(&arrays, env));
            prop_assert_eq!(got, expected, "{} for {:?}", pool.to_sexp(e), env);
        }
        let used: Vec<ArrayId> = pool.arrays_in(e);
        prop_assert!(used.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn range_rewriting_keeps_the_value_within_the_bounds(
        choices in prop::collection::vec(any::<u64>(), 0..300),
        envs in prop::collection::vec(env(), 1..6),
        kinds in prop::collection::vec(any::<u8>(), 16),
    ) {
        let t = pin(&tree(&choices), &envs[0]);
        let (pool, arrays) = new_pool();
        let e = build(&pool, &arrays, &t);
        let first = assignment(&arrays, &envs[0]);
        // Bounds on input bytes (and on the expression itself) that the first assignment
        // satisfies; the others count only when they satisfy them too.
        let mut constraints = Vec::new();
        let mut kind = kinds.iter().copied().cycle();
        for &array in &arrays {
            for offset in 0..OFFSETS as u32 {
                let b = pool.sym(array, offset);
                let v = first.byte(array, offset);
                let k = kind.next().unwrap_or(0);
                let c = |x: u8| pool.constant(8, u128::from(x));
                match k % 5 {
                    0 => constraints.push(pool.ule(b, c(v | (k >> 3)))),
                    1 => constraints.push(pool.ule(c(v & k), b)),
                    2 => constraints.push(pool.bool_or(
                        pool.eq(b, c(v)),
                        pool.bool_and(pool.ule(c(0x20), b), pool.ule(b, c(0x7e))),
                    )),
                    3 => constraints.push(pool.ne(b, c(v.wrapping_add(1)))),
                    _ => {}
                }
            }
        }
        if pool.width(e) > 1 {
            let value = pool.eval(e, &first);
            constraints.push(pool.ule(e, pool.constant(pool.width(e), value)));
        }
        let rewritten = xcheck::solver::rewrite_with_bounds(&pool, &constraints, e);
        prop_assert_eq!(pool.sort(rewritten), pool.sort(e));
        for env in &envs {
            let a = assignment(&arrays, env);
            if constraints.iter().all(|&c| pool.eval(c, &a) == 1) {
                prop_assert_eq!(
                    pool.eval(rewritten, &a),
                    pool.eval(e, &a),
                    "{} became {}",
                    pool.to_sexp(e),
                    pool.to_sexp(rewritten)
                );
            }
        }
    }

    #[test]
    fn text_form_round_trips(
        choices in prop::collection::vec(any::<u64>(), 0..300),
        env in env(),
    ) {
        let t = pin(&tree(&choices), &env);
        let (pool, arrays) = new_pool();
        let e = build(&pool, &arrays, &t);
        let text = pool.to_sexp(e);
        prop_assert_eq!(pool.parse_sexp(&text), Ok(e), "{}", text);

        // In a fresh pool the arrays get other ids and the nodes other creation orders,
        // so the result may differ in form but not in value.
        let fresh = ExprPool::new();
        let reparsed = fresh.parse_sexp(&text).map_err(|err| {
            TestCaseError::fail(format!("{text}: {err}"))
        })?;
        let renamed: Assignment = ARRAYS
            .iter()
            .zip(&env)
            .filter_map(|(name, bytes)| Some((fresh.array_by_name(name)?, bytes.clone())))
            .collect();
        prop_assert_eq!(fresh.eval(reparsed, &renamed), reference(&t, &env).0);
        let again = fresh.to_sexp(reparsed);
        prop_assert_eq!(fresh.parse_sexp(&again), Ok(reparsed));
    }
}

#[test]
fn split_and_joined_words_come_back() {
    let (pool, arrays) = new_pool();
    let word = pool.add(
        pool.concat_bytes(&[pool.sym(arrays[0], 0), pool.sym(arrays[1], 0)]),
        pool.zext(pool.sym(arrays[2], 1), 16),
    );
    let word = pool.mul(pool.zext(word, 32), pool.sext(word, 32));
    let mut mem = pool.array_const(0);
    for i in 0..4 {
        let at = pool.constant(INDEX_WIDTH, 8 + u128::from(i));
        mem = pool.array_store(mem, at, pool.byte(word, i));
    }
    let loaded: Vec<ExprId> = (0..4)
        .map(|i| pool.array_read(mem, pool.constant(INDEX_WIDTH, 8 + i)))
        .collect();
    assert_eq!(pool.concat_bytes(&loaded), word);
}

#[test]
fn deep_chains_evaluate_and_print() {
    const N: u32 = 10_000;
    let (pool, arrays) = new_pool();
    let mut env: Env = vec![vec![3, 5, 7, 11], vec![13, 17], vec![]];
    env[2] = (0..=255).collect();
    let a = assignment(&arrays, &env);

    // A chain of arithmetic that no rule shortens, and its value computed alongside.
    let mut e = pool.zext(pool.sym(arrays[0], 0), 32);
    let mut expected: u128 = 3;
    for i in 0..N {
        let s = pool.zext(pool.sym(arrays[0], i % 4), 32);
        let v = u128::from(env[0][(i % 4) as usize]);
        if i % 2 == 0 {
            e = pool.mul(e, s);
            expected = mask(32, expected * v);
        } else {
            e = pool.xor(s, pool.add(e, pool.constant(32, 1)));
            expected = v ^ mask(32, expected + 1);
        }
    }
    assert_eq!(pool.eval(e, &a), expected);
    assert_eq!(pool.arrays_in(e), vec![arrays[0]]);
    let text = pool.to_sexp(e);
    assert_eq!(pool.parse_sexp(&text), Ok(e));

    // A long chain of stores at symbolic indices, read at a symbolic index.
    let mut mem = pool.array_const(0);
    for i in 0..N {
        let at = pool.zext(pool.sym(arrays[2], i % 256), INDEX_WIDTH);
        mem = pool.array_store(mem, at, pool.sym(arrays[1], i % 2));
    }
    let read = pool.array_read(mem, pool.zext(pool.sym(arrays[1], 0), INDEX_WIDTH));
    // Index 13 was last stored by a store with i % 256 == 13, an odd i, so byte 1 of `b`.
    assert_eq!(pool.eval(read, &a), 17);
    assert_eq!(pool.arrays_in(read), vec![arrays[1], arrays[2]]);
    let text = pool.to_sexp(read);
    assert_eq!(pool.parse_sexp(&text), Ok(read));

    // A long chain of constant-index stores, read through by the constructor.
    let mut mem = pool.array_const(9);
    for i in 0..N {
        let at = pool.constant(INDEX_WIDTH, u128::from(i) + 1);
        mem = pool.array_store(mem, at, pool.sym(arrays[0], i % 4));
    }
    assert_eq!(
        pool.array_read(mem, pool.constant(INDEX_WIDTH, 0)),
        pool.constant(8, 9)
    );
    assert_eq!(
        pool.array_read(mem, pool.constant(INDEX_WIDTH, 1)),
        pool.sym(arrays[0], 0)
    );

    // Long chains of invertible steps: an equality with a constant is solved through all of
    // them without recursing once per step.
    let x = pool.sym(arrays[0], 0);
    let (mut not_chain, mut neg_chain, mut xor_chain) = (x, x, x);
    let (mut not_value, mut neg_value, mut xor_value) = (3u128, 3u128, 3u128);
    for i in 0..N {
        let c = u128::from(i % 7);
        not_chain = pool.not(pool.add(pool.constant(8, c), not_chain));
        not_value = mask(8, !(not_value + c));
        neg_chain = pool.neg(pool.add(pool.constant(8, c), neg_chain));
        neg_value = mask(8, 0u128.wrapping_sub(neg_value + c));
        xor_chain = pool.add(
            pool.constant(8, c),
            pool.xor(pool.constant(8, 0x5a), xor_chain),
        );
        xor_value = mask(8, (xor_value ^ 0x5a) + c);
    }
    for (chain, value) in [
        (not_chain, not_value),
        (neg_chain, neg_value),
        (xor_chain, xor_value),
    ] {
        assert_eq!(pool.eval(chain, &a), value);
        let eq = pool.eq(pool.constant(8, value), chain);
        assert!(matches!(pool.node(eq), Node::Binary { op: BinOp::Eq, rhs, .. } if rhs == x));
        assert_eq!(pool.eval(eq, &a), 1);
        assert_eq!(pool.parse_sexp(&pool.to_sexp(chain)), Ok(chain));
    }

    // A deep chain of conditionals.
    let mut ite = pool.sym(arrays[0], 0);
    for i in 0..N {
        let cond = pool.ult(pool.sym(arrays[2], i % 256), pool.sym(arrays[0], 1));
        ite = pool.ite(cond, pool.sym(arrays[0], i % 4), ite);
    }
    // The value comes from the outermost conditional whose condition holds (c[j] = j).
    let chosen = (0..N)
        .rev()
        .find(|&i| (i % 256) < 5)
        .map_or(3, |i| env[0][(i % 4) as usize]);
    assert_eq!(pool.eval(ite, &a), u128::from(chosen));
    let text = pool.to_sexp(ite);
    assert_eq!(pool.parse_sexp(&text), Ok(ite));
}
