//! Fuzzing the `.ktest` reader with a counting allocator: random truncations, bit flips and
//! huge length fields of a valid test never panic, and no single allocation is more than a
//! small multiple of the file's size (a field claiming 4 GB is refused before anything is
//! allocated for it).
//!
//! This test binary has its own global allocator, so it is a file of its own.

use crate::common::Rng;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use xcheck::ktest::{KTest, KTestObject};

/// The system allocator, remembering the largest single request made by a thread that is
/// measuring (the test harness's other threads allocate too, at the same time).
struct Counting;

thread_local! {
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    if MEASURING.try_with(|m| m.get()).unwrap_or(false) {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    }
}

// SAFETY: every call is passed on to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn valid_test() -> Vec<u8> {
    KTest {
        args: vec!["prog".into(), "--sym-arg".into(), "3".into()],
        sym_argvs: 1,
        sym_argv_len: 3,
        objects: vec![
            KTestObject {
                name: "arg00".into(),
                bytes: b"ab\0".to_vec(),
            },
            KTestObject {
                name: "stdin".into(),
                bytes: vec![7; 40],
            },
            KTestObject {
                name: "model_version".into(),
                bytes: 1u32.to_le_bytes().to_vec(),
            },
        ],
    }
    .to_bytes()
}

/// Parses `data` and returns whether it parsed and the largest allocation made meanwhile.
fn parse(data: &[u8]) -> (bool, usize) {
    LARGEST.with(|l| l.set(0));
    MEASURING.with(|m| m.set(true));
    let parsed = std::panic::catch_unwind(|| KTest::from_bytes(data).is_ok());
    MEASURING.with(|m| m.set(false));
    let largest = LARGEST.with(|l| l.get());
    match parsed {
        Ok(ok) => (ok, largest),
        Err(_) => panic!("the reader panicked on {data:02x?}"),
    }
}

/// The largest allocation the reader may make for `len` bytes of input: the argument and
/// object vectors hold at most one 24- or 48-byte entry per 4 or 8 bytes left, plus room for
/// an error message.
fn allowed(len: usize) -> usize {
    8 * len + 1024
}

#[test]
fn mutated_tests_never_panic_nor_allocate_more_than_their_size() {
    let valid = valid_test();
    assert!(parse(&valid).0, "the valid test parses");
    let mut rng = Rng(0x006b_7465_7374);
    let (mut parsed, mut refused) = (0, 0);
    for case in 0..20_000 {
        let mut data = valid.clone();
        match case % 4 {
            0 => data.truncate(rng.below(data.len())),
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let bit = rng.below(data.len() * 8);
                    data[bit / 8] ^= 1 << (bit % 8);
                }
            }
            2 => {
                // A length or count field (any aligned word) claiming up to 4 GB.
                let at = 5 + 4 * rng.below((data.len() - 9) / 4);
                let huge = [u32::MAX, 0x8000_0000, 0x1000_0000, rng.next() as u32];
                data[at..at + 4].copy_from_slice(&huge[rng.below(4)].to_be_bytes());
            }
            _ => {
                let at = rng.below(data.len());
                data[at] = rng.next() as u8;
                data.truncate(at + rng.below(data.len() - at) + 1);
            }
        }
        let (ok, largest) = parse(&data);
        if ok {
            parsed += 1;
        } else {
            refused += 1;
        }
        assert!(
            largest <= allowed(data.len()),
            "case {case}: an allocation of {largest} bytes for a {}-byte file",
            data.len()
        );
    }
    // Both outcomes happen, so the loop tests something either way.
    assert!(
        parsed > 100 && refused > 100,
        "{parsed} parsed, {refused} refused"
    );
}

#[test]
fn a_four_gigabyte_object_is_refused_without_allocating_it() {
    let mut data = valid_test();
    // The last object's size field: 4 bytes before its 4 data bytes.
    let at = data.len() - 8;
    data[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    let (ok, largest) = parse(&data);
    assert!(!ok);
    assert!(largest <= allowed(data.len()), "{largest}");
    let err = KTest::from_bytes(&data).unwrap_err().to_string();
    assert!(
        err.contains("object 2 data needs 4294967295 bytes"),
        "{err}"
    );
}
