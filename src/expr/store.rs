//! The expression pool's storage: nodes in fixed-size chunks that never move, so that
//! reading a node takes no lock, and the hash-consing table split into shards, so that
//! workers building expressions on several threads rarely wait for each other.
//!
//! Safety argument. A slot is written exactly once, before its id is returned by
//! [`NodeStore::intern`] and before the id is entered into its shard's table (under that
//! shard's lock). Any thread that holds an id got it from `intern` itself, from the shard
//! table (under the lock, which orders it after the write), or from another thread through
//! some synchronisation (the work pool's mutex, a thread join). Chunk pointers are
//! published with `Release` and read with `Acquire`; a chunk is allocated once and freed
//! only when the store is dropped.

use super::{ExprId, Node, Sort};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Mutex;

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;
/// Chunks a store may hold: 2^16 × 2^12 = 2^28 nodes.
const MAX_CHUNKS: usize = 1 << 16;
const SHARDS: usize = 16;

type Slot = MaybeUninit<(Node, Sort)>;

pub(super) struct NodeStore {
    chunks: Box<[AtomicPtr<Slot>]>,
    len: AtomicU32,
    shards: Vec<Mutex<FxHashMap<Node, ExprId>>>,
}

impl Default for NodeStore {
    fn default() -> Self {
        NodeStore {
            chunks: (0..MAX_CHUNKS)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            len: AtomicU32::new(0),
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
        }
    }
}

impl NodeStore {
    /// Number of nodes stored.
    pub(super) fn len(&self) -> usize {
        self.len.load(Ordering::Acquire) as usize
    }

    /// The node and sort of `id`, which must come from this store.
    pub(super) fn get(&self, id: ExprId) -> (Node, Sort) {
        let i = id.index();
        let chunk = self.chunks[i >> CHUNK_BITS].load(Ordering::Acquire);
        assert!(!chunk.is_null(), "expression id {i} is not from this pool");
        // SAFETY: see the module comment: the slot of an id held by anyone was written
        // before the id was published, and its chunk is alive as long as `self`.
        unsafe { (*chunk.add(i & (CHUNK - 1))).assume_init() }
    }

    /// The id of `node`, adding it (with `sort`) if it is new.
    pub(super) fn intern(&self, node: Node, sort: Sort) -> ExprId {
        let mut h = FxHasher::default();
        node.hash(&mut h);
        let shard = &self.shards[(h.finish() as usize >> 7) % SHARDS];
        let mut table = shard.lock().expect("expression pool shard");
        if let Some(&id) = table.get(&node) {
            return id;
        }
        let index = self.len.fetch_add(1, Ordering::AcqRel) as usize;
        assert!(
            index < MAX_CHUNKS * CHUNK,
            "more than 2^28 expressions in one pool"
        );
        let chunk = self.chunk(index >> CHUNK_BITS);
        // SAFETY: `index` was handed out once by `fetch_add`, so no other thread writes
        // this slot, and no reader knows its id yet.
        unsafe {
            chunk
                .add(index & (CHUNK - 1))
                .write(MaybeUninit::new((node, sort)))
        };
        let id = ExprId(index as u32);
        table.insert(node, id);
        id
    }

    /// Chunk `c`, allocated by whichever thread needs it first.
    fn chunk(&self, c: usize) -> *mut Slot {
        let current = self.chunks[c].load(Ordering::Acquire);
        if !current.is_null() {
            return current;
        }
        let fresh: Box<[Slot]> = (0..CHUNK).map(|_| MaybeUninit::uninit()).collect();
        let fresh = Box::into_raw(fresh) as *mut Slot;
        match self.chunks[c].compare_exchange(
            std::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => fresh,
            Err(theirs) => {
                // SAFETY: `fresh` was never published; it is freed as it was allocated.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(fresh, CHUNK)) });
                theirs
            }
        }
    }
}

impl Drop for NodeStore {
    fn drop(&mut self) {
        for c in self.chunks.iter() {
            let p = c.load(Ordering::Acquire);
            if !p.is_null() {
                // SAFETY: allocated in `chunk` as a boxed slice of CHUNK slots; the slots
                // hold `Copy` data, so nothing needs dropping but the memory.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, CHUNK)) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_nodes_get_one_id_across_threads() {
        let store = NodeStore::default();
        let ids: Vec<Vec<ExprId>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..10_000u128)
                            .map(|v| {
                                store.intern(
                                    Node::Const {
                                        value: v,
                                        width: 64,
                                    },
                                    Sort::Bv(64),
                                )
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.windows(2).all(|w| w[0] == w[1]));
        assert_eq!(store.len(), 10_000);
        for (v, id) in ids[0].iter().enumerate() {
            assert_eq!(
                store.get(*id).0,
                Node::Const {
                    value: v as u128,
                    width: 64
                }
            );
        }
    }
}
