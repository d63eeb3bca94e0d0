//! Divergence classes: what kind of difference a counterexample shows, so that thousands of
//! divergences of one behaviour (column padding, a number counted differently) read as one.
//!
//! A class is computed from what both programs did on the counterexample's input (exit
//! status or failure, stdout, stderr), one part per stream that differs, joined by `; `:
//! `stdout: spacing only`, `stdout: numbers differ; exit status 0 vs 1`, `stderr: only B
//! prints`. It names the kind of difference, never the bytes, so that rows of one behaviour
//! share it. [`crate::report::Summary::of_rows`] groups the rows by class.

/// What one side did on an input: how it ended (`exit 1`, or the failure, such as
/// `out-of-bounds access at wc.c:12`), and what it wrote.
pub(crate) struct Observed<'a> {
    pub end: &'a str,
    /// Whether the end is the engine's finding of a failure (not an exit).
    pub failed: bool,
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
    /// The record of the files it changed (the POSIX model's stream 3).
    pub files: &'a [u8],
}

/// The class of a difference between `a` and `b`, named `A` and `B`.
#[cfg(test)]
pub(crate) fn classify(a: &Observed<'_>, b: &Observed<'_>) -> String {
    classify_named(a, b, ("A", "B"))
}

/// The class of a difference between `a` and `b`, naming them `names` (a three-way row's
/// odd side against the majority: `("C", "A and B")`).
pub(crate) fn classify_named(a: &Observed<'_>, b: &Observed<'_>, names: (&str, &str)) -> String {
    let mut parts = Vec::new();
    if let Some(part) = stream("stdout", a.stdout, b.stdout, names) {
        parts.push(part);
    }
    if let Some(part) = stream("stderr", a.stderr, b.stderr, names) {
        parts.push(part);
    }
    if a.files != b.files {
        parts.push(files_part(a.files, b.files, names));
    }
    let (na, nb) = names;
    if a.end != b.end {
        parts.push(match (a.failed, b.failed) {
            (true, false) => format!("{na} {} ({})", verb(na, "fail"), failure_kind(a.end)),
            (false, true) => format!("{nb} {} ({})", verb(nb, "fail"), failure_kind(b.end)),
            (true, true) => format!(
                "both fail, differently ({} vs {})",
                failure_kind(a.end),
                failure_kind(b.end)
            ),
            (false, false) => format!(
                "exit status {} vs {}",
                a.end.trim_start_matches("exit "),
                b.end.trim_start_matches("exit ")
            ),
        });
    }
    if parts.is_empty() {
        "outputs differ".into()
    } else {
        parts.join("; ")
    }
}

/// One file as the POSIX model publishes it (`harness/posix/fs.c`, `xc_fs_publish`).
struct FileRecord<'a> {
    name: &'a [u8],
    /// `F` a file, `D` a directory, `-` removed.
    kind: u8,
    mode: u32,
    contents: &'a [u8],
}

/// The records of a stream-3 output; what does not parse ends the list.
fn file_records(mut bytes: &[u8]) -> Vec<FileRecord<'_>> {
    let mut out = Vec::new();
    while let Some(nul) = bytes.iter().position(|&b| b == 0) {
        let (name, rest) = (&bytes[..nul], &bytes[nul + 1..]);
        if rest.len() < 13 {
            break;
        }
        let mode = u32::from_le_bytes(rest[1..5].try_into().unwrap_or_default());
        let size = u64::from_le_bytes(rest[5..13].try_into().unwrap_or_default());
        let size = usize::try_from(size)
            .unwrap_or(usize::MAX)
            .min(rest.len() - 13);
        out.push(FileRecord {
            name,
            kind: rest[0],
            mode,
            contents: &rest[13..13 + size],
        });
        bytes = &rest[13 + size..];
    }
    out
}

