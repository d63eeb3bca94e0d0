//! musl's math library linked as code into function checks.
//!
//! Whole programs are linked with musl by `xcheck cc`; a function check links only its two
//! sides and the harness, so a call of `sin` would reach a declaration. Before a side's
//! definitions are renamed apart, [`link_math`] links into it the members of musl's bitcode
//! archive (`build/musl/lib/libc.a`, scripts/build-musl.sh) that define what the side calls
//! and does not define, when those members are math (`src/math/`, `src/fenv/`), and then
//! what those members need in turn; the side's renaming then makes them `A.sin`, `B.sin`:
//! each side runs its own copy. Calls of other libc functions keep their handlers and the
//! harness's helpers; functions named by `--abstract-calls` are never linked.
//!
//! The archive is ours, not the user's: its members are parsed without the child process
//! of `isolate.rs`. It is read once per process ([`archive`]); only the members a side needs
//! are parsed.

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// The musl build's directory (the one holding `lib/libc.a`): `XCHECK_MUSL_DIR`, else
/// `$XCHECK_BUILD_DIR/musl`, else `build/musl` in the nearest ancestor of the executable's
/// directory that has one; when none has, where a checkout's build would put it
/// (`<repo>/build/musl` for `<repo>/target/release/xcheck`).
pub fn musl_dir() -> Result<PathBuf, String> {
    let explicit = std::env::var_os("XCHECK_MUSL_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XCHECK_BUILD_DIR").map(|b| PathBuf::from(b).join("musl")));
    if let Some(dir) = explicit {
        return Ok(dir);
    }
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find the xcheck executable: {e}"))?;
    let start = exe.parent().unwrap_or(Path::new("/"));
    let found = start
        .ancestors()
        .map(|a| a.join("build").join("musl"))
        .find(|d| libc_archive(d).is_file());
    let guess = || {
        let repo = start.ancestors().find(|a| a.ends_with("target"));
        repo.and_then(Path::parent)
            .unwrap_or(start)
            .join("build")
            .join("musl")
    };
    Ok(found.unwrap_or_else(guess))
}

/// The bitcode archive of a musl build directory.
pub fn libc_archive(musl_dir: &Path) -> PathBuf {
    musl_dir.join("lib").join("libc.a")
}

/// Whether an archive member is part of the math library. build-musl.sh names each object
/// after its source path with `/` turned into `_` (`src/math/__sin.c` → `src_math___sin.c.o`).
fn is_math_member(name: &str) -> bool {
    name.starts_with("src_math_") || name.starts_with("src_fenv_")
}

/// A GNU archive (`llvm-ar rcs`) read whole, with its symbol index.
pub(super) struct Archive {
    path: PathBuf,
    bytes: Vec<u8>,
    /// The header offset of the member that defines each symbol.
    symbols: HashMap<String, usize>,
    /// The long-name table (`//`), if any.
    long_names: Range<usize>,
}

/// One member of an [`Archive`].
struct Member<'a> {
    name: &'a str,
    data: &'a [u8],
}

const MAGIC: &[u8] = b"!<arch>\n";
const HEADER: usize = 60;

impl Archive {
    /// Parses the archive's bytes: its symbol index and its long-name table.
    fn parse(path: &Path, bytes: Vec<u8>) -> Result<Archive, String> {
        let bad = |why: &str| format!("{}: not a usable archive ({why})", path.display());
        if !bytes.starts_with(MAGIC) {
            return Err(bad("bad magic"));
        }
        let mut archive = Archive {
            path: path.to_path_buf(),
            bytes,
            symbols: HashMap::new(),
            long_names: 0..0,
        };
        let mut index = None;
        let mut offset = MAGIC.len();
        // The index and the long names come first; a regular member ends the search.
        while offset < archive.bytes.len() {
            let (raw_name, data) = archive.raw_member(offset).ok_or_else(|| bad("truncated"))?;
            let next = data.end + (data.end & 1);
            match raw_name.trim_end() {
                "/" => index = Some(data),
                "//" => archive.long_names = data,
                "/SYM64/" => return Err(bad("64-bit symbol index")),
                _ => break,
            }
            offset = next;
        }
        let index = index.ok_or_else(|| bad("no symbol index: build it with llvm-ar rcs"))?;
        archive.symbols = parse_index(&archive.bytes[index]).ok_or_else(|| bad("bad index"))?;
        Ok(archive)
    }

