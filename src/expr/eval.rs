//! Concrete evaluation of expressions under an assignment of the symbolic inputs.
//!
//! Evaluation is iterative: it first collects the nodes an expression reaches, then
//! evaluates them in increasing id order (children always have smaller ids than their
//! parents), so arbitrarily deep expressions evaluate without growing the call stack.
//! The folding functions here are also used by the constant folding of `build.rs`, so
//! the simplifier and the evaluator agree on every operator by construction.

use super::float::{
    fold_fp_binary, fold_fp_cmp, fold_fp_convert, fold_fp_fma, fold_fp_to_sint, fold_fp_unary,
    fold_int_to_fp,
};
use super::{mask, to_signed, ArrayId, BinOp, ExprId, ExprPool, Node, Sort, UnOp, Width};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// Concrete contents for symbolic input arrays. Bytes past the end of an array's vector,
/// and arrays without an entry, read as 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    arrays: BTreeMap<ArrayId, Vec<u8>>,
}

impl Assignment {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the contents of `array`, replacing any earlier contents.
    pub fn set(&mut self, array: ArrayId, bytes: Vec<u8>) {
        self.arrays.insert(array, bytes);
    }

    /// The contents given for `array`, if any.
    pub fn get(&self, array: ArrayId) -> Option<&[u8]> {
        self.arrays.get(&array).map(Vec::as_slice)
    }

    /// Sets byte `offset` of `array`, growing its contents with zeroes as needed.
    pub fn set_byte(&mut self, array: ArrayId, offset: u32, value: u8) {
        let bytes = self.arrays.entry(array).or_default();
        let i = offset as usize;
        if bytes.len() <= i {
            bytes.resize(i + 1, 0);
        }
        bytes[i] = value;
    }

    /// Byte `offset` of `array` (0 when not given).
    pub fn byte(&self, array: ArrayId, offset: u32) -> u8 {
        self.arrays
            .get(&array)
            .and_then(|bytes| bytes.get(offset as usize))
            .copied()
            .unwrap_or(0)
    }

    /// The arrays with given contents, in increasing id order.
    pub fn iter(&self) -> impl Iterator<Item = (ArrayId, &[u8])> + '_ {
        self.arrays
            .iter()
            .map(|(&id, bytes)| (id, bytes.as_slice()))
    }

    /// Number of arrays with given contents.
    pub fn len(&self) -> usize {
        self.arrays.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrays.is_empty()
    }
}

impl FromIterator<(ArrayId, Vec<u8>)> for Assignment {
    fn from_iter<I: IntoIterator<Item = (ArrayId, Vec<u8>)>>(iter: I) -> Self {
        Self {
            arrays: iter.into_iter().collect(),
        }
    }
}

/// The children of `node`, in operand order.
pub(super) fn children(node: Node) -> impl DoubleEndedIterator<Item = ExprId> {
    node.children()
}

/// All ones in `width` bits.
pub(super) fn ones(width: Width) -> u128 {
    mask(width, u128::MAX)
}

/// The most significant bit of a `width`-bit value.
fn msb(width: Width, value: u128) -> bool {
    (value >> (width - 1)) & 1 == 1
}

/// `op` applied to the `width`-bit value `a`.
pub fn fold_unary(op: UnOp, width: Width, a: u128) -> u128 {
    match op {
        UnOp::Not => mask(width, !a),
        UnOp::Neg => mask(width, a.wrapping_neg()),
    }
}

