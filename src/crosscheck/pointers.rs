//! Pointers in a function check's results, compared by what they point to.
//!
//! Each side's objects live at their own engine addresses, so a pointer B returns is moved
//! into A's address space before it is compared with A's: an address inside (or one past)
//! an object of B that corresponds to an object of A becomes the same offset in A's
//! object. Objects correspond by role:
//! - the same parameter's buffer;
//! - the same-named global (of equal size) or function of the two sides;
//! - a constant global of equal bytes, whatever each compiler named it (string literals,
//!   constant tables);
//! - heap objects by allocation order on the path (their contents are compared too when a
//!   side returns a pointer into one: [`heap_pairs`]).
//!
//! An object of B with no counterpart keeps its address, which no object of A has: a
//! pointer into it differs from every pointer A returns. Pointers are shown by what they
//! point to (`&"yes"[0]`, `&table+12`, `&p[2]`, `&f`, `NULL`), never as engine addresses.

use super::setup::{Arguments, ParamSpec, Signature};
use crate::exec::memory::ObjectKind;
use crate::exec::State;
use crate::expr::{ExprId, ExprPool, Node};
use crate::ir::{Module, Side, FUNCTION_BASE};
use std::collections::{BTreeMap, HashSet};

/// An object of B (from `b`, `size` bytes) and the address of its counterpart in A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub b: u64,
    pub a: u64,
    pub size: u64,
}

impl Span {
    /// Whether `address` is inside the B object or one past its end.
    fn holds(&self, address: u64) -> bool {
        address >= self.b && address - self.b <= self.size
    }
}

/// An object's address and size.
pub type Extent = (u64, u64);

/// The module's part of the correspondence: globals and functions, sorted by B address.
pub fn module_spans(module: &Module) -> Vec<Span> {
    let mut spans = Vec::new();
    // Globals: by name first (equal sizes; constants of equal bytes), then the constants
    // left over by their bytes.
    let side_globals = |side: Side| {
        module
            .globals
            .iter()
            .filter(move |g| g.side == side && !g.is_external)
    };
    let a_by_name: BTreeMap<&str, &crate::ir::Global> = side_globals(Side::A)
        .map(|g| (g.source_name.as_str(), g))
        .collect();
    let mut a_taken: HashSet<u64> = HashSet::new();
    let mut left: Vec<&crate::ir::Global> = Vec::new();
    for g in side_globals(Side::B) {
        let same = a_by_name.get(g.source_name.as_str()).filter(|a| {
            a.size == g.size
                && a.is_constant == g.is_constant
                && (!g.is_constant || a.init == g.init)
        });
        match same {
            Some(a) => {
                a_taken.insert(a.address);
                spans.push(Span {
                    b: g.address,
                    a: a.address,
                    size: g.size,
                });
            }
            None if g.is_constant => left.push(g),
            None => {}
        }
    }
    let mut a_constants: BTreeMap<&[u8], Vec<u64>> = BTreeMap::new();
    for a in side_globals(Side::A).filter(|a| a.is_constant && !a_taken.contains(&a.address)) {
        a_constants
            .entry(a.init.as_slice())
            .or_default()
            .push(a.address);
    }
    for g in left {
        if let Some(a) = a_constants.get(g.init.as_slice()).and_then(|v| v.first()) {
            spans.push(Span {
                b: g.address,
                a: *a,
                size: g.size,
            });
        }
    }
    // Functions: by name, a function pointer being its address alone.
    for f in module.functions.iter().filter(|f| f.side == Side::B) {
        if let Some(a) = module.function_on_side(Side::A, &f.source_name) {
            spans.push(Span {
                b: f.address,
                a: module.function(a).address,
                size: 0,
            });
        }
    }
    spans.sort_by_key(|s| s.b);
    spans
}

