//! Tests of the `--assume` language: what parses, what each form means, and the one-line
//! errors of what does not.

use super::*;

/// Runs a table of `input => expected` lines; blank lines are skipped. The expected text
/// is the s-expression for inputs that parse and the full message for those that do not.
#[track_caller]
fn run_table(table: &str) {
    for line in table.lines().filter(|l| !l.trim().is_empty()) {
        let (input, expected) = line.split_once(" => ").expect("a line with ' => '");
        let (input, expected) = (input.trim(), expected.trim());
        match parse_assume(input) {
            Ok(e) => assert_eq!(e.to_string(), expected, "parsing {input:?}"),
            Err(e) => assert_eq!(e.to_string(), expected, "parsing {input:?}"),
        }
    }
}

/// Parses `text` and compares the s-expression form.
#[track_caller]
fn check(text: &str, sexp: &str) {
    match parse_assume(text) {
        Ok(e) => assert_eq!(e.to_string(), sexp, "parsing {text:?}"),
        Err(e) => panic!("parsing {text:?}: {e}"),
    }
}

#[test]
fn precedence_and_associativity() {
    run_table(
        r"
        a + b * 2 == 3          => (== (+ a (* b 2)) 3)
        a - b - c               => (- (- a b) c)
        a / b % c * d           => (* (% (/ a b) c) d)
        a << 1 + 2              => (<< a (+ 1 2))
        a < b == c > d          => (== (< a b) (> c d))
        a & b ^ c | d           => (| (^ (& a b) c) d)
        a == b & c              => (& (== a b) c)
        a || b && c             => (|| a (&& b c))
        a && b || c && d        => (|| (&& a b) (&& c d))
        a | b && c              => (&& (| a b) c)
        a >> b <= c >= d != e   => (!= (>= (<= (>> a b) c) d) e)
        (a + b) * 2             => (* (+ a b) 2)
        ((a))                   => a
        ",
    );
}

#[test]
fn unary_operators() {
    run_table(
        r"
        -a * b                  => (* (- a) b)
        !a && ~b                => (&& (! a) (~ b))
        --a                     => (- (- a))
        a - -1                  => (- a (- 1))
        !(a == 0)               => (! (== a 0))
        -s[0]                   => (- (index s 0))
        ",
    );
}

#[test]
fn literals() {
    run_table(
        r#"
        0                       => 0
        42                      => 42
        0x1f                    => 31
        0XFF                    => 255
        'a'                     => 97
        '\0'                    => 0
        '\n'                    => 10
        '\\'                    => 92
        '\''                    => 39
        ' '                     => 32
        '\t' + '\r' + '"' + '\"' => (+ (+ (+ 9 13) 34) 34)
        0x00000000000000000000000000000000000001 => 1
        9223372036854775807     => 9223372036854775807
        0xffffffffffffffff      => 18446744073709551615
        10u + 5UL + 7l + 0x1LLU => (+ (+ (+ 10 5) 7) 1)
        "#,
    );
}

#[test]
fn names_and_indexing() {
    run_table(
        r"
        n                       => n
        arg0 >= _x1             => (>= arg0 _x1)
        s[4]                    => (index s 4)
        s[i + 1] == '\0'        => (== (index s (+ i 1)) 0)
        buf[buf[0]]             => (index buf (index buf 0))
        ",
    );
    check(" \tn\n> 0 ", "(> n 0)");
}

