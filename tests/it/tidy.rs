//! Layering and hygiene rules of ARCHITECTURE.md, checked on the source tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn all_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    files.sort();
    assert!(files.len() > 20, "source tree not found");
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn every_module_starts_with_a_doc_comment() {
    for (path, text) in all_sources() {
        assert!(
            text.starts_with("//!"),
            "{path} must start with a `//!` line saying what it is for"
        );
    }
}

#[test]
fn only_load_and_lower_touch_llvm() {
    for (path, text) in all_sources() {
        let allowed = path.starts_with("src/load/") || path.starts_with("src/lower/");
        let uses_llvm = text.contains("inkwell") || text.contains("llvm_sys");
        assert!(
            allowed || !uses_llvm,
            "{path} must not use inkwell/llvm_sys (only load/ and lower/ do)"
        );
    }
}

#[test]
fn only_the_backend_uses_the_bitwuzla_bindings() {
    for (path, text) in all_sources() {
        if text.contains("bitwuzla_sys") {
            assert_eq!(
                path, "src/solver/bitwuzla.rs",
                "only the backend may use bitwuzla_sys"
            );
        }
        if !path.starts_with("src/solver/") {
            assert!(
                !text.to_lowercase().contains("bitwuzla"),
                "{path} names Bitwuzla; only src/solver/ may"
            );
        }
    }
}

#[test]
fn only_the_second_backend_uses_the_z3_bindings() {
    for (path, text) in all_sources() {
        if text.contains("z3_sys") {
            assert_eq!(
                path, "src/solver/z3.rs",
                "only the Z3 backend may use z3_sys"
            );
        }
        if !path.starts_with("src/solver/") {
            assert!(
                !text.to_lowercase().contains("z3"),
                "{path} names Z3; only src/solver/ may"
            );
        }
    }
}

/// The lines of `text` outside its `#[cfg(test)] mod … { … }` blocks (a block opened at the
/// start of a line and closed by a `}` at the start of a line): what the size rule measures.
fn logic_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let (mut count, mut i) = (0, 0);
    while i < lines.len() {
        let opens_tests = lines[i] == "#[cfg(test)]"
            && lines
                .get(i + 1)
                .is_some_and(|l| l.starts_with("mod ") && l.ends_with('{'));
        if opens_tests {
            i += 2;
            while i < lines.len() && lines[i] != "}" {
                i += 1;
            }
            i += 1;
            continue;
        }
        count += 1;
        i += 1;
    }
    count
}

#[test]
fn the_size_rule_leaves_test_modules_out() {
    let text = "fn a() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\nfn b() {}\n";
    assert_eq!(logic_lines(text), 2);
    assert_eq!(
        logic_lines("fn a() {}\n#[cfg(test)]\nfn only_in_tests() {}\n"),
        3
    );
}

#[test]
fn logic_files_stay_small() {
    // Logic, not its tests: a file is split by responsibility, not to make room for tests.
    for (path, text) in all_sources() {
        let lines = logic_lines(&text);
        assert!(
            lines <= 1500,
            "{path} has {lines} lines of logic (tests left out); split it by responsibility"
        );
    }
}

#[test]
fn no_stubs_in_the_engine() {
    for (path, text) in all_sources() {
        for stub in ["todo!(", "unimplemented!("] {
            assert!(!text.contains(stub), "{path} contains {stub}");
        }
    }
}

