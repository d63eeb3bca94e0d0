//! Memory: objects with an identity ([`MemoryObject`]) and per-state contents
//! ([`ObjectState`]), shared copy-on-write between forked states.
//!
//! Every object has a concrete base address; a pointer is a 64-bit value, concrete or
//! symbolic. Contents are bytes: concrete bytes are kept as plain `u8`, symbolic ones as
//! 8-bit expressions. When an object is written at a symbolic offset it switches to
//! *array mode*: its contents become one array expression (a store chain), so that later
//! reads at symbolic offsets are single `read` expressions rather than case splits.

use crate::exec::value::Value;
use crate::expr::{ExprId, ExprPool, INDEX_WIDTH};
use std::collections::BTreeMap;
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Global,
    Stack,
    Heap,
    /// A buffer made for a pointer parameter or by `klee_make_symbolic`.
    Input,
}

impl MemoryObject {
    /// Whether `address` lies inside this object.
    pub fn contains(&self, address: u64) -> bool {
        address >= self.address && address - self.address < self.size.max(1)
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
        }
    }

    pub fn size(&self) -> usize {
        self.concrete.len()
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

    /// Reads one byte at a symbolic `index` (already known to be in bounds). Small objects
    /// whose bytes are all concrete (lookup tables) become a multiplexer over the index bits,
    /// which bit-blasts better than an array read over a chain of stores.
    pub fn read_symbolic(&self, pool: &ExprPool, index: ExprId) -> ExprId {
        let size = self.concrete.len();
        if size <= MUX_LIMIT && self.is_concrete() {
            let bits = usize::BITS - (size.max(2) - 1).leading_zeros();
            return self.mux(pool, index, bits, 0);
        }
        pool.array_read(self.as_array(pool), index)
    }

    /// The byte at `base + (index's low `bits` bits)`, as a tree of `ite`s on those bits.
    fn mux(&self, pool: &ExprPool, index: ExprId, bits: u32, base: usize) -> ExprId {
        if bits == 0 {
            return pool.constant(8, self.concrete.get(base).copied().unwrap_or(0) as u128);
        }
        let half = 1usize << (bits - 1);
        let low = self.mux(pool, index, bits - 1, base);
        if base + half >= self.concrete.len() {
            return low;
        }
        let high = self.mux(pool, index, bits - 1, base + half);
        pool.ite(pool.extract(index, bits - 1, 1), high, low)
    }

    /// Writes one byte at a symbolic `index` (already known to be in bounds).
    pub fn write_symbolic(&mut self, pool: &ExprPool, index: ExprId, value: ExprId) {
        let array = self.as_array(pool);
        self.array_cache = OnceLock::new();
        self.array = Some(pool.array_store(array, index, value));
    }
}

/// Concrete objects up to this size are read at symbolic offsets through a multiplexer.
const MUX_LIMIT: usize = 1024;

/// Identifies an object within an address space (its base address).
pub type ObjectKey = u64;

/// The objects of one state. Cloning it for a fork is O(1) whatever the number of objects:
/// the map is shared until one side changes it (then its table of pointers is copied, not
/// the objects), and each object's contents are shared until one side writes them.
#[derive(Debug, Clone, Default)]
pub struct AddressSpace {
    objects: Arc<ObjectMap>,
}

/// Objects by base address: identity and contents.
type ObjectMap = BTreeMap<u64, (Arc<MemoryObject>, Arc<ObjectState>)>;

impl AddressSpace {
    pub fn insert(&mut self, object: MemoryObject, state: ObjectState) {
        Arc::make_mut(&mut self.objects)
            .insert(object.address, (Arc::new(object), Arc::new(state)));
    }

    pub fn remove(&mut self, key: ObjectKey) -> Option<Arc<MemoryObject>> {
        Arc::make_mut(&mut self.objects)
            .remove(&key)
            .map(|(o, _)| o)
    }

    /// The object containing the concrete `address`, if any.
    pub fn find(&self, address: u64) -> Option<(&Arc<MemoryObject>, &Arc<ObjectState>)> {
        let (_, (object, state)) = self.objects.range(..=address).next_back()?;
        object.contains(address).then_some((object, state))
    }

    pub fn get(&self, key: ObjectKey) -> Option<(&Arc<MemoryObject>, &Arc<ObjectState>)> {
        self.objects.get(&key).map(|(o, s)| (o, s))
    }

    /// Contents of the object at `key` for writing (copied first if shared with another state).
    pub fn get_mut(&mut self, key: ObjectKey) -> Option<&mut ObjectState> {
        Arc::make_mut(&mut self.objects)
            .get_mut(&key)
            .map(|(_, s)| Arc::make_mut(s))
    }

    pub fn objects(&self) -> impl Iterator<Item = (&Arc<MemoryObject>, &Arc<ObjectState>)> {
        self.objects.values().map(|(o, s)| (o, s))
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// Hands out addresses for objects created while running, above the globals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allocator {
    next: u64,
}

/// Unused bytes left after every object, so that small overruns land outside any object.
pub const RED_ZONE: u64 = 64;

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

    pub fn allocate(&mut self, size: u64) -> u64 {
        let address = self.next;
        self.next = (address + size.max(1) + RED_ZONE).div_ceil(16) * 16;
        address
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Assignment;

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
}