/// The heap objects of each side live on `state`, in allocation order (addresses grow as
/// objects are made): A's below `b_start`, B's from it.
fn heap_objects(state: &State, b_start: u64) -> (Vec<Extent>, Vec<Extent>) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (o, _) in state.memory.objects() {
        if o.kind == ObjectKind::Heap {
            if o.address < b_start {
                a.push((o.address, o.size));
            } else {
                b.push((o.address, o.size));
            }
        }
    }
    (a, b)
}

/// The heap objects of A and B paired by allocation order on the path: (A's address and
/// size, B's address and size).
pub fn heap_pairs(state: &State, b_start: u64) -> Vec<(Extent, Extent)> {
    let (a, b) = heap_objects(state, b_start);
    a.into_iter().zip(b).collect()
}

/// The path's part of the correspondence: the parameters' buffers and the heap objects.
pub fn path_spans(state: &State, sig: &Signature, args: &Arguments, b_start: u64) -> Vec<Span> {
    let a_buffers = args.bases.iter().copied();
    let sizes = sig
        .params
        .iter()
        .filter(|p| p.buffer.is_some())
        .map(ParamSpec::object_size);
    let mut spans: Vec<Span> = state
        .buffers
        .iter()
        .zip(a_buffers)
        .zip(sizes)
        .map(|((&b, a), size)| Span {
            b,
            a,
            // A buffer grown on demand (`memory::Growth`) is as long as it grew.
            size: state
                .memory
                .get(b)
                .map_or(size as u64, |(o, _)| o.size.max(size as u64)),
        })
        .collect();
    for ((a, _), (b, size)) in heap_pairs(state, b_start) {
        spans.push(Span { b, a, size });
    }
    spans
}

/// B's pointer `e` moved into A's address space by `spans` (a concrete pointer directly;
/// a symbolic one through the spans whose objects its constants point into).
pub fn b_to_a(pool: &ExprPool, spans: &[Span], e: ExprId) -> ExprId {
    if let Some(address) = pool.as_const(e) {
        let address = address as u64;
        return match spans.iter().find(|s| s.holds(address)) {
            Some(s) => pool.constant(64, (address - s.b + s.a) as u128),
            None => e,
        };
    }
    // The spans a symbolic pointer may reach: those holding one of its constants, or the
    // nearest below one (a base pointer moved by a negative constant, then forward again).
    // A pointer read from memory (a table of pointers, or clang's relative table of
    // offsets, indexed by an input) may be any object's whatever its constants say: every
    // span is tried, unless there are too many, when those its constants reach are.
    if spans.len() <= ALL_SPANS {
        return through(pool, spans, e);
    }
    let mut reached: Vec<Span> = Vec::new();
    for c in address_constants(pool, e) {
        let below = spans.iter().rev().find(|s| s.b <= c);
        if let Some(s) = below {
            if !reached.contains(s) {
                reached.push(*s);
            }
        }
    }
    through(pool, &reached, e)
}

/// At most this many spans are tried for a symbolic pointer whatever its constants.
const ALL_SPANS: usize = 256;

/// `e` moved through each of `spans` it may lie in.
fn through(pool: &ExprPool, spans: &[Span], e: ExprId) -> ExprId {
    let mut out = e;
    for &s in spans {
        let lo = pool.constant(64, s.b as u128);
        let hi = pool.constant(64, (s.b + s.size) as u128);
        let inside = pool.bool_and(pool.ule(lo, e), pool.ule(e, hi));
        let moved = pool.add(pool.sub(e, lo), pool.constant(64, s.a as u128));
        out = pool.ite(inside, moved, out);
    }
    out
}

/// The 64-bit constants in `e` that may be addresses (at or above the functions' region).
fn address_constants(pool: &ExprPool, e: ExprId) -> Vec<u64> {
    let mut seen: HashSet<ExprId> = HashSet::new();
    let mut stack = vec![e];
    let mut found = Vec::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) || seen.len() > 4096 {
            continue;
        }
        let node = pool.node(x);
        if let Node::Const { value, .. } = node {
            if value >= FUNCTION_BASE as u128 && value <= u64::MAX as u128 {
                found.push(value as u64);
            }
        }
        stack.extend(node.children());
    }
    found.sort_unstable();
    found.dedup();
    found
}

