//! The translation of expressions to SMT terms that the Bitwuzla and Z3 backends share.
//!
//! A backend supplies its term constructors through [`Terms`]; everything else is here, once:
//! - **Traversal.** [`Terms::lower`] lowers an expression and everything below it that is not
//!   memoised yet, children first, with an explicit work stack (no recursion, so 10k-deep
//!   expressions are fine), into a [`TermMemo`] that persists across queries.
//! - **Sort checking.** Every node is checked for well-sortedness ([`check_sorts`]) before
//!   any constructor sees it, so a malformed expression is a [`SolverError::Backend`] and
//!   never reaches a backend's C API (Bitwuzla aborts the process on misuse).
//! - **Booleans.** Width-1 expressions have a bit-vector form (`#b1` is true) and, when it is
//!   cheap to derive (comparisons, constants, and `not`/`and`/`or`/`xor`/`eq`/`ite` over such
//!   forms), a Boolean form too. Conditions use the Boolean form ([`Terms::bool_of`]), or
//!   `(= t #b1)` when there is none, so sorts always match.
//!
//! The generic code is monomorphised per backend, so it costs what the hand-written
//! translations did.

use super::{children, SolverError};
use crate::expr::{BinOp, ExprId, ExprPool, Node, Sort, UnOp, Width, INDEX_WIDTH, MAX_WIDTH};
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};

/// The translation memo of one backend instance: the terms of the lowered expressions.
pub(super) struct TermMemo<T> {
    /// The term of every lowered expression: a bit-vector or an array.
    terms: FxHashMap<ExprId, T>,
    /// The Boolean form of width-1 expressions, where one has been built.
    bools: FxHashMap<ExprId, T>,
}

impl<T> Default for TermMemo<T> {
    fn default() -> Self {
        Self {
            terms: FxHashMap::default(),
            bools: FxHashMap::default(),
        }
    }
}

impl<T: Copy> TermMemo<T> {
    /// The number of lowered expressions.
    pub(super) fn len(&self) -> usize {
        self.terms.len()
    }

    /// The term of an already lowered expression.
    pub(super) fn term(&self, id: ExprId) -> Result<T, SolverError> {
        self.terms.get(&id).copied().ok_or_else(|| {
            SolverError::Backend(format!("expression {} was not lowered", id.index()))
        })
    }

    /// The Boolean form of the lowered expression `id`, if one was built.
    fn boolean(&self, id: ExprId) -> Option<T> {
        self.bools.get(&id).copied()
    }
}

/// A backend's term constructors, and the shared translation built on them.
///
/// Each constructor gets terms of the backend's own making whose sorts [`check_sorts`] has
/// checked against the operator, and returns a term the backend keeps alive as long as its
/// memo.
pub(super) trait Terms {
    /// A term handle of the backend.
    type Term: Copy;

    /// The translation memo.
    fn memo(&self) -> &TermMemo<Self::Term>;
    /// The translation memo, to add to.
    fn memo_mut(&mut self) -> &mut TermMemo<Self::Term>;
    /// Told of every node after its term is memoised (its children's were memoised before).
    fn lowered(&mut self, _id: ExprId, _node: &Node) {}

