//! Unit tests of the simplifying constructors: each rewrite against its expected canonical
//! form, which must parse back to the same expression.

use super::*;

/// Parses `input` (through the simplifying constructors) in a fresh pool with arrays
/// `x` and `y`, prints the result, and compares with `expected`. `expected` must itself
/// be in canonical form: it parses back to the same expression.
fn check(input: &str, expected: &str) {
    let pool = ExprPool::new();
    pool.new_array("x", 16);
    pool.new_array("y", 16);
    let e = pool
        .parse_sexp(input)
        .unwrap_or_else(|err| panic!("{input}: {err}"));
    assert_eq!(pool.to_sexp(e), expected, "simplifying {input}");
    let again = pool
        .parse_sexp(expected)
        .unwrap_or_else(|err| panic!("{expected}: {err}"));
    assert_eq!(again, e, "{expected} is not canonical");
}

/// A 16-bit value with no simplifications of its own.
const X16: &str = "(concat x[1] x[0])";
/// A 32-bit value with no simplifications of its own.
const X32: &str = "(concat x[3] (concat x[2] (concat x[1] x[0])))";

#[test]
fn constant_folding() {
    check("(add 200:w8 100:w8)", "44:w8");
    check("(sub 1:w8 2:w8)", "255:w8");
    check("(mul 16:w8 17:w8)", "16:w8");
    check("(udiv 7:w8 0:w8)", "255:w8");
    check("(urem 7:w8 0:w8)", "7:w8");
    check("(sdiv 249:w8 2:w8)", "253:w8");
    check("(sdiv 5:w8 0:w8)", "255:w8");
    check("(sdiv 251:w8 0:w8)", "1:w8");
    check("(srem 249:w8 0:w8)", "249:w8");
    check("(srem 249:w8 2:w8)", "255:w8");
    check("(and 12:w8 10:w8)", "8:w8");
    check("(or 12:w8 10:w8)", "14:w8");
    check("(xor 12:w8 10:w8)", "6:w8");
    check("(shl 3:w8 9:w8)", "0:w8");
    check("(lshr 128:w8 7:w8)", "1:w8");
    check("(ashr 128:w8 200:w8)", "255:w8");
    check("(eq 3:w8 3:w8)", "1:w1");
    check("(ult 3:w8 200:w8)", "1:w1");
    check("(slt 3:w8 200:w8)", "0:w1");
    check("(ule 4:w8 3:w8)", "0:w1");
    check("(sle 200:w8 3:w8)", "1:w1");
    check("(not 15:w8)", "240:w8");
    check("(neg 1:w128)", &format!("{}:w128", u128::MAX));
    check("(ite 1:w1 1:w8 2:w8)", "1:w8");
    check("(extract 4 4 171:w8)", "10:w4");
    check("(zext 16 255:w8)", "255:w16");
    check("(sext 16 255:w8)", "65535:w16");
    check("(concat 1:w8 2:w8)", "258:w16");
    check("(read (array-const 9) (zext 32 x[0]))", "9:w8");
}

#[test]
fn canonical_order() {
    check("(add x[0] 1:w8)", "(add 1:w8 x[0])");
    check("(and x[0] 1:w8)", "(and 1:w8 x[0])");
    check("(eq x[0] 1:w8)", "(eq 1:w8 x[0])");
    // Ids follow creation order: x[1] is created first here.
    check("(add x[1] x[0])", "(add x[1] x[0])");
    check("(xor x[1] (add x[0] x[1]))", "(xor x[1] (add x[1] x[0]))");
    check("(mul (add x[0] x[1]) x[1])", "(mul x[1] (add x[0] x[1]))");
    check("(ne x[0] x[1])", "(not (eq x[0] x[1]))");
    check("(ugt x[0] x[1])", "(ult x[1] x[0])");
    check("(uge x[0] x[1])", "(ule x[1] x[0])");
    check("(sgt x[0] x[1])", "(slt x[1] x[0])");
    check("(sge x[0] x[1])", "(sle x[1] x[0])");
}

