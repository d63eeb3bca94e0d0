//! Identical IR up to renaming: the fast path of `xcheck lib` (DiffKemp's, on LLVM's text).
//!
//! Each module is disassembled by `llvm-dis` (a child process, so LLVM never parses the
//! untrusted bitcode inside xcheck) and every definition and declaration is normalised:
//! - what has no meaning is dropped: comments, debug records (`#dbg_value`, calls of
//!   `llvm.dbg.*`), `!dbg` attachments, and debug-info nodes (`!DI…`) reached from other
//!   metadata (a loop's `!llvm.loop` names its source lines);
//! - local values and blocks are renamed in order of first appearance (`%#0`, `%#1`, …);
//! - what is written elsewhere in the module is inlined: named struct types (`%struct.s`
//!   becomes its body), attribute groups (`#0` its attributes), metadata (`!7` its node,
//!   `!tbaa` and `!range` keep their meaning);
//! - every global symbol (`@f`, `@.str.1`) becomes `@#k`, k its place among the symbols the
//!   definition names, and the symbols are kept in that order.
//!
//! Two functions are identical when the module headers (data layout, triple, module-level
//! assembly) agree, their
//! normalised texts are equal, and the symbols at the same places are identical in turn,
//! by one bijection between A's symbols and B's across everything reached:
//! - two declarations (functions or globals defined elsewhere) with the same name and the
//!   same normalised declaration: the same external symbol;
//! - two definitions of the same kind (function, global variable, alias) with equal
//!   normalised texts and identical symbols; a definition that other modules can see
//!   (any linkage but `internal` and `private`) keeps its name, internal ones may be
//!   renamed (`@.str.12` against `@.str.13`). A global's text holds its type, linkage,
//!   constness, alignment and initialiser.
//!
//! A cycle (recursion, a table of function pointers) is identical when the bijection stays
//! consistent: the pairs assumed while comparing are never contradicted. Two identical
//! functions then compute the same results from the same memory on every input: they are the
//! same instructions over the same (renamed) callees and globals.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// What a global symbol of a module is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `define`: a function with a body.
    Function,
    /// `declare`: a function defined elsewhere.
    Declaration,
    /// A global variable, constant or alias defined here.
    Global,
    /// A global variable defined elsewhere (`external global`).
    ExternalGlobal,
}

/// One symbol's normalised text and the global symbols it names, in order.
#[derive(Clone, Debug)]
pub struct Def {
    pub kind: Kind,
    pub text: String,
    pub refs: Vec<String>,
    /// Whether other modules can see it (a definition that is not `internal` or `private`).
    pub exported: bool,
    /// A function's parameters, each with its name in debug information if it has one
    /// (the `DILocalVariable` of argument i + 1 in the function's own scope); empty for
    /// other symbols.
    pub params: Vec<Option<String>>,
}

/// A module's symbols, normalised.
#[derive(Debug, Default)]
pub struct Listing {
    /// `target datalayout`, `target triple` and module-level assembly.
    pub header: String,
    pub defs: HashMap<String, Def>,
}

