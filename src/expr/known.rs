//! Bits of an expression known without a query: those fixed by its structure (constants,
//! zero extension, masks, shifts by constants, the low bits of sums and products). The
//! memory model uses them to read a constant table at a symbolic offset as a multiplexer
//! over the offset's unknown bits only: a CRC table of 8 KiB indexed by `(c ^ b) << 2`
//! depends on 8 bits, not on 13.

use super::{BinOp, ExprId, ExprPool, Node, UnOp};
use rustc_hash::FxHashMap;

/// What is known of the bits of a value of at most 128 bits: bit `i` is known when bit `i`
/// of `mask` is set, and then equals bit `i` of `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownBits {
    pub mask: u128,
    pub value: u128,
}

impl KnownBits {
    fn unknown() -> Self {
        KnownBits { mask: 0, value: 0 }
    }

    fn constant(width: u32, value: u128) -> Self {
        KnownBits {
            mask: ones(width),
            value: value & ones(width),
        }
    }

    /// The largest value these bits allow, at `width` bits.
    fn max(self, width: u32) -> u128 {
        (self.value | !self.mask) & ones(width)
    }

    /// Known bits from `hi_zero`: every bit from `top` up to `width` is zero.
    fn with_zero_above(self, top: u32, width: u32) -> Self {
        let above = ones(width) & !ones(top);
        KnownBits {
            mask: self.mask | above,
            value: self.value & !above,
        }
    }
}

