//! How integers and buffers are shown in a check's rows and tests: as C would print them.

use crate::assume::CType;
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

/// A buffer of elements of type `elem` (debug information's pointee: a `long *` buffer's
/// longs) as a C initializer, `{1, -2, 3}`, each element as [`display_int`],
/// [`display_unsigned`] or `display_float` shows it; bytes after the last whole element
/// follow as a string (`{1, 2} + "\x01"`). `None` for elements of one byte (or a width not
/// in bytes), shown as a string ([`display_buffer`]).
pub fn display_elements(bytes: &[u8], elem: CType) -> Option<String> {
    let width = elem.bits();
    let size = (width / 8) as usize;
    if !width.is_multiple_of(8) || !(2..=16).contains(&size) {
        return None;
    }
    let whole = bytes.len() / size * size;
    let items: Vec<String> = bytes[..whole]
        .chunks(size)
        .map(|c| {
            let bits = c.iter().rev().fold(0u128, |acc, &b| (acc << 8) | b as u128);
            match elem {
                CType::Float { .. } => super::float::display_float(width, bits),
                CType::Int { signed: true, .. } => display_int(width, bits),
                CType::Int { signed: false, .. } => display_unsigned(bits),
            }
        })
        .collect();
    let mut text = format!("{{{}}}", items.join(", "));
    if whole < bytes.len() {
        text.push_str(&format!(" + {}", display_buffer(&bytes[whole..])));
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 34: buffers shown by their elements' type from debug information.
    #[test]
    fn buffers_are_shown_by_their_elements_type() {
        let longs: Vec<u8> = [7i64, -2].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(
            display_elements(&longs, CType::LONG).as_deref(),
            Some("{7, -2}")
        );
        let ints: Vec<u8> = [70000i32, -1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(
            display_elements(&ints, CType::INT).as_deref(),
            Some("{70000 (0x11170), -1}")
        );
        let ushort = CType::Int {
            bits: 16,
            signed: false,
        };
        assert_eq!(
            display_elements(&[0xff, 0xff, 1, 0, 9], ushort).as_deref(),
            Some("{65535, 1} + \"\\t\"")
        );
        let doubles: Vec<u8> = [1.5f64, -0.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let shown = display_elements(&doubles, CType::Float { bits: 64 }).unwrap();
        assert!(
            shown.starts_with("{1.5") && shown.contains(", -0"),
            "{shown}"
        );
        let floats: Vec<u8> = 2.25f32.to_le_bytes().to_vec();
        let shown = display_elements(&floats, CType::Float { bits: 32 }).unwrap();
        assert!(shown.starts_with("{2.25"), "{shown}");
        // Chars stay a string.
        let char_type = CType::Int {
            bits: 8,
            signed: true,
        };
        assert_eq!(display_elements(b"ab", char_type), None);
        assert_eq!(display_elements(&[], CType::LONG).as_deref(), Some("{}"));
    }
}