/// The files of a stream-3 output for people: `xaa "1\n", old (removed), d/ (directory)`.
pub fn files_text(bytes: &[u8]) -> String {
    let parts: Vec<String> = file_records(bytes)
        .iter()
        .map(|f| {
            let name = String::from_utf8_lossy(f.name);
            match f.kind {
                b'-' => format!("{name} (removed)"),
                b'D' => format!("{name}/ (directory {:o})", f.mode),
                _ => format!("{name} {:o} {}", f.mode, quote(f.contents)),
            }
        })
        .collect();
    parts.join(", ")
}

/// How the files two programs changed differ: `files: only A writes`, `files: B also writes
/// xab`, `files: xaa differs`.
fn files_part(a: &[u8], b: &[u8], (na, nb): (&str, &str)) -> String {
    let (ra, rb) = (file_records(a), file_records(b));
    if ra.is_empty() {
        return format!("files: only {nb} {} files", verb(nb, "change"));
    }
    if rb.is_empty() {
        return format!("files: only {na} {} files", verb(na, "change"));
    }
    let names = |r: &[FileRecord<'_>]| r.iter().map(|f| f.name.to_vec()).collect::<Vec<_>>();
    if names(&ra) != names(&rb) {
        return "files: different files".into();
    }
    if ra
        .iter()
        .zip(&rb)
        .any(|(x, y)| x.kind != y.kind || x.mode != y.mode)
    {
        return "files: kinds or permissions differ".into();
    }
    let (x, y) = ra
        .iter()
        .zip(&rb)
        .find(|(x, y)| x.contents != y.contents)
        .map_or((&[][..], &[][..]), |(x, y)| (x.contents, y.contents));
    stream("files", x, y, (na, nb)).unwrap_or_else(|| "files differ".into())
}

/// `fail` or `fails` for a subject `name` (`A and B fail`, `C fails`).
fn verb(name: &str, verb: &str) -> String {
    if name.contains(" and ") {
        verb.to_string()
    } else {
        format!("{verb}s")
    }
}

/// How two outputs of one stream differ, if they do; `names` name the sides.
fn stream(name: &str, a: &[u8], b: &[u8], (na, nb): (&str, &str)) -> Option<String> {
    if a == b {
        return None;
    }
    let how = if a.is_empty() {
        format!("only {nb} {}", verb(nb, "print"))
    } else if b.is_empty() {
        format!("only {na} {}", verb(na, "print"))
    } else if words_of(a) == words_of(b) {
        "spacing only".into()
    } else if masked_numbers(a) == masked_numbers(b) {
        "numbers differ".into()
    } else if a.starts_with(b) {
        format!("{nb} {} less (a prefix of {na}'s)", verb(nb, "print"))
    } else if b.starts_with(a) {
        format!("{na} {} less (a prefix of {nb}'s)", verb(na, "print"))
    } else if a.iter().filter(|&&c| c == b'\n').count() != b.iter().filter(|&&c| c == b'\n').count()
    {
        "text differs, other line count".into()
    } else {
        "text differs".into()
    };
    Some(format!("{name}: {how}"))
}

/// `text` with every run of digits replaced by one `#`, and spacing dropped: equal when
/// only numbers (and their padding) differ.
fn masked_numbers(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut in_number = false;
    for &c in text {
        if c.is_ascii_digit() {
            if !in_number {
                out.push(b'#');
            }
            in_number = true;
            continue;
        }
        in_number = false;
        if c != b' ' && c != b'\t' {
            out.push(c);
        }
    }
    out
}

/// The kind of a failure without its location: `out-of-bounds access at f.c:3` gives
/// `out-of-bounds access`.
fn failure_kind(end: &str) -> &str {
    end.split(" at ").next().unwrap_or(end)
}

/// Output as lines of words, split at spaces and tabs (`--ignore-spacing`; native replay
/// compares the same way).
pub fn words_of(text: &[u8]) -> Vec<Vec<&[u8]>> {
    text.split(|&b| b == b'\n')
        .map(|line| {
            line.split(|&b| b == b' ' || b == b'\t')
                .filter(|w| !w.is_empty())
                .collect()
        })
        .collect()
}

/// Bytes as a C-like string literal, cut at 200 bytes.
pub fn quote(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for &b in bytes.iter().take(200) {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\\' => s.push_str("\\\\"),
            b'"' => s.push_str("\\\""),
            0x20..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    s.push('"');
    if bytes.len() > 200 {
        s.push_str(&format!("… ({} bytes)", bytes.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{classify, files_text, Observed};

    fn exited<'a>(end: &'a str, stdout: &'a [u8], stderr: &'a [u8]) -> Observed<'a> {
        Observed {
            end,
            failed: false,
            stdout,
            stderr,
            files: b"",
        }
    }

    #[test]
    fn each_stream_that_differs_names_how() {
        let c = |a: &[u8], b: &[u8]| classify(&exited("exit 0", a, b""), &exited("exit 0", b, b""));
        assert_eq!(c(b"  1  2\n", b"1 2\n"), "stdout: spacing only");
        assert_eq!(
            c(b"      1       1 a\n", b"1 2 a\n"),
            "stdout: numbers differ"
        );
        assert_eq!(c(b"", b"x\n"), "stdout: only B prints");
        assert_eq!(
            c(b"ab\ncd\n", b"ab\n"),
            "stdout: B prints less (a prefix of A's)"
        );
        assert_eq!(c(b"ab\n", b"xy\n"), "stdout: text differs");
        assert_eq!(
            c(b"ab\n", b"ab\nxy\nz"),
            "stdout: A prints less (a prefix of B's)"
        );
        assert_eq!(
            c(b"ab\nc", b"xy\nz\nw"),
            "stdout: text differs, other line count"
        );
    }

    #[test]
    fn exit_status_and_failures_join_the_streams() {
        let a = exited("exit 1", b"x\n", b"wc: bad option\n");
        let b = exited("exit 0", b"x\n", b"");
        assert_eq!(
            classify(&a, &b),
            "stderr: only A prints; exit status 1 vs 0"
        );
        let failing = Observed {
            end: "out-of-bounds access at wc.c:12",
            failed: true,
            stdout: b"",
            stderr: b"",
            files: b"",
        };
        assert_eq!(
            classify(&exited("exit 0", b"", b""), &failing),
            "B fails (out-of-bounds access)"
        );
        // The same kind of difference on other bytes is the same class.
        let one = classify(
            &exited("exit 0", b"1 2\n", b""),
            &exited("exit 0", b"1 3\n", b""),
        );
        let other = classify(
            &exited("exit 0", b"7\n", b""),
            &exited("exit 0", b"9\n", b""),
        );
        assert_eq!(one, other);
    }

    #[test]
    fn files_name_how_they_differ() {
        let record = |name: &str, kind: u8, contents: &[u8]| {
            let mut r = name.as_bytes().to_vec();
            r.push(0);
            r.push(kind);
            r.extend(0o644u32.to_le_bytes());
            r.extend((contents.len() as u64).to_le_bytes());
            r.extend(contents);
            r
        };
        let with = |files: &'static [u8]| Observed {
            files,
            ..exited("exit 0", b"ok\n", b"")
        };
        let xaa: &'static [u8] = record("xaa", b'F', b"1\n").leak();
        let xaa2: &'static [u8] = record("xaa", b'F', b"2\n").leak();
        let gone: &'static [u8] = record("old", b'-', b"").leak();
        assert_eq!(classify(&with(xaa), &with(xaa2)), "files: numbers differ");
        assert_eq!(
            classify(&with(b""), &with(xaa)),
            "files: only B changes files"
        );
        assert_eq!(classify(&with(xaa), &with(gone)), "files: different files");
        assert_eq!(files_text(xaa), "xaa 644 \"1\\n\"");
        assert_eq!(files_text(gone), "old (removed)");
    }
}
