//! Reading and writing KLEE's `.ktest` files, so counterexamples replay with KLEE's tools.
//!
//! The format (version 3, every integer a big-endian `u32`):
//!
//! ```text
//! magic        "KTEST" (5 bytes; old files have "BOUT\n")
//! version      u32, 1 to 3
//! numArgs      u32, then numArgs times: len u32, len bytes
//! symArgvs     u32      (only when version >= 2)
//! symArgvLen   u32      (only when version >= 2)
//! numObjects   u32, then numObjects times: nameLen u32, name bytes, size u32, size bytes
//! ```
//!
//! The reader checks every length against the bytes that are left before it allocates, so a
//! corrupt or hostile file gives an error that names the field, never a panic or a huge
//! allocation. Bytes after the last object are an error too. The writer always writes
//! version 3, and [`KTest::write`] replaces the target file atomically.
//!
//! Argument and object names are text in this API; bytes that are not UTF-8 are replaced with
//! U+FFFD when a file is read.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// The magic bytes of a current `.ktest` file.
pub const KTEST_MAGIC: &[u8; 5] = b"KTEST";

/// The magic bytes of the old format, which the reader still accepts.
pub const BOUT_MAGIC: &[u8; 5] = b"BOUT\n";

/// The version the writer produces and the newest the reader accepts.
pub const KTEST_VERSION: u32 = 3;

/// One test case: the program arguments and the concrete bytes of each symbolic object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KTest {
    /// The command line recorded with the test, program name first.
    pub args: Vec<String>,
    /// KLEE's `--sym-argvs` count; 0 when unused.
    pub sym_argvs: u32,
    /// KLEE's `--sym-argv` length; 0 when unused.
    pub sym_argv_len: u32,
    /// The symbolic objects in the order the program made them.
    pub objects: Vec<KTestObject>,
}

/// One named symbolic object and its concrete contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KTestObject {
    /// The name given to the object when it was made symbolic.
    pub name: String,
    /// The object's bytes, in memory order.
    pub bytes: Vec<u8>,
}

/// Why bytes are not a valid `.ktest` file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FormatError {
    /// The file starts with neither `KTEST` nor `BOUT\n`.
    #[error("bad magic {}: not a .ktest file", bytes_literal(.0))]
    BadMagic(Vec<u8>),
    /// The version field is outside 1 to 3.
    #[error("unsupported version {0}")]
    UnsupportedVersion(u32),
    /// A field needs more bytes than the file has left.
    #[error("truncated: {what} needs {needed} bytes, {left} left")]
    Truncated {
        /// The field, for example `object 2 data`.
        what: String,
        /// The bytes the field needs.
        needed: u64,
        /// The bytes left in the file at that point.
        left: usize,
    },
    /// The file goes on after the last object.
    #[error("{0} trailing bytes after the last object")]
    TrailingBytes(usize),
}

/// An error from reading, parsing or writing a `.ktest` file.
#[derive(Debug, Error)]
pub enum KTestError {
    /// The bytes are not a valid `.ktest` file.
    #[error("{}{kind} (at byte {offset})", file_prefix(.path))]
    Format {
        /// The file, when the bytes came from one.
        path: Option<PathBuf>,
        /// The offset of the field that is wrong.
        offset: usize,
        /// What is wrong.
        kind: FormatError,
    },
    /// The file could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A field is too large for the format's 32-bit lengths.
    #[error("{}{what} has {len} entries or bytes, more than a .ktest file can hold", file_prefix(.path))]
    TooLarge {
        /// The file being written, if any.
        path: Option<PathBuf>,
        /// The field, for example `object 0 data`.
        what: String,
        /// Its length.
        len: usize,
    },
}

impl KTestError {
    /// The format problem, if this is one.
    pub fn format_error(&self) -> Option<&FormatError> {
        match self {
            KTestError::Format { kind, .. } => Some(kind),
            _ => None,
        }
    }

    fn with_path(self, file: &Path) -> Self {
        match self {
            KTestError::Format { offset, kind, .. } => KTestError::Format {
                path: Some(file.to_path_buf()),
                offset,
                kind,
            },
            KTestError::TooLarge { what, len, .. } => KTestError::TooLarge {
                path: Some(file.to_path_buf()),
                what,
                len,
            },
            other => other,
        }
    }
}

/// A `.ktest` problem as an input error: one line that names the file once.
impl From<KTestError> for crate::error::Error {
    fn from(e: KTestError) -> Self {
        use crate::error::Error;
        match e {
            KTestError::Format {
                path: Some(path),
                offset,
                kind,
            } => Error::input(path, format!("{kind} (at byte {offset})")),
            KTestError::Io { path, source } => Error::input(path, format!("cannot read: {source}")),
            KTestError::TooLarge {
                path: Some(path),
                what,
                len,
            } => Error::input(
                path,
                format!("{what} has {len} entries or bytes, more than a .ktest file can hold"),
            ),
            other => Error::Usage(other.to_string()),
        }
    }
}

