//! Tests of the `.ktest` reader and writer against hand-built bytes, truncations and corruption.

use expect_test::expect;
use proptest::prelude::*;
use xcheck::ktest::{test_file_name, FormatError, KTest, KTestError, KTestObject};

/// The fixture in `tests/data/ktest/`, built by hand; see the README there.
const FIXTURE: &[u8] = include_bytes!("../data/ktest/one_object.ktest");

/// The bytes KLEE writes for `klee test.bc` with one 4-byte object `a` holding 42.
#[rustfmt::skip]
const EXPECTED: &[u8] = &[
    b'K', b'T', b'E', b'S', b'T', // Offset 0: the magic.
    0, 0, 0, 3,                   // Offset 5: version 3, big-endian like every integer.
    0, 0, 0, 1,                   // Offset 9: numArgs is 1.
    0, 0, 0, 7,                   // Offset 13: argument 0 is 7 bytes long.
    b't', b'e', b's', b't', b'.', b'b', b'c', // Offset 17: argument 0 is "test.bc".
    0, 0, 0, 0,                   // Offset 24: symArgvs is 0 (version 2 and later).
    0, 0, 0, 0,                   // Offset 28: symArgvLen is 0 (version 2 and later).
    0, 0, 0, 1,                   // Offset 32: numObjects is 1.
    0, 0, 0, 1,                   // Offset 36: object 0's name is 1 byte long.
    b'a',                         // Offset 40: object 0's name is "a".
    0, 0, 0, 4,                   // Offset 41: object 0 is 4 bytes long.
    42, 0, 0, 0,                  // Offset 45: object 0 holds 42 as a little-endian int.
];

fn fixture_test() -> KTest {
    KTest {
        args: vec!["test.bc".to_string()],
        sym_argvs: 0,
        sym_argv_len: 0,
        objects: vec![KTestObject {
            name: "a".to_string(),
            bytes: vec![42, 0, 0, 0],
        }],
    }
}

fn format_error(data: &[u8]) -> FormatError {
    match KTest::from_bytes(data) {
        Err(e) => match e.format_error() {
            Some(kind) => kind.clone(),
            None => panic!("not a format error: {e}"),
        },
        Ok(t) => panic!("parsed unexpectedly: {t:?}"),
    }
}

/// Overwrites the big-endian `u32` at `offset`.
fn with_u32(data: &[u8], offset: usize, value: u32) -> Vec<u8> {
    let mut v = data.to_vec();
    v[offset..offset + 4].copy_from_slice(&value.to_be_bytes());
    v
}

#[test]
fn fixture_matches_the_annotated_bytes() {
    assert_eq!(FIXTURE, EXPECTED);
    assert_eq!(FIXTURE.len(), 49);
}

#[test]
fn writer_produces_the_fixture_byte_for_byte() {
    assert_eq!(fixture_test().to_bytes(), FIXTURE);
    assert_eq!(fixture_test().try_to_bytes().unwrap(), FIXTURE);
}

#[test]
fn reader_parses_the_fixture() {
    assert_eq!(KTest::from_bytes(FIXTURE).unwrap(), fixture_test());
}