impl Listing {
    /// Disassembles `path` with `llvm-dis` and normalises it.
    pub fn of_bitcode(path: &Path) -> Result<Listing, String> {
        let out = std::process::Command::new(crate::toolchain::LLVM_DIS)
            .arg(path)
            .arg("-o")
            .arg("-")
            .output()
            .map_err(|e| format!("{}: {e}", crate::toolchain::LLVM_DIS))?;
        if !out.status.success() {
            return Err(format!(
                "{} {}: {}",
                crate::toolchain::LLVM_DIS,
                path.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Listing::parse(&String::from_utf8_lossy(&out.stdout)))
    }

    /// Normalises the text of a module (`llvm-dis`'s output).
    pub fn parse(text: &str) -> Listing {
        let mut raw = Raw::default();
        let mut lines = text.lines();
        let mut header = String::new();
        while let Some(line) = lines.next() {
            if line.starts_with("target ") || line.starts_with("module asm ") {
                header.push_str(line.trim());
                header.push('\n');
            } else if let Some(rest) = line.strip_prefix("attributes #") {
                if let Some((n, body)) = rest.split_once(" = ") {
                    raw.attrs
                        .insert(n.trim().to_string(), body.trim().to_string());
                }
            } else if line.starts_with('!') {
                if let Some((n, body)) = line.split_once(" = ") {
                    raw.meta
                        .insert(n.trim().to_string(), body.trim().to_string());
                }
            } else if line.starts_with('%') {
                if let Some((n, body)) = line.split_once(" = type ") {
                    raw.types
                        .insert(n.trim().to_string(), body.trim().to_string());
                }
            } else if line.starts_with('@') {
                if let Some(name) = symbol_at(line) {
                    let after = line.split_once(" = ").map_or("", |(_, r)| r);
                    let kind =
                        if after.starts_with("external ") || after.starts_with("extern_weak ") {
                            Kind::ExternalGlobal
                        } else {
                            Kind::Global
                        };
                    raw.items.push((name, kind, line.to_string()));
                }
            } else if line.starts_with("declare ") {
                if let Some(name) = line.find('@').and_then(|i| symbol_at(&line[i..])) {
                    raw.items.push((name, Kind::Declaration, line.to_string()));
                }
            } else if line.starts_with("define ") {
                let mut body = String::from(line);
                body.push('\n');
                for l in lines.by_ref() {
                    body.push_str(l);
                    body.push('\n');
                    if l == "}" {
                        break;
                    }
                }
                if let Some(name) = line.find('@').and_then(|i| symbol_at(&line[i..])) {
                    raw.items.push((name, Kind::Function, body));
                }
            }
        }
        let scopes = arguments_by_scope(&raw.meta);
        let mut defs = HashMap::new();
        for (name, kind, text) in &raw.items {
            let first = text.lines().next().unwrap_or("");
            let linkage = match kind {
                Kind::Global => first.split_once(" = ").map_or("", |(_, r)| r),
                _ => first.split('@').next().unwrap_or(""),
            };
            let hidden = linkage
                .split_whitespace()
                .any(|w| w == "internal" || w == "private");
            let params = if *kind == Kind::Function {
                params_of(first, &scopes)
            } else {
                Vec::new()
            };
            let (text, refs) = raw.normalise(text);
            defs.insert(
                name.clone(),
                Def {
                    kind: *kind,
                    text,
                    refs,
                    exported: matches!(kind, Kind::Function | Kind::Global) && !hidden,
                    params,
                },
            );
        }
        Listing { header, defs }
    }

    /// Everything `name` reaches, normalised, one symbol a line in the order reached: what the
    /// cache keys a function's result by. Symbols are numbered by that order, except
    /// declarations and exported definitions, which keep their names.
    pub fn closure(&self, name: &str) -> String {
        let mut order: Vec<&str> = vec![name];
        let mut seen: HashMap<&str, usize> = HashMap::from([(name, 0)]);
        let mut out = self.header.clone();
        let mut i = 0;
        while i < order.len() {
            let sym = order[i];
            i += 1;
            let Some(def) = self.defs.get(sym) else {
                out.push_str(&format!("{sym}: undefined\n"));
                continue;
            };
            let mut refs = Vec::new();
            for r in &def.refs {
                let shown = match self.defs.get(r.as_str()) {
                    Some(d) if !d.exported && matches!(d.kind, Kind::Function | Kind::Global) => {
                        let next = order.len();
                        let k = *seen.entry(r.as_str()).or_insert_with(|| {
                            order.push(r.as_str());
                            next
                        });
                        format!("#{k}")
                    }
                    _ => {
                        if !seen.contains_key(r.as_str()) {
                            seen.insert(r.as_str(), order.len());
                            order.push(r.as_str());
                        }
                        r.clone()
                    }
                };
                refs.push(shown);
            }
            let label = if def.exported || !matches!(def.kind, Kind::Function | Kind::Global) {
                sym.to_string()
            } else {
                format!("#{}", i - 1)
            };
            out.push_str(&format!(
                "{label} {:?} [{}]\n{}\n",
                def.kind,
                refs.join(" "),
                def.text
            ));
        }
        out
    }
}

/// Whether function `name` of `a` and function `name` of `b` are identical up to renaming
/// (the module comment's rule).
pub fn identical(a: &Listing, b: &Listing, name: &str) -> bool {
    if a.header != b.header {
        return false;
    }
    let mut pairs = Bijection::default();
    same(a, b, name, name, &mut pairs)
}

/// The pairs of symbols assumed identical so far, both ways.
#[derive(Default)]
struct Bijection {
    ab: HashMap<String, String>,
    ba: HashMap<String, String>,
}

fn same(a: &Listing, b: &Listing, sa: &str, sb: &str, pairs: &mut Bijection) -> bool {
    match (pairs.ab.get(sa), pairs.ba.get(sb)) {
        (Some(x), Some(y)) => return x == sb && y == sa,
        (None, None) => {}
        _ => return false,
    }
    pairs.ab.insert(sa.to_string(), sb.to_string());
    pairs.ba.insert(sb.to_string(), sa.to_string());
    let (Some(da), Some(db)) = (a.defs.get(sa), b.defs.get(sb)) else {
        // A symbol named but neither defined nor declared: only the very same name.
        return sa == sb && !a.defs.contains_key(sa) && !b.defs.contains_key(sb);
    };
    if da.kind != db.kind || da.text != db.text || da.refs.len() != db.refs.len() {
        return false;
    }
    match da.kind {
        Kind::Declaration | Kind::ExternalGlobal => return sa == sb,
        Kind::Function | Kind::Global => {
            if (da.exported || db.exported) && sa != sb {
                return false;
            }
        }
    }
    da.refs
        .iter()
        .zip(&db.refs)
        .all(|(ra, rb)| same(a, b, ra, rb, pairs))
}

/// The module-level text a definition's normalisation inlines.
#[derive(Default)]
struct Raw {
    attrs: HashMap<String, String>,
    meta: HashMap<String, String>,
    types: HashMap<String, String>,
    items: Vec<(String, Kind, String)>,
}

impl Raw {
    /// The normalised text of one definition (the module comment's rules) and the global
    /// symbols it names, in order of first appearance.
    fn normalise(&self, text: &str) -> (String, Vec<String>) {
        let mut n = Normaliser {
            raw: self,
            locals: HashMap::new(),
            refs: Vec::new(),
            ref_index: HashMap::new(),
        };
        let mut out = String::new();
        for line in text.lines() {
            let code = strip_comment(line);
            let trimmed = code.trim();
            if trimmed.is_empty() || trimmed.starts_with("#dbg_") || trimmed.contains("@llvm.dbg.")
            {
                continue;
            }
            let code = drop_dbg(trimmed);
            // A block's label (`5:`, `for.body:`) names the local `%5`.
            let is_label = !line.starts_with(' ')
                && code.ends_with(':')
                && !code.contains(' ')
                && !code.starts_with("define");
            if is_label {
                let local = format!("%{}", &code[..code.len() - 1]);
                let mut s = String::new();
                n.rewrite(&local, &mut s, &mut HashSet::new());
                out.push_str(&s);
                out.push_str(":\n");
                continue;
            }
            n.rewrite(&code, &mut out, &mut HashSet::new());
            out.push('\n');
        }
        (out, n.refs)
    }
}

struct Normaliser<'r> {
    raw: &'r Raw,
    locals: HashMap<String, usize>,
    refs: Vec<String>,
    ref_index: HashMap<String, usize>,
}

impl Normaliser<'_> {
    /// Appends the normalised `code` to `out`; `open` holds the metadata and types being
    /// inlined (a cycle is written as a back reference).
    fn rewrite(&mut self, code: &str, out: &mut String, open: &mut HashSet<String>) {
        let bytes = code.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            match c {
                b'"' => {
                    let end = string_end(code, i);
                    out.push_str(&code[i..end]);
                    i = end;
                }
                b'@' | b'%' => {
                    let (name, end) = ident(code, i);
                    if name.len() <= 1 {
                        out.push(c as char);
                        i += 1;
                        continue;
                    }
                    if c == b'@' {
                        let sym = unquote(&name[1..]);
                        let next = self.refs.len();
                        let k = *self.ref_index.entry(sym.clone()).or_insert(next);
                        if k == next {
                            self.refs.push(sym);
                        }
                        out.push_str(&format!("@#{k}"));
                    } else if let Some(body) = self.raw.types.get(&name) {
                        if open.insert(name.clone()) {
                            self.rewrite(body, out, open);
                            open.remove(&name);
                        } else {
                            out.push_str("%<cycle>");
                        }
                    } else {
                        let next = self.locals.len();
                        let k = *self.locals.entry(name).or_insert(next);
                        out.push_str(&format!("%#{k}"));
                    }
                    i = end;
                }
                b'#' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                    let end = digits_end(bytes, i + 1);
                    let group = &code[i + 1..end];
                    out.push_str(&format!(
                        "#{{{}}}",
                        self.raw.attrs.get(group).map_or("?", String::as_str)
                    ));
                    i = end;
                }
                b'!' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                    let end = digits_end(bytes, i + 1);
                    let id = code[i..end].to_string();
                    match self.raw.meta.get(&id) {
                        Some(node)
                            if node.starts_with("!DI") || node.starts_with("distinct !DI") =>
                        {
                            out.push_str("!DI")
                        }
                        Some(node) if open.insert(id.clone()) => {
                            let node = node.clone();
                            out.push_str("!<");
                            self.rewrite(&node, out, open);
                            out.push('>');
                            open.remove(&id);
                        }
                        Some(_) => out.push_str("!<self>"),
                        None => out.push_str("!?"),
                    }
                    i = end;
                }
                _ => {
                    out.push(c as char);
                    i += 1;
                }
            }
        }
    }
}

