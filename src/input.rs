//! Reading the files xcheck is given: regular files only, and no more bytes than a limit.
//!
//! A device, FIFO or socket named as an input (`xcheck /dev/zero b.bc`) would otherwise be read
//! until memory runs out, or block forever; a file larger than any real input of its kind is
//! refused before it is read. The error says which, and the caller names the file.

use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The largest bitcode file read (1 GiB).
pub const MAX_BITCODE_BYTES: u64 = 1 << 30;

/// The largest `.ktest` file read (256 MiB: KLEE's own tests are a few KiB).
pub const MAX_KTEST_BYTES: u64 = 256 << 20;

/// The largest config file (`--config`) read (16 MiB).
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The largest `report.json` read beside tests being replayed (256 MiB).
pub const MAX_REPORT_BYTES: u64 = 256 << 20;

/// Reads the whole of the regular file `path` if it holds at most `limit` bytes (`what` names
/// the kind of file in the error, as "bitcode files").
///
/// The file is opened without blocking, so that a FIFO that slipped past the first check
/// (it was replaced in between) cannot stall the read; the limit is checked again while
/// reading, for a file that grows.
pub fn read_limited(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    check_regular(&std::fs::metadata(path)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    check_regular(&meta)?;
    let too_large = |size: String| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{size}, more than the {} limit of {what}",
                human_size(limit)
            ),
        )
    };
    if meta.len() > limit {
        return Err(too_large(format!("the file has {} bytes", meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large("the file grew while it was read".to_string()));
    }
    Ok(bytes)
}

/// Reads a text file as [`read_limited`] does; bytes that are not UTF-8 are an error.
pub fn read_text_limited(path: &Path, limit: u64, what: &str) -> io::Result<String> {
    String::from_utf8(read_limited(path, limit, what)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

fn check_regular(meta: &std::fs::Metadata) -> io::Result<()> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let is = if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file (a device, FIFO or socket)"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{is}; give a file"),
    ))
}

/// `1 GiB`, `16 MiB`, `1.5 KiB`, `12 bytes`.
pub fn human_size(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if n >= size {
            let value = n as f64 / size as f64;
            return if n.is_multiple_of(size) {
                format!("{} {unit}", n / size)
            } else {
                format!("{value:.1} {unit}")
            };
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_limited(&path, 5, "tests").unwrap(), b"12345");
        let err = read_limited(&path, 4, "tests").unwrap_err().to_string();
        assert_eq!(
            err,
            "the file has 5 bytes, more than the 4 bytes limit of tests"
        );
    }

    #[test]
    fn devices_fifos_and_directories_are_refused_without_reading() {
        let err = read_limited(Path::new("/dev/zero"), 1 << 20, "tests").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = read_limited(dir.path(), 1 << 20, "tests").unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        // Opening a FIFO for reading would block until a writer comes: this must not.
        let err = read_limited(&fifo, 1 << 20, "tests").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(1 << 30), "1 GiB");
        assert_eq!(human_size(3 << 19), "1.5 MiB");
        assert_eq!(human_size(12), "12 bytes");
    }
}