fn file_prefix(path: &Option<PathBuf>) -> String {
    match path {
        Some(p) => format!("{}: ", p.display()),
        None => String::new(),
    }
}

/// The name KLEE gives the `n`th test case: `test000001.ktest` for 1.
pub fn test_file_name(n: usize) -> String {
    format!("test{n:06}.ktest")
}

impl KTest {
    /// Encodes the test as a version 3 `.ktest` file.
    ///
    /// A field longer than `u32::MAX` cannot be encoded; such a field is cut to `u32::MAX`
    /// entries or bytes so the output stays a well-formed file. [`KTest::try_to_bytes`] and
    /// [`KTest::write`] report it as an error instead.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode(false).unwrap_or_default()
    }

    /// Encodes the test as a version 3 `.ktest` file, failing if a field is too long.
    pub fn try_to_bytes(&self) -> Result<Vec<u8>, KTestError> {
        self.encode(true)
    }

    fn encode(&self, strict: bool) -> Result<Vec<u8>, KTestError> {
        let size = 5
            + 4 * 5
            + self.args.iter().map(|a| 4 + a.len()).sum::<usize>()
            + self
                .objects
                .iter()
                .map(|o| 8 + o.name.len() + o.bytes.len())
                .sum::<usize>();
        let mut out = Vec::with_capacity(size);
        // Cuts a length to what a u32 holds, or fails in strict mode.
        let fit = |what: &dyn Fn() -> String, len: usize| -> Result<u32, KTestError> {
            match u32::try_from(len) {
                Ok(n) => Ok(n),
                Err(_) if strict => Err(KTestError::TooLarge {
                    path: None,
                    what: what(),
                    len,
                }),
                Err(_) => Ok(u32::MAX),
            }
        };
        let put_blob = |out: &mut Vec<u8>, bytes: &[u8], n: u32| {
            out.extend_from_slice(&n.to_be_bytes());
            out.extend_from_slice(&bytes[..n as usize]);
        };
        out.extend_from_slice(KTEST_MAGIC);
        out.extend_from_slice(&KTEST_VERSION.to_be_bytes());
        let num_args = fit(&|| "the argument list".to_string(), self.args.len())?;
        out.extend_from_slice(&num_args.to_be_bytes());
        for (i, arg) in self.args.iter().take(num_args as usize).enumerate() {
            let n = fit(&|| format!("argument {i}"), arg.len())?;
            put_blob(&mut out, arg.as_bytes(), n);
        }
        out.extend_from_slice(&self.sym_argvs.to_be_bytes());
        out.extend_from_slice(&self.sym_argv_len.to_be_bytes());
        let num_objects = fit(&|| "the object list".to_string(), self.objects.len())?;
        out.extend_from_slice(&num_objects.to_be_bytes());
        for (i, obj) in self.objects.iter().take(num_objects as usize).enumerate() {
            let n = fit(&|| format!("object {i} name"), obj.name.len())?;
            put_blob(&mut out, obj.name.as_bytes(), n);
            let n = fit(&|| format!("object {i} data"), obj.bytes.len())?;
            put_blob(&mut out, &obj.bytes, n);
        }
        Ok(out)
    }

    /// Parses a `.ktest` file's bytes (versions 1 to 3, `KTEST` or `BOUT\n` magic).
    pub fn from_bytes(data: &[u8]) -> Result<KTest, KTestError> {
        let mut r = Reader { data, pos: 0 };
        if data.len() < 5 && !KTEST_MAGIC.starts_with(data) && !BOUT_MAGIC.starts_with(data) {
            return Err(r.error_at(0, FormatError::BadMagic(data.to_vec())));
        }
        let magic = r.take(5, &|| "magic".to_string())?;
        if magic != KTEST_MAGIC && magic != BOUT_MAGIC {
            return Err(r.error_at(0, FormatError::BadMagic(magic.to_vec())));
        }
        let version_at = r.pos;
        let version = r.u32(&|| "version".to_string())?;
        if !(1..=KTEST_VERSION).contains(&version) {
            return Err(r.error_at(version_at, FormatError::UnsupportedVersion(version)));
        }
        let num_args = r.u32(&|| "argument count".to_string())?;
        // Every entry needs at least its 4-byte length, which bounds the capacity.
        let mut args = Vec::with_capacity((num_args as usize).min(r.left() / 4));
        for i in 0..num_args {
            args.push(r.string(&|| format!("argument {i}"))?);
        }
        let (mut sym_argvs, mut sym_argv_len) = (0, 0);
        if version >= 2 {
            sym_argvs = r.u32(&|| "symArgvs".to_string())?;
            sym_argv_len = r.u32(&|| "symArgvLen".to_string())?;
        }
        let num_objects = r.u32(&|| "object count".to_string())?;
        let mut objects = Vec::with_capacity((num_objects as usize).min(r.left() / 8));
        for i in 0..num_objects {
            let name = r.string(&|| format!("object {i} name"))?;
            let bytes = r.blob(&|| format!("object {i} data"))?.to_vec();
            objects.push(KTestObject { name, bytes });
        }
        if r.left() > 0 {
            return Err(r.error_at(r.pos, FormatError::TrailingBytes(r.left())));
        }
        Ok(KTest {
            args,
            sym_argvs,
            sym_argv_len,
            objects,
        })
    }

    /// Reads and parses a `.ktest` file (a regular file of at most
    /// [`MAX_KTEST_BYTES`](crate::input::MAX_KTEST_BYTES)); errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<KTest, KTestError> {
        let path = path.as_ref();
        let limit = crate::input::MAX_KTEST_BYTES;
        let data = crate::input::read_limited(path, limit, ".ktest files").map_err(|source| {
            KTestError::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
        KTest::from_bytes(&data).map_err(|e| e.with_path(path))
    }

    /// Writes the test to `path` as version 3, through a temporary file in the same
    /// directory that is renamed over the target, so a crash never leaves half a file.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), KTestError> {
        let path = path.as_ref();
        let bytes = self.try_to_bytes().map_err(|e| e.with_path(path))?;
        write_atomic(path, &bytes).map_err(|source| KTestError::Io {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Describes the test the way KLEE's `ktest-tool` prints it, one line per field.
    ///
    /// `file_label` is shown on the first line as the file's name.
    pub fn show(&self, file_label: &str) -> String {
        let mut s = String::new();
        let args: Vec<String> = self.args.iter().map(|a| py_str(a)).collect();
        let _ = writeln!(s, "ktest file : {}", py_str(file_label));
        let _ = writeln!(s, "args       : [{}]", args.join(", "));
        let _ = writeln!(s, "num objects: {}", self.objects.len());
        for (i, obj) in self.objects.iter().enumerate() {
            let b = &obj.bytes;
            let _ = writeln!(s, "object {i}: name: {}", py_str(&obj.name));
            let _ = writeln!(s, "object {i}: size: {}", b.len());
            let _ = writeln!(s, "object {i}: data: {}", bytes_literal(b));
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            let _ = writeln!(s, "object {i}: hex : 0x{hex}");
            if let Some((int, uint)) = le_ints(b) {
                let _ = writeln!(s, "object {i}: int : {int}");
                let _ = writeln!(s, "object {i}: uint: {uint}");
            }
            let text: String = b
                .iter()
                .map(|&x| if is_printable(x) { x as char } else { '.' })
                .collect();
            let _ = writeln!(s, "object {i}: text: {text}");
        }
        s
    }
}

/// A cursor over the bytes being parsed.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    fn error_at(&self, offset: usize, kind: FormatError) -> KTestError {
        KTestError::Format {
            path: None,
            offset,
            kind,
        }
    }

    /// Takes `n` bytes, or fails naming the field before anything is allocated.
    fn take(&mut self, n: u64, what: &dyn Fn() -> String) -> Result<&'a [u8], KTestError> {
        let left = self.left();
        match usize::try_from(n) {
            Ok(n) if n <= left => {
                let slice = &self.data[self.pos..self.pos + n];
                self.pos += n;
                Ok(slice)
            }
            _ => Err(self.error_at(
                self.pos,
                FormatError::Truncated {
                    what: what(),
                    needed: n,
                    left,
                },
            )),
        }
    }

    fn u32(&mut self, what: &dyn Fn() -> String) -> Result<u32, KTestError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Reads a length-prefixed byte string.
    fn blob(&mut self, what: &dyn Fn() -> String) -> Result<&'a [u8], KTestError> {
        let n = self.u32(&|| format!("{} length", what()))?;
        self.take(u64::from(n), what)
    }

    fn string(&mut self, what: &dyn Fn() -> String) -> Result<String, KTestError> {
        Ok(String::from_utf8_lossy(self.blob(what)?).into_owned())
    }
}