    /// The raw name field and the data range of the member whose header is at `offset`.
    fn raw_member(&self, offset: usize) -> Option<(&str, Range<usize>)> {
        let header = self.bytes.get(offset..offset.checked_add(HEADER)?)?;
        if &header[58..60] != b"`\n" {
            return None;
        }
        let name = std::str::from_utf8(&header[..16]).ok()?;
        let size: usize = std::str::from_utf8(&header[48..58])
            .ok()?
            .trim()
            .parse()
            .ok()?;
        let start = offset + HEADER;
        let end = start.checked_add(size)?;
        (end <= self.bytes.len()).then_some((name, start..end))
    }

    /// The member whose header is at `offset`, with its name resolved.
    fn member(&self, offset: usize) -> Option<Member<'_>> {
        let (raw, data) = self.raw_member(offset)?;
        let raw = raw.trim_end();
        let name = match raw.strip_prefix('/') {
            Some(at) => {
                let at: usize = at.parse().ok()?;
                let table = self.bytes.get(self.long_names.clone())?;
                let rest = std::str::from_utf8(table.get(at..)?).ok()?;
                rest.split("/\n").next()?
            }
            None => raw.strip_suffix('/').unwrap_or(raw),
        };
        Some(Member {
            name,
            data: &self.bytes[data],
        })
    }
}

/// The GNU symbol index: a big-endian count, as many member offsets, then as many
/// NUL-terminated names.
fn parse_index(index: &[u8]) -> Option<HashMap<String, usize>> {
    let word = |i: usize| -> Option<usize> {
        let b = index.get(i * 4..i * 4 + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = word(0)?;
    let mut names = index.get(4 + count.checked_mul(4)?..)?.split(|&b| b == 0);
    let mut symbols = HashMap::with_capacity(count);
    for i in 0..count {
        let name = std::str::from_utf8(names.next()?).ok()?;
        // The first member to define a symbol is the one a linker takes.
        symbols.entry(name.to_string()).or_insert(word(1 + i)?);
    }
    Some(symbols)
}

/// The archive at `path`, read and indexed once per process.
pub(super) fn archive(path: &Path) -> Result<Arc<Archive>, String> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Archive>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return Ok(found.clone());
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "musl bitcode library not found at {}: run scripts/build-musl.sh",
            path.display()
        ),
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    let archive = Arc::new(Archive::parse(path, bytes)?);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path.to_path_buf(), archive.clone());
    Ok(archive)
}

/// The names `module` uses without defining them: function and global declarations, less
/// LLVM's intrinsics.
fn undefined(module: &Module<'_>) -> Vec<String> {
    let functions = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
        .map(|f| f.get_name().to_string_lossy().into_owned());
    let globals = module
        .get_globals()
        .filter(|g| g.is_declaration())
        .map(|g| g.get_name().to_string_lossy().into_owned());
    functions
        .chain(globals)
        .filter(|n| !n.starts_with("llvm."))
        .collect()
}

/// The external names a module defines: functions with a body and globals with an
/// initializer, less those of internal or private linkage. `functions`: functions only.
fn defined_names(module: &Module<'_>, functions_only: bool) -> Vec<String> {
    let external = |l: Linkage| !matches!(l, Linkage::Internal | Linkage::Private);
    let mut names: Vec<String> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0 && external(f.get_linkage()))
        .map(|f| f.get_name().to_string_lossy().into_owned())
        .collect();
    if !functions_only {
        names.extend(
            module
                .get_globals()
                .filter(|g| !g.is_declaration() && external(g.get_linkage()))
                .map(|g| g.get_name().to_string_lossy().into_owned()),
        );
    }
    names
}