#[test]
fn show_prints_the_fixture() {
    expect![[r#"
        ktest file : 'one_object.ktest'
        args       : ['test.bc']
        num objects: 1
        object 0: name: 'a'
        object 0: size: 4
        object 0: data: b'*\x00\x00\x00'
        object 0: hex : 0x2a000000
        object 0: int : 42
        object 0: uint: 42
        object 0: text: *...
    "#]]
    .assert_eq(&fixture_test().show("one_object.ktest"));
}

#[test]
fn old_versions_and_magic_are_read() {
    // Version 2 with the old magic: the same layout.
    let mut v2 = EXPECTED.to_vec();
    v2[..5].copy_from_slice(b"BOUT\n");
    v2[8] = 2;
    assert_eq!(KTest::from_bytes(&v2).unwrap(), fixture_test());
    // Version 1 has no symArgvs and symArgvLen: drop offsets 24 to 31.
    let mut v1 = EXPECTED.to_vec();
    v1[8] = 1;
    v1.drain(24..32);
    assert_eq!(KTest::from_bytes(&v1).unwrap(), fixture_test());
}

#[test]
fn sym_argv_fields_round_trip() {
    let t = KTest {
        sym_argvs: 3,
        sym_argv_len: 0x0102_0304,
        ..fixture_test()
    };
    let bytes = t.to_bytes();
    assert_eq!(&bytes[24..32], &[0, 0, 0, 3, 1, 2, 3, 4]);
    assert_eq!(KTest::from_bytes(&bytes).unwrap(), t);
}

#[test]
fn every_truncation_is_an_error() {
    for len in 0..FIXTURE.len() {
        let err = KTest::from_bytes(&FIXTURE[..len]).unwrap_err();
        assert!(
            matches!(err.format_error(), Some(FormatError::Truncated { .. })),
            "prefix of {len} bytes: {err}"
        );
    }
}

#[test]
fn truncation_messages_name_the_field() {
    let cases = [
        (3, "truncated: magic needs 5 bytes, 3 left (at byte 0)"),
        (7, "truncated: version needs 4 bytes, 2 left (at byte 5)"),
        (
            20,
            "truncated: argument 0 needs 7 bytes, 3 left (at byte 17)",
        ),
        (
            30,
            "truncated: symArgvLen needs 4 bytes, 2 left (at byte 28)",
        ),
        (
            38,
            "truncated: object 0 name length needs 4 bytes, 2 left (at byte 36)",
        ),
        (
            47,
            "truncated: object 0 data needs 4 bytes, 2 left (at byte 45)",
        ),
    ];
    for (len, message) in cases {
        let err = KTest::from_bytes(&FIXTURE[..len]).unwrap_err();
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut data = FIXTURE.to_vec();
    data.extend_from_slice(b"xyz");
    assert_eq!(format_error(&data), FormatError::TrailingBytes(3));
}

#[test]
fn bad_magic_is_an_error() {
    for bad in [&b"KTESU"[..], b"ktest", b"\x7fELF\x02", b"XX", b""] {
        let mut data = FIXTURE.to_vec();
        data.splice(..5, bad.iter().copied());
        assert!(
            matches!(format_error(&data), FormatError::BadMagic(_)),
            "{bad:?}"
        );
    }
    assert!(matches!(format_error(b"XX"), FormatError::BadMagic(_)));
    // A prefix of a magic is a truncated file, not a wrong one.
    assert!(matches!(
        format_error(b"KTE"),
        FormatError::Truncated { .. }
    ));
}

#[test]
fn unsupported_versions_are_errors() {
    for version in [0, 4, 7, u32::MAX] {
        let data = with_u32(FIXTURE, 5, version);
        assert_eq!(
            format_error(&data),
            FormatError::UnsupportedVersion(version)
        );
    }
    let err = KTest::from_bytes(&with_u32(FIXTURE, 5, 7)).unwrap_err();
    assert_eq!(err.to_string(), "unsupported version 7 (at byte 5)");
}

#[test]
fn huge_length_fields_are_errors_without_huge_allocations() {
    // numArgs, argument length, numObjects, name length and object size in turn.
    for offset in [9, 13, 32, 36, 41] {
        for value in [u32::MAX, 0x8000_0000, 1 << 24] {
            let data = with_u32(FIXTURE, offset, value);
            assert!(
                matches!(format_error(&data), FormatError::Truncated { .. }),
                "offset {offset}, value {value:#x}"
            );
        }
    }
    let err = KTest::from_bytes(&with_u32(FIXTURE, 41, u32::MAX)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "truncated: object 0 data needs 4294967295 bytes, 4 left (at byte 45)"
    );
}

#[test]
fn read_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ktest");
    std::fs::write(&path, &FIXTURE[..47]).unwrap();
    let err = KTest::read(&path).unwrap_err();
    assert!(matches!(err, KTestError::Format { .. }));
    assert_eq!(
        err.to_string(),
        format!(
            "{}: truncated: object 0 data needs 4 bytes, 2 left (at byte 45)",
            path.display()
        )
    );
    let missing = dir.path().join("missing.ktest");
    let err = KTest::read(&missing).unwrap_err();
    assert!(matches!(err, KTestError::Io { .. }));
    assert!(err.to_string().starts_with(&missing.display().to_string()));
}

#[test]
fn write_then_read_round_trips_and_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(test_file_name(1));
    fixture_test().write(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), FIXTURE);
    // Writing again replaces the file.
    let other = KTest {
        args: vec![],
        ..fixture_test()
    };
    other.write(&path).unwrap();
    assert_eq!(KTest::read(&path).unwrap(), other);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["test000001.ktest"]);
}

#[test]
fn write_into_a_missing_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such-dir").join("t.ktest");
    let err = fixture_test().write(&path).unwrap_err();
    assert!(matches!(err, KTestError::Io { .. }), "{err}");
}

fn arb_ktest() -> impl Strategy<Value = KTest> {
    let object = (".{0,8}", prop::collection::vec(any::<u8>(), 0..40))
        .prop_map(|(name, bytes)| KTestObject { name, bytes });
    (
        prop::collection::vec(".{0,12}", 0..4),
        any::<u32>(),
        any::<u32>(),
        prop::collection::vec(object, 0..6),
    )
        .prop_map(|(args, sym_argvs, sym_argv_len, objects)| KTest {
            args,
            sym_argvs,
            sym_argv_len,
            objects,
        })
}

proptest! {
    #[test]
    fn round_trip(t in arb_ktest()) {
        let bytes = t.to_bytes();
        prop_assert_eq!(&bytes[..5], b"KTEST");
        prop_assert_eq!(KTest::from_bytes(&bytes).unwrap(), t);
    }

    #[test]
    fn truncations_of_any_valid_file_are_errors(t in arb_ktest(), cut in any::<prop::sample::Index>()) {
        let bytes = t.to_bytes();
        let len = cut.index(bytes.len());
        prop_assert!(KTest::from_bytes(&bytes[..len]).is_err());
    }

    #[test]
    fn corrupted_files_never_panic(t in arb_ktest(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let mut bytes = t.to_bytes();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        // Any result is fine; the call must return.
        let _ = KTest::from_bytes(&bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = KTest::from_bytes(&data);
        let mut with_magic = b"KTEST\0\0\0\x03".to_vec();
        with_magic.extend_from_slice(&data);
        let _ = KTest::from_bytes(&with_magic);
    }
}