#[test]
fn identities() {
    check("(add 0:w8 x[0])", "x[0]");
    check("(mul x[0] 0:w8)", "0:w8");
    check("(mul x[0] 1:w8)", "x[0]");
    check("(mul x[0] 255:w8)", "(neg x[0])");
    check("(mul x[0] 8:w8)", "(shl x[0] 3:w8)");
    check("(and x[0] 0:w8)", "0:w8");
    check("(and x[0] 255:w8)", "x[0]");
    check("(or x[0] 0:w8)", "x[0]");
    check("(or x[0] 255:w8)", "255:w8");
    check("(xor x[0] 0:w8)", "x[0]");
    check("(xor x[0] 255:w8)", "(not x[0])");
    check("(xor x[0] x[0])", "0:w8");
    check("(sub x[0] x[0])", "0:w8");
    check("(and x[0] x[0])", "x[0]");
    check("(or x[0] x[0])", "x[0]");
    check("(and x[0] (not x[0]))", "0:w8");
    check("(or (not x[0]) x[0])", "255:w8");
    check("(shl x[0] 0:w8)", "x[0]");
    check("(lshr x[0] 0:w8)", "x[0]");
    check("(ashr x[0] 0:w8)", "x[0]");
    check("(shl x[0] 8:w8)", "0:w8");
    check("(lshr x[0] 9:w8)", "0:w8");
    check("(ashr x[0] 8:w8)", "(sext 8 (extract 7 1 x[0]))");
    check("(shl 0:w8 x[0])", "0:w8");
    check("(ashr 255:w8 x[0])", "255:w8");
    check("(shl (shl x[0] 2:w8) 3:w8)", "(shl x[0] 5:w8)");
    check("(lshr (lshr x[0] 4:w8) 4:w8)", "0:w8");
    check("(udiv x[0] 1:w8)", "x[0]");
    check("(udiv x[0] 0:w8)", "255:w8");
    check("(udiv x[0] 16:w8)", "(lshr x[0] 4:w8)");
    check("(urem x[0] 16:w8)", "(and 15:w8 x[0])");
    check("(urem x[0] 0:w8)", "x[0]");
    check("(urem x[0] 1:w8)", "0:w8");
    check("(urem x[0] x[0])", "0:w8");
    check("(urem 0:w8 x[0])", "0:w8");
    check("(sdiv x[0] 1:w8)", "x[0]");
    check("(sdiv x[0] 255:w8)", "(neg x[0])");
    check("(srem x[0] 255:w8)", "0:w8");
    check("(srem x[0] 0:w8)", "x[0]");
}

#[test]
fn sums_of_the_same_terms_are_one_expression() {
    let pool = ExprPool::new();
    let x = pool.new_array("x", 4);
    let t: Vec<ExprId> = (0..4).map(|i| pool.zext(pool.sym(x, i), 32)).collect();
    let left = pool.add(pool.add(pool.add(t[0], t[1]), t[2]), t[3]);
    let right = pool.add(t[3], pool.add(t[2], pool.add(t[1], t[0])));
    let mixed = pool.add(pool.add(t[2], t[0]), pool.add(t[3], t[1]));
    assert_eq!(left, right);
    assert_eq!(left, mixed);
    // Products and bitwise chains keep their order.
    let (a, b, c) = (pool.sym(x, 0), pool.sym(x, 1), pool.sym(x, 2));
    assert_ne!(pool.and(pool.and(a, b), c), pool.and(a, pool.and(b, c)));
    let p = pool.mul(pool.mul(t[0], t[1]), t[2]);
    assert_ne!(p, pool.mul(t[0], pool.mul(t[1], t[2])));
}

#[test]
fn a_branch_free_select_keeps_its_value() {
    // The same value as the bit operations, for every pair of bytes.
    let pool = ExprPool::new();
    let arr = pool.new_array("v", 2);
    let (x, y) = (pool.sym(arr, 0), pool.sym(arr, 1));
    let c = pool.ult(x, y);
    let e = pool.xor(x, pool.and(pool.xor(x, y), pool.neg(pool.zext(c, 8))));
    assert!(matches!(pool.node(e), Node::Ite { .. }));
    for xv in 0..=255u8 {
        for yv in 0..=255u8 {
            let mut m = crate::expr::Assignment::new();
            m.set(arr, vec![xv, yv]);
            let mask = if xv < yv { 0xff } else { 0 };
            assert_eq!(pool.eval(e, &m), u128::from(xv ^ ((xv ^ yv) & mask)));
        }
    }
}

