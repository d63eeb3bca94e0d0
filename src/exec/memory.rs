//! Memory: objects with an identity ([`MemoryObject`]) and per-state contents
//! ([`ObjectState`]), shared copy-on-write between forked states.
//!
//! Every object has a concrete base address; a pointer is a 64-bit value, concrete or
//! symbolic. Contents are bytes: concrete bytes are kept as plain `u8`, symbolic ones as
//! 8-bit expressions. When an object is written at a symbolic offset it switches to
//! *array mode*: its contents become one array expression (a store chain), so that later
//! reads at symbolic offsets are single `read` expressions rather than case splits.

use crate::exec::value::Value;
use crate::expr::{ArrayId, ExprId, ExprPool, INDEX_WIDTH};
use std::sync::{Arc, OnceLock};

/// Identity of an allocation, fixed for its whole life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryObject {
    pub address: u64,
    pub size: u64,
    pub kind: ObjectKind,
    /// Where it was allocated, for messages: a global's name, `alloca at f.c:3`, a parameter.
    pub name: String,
    pub read_only: bool,
    /// For a parameter's buffer that may grow on demand: where its further bytes come from.
    pub growth: Option<Growth>,
}

/// How a parameter's buffer grows when a side reads or writes past its end (lazy
/// initialisation, as UC-KLEE does): byte `k` of the grown buffer is byte `k` of the
/// parameter's input `array`, up to `cap` bytes (`--buffer-cap`). Both sides' buffers for the
/// parameter grow from the same array, so they hold the same input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Growth {
    pub array: ArrayId,
    pub cap: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Global,
    Stack,
    Heap,
    /// An object made for an input of `xcheck run` (`argv`): an access outside it is a
    /// program error, as in KLEE.
    Input,
    /// A buffer a function check made for a pointer parameter. A caller may pass a larger
    /// one, or a pointer into the middle of an array, so an access outside it is a gap of
    /// the model (the path is unknown), never a program error. It lies [`PARAMETER_GAP`]
    /// bytes apart from other objects, so that a concrete overrun lands in no object.
    Parameter,
}

impl ObjectKind {
    /// Whether the engine made the object up for an input: its bytes are symbolic, so a
    /// pointer or a function read from it points at nothing the program chose.
    pub fn is_input(self) -> bool {
        matches!(self, ObjectKind::Input | ObjectKind::Parameter)
    }
}

impl MemoryObject {
    /// Whether `address` lies inside this object.
    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address - self.address < self.size.max(1)
    }

    /// Why a path that accessed this parameter's buffer outside it is unknown: past its end
    /// (a caller could pass a bigger buffer), or `before` its start (a pointer into an array).
    pub fn outside(&self, before: bool) -> String {
        if before {
            format!(
                "{} accessed before its start (a caller may pass a pointer into an array)",
                self.name
            )
        } else if self.growth.is_some() {
            format!(
                "{} needs more than {} bytes (--buffer-cap)",
                self.name, self.size
            )
        } else {
            format!(
                "{} needs more than {} bytes (--buffer-size)",
                self.name, self.size
            )
        }
    }
}

/// Contents of one object in one state.
#[derive(Debug, Clone)]
pub struct ObjectState {
    concrete: Vec<u8>,
    /// Symbolic bytes (parallel to `concrete`); empty while every byte is concrete.
    symbolic: Vec<Option<ExprId>>,
    /// In array mode, the whole contents as an array expression; bytes above are stale.
    array: Option<ExprId>,
    /// The contents as an array expression, built on the first symbolic-offset read and
    /// dropped by any write.
    array_cache: OnceLock<ExprId>,
    /// One bit per byte never written since an uninitialised allocation (`--ub report`:
    /// a load of such a byte reads undefined behaviour's value, `step.rs`); empty when
    /// every byte counts as written. A write at a symbolic offset, which may touch any byte,
    /// counts as writing them all.
    unwritten: Vec<u64>,
}

