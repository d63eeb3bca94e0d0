//! musl linked as code into function checks: its math, strings, character classes and conversions.
//!
//! Whole programs are linked with musl (by `xcheck cc`, or at load: `musl.rs`, over
//! [`link_members`]); a function check links only its two
//! sides and the harness, so a call of `sin` would reach a declaration. Before a side's
//! definitions are renamed apart, [`link_math`] links into it the members of musl's bitcode
//! archive (`build/musl/lib/libc.a`, scripts/build-musl.sh) that define what the side calls
//! and does not define, when those members compute rather than talk to the operating
//! system ([`is_function_check_member`]: math, strings, ctype, `strtol`, `strerror`,
//! `snprintf`…), and then what those members need in turn; the side's renaming then makes
//! them `A.sin`, `B.sin`: each side runs its own copy, and the global variables they bring
//! (`ir::Library::globals`) start from their initializers. The engine's handlers (`malloc`,
//! `memcpy`…) and the harness's definitions (`strlen`, `isdigit`, `__errno_location`, whose
//! errno the crosscheck treats as an input both sides share) stay theirs; functions named
//! by `--abstract-calls` are never linked, nor those the engine runs as one IEEE operation
//! (`sqrt`, `fabs`, `floor`… see `lower::float_function`).
//!
//! The archive is ours, not the user's: its members are parsed without the child process
//! of `isolate.rs`. It is read once per process ([`archive`]); only the members a side needs
//! are parsed.

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::values::{FunctionValue, GlobalValue};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::FileExt;
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

/// The functions musl's linked parts define that the engine runs itself (its handlers,
/// `exec/table.rs`, which a unit test there keeps this list a part of): a definition linked
/// into a side would take their calls away from the handlers.
pub const ENGINE_RUNS: &[&str] = &[
    "memcpy",
    "memmove",
    "memset",
    "malloc",
    "calloc",
    "realloc",
    "free",
    "aligned_alloc",
    "memalign",
    "posix_memalign",
    "malloc_usable_size",
    "abort",
    "exit",
    "_Exit",
    "__assert_fail",
    "setjmp",
    "longjmp",
    "_setjmp",
    "_longjmp",
    "sigsetjmp",
    "siglongjmp",
];

/// The parts of musl a function check links on demand: code that computes (math, strings,
/// character classes, conversions such as `strtol`, `strerror`, `qsort`, the `snprintf` and
/// `sscanf` family), not the parts that are the operating system's (files, processes,
/// threads, time, the network): a call that reaches those still meets a declaration.
/// build-musl.sh names each object after its source path with `/` turned into `_`
/// (`src/math/__sin.c` → `src_math___sin.c.o`).
fn is_function_check_member(name: &str) -> bool {
    // The thread pointer of harness/musl/thread.c, which `__pthread_self` reads.
    if name == "harness_thread_pointer.c.o" {
        return true;
    }
    // Not `prng`: `rand`'s state is the caller's, an input the check does not model.
    const PARTS: [&str; 12] = [
        "math",
        "fenv",
        "complex",
        "string",
        "ctype",
        "stdlib",
        "multibyte",
        "locale",
        "internal",
        "search",
        "errno",
        "stdio",
    ];
    name.strip_prefix("src_")
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(part, _)| PARTS.contains(&part))
}

/// A GNU archive (`llvm-ar rcs`): its symbol index and long names, read once; its members
/// are read when needed.
pub(super) struct Archive {
    path: PathBuf,
    file: File,
    len: u64,
    /// The header offset of the member that defines each symbol.
    symbols: HashMap<String, u64>,
    /// The long-name table (`//`), if any.
    long_names: Vec<u8>,
}

/// One member of an [`Archive`]: its name, and where its data lies.
struct Member {
    name: String,
    start: u64,
    size: u64,
}

const MAGIC: &[u8] = b"!<arch>\n";
const HEADER: u64 = 60;