#[test]
fn a_branch_free_select_is_an_ite() {
    let c = format!("(slt {X16} (concat x[3] x[2]))");
    let y = "(concat x[3] x[2])";
    check(
        &format!("(xor {X16} (and (xor {X16} {y}) (neg (zext 16 {c}))))"),
        &format!("(ite {c} {y} {X16})"),
    );
    check(
        &format!("(xor (and (sext 16 {c}) (xor {y} {X16})) {y})"),
        &format!("(ite {c} {X16} {y})"),
    );
    // A mask that is not all ones or zero stays a mask.
    check(
        &format!("(xor {X16} (and (xor {X16} {y}) (zext 16 {c})))"),
        &format!("(xor {X16} (and (xor {X16} {y}) (zext 16 {c})))"),
    );
}

#[test]
fn division_of_extended_values_is_narrow() {
    check(
        "(urem (zext 32 x[0]) (zext 32 x[1]))",
        "(zext 32 (urem x[0] x[1]))",
    );
    check(
        "(srem (zext 32 x[0]) (zext 32 x[1]))",
        "(zext 32 (urem x[0] x[1]))",
    );
    check("(sdiv (zext 32 x[0]) 7:w32)", "(zext 32 (udiv x[0] 7:w8))");
    check(
        "(urem x[0] (shl 1:w8 x[1]))",
        "(and x[0] (add 255:w8 (shl 1:w8 x[1])))",
    );
    // x / 0 is all ones in 32 bits, not in 8.
    check(
        "(udiv (zext 32 x[0]) (zext 32 x[1]))",
        "(ite (eq 0:w8 x[1]) 4294967295:w32 (zext 32 (udiv x[0] x[1])))",
    );
    // A sign extension may be negative: signed stays signed.
    check(
        "(sdiv (sext 32 x[0]) (zext 32 x[1]))",
        "(sdiv (sext 32 x[0]) (zext 32 x[1]))",
    );
}

#[test]
fn sign_bits_above_a_value_are_its_sign_extension() {
    check(
        &format!("(concat (sext 8 (extract 15 1 {X16})) {X16})"),
        &format!("(sext 24 {X16})"),
    );
    check(
        &format!("(concat (extract 15 1 {X16}) {X16})"),
        &format!("(sext 17 {X16})"),
    );
    // Another bit is not the sign.
    check(
        &format!("(concat (sext 8 (extract 14 1 {X16})) {X16})"),
        &format!("(concat (sext 8 (extract 6 1 x[1])) {X16})"),
    );
}

#[test]
fn linear_arithmetic() {
    check("(add 1:w8 (add 2:w8 x[0]))", "(add 3:w8 x[0])");
    check("(add (add x[0] 2:w8) 1:w8)", "(add 3:w8 x[0])");
    check("(sub x[0] 1:w8)", "(add 255:w8 x[0])");
    check("(sub (add 5:w8 x[0]) 5:w8)", "x[0]");
    check("(sub (add 5:w8 x[0]) x[0])", "5:w8");
    check("(sub x[0] (add 5:w8 x[0]))", "251:w8");
    check("(sub 0:w8 x[0])", "(neg x[0])");
    check("(add x[0] (neg x[0]))", "0:w8");
    check("(add x[1] (neg x[0]))", "(sub x[1] x[0])");
    check("(sub x[1] (neg x[0]))", "(add x[1] x[0])");
    check("(add 3:w8 (sub 4:w8 x[0]))", "(sub 7:w8 x[0])");
    check(
        "(add (add 1:w8 x[0]) (add 2:w8 x[1]))",
        "(add 3:w8 (add x[0] x[1]))",
    );
    check("(mul 3:w8 (mul 5:w8 x[0]))", "(mul 15:w8 x[0])");
    check("(and 12:w8 (and 10:w8 x[0]))", "(and 8:w8 x[0])");
    check("(not (not x[0]))", "x[0]");
    check("(neg (neg x[0]))", "x[0]");
    check("(neg (sub x[0] x[1]))", "(sub x[1] x[0])");
    check("(not (xor 15:w8 x[0]))", "(xor 240:w8 x[0])");
    check("(neg (add 1:w8 x[0]))", "(sub 255:w8 x[0])");
    check("(sub 10:w8 (sub 3:w8 x[0]))", "(add 7:w8 x[0])");
}