/// The symbol named at the start of `s` (`@name` or `@"quoted name"`), unquoted.
/// The named arguments of each scope: `!N = !DILocalVariable(name: "x", arg: K, scope: !S, …)`
/// gives argument K of scope `!S` the name x.
fn arguments_by_scope(meta: &HashMap<String, String>) -> HashMap<String, BTreeMap<usize, String>> {
    let field = |body: &str, key: &str| -> Option<String> {
        let at = body.find(key)? + key.len();
        let rest = &body[at..];
        let value = match rest.strip_prefix('"') {
            Some(quoted) => &quoted[..quoted.find('"')?],
            None => rest.split([',', ')']).next()?,
        };
        Some(value.trim().to_string())
    };
    let mut scopes: HashMap<String, BTreeMap<usize, String>> = HashMap::new();
    for body in meta.values() {
        let body = body.trim_start_matches("distinct ");
        if !body.starts_with("!DILocalVariable(") {
            continue;
        }
        let (Some(name), Some(arg), Some(scope)) = (
            field(body, "name: "),
            field(body, "arg: ").and_then(|a| a.parse::<usize>().ok()),
            field(body, "scope: "),
        ) else {
            continue;
        };
        scopes.entry(scope).or_default().entry(arg).or_insert(name);
    }
    scopes
}