/// The low `width` bits set (every bit from 128 up).
fn ones(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Levels below the expression looked at: deeper operands count as unknown (an index is
/// rarely deep in structure that fixes bits, and a CRC's running value is thousands of
/// nodes deep).
const DEPTH: u32 = 12;

impl ExprPool {
    /// The bits of `e` its structure fixes (nothing for widths above 128).
    pub fn known_bits(&self, e: ExprId) -> KnownBits {
        let mut memo = FxHashMap::default();
        self.known_at(e, DEPTH, &mut memo)
    }

    fn known_at(
        &self,
        e: ExprId,
        depth: u32,
        memo: &mut FxHashMap<ExprId, KnownBits>,
    ) -> KnownBits {
        let w = self.width(e);
        if w > 128 {
            return KnownBits::unknown();
        }
        if let Some(c) = self.as_const(e) {
            return KnownBits::constant(w, c);
        }
        if depth == 0 {
            return KnownBits::unknown();
        }
        if let Some(&k) = memo.get(&e) {
            return k;
        }
        let mut sub = |x: ExprId| self.known_at(x, depth - 1, memo);
        let k = match self.node(e) {
            Node::ZExt { arg, .. } => sub(arg).with_zero_above(self.width(arg), w),
            Node::SExt { arg, .. } => {
                let aw = self.width(arg);
                let a = sub(arg);
                let sign = 1u128 << (aw - 1);
                let above = ones(w) & !ones(aw);
                if a.mask & sign != 0 {
                    let fill = if a.value & sign != 0 { above } else { 0 };
                    KnownBits {
                        mask: a.mask | above,
                        value: a.value | fill,
                    }
                } else {
                    a
                }
            }
            Node::Extract { arg, lo, width } => {
                let a = sub(arg);
                KnownBits {
                    mask: (a.mask >> lo) & ones(width),
                    value: (a.value >> lo) & ones(width),
                }
            }
            Node::Concat { hi, lo } => {
                let lw = self.width(lo);
                let (h, l) = (sub(hi), sub(lo));
                KnownBits {
                    mask: h.mask << lw | l.mask,
                    value: h.value << lw | l.value,
                }
            }
            Node::Unary { op: UnOp::Not, arg } => {
                let a = sub(arg);
                KnownBits {
                    mask: a.mask,
                    value: !a.value & a.mask,
                }
            }
            Node::Binary { op, lhs, rhs } => {
                let (a, b) = (sub(lhs), sub(rhs));
                binary(op, w, a, b, self.as_const(rhs))
            }
            Node::Ite { then, els, .. } => {
                let (t, f) = (sub(then), sub(els));
                let agree = t.mask & f.mask & !(t.value ^ f.value);
                KnownBits {
                    mask: agree,
                    value: t.value & agree,
                }
            }
            _ => KnownBits::unknown(),
        };
        memo.insert(e, k);
        k
    }
}

/// The known bits of `a op b` at width `w` (`shift`: `b` when it is a constant).
fn binary(op: BinOp, w: u32, a: KnownBits, b: KnownBits, shift: Option<u128>) -> KnownBits {
    let m = ones(w);
    match op {
        BinOp::And => {
            let zero = (a.mask & !a.value) | (b.mask & !b.value);
            let one = a.mask & a.value & b.mask & b.value;
            KnownBits {
                mask: (zero | one) & m,
                value: one,
            }
        }
        BinOp::Or => {
            let one = (a.mask & a.value) | (b.mask & b.value);
            let zero = a.mask & !a.value & b.mask & !b.value;
            KnownBits {
                mask: (zero | one) & m,
                value: one & m,
            }
        }
        BinOp::Xor => {
            let both = a.mask & b.mask;
            KnownBits {
                mask: both,
                value: (a.value ^ b.value) & both,
            }
        }
        BinOp::Shl => match shift {
            Some(k) if k >= u128::from(w) => KnownBits::constant(w, 0),
            Some(k) => KnownBits {
                mask: (a.mask << k | ones(k as u32)) & m,
                value: (a.value << k) & m,
            },
            None => KnownBits::unknown(),
        },
        BinOp::LShr => match shift {
            Some(k) if k >= u128::from(w) => KnownBits::constant(w, 0),
            Some(k) => KnownBits {
                mask: (a.mask >> k) | (m & !(m >> k)),
                value: a.value >> k,
            },
            None => KnownBits::unknown(),
        },
        BinOp::Add => add(w, a, b, false),
        // a - b = a + !b + 1.
        BinOp::Sub => add(
            w,
            a,
            KnownBits {
                mask: b.mask,
                value: !b.value & b.mask,
            },
            true,
        ),
        BinOp::Mul => {
            // Trailing zeros add up.
            let tz = |k: KnownBits| (k.mask & !k.value).trailing_ones().min(w);
            let zeros = (tz(a) + tz(b)).min(w);
            KnownBits {
                mask: ones(zeros),
                value: 0,
            }
        }
        _ => KnownBits::unknown(),
    }
}

/// The known bits of `a + b + carry` at width `w`: a bit of the sum is known where both
/// operands' bits and the carry into it are; the carry into each bit is known where the
/// sums of the smallest and of the largest values the operands allow agree on it.
fn add(w: u32, a: KnownBits, b: KnownBits, carry: bool) -> KnownBits {
    let m = ones(w);
    let c = u128::from(carry);
    let (zero_a, zero_b) = (a.mask & !a.value, b.mask & !b.value);
    let sum_max = a.max(w).wrapping_add(b.max(w)).wrapping_add(c) & m;
    let sum_min = a.value.wrapping_add(b.value).wrapping_add(c) & m;
    let carry_zero = !(sum_max ^ zero_a ^ zero_b) & m;
    let carry_one = (sum_min ^ a.value ^ b.value) & m;
    let known = a.mask & b.mask & (carry_zero | carry_one) & m;
    KnownBits {
        mask: known,
        value: sum_min & known,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

    /// Every known bit holds for every value of one symbolic byte.
    fn holds(pool: &ExprPool, e: ExprId, arr: crate::expr::ArrayId) -> KnownBits {
        let k = pool.known_bits(e);
        for b in 0..=255u8 {
            let mut a = Assignment::new();
            a.set(arr, vec![b]);
            let v = pool.eval(e, &a);
            assert_eq!(v & k.mask, k.value, "byte {b}: {v:#x} against {k:?}");
        }
        k
    }

    #[test]
    fn a_table_index_has_only_its_byte_unknown() {
        let pool = ExprPool::new();
        let arr = pool.new_array("b", 1);
        let b = pool.sym(arr, 0);
        // ((zext b) ^ 8) << 2, plus 3: bits 2..9 unknown, the rest known.
        let x = pool.xor(pool.zext(b, 32), pool.constant(32, 8));
        let idx = pool.add(pool.shl(x, pool.constant(32, 2)), pool.constant(32, 3));
        let k = holds(&pool, idx, arr);
        assert_eq!(!k.mask & ones(32), 0xff << 2);
        // The same through a 64-bit shift and a truncation, as compiled code writes it.
        let wide = pool.shl(pool.zext(x, 64), pool.constant(64, 2));
        let k = holds(&pool, pool.extract(wide, 0, 32), arr);
        assert_eq!(!k.mask & ones(32), 0xff << 2);
    }

    #[test]
    fn known_bits_hold_through_every_rule() {
        let pool = ExprPool::new();
        let arr = pool.new_array("b", 1);
        let b = pool.sym(arr, 0);
        let c = |w, v| pool.constant(w, v);
        let wide = pool.zext(b, 16);
        let cases = [
            pool.and(wide, c(16, 0x0f0)),
            pool.or(wide, c(16, 0xf000)),
            pool.sext(b, 16),
            pool.sext(pool.lshr(b, c(8, 1)), 16),
            pool.concat(c(8, 0xa5), b),
            pool.not(wide),
            pool.mul(pool.shl(wide, c(16, 3)), pool.zext(pool.or(b, c(8, 1)), 16)),
            pool.sub(pool.shl(wide, c(16, 4)), c(16, 3)),
            pool.add(wide, wide),
            pool.lshr(wide, c(16, 20)),
            pool.ite(pool.eq(b, c(8, 7)), c(16, 0x104), c(16, 0x106)),
        ];
        for e in cases {
            holds(&pool, e, arr);
        }
        // What is known is said: the top byte of a zero-extended byte, the 0xf000 of an or.
        assert_eq!(pool.known_bits(wide).mask, 0xff00);
        let or = pool.known_bits(pool.or(wide, c(16, 0xf000)));
        assert_eq!((or.mask, or.value), (0xff00, 0xf000));
    }

    /// Random expressions over two symbolic bytes: every bit said to be known is that bit
    /// of the value, on every input.
    #[test]
    fn known_bits_are_sound_on_random_expressions() {
        let pool = ExprPool::new();
        let arr = pool.new_array("xy", 2);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..400 {
            let mut terms: Vec<ExprId> = vec![
                pool.zext(pool.sym(arr, 0), 16),
                pool.zext(pool.sym(arr, 1), 16),
                pool.sext(pool.sym(arr, 1), 16),
            ];
            for _ in 0..6 {
                let a = terms[next(terms.len() as u64) as usize];
                let b = terms[next(terms.len() as u64) as usize];
                let c = pool.constant(16, u128::from(next(1 << 16)));
                let k = pool.constant(16, u128::from(next(18)));
                let e = match next(11) {
                    0 => pool.and(a, c),
                    1 => pool.or(a, c),
                    2 => pool.xor(a, b),
                    3 => pool.add(a, b),
                    4 => pool.sub(a, c),
                    5 => pool.shl(a, k),
                    6 => pool.lshr(a, k),
                    7 => pool.mul(a, pool.shl(b, k)),
                    8 => pool.add(pool.and(a, c), c),
                    9 => pool.ite(pool.ult(a, b), a, pool.or(b, c)),
                    _ => pool.zext(pool.extract(a, next(8) as u32, 8), 16),
                };
                terms.push(e);
            }
            let e = *terms.last().unwrap();
            let k = pool.known_bits(e);
            for _ in 0..64 {
                let mut asg = Assignment::new();
                asg.set(arr, vec![next(256) as u8, next(256) as u8]);
                let v = pool.eval(e, &asg);
                assert_eq!(
                    v & k.mask,
                    k.value,
                    "{}: {v:#x} against {k:?}",
                    pool.to_sexp(e)
                );
            }
        }
    }
}
