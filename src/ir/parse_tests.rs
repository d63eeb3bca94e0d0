//! Unit tests of the IR text parser: hand-written IR, including forms the corpus does not
//! lower to, and each kind of error.

use super::*;

/// Forms beyond the corpus: byval and sret parameters, a variadic declaration, an indirect
/// call, a global with an offset, a negative gep offset, vectors, an escaped unsupported
/// construct, a switch, `ret` without a value.
const HAND_WRITTEN: &str = "\
declare i32 @printf(ptr64 %0, ...)

define void @A.f(ptr64 byval %0 s, ptr64 sret %1, i64 %2 n, f64 %3) {
bb0:
  %4 = alloca 16 x i64 1                           ; f.c:3:5
  %5 = gep %0 + -8 + %2 * 4 + i64 2 * 1
  %6 = load ptr64 @A.table+16 (8 bytes)
  inrange %2 [0, 10) [20, 30) (load)               ; f.c:4
  %7 = call *%6(%2, @A.table)
  %8 = call @printf(@A.fmt)
  call @A.f(%0, %1, %2, %3)
  %9 = vector Cast(SExt, 64) <2 x i32> (%2)
  %10 = vector Float(Cmp(Olt), 1) <2 x i64> (%9, %9)
  %11 = vector Select <2 x i64> (%10, %9, %9)
  %12 = shuffle <2 x i64> %11, %9, [1, undef]
  %13 = float FromUInt nneg i64 (%2)
  %14 = poison frozen i8
  %15 = insertvalue %9, i32 -1 bits 32..64
  %16 = intrinsic AddOverflow { signed: true } i32 (%2, i32 1)
  %17 = reduce Ordered(Mul) <2 x i64> %9 from %3
  %18 = sext %14 to i128
  %19 = add i128 0xffffffffffffffffffff, %18
  unsupported \"inline asm \\\"nop\\\"\\n\"               ; f.c:9
  switch %2, default bb1 [0: bb1, 7: bb2]
bb1:
  %20 = phi [bb0: i1 1], [bb2: i1 0]
  store %20 -> %1 (1 bytes)
  ret
bb2:
  unreachable
}
";

#[test]
fn hand_written_ir_prints_back_as_written() {
    let parsed = parse(HAND_WRITTEN).unwrap();
    assert_eq!(parsed.text(), HAND_WRITTEN);
    let m = &parsed.module;
    let f = m.function(parsed.functions[1]);
    assert_eq!(
        (f.name.as_str(), f.params.len(), f.num_regs),
        ("A.f", 4, 21)
    );
    assert_eq!(f.params[0].pass, ParamPass::ByVal);
    assert!(m.function(parsed.functions[0]).is_var_arg);
    // `@A.table` is a global (no line defines or calls it), `@printf` a function.
    assert_eq!(m.globals.len(), 2);
    let Inst::Gep {
        offset, indices, ..
    } = &f.blocks[0].insts[1]
    else {
        panic!("{:?}", f.blocks[0].insts[1]);
    };
    assert_eq!((*offset, indices.len()), (-8, 2));
    let Inst::Unsupported { what } = &f.blocks[0].insts[18] else {
        panic!("{:?}", f.blocks[0].insts[18]);
    };
    assert_eq!(what, "inline asm \"nop\"\n");
    // The structure is its own, and differs from a changed text.
    let id = parsed.functions[1];
    assert_eq!(same_structure((m, id), (m, id)), Ok(()));
    let other = parse(&HAND_WRITTEN.replace("[1, undef]", "[0, undef]")).unwrap();
    assert!(same_structure((m, id), (&other.module, other.functions[1])).is_err());
}

/// Each kind of bad text is refused with its line and cause.
#[test]
fn bad_ir_text_names_its_line() {
    let bad = |text: &str, line: usize, cause: &str| {
        let e = parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text}: {e}");
        assert!(e.message.contains(cause), "{text}: {e}");
    };
    let head = "define i32 @A.g(i32 %0) {\n";
    bad("garbage\n", 1, "expected 'define' or 'declare'");
    bad("define i32 @A.g(i32 %0)\n", 1, "ends in ' {'");
    bad(&format!("{head}bb0:\n  ret %0\n"), 1, "no closing '}'");
    bad(&format!("{head}bb1:\n  ret %0\n}}\n"), 2, "expected 'bb0:'");
    bad(
        &format!("{head}bb0:\n  %1 = frob %0\n  ret %1\n}}\n"),
        3,
        "unknown instruction 'frob'",
    );
    bad(
        &format!("{head}bb0:\n  %1 = add %0, i8 300\n  ret %1\n}}\n"),
        3,
        "is not an i8",
    );
    bad(
        &format!("{head}bb0:\n  %1 = add %0, i8 -129\n  ret %1\n}}\n"),
        3,
        "is not an i8",
    );
    bad(
        &format!("{head}bb0:\n  %1 = icmp foo %0, %0\n  ret %1\n}}\n"),
        3,
        "predicate",
    );
    bad(
        &format!("{head}bb0:\n  %1 = copy %0\n}}\n"),
        3,
        "expected a terminator",
    );
    bad(&format!("{head}bb0:\n  ret %0 junk\n}}\n"), 3, "unexpected");
    bad(
        &format!("{head}bb0:\n  %1 = intrinsic Frob i32 (%0)\n  ret %1\n}}\n"),
        3,
        "unknown 'Frob'",
    );
    bad(
        &format!("{head}bb0:\n  ret %0\n}}\n{head}bb0:\n  ret %0\n}}\n"),
        5,
        "defined twice",
    );
}