/// `op` applied to the `width`-bit values `a` and `b`, with SMT-LIB semantics. Comparisons
/// give 0 or 1; every other result is masked to `width`.
pub fn fold_binary(op: BinOp, width: Width, a: u128, b: u128) -> u128 {
    let neg = |v: u128| mask(width, v.wrapping_neg());
    let udiv = |x: u128, y: u128| x.checked_div(y).unwrap_or(ones(width));
    let urem = |x: u128, y: u128| x.checked_rem(y).unwrap_or(x);
    let in_range = b < u128::from(width);
    match op {
        BinOp::Add => mask(width, a.wrapping_add(b)),
        BinOp::Sub => mask(width, a.wrapping_sub(b)),
        BinOp::Mul => mask(width, a.wrapping_mul(b)),
        BinOp::UDiv => udiv(a, b),
        BinOp::URem => urem(a, b),
        BinOp::SDiv => {
            // SMT-LIB's bvsdiv: divide the magnitudes, negate if the signs differ.
            let (na, nb) = (msb(width, a), msb(width, b));
            let q = udiv(if na { neg(a) } else { a }, if nb { neg(b) } else { b });
            if na != nb {
                neg(q)
            } else {
                q
            }
        }
        BinOp::SRem => {
            // SMT-LIB's bvsrem: the remainder of the magnitudes, with the dividend's sign.
            let (na, nb) = (msb(width, a), msb(width, b));
            let r = urem(if na { neg(a) } else { a }, if nb { neg(b) } else { b });
            if na {
                neg(r)
            } else {
                r
            }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl if in_range => mask(width, a << b),
        BinOp::LShr if in_range => a >> b,
        BinOp::Shl | BinOp::LShr => 0,
        BinOp::AShr if in_range => mask(width, (to_signed(width, a) >> b) as u128),
        BinOp::AShr => {
            if msb(width, a) {
                ones(width)
            } else {
                0
            }
        }
        BinOp::Eq => u128::from(a == b),
        BinOp::Ult => u128::from(a < b),
        BinOp::Ule => u128::from(a <= b),
        BinOp::Slt => u128::from(to_signed(width, a) < to_signed(width, b)),
        BinOp::Sle => u128::from(to_signed(width, a) <= to_signed(width, b)),
    }
}

/// The `width`-bit value `value` sign-extended and masked to `to` bits.
pub fn sign_extend(width: Width, to: Width, value: u128) -> u128 {
    mask(to, to_signed(width, value) as u128)
}

impl ExprPool {
    /// The value of the bit-vector expression `e` under `assignment`, masked to its width.
    /// An array expression evaluates to 0.
    pub fn eval(&self, e: ExprId, assignment: &Assignment) -> u128 {
        self.eval_all(&[e], assignment)[0]
    }

    /// Whether the width-1 expression `e` is true under `assignment`.
    pub fn eval_bool(&self, e: ExprId, assignment: &Assignment) -> bool {
        debug_assert_eq!(self.sort(e), Sort::Bv(1), "eval_bool of a non-boolean");
        self.eval(e, assignment) == 1
    }

    /// The values of several expressions under one assignment, sharing the work on
    /// common subexpressions.
    pub fn eval_all(&self, es: &[ExprId], assignment: &Assignment) -> Vec<u128> {
        // Collect every node reachable from `es`.
        let mut seen: FxHashSet<ExprId> = FxHashSet::default();
        let mut order = Vec::new();
        let mut stack: Vec<ExprId> = es.to_vec();
        while let Some(id) = stack.pop() {
            if seen.insert(id) {
                order.push(id);
                stack.extend(children(self.node(id)));
            }
        }

        order.sort_unstable();
        let values = self.eval_order(&order, assignment);
        es.iter()
            .map(|id| values.get(id).copied().unwrap_or(0))
            .collect()
    }

    /// The value of every node of `order` under `assignment`: `order` holds every node its
    /// nodes reach, in increasing id order (array nodes get no value of their own).
    pub fn eval_order(&self, order: &[ExprId], assignment: &Assignment) -> FxHashMap<ExprId, u128> {
        let width = |id: ExprId| self.width(id);
        // Children have smaller ids than their parents, so increasing id order evaluates
        // every child before its parents. Array nodes get no value of their own: reads walk
        // their store chains instead.
        let mut values: FxHashMap<ExprId, u128> = FxHashMap::default();
        values.reserve(order.len());
        for &id in order {
            let value = |child: ExprId| values.get(&child).copied().unwrap_or(0);
            let v = match self.node(id) {
                Node::Const { value, .. } => value,
                Node::Sym { array, offset } => u128::from(assignment.byte(array, offset)),
                Node::Unary { op, arg } => fold_unary(op, width(arg), value(arg)),
                Node::Binary { op, lhs, rhs } => {
                    fold_binary(op, width(lhs), value(lhs), value(rhs))
                }
                Node::Ite { cond, then, els } => {
                    if value(cond) == 1 {
                        value(then)
                    } else {
                        value(els)
                    }
                }
                Node::Extract { arg, lo, width } => mask(width, value(arg) >> lo),
                Node::ZExt { arg, .. } => value(arg),
                Node::SExt { arg, width: to } => sign_extend(width(arg), to, value(arg)),
                Node::Concat { hi, lo } => (value(hi) << width(lo)) | value(lo),
                Node::FpBinary { op, lhs, rhs } => {
                    fold_fp_binary(op, width(lhs), value(lhs), value(rhs))
                }
                Node::FpUnary { op, arg } => fold_fp_unary(op, width(arg), value(arg)),
                Node::FpFma { a, b, c } => fold_fp_fma(width(a), value(a), value(b), value(c)),
                Node::FpCmp { op, lhs, rhs } => {
                    u128::from(fold_fp_cmp(op, width(lhs), value(lhs), value(rhs)))
                }
                Node::FpConvert { arg, width: to } => fold_fp_convert(width(arg), to, value(arg)),
                Node::FpToSInt { arg, width: to } => fold_fp_to_sint(width(arg), to, value(arg)),
                Node::IntToFp {
                    arg,
                    width: to,
                    signed,
                } => fold_int_to_fp(width(arg), to, signed, value(arg)),
                Node::ArrayConst { .. } | Node::ArrayStore { .. } => continue,
                Node::ArrayRead { array, index } => {
                    let index = value(index);
                    let mut cur = array;
                    loop {
                        match self.node(cur) {
                            Node::ArrayConst { value } => break u128::from(value),
                            Node::ArrayStore {
                                array,
                                index: at,
                                value: stored,
                            } => {
                                if value(at) == index {
                                    break value(stored);
                                }
                                cur = array;
                            }
                            Node::Ite { cond, then, els } => {
                                cur = if value(cond) == 1 { then } else { els };
                            }
                            // Not an array: only reachable from an ill-sorted expression.
                            _ => break 0,
                        }
                    }
                }
            };
            values.insert(id, v);
        }
        values
    }

    /// The symbolic input arrays that `e` mentions, sorted and without duplicates.
    pub fn arrays_in(&self, e: ExprId) -> Vec<ArrayId> {
        let mut seen: FxHashSet<ExprId> = FxHashSet::default();
        let mut stack = vec![e];
        let mut arrays = Vec::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let node = self.node(id);
            if let Node::Sym { array, .. } = node {
                arrays.push(array);
            }
            stack.extend(children(node));
        }
        arrays.sort_unstable();
        arrays.dedup();
        arrays
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `input` in a fresh pool (arrays `x` and `y` registered first), evaluates it with
    /// `x` and `y` holding the given bytes, and compares with `expected`.
    fn check(input: &str, x: &[u8], y: &[u8], expected: u128) {
        let pool = ExprPool::new();
        let (ax, ay) = (pool.new_array("x", 16), pool.new_array("y", 16));
        let mut assignment = Assignment::new();
        assignment.set(ax, x.to_vec());
        assignment.set(ay, y.to_vec());
        let e = pool
            .parse_sexp(input)
            .unwrap_or_else(|err| panic!("{input}: {err}"));
        assert_eq!(pool.eval(e, &assignment), expected, "{input}");
    }

    /// A 32-bit value built from bytes 0..4 of `x`, little-endian.
    const X32: &str = "(concat x[3] (concat x[2] (concat x[1] x[0])))";

    #[test]
    fn leaves() {
        check("7:w8", &[], &[], 7);
        check("x[0]", &[200], &[], 200);
        check("x[5]", &[1, 2], &[], 0);
        check("y[1]", &[1, 2], &[3, 4], 4);
    }

    #[test]
    fn arithmetic() {
        check("(add x[0] x[1])", &[200, 100], &[], 44);
        check("(sub x[0] x[1])", &[1, 2], &[], 255);
        check("(mul x[0] x[1])", &[16, 17], &[], 16);
        check("(neg x[0])", &[1], &[], 255);
        check("(not x[0])", &[0x0f], &[], 0xf0);
        check("(and x[0] x[1])", &[0x0f, 0x3c], &[], 0x0c);
        check("(or x[0] x[1])", &[0x0f, 0x3c], &[], 0x3f);
        check("(xor x[0] x[1])", &[0x0f, 0x3c], &[], 0x33);
    }

    #[test]
    fn division_follows_smt_lib() {
        check("(udiv x[0] x[1])", &[7, 2], &[], 3);
        check("(udiv x[0] x[1])", &[7, 0], &[], 255);
        check("(urem x[0] x[1])", &[7, 0], &[], 7);
        check("(sdiv x[0] x[1])", &[0xf9, 2], &[], 0xfd); // -7 / 2 = -3
        check("(sdiv x[0] x[1])", &[7, 0xfe], &[], 0xfd); // 7 / -2 = -3
        check("(sdiv x[0] x[1])", &[0xf9, 0xfe], &[], 3); // -7 / -2 = 3
        check("(sdiv x[0] x[1])", &[5, 0], &[], 0xff);
        check("(sdiv x[0] x[1])", &[0xfb, 0], &[], 1);
        check("(sdiv x[0] x[1])", &[0x80, 0xff], &[], 0x80);
        check("(srem x[0] x[1])", &[0xf9, 2], &[], 0xff); // -7 rem 2 = -1
        check("(srem x[0] x[1])", &[7, 0xfe], &[], 1); // 7 rem -2 = 1
        check("(srem x[0] x[1])", &[0xf9, 0], &[], 0xf9);
    }

    #[test]
    fn shifts_follow_smt_lib() {
        check("(shl x[0] x[1])", &[3, 2], &[], 12);
        check("(shl x[0] x[1])", &[3, 8], &[], 0);
        check("(lshr x[0] x[1])", &[0x80, 7], &[], 1);
        check("(lshr x[0] x[1])", &[0x80, 200], &[], 0);
        check("(ashr x[0] x[1])", &[0x80, 3], &[], 0xf0);
        check("(ashr x[0] x[1])", &[0x80, 9], &[], 0xff);
        check("(ashr x[0] x[1])", &[0x40, 9], &[], 0);
    }

    #[test]
    fn comparisons() {
        check("(eq x[0] x[1])", &[3, 3], &[], 1);
        check("(ult x[0] x[1])", &[3, 200], &[], 1);
        check("(slt x[0] x[1])", &[3, 200], &[], 0);
        check("(ule x[0] x[1])", &[3, 3], &[], 1);
        check("(sle x[0] x[1])", &[0x80, 0x7f], &[], 1);
        check("(ne x[0] x[1])", &[3, 3], &[], 0);
        check("(sgt x[0] x[1])", &[3, 200], &[], 1);
    }

    #[test]
    fn widths() {
        check(X32, &[1, 2, 3, 4], &[], 0x0403_0201);
        check(&format!("(extract 8 16 {X32})"), &[1, 2, 3, 4], &[], 0x0302);
        check("(zext 128 x[0])", &[0x80], &[], 0x80);
        check("(sext 128 x[0])", &[0x80], &[], u128::MAX - 0x7f);
        check("(sext 16 x[0])", &[0x7f], &[], 0x7f);
        check("(ite (ult x[0] x[1]) x[0] x[1])", &[9, 4], &[], 4);
    }

    #[test]
    fn array_reads_walk_store_chains() {
        let store = "(store (store (array-const 7) 1:w32 x[0]) (zext 32 y[0]) x[1])";
        check(&format!("(read {store} 1:w32)"), &[10, 20], &[0], 10);
        check(&format!("(read {store} 1:w32)"), &[10, 20], &[1], 20);
        check(
            &format!("(read {store} (zext 32 y[1]))"),
            &[10, 20],
            &[1, 5],
            7,
        );
    }

    #[test]
    fn assignment_accessors() {
        let mut a = Assignment::new();
        assert!(a.is_empty());
        a.set(ArrayId(2), vec![1, 2]);
        a.set(ArrayId(0), vec![3]);
        assert_eq!(a.get(ArrayId(2)), Some(&[1u8, 2][..]));
        assert_eq!(a.get(ArrayId(1)), None);
        assert_eq!(a.byte(ArrayId(2), 1), 2);
        assert_eq!(a.byte(ArrayId(2), 2), 0);
        assert_eq!(a.byte(ArrayId(1), 0), 0);
        let ids: Vec<ArrayId> = a.iter().map(|(id, _)| id).collect();
        assert_eq!(ids, vec![ArrayId(0), ArrayId(2)]);
        let b: Assignment = a.iter().map(|(id, bytes)| (id, bytes.to_vec())).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn arrays_in_is_sorted_and_deduplicated() {
        let pool = ExprPool::new();
        let (x, y) = (pool.new_array("x", 4), pool.new_array("y", 4));
        let e = pool
            .parse_sexp(
                "(add (mul y[0] x[1]) (read (store (array-const 0) 0:w32 y[2]) (zext 32 x[0])))",
            )
            .expect("parses");
        assert_eq!(pool.arrays_in(e), vec![x, y]);
        assert_eq!(pool.arrays_in(pool.constant(8, 1)), vec![]);
    }

    #[test]
    fn eval_all_shares_work() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 4);
        let a = pool.add(pool.sym(x, 0), pool.sym(x, 1));
        let b = pool.mul(a, a);
        let mut assignment = Assignment::new();
        assignment.set(x, vec![2, 3]);
        assert_eq!(pool.eval_all(&[a, b], &assignment), vec![5, 25]);
        assert!(pool.eval_bool(pool.eq(a, pool.constant(8, 5)), &assignment));
    }
}