    /// The Boolean constant `value`.
    fn bool_const(&mut self, value: bool) -> Result<Self::Term, SolverError>;
    /// The bit-vector constant `value` (masked to `width`, which is `1 ..= MAX_WIDTH`).
    fn bv_const(&mut self, width: Width, value: u128) -> Result<Self::Term, SolverError>;
    /// A fresh 8-bit constant named `name`.
    fn byte_symbol(&mut self, name: &CStr) -> Result<Self::Term, SolverError>;
    /// A bit-vector unary operator.
    fn unary(&mut self, op: UnOp, a: Self::Term) -> Result<Self::Term, SolverError>;
    /// The negation of a Boolean term.
    fn not(&mut self, b: Self::Term) -> Result<Self::Term, SolverError>;
    /// The Boolean `(= l r)` of two terms of one sort.
    fn equal(&mut self, l: Self::Term, r: Self::Term) -> Result<Self::Term, SolverError>;
    /// The bit-vector operator or comparison `op` other than `Eq` (a comparison is Boolean).
    fn binary(
        &mut self,
        op: BinOp,
        l: Self::Term,
        r: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// The Boolean connective `op` (`And`, `Or` or `Xor`) of two Boolean terms.
    fn logical(
        &mut self,
        op: BinOp,
        l: Self::Term,
        r: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// `ite(c, t, e)` for a Boolean `c` and branches of one sort.
    fn ite(
        &mut self,
        c: Self::Term,
        t: Self::Term,
        e: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// Bits `hi ..= lo` of a bit-vector.
    fn extract(&mut self, a: Self::Term, hi: Width, lo: Width) -> Result<Self::Term, SolverError>;
    /// A bit-vector extended by `extra` (positive) bits, with its sign bit when `signed`.
    fn extend(
        &mut self,
        signed: bool,
        a: Self::Term,
        extra: Width,
    ) -> Result<Self::Term, SolverError>;
    /// The concatenation of two bit-vectors, `hi` in the high bits.
    fn concat(&mut self, hi: Self::Term, lo: Self::Term) -> Result<Self::Term, SolverError>;
    /// The array from `INDEX_WIDTH`-bit indices whose every byte is `value`.
    fn const_array(&mut self, value: u8) -> Result<Self::Term, SolverError>;
    /// The array `array` with the byte at `index` replaced by `value`.
    fn store(
        &mut self,
        array: Self::Term,
        index: Self::Term,
        value: Self::Term,
    ) -> Result<Self::Term, SolverError>;
    /// The byte of `array` at `index`.
    fn select(&mut self, array: Self::Term, index: Self::Term) -> Result<Self::Term, SolverError>;
    /// The bit-vector form `ite(b, #b1, #b0)` of a Boolean term.
    fn bv_of_bool(&mut self, b: Self::Term) -> Result<Self::Term, SolverError>;
    /// The Boolean form `(= t #b1)` of a width-1 bit-vector.
    fn bool_of_bv(&mut self, t: Self::Term) -> Result<Self::Term, SolverError>;

    /// Lowers `root` and everything below it that is not memoised yet, children first, with
    /// an explicit stack.
    fn lower(&mut self, pool: &ExprPool, root: ExprId) -> Result<(), SolverError> {
        let mut stack = vec![(root, false)];
        while let Some((id, expanded)) = stack.pop() {
            if self.memo().terms.contains_key(&id) {
                continue;
            }
            let node = pool.node(id);
            if expanded {
                check_sorts(pool, id, node)?;
                self.lower_node(pool, id, node)?;
            } else {
                // Everything pushed after `(id, true)` is lowered before it is popped again.
                stack.push((id, true));
                let memo = self.memo();
                stack.extend(
                    children(&node)
                        .filter(|c| !memo.terms.contains_key(c))
                        .map(|c| (c, false)),
                );
            }
        }
        Ok(())
    }

    /// The Boolean form of the lowered width-1 expression `id`, built as `(= t #b1)` if
    /// lowering did not provide one.
    fn bool_of(&mut self, id: ExprId) -> Result<Self::Term, SolverError> {
        if let Some(b) = self.memo().boolean(id) {
            return Ok(b);
        }
        let b = self.bool_of_bv(self.memo().term(id)?)?;
        self.memo_mut().bools.insert(id, b);
        Ok(b)
    }

    /// Lowers one well-sorted node whose children are all lowered.
    fn lower_node(&mut self, pool: &ExprPool, id: ExprId, node: Node) -> Result<(), SolverError> {
        let mut boolean = None;
        let term = match node {
            Node::Const { width, value } => {
                if width == 1 {
                    boolean = Some(self.bool_const(value & 1 == 1)?);
                }
                self.bv_const(width, value)?
            }
            Node::Sym { array, offset } => {
                let name = format!("{}[{offset}]", pool.array_info(array).name);
                let symbol = CString::new(name.replace('\0', "?"))
                    .map_err(|e| SolverError::Backend(e.to_string()))?;
                self.byte_symbol(&symbol)?
            }
            Node::Unary { op, arg } => {
                let a = self.memo().term(arg)?;
                if op == UnOp::Not {
                    if let Some(b) = self.memo().boolean(arg) {
                        boolean = Some(self.not(b)?);
                    }
                }
                self.unary(op, a)?
            }
            Node::Binary { op, lhs, rhs } => {
                let memo = self.memo();
                let (l, r) = (memo.term(lhs)?, memo.term(rhs)?);
                let (lb, rb) = (memo.boolean(lhs), memo.boolean(rhs));
                if op.is_comparison() {
                    let cmp = match (op, lb, rb) {
                        (BinOp::Eq, Some(lb), Some(rb)) => self.equal(lb, rb)?,
                        (BinOp::Eq, _, _) => self.equal(l, r)?,
                        _ => self.binary(op, l, r)?,
                    };
                    boolean = Some(cmp);
                    self.bv_of_bool(cmp)?
                } else {
                    if let (BinOp::And | BinOp::Or | BinOp::Xor, Some(lb), Some(rb)) = (op, lb, rb)
                    {
                        boolean = Some(self.logical(op, lb, rb)?);
                    }
                    self.binary(op, l, r)?
                }
            }
            Node::Ite { cond, then, els } => {
                let c = self.bool_of(cond)?;
                let memo = self.memo();
                if let (Some(tb), Some(eb)) = (memo.boolean(then), memo.boolean(els)) {
                    boolean = Some(self.ite(c, tb, eb)?);
                }
                let memo = self.memo();
                let (t, e) = (memo.term(then)?, memo.term(els)?);
                self.ite(c, t, e)?
            }
            Node::Extract { arg, lo, width } => {
                let a = self.memo().term(arg)?;
                self.extract(a, lo + width - 1, lo)?
            }
            Node::ZExt { arg, width } | Node::SExt { arg, width } => {
                let a = self.memo().term(arg)?;
                let extra = width - pool.width(arg);
                if extra == 0 {
                    a
                } else {
                    self.extend(matches!(node, Node::SExt { .. }), a, extra)?
                }
            }
            Node::Concat { hi, lo } => {
                let memo = self.memo();
                let (h, l) = (memo.term(hi)?, memo.term(lo)?);
                self.concat(h, l)?
            }
            Node::ArrayConst { value } => self.const_array(value)?,
            Node::ArrayStore {
                array,
                index,
                value,
            } => {
                let memo = self.memo();
                let (a, i, v) = (memo.term(array)?, memo.term(index)?, memo.term(value)?);
                self.store(a, i, v)?
            }
            Node::ArrayRead { array, index } => {
                let memo = self.memo();
                let (a, i) = (memo.term(array)?, memo.term(index)?);
                self.select(a, i)?
            }
        };
        self.memo_mut().terms.insert(id, term);
        self.lowered(id, &node);
        if let Some(b) = boolean {
            self.memo_mut().bools.insert(id, b);
        }
        Ok(())
    }
}

/// Checks that the operands of `node` have the sorts its operator needs, so that a malformed
/// expression is an error here and never reaches a backend.
pub(super) fn check_sorts(pool: &ExprPool, id: ExprId, node: Node) -> Result<(), SolverError> {
    let bv = |e: ExprId| match pool.sort(e) {
        Sort::Bv(w) => Some(w),
        Sort::Array => None,
    };
    let problem = match node {
        Node::Const { width, .. } if width == 0 || width > MAX_WIDTH => {
            Some("constant width out of range")
        }
        Node::Unary { arg, .. } if bv(arg).is_none() => Some("unary operator on an array"),
        Node::Binary { op, lhs, rhs } => {
            let same = pool.sort(lhs) == pool.sort(rhs);
            if !same || (op != BinOp::Eq && bv(lhs).is_none()) {
                Some("operands of different sorts")
            } else {
                None
            }
        }
        Node::Ite { cond, then, els } => {
            if pool.sort(cond) != Sort::Bv(1) {
                Some("condition is not width 1")
            } else if pool.sort(then) != pool.sort(els) {
                Some("branches of different sorts")
            } else {
                None
            }
        }
        Node::Extract { arg, lo, width } => match bv(arg) {
            None => Some("extract from an array"),
            Some(w) if width == 0 || u64::from(lo) + u64::from(width) > u64::from(w) => {
                Some("extracted bits out of range")
            }
            Some(_) => None,
        },
        Node::ZExt { arg, width } | Node::SExt { arg, width } => match bv(arg) {
            None => Some("extension of an array"),
            Some(w) if width < w || width > MAX_WIDTH => Some("extension to a narrower width"),
            Some(_) => None,
        },
        Node::Concat { hi, lo } if bv(hi).is_none() || bv(lo).is_none() => {
            Some("concatenation of an array")
        }
        Node::ArrayStore {
            array,
            index,
            value,
        } if pool.sort(array) != Sort::Array
            || pool.sort(index) != Sort::Bv(INDEX_WIDTH)
            || pool.sort(value) != Sort::Bv(8) =>
        {
            Some("store with operands of wrong sorts")
        }
        Node::ArrayRead { array, index }
            if pool.sort(array) != Sort::Array || pool.sort(index) != Sort::Bv(INDEX_WIDTH) =>
        {
            Some("read with operands of wrong sorts")
        }
        _ => None,
    };
    match problem {
        Some(what) => Err(SolverError::Backend(format!(
            "malformed expression {} ({what}): {node:?}",
            id.index()
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A backend whose terms are SMT-LIB texts (handles are indices into `texts`).
    #[derive(Default)]
    struct Text {
        memo: TermMemo<usize>,
        texts: Vec<String>,
    }

    impl Text {
        fn make(&mut self, text: String) -> Result<usize, SolverError> {
            self.texts.push(text);
            Ok(self.texts.len() - 1)
        }

        fn app(&mut self, head: &str, args: &[usize]) -> Result<usize, SolverError> {
            let args: Vec<&str> = args.iter().map(|&a| self.texts[a].as_str()).collect();
            self.make(format!("({head} {})", args.join(" ")))
        }

        fn text(&self, t: usize) -> &str {
            &self.texts[t]
        }
    }

    impl Terms for Text {
        type Term = usize;

        fn memo(&self) -> &TermMemo<usize> {
            &self.memo
        }

        fn memo_mut(&mut self) -> &mut TermMemo<usize> {
            &mut self.memo
        }

        fn bool_const(&mut self, value: bool) -> Result<usize, SolverError> {
            self.make(value.to_string())
        }

        fn bv_const(&mut self, width: Width, value: u128) -> Result<usize, SolverError> {
            self.make(format!("(_ bv{value} {width})"))
        }

        fn byte_symbol(&mut self, name: &CStr) -> Result<usize, SolverError> {
            self.make(name.to_string_lossy().into_owned())
        }

        fn unary(&mut self, op: UnOp, a: usize) -> Result<usize, SolverError> {
            self.app(&format!("bv{op:?}"), &[a])
        }

        fn not(&mut self, b: usize) -> Result<usize, SolverError> {
            self.app("not", &[b])
        }

        fn equal(&mut self, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app("=", &[l, r])
        }

        fn binary(&mut self, op: BinOp, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app(&format!("bv{op:?}"), &[l, r])
        }

        fn logical(&mut self, op: BinOp, l: usize, r: usize) -> Result<usize, SolverError> {
            self.app(&format!("{op:?}"), &[l, r])
        }

        fn ite(&mut self, c: usize, t: usize, e: usize) -> Result<usize, SolverError> {
            self.app("ite", &[c, t, e])
        }

        fn extract(&mut self, a: usize, hi: Width, lo: Width) -> Result<usize, SolverError> {
            self.app(&format!("(_ extract {hi} {lo})"), &[a])
        }

        fn extend(&mut self, signed: bool, a: usize, extra: Width) -> Result<usize, SolverError> {
            self.app(&format!("(_ ext signed={signed} {extra})"), &[a])
        }

        fn concat(&mut self, hi: usize, lo: usize) -> Result<usize, SolverError> {
            self.app("concat", &[hi, lo])
        }

        fn const_array(&mut self, value: u8) -> Result<usize, SolverError> {
            self.make(format!("(const {value})"))
        }

        fn store(
            &mut self,
            array: usize,
            index: usize,
            value: usize,
        ) -> Result<usize, SolverError> {
            self.app("store", &[array, index, value])
        }

        fn select(&mut self, array: usize, index: usize) -> Result<usize, SolverError> {
            self.app("select", &[array, index])
        }

        fn bv_of_bool(&mut self, b: usize) -> Result<usize, SolverError> {
            self.app("bv", &[b])
        }

        fn bool_of_bv(&mut self, t: usize) -> Result<usize, SolverError> {
            self.app("bool", &[t])
        }
    }

    #[test]
    fn conditions_use_the_boolean_form_where_there_is_one() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 2);
        let (a, b) = (pool.sym(x, 0), pool.sym(x, 1));
        let less = pool.ult(a, b);
        let chosen = pool.ite(less, a, b);
        let bit = pool.extract(a, 0, 1);
        let mut text = Text::default();
        text.lower(&pool, chosen).unwrap();
        text.lower(&pool, bit).unwrap();
        let term = text.memo().term(chosen).unwrap();
        assert_eq!(text.text(term), "(ite (bvUlt x[0] x[1]) x[0] x[1])");
        let cond = text.bool_of(less).unwrap();
        assert_eq!(text.text(cond), "(bvUlt x[0] x[1])");
        let cond = text.bool_of(bit).unwrap();
        assert_eq!(text.text(cond), "(bool ((_ extract 0 0) x[0]))");
        // Each expression is built once: lowering again makes no term.
        let made = text.texts.len();
        text.lower(&pool, chosen).unwrap();
        assert_eq!(text.texts.len(), made);
        assert_eq!(text.memo().len(), 5);
    }

    #[test]
    fn malformed_nodes_are_errors_naming_the_problem() {
        let pool = ExprPool::new();
        let x = pool.new_array("x", 1);
        let byte = pool.sym(x, 0);
        let bit = pool.extract(byte, 0, 1);
        let sum = Node::Binary {
            op: BinOp::Add,
            lhs: byte,
            rhs: bit,
        };
        let err = check_sorts(&pool, byte, sum).unwrap_err().to_string();
        assert!(err.contains("operands of different sorts"), "{err}");
        let wide = Node::Extract {
            arg: byte,
            lo: 4,
            width: 8,
        };
        let err = check_sorts(&pool, byte, wide).unwrap_err().to_string();
        assert!(err.contains("extracted bits out of range"), "{err}");
        assert!(check_sorts(&pool, bit, pool.node(bit)).is_ok());
    }
}