fn is_printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

/// The little-endian signed and unsigned values of a 1, 2, 4 or 8 byte object.
fn le_ints(b: &[u8]) -> Option<(i64, u64)> {
    Some(match *b {
        [a] => (i64::from(a as i8), u64::from(a)),
        [a, c] => {
            let v = u16::from_le_bytes([a, c]);
            (i64::from(v as i16), u64::from(v))
        }
        [a, c, d, e] => {
            let v = u32::from_le_bytes([a, c, d, e]);
            (i64::from(v as i32), u64::from(v))
        }
        _ if b.len() == 8 => {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            (i64::from_le_bytes(w), u64::from_le_bytes(w))
        }
        _ => return None,
    })
}

/// Formats bytes as a Python bytes literal, always in single quotes: `b'ab\x00\''`.
pub fn bytes_literal(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 3);
    s.push_str("b'");
    for &b in bytes {
        match b {
            b'\\' => s.push_str("\\\\"),
            b'\'' => s.push_str("\\'"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            _ if is_printable(b) => s.push(b as char),
            _ => {
                let _ = write!(s, "\\x{b:02x}");
            }
        }
    }
    s.push('\'');
    s
}

/// Formats text as Python's `repr` of a `str` does.
fn py_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut s = String::with_capacity(text.len() + 2);
    s.push(quote);
    for c in text.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '\t' => s.push_str("\\t"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            _ if c == quote => {
                s.push('\\');
                s.push(c);
            }
            _ if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(s, "\\x{:02x}", c as u32);
            }
            _ => s.push(c),
        }
    }
    s.push(quote);
    s
}