impl Archive {
    /// Reads the archive's symbol index and its long-name table.
    fn open(path: &Path, file: File) -> Result<Archive, String> {
        let bad = |why: &str| format!("{}: not a usable archive ({why})", path.display());
        let len = file.metadata().map_err(|e| bad(&e.to_string()))?.len();
        let mut archive = Archive {
            path: path.to_path_buf(),
            file,
            len,
            symbols: HashMap::new(),
            long_names: Vec::new(),
        };
        if archive.read(0, MAGIC.len() as u64).as_deref() != Some(MAGIC) {
            return Err(bad("bad magic"));
        }
        let mut index = None;
        let mut offset = MAGIC.len() as u64;
        // The index and the long names come first; a regular member ends the search.
        while offset < len {
            let (raw_name, start, size) = archive.header(offset).ok_or_else(|| bad("truncated"))?;
            let data = || archive.read(start, size).ok_or_else(|| bad("truncated"));
            match raw_name.trim_end() {
                "/" => index = Some(data()?),
                "//" => archive.long_names = data()?,
                "/SYM64/" => return Err(bad("64-bit symbol index")),
                _ => break,
            }
            offset = start + size + (size & 1);
        }
        let index = index.ok_or_else(|| bad("no symbol index: build it with llvm-ar rcs"))?;
        archive.symbols = parse_index(&index).ok_or_else(|| bad("bad index"))?;
        Ok(archive)
    }

    /// `len` bytes at `offset`, if the file has them.
    fn read(&self, offset: u64, len: u64) -> Option<Vec<u8>> {
        if offset.checked_add(len)? > self.len {
            return None;
        }
        let mut bytes = vec![0; usize::try_from(len).ok()?];
        self.file.read_exact_at(&mut bytes, offset).ok()?;
        Some(bytes)
    }

    /// The raw name field, the data's offset and its size of the member whose header is at
    /// `offset`.
    fn header(&self, offset: u64) -> Option<(String, u64, u64)> {
        let header = self.read(offset, HEADER)?;
        if &header[58..60] != b"`\n" {
            return None;
        }
        let name = std::str::from_utf8(&header[..16]).ok()?.to_string();
        let size: u64 = std::str::from_utf8(&header[48..58])
            .ok()?
            .trim()
            .parse()
            .ok()?;
        Some((name, offset + HEADER, size))
    }

    /// The member whose header is at `offset`, with its name resolved (its data is read by
    /// [`Archive::data`]).
    fn member(&self, offset: u64) -> Option<Member> {
        let (raw, start, size) = self.header(offset)?;
        let raw = raw.trim_end();
        let name = match raw.strip_prefix('/') {
            Some(at) => {
                let at: usize = at.parse().ok()?;
                let rest = std::str::from_utf8(self.long_names.get(at..)?).ok()?;
                rest.split("/\n").next()?
            }
            None => raw.strip_suffix('/').unwrap_or(raw),
        };
        Some(Member {
            name: name.to_string(),
            start,
            size,
        })
    }

    /// The archive's file.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The data of `member`.
    fn data(&self, member: &Member) -> Option<Vec<u8>> {
        self.read(member.start, member.size)
    }
}

/// The GNU symbol index: a big-endian count, as many member offsets, then as many
/// NUL-terminated names.
fn parse_index(index: &[u8]) -> Option<HashMap<String, u64>> {
    let word = |i: usize| -> Option<u64> {
        let b = index.get(i * 4..i * 4 + 4)?;
        Some(u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]])))
    };
    let count = usize::try_from(word(0)?).ok()?;
    let mut names = index.get(4 + count.checked_mul(4)?..)?.split(|&b| b == 0);
    let mut symbols = HashMap::with_capacity(count);
    for i in 0..count {
        let name = std::str::from_utf8(names.next()?).ok()?;
        // The first member to define a symbol is the one a linker takes.
        symbols.entry(name.to_string()).or_insert(word(1 + i)?);
    }
    Some(symbols)
}

/// The archive at `path`, its index read once per process.
pub(super) fn archive(path: &Path) -> Result<Arc<Archive>, String> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Archive>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
        return Ok(found.clone());
    }
    let file = File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "musl bitcode library not found at {}: run scripts/build-musl.sh",
            path.display()
        ),
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    let archive = Arc::new(Archive::open(path, file)?);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(path.to_path_buf(), archive.clone());
    Ok(archive)
}