/// Links into `module` (one side, before its renaming) the math members of `archive` that
/// define what it uses and does not define, and then what those need, leaving out the
/// names in `abstract_calls`. Returns the external functions linked, in name order.
///
/// A member is left out when it would clash with a definition the side has, when it
/// defines a name of `abstract_calls` (musl's `fenv.c` defines `fegetround` and
/// `__fesetround`: abstracting the first leaves the second undefined too), and when the
/// name wanted is an alias in it (`drem`, `pow10`: an alias keeps its name through the
/// renaming, so the two sides would share it).
pub(super) fn link_math<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    archive: &Archive,
    abstract_calls: &[String],
) -> Result<Vec<String>, String> {
    let triple = module.get_triple();
    let target = triple.as_str().to_string_lossy();
    if !(target.is_empty() || target.starts_with("x86_64")) {
        return Err(format!(
            "musl's math library is x86-64 bitcode and this module targets {target}"
        ));
    }
    let mut tried: HashSet<usize> = HashSet::new();
    let mut linked = Vec::new();
    loop {
        let mut progress = false;
        for name in undefined(module) {
            if abstract_calls.contains(&name) {
                continue;
            }
            let Some(&offset) = archive.symbols.get(&name) else {
                continue;
            };
            let Some(member) = archive.member(offset) else {
                return Err(format!(
                    "{}: member at offset {offset} is unreadable",
                    archive.path.display()
                ));
            };
            if !is_math_member(member.name) || !tried.insert(offset) {
                continue;
            }
            let buffer = MemoryBuffer::create_from_memory_range_copy(member.data, member.name);
            let library = Module::parse_bitcode_from_buffer(&buffer, context).map_err(|e| {
                format!(
                    "{}({}) is not valid bitcode: {}",
                    archive.path.display(),
                    member.name,
                    e.to_string().trim()
                )
            })?;
            let defines = library
                .get_function(&name)
                .is_some_and(|f| f.count_basic_blocks() > 0)
                || library
                    .get_global(&name)
                    .is_some_and(|g| !g.is_declaration());
            let names = defined_names(&library, false);
            let clashes = names.iter().any(|n| {
                module
                    .get_function(n)
                    .is_some_and(|f| f.count_basic_blocks() > 0)
                    || module.get_global(n).is_some_and(|g| !g.is_declaration())
            });
            let abstracted = names.iter().any(|n| abstract_calls.contains(n));
            if !defines || clashes || abstracted {
                continue;
            }
            library.set_triple(&triple);
            library.set_data_layout(&module.get_data_layout());
            linked.extend(defined_names(&library, true));
            module.link_in_module(library).map_err(|e| {
                format!(
                    "{}({}) cannot be linked: {}",
                    archive.path.display(),
                    member.name,
                    e.to_string().trim()
                )
            })?;
            progress = true;
        }
        if !progress {
            linked.sort();
            return Ok(linked);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive as llvm-ar writes it: index, long names, two members.
    fn sample() -> Vec<u8> {
        let header = |name: &str, size: usize| format!("{name:<16}{:<32}{size:<10}`\n", "0");
        let long = "src_math___rem_pio2.c.o/\n";
        let members = [("/0", b"AAAA".as_slice()), ("short.o/", b"BBBBBB")];
        // The index: 2 symbols; offsets are filled in once the layout is known.
        let names = b"__rem_pio2\0puts\0";
        let index_size = 4 + 2 * 4 + names.len();
        let mut offset = MAGIC.len() + HEADER + index_size + (index_size & 1);
        offset += HEADER + long.len() + (long.len() & 1);
        let mut offsets = Vec::new();
        for (_, data) in members {
            offsets.push(offset);
            offset += HEADER + data.len() + (data.len() & 1);
        }
        let mut out = MAGIC.to_vec();
        out.extend(header("/", index_size).as_bytes());
        out.extend(2u32.to_be_bytes());
        for o in &offsets {
            out.extend((*o as u32).to_be_bytes());
        }
        out.extend(names);
        if index_size & 1 == 1 {
            out.push(b'\n');
        }
        out.extend(header("//", long.len()).as_bytes());
        out.extend(long.as_bytes());
        if long.len() & 1 == 1 {
            out.push(b'\n');
        }
        for (name, data) in members {
            out.extend(header(name, data.len()).as_bytes());
            out.extend(data);
            if data.len() & 1 == 1 {
                out.push(b'\n');
            }
        }
        out
    }

    #[test]
    fn index_and_long_names_are_read() {
        let archive = Archive::parse(Path::new("libc.a"), sample()).unwrap();
        let member = |symbol: &str| archive.member(archive.symbols[symbol]).unwrap();
        assert_eq!(member("__rem_pio2").name, "src_math___rem_pio2.c.o");
        assert_eq!(member("__rem_pio2").data, b"AAAA");
        assert_eq!(member("puts").name, "short.o");
        assert_eq!(member("puts").data, b"BBBBBB");
        assert!(is_math_member(member("__rem_pio2").name));
        assert!(!is_math_member(member("puts").name));
    }

    #[test]
    fn broken_archives_are_errors_not_panics() {
        let whole = sample();
        for cut in [0, 7, 20, 70, 90] {
            assert!(Archive::parse(Path::new("x.a"), whole[..cut].to_vec()).is_err());
        }
        let mut wrong = whole;
        wrong[MAGIC.len() + 58] = b'x';
        assert!(Archive::parse(Path::new("x.a"), wrong).is_err());
    }
}
