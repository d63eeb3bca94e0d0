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
//!   compared pointer may point into one: [`heap_pairs`]).
//!
//! Pointers stored in memory (buffers, globals, `sret`, reached heap objects) and in the
//! words of a returned struct are compared the same way, word by word ([`Mover`]): each
//! aligned 8-byte word of B that may be an address of a B object with a counterpart is
//! moved, every other byte compared as a byte.
//!
//! An object of B with no counterpart keeps its address, which no object of A has: a
//! pointer into it differs from every pointer A has. Pointers are shown by what they
//! point to (`&"yes"[0]`, `&table+12`, `&p[2]`, `&f`, `NULL`; memory holding some as
//! `{&s[2], "\0\0"}`), never as engine addresses.

use crate::exec::memory::{ObjectKind, RED_ZONE};
use crate::exec::{State, Value};
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
    let mut tables = Vec::new();
    for g in left {
        if let Some(a) = a_constants.get(g.init.as_slice()).and_then(|v| v.first()) {
            spans.push(Span {
                b: g.address,
                a: *a,
                size: g.size,
            });
        } else if g.holds_pointers {
            tables.push(g);
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
    // Constants holding pointers (tables of strings or functions): equal once their
    // pointers are moved, the same-named one first; a round per level of tables pointing
    // to tables.
    let a_tables: Vec<&crate::ir::Global> = side_globals(Side::A)
        .filter(|a| a.is_constant && a.holds_pointers)
        .collect();
    while !tables.is_empty() {
        let before = tables.len();
        tables.retain(|g| {
            let fits = |a: &&&crate::ir::Global| initializers_correspond(&spans, &a.init, &g.init);
            let found = a_tables
                .iter()
                .filter(|a| a.source_name == g.source_name)
                .find(fits)
                .or_else(|| a_tables.iter().find(fits));
            match found {
                Some(a) => {
                    spans.push(Span {
                        b: g.address,
                        a: a.address,
                        size: g.size,
                    });
                    false
                }
                None => true,
            }
        });
        if tables.len() == before {
            break;
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

/// The path's part of the correspondence: the parameters' buffers (`a_buffers`: A's
/// address and the size of each, in the order of `State::buffers`) and the heap objects.
pub fn path_spans(state: &State, a_buffers: &[Extent], b_start: u64) -> Vec<Span> {
    let mut spans: Vec<Span> = state
        .buffers
        .iter()
        .zip(a_buffers)
        .map(|(&b, &(a, size))| Span {
            b,
            a,
            // A buffer grown on demand (`memory::Growth`) is as long as it grew.
            size: state.memory.get(b).map_or(size, |(o, _)| o.size.max(size)),
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
    // A pointer read from a table at a symbolic index has no address constant, but its
    // upper bytes are known: the spans its range meets.
    if pool.width(e) == 64 {
        let known = pool.known_bits(e);
        let (mask, value) = (known.mask as u64, known.value as u64);
        let (lo, hi) = (value & mask, value | !mask);
        if hi - lo < 1 << 32 {
            for s in spans.iter().filter(|s| s.b <= hi && lo <= s.b + s.size) {
                if !reached.contains(s) {
                    reached.push(*s);
                }
            }
        }
    }
    through(pool, &reached, e)
}

/// Pointer-sized words: memory is compared word by word where B's word may be an address.
pub const WORD: usize = 8;

/// B's objects with their counterparts in A, made only when a value of B first looks like
/// an address (most checks store none, and listing the path's heap objects costs a pass
/// over its memory).
pub struct Mover<'p, F: Fn() -> Vec<Span>> {
    pool: &'p ExprPool,
    spans: std::cell::OnceCell<Vec<Span>>,
    make: F,
    /// Whether an expression holds a constant in the address range, per node seen: the
    /// bytes of one word, and often of one buffer, share their subexpressions.
    addressed: std::cell::RefCell<std::collections::HashMap<ExprId, bool>>,
}

/// Two sides' memory compared by [`Mover::compare`].
#[derive(Default)]
pub struct Compared {
    /// Whether each byte, or each word compared as a pointer, differs.
    pub differ: Vec<ExprId>,
    /// A's words that B's were compared with as pointers (which may reach heap objects
    /// whose contents are compared in turn).
    pub pointers: Vec<ExprId>,
}

impl<'p, F: Fn() -> Vec<Span>> Mover<'p, F> {
    /// `make` lists the spans, sorted by B address.
    pub fn new(pool: &'p ExprPool, make: F) -> Self {
        Mover {
            pool,
            spans: std::cell::OnceCell::new(),
            make,
            addressed: Default::default(),
        }
    }

    /// Whether `e` holds a 64-bit constant at or above the functions' region (what
    /// [`address_constants`] finds, in at most as many new nodes), remembered per node.
    fn has_address(&self, e: ExprId) -> bool {
        let pool = self.pool;
        let mut memo = self.addressed.borrow_mut();
        if let Some(&known) = memo.get(&e) {
            return known;
        }
        let mut budget = ADDRESS_SEARCH_NODES;
        let mut stack = vec![(e, false)];
        while let Some((x, expanded)) = stack.pop() {
            if memo.contains_key(&x) {
                continue;
            }
            let node = pool.node(x);
            if expanded {
                let own = matches!(node, Node::Const { value, .. }
                    if value >= FUNCTION_BASE as u128 && value <= u64::MAX as u128);
                let below = node
                    .children()
                    .any(|c| memo.get(&c).copied().unwrap_or(false));
                memo.insert(x, own || below);
            } else if budget == 0 {
                memo.insert(x, false);
            } else {
                budget -= 1;
                stack.push((x, true));
                stack.extend(
                    node.children()
                        .filter(|c| !memo.contains_key(c))
                        .map(|c| (c, false)),
                );
            }
        }
        memo.get(&e).copied().unwrap_or(false)
    }

    pub fn spans(&self) -> &[Span] {
        self.spans.get_or_init(&self.make)
    }

    /// Whether B's 64-bit value `e` may be the address of a B object with a counterpart:
    /// a constant inside (or one past) one, or an expression with a constant within a red
    /// zone of one. An integer that merely could equal such an address is not one.
    pub fn may_point(&self, e: ExprId) -> bool {
        let pool = self.pool;
        if let Some(v) = pool.as_const(e) {
            return v >= FUNCTION_BASE as u128 && self.holding(v as u64).is_some();
        }
        let known = pool.known_bits(e);
        self.near_range((known.mask as u64, known.value as u64))
            || self.has_address(e) && address_constants(pool, e).iter().any(|&c| self.near(c))
    }

    /// Whether a 64-bit value whose known bits are `(mask, value)` has its upper half
    /// fixed and may lie in a span or the red zone around one.
    fn near_range(&self, (mask, value): (u64, u64)) -> bool {
        let (lo, hi) = (value & mask, value | !mask);
        hi >= FUNCTION_BASE
            && hi - lo < 1 << 32
            && self
                .spans()
                .iter()
                .any(|s| s.b.saturating_sub(RED_ZONE) <= hi && lo <= s.b + s.size + RED_ZONE)
    }

    /// The span holding B's address `v`.
    fn holding(&self, v: u64) -> Option<&Span> {
        let spans = self.spans();
        let i = spans.partition_point(|s| s.b <= v);
        // A function's span (size 0) may share its address with nothing else; a global's
        // one-past-the-end is a red zone away from the next object.
        spans[..i].iter().rev().take(2).find(|s| s.holds(v))
    }

    /// Whether constant `c` lies in a span or in the red zone around one.
    fn near(&self, c: u64) -> bool {
        self.spans()
            .iter()
            .any(|s| s.b.saturating_sub(RED_ZONE) <= c && c <= s.b + s.size + RED_ZONE)
    }

    /// B's word at `bytes` (little-endian) when it may be an address: see [`Self::may_point`].
    /// Bytes with no symbolic part nor an address-sized value are never made a word.
    fn pointer_word(&self, bytes: &[Value]) -> Option<ExprId> {
        let pool = self.pool;
        if bytes.iter().all(Value::is_concrete) {
            let v = bytes.iter().rev().fold(0u64, |acc, b| {
                (acc << 8) | b.as_concrete().unwrap_or(0) as u64
            });
            return (v >= FUNCTION_BASE && self.holding(v).is_some())
                .then(|| pool.constant(64, v as u128));
        }
        // A symbolic word is a candidate when one of its bytes names an address, or when
        // the bits its structure fixes leave it near an object (a pointer read from a
        // table at a symbolic index: `concat(0x1000001, ite(c, 0x90, 0x40))`).
        let named = bytes.iter().any(|b| match b {
            Value::Sym(e) => {
                self.has_address(*e) && address_constants(pool, *e).iter().any(|&c| self.near(c))
            }
            Value::Con { .. } => false,
        });
        (named || self.near_range(known_word(pool, bytes))).then(|| word(pool, bytes))
    }

    /// Whether A's word `x` differs from B's word `y`, which may be an address: from `y`
    /// moved into A's space and from `y` itself. A word that only may be an address (data
    /// loaded through a pointer names the pointer's constants, and moving such data when
    /// its value happens to fall in an object would make it differ) is then equal when its
    /// bits are; an address of B is never an address of A, so a pointer equal to A's only
    /// bit for bit is one to an object both sides share.
    fn words_differ(&self, x: ExprId, y: ExprId) -> ExprId {
        let pool = self.pool;
        let moved = b_to_a(pool, self.spans(), y);
        if moved == y {
            return pool.ne(x, y);
        }
        pool.bool_and(pool.ne(x, y), pool.ne(x, moved))
    }

    /// Whether memory `a` of A and `b` of B (an object's bytes on each side; the bytes both
    /// have) differ: each aligned word of B that may be an address of a B object with a
    /// counterpart is moved into A's space ([`b_to_a`]) and compared with A's word; every
    /// other byte as a byte.
    pub fn compare(&self, a: &[Value], b: &[Value]) -> Compared {
        let pool = self.pool;
        let n = a.len().min(b.len());
        let mut out = Compared::default();
        let mut k = 0;
        while k < n {
            if k % WORD == 0 && k + WORD <= n {
                if let Some(y) = self.pointer_word(&b[k..k + WORD]) {
                    let x = word(pool, &a[k..k + WORD]);
                    out.differ.push(self.words_differ(x, y));
                    out.pointers.push(x);
                    k += WORD;
                    continue;
                }
            }
            out.differ.push(pool.ne(a[k].expr(pool), b[k].expr(pool)));
            k += 1;
        }
        out
    }

    /// Whether values `x` of A and `y` of B of a width that is a multiple of 64 bits (a
    /// returned integer or struct) differ: each 64-bit word of `y` that may be an address
    /// moved into A's space first. `None` when no word may be one.
    pub fn compare_words(&self, x: ExprId, y: ExprId) -> Option<Compared> {
        let pool = self.pool;
        let width = pool.width(y);
        if !width.is_multiple_of(64) || pool.width(x) != width {
            return None;
        }
        let words: Vec<(ExprId, ExprId)> = (0..width / 64)
            .map(|j| (pool.extract(x, 64 * j, 64), pool.extract(y, 64 * j, 64)))
            .collect();
        if !words.iter().any(|&(_, yw)| self.may_point(yw)) {
            return None;
        }
        let mut out = Compared::default();
        for (xw, yw) in words {
            if self.may_point(yw) {
                out.differ.push(self.words_differ(xw, yw));
                out.pointers.push(xw);
            } else {
                out.differ.push(pool.ne(xw, yw));
            }
        }
        Some(out)
    }
}

/// The bits of the little-endian word of `bytes` that their structure fixes: (mask, value).
fn known_word(pool: &ExprPool, bytes: &[Value]) -> (u64, u64) {
    let (mut mask, mut value) = (0u64, 0u64);
    for (k, b) in bytes.iter().enumerate().take(WORD) {
        let (m, v) = match *b {
            Value::Con { bits, .. } => (0xff, bits as u64 & 0xff),
            Value::Sym(e) => {
                let known = pool.known_bits(e);
                (known.mask as u64 & 0xff, known.value as u64 & 0xff)
            }
        };
        mask |= m << (8 * k);
        value |= v << (8 * k);
    }
    (mask, value)
}

/// The little-endian word of `bytes`.
fn word(pool: &ExprPool, bytes: &[Value]) -> ExprId {
    let exprs: Vec<ExprId> = bytes.iter().map(|b| b.expr(pool)).collect();
    pool.concat_bytes(&exprs)
}

/// Whether B's initializer `b` of a global holds what A's `a` holds, its words that are
/// addresses of B's globals or functions (`spans`, from [`module_spans`]) moved to their
/// counterparts in A.
pub fn initializers_correspond(spans: &[Span], a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if k % WORD == 0 && k + WORD <= a.len() {
            let read = |bytes: &[u8]| {
                let mut w = [0u8; WORD];
                w.copy_from_slice(&bytes[k..k + WORD]);
                u64::from_le_bytes(w)
            };
            let (x, y) = (read(a), read(b));
            if let Some(s) = spans.iter().find(|s| y >= FUNCTION_BASE && s.holds(y)) {
                if x != y - s.b + s.a {
                    return false;
                }
                k += WORD;
                continue;
            }
        }
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
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

/// At most this many nodes of an expression are searched for address constants.
const ADDRESS_SEARCH_NODES: usize = 4096;

/// The 64-bit constants in `e` that may be addresses (at or above the functions' region).
fn address_constants(pool: &ExprPool, e: ExprId) -> Vec<u64> {
    let mut seen: HashSet<ExprId> = HashSet::new();
    let mut stack = vec![e];
    let mut found = Vec::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) || seen.len() > ADDRESS_SEARCH_NODES {
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

/// `address` by what it points to when it is one: a function, or inside (or one past) an
/// object of `state`.
pub fn pointed(module: &Module, state: &State, address: u64) -> Option<String> {
    if address < FUNCTION_BASE {
        return None;
    }
    let in_object = module.function_at(address).is_some()
        || state.memory.find(address).is_some()
        || state
            .memory
            .find(address.wrapping_sub(1))
            .is_some_and(|(o, _)| o.address + o.size == address);
    in_object.then(|| describe_pointer(module, state, address))
}

/// One side's memory (`bytes`, their values `concrete`) as a result shows it: a C string
/// literal; or, when an aligned word holds an address (a word whose upper half its
/// structure fixes or with an address constant, whose value points into an object or at a
/// function), in braces, each
/// such word by what it points to and the bytes between as literals:
/// `{&s[2], "\0\0\0\0\0\0\0\0"}`.
pub fn display_memory(
    module: &Module,
    state: &State,
    pool: &ExprPool,
    bytes: &[Value],
    concrete: &[u8],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut run: Vec<u8> = Vec::new();
    let mut k = 0;
    while k < concrete.len() {
        if k % WORD == 0 && k + WORD <= concrete.len() && k + WORD <= bytes.len() {
            let (mask, _) = known_word(pool, &bytes[k..k + WORD]);
            let named = mask >> 32 == 0xffff_ffff
                || bytes[k..k + WORD].iter().any(|b| match b {
                    Value::Sym(e) => !address_constants(pool, *e).is_empty(),
                    Value::Con { .. } => false,
                });
            let mut w = [0u8; WORD];
            w.copy_from_slice(&concrete[k..k + WORD]);
            let shown = named
                .then(|| pointed(module, state, u64::from_le_bytes(w)))
                .flatten();
            if let Some(text) = shown {
                if !run.is_empty() {
                    parts.push(super::show::display_buffer(&std::mem::take(&mut run)));
                }
                parts.push(text);
                k += WORD;
                continue;
            }
        }
        run.push(concrete[k]);
        k += 1;
    }
    if parts.is_empty() {
        return super::show::display_buffer(&run);
    }
    if !run.is_empty() {
        parts.push(super::show::display_buffer(&run));
    }
    format!("{{{}}}", parts.join(", "))
}

/// A value of two 64-bit words (a struct returned in two registers) as a result
/// shows it, when a word points into an object or at a function: `{&"yes"[0], 1}`.
pub fn display_words(module: &Module, state: &State, width: u32, bits: u128) -> Option<String> {
    if width != 128 {
        return None;
    }
    let words: Vec<u64> = (0..width / 64).map(|j| (bits >> (64 * j)) as u64).collect();
    let shown: Vec<Option<String>> = words.iter().map(|&w| pointed(module, state, w)).collect();
    if shown.iter().all(Option::is_none) {
        return None;
    }
    let parts: Vec<String> = words
        .iter()
        .zip(shown)
        .map(|(&w, s)| s.unwrap_or_else(|| super::show::display_int(64, w as u128)))
        .collect();
    Some(format!("{{{}}}", parts.join(", ")))
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
    fn among_many_spans_a_pointer_with_known_upper_bytes_moves_through_those_it_meets() {
        let pool = ExprPool::new();
        let spans: Vec<Span> = (0..ALL_SPANS as u64 + 10)
            .map(|k| Span {
                b: 0x2_0000_0000 + 0x100 * k,
                a: 0x1_0000_0000 + 0x100 * k,
                size: 16,
            })
            .collect();
        // A table read at a symbolic index: `0x0200_0005` then 0x00 or 0x08.
        let c = pool.new_array("c", 1);
        let cond = pool.eq(pool.sym(c, 0), pool.constant(8, 7));
        let low = pool.ite(cond, pool.constant(8, 0x08), pool.constant(8, 0));
        let p = pool.concat(pool.constant(56, 0x0200_0005), low);
        assert!(pool.as_const(p).is_none());
        let moved = b_to_a(&pool, &spans, p);
        let mut m = crate::expr::Assignment::new();
        m.set(c, vec![7]);
        assert_eq!(pool.eval(moved, &m), 0x1_0000_0508);
        m.set(c, vec![1]);
        assert_eq!(pool.eval(moved, &m), 0x1_0000_0500);
    }

    #[test]
    fn memory_words_that_are_addresses_of_b_move_and_other_bytes_stay() {
        let pool = ExprPool::new();
        let spans = vec![Span {
            b: 0x2_0000_0000,
            a: 0x1_0000_0000,
            size: 16,
        }];
        let mover = Mover::new(&pool, || spans.clone());
        let bytes = |w: u64| -> Vec<Value> {
            w.to_le_bytes()
                .iter()
                .map(|&b| Value::concrete(8, b as u128))
                .collect()
        };
        let differ = |a: &[Value], b: &[Value]| {
            let c = mover.compare(a, b);
            pool.as_const(pool.or_all(&c.differ))
        };
        // Offset 4 of the object on both sides: equal, compared as a pointer.
        let (a, b) = (bytes(0x1_0000_0004), bytes(0x2_0000_0004));
        assert_eq!(differ(&a, &b), Some(0));
        assert_eq!(mover.compare(&a, &b).pointers.len(), 1);
        // Another offset, an address in no span (an object of B alone), an integer: bytes.
        assert_eq!(
            differ(&bytes(0x1_0000_0004), &bytes(0x2_0000_0005)),
            Some(1)
        );
        assert_eq!(
            differ(&bytes(0x1_0000_0004), &bytes(0x3_0000_0004)),
            Some(1)
        );
        assert_eq!(differ(&bytes(7), &bytes(7)), Some(0));
        assert!(mover.compare(&bytes(7), &bytes(7)).pointers.is_empty());
        // A word not at a multiple of 8 is bytes.
        let mut a = vec![Value::concrete(8, 0)];
        a.extend(bytes(0x1_0000_0004));
        let mut b = vec![Value::concrete(8, 0)];
        b.extend(bytes(0x2_0000_0004));
        assert_eq!(differ(&a, &b), Some(1));
        // Initializers: B's address of the object corresponds to A's.
        let init = |w: u64| w.to_le_bytes().to_vec();
        assert!(initializers_correspond(
            &spans,
            &init(0x1_0000_0008),
            &init(0x2_0000_0008)
        ));
        assert!(!initializers_correspond(
            &spans,
            &init(0x1_0000_0008),
            &init(0x2_0000_0000)
        ));
        assert!(initializers_correspond(&spans, &init(0), &init(0)));
    }

    #[test]
    fn only_printable_nul_terminated_constants_are_string_literals() {
        assert_eq!(string_literal(true, b"yes\0").as_deref(), Some("\"yes\""));
        assert_eq!(string_literal(false, b"yes\0"), None);
        assert_eq!(string_literal(true, b"y\0s\0"), None);
        assert_eq!(string_literal(true, &[1, 2, 0]), None);
    }
}