/// The names `module` uses without defining them: function and global declarations, less
/// LLVM's intrinsics.
pub(super) fn undefined(module: &Module<'_>) -> Vec<String> {
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

/// Whether a symbol of this linkage is seen by other modules.
fn external(linkage: Linkage) -> bool {
    !matches!(linkage, Linkage::Internal | Linkage::Private)
}

/// The external names a module defines, with their linkage: functions with a body,
/// globals with an initializer, aliases.
fn defined_names(module: &Module<'_>) -> Vec<(String, Linkage)> {
    let functions = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| (f.get_name().to_string_lossy().into_owned(), f.get_linkage()));
    let globals = module
        .get_globals()
        .filter(|g| !g.is_declaration())
        .map(|g| (g.get_name().to_string_lossy().into_owned(), g.get_linkage()));
    functions
        .chain(globals)
        .chain(aliases(module))
        .filter(|(_, linkage)| external(*linkage))
        .collect()
}

/// The names and linkages of `module`'s aliases.
fn aliases(module: &Module<'_>) -> Vec<(String, Linkage)> {
    alias_values(module)
        .into_iter()
        .map(|a| (a.get_name().to_string_lossy().into_owned(), a.get_linkage()))
        .collect()
}

/// `module`'s aliases (inkwell has no alias API).
pub(super) fn alias_values<'ctx>(module: &Module<'ctx>) -> Vec<GlobalValue<'ctx>> {
    use inkwell::llvm_sys::core::{LLVMGetFirstGlobalAlias, LLVMGetNextGlobalAlias};
    let mut out = Vec::new();
    // SAFETY: the module is alive; the walk follows LLVM's own list of its aliases.
    let mut value = unsafe { LLVMGetFirstGlobalAlias(module.as_mut_ptr()) };
    while !value.is_null() {
        // SAFETY: `value` is one of the module's aliases, a global value.
        out.push(unsafe { GlobalValue::new(value) });
        // SAFETY: as above.
        value = unsafe { LLVMGetNextGlobalAlias(value) };
    }
    out
}

/// Which members of the archive a link takes.
pub(super) struct Wanted<'a> {
    /// Names to define even when the module does not use them (a program's roots).
    pub roots: &'a [&'a str],
    /// Whether the member of this archive name may be linked.
    pub member: &'a dyn Fn(&str) -> bool,
    /// Names the link does not look for.
    pub skip: &'a dyn Fn(&str) -> bool,
    /// Names no linked member may define (a member that defines one is left out).
    pub exclude: &'a dyn Fn(&str) -> bool,
    /// Whether a name that is an alias in its member is linked (whole programs, which
    /// internalize what they link) or left undefined (function checks: an alias keeps its
    /// name through the renaming, so the two sides would share it).
    pub aliases: bool,
}

/// What [`link_members`] linked: the functions (name, and whether external) and the
/// archive members; and the names whose member was left out because it defines a name the
/// module defines too (wanted, and that name).
pub(super) struct Linked {
    pub functions: Vec<(String, bool)>,
    /// The global variables the members brought (the library's own state).
    pub globals: Vec<String>,
    pub members: Vec<String>,
    pub clashes: Vec<(String, String)>,
}

/// Links into `module` (one side, before its renaming) the math members of `archive` that
/// define what it uses and does not define, and then what those need, leaving out the
/// names in `abstract_calls` and the functions the engine runs as one IEEE operation
/// (`sqrt`, `fabs`, `floor`…: musl's bit-by-bit code would only be slower). Returns the
/// names of the functions linked, with whether each is external.
///
/// A member is left out when it defines a name of `abstract_calls` (musl's `fenv.c`
/// defines `fegetround` and `__fesetround`: abstracting the first leaves the second
/// undefined too), and when the name wanted is an alias in it (`drem`, `pow10`: an alias
/// keeps its name through the renaming, so the two sides would share it).
pub(super) fn link_math<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    archive: &Archive,
    abstract_calls: &[String],
    provided: &HashSet<String>,
) -> Result<Linked, String> {
    let exclude = |name: &str| abstract_calls.iter().any(|a| a == name);
    // What the engine runs itself (one IEEE operation, a handler such as `malloc`) or the
    // harness defines (`strlen`, `isdigit`, `__errno_location`…) stays theirs.
    let skip = |name: &str| {
        exclude(name)
            || crate::lower::float_function(name).is_some()
            || ENGINE_RUNS.contains(&name)
            || provided.contains(name)
    };
    let wanted = Wanted {
        roots: &[],
        member: &is_function_check_member,
        skip: &skip,
        exclude: &exclude,
        aliases: false,
    };
    link_members(context, module, archive, &wanted, "musl")
}