/// Writes `bytes` to `path` through a temporary file in the same directory that is synced
/// and then renamed over `path`, so readers see the old file or the new one, never a part.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let file_name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(file_name);
    tmp_name.push(format!(
        ".{}.{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        // The temporary file may not exist; there is nothing more to do if this fails.
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::expect;

    #[test]
    fn file_names_have_six_digits() {
        assert_eq!(test_file_name(1), "test000001.ktest");
        assert_eq!(test_file_name(123456), "test123456.ktest");
        assert_eq!(test_file_name(1234567), "test1234567.ktest");
    }

    #[test]
    fn python_reprs() {
        assert_eq!(py_str("ab"), "'ab'");
        assert_eq!(py_str("it's"), "\"it's\"");
        assert_eq!(py_str("'\""), "'\\'\"'");
        assert_eq!(py_str("a\\b\n\x01"), "'a\\\\b\\n\\x01'");
        assert_eq!(bytes_literal(b"a'\\\x00\xff\t"), "b'a\\'\\\\\\x00\\xff\\t'");
    }

    #[test]
    fn show_prints_like_ktest_tool() {
        let t = KTest {
            args: vec!["xcheck".into(), "ref.bc".into()],
            objects: vec![
                KTestObject {
                    name: "x".into(),
                    bytes: vec![5, 0, 0, 0],
                },
                KTestObject {
                    name: "s".into(),
                    bytes: b"hi\x00".to_vec(),
                },
                KTestObject {
                    name: "c".into(),
                    bytes: vec![0xff],
                },
            ],
            ..KTest::default()
        };
        expect![[r#"
            ktest file : 'xcheck-out/test000001.ktest'
            args       : ['xcheck', 'ref.bc']
            num objects: 3
            object 0: name: 'x'
            object 0: size: 4
            object 0: data: b'\x05\x00\x00\x00'
            object 0: hex : 0x05000000
            object 0: int : 5
            object 0: uint: 5
            object 0: text: ....
            object 1: name: 's'
            object 1: size: 3
            object 1: data: b'hi\x00'
            object 1: hex : 0x686900
            object 1: text: hi.
            object 2: name: 'c'
            object 2: size: 1
            object 2: data: b'\xff'
            object 2: hex : 0xff
            object 2: int : -1
            object 2: uint: 255
            object 2: text: .
        "#]]
        .assert_eq(&t.show("xcheck-out/test000001.ktest"));
    }

    #[test]
    fn eight_byte_ints() {
        let t = KTest {
            objects: vec![KTestObject {
                name: "v".into(),
                bytes: vec![0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            }],
            ..KTest::default()
        };
        let shown = t.show("t");
        assert!(shown.contains("object 0: int : -2\n"), "{shown}");
        assert!(shown.contains("object 0: uint: 18446744073709551614\n"));
    }

    #[test]
    fn error_messages_name_the_cause() {
        let mut bytes = KTest {
            objects: vec![KTestObject {
                name: "a".into(),
                bytes: vec![0; 16],
            }],
            ..KTest::default()
        }
        .to_bytes();
        bytes.truncate(bytes.len() - 13);
        let err = KTest::from_bytes(&bytes).unwrap_err().to_string();
        assert_eq!(
            err,
            "truncated: object 0 data needs 16 bytes, 3 left (at byte 34)"
        );
        let err = KTest::from_bytes(b"KTEST\0\0\0\x07")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "unsupported version 7 (at byte 5)");
        let err = KTest::from_bytes(b"PNG\r\n").unwrap_err().to_string();
        assert_eq!(err, "bad magic b'PNG\\r\\n': not a .ktest file (at byte 0)");
    }
}