/// A concrete pointer of either side as what it points to: `NULL`, `&f` for a function,
/// `&"yes"[1]` for a string literal, `&name` or `&name+12` (bytes) for another object,
/// `&p[2]` for a parameter's buffer; an address in no object as hexadecimal.
pub fn describe_pointer(module: &Module, state: &State, address: u64) -> String {
    if address == 0 {
        return "NULL".into();
    }
    if let Some(f) = module.function_at(address) {
        return format!("&{}", module.function(f).source_name);
    }
    // One past the end belongs to the object below.
    let found = state.memory.find(address).or_else(|| {
        state
            .memory
            .find(address.wrapping_sub(1))
            .filter(|(o, _)| o.address + o.size == address)
    });
    let Some((object, _)) = found else {
        return format!("0x{address:x} (in no object)");
    };
    let offset = address - object.address;
    match object.kind {
        ObjectKind::Global => {
            let global = module.globals.iter().find(|g| g.address == object.address);
            let name = global.map_or(object.name.as_str(), |g| g.source_name.as_str());
            if let Some(text) = global.and_then(|g| string_literal(g.is_constant, &g.init)) {
                return format!("&{text}[{offset}]");
            }
            offset_form(name, offset)
        }
        ObjectKind::Parameter | ObjectKind::Input => {
            let name = object
                .name
                .strip_prefix("parameter '")
                .and_then(|n| n.strip_suffix('\''))
                .unwrap_or(&object.name);
            format!("&{name}[{offset}]")
        }
        _ => offset_form(&format!("({})", object.name), offset),
    }
}

fn offset_form(name: &str, offset: u64) -> String {
    if offset == 0 {
        format!("&{name}")
    } else {
        format!("&{name}+{offset}")
    }
}

/// A constant's bytes as a C string literal, when they are one: printable text ending in
/// its only NUL.
fn string_literal(constant: bool, bytes: &[u8]) -> Option<String> {
    let (last, text) = bytes.split_last()?;
    let printable = |b: &u8| (0x20..0x7f).contains(b) || matches!(b, b'\n' | b'\t');
    (constant && *last == 0 && text.iter().all(printable))
        .then(|| super::show::display_buffer(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbolic_pointer_moves_through_the_spans_its_constants_reach() {
        let pool = ExprPool::new();
        let spans = [
            Span {
                b: 0x2_0000_0000,
                a: 0x1_0000_0000,
                size: 8,
            },
            Span {
                b: 0x2_0000_0100,
                a: 0x1_0000_0100,
                size: 4,
            },
        ];
        let c = pool.new_array("c", 1);
        let cond = pool.eq(pool.sym(c, 0), pool.constant(8, 7));
        let p = pool.ite(
            cond,
            pool.constant(64, 0x2_0000_0003),
            pool.constant(64, 0x2_0000_0104),
        );
        let moved = b_to_a(&pool, &spans, p);
        let mut m = crate::expr::Assignment::new();
        m.set(c, vec![7]);
        assert_eq!(pool.eval(moved, &m), 0x1_0000_0003);
        m.set(c, vec![8]);
        // One past the end of the second object.
        assert_eq!(pool.eval(moved, &m), 0x1_0000_0104);
        // An address in no span stays.
        let far = pool.constant(64, 0x3_0000_0000);
        assert_eq!(b_to_a(&pool, &spans, far), far);
    }

    #[test]
    fn only_printable_nul_terminated_constants_are_string_literals() {
        assert_eq!(string_literal(true, b"yes\0").as_deref(), Some("\"yes\""));
        assert_eq!(string_literal(false, b"yes\0"), None);
        assert_eq!(string_literal(true, b"y\0s\0"), None);
        assert_eq!(string_literal(true, &[1, 2, 0]), None);
    }
}