/// Whether a definition of this linkage gives way to another one (a static linker's weak
/// symbol).
fn weak(linkage: Linkage) -> bool {
    matches!(
        linkage,
        Linkage::WeakAny
            | Linkage::WeakODR
            | Linkage::LinkOnceAny
            | Linkage::LinkOnceODR
            | Linkage::ExternalWeak
            | Linkage::Common
    )
}

/// The linkage of `module`'s definition of `name` (function, global or alias), if it
/// defines it.
pub(super) fn definition(module: &Module<'_>, name: &str) -> Option<Linkage> {
    if let Some(f) = module.get_function(name) {
        return (f.count_basic_blocks() > 0).then(|| f.get_linkage());
    }
    if let Some(g) = module.get_global(name) {
        return (!g.is_declaration()).then(|| g.get_linkage());
    }
    alias(module, name).map(|g| g.get_linkage())
}

/// `module`'s alias named `name`, if it has one (inkwell has no alias API).
pub(super) fn alias<'ctx>(module: &Module<'ctx>, name: &str) -> Option<GlobalValue<'ctx>> {
    use inkwell::llvm_sys::core::LLVMGetNamedGlobalAlias;
    let (ptr, len) = (name.as_ptr().cast(), name.len());
    // SAFETY: the module is alive for 'ctx, and the name is passed with its length.
    let value = unsafe { LLVMGetNamedGlobalAlias(module.as_mut_ptr(), ptr, len) };
    // SAFETY: a non-null result is a global alias of the module, a global value.
    (!value.is_null()).then(|| unsafe { GlobalValue::new(value) })
}