impl ObjectState {
    pub fn zeroed(size: usize) -> Self {
        Self::from_bytes(vec![0; size])
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Self {
        ObjectState {
            concrete: bytes,
            symbolic: Vec::new(),
            array: None,
            array_cache: OnceLock::new(),
            unwritten: Vec::new(),
        }
    }

    /// Marks every byte as never written (the contents stay zero: `--ub machine`'s value).
    pub fn set_uninitialised(&mut self) {
        let size = self.concrete.len();
        self.unwritten = vec![!0u64; size.div_ceil(64)];
        if !size.is_multiple_of(64) {
            if let Some(last) = self.unwritten.last_mut() {
                *last = (1u64 << (size % 64)) - 1;
            }
        }
    }

    /// Whether some byte was never written (a cheap test before [`ObjectState::unwritten`]).
    #[inline]
    pub fn has_unwritten(&self) -> bool {
        !self.unwritten.is_empty()
    }

    /// Whether byte `offset` was never written.
    pub fn unwritten(&self, offset: usize) -> bool {
        self.unwritten
            .get(offset / 64)
            .is_some_and(|w| w >> (offset % 64) & 1 == 1)
    }

    /// The runs `[start, end)` of bytes never written, in order; `None` when there are
    /// more than `most`.
    pub fn unwritten_runs(&self, most: usize) -> Option<Vec<(usize, usize)>> {
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut open: Option<usize> = None;
        let size = self.size();
        for (k, &word) in self.unwritten.iter().enumerate() {
            // Whole words of one kind are passed over at once.
            if (word == 0 && open.is_none()) || (word == u64::MAX && open.is_some()) {
                continue;
            }
            for bit in 0..64 {
                let at = k * 64 + bit;
                if at >= size {
                    break;
                }
                match (word >> bit & 1 == 1, open) {
                    (true, None) => open = Some(at),
                    (false, Some(start)) => {
                        runs.push((start, at));
                        open = None;
                        if runs.len() > most {
                            return None;
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(start) = open {
            runs.push((start, size));
        }
        (runs.len() <= most).then_some(runs)
    }

    /// Whether any of `count` bytes at `offset` was never written.
    pub fn any_unwritten(&self, offset: usize, count: usize) -> bool {
        self.has_unwritten() && (offset..offset + count).any(|i| self.unwritten(i))
    }

    /// Marks `count` bytes at `offset` as written.
    fn written(&mut self, offset: usize, count: usize) {
        if self.unwritten.is_empty() {
            return;
        }
        for i in offset..offset + count {
            if let Some(w) = self.unwritten.get_mut(i / 64) {
                *w &= !(1u64 << (i % 64));
            }
        }
        if self.unwritten.iter().all(|&w| w == 0) {
            self.unwritten = Vec::new();
        }
    }

    pub fn size(&self) -> usize {
        self.concrete.len()
    }

    /// Appends `bytes` after the last byte (a parameter's buffer growing: [`Growth`]).
    pub fn extend(&mut self, pool: &ExprPool, bytes: &[Value]) {
        let start = self.concrete.len();
        self.concrete.resize(start + bytes.len(), 0);
        if !self.symbolic.is_empty() {
            self.symbolic.resize(start + bytes.len(), None);
        }
        for (k, b) in bytes.iter().enumerate() {
            self.set_byte(pool, start + k, *b);
        }
    }

    /// Whether the contents are one array expression (after a symbolic-offset write).
    pub fn in_array_mode(&self) -> bool {
        self.array.is_some()
    }

    /// Whether every byte is concrete.
    pub fn is_concrete(&self) -> bool {
        self.array.is_none() && self.symbolic.iter().all(Option::is_none)
    }

    /// Byte `offset` as an expression or a constant.
    pub fn byte(&self, pool: &ExprPool, offset: usize) -> Value {
        if let Some(array) = self.array {
            let index = pool.constant(INDEX_WIDTH, offset as u128);
            return Value::from_expr(pool, pool.array_read(array, index));
        }
        match self.symbolic.get(offset).copied().flatten() {
            Some(e) => Value::Sym(e),
            None => Value::concrete(8, self.concrete[offset] as u128),
        }
    }

    /// Sets byte `offset` to an 8-bit value.
    pub fn set_byte(&mut self, pool: &ExprPool, offset: usize, value: Value) {
        self.array_cache = OnceLock::new();
        self.written(offset, 1);
        if let Some(array) = self.array {
            let index = pool.constant(INDEX_WIDTH, offset as u128);
            self.array = Some(pool.array_store(array, index, value.to_expr(pool, 8)));
            return;
        }
        match value {
            Value::Con { bits, .. } => {
                self.concrete[offset] = bits as u8;
                if let Some(slot) = self.symbolic.get_mut(offset) {
                    *slot = None;
                }
            }
            Value::Sym(e) => {
                if self.symbolic.is_empty() {
                    self.symbolic = vec![None; self.concrete.len()];
                }
                self.symbolic[offset] = Some(e);
            }
        }
    }

    /// Writes the `count` (≤ 16) low bytes of `bits` at `offset`, little-endian, in one
    /// step; `false` (nothing written) in array mode, where bytes go through the array.
    pub fn write_concrete(&mut self, offset: usize, bits: u128, count: usize) -> bool {
        if self.array.is_some() || count > 16 {
            return false;
        }
        self.array_cache.take();
        self.written(offset, count);
        for (k, byte) in self.concrete[offset..offset + count].iter_mut().enumerate() {
            *byte = (bits >> (8 * k)) as u8;
        }
        if !self.symbolic.is_empty() {
            self.symbolic[offset..offset + count].fill(None);
        }
        true
    }

    /// The little-endian value of `count` (≤ 16) bytes at `offset`, if they are all concrete.
    pub fn concrete_value(&self, offset: usize, count: usize) -> Option<u128> {
        if self.array.is_some() || count > 16 {
            return None;
        }
        if !self.symbolic.is_empty()
            && self.symbolic[offset..offset + count]
                .iter()
                .any(Option::is_some)
        {
            return None;
        }
        Some(
            self.concrete[offset..offset + count]
                .iter()
                .rev()
                .fold(0u128, |acc, &b| (acc << 8) | b as u128),
        )
    }

    /// Reads `count` bytes at a concrete offset, least significant first.
    pub fn read_bytes(&self, pool: &ExprPool, offset: usize, count: usize) -> Vec<Value> {
        (offset..offset + count)
            .map(|i| self.byte(pool, i))
            .collect()
    }

    /// The contents as one array expression (switching to array mode is not needed for this).
    pub fn as_array(&self, pool: &ExprPool) -> ExprId {
        if let Some(array) = self.array {
            return array;
        }
        *self.array_cache.get_or_init(|| self.build_array(pool))
    }

    fn build_array(&self, pool: &ExprPool) -> ExprId {
        let mut array = pool.array_const(0);
        for i in 0..self.concrete.len() {
            let byte = self.byte(pool, i);
            if byte.as_concrete() == Some(0) {
                continue;
            }
            let index = pool.constant(INDEX_WIDTH, i as u128);
            array = pool.array_store(array, index, byte.to_expr(pool, 8));
        }
        array
    }

    /// Reads one byte at a symbolic `index` (already known to be in bounds). An object whose
    /// bytes are all concrete (a lookup table) is read through a multiplexer over the bits of
    /// the index that its structure leaves unknown, when there are at most [`MUX_BITS`] of
    /// them: that bit-blasts far better than an array read over a chain of stores. Which
    /// bits are fixed is [`ExprPool::known_bits`]'s: coreutils' 8 KiB CRC table indexed by
    /// `(crc >> 24 ^ byte) << 2` is a multiplexer of 256 bytes, where the store chain of
    /// 8,192 bytes left a query of `cksum` unanswered after 30 s.
    pub fn read_symbolic(&self, pool: &ExprPool, index: ExprId) -> ExprId {
        let size = self.concrete.len();
        if self.is_concrete() {
            // In bounds, the index has no bit set at or above `bits`.
            let bits = usize::BITS - (size.max(2) - 1).leading_zeros();
            let known = pool.known_bits(index);
            let free: Vec<u32> = (0..bits).filter(|&b| known.mask >> b & 1 == 0).collect();
            if free.len() <= MUX_BITS {
                let base = (known.value & ((1u128 << bits) - 1)) as usize;
                return self.mux(pool, index, &free, base);
            }
        }
        pool.array_read(self.as_array(pool), index)
    }

    /// The byte at `base` with the index's bits `free` (ascending; `base` has them clear)
    /// taken from the index, as a tree of `ite`s on those bits, the highest at the root.
    fn mux(&self, pool: &ExprPool, index: ExprId, free: &[u32], base: usize) -> ExprId {
        let Some((&bit, lower)) = free.split_last() else {
            return pool.constant(8, self.concrete.get(base).copied().unwrap_or(0) as u128);
        };
        let low = self.mux(pool, index, lower, base);
        let high_base = base | 1 << bit;
        if high_base >= self.concrete.len() {
            return low;
        }
        let high = self.mux(pool, index, lower, high_base);
        pool.ite(pool.extract(index, bit, 1), high, low)
    }

    /// Writes one byte at a symbolic `index` (already known to be in bounds).
    pub fn write_symbolic(&mut self, pool: &ExprPool, index: ExprId, value: ExprId) {
        let array = self.as_array(pool);
        self.array_cache = OnceLock::new();
        self.unwritten = Vec::new();
        self.array = Some(pool.array_store(array, index, value));
    }
}

/// Most unknown index bits a read of a concrete object at a symbolic offset multiplexes
/// over (1,024 bytes); with more, the object is read as an array.
const MUX_BITS: usize = 10;

/// Identifies an object within an address space (its base address).
pub type ObjectKey = u64;

/// The objects of one state, in address order. Cloning it for a fork is O(1) whatever the
/// number of objects, and a write after a fork copies little: the objects are kept in
/// chunks of at most [`CHUNK`] entries behind `Arc`s, under a table of the chunks (their
/// lowest addresses and pointers), itself behind an `Arc`. A state that changes one object
/// copies the table, the one chunk that holds the object and the object's contents
/// (if another state shares each); the other chunks stay shared.
#[derive(Debug, Clone, Default)]
pub struct AddressSpace {
    table: Arc<Table>,
    len: usize,
}

/// Most entries a chunk holds; a fuller one is split in two.
const CHUNK: usize = 32;

/// The chunks in address order, none empty, with each one's lowest base address (kept
/// apart from the pointers, so that a search reads few cache lines).
#[derive(Debug, Clone, Default)]
struct Table {
    lows: Vec<u64>,
    chunks: Vec<Arc<Chunk>>,
}

/// Consecutive objects: base addresses (ascending) and, at the same index, identity and
/// contents.
#[derive(Debug, Clone, Default)]
struct Chunk {
    keys: Vec<u64>,
    objects: Vec<(Arc<MemoryObject>, Arc<ObjectState>)>,
}

impl Table {
    /// The chunk that holds (or would hold) the object at `address`: the last one whose
    /// lowest address is at most `address`, or the first.
    #[inline]
    fn chunk_of(&self, address: u64) -> Option<usize> {
        if self.chunks.is_empty() {
            return None;
        }
        Some(at_most(&self.lows, address).saturating_sub(1))
    }

    /// The chunk and index of the entry with the highest base address at most `address`.
    #[inline]
    fn locate(&self, address: u64) -> Option<(usize, usize)> {
        let c = self.chunk_of(address)?;
        let e = at_most(&self.chunks[c].keys, address);
        (e > 0).then_some((c, e - 1))
    }

    /// The chunk and index of the entry with base address `key`.
    #[inline]
    fn locate_exact(&self, key: ObjectKey) -> Option<(usize, usize)> {
        self.locate(key)
            .filter(|&(c, e)| self.chunks[c].keys[e] == key)
    }
}

/// How many of the ascending `keys` are at most `address`. A short list is counted
/// whole, which the compiler vectorizes and which does not wait on one load after another
/// as a binary search does.
#[inline]
fn at_most(keys: &[u64], address: u64) -> usize {
    if keys.len() <= 4 * CHUNK {
        keys.iter().filter(|&&key| key <= address).count()
    } else {
        keys.partition_point(|&key| key <= address)
    }
}

impl AddressSpace {
    pub fn insert(&mut self, object: MemoryObject, state: ObjectState) {
        let key = object.address;
        let entry = (Arc::new(object), Arc::new(state));
        let place = self.table.chunk_of(key);
        let table = Arc::make_mut(&mut self.table);
        let Some(c) = place else {
            table.lows.push(key);
            table.chunks.push(Arc::new(Chunk {
                keys: vec![key],
                objects: vec![entry],
            }));
            self.len += 1;
            return;
        };
        let chunk = Arc::make_mut(&mut table.chunks[c]);
        let at = chunk.keys.partition_point(|base| *base < key);
        if chunk.keys.get(at) == Some(&key) {
            chunk.objects[at] = entry;
            return;
        }
        chunk.keys.insert(at, key);
        chunk.objects.insert(at, entry);
        table.lows[c] = chunk.keys[0];
        self.len += 1;
        if chunk.keys.len() > CHUNK {
            let upper = Chunk {
                keys: chunk.keys.split_off(CHUNK / 2),
                objects: chunk.objects.split_off(CHUNK / 2),
            };
            table.lows.insert(c + 1, upper.keys[0]);
            table.chunks.insert(c + 1, Arc::new(upper));
        }
    }

    pub fn remove(&mut self, key: ObjectKey) -> Option<Arc<MemoryObject>> {
        let (c, e) = self.table.locate_exact(key)?;
        let table = Arc::make_mut(&mut self.table);
        let chunk = Arc::make_mut(&mut table.chunks[c]);
        chunk.keys.remove(e);
        let (object, _) = chunk.objects.remove(e);
        match chunk.keys.first() {
            Some(low) => table.lows[c] = *low,
            None => {
                table.lows.remove(c);
                table.chunks.remove(c);
            }
        }
        self.len -= 1;
        Some(object)
    }

    /// Grows the object at `key` to `size` bytes, appending `bytes` (a parameter's buffer:
    /// [`Growth`]; the space after it is free, [`PARAMETER_GAP`]).
    pub fn grow(&mut self, pool: &ExprPool, key: ObjectKey, bytes: &[Value]) {
        let Some((c, e)) = self.table.locate_exact(key) else {
            return;
        };
        let table = Arc::make_mut(&mut self.table);
        let chunk = Arc::make_mut(&mut table.chunks[c]);
        let (object, contents) = &mut chunk.objects[e];
        let mut grown = (**object).clone();
        grown.size += bytes.len() as u64;
        *object = Arc::new(grown);
        Arc::make_mut(contents).extend(pool, bytes);
    }

    /// Lets the parameter's buffer at `key` grow on demand ([`Growth`]).
    pub fn set_growth(&mut self, key: ObjectKey, growth: Growth) {
        let Some((c, e)) = self.table.locate_exact(key) else {
            return;
        };
        let table = Arc::make_mut(&mut self.table);
        let chunk = Arc::make_mut(&mut table.chunks[c]);
        let object = &mut chunk.objects[e].0;
        let mut with = (**object).clone();
        with.growth = Some(growth);
        *object = Arc::new(with);
    }

    /// The object with the highest base address at most `address`, whether or not it
    /// contains it.
    pub fn find_before(&self, address: u64) -> Option<&Arc<MemoryObject>> {
        let (c, e) = self.table.locate(address)?;
        Some(&self.table.chunks[c].objects[e].0)
    }

    /// The object containing the concrete `address`, if any.
    #[inline]
    pub fn find(&self, address: u64) -> Option<(&Arc<MemoryObject>, &Arc<ObjectState>)> {
        let (c, e) = self.table.locate(address)?;
        let (object, state) = &self.table.chunks[c].objects[e];
        object.contains(address).then_some((object, state))
    }

    #[inline]
    pub fn get(&self, key: ObjectKey) -> Option<(&Arc<MemoryObject>, &Arc<ObjectState>)> {
        let (c, e) = self.table.locate_exact(key)?;
        let (object, state) = &self.table.chunks[c].objects[e];
        Some((object, state))
    }

    /// Contents of the object at `key` for writing (copied first if shared with another
    /// state, and so are the chunk that holds it and the table of chunks).
    #[inline]
    pub fn get_mut(&mut self, key: ObjectKey) -> Option<&mut ObjectState> {
        let (c, e) = self.table.locate_exact(key)?;
        let chunk = Arc::make_mut(&mut Arc::make_mut(&mut self.table).chunks[c]);
        Some(Arc::make_mut(&mut chunk.objects[e].1))
    }

    /// Every object, in address order.
    /// The parameter's buffer at `base`, if the object there is one.
    pub fn parameter_at(&self, base: u64) -> Option<Arc<MemoryObject>> {
        let (o, _) = self.find(base)?;
        (o.kind == ObjectKind::Parameter).then(|| o.clone())
    }

    /// Why an access of `bytes` bytes at `address`, which fits no object, is a gap of the
    /// model ([`MemoryObject::outside`]): it lies past the end of a parameter's buffer, or
    /// before its start, by at most [`PARAMETER_GAP`]. `None` for other addresses.
    pub fn parameter_gap(&self, address: u64, bytes: u64) -> Option<String> {
        self.objects()
            .map(|(o, _)| o)
            .filter(|o| o.kind == ObjectKind::Parameter)
            .find_map(|o| {
                let end = o.address + o.size;
                if address >= o.address && address < end + PARAMETER_GAP && address + bytes > end {
                    Some(o.outside(false))
                } else if address < o.address && o.address - address <= PARAMETER_GAP {
                    Some(o.outside(true))
                } else {
                    None
                }
            })
    }

    pub fn objects(&self) -> impl Iterator<Item = (&Arc<MemoryObject>, &Arc<ObjectState>)> {
        self.table
            .chunks
            .iter()
            .flat_map(|chunk| chunk.objects.iter().map(|(o, s)| (o, s)))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Hands out addresses for objects created while running, above the globals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocator {
    next: u64,
}

/// Unused bytes left after every object, so that small overruns land outside any object.
pub const RED_ZONE: u64 = 64;

/// Unused bytes left before and after a parameter's buffer ([`ObjectKind::Parameter`]): an
/// access up to 64 KiB past either end is known to be that parameter's.
pub const PARAMETER_GAP: u64 = 64 << 10;

impl Allocator {
    pub fn new(start: u64) -> Self {
        Allocator {
            next: start.div_ceil(16) * 16,
        }
    }

    /// Makes the next object start at a multiple of `align` (a power of two).
    pub fn align_to(&mut self, align: u64) {
        self.next = self.next.div_ceil(align) * align;
    }

    /// The address the next object gets, unless it asks for a larger alignment.
    pub fn next_address(&self) -> u64 {
        self.next
    }

    pub fn allocate(&mut self, size: u64) -> u64 {
        let address = self.next;
        self.next = (address + size.max(1) + RED_ZONE).div_ceil(16) * 16;
        address
    }

    /// Allocates `size` bytes with `gap` unused bytes before and after them.
    pub fn allocate_apart(&mut self, size: u64, gap: u64) -> u64 {
        self.next = (self.next + gap).div_ceil(16) * 16;
        let address = self.next;
        self.next = (address + size.max(1) + gap).div_ceil(16) * 16;
        address
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;
    use std::collections::BTreeMap;

    /// The runs of never-written bytes, against the byte-by-byte answer, across word
    /// boundaries, at the object's end, and over the cap.
    #[test]
    fn unwritten_runs_are_the_never_written_bytes() {
        let mut o = ObjectState::zeroed(300);
        o.set_uninitialised();
        assert_eq!(o.unwritten_runs(4), Some(vec![(0, 300)]));
        for (at, count) in [
            (0, 4),
            (60, 10),
            (128, 16),
            (144, 16),
            (160, 16),
            (176, 16),
            (299, 1),
        ] {
            assert!(o.write_concrete(at, 0, count));
        }
        let runs = o.unwritten_runs(8).unwrap();
        assert_eq!(runs, vec![(4, 60), (70, 128), (192, 299)]);
        for p in 0..300 {
            let inside = runs.iter().any(|&(s, e)| s <= p && p < e);
            assert_eq!(inside, o.unwritten(p), "byte {p}");
        }
        assert_eq!(o.unwritten_runs(2), None);
        let mut striped = ObjectState::zeroed(64);
        striped.set_uninitialised();
        for at in (0..64).step_by(2) {
            striped.write_concrete(at, 0, 1);
        }
        assert_eq!(striped.unwritten_runs(32).map(|r| r.len()), Some(32));
        assert_eq!(striped.unwritten_runs(31), None);
    }

    #[test]
    fn parameter_buffers_lie_a_gap_apart_from_every_object() {
        let mut alloc = Allocator::new(0x1000);
        let before = alloc.allocate(8);
        let param = alloc.allocate_apart(16, PARAMETER_GAP);
        let after = alloc.allocate(8);
        assert!(param >= before + 8 + PARAMETER_GAP);
        assert!(after >= param + 16 + PARAMETER_GAP);
        assert_eq!(param % 16, 0);
    }

    #[test]
    fn table_reads_at_symbolic_offsets_give_every_byte() {
        let pool = ExprPool::new();
        let table: Vec<u8> = (0..13u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
        let object = ObjectState::from_bytes(table.clone());
        let i = pool.new_array("i", 4);
        let bytes: Vec<ExprId> = (0..4).map(|k| pool.sym(i, k)).collect();
        let index = pool.concat_bytes(&bytes);
        let read = object.read_symbolic(&pool, index);
        for (k, expected) in table.iter().enumerate() {
            let mut a = Assignment::new();
            a.set(i, (k as u32).to_le_bytes().to_vec());
            assert_eq!(pool.eval(read, &a), *expected as u128, "byte {k}");
        }
    }

    // See: #13, the KLEE paper's crosscheck: coreutils `cksum` reads an 8 KiB table at
    // `(crc >> 24 ^ byte) << 2`; as an array read its queries went unanswered.
    #[test]
    fn a_large_table_read_at_an_index_of_few_unknown_bits_is_a_multiplexer() {
        let pool = ExprPool::new();
        let table: Vec<u8> = (0..8192u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let object = ObjectState::from_bytes(table.clone());
        let b = pool.new_array("b", 1);
        let x = pool.xor(
            pool.zext(pool.sym(b, 0), INDEX_WIDTH),
            pool.constant(INDEX_WIDTH, 8),
        );
        let row = pool.constant(INDEX_WIDTH, 5 * 1024 + 3);
        let index = pool.add(pool.shl(x, pool.constant(INDEX_WIDTH, 2)), row);
        let read = object.read_symbolic(&pool, index);
        assert!(
            !matches!(pool.node(read), crate::expr::Node::ArrayRead { .. }),
            "read as an array"
        );
        for v in 0..=255u32 {
            let mut a = Assignment::new();
            a.set(b, vec![v as u8]);
            let at = (((v ^ 8) << 2) + 5 * 1024 + 3) as usize;
            assert_eq!(pool.eval(read, &a), table[at] as u128, "byte {v}");
        }
        // An index of 13 unknown bits still reads the array.
        let i = pool.new_array("i", 2);
        let wide = pool.zext(pool.concat(pool.sym(i, 1), pool.sym(i, 0)), INDEX_WIDTH);
        let any = pool.and(wide, pool.constant(INDEX_WIDTH, 8191));
        let read = object.read_symbolic(&pool, any);
        assert!(matches!(
            pool.node(read),
            crate::expr::Node::ArrayRead { .. }
        ));
    }

    fn object(address: u64, size: u64) -> MemoryObject {
        MemoryObject {
            address,
            size,
            kind: ObjectKind::Heap,
            name: format!("object at {address}"),
            read_only: false,
            growth: None,
        }
    }

    /// The chunked address space answers as an ordered map of the same objects would, through
    /// inserts (in and out of address order), removals, lookups and writes, and a clone
    /// taken before the changes keeps what it had.
    #[test]
    fn address_space_agrees_with_an_ordered_map() {
        let pool = ExprPool::new();
        let mut space = AddressSpace::default();
        // Base address → the byte at offset 3 of the object (every object has 8 bytes).
        let mut model: BTreeMap<u64, u8> = BTreeMap::new();
        let mut snapshots: Vec<(AddressSpace, BTreeMap<u64, u8>)> = Vec::new();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for step in 0..4000u64 {
            // Objects of 8 bytes on a grid of 16, so that some addresses fall between them.
            let address = 16 * next(400);
            match next(8) {
                0..=3 => {
                    let fill = step as u8;
                    space.insert(object(address, 8), ObjectState::from_bytes(vec![fill; 8]));
                    model.insert(address, fill);
                }
                4 | 5 => {
                    let removed = space.remove(address).map(|o| o.address);
                    assert_eq!(removed, model.remove(&address).map(|_| address));
                }
                6 => {
                    let fill = !(step as u8);
                    let written = space.get_mut(address).map(|s| {
                        s.set_byte(&pool, 3, Value::concrete(8, fill as u128));
                    });
                    let expected = model.get_mut(&address).map(|m| *m = fill);
                    assert_eq!(written.is_some(), expected.is_some());
                }
                _ => snapshots.push((space.clone(), model.clone())),
            }
            let probe = next(16 * 401);
            let found = space.find(probe).map(|(o, _)| o.address);
            let expected = model
                .range(..=probe)
                .next_back()
                .filter(|(base, _)| probe - **base < 8)
                .map(|(base, _)| *base);
            assert_eq!(found, expected, "find({probe}) at step {step}");
        }
        snapshots.push((space, model));
        for (space, model) in &snapshots {
            assert_eq!(space.len(), model.len());
            let got: Vec<(u64, u128)> = space
                .objects()
                .map(|(o, s)| (o.address, s.byte(&pool, 3).as_concrete().unwrap()))
                .collect();
            let want: Vec<(u64, u128)> = model.iter().map(|(a, m)| (*a, *m as u128)).collect();
            assert_eq!(got, want);
            for address in model.keys() {
                assert!(space.get(*address).is_some());
                assert!(space.get(address + 1).is_none());
            }
        }
    }
}
