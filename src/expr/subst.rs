//! Substitution of known symbolic bytes: rebuilds an expression with some `Sym` leaves
//! replaced by constants, simplifying on the way (the basis of implied-value
//! concretization and constraint-set simplification).

use super::eval::children;
use super::{ArrayId, ExprId, ExprPool, Node};
use rustc_hash::FxHashMap;

/// Known values of symbolic bytes.
pub type KnownBytes = FxHashMap<(ArrayId, u32), u8>;

impl ExprPool {
    /// `e` with every symbolic byte of `known` replaced by its value. `memo` may be kept
    /// between calls as long as `known` does not change.
    pub fn substitute(
        &self,
        e: ExprId,
        known: &KnownBytes,
        memo: &mut FxHashMap<ExprId, ExprId>,
    ) -> ExprId {
        if known.is_empty() {
            return e;
        }
        if let Some(&r) = memo.get(&e) {
            return r;
        }
        // Iterative post-order over the DAG: children first.
        let mut stack = vec![(e, false)];
        while let Some((id, expanded)) = stack.pop() {
            if memo.contains_key(&id) {
                continue;
            }
            let node = self.node(id);
            if !expanded {
                stack.push((id, true));
                for c in children(node) {
                    if !memo.contains_key(&c) {
                        stack.push((c, false));
                    }
                }
                continue;
            }
            let new = match node {
                Node::Sym { array, offset } => match known.get(&(array, offset)) {
                    Some(&v) => self.constant(8, v as u128),
                    None => id,
                },
                Node::Const { .. } | Node::ArrayConst { .. } => id,
                _ => {
                    let m = |c: ExprId| memo[&c];
                    if children(node).all(|c| m(c) == c) {
                        id
                    } else {
                        self.rebuild(node, &m)
                    }
                }
            };
            memo.insert(id, new);
        }
        memo[&e]
    }

    /// `node` with each child `c` replaced by `map(c)`, through the simplifying constructors.
    pub fn rebuild(&self, node: Node, map: &dyn Fn(ExprId) -> ExprId) -> ExprId {
        match node {
            Node::Const { width, value } => self.constant(width, value),
            Node::Sym { array, offset } => self.sym(array, offset),
            Node::Unary { op, arg } => self.unary(op, map(arg)),
            Node::Binary { op, lhs, rhs } => self.binary(op, map(lhs), map(rhs)),
            Node::Ite { cond, then, els } => self.ite(map(cond), map(then), map(els)),
            Node::Extract { arg, lo, width } => self.extract(map(arg), lo, width),
            Node::ZExt { arg, width } => self.zext(map(arg), width),
            Node::SExt { arg, width } => self.sext(map(arg), width),
            Node::Concat { hi, lo } => self.concat(map(hi), map(lo)),
            Node::ArrayConst { value } => self.array_const(value),
            Node::ArrayStore {
                array,
                index,
                value,
            } => self.array_store(map(array), map(index), map(value)),
            Node::ArrayRead { array, index } => self.array_read(map(array), map(index)),
            Node::FpBinary { op, lhs, rhs } => self.fp_binary_raw(op, map(lhs), map(rhs)),
            Node::FpUnary { op, arg } => self.fp_unary_raw(op, map(arg)),
            Node::FpFma { a, b, c } => self.fp_fma_raw(map(a), map(b), map(c)),
            Node::FpCmp { op, lhs, rhs } => self.fp_cmp(op, map(lhs), map(rhs)),
            Node::FpConvert { arg, width } => self.fp_convert_raw(map(arg), width),
            Node::FpToSInt { arg, width } => self.fp_to_sint_raw(map(arg), width),
            Node::IntToFp { arg, width, signed } => self.int_to_fp(map(arg), width, signed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_bytes_fold_away() {
        let pool = ExprPool::new();
        let n = pool.new_array("n", 4);
        let bytes: Vec<ExprId> = (0..4).map(|i| pool.sym(n, i)).collect();
        let x = pool.concat_bytes(&bytes);
        let e = pool.mul(x, pool.add(x, pool.constant(32, 1)));
        let mut known = KnownBytes::default();
        for (i, b) in 6u32.to_le_bytes().iter().enumerate() {
            known.insert((n, i as u32), *b);
        }
        let r = pool.substitute(e, &known, &mut FxHashMap::default());
        assert_eq!(pool.as_const(r), Some(42));
    }

    #[test]
    fn unknown_bytes_stay() {
        let pool = ExprPool::new();
        let n = pool.new_array("n", 2);
        let e = pool.add(pool.zext(pool.sym(n, 0), 16), pool.zext(pool.sym(n, 1), 16));
        let mut known = KnownBytes::default();
        known.insert((n, 0), 5);
        let r = pool.substitute(e, &known, &mut FxHashMap::default());
        let expected = pool.add(pool.constant(16, 5), pool.zext(pool.sym(n, 1), 16));
        assert_eq!(r, expected);
    }
}