/// Links into `module` (one side, before its renaming) the members of `archive` that
/// `wanted` allows and that define what the module uses and does not define (or a root it
/// lacks), and then what those need, until nothing more is wanted. `library` names the
/// archive in messages.
///
/// A member is left out when it defines, as the module does, a name neither of them
/// defines weakly (a static linker's duplicate definition), and when it defines a name
/// `wanted` excludes. A weak definition gives way to the other one, as in a static link
/// (musl's `exit` calls a weak `__stdio_exit` that `__stdio_exit.c` defines).
pub(super) fn link_members<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    archive: &Archive,
    wanted: &Wanted<'_>,
    library: &str,
) -> Result<Linked, String> {
    let triple = module.get_triple();
    let target = triple.as_str().to_string_lossy();
    if !(target.is_empty() || target.starts_with("x86_64")) {
        return Err(format!(
            "{library} is x86-64 bitcode and this module targets {target}"
        ));
    }
    let own: HashSet<FunctionValue<'ctx>> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .collect();
    let global_names = |m: &Module<'ctx>| -> Vec<String> {
        m.get_globals()
            .filter(|g| !g.is_declaration())
            .map(|g| g.get_name().to_string_lossy().into_owned())
            .collect()
    };
    let own_globals: HashSet<String> = global_names(module).into_iter().collect();
    // Members linked or left out, and names left undefined (aliases).
    let mut done: HashSet<u64> = HashSet::new();
    let mut aliases: HashSet<String> = HashSet::new();
    let mut members = Vec::new();
    let mut clashes = Vec::new();
    loop {
        let mut progress = false;
        let roots = wanted
            .roots
            .iter()
            .filter(|r| definition(module, r).is_none())
            .map(|r| r.to_string());
        let names: Vec<String> = undefined(module).into_iter().chain(roots).collect();
        for name in names {
            if (wanted.skip)(&name) || aliases.contains(&name) {
                continue;
            }
            let Some(&offset) = archive.symbols.get(&name) else {
                continue;
            };
            if done.contains(&offset) {
                continue;
            }
            let unreadable = || {
                format!(
                    "{}: member at offset {offset} is unreadable",
                    archive.path.display()
                )
            };
            let member = archive.member(offset).ok_or_else(unreadable)?;
            if !(wanted.member)(&member.name) {
                done.insert(offset);
                continue;
            }
            let data = archive.data(&member).ok_or_else(unreadable)?;
            let buffer = MemoryBuffer::create_from_memory_range_copy(&data, &member.name);
            let failed = |what: &str, e: inkwell::support::LLVMString| {
                let path = archive.path.display();
                format!("{path}({}) {what}: {}", member.name, e.to_string().trim())
            };
            let linked = Module::parse_bitcode_from_buffer(&buffer, context)
                .map_err(|e| failed("is not valid bitcode", e))?;
            let defines = linked
                .get_function(&name)
                .is_some_and(|f| f.count_basic_blocks() > 0)
                || linked
                    .get_global(&name)
                    .is_some_and(|g| !g.is_declaration())
                || (wanted.aliases && alias(&linked, &name).is_some());
            let names = defined_names(&linked);
            let clash = names.iter().find(|(n, linkage)| {
                definition(module, n).is_some_and(|own| !weak(own) && !weak(*linkage))
            });
            let excluded = names.iter().any(|(n, _)| (wanted.exclude)(n));
            if !defines {
                aliases.insert(name);
                continue;
            }
            done.insert(offset);
            if let Some((other, _)) = clash {
                clashes.push((name, other.clone()));
                continue;
            }
            if excluded {
                continue;
            }
            linked.set_triple(&triple);
            linked.set_data_layout(&module.get_data_layout());
            module
                .link_in_module(linked)
                .map_err(|e| failed("cannot be linked", e))?;
            members.push(member.name);
            progress = true;
        }
        if !progress {
            let functions = module
                .get_functions()
                .filter(|f| f.count_basic_blocks() > 0 && !own.contains(f))
                .map(|f| {
                    let name = f.get_name().to_string_lossy().into_owned();
                    (name, external(f.get_linkage()))
                })
                .collect();
            let globals = global_names(module)
                .into_iter()
                .filter(|g| !own_globals.contains(g))
                .collect();
            return Ok(Linked {
                functions,
                globals,
                members,
                clashes,
            });
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
        let header_size = HEADER as usize;
        let mut offset = MAGIC.len() + header_size + index_size + (index_size & 1);
        offset += header_size + long.len() + (long.len() & 1);
        let mut offsets = Vec::new();
        for (_, data) in members {
            offsets.push(offset);
            offset += header_size + data.len() + (data.len() & 1);
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

    /// The archive of `bytes`, written to a temporary file.
    fn open(bytes: &[u8]) -> Result<Archive, String> {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, bytes).unwrap();
        Archive::open(Path::new("libc.a"), file)
    }

    #[test]
    fn index_and_long_names_are_read() {
        let archive = open(&sample()).unwrap();
        let member = |symbol: &str| archive.member(archive.symbols[symbol]).unwrap();
        let data = |symbol: &str| archive.data(&member(symbol)).unwrap();
        assert_eq!(member("__rem_pio2").name, "src_math___rem_pio2.c.o");
        assert_eq!(data("__rem_pio2"), b"AAAA");
        assert_eq!(member("puts").name, "short.o");
        assert_eq!(data("puts"), b"BBBBBB");
        assert!(is_function_check_member(&member("__rem_pio2").name));
        assert!(!is_function_check_member(&member("puts").name));
        assert!(is_function_check_member("src_stdlib_strtol.c.o"));
        assert!(is_function_check_member("src_errno___errno_location.c.o"));
        assert!(!is_function_check_member("src_unistd_read.c.o"));
        assert!(!is_function_check_member("src_thread_pthread_create.c.o"));
        assert!(!is_function_check_member("src_prng_rand.c.o"));
        assert!(archive.member(archive.symbols["puts"] + 1).is_none());
    }

    #[test]
    fn broken_archives_are_errors_not_panics() {
        let whole = sample();
        for cut in [0, 7, 20, 70, 90] {
            assert!(open(&whole[..cut]).is_err());
        }
        let mut wrong = whole;
        wrong[MAGIC.len() + 58] = b'x';
        assert!(open(&wrong).is_err());
    }
}