#[test]
fn comparisons() {
    check("(eq x[0] x[0])", "1:w1");
    check("(ult x[0] x[0])", "0:w1");
    check("(ule x[0] x[0])", "1:w1");
    check("(slt x[0] x[0])", "0:w1");
    check("(sle x[0] x[0])", "1:w1");
    check("(eq 1:w1 (extract 0 1 x[0]))", "(extract 0 1 x[0])");
    check("(eq (extract 0 1 x[0]) 0:w1)", "(not (extract 0 1 x[0]))");
    check("(eq 7:w8 (add 2:w8 x[0]))", "(eq 5:w8 x[0])");
    check("(eq 7:w8 (sub 2:w8 x[0]))", "(eq 251:w8 x[0])");
    check("(eq 7:w8 (xor 2:w8 x[0]))", "(eq 5:w8 x[0])");
    check("(eq 7:w8 (not x[0]))", "(eq 248:w8 x[0])");
    check("(eq 7:w8 (neg x[0]))", "(eq 249:w8 x[0])");
    check(
        "(eq 7:w8 (add 1:w8 (not (xor 3:w8 (sub 9:w8 x[0])))))",
        "(eq 15:w8 x[0])",
    );
    check("(eq 7:w16 (zext 16 x[0]))", "(eq 7:w8 x[0])");
    check("(eq 256:w16 (zext 16 x[0]))", "0:w1");
    check("(eq 65535:w16 (sext 16 x[0]))", "(eq 255:w8 x[0])");
    check("(eq 255:w16 (sext 16 x[0]))", "0:w1");
    check(
        &format!("(eq 258:w16 {X16})"),
        "(and (eq 1:w8 x[1]) (eq 2:w8 x[0]))",
    );
    check("(ult x[0] 0:w8)", "0:w1");
    check("(ult 255:w8 x[0])", "0:w1");
    check("(ule 0:w8 x[0])", "1:w1");
    check("(ule x[0] 255:w8)", "1:w1");
    check("(ule x[0] 0:w8)", "(eq 0:w8 x[0])");
    check("(ule 255:w8 x[0])", "(eq 255:w8 x[0])");
    check("(ult 0:w8 x[0])", "(not (eq 0:w8 x[0]))");
    check("(ult x[0] 255:w8)", "(not (eq 255:w8 x[0]))");
    check("(slt x[0] 128:w8)", "0:w1");
    check("(sle 128:w8 x[0])", "1:w1");
    check("(sle x[0] 127:w8)", "1:w1");
    check("(slt 127:w8 x[0])", "0:w1");
    check("(not (ult x[0] x[1]))", "(ule x[1] x[0])");
    check("(not (sle x[0] x[1]))", "(slt x[1] x[0])");
}

#[test]
fn one_bit_arithmetic_is_logic() {
    let a = "(extract 0 1 x[0])";
    let b = "(extract 1 1 x[0])";
    check(&format!("(neg {a})"), a);
    check(&format!("(add {a} {b})"), &format!("(xor {a} {b})"));
    check(&format!("(sub {a} {b})"), &format!("(xor {a} {b})"));
    check(&format!("(mul {a} {b})"), &format!("(and {a} {b})"));
}

