//! How integers and buffers are shown in a check's rows and tests: as C would print them.

use crate::expr::to_signed;

/// An integer as C would print it: signed when negative as signed, with its hex for large values.
pub fn display_int(width: u32, bits: u128) -> String {
    if width == 1 {
        return bits.to_string();
    }
    let signed = to_signed(width, bits);
    if signed < 0 {
        format!("{signed}")
    } else if bits >= 0x10000 {
        format!("{bits} (0x{bits:x})")
    } else {
        bits.to_string()
    }
}

/// An unsigned integer as C would print it, with its hex for large values.
pub fn display_unsigned(bits: u128) -> String {
    if bits >= 0x10000 {
        format!("{bits} (0x{bits:x})")
    } else {
        bits.to_string()
    }
}

/// A buffer as a C string literal.
pub fn display_buffer(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            0 => s.push_str("\\0"),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    s
}