/// A `define` line's parameters with their debug names: as many as its parameter list has
/// (top-level commas), named from the `DILocalVariable`s of its `!dbg` scope.
fn params_of(
    define: &str,
    scopes: &HashMap<String, BTreeMap<usize, String>>,
) -> Vec<Option<String>> {
    let Some(at) = define.find('@') else {
        return Vec::new();
    };
    let (_, end) = ident(define, at);
    let Some(list) = define[end..].strip_prefix('(') else {
        return Vec::new();
    };
    let (mut depth, mut count, mut any) = (0usize, 0usize, false);
    for c in list.chars() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' if depth > 0 => depth -= 1,
            ')' => break,
            ',' if depth == 0 => count += 1,
            c if !c.is_whitespace() => any = true,
            _ => {}
        }
    }
    let count = if any { count + 1 } else { 0 };
    let named = define
        .split_once(" !dbg ")
        .and_then(|(_, r)| r.split_whitespace().next())
        .and_then(|scope| scopes.get(scope));
    (1..=count)
        .map(|arg| named.and_then(|n| n.get(&arg).cloned()))
        .collect()
}

fn symbol_at(s: &str) -> Option<String> {
    let (name, _) = ident(s, 0);
    (name.len() > 1).then(|| unquote(&name[1..]))
}

/// The identifier starting at `i` (a sigil, then a quoted string or name characters) and
/// where it ends.
fn ident(s: &str, i: usize) -> (String, usize) {
    let bytes = s.as_bytes();
    let mut j = i + 1;
    if bytes.get(j) == Some(&b'"') {
        j = string_end(s, j);
    } else {
        while j < bytes.len()
            && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'_' | b'.' | b'$' | b'-'))
        {
            j += 1;
        }
    }
    (s[i..j].to_string(), j)
}

fn unquote(name: &str) -> String {
    name.trim_matches('"').to_string()
}

/// Where the string literal opening at `i` ends (after its closing quote).
fn string_end(s: &str, i: usize) -> usize {
    s[i + 1..].find('"').map_or(s.len(), |k| i + 1 + k + 1)
}

fn digits_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// `line` without its comment (`;` outside a string literal).
fn strip_comment(line: &str) -> &str {
    let mut in_string = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_string = !in_string,
            ';' if !in_string => return &line[..i],
            _ => {}
        }
    }
    line
}