#[test]
fn ite() {
    check("(ite 0:w1 x[0] x[1])", "x[1]");
    check("(ite (eq x[0] x[1]) x[2] x[2])", "x[2]");
    check("(ite (eq x[0] x[1]) 1:w1 0:w1)", "(eq x[0] x[1])");
    check("(ite (eq x[0] x[1]) 0:w1 1:w1)", "(not (eq x[0] x[1]))");
    check(
        "(ite (ne x[0] x[1]) x[2] x[3])",
        "(ite (eq x[0] x[1]) x[3] x[2])",
    );
    check(
        "(ite (eq x[0] x[1]) (ite (eq x[0] x[1]) x[2] x[3]) x[4])",
        "(ite (eq x[0] x[1]) x[2] x[4])",
    );
    check(
        "(ite (eq x[0] x[1]) 1:w1 (eq x[2] x[3]))",
        "(or (eq x[0] x[1]) (eq x[2] x[3]))",
    );
    check(
        "(ite (eq x[0] x[1]) (eq x[2] x[3]) 0:w1)",
        "(and (eq x[0] x[1]) (eq x[2] x[3]))",
    );
}

#[test]
fn low_bits_of_arithmetic_are_narrow() {
    // `(uint8_t)(n - 1)` twice over: C's promotions come back to one byte operation.
    check(
        "(extract 0 8 (add 4294967295:w32 (zext 32 x[0])))",
        "(add 255:w8 x[0])",
    );
    check(
        "(extract 0 8 (add 4294967295:w32 (zext 32 (extract 0 8 (add 4294967295:w32 (zext 32 x[0]))))))",
        "(add 254:w8 x[0])",
    );
    check(
        "(extract 0 8 (mul (zext 32 x[0]) (zext 32 x[1])))",
        "(mul x[0] x[1])",
    );
    check(
        "(extract 0 8 (shl (zext 32 x[0]) 3:w32))",
        "(shl x[0] 3:w8)",
    );
    check("(extract 0 8 (shl (zext 32 x[0]) 9:w32))", "0:w8");
    // Right shifts stay: a bit is followed through them to its word.
    check(
        "(extract 4 8 (lshr (zext 32 x[0]) 2:w32))",
        "(extract 4 8 (lshr (zext 32 x[0]) 2:w32))",
    );
    check(
        "(extract 8 8 (xor (zext 32 x[0]) (sext 32 x[1])))",
        "(sext 8 (extract 7 1 x[1]))",
    );
    // High bits of a sum depend on the carry: kept wide.
    check(
        "(extract 8 8 (add (zext 32 x[0]) (zext 32 x[1])))",
        "(extract 8 8 (add (zext 32 x[0]) (zext 32 x[1])))",
    );
    // An operand with no narrow form keeps the operation wide.
    check(
        &format!("(extract 0 8 (add (lshr {X32} (zext 32 x[4])) 1:w32))"),
        &format!("(extract 0 8 (add 1:w32 (lshr {X32} (zext 32 x[4]))))"),
    );
}

#[test]
fn extract_and_concat() {
    check("(extract 0 8 x[0])", "x[0]");
    check("(extract 1 2 (extract 2 5 x[0]))", "(extract 3 2 x[0])");
    check(&format!("(extract 8 8 {X16})"), "x[1]");
    check(&format!("(extract 0 8 {X16})"), "x[0]");
    check(&format!("(extract 16 8 {X32})"), "x[2]");
    check(
        &format!("(extract 4 8 {X16})"),
        "(concat (extract 0 4 x[1]) (extract 4 4 x[0]))",
    );
    check("(extract 0 4 (zext 16 x[0]))", "(extract 0 4 x[0])");
    check("(extract 8 8 (zext 16 x[0]))", "0:w8");
    check("(extract 0 12 (zext 16 x[0]))", "(zext 12 x[0])");
    check(
        "(extract 4 8 (zext 16 x[0]))",
        "(zext 8 (extract 4 4 x[0]))",
    );
    check("(extract 2 4 (sext 16 x[0]))", "(extract 2 4 x[0])");
    check(
        "(extract 8 8 (sext 16 x[0]))",
        "(sext 8 (extract 7 1 x[0]))",
    );
    check("(concat (extract 4 4 x[0]) (extract 0 4 x[0]))", "x[0]");
    check(
        "(concat (extract 5 2 x[0]) (extract 1 4 x[0]))",
        "(extract 1 6 x[0])",
    );
    check(
        "(concat (concat x[2] x[1]) x[0])",
        "(concat x[2] (concat x[1] x[0]))",
    );
    check("(concat 1:w8 (concat 2:w8 x[0]))", "(concat 258:w16 x[0])");
    check("(concat 0:w8 x[0])", "(zext 16 x[0])");
    check("(zext 16 (zext 12 x[0]))", "(zext 16 x[0])");
    check("(sext 16 (sext 12 x[0]))", "(sext 16 x[0])");
    check("(sext 16 (zext 12 x[0]))", "(zext 16 x[0])");
    check("(zext 8 x[0])", "x[0]");
    check("(sext 8 x[0])", "x[0]");
}