#[test]
fn syntax_errors_have_columns() {
    run_table(
        r#"
        (a + b                  => column 7: expected ')' after expression
        (a + b c                => column 8: expected ')' after expression
        a + b)                  => column 6: unexpected ')' with no matching '('
        a b                     => column 3: unexpected 'b' after the end of the expression
        a + 1 2                 => column 7: unexpected number 2 after the end of the expression
        a +                     => column 4: expected an expression, found end of input
        a + * b                 => column 5: expected an expression, found '*'
        ()                      => column 2: expected an expression, found ')'
        s[1                     => column 4: expected ']' after index
        s[]                     => column 3: expected an expression, found ']'
        a]                      => column 2: unexpected ']' with no matching '['
        s[1][2]                 => column 5: only a parameter name can be indexed
        (s)[1]                  => column 4: only a parameter name can be indexed
        3[1]                    => column 2: only a parameter name can be indexed
        a = 1                   => column 3: '=' is assignment; use '==' to compare
        a # 1                   => column 3: unexpected character '#'
        n > "x"                 => column 5: string literals are not supported
        é                       => column 1: unexpected character 'é'
        +a                      => column 1: expected an expression, found '+'
        "#,
    );
    for blank in ["", "   ", "\t\n"] {
        let err = parse_assume(blank).unwrap_err();
        assert_eq!(err.to_string(), "column 1: empty expression");
    }
}

#[test]
fn literal_errors() {
    run_table(
        r"
        9223372036854775808     => column 1: integer literal 9223372036854775808 fits no C integer type (the largest is 9223372036854775807 for this literal, a long)
        x < 18446744073709551616 => column 5: integer literal 18446744073709551616 fits no C integer type (the largest is 9223372036854775807 for this literal, a long)
        n < 0x10000000000000000 => column 5: integer literal 0x10000000000000000 fits no C integer type (the largest is 18446744073709551615 for this literal, an unsigned long)
        0x                      => column 1: expected hexadecimal digits after '0x'
        0x1g                    => column 4: invalid character 'g' in hexadecimal literal
        10uu                    => column 4: invalid character 'u' in decimal literal
        10lul                   => column 5: invalid character 'l' in decimal literal
        1a                      => column 2: invalid character 'a' in decimal literal
        010                     => column 1: leading zeros are not allowed (C would read an octal number); write it in decimal or hex
        '                       => column 1: unterminated character literal
        'a                      => column 1: unterminated character literal
        '\                      => column 1: unterminated character literal
        ''                      => column 1: empty character literal
        'ab'                    => column 3: expected ' to close the character literal (it holds one character)
        '\01'                   => column 4: expected ' to close the character literal (it holds one character)
        '\q'                    => column 3: unknown escape '\q' in character literal
        '\x41'                  => column 3: unknown escape '\x' in character literal
        'é'                     => column 2: character literal holds 'é'; only printable ASCII is allowed
        ",
    );
    let err = parse_assume(&"9".repeat(500)).unwrap_err();
    assert!(err.to_string().contains("fits no C integer type"), "{err}");
}

/// C11 6.4.4.1: the type of an integer literal is the first of its list that holds it.
#[test]
fn literals_get_c_types() {
    let ty = |text: &str| match parse_assume(text) {
        Ok(AssumeExpr::Num(l)) => l.ty.name(),
        other => panic!("{text}: {other:?}"),
    };
    for (text, expected) in [
        ("0", "int"),
        ("2147483647", "int"),
        ("2147483648", "long"),
        ("0x7fffffff", "int"),
        ("0x80000000", "unsigned int"),
        ("0xffffffff", "unsigned int"),
        ("0x100000000", "long"),
        ("0x8000000000000000", "unsigned long"),
        ("3000000000u", "unsigned int"),
        ("5000000000u", "unsigned long"),
        ("1l", "long"),
        ("0x1L", "long"),
        ("1ul", "unsigned long"),
        ("1LLU", "unsigned long"),
        ("'a'", "int"),
    ] {
        assert_eq!(ty(text), expected, "{text}");
    }
}

/// The type and bit pattern of a literal.
#[track_caller]
fn float_bits(text: &str) -> (String, u128) {
    match parse_assume(text) {
        Ok(AssumeExpr::Num(l)) => (l.ty.name(), l.value),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn floating_literals() {
    run_table(
        r"
        1.5                     => 1.5
        .5                      => 0.5
        1.                      => 1.0
        1e6                     => 1000000.0
        1E-3                    => 0.001
        1e+300                  => 1e300
        2.5e-3f                 => 0.0025f
        1.f                     => 1.0f
        0x1p-3                  => 0.125
        0x1.8p+1                => 3.0
        0X.8P1F                 => 1.0f
        0x10p0                  => 16.0
        010.5                   => 10.5
        0e0                     => 0.0
        INFINITY                => INFINITY
        NAN                     => NAN
        x >= 0.0 && x < 1e6     => (&& (>= x 0.0) (< x 1000000.0))
        -.5 < x                 => (< (- 0.5) x)
        INFINITY_x + 1          => (+ INFINITY_x 1)
        ",
    );
    for (text, ty, bits) in [
        ("0.1", "double", 0x3FB9_9999_9999_999A),
        ("0.1f", "float", 0x3DCC_CCCD),
        ("0.1F", "float", 0x3DCC_CCCD),
        ("1e-3", "double", 0.001f64.to_bits().into()),
        ("0x1.8p+1", "double", 3.0f64.to_bits().into()),
        ("0x1p-1074", "double", 1),
        ("0x1p-149f", "float", 1),
        (
            "0x1.fffffffffffffp1023",
            "double",
            f64::MAX.to_bits().into(),
        ),
        ("0x1.fffffep127f", "float", f32::MAX.to_bits().into()),
        ("4.9e-324", "double", 1),
        ("2e-324", "double", 0),
        ("1e-50f", "float", 0),
        ("INFINITY", "float", 0x7F80_0000),
        ("NAN", "float", 0x7FC0_0000),
        // Decimal literals round to the type directly: through double, this one would
        // be a tie and round to 1.0f.
        ("1.0000000596046447753906251f", "float", 0x3F80_0001),
        ("1.000000059604644775390625f", "float", 0x3F80_0000),
        // Hexadecimal ones round to nearest, ties to even, however many digits.
        ("0x1.00000000000008p0", "double", 1.0f64.to_bits().into()),
        ("0x1.00000000000018p0", "double", 0x3FF0_0000_0000_0002),
        (
            "0x1.000000000000080000000000000000000000001p0",
            "double",
            0x3FF0_0000_0000_0001,
        ),
        ("0x1.000001p0f", "float", 0x3F80_0000),
        ("0x1.000003p0f", "float", 0x3F80_0002),
        ("0x1.fffffffp0f", "float", 0x4000_0000),
        (
            "0x0.00000000000000000000000001p0",
            "double",
            0x3970_0000_0000_0000,
        ),
        (
            "0x123456789abcdef0123456789abcdef0p-124",
            "double",
            0x3FF2_3456_789A_BCDF,
        ),
        // The largest subnormal rounds up to the smallest normal.
        ("0x1.ffffffffffffffp-1023", "double", 0x0010_0000_0000_0000),
        ("0x1p-1075", "double", 0),
        ("0x1.0000000001p-1075", "double", 1),
    ] {
        assert_eq!(float_bits(text), (ty.to_string(), bits), "{text}");
    }
}

#[test]
fn floating_literal_errors() {
    run_table(
        r"
        1e                      => column 1: floating literal '1e' has no digits in its exponent
        x < 1e+                 => column 5: floating literal '1e+' has no digits in its exponent
        0x1p                    => column 1: floating literal '0x1p' has no digits in its exponent
        0x1.8                   => column 1: hexadecimal floating literal '0x1.8' needs a binary exponent ('p')
        0x.p1                   => column 1: floating literal '0x.p1' has no digits
        1.5L                    => column 1: floating literal '1.5L' is a long double, which is not supported
        0x1p3l                  => column 1: floating literal '0x1p3l' is a long double, which is not supported
        1.5x                    => column 4: invalid character 'x' in floating literal '1.5x'
        1.5ff                   => column 5: invalid character 'f' in floating literal '1.5ff'
        1.2.3                   => column 4: invalid character '.' in floating literal '1.2.3'
        1e5u                    => column 4: invalid character 'u' in floating literal '1e5u'
        1f                      => column 2: invalid character 'f' in decimal literal
        1e309                   => column 1: floating literal '1e309' is too large for double (use INFINITY for infinity)
        3.5e38f                 => column 1: floating literal '3.5e38f' is too large for float (use INFINITY for infinity)
        0x1p1024                => column 1: floating literal '0x1p1024' is too large for double (use INFINITY for infinity)
        0x1.ffffffp127f         => column 1: floating literal '0x1.ffffffp127f' is too large for float (use INFINITY for infinity)
        x < .                   => column 5: unexpected character '.'
        NAN[0]                  => column 4: only a parameter name can be indexed
        ",
    );
}

/// The exact decimal expansion of the hexadecimal number `digits` times 2^`exp`.
fn exact_decimal(digits: &str, exp: i64) -> String {
    // Little-endian limbs of 10^9.
    fn mul_add(n: &mut Vec<u64>, m: u64, a: u64) {
        let mut carry = a;
        for limb in n.iter_mut() {
            let v = *limb * m + carry;
            *limb = v % 1_000_000_000;
            carry = v / 1_000_000_000;
        }
        if carry > 0 {
            n.push(carry);
        }
    }
    let mut n = vec![0u64];
    for c in digits.chars() {
        mul_add(&mut n, 16, u64::from(c.to_digit(16).unwrap()));
    }
    let (factor, times) = if exp >= 0 { (2, exp) } else { (5, -exp) };
    for _ in 0..times {
        mul_add(&mut n, factor, 0);
    }
    let mut text = n.last().unwrap().to_string();
    for limb in n.iter().rev().skip(1) {
        text += &format!("{limb:09}");
    }
    // m * 5^k / 10^k = m * 2^-k.
    if exp >= 0 {
        text
    } else {
        format!("{text}e-{}", -exp)
    }
}

proptest::proptest! {
    /// Hexadecimal literals round as Rust's (correctly rounded) parsing rounds their
    /// exact decimal value.
    #[test]
    fn hex_literals_round_correctly(
        int in "[0-9a-f]{0,18}",
        frac in "[0-9a-f]{0,18}",
        exp in -1200i64..1100,
        float in proptest::bool::ANY,
    ) {
        proptest::prop_assume!(!(int.is_empty() && frac.is_empty()));
        let suffix = if float { "f" } else { "" };
        let text = format!("0x{int}.{frac}p{exp}{suffix}");
        let exact = exact_decimal(&format!("{int}{frac}"), exp - 4 * frac.len() as i64);
        let expected = if float {
            exact.parse::<f32>().ok().filter(|v| v.is_finite()).map(|v| u128::from(v.to_bits()))
        } else {
            exact.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| u128::from(v.to_bits()))
        };
        match (parse_assume(&text), expected) {
            (Ok(AssumeExpr::Num(l)), Some(bits)) => proptest::prop_assert_eq!(l.value, bits, "{}", text),
            (Err(e), None) => proptest::prop_assert!(e.message.contains("too large"), "{}", e),
            (got, want) => proptest::prop_assert!(false, "{}: {:?}, expected {:?}", text, got, want),
        }
    }

    /// Decimal literals round as Rust's parsing of the same digits does.
    #[test]
    fn decimal_literals_round_correctly(
        int in "[0-9]{0,25}",
        frac in "[0-9]{0,25}",
        exp in -360i64..330,
    ) {
        proptest::prop_assume!(!(int.is_empty() && frac.is_empty()));
        let text = format!("{int}.{frac}e{exp}");
        match (parse_assume(&text), text.parse::<f64>()) {
            (Ok(AssumeExpr::Num(l)), Ok(v)) => proptest::prop_assert_eq!(l.value, u128::from(v.to_bits())),
            (Err(e), Ok(v)) => proptest::prop_assert!(v.is_infinite() && e.message.contains("too large"), "{}", e),
            (got, want) => proptest::prop_assert!(false, "{}: {:?}, expected {:?}", text, got, want),
        }
    }
}

#[test]
fn vars_lists_each_name_once_in_order() {
    let e = parse_assume("s[i] == c && n > i && s[0] != 0").unwrap();
    assert_eq!(e.vars(), ["s", "i", "c", "n"]);
    assert!(parse_assume("1 + 2").unwrap().vars().is_empty());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let parens = |n| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    let err = parse_assume(&parens(30_000)).unwrap_err();
    assert_eq!(err.column, MAX_DEPTH + 1);
    let brackets = format!("{}0{}", "s[".repeat(10_000), "]".repeat(10_000));
    let chain = |n, op: &str| vec!["a"; n].join(op);
    // Rising precedence nests: `a || a && a | a ^ …` is one level per operator.
    let rising = |n| {
        let ops = ["||", "&&", "|", "^", "&", "==", "<", "<<", "+", "*"];
        let mut s = "a".to_string();
        for k in 0..n {
            s = format!("({s} {} a)", ops[k % ops.len()]);
        }
        s
    };
    for deep in [
        parens(30_000),
        "!".repeat(60_000),
        rising(MAX_DEPTH + 1),
        brackets,
    ] {
        let err = parse_assume(&deep).unwrap_err();
        assert!(err.message.contains("nested too deeply"), "{err}");
    }
    check(&parens(MAX_DEPTH), "a");
    // A flat chain is one level, however long (257 conditions were once too deep).
    for op in [" && ", " + ", " - ", " || "] {
        assert!(parse_assume(&chain(257, op)).is_ok());
        assert!(parse_assume(&chain(10_000, op)).is_ok());
    }
    let long = chain(20_000, " && ");
    let err = parse_assume(&long).unwrap_err();
    assert!(err.message.contains("too long"), "{err}");
}

#[test]
fn chains_print_as_nested_operations() {
    check("a - b + c", "(+ (- a b) c)");
    check("a && b && c && d", "(&& (&& (&& a b) c) d)");
    check("a * b + c * d - e", "(- (+ (* a b) (* c d)) e)");
    check("a + b * c + d", "(+ (+ a (* b c)) d)");
    check("a < b < c == d", "(== (< (< a b) c) d)");
}

#[test]
fn every_operator_round_trips_through_display() {
    for op in BinaryOp::ALL {
        let text = format!("x {} y", op.symbol());
        check(&text, &format!("({} x y)", op.symbol()));
    }
}

// Issue 34: messages print preconditions as C, not as s-expressions.
#[test]
fn c_syntax_is_what_people_write() {
    for (text, c) in [
        ("lo <= high", "lo <= high"),
        ("s[4] == 0 && n < 10", "(s[4] == 0) && (n < 10)"),
        ("(a + b) * 2 < n", "((a + b) * 2) < n"),
        ("- -x > 0", "-(-x) > 0"),
    ] {
        let e = parse_assume(text).unwrap();
        assert_eq!(e.c_syntax(), c, "{text}: {e}");
        // The C text reads back as the same expression.
        assert_eq!(
            parse_assume(&e.c_syntax()).unwrap().to_string(),
            e.to_string()
        );
    }
}

/// Prints an expression as C with every operation in parentheses.
fn to_c(e: &AssumeExpr) -> String {
    match e {
        AssumeExpr::Num(v) => v.to_string(),
        AssumeExpr::Var(name) => name.clone(),
        AssumeExpr::Index(name, i) => format!("{name}[{}]", to_c(i)),
        AssumeExpr::Unary(op, e) => format!("({op}{})", to_c(e)),
        AssumeExpr::Binary(op, l, r) => format!("({} {op} {})", to_c(l), to_c(r)),
        AssumeExpr::Chain(first, rest) => {
            let mut s = to_c(first);
            for (op, e) in rest {
                s = format!("({s} {op} {})", to_c(e));
            }
            s
        }
    }
}

fn bin((op, l, r): (BinaryOp, AssumeExpr, AssumeExpr)) -> AssumeExpr {
    AssumeExpr::Binary(op, Box::new(l), Box::new(r))
}

fn arb_expr() -> impl proptest::strategy::Strategy<Value = AssumeExpr> {
    use proptest::{prelude::*, sample::select};
    let leaf = prop_oneof![
        (0..=i64::MAX as u128).prop_map(|v| {
            let ty = [CType::INT, CType::LONG]
                .into_iter()
                .find(|t| t.holds(v))
                .unwrap_or(CType::LONG);
            AssumeExpr::Num(Literal { value: v, ty })
        }),
        // Every finite non-negative double and float, and the float infinity and NaN.
        (0..0x7FF0_0000_0000_0000u128).prop_map(|value| AssumeExpr::Num(Literal {
            value,
            ty: CType::DOUBLE
        })),
        prop_oneof![0..0x7F80_0000u128, Just(0x7F80_0000), Just(0x7FC0_0000)].prop_map(|value| {
            AssumeExpr::Num(Literal {
                value,
                ty: CType::FLOAT,
            })
        }),
        "[a-z_][a-z0-9_]{0,3}".prop_map(AssumeExpr::Var),
    ];
    leaf.prop_recursive(6, 48, 2, |e| {
        let unary = select(vec![UnaryOp::Not, UnaryOp::Neg, UnaryOp::BitNot]);
        prop_oneof![
            ("[a-z]{1,3}", e.clone()).prop_map(|(n, i)| AssumeExpr::Index(n, Box::new(i))),
            (unary, e.clone()).prop_map(|(op, x)| AssumeExpr::Unary(op, Box::new(x))),
            (select(BinaryOp::ALL.to_vec()), e.clone(), e).prop_map(bin),
        ]
    })
}

proptest::proptest! {
    #[test]
    fn parenthesised_c_parses_back(e in arb_expr()) {
        let text = to_c(&e);
        proptest::prop_assert_eq!(parse_assume(&text), Ok(e), "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[ -~]{0,40}") {
        let _ = parse_assume(&text);
    }
}