/// `code` without its `!dbg !N` attachments.
fn drop_dbg(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(i) = out.find("!dbg !") {
        let end = digits_end(out.as_bytes(), i + 6);
        let start = if out[..i].ends_with(", ") {
            i - 2
        } else if out[..i].ends_with(' ') {
            i - 1
        } else {
            i
        };
        out.replace_range(start..end, "");
    }
    out
}

/// Counts for the report: how many symbols each side's listing holds, by kind.
pub fn census(l: &Listing) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for d in l.defs.values() {
        let k = match d.kind {
            Kind::Function => "functions",
            Kind::Declaration => "declarations",
            Kind::Global => "globals",
            Kind::ExternalGlobal => "external globals",
        };
        *m.entry(k).or_insert(0) += 1;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = r#"target triple = "x86_64-unknown-linux-musl"
@.str = private unnamed_addr constant [3 x i8] c"ab\00", align 1
@tab = internal global i32 7, align 4
define dso_local i32 @f(i32 noundef %0) #0 !dbg !5 {
    #dbg_value(i32 %0, !6, !DIExpression(), !7)
  %2 = call i32 @g(i32 %0), !dbg !8
  %3 = load i32, ptr @tab, align 4, !tbaa !9
  %4 = add i32 %2, %3
  %5 = load i8, ptr @.str, align 1
  ret i32 %4
}
define internal i32 @g(i32 %0) {
  ret i32 %0
}
attributes #0 = { nounwind }
!9 = !{!"int", !10}
!10 = !{!"tbaa root"}
"#;

    fn listing(text: &str) -> Listing {
        Listing::parse(text)
    }

    #[test]
    fn parameters_are_named_from_their_function_s_own_scope() {
        let text = r#"define dso_local i32 @h(ptr noundef %0, { i32, i64 } %1, <2 x i32> %2) !dbg !5 {
  ret i32 0
}
define void @none() {
  ret void
}
!6 = !DILocalVariable(name: "out", arg: 1, scope: !5, file: !1, line: 3, type: !7)
!8 = !DILocalVariable(name: "inlined", arg: 2, scope: !9, file: !1, line: 9, type: !7)
!10 = !DILocalVariable(name: "local", scope: !5, file: !1, line: 4, type: !7)
!11 = !DILocalVariable(name: "v", arg: 3, scope: !5, file: !1, line: 3, type: !7)
"#;
        let l = listing(text);
        assert_eq!(
            l.defs["h"].params,
            [Some("out".to_string()), None, Some("v".to_string())]
        );
        assert!(l.defs["none"].params.is_empty());
    }

    #[test]
    fn renamed_internals_and_debug_info_do_not_matter() {
        let b = A
            .replace("@g", "@g.1")
            .replace("@tab", "@tab.2")
            .replace("!dbg !8", "!dbg !99")
            .replace("%2", "%x")
            .replace("!9", "!19");
        assert!(identical(&listing(A), &listing(&b), "f"));
    }

    #[test]
    fn a_changed_callee_global_or_attribute_does() {
        for (from, to) in [
            ("ret i32 %0\n}", "ret i32 1\n}"),
            ("global i32 7", "global i32 8"),
            ("{ nounwind }", "{ }"),
            (r#"c"ab\00""#, r#"c"ac\00""#),
            ("!\"int\"", "!\"long\""),
            ("internal i32 @g", "i32 @g"),
        ] {
            let b = A.replace(from, to);
            assert_ne!(A, b, "{from}");
            assert!(!identical(&listing(A), &listing(&b), "f"), "{from} → {to}");
        }
    }

    #[test]
    fn an_exported_callee_keeps_its_name() {
        let a = A.replace("internal i32 @g", "i32 @g");
        let b = a.replace("@g", "@h");
        assert!(identical(&listing(&a), &listing(&a), "f"));
        assert!(!identical(&listing(&a), &listing(&b), "f"));
    }

    #[test]
    fn one_symbol_of_a_cannot_stand_for_two_of_b() {
        // f reads @tab and calls g; in A g reads @tab too, in B an equal @tab2.
        let a = A.replace(
            "ret i32 %0\n}",
            "%2 = load i32, ptr @tab, align 4\n  ret i32 %2\n}",
        );
        let b = a
            .replace(
                "@tab = internal",
                "@tab2 = internal global i32 7, align 4\n@tab = internal",
            )
            .replace("%2 = load i32, ptr @tab,", "%2 = load i32, ptr @tab2,");
        assert!(identical(&listing(&a), &listing(&a), "f"));
        assert!(!identical(&listing(&a), &listing(&b), "f"));
    }
}