#[test]
fn bytes_split_and_joined_give_the_value_back() {
    let pool = ExprPool::new();
    let x = pool.new_array("x", 8);
    let a = pool.zext(pool.sym(x, 0), 32);
    let v = pool.mul(a, pool.zext(pool.sym(x, 1), 32));
    let bytes: Vec<ExprId> = (0..4).map(|i| pool.byte(v, i)).collect();
    assert_eq!(pool.concat_bytes(&bytes), v);

    // The same through memory: store the bytes, load them back.
    let mut mem = pool.array_const(0);
    let base = 100;
    for (i, &b) in bytes.iter().enumerate() {
        let at = pool.constant(INDEX_WIDTH, base + i as u128);
        mem = pool.array_store(mem, at, b);
    }
    let loaded: Vec<ExprId> = (0..4)
        .map(|i| pool.array_read(mem, pool.constant(INDEX_WIDTH, base + i)))
        .collect();
    assert_eq!(pool.concat_bytes(&loaded), v);

    // A 16-bit load from the middle is the matching extract.
    assert_eq!(pool.concat_bytes(&loaded[1..3]), pool.extract(v, 8, 16));
}

#[test]
fn arrays() {
    let s = "(store (store (array-const 7) 1:w32 x[0]) 2:w32 x[1])";
    check(&format!("(read {s} 2:w32)"), "x[1]");
    check(&format!("(read {s} 1:w32)"), "x[0]");
    check(&format!("(read {s} 3:w32)"), "7:w8");
    check(
        &format!("(read {s} (zext 32 y[0]))"),
        "(read (store (store (array-const 7) 1:w32 x[0]) 2:w32 x[1]) (zext 32 y[0]))",
    );
    // A read with a constant index skips stores to other constant indices only.
    check(
        "(read (store (store (array-const 0) (zext 32 y[0]) x[0]) 5:w32 x[1]) 4:w32)",
        "(read (store (array-const 0) (zext 32 y[0]) x[0]) 4:w32)",
    );
    check(
        "(read (store (array-const 0) (zext 32 y[0]) x[0]) (zext 32 y[0]))",
        "x[0]",
    );
    check(
        "(store (store (array-const 0) 1:w32 x[0]) 1:w32 x[1])",
        "(store (array-const 0) 1:w32 x[1])",
    );
    check("(store (array-const 3) 1:w32 3:w8)", "(array-const 3)");
    check(
        "(store (store (array-const 0) (zext 32 y[0]) x[0]) (zext 32 y[0]) (read (store (array-const 0) (zext 32 y[0]) x[0]) (zext 32 y[0])))",
        "(store (array-const 0) (zext 32 y[0]) x[0])",
    );
}

#[test]
fn constant_operands_always_fold() {
    let pool = ExprPool::new();
    let c = |v| pool.constant(8, v);
    let c32 = |v| pool.constant(32, v);
    for op in [BinOp::Add, BinOp::SDiv, BinOp::Slt, BinOp::AShr] {
        assert!(pool.as_const(pool.binary(op, c(200), c(3))).is_some());
    }
    let arr = pool.array_store(pool.array_const(1), c32(4), c(2));
    assert_eq!(pool.as_const(pool.array_read(arr, c32(4))), Some(2));
    assert_eq!(pool.as_const(pool.array_read(arr, c32(5))), Some(1));
    assert_eq!(
        pool.as_const(pool.concat_bytes(&[c(1), c(2), c(3)])),
        Some(0x030201)
    );
    assert_eq!(pool.and_all(&[]), pool.true_());
    assert_eq!(pool.or_all(&[]), pool.false_());
}