/// Why a solver gave up is a `solver::GiveUp` variant, not words made up on the spot: outside
/// tests no `Unknown(…)` answer is built from a string literal or a `format!`, and
/// `GiveUp::Other` (a reason read back from text) is built only by `solver/give_up.rs`.
#[test]
fn give_up_reasons_are_typed() {
    let mut wrong = Vec::new();
    for (path, text) in all_sources() {
        let code = without_tests(&code_only(&text));
        for (at, _) in code.match_indices("Unknown(") {
            let rest = code[at + "Unknown(".len()..].trim_start();
            if rest.starts_with('.') || rest.starts_with("format!") {
                let line = code[..at].lines().count();
                wrong.push(format!("{path}:{line}: an Unknown reason made of text"));
            }
        }
        if path != "src/solver/give_up.rs" && code.contains("GiveUp::Other(") {
            wrong.push(format!("{path}: builds GiveUp::Other"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One module-root style: a module with files of its own is a directory with `mod.rs` (never
/// `foo.rs` beside `foo/`), any other module a single file.
#[test]
fn module_roots_are_dir_mod_rs() {
    fn dirs(dir: &Path, wrong: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() {
                continue;
            }
            if !path.join("mod.rs").is_file() {
                wrong.push(format!(
                    "{}: a module directory without mod.rs",
                    path.display()
                ));
            }
            if path.with_extension("rs").exists() {
                wrong.push(format!("{}.rs beside its directory", path.display()));
            }
            dirs(&path, wrong);
        }
    }
    let mut wrong = Vec::new();
    dirs(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut wrong,
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The files whose types are a file format (serde), and which format. The report model, the
/// engine and the checks have none: `report.json`'s shape is `report/schema.rs`'s, converted
/// from and to the model, so changing an internal type cannot change a file by accident.
const SERDE_ALLOWED: &[(&str, &str)] = &[
    ("src/report/schema.rs", "report.json, written and read back"),
    (
        "src/report/json.rs",
        "--json lines (their summary is the schema's)",
    ),
    ("src/report/suite.rs", "suite.json"),
    ("src/gate/report.rs", "a gate shard's shard.json"),
    ("src/libgate/cache.rs", "xcheck lib --cache entries"),
    ("src/config/", "xcheck.toml"),
    (
        "src/suite/mismatches.rs",
        "a suite's known mismatches (TOML)",
    ),
];

#[test]
fn serialized_types_only_in_their_formats_homes() {
    let mut wrong = Vec::new();
    for (path, text) in all_sources() {
        let code = without_tests(&code_only(&text));
        let serde = ["serde::", "Serialize", "Deserialize", "#[serde("]
            .iter()
            .any(|s| code.contains(s));
        if serde && !SERDE_ALLOWED.iter().any(|(p, _)| path.starts_with(p)) {
            wrong.push(format!(
                "{path}: serde outside SERDE_ALLOWED (report.json's types are report/schema.rs's)"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The crate's top-level modules (a file `src/x.rs` or a directory `src/x/`) and the modules
/// each may import. A module not listed here fails `imports_follow_the_stage_table`, so a new
/// module is placed in the table when it is added. The table itself must be acyclic.
const ALLOWED_IMPORTS: &[(&str, &[&str])] = &[
    // Leaves: shared vocabulary that imports nothing of the engine.
    ("stop", &[]),
    // Counter structs declared once (fields, sum, report labels).
    ("counters", &[]),
    ("progress", &[]),
    ("env_options", &[]),
    ("input", &[]),
    ("assume", &[]),
    // The LLVM tools xcheck runs (one version for all).
    ("toolchain", &[]),
    ("expr", &[]),
    ("ir", &["expr"]),
    // The solver chain works on expressions only.
    ("solver", &["counters", "expr", "input", "stop"]),
    ("error", &["solver"]),
    // Front of the pipeline: bitcode → IR.
    ("lower", &["expr", "ir"]),
    ("load", &["error", "input", "ir", "lower", "toolchain"]),
    // The engine: never the front end, never lowering or loading.
    (
        "exec",
        &[
            "counters", "error", "expr", "input", "ir", "progress", "solver", "stop",
        ],
    ),
    // Proofs for every trip count, by induction over the two loops.
    ("induction", &["exec", "expr", "ir", "solver", "stop"]),
    // Files people and tools read; the report is a model of its own.
    ("ktest", &["error", "input"]),
    ("report", &["ktest", "progress"]),
    // Verdicts over the engine.
    (
        "crosscheck",
        &[
            "assume",
            "env_options",
            "error",
            "exec",
            "expr",
            "induction",
            "input",
            "ir",
            "ktest",
            "load",
            "report",
            "solver",
            "stop",
        ],
    ),
    (
        "native",
        &[
            "crosscheck",
            "env_options",
            "error",
            "exec",
            "expr",
            "input",
            "ktest",
            "report",
            "stop",
            "toolchain",
        ],
    ),
    (
        "config",
        &[
            "assume",
            "crosscheck",
            "error",
            "exec",
            "input",
            "report",
            "solver",
        ],
    ),
    (
        "gate",
        &[
            "config",
            "crosscheck",
            "error",
            "exec",
            "ir",
            "ktest",
            "load",
            "report",
            "solver",
            "stop",
        ],
    ),
    // Two builds of a library, function by function: the gate's jobs with an identical-IR
    // fast path (llvm-dis's text), a result cache and native confirmation of differences.
    (
        "libgate",
        &[
            "config",
            "crosscheck",
            "error",
            "gate",
            "ir",
            "ktest",
            "native",
            "report",
            "exec",
            "stop",
            "toolchain",
        ],
    ),
    // Joining a sharded run's output directories (a gate run's through `gate`'s manifest).
    (
        "shards",
        &[
            "crosscheck",
            "error",
            "exec",
            "gate",
            "input",
            "ktest",
            "report",
        ],
    ),
    // A whole suite of program checks, each a child process, with one table.
    (
        "suite",
        &[
            "crosscheck",
            "env_options",
            "error",
            "ktest",
            "native",
            "report",
            "stop",
        ],
    ),
    // Only the command line, the commands and the binary sit on top.
    // The command line: arguments parsed and validated into the library's types.
    (
        "cli",
        &[
            "config",
            "crosscheck",
            "env_options",
            "error",
            "exec",
            "libgate",
            "load",
            "solver",
            "stop",
        ],
    ),
    // The commands' bodies, run with the arguments `cli` parsed.
    (
        "cmd",
        &[
            "cli",
            "config",
            "crosscheck",
            "env_options",
            "error",
            "exec",
            "expr",
            "gate",
            "ir",
            "ktest",
            "libgate",
            "load",
            "native",
            "report",
            "shards",
            "solver",
            "stop",
            "suite",
            "toolchain",
        ],
    ),
    ("main", &["cmd", "error", "load", "stop"]),
];

/// Source with comments, string and character literals blanked (same length, newlines kept),
/// so that a path or a keyword in prose is not taken for code.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut String, s: &[u8]| {
        for &c in s {
            out.push(if c == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i] == b'"' || (b[i] == b'r' && b[i..].starts_with(b"r#")) {
            // A string literal: `"…"` with escapes, or a raw string `r#…"…"#…`.
            let end = if b[i] == b'"' {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                j + 1
            } else {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                text[i + 2 + hashes..]
                    .find(&close)
                    .map_or(b.len(), |p| i + 2 + hashes + p + close.len())
            };
            let end = end.min(b.len());
            blank(&mut out, &b[i..end]);
            i = end;
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            blank(&mut out, &b[i..i + 3]);
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            let end = b[i + 2..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(b.len(), |p| i + 3 + p);
            blank(&mut out, &b[i..end]);
            i = end;
        } else {
            let len = text[i..].chars().next().unwrap().len_utf8();
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// `code` without its `#[cfg(test)]` items: unit tests may use any module.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // The item ends at the `;` or the brace that closes its first `{`.
        let open = after.find('{');
        let semi = after.find(';');
        let end = match (open, semi) {
            (Some(o), Some(s)) if s < o => s + 1,
            (Some(o), _) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, c) in after[o..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = o + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Every path named after `prefix::` in `code`, with use trees (`{a, b::{c, d}}`) expanded.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    fn ident(s: &[u8], i: &mut usize) -> Option<String> {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
        let start = *i;
        while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
            *i += 1;
        }
        (*i > start).then(|| String::from_utf8_lossy(&s[start..*i]).into_owned())
    }
    fn skip_ws(s: &[u8], i: &mut usize) {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }
    /// Parses a path or a use tree at `i`, appending each full path to `out`.
    fn tree(s: &[u8], i: &mut usize, base: &[String], out: &mut Vec<Vec<String>>) {
        skip_ws(s, i);
        if s.get(*i) == Some(&b'{') {
            *i += 1;
            loop {
                skip_ws(s, i);
                match s.get(*i) {
                    Some(b'}') => {
                        *i += 1;
                        return;
                    }
                    Some(b',') => *i += 1,
                    None => return,
                    _ => {
                        let before = *i;
                        tree(s, i, base, out);
                        if *i == before {
                            *i += 1; // `*` or another token: skip it.
                        }
                    }
                }
            }
        }
        let mut path = base.to_vec();
        while let Some(name) = ident(s, i) {
            path.push(name);
            skip_ws(s, i);
            if s[*i..].starts_with(b"::") {
                *i += 2;
                skip_ws(s, i);
                if s.get(*i) == Some(&b'{') {
                    tree(s, i, &path, out);
                    return;
                }
            } else {
                break;
            }
        }
        if path.len() > base.len() {
            out.push(path);
        }
    }
    let s = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find(prefix) {
        let at = from + p;
        from = at + prefix.len();
        let boundary = at == 0 || !(s[at - 1].is_ascii_alphanumeric() || s[at - 1] == b'_');
        if !boundary || !code[from..].starts_with("::") {
            continue;
        }
        let mut i = from + 2;
        tree(s, &mut i, &[], &mut out);
    }
    out
}

/// One source file's place in the module tree: its top-level module, and its file module
/// inside that (`None` for `src/x.rs` and `src/x/mod.rs`).
struct Place {
    top: String,
    file: Option<String>,
}

fn place(path: &str) -> Place {
    let rel = path.trim_start_matches("src/").trim_end_matches(".rs");
    let mut parts = rel.split('/');
    let top = parts.next().unwrap().to_string();
    let file = parts.next().filter(|f| *f != "mod").map(str::to_string);
    Place { top, file }
}

/// The imports of the crate: per source file, the full paths it names below `crate::`
/// (`super::` resolved, `xcheck::` in the binary), tests left out.
fn crate_paths() -> Vec<(String, Vec<Vec<String>>)> {
    all_sources()
        .into_iter()
        .map(|(path, text)| {
            let code = without_tests(&code_only(&text));
            let here = place(&path);
            let mut paths = paths_after(&code, "crate");
            paths.extend(paths_after(&code, "xcheck"));
            for mut p in paths_after(&code, "super") {
                if here.file.is_some() {
                    p.insert(0, here.top.clone());
                }
                paths.push(p);
            }
            (path, paths)
        })
        .collect()
}

/// The top-level modules each module imports, with a file that does it.
fn module_graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let known: BTreeSet<String> = all_sources().iter().map(|(p, _)| place(p).top).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, paths) in crate_paths() {
        let from = place(&path).top;
        if from == "lib" {
            continue; // The crate root declares the modules.
        }
        let entry = graph.entry(from.clone()).or_default();
        for p in paths {
            let to = match p[0].as_str() {
                // The crate root re-exports `error::{Error, Result}`.
                "Error" | "Result" => "error".to_string(),
                m => m.to_string(),
            };
            if to != from && known.contains(&to) {
                entry.entry(to).or_insert_with(|| path.clone());
            }
        }
    }
    graph
}

/// A cycle in `graph`, as the nodes along it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|n| n == node).unwrap();
                let mut cycle = stack[at..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_stage_table_has_no_cycle() {
    let graph: BTreeMap<String, BTreeSet<String>> = ALLOWED_IMPORTS
        .iter()
        .map(|(m, deps)| (m.to_string(), deps.iter().map(|d| d.to_string()).collect()))
        .collect();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("ALLOWED_IMPORTS has a cycle: {}", cycle.join(" → "));
    }
}

#[test]
fn imports_follow_the_stage_table() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED_IMPORTS.iter().copied().collect();
    let mut wrong = Vec::new();
    for (from, deps) in module_graph() {
        let Some(ok) = allowed.get(from.as_str()) else {
            wrong.push(format!(
                "module `{from}` is not in tidy.rs's ALLOWED_IMPORTS"
            ));
            continue;
        };
        for (to, file) in deps {
            if !ok.contains(&to.as_str()) {
                wrong.push(format!("{file}: `{from}` may not import `{to}`"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the stage table (ARCHITECTURE.md):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_cycles_between_modules_or_files() {
    let graph: BTreeMap<String, BTreeSet<String>> = module_graph()
        .into_iter()
        .map(|(m, deps)| (m, deps.into_keys().collect()))
        .collect();
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between modules: {}", cycle.join(" → "));
    }
    // Inside a directory module: its files, with the names `mod.rs` re-exports resolved to
    // the file that defines them. `mod.rs` itself is the module's face, not a node.
    let sources = all_sources();
    let mut files: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut reexports: BTreeMap<(String, String), String> = BTreeMap::new();
    for (path, text) in &sources {
        let here = place(path);
        match here.file {
            Some(f) => {
                files.entry(here.top).or_default().insert(f);
            }
            None if path.ends_with("/mod.rs") => {
                let code = code_only(text);
                for line in code.lines() {
                    let Some(rest) = line.trim().strip_prefix("pub use ") else {
                        continue;
                    };
                    for p in paths_after(&format!("x::{rest}"), "x") {
                        if p.len() >= 2 {
                            reexports
                                .insert((here.top.clone(), p[p.len() - 1].clone()), p[0].clone());
                        }
                    }
                }
            }
            None => {}
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, paths) in crate_paths() {
        let here = place(&path);
        let Some(me) = here.file else { continue };
        let siblings = &files[&here.top];
        let node = format!("{}::{me}", here.top);
        let edges = graph.entry(node).or_default();
        for p in paths {
            if p[0] != here.top || p.len() < 2 {
                continue;
            }
            let target = if siblings.contains(&p[1]) {
                Some(p[1].clone())
            } else {
                reexports.get(&(here.top.clone(), p[1].clone())).cloned()
            };
            if let Some(t) = target.filter(|t| *t != me) {
                edges.insert(format!("{}::{t}", here.top));
            }
        }
    }
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between files: {}", cycle.join(" → "));
    }
}

/// The files that may hold `unsafe` code, and why. Everything else is safe Rust.
const UNSAFE_ALLOWED: &[(&str, &str)] = &[
    ("src/lower/", "LLVM's C API (llvm_sys) during lowering"),
    ("src/solver/bitwuzla.rs", "Bitwuzla's C API"),
    ("src/solver/z3.rs", "Z3's C API"),
    (
        "src/solver/portfolio.rs",
        "setpriority, so that the raced backend only uses idle CPU",
    ),
    (
        "src/expr/store.rs",
        "expression chunks written once and read without a lock",
    ),
    (
        "src/exec/executor.rs",
        "malloc_trim, so that --max-memory follows what live states use (glibc keeps freed memory)",
    ),
    (
        "src/load/isolate.rs",
        "setrlimit, so that the bitcode-parsing child's crashes leave no core file",
    ),
    (
        "src/load/libm.rs",
        "LLVM's C API (llvm_sys) for global aliases, which inkwell does not wrap",
    ),
    (
        "src/load/musl.rs",
        "LLVM's C API (llvm_sys): the globaldce pass, as `xcheck cc`'s opt runs it",
    ),
    ("tests/it/ktest_fuzz.rs", "a counting global allocator"),
    ("tests/it/limits.rs", "kill(2) of a child process by signal"),
];

#[test]
fn unsafe_code_only_where_allowed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    sources(&root.join("tests"), &mut files);
    files.push(root.join("build.rs"));
    let mut wrong = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_only(&text);
        let allowed = UNSAFE_ALLOWED.iter().any(|(p, _)| rel.starts_with(p));
        for (n, line) in code.lines().enumerate() {
            let has_unsafe = line
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == "unsafe");
            if has_unsafe && !allowed {
                wrong.push(format!(
                    "{rel}:{}: unsafe code outside UNSAFE_ALLOWED",
                    n + 1
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The `unsafe` blocks of the files that are not an FFI binding each say why they are sound.
#[test]
fn unsafe_blocks_outside_ffi_have_a_safety_comment() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in [
        "src/expr/store.rs",
        "src/exec/executor.rs",
        "src/load/libm.rs",
        "src/load/musl.rs",
    ] {
        let Ok(text) = std::fs::read_to_string(root.join(file)) else {
            continue;
        };
        let code = code_only(&text);
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in code.lines().enumerate() {
            if !line.contains("unsafe {") && !line.contains("unsafe impl") {
                continue;
            }
            // A `// SAFETY:` comment on the line or in the comments and attributes just above.
            let above = lines[..n].iter().rev().take_while(|l| {
                let l = l.trim_start();
                l.starts_with("//") || l.starts_with("#[")
            });
            let said =
                lines[n].contains("SAFETY:") || above.into_iter().any(|l| l.contains("SAFETY:"));
            assert!(
                said,
                "{file}:{}: an unsafe block without a `// SAFETY:` comment",
                n + 1
            );
        }
    }
}

/// The engine's stages never write to the terminal: progress goes through shared counters
/// that the front end draws, and what users must know goes into the report (its notes).
#[test]
fn the_engine_does_not_write_to_the_terminal() {
    let stages = ["src/exec/", "src/expr/", "src/solver/", "src/crosscheck/"];
    for (path, text) in all_sources() {
        if !stages.iter().any(|s| path.starts_with(s)) {
            continue;
        }
        // Unit tests may print what they measured.
        let code = without_tests(&code_only(&text));
        for writer in [
            "print!(",
            "println!(",
            "eprint!(",
            "eprintln!(",
            "std::io::stderr",
            "std::io::stdout",
            "dbg!(",
        ] {
            assert!(
                !code.contains(writer),
                "{path} uses {writer}: the engine does not write to the terminal"
            );
        }
    }
}
