#!/usr/bin/env python3
"""Mutation testing of xcheck's function checks (issue 10's second oracle).

For every function pair in corpora/* (a.c is the reference; case.toml names the function),
the reference is mutated one token at a time by a deterministic source rewriter:
comparison operators (< <=, > >=, == !=), arithmetic and bitwise operators (+ -, & |, ^ |,
<< >>, && ||, += -=, ++ --), integer constants +1 and -1 (in the function bodies and in
#define lines: loop bounds, masks, table sizes), dropped `break`s and negated `if`
conditions. Each mutant is built like the corpus (scripts/build-corpora.sh's flags, without
-Werror: a warning does not make a mutant invalid) and crosschecked against the reference
with `xcheck ref.bc mutant.bc --function f` and the case's arguments (its first check that
expects "equivalent", else its first check).

A mutant is
  caught        xcheck exits 1 with a confirmed test, AND at least one of its tests
                diverges natively: a generated driver linked with the native object of the
                reference, and another linked with that of the mutant (both compiled from
                the very bitcode xcheck checked), run on the test's objects (scalars
                little-endian, pointer parameters as buffers that end at a PROT_NONE page,
                so a read past the end faults as xcheck's out-of-bounds error does, and
                again as buffers that start right after one), print different results or
                only one of them fails;
  unconfirmed   xcheck exits 1 but no test diverges natively (an engine or replay bug);
  equivalent    xcheck proves it EQUIVALENT (exit 0); then both drivers are run on 20000
                random and boundary inputs (those that meet the case's --assume, read as
                C), and a difference makes it a WRONG PROOF (an engine bug);
  inconclusive  exit 3 (a limit, or a mutant that loops forever);
  stillborn     the mutant does not compile;
  error         xcheck exit 2 or a crash.

Usage: scripts/mutants.py [-o DIR] [--level O2] [--max-time 60s] [--mutants ID,…] [CASE…]
Writes DIR/results.tsv (one line per mutant) and DIR/summary.md. Exit status 0 when no
mutant is unconfirmed, a wrong proof or an error, 1 otherwise, 2 for a usage error.
"""

import argparse
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("XCHECK_BUILD_DIR", REPO / "build"))
XCHECK = Path(os.environ.get("XCHECK_BIN", REPO / "target/release/xcheck"))
# The compiler of the one LLVM version the scripts use, read from scripts/lib/llvm.sh.
CLANG = "clang-" + re.search(r"^LLVM_VERSION=(\d+)$", (REPO / "scripts/lib/llvm.sh").read_text(), re.M)[1]

# scripts/build-corpora.sh's flags, without -Werror (and without -emit-llvm -c, added below).
CFLAGS = ["-g", "-fno-discard-value-names", "-target", "x86_64-unknown-linux-gnu",
          "-fno-vectorize", "-fno-slp-vectorize", "-std=c11", "-Wall", "-Wextra",
          "-Wno-unused-parameter"]
LEVEL_FLAGS = {"O0": ["-O0", "-Xclang", "-disable-O0-optnone"], "O2": ["-O2"]}

TOKEN = re.compile(r"""
    (?P<ws>\s+) | (?P<comment>/\*.*?\*/|//[^\n]*) | (?P<pp>\#[^\n]*)
  | (?P<float>0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*[pP][-+]?[0-9]+[fFlL]?
      |(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?[fFlL]?|[0-9]+[eE][-+]?[0-9]+[fFlL]?)
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*)
  | (?P<id>[A-Za-z_]\w*) | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^]=|[^\s\w])
""", re.S | re.X)

# Operator replacements; binary-only operators are checked for a left operand.
SWAPS = {"<": ["<="], "<=": ["<"], ">": [">="], ">=": [">"], "==": ["!="], "!=": ["=="],
         "+": ["-"], "-": ["+"], "&": ["|"], "|": ["&"], "^": ["|"], "<<": [">>"],
         ">>": ["<<"], "&&": ["||"], "||": ["&&"], "+=": ["-="], "-=": ["+="],
         "|=": ["&="], "&=": ["|="], "<<=": [">>="], ">>=": ["<<="], "++": ["--"],
         "--": ["++"]}
BINARY_ONLY = {"+", "-", "&", "*"}


def tokenize(src):
    """Tokens as (kind, text, offset, line)."""
    out, pos, line = [], 0, 1
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m:
            raise ValueError(f"cannot tokenize at line {line}")
        kind = m.lastgroup
        out.append((kind, m.group(), pos, line))
        line += m.group().count("\n")
        pos = m.end()
    return out


def body_mask(toks):
    """For each token, whether it lies inside a function body (a `{` at depth 0 after `)`)."""
    mask, depth, in_body, prev = [False] * len(toks), 0, False, None
    for i, (kind, text, _, _) in enumerate(toks):
        if kind in ("ws", "comment", "pp"):
            continue
        if text == "{":
            if depth == 0 and prev == ")":
                in_body = True
            depth += 1
        elif text == "}":
            depth -= 1
            if depth == 0:
                in_body = False
        mask[i] = in_body
        prev = text
    return mask


def mutations(src):
    """Deterministic list of (description, mutated source)."""
    toks = tokenize(src)
    mask = body_mask(toks)
    code = [i for i, t in enumerate(toks) if t[0] not in ("ws", "comment")]
    out = []

    def replace(i, new, what):
        _, text, off, line = toks[i]
        out.append((f"line {line}: {what}", src[:off] + new + src[off + len(text):]))

    for n, i in enumerate(code):
        kind, text, off, line = toks[i]
        prev = toks[code[n - 1]] if n else None
        nxt = toks[code[n + 1]] if n + 1 < len(code) else None
        if kind == "pp":
            m = re.match(r"(#\s*define\s+\w+\s+)(\d+)(u?)\s*$", text)
            if m:
                v = int(m.group(2))
                for d in (1, -1):
                    if v + d >= 0:
                        new = m.group(1) + str(v + d) + m.group(3)
                        out.append((f"line {line}: {text.strip()} -> {new.strip()}",
                                    src[:off] + new + src[off + len(text):]))
            continue
        if not mask[i]:
            continue
        if kind == "num":
            m = re.match(r"(0[xX][0-9a-fA-F]+|[0-9]+)(.*)", text)
            digits, suffix = m.group(1), m.group(2)
            v = int(digits, 0)
            for d in (1, -1):
                if v + d < 0:
                    continue
                new = (hex(v + d) if digits.lower().startswith("0x") else str(v + d)) + suffix
                replace(i, new, f"{text} -> {new}")
        elif kind == "id" and text == "break" and nxt and nxt[1] == ";":
            replace(i, "", "break dropped")
        elif kind == "id" and text == "if" and nxt and nxt[1] == "(":
            # Negate the condition: find the matching parenthesis.
            j, depth = code.index(code[n + 1]), 0
            for k in code[j:]:
                depth += toks[k][1] == "("
                depth -= toks[k][1] == ")"
                if depth == 0:
                    break
            open_off, close_off = toks[code[n + 1]][2], toks[k][2]
            cond = src[open_off + 1:close_off]
            out.append((f"line {line}: if ({cond.strip()}) negated",
                        src[:open_off] + "(!(" + cond + "))" + src[close_off + 1:]))
        elif kind == "op" and text in SWAPS:
            if text in BINARY_ONLY and not (prev and (prev[0] in ("id", "num", "float")
                                                     or prev[1] in (")", "]"))):
                continue
            if text in ("<", ">") and prev and prev[0] == "pp":
                continue
            for new in SWAPS[text]:
                replace(i, new, f"{text} -> {new}")
    return out


def prototype(src, name):
    """(return type, [(param type, param name, is_pointer)]) of `name`'s definition."""
    toks = [t for t in tokenize(src) if t[0] not in ("ws", "comment", "pp")]
    for n, t in enumerate(toks):
        if t[1] != name or n + 1 >= len(toks) or toks[n + 1][1] != "(":
            continue
        depth, k = 0, n + 1
        while True:
            depth += toks[k][1] == "("
            depth -= toks[k][1] == ")"
            if depth == 0:
                break
            k += 1
        if k + 1 >= len(toks) or toks[k + 1][1] != "{":
            continue
        j = n
        while j > 0 and toks[j - 1][1] not in (";", "}", ")"):
            j -= 1
        ret = " ".join(x[1] for x in toks[j:n] if x[1] not in ("static", "inline"))
        params, cur = [], []
        for x in toks[n + 2:k] + [(None, ",", 0, 0)]:
            if x[1] == "," and cur:
                words = [c[1] for c in cur]
                if words == ["void"]:
                    break
                pointer = "*" in words or "[" in words
                pname = [w for w in words if re.match(r"[A-Za-z_]\w*$", w)][-1]
                if "[" in words:
                    pname = words[words.index("[") - 1]
                ptype = " ".join(w for w in words if w != pname and w not in ("const",))
                params.append((ptype, pname, pointer))
                cur = []
            else:
                cur.append(x)
        return ret, params
    raise ValueError(f"no definition of {name}")


DRIVER = r"""
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
%(defs)s
%(ret)s %(name)s(%(decl)s);
%(externs)s

/* The case's preconditions (--assume) read as C over the parameters. */
static int pre(%(pre_params)s)
{
    return %(pre)s;
}

static int front;
static void *maps[64];
static size_t map_sizes[64];
static int nmaps;

/* Unmaps every buffer (between random inputs, so that their mappings do not pile up). */
static void release(void)
{
    while (nmaps > 0) {
        nmaps--;
        munmap(maps[nmaps], map_sizes[nmaps]);
    }
}

/* n bytes that end where an inaccessible page begins (with --front: that start where one
   ends), so that an access past the end (before the start) faults. */
static unsigned char *guarded(size_t n)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), total = (n + pg - 1) / pg * pg;
    unsigned char *m = mmap(NULL, total + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(front ? m : m + total, pg, PROT_NONE) != 0 || nmaps == 64)
        exit(4);
    maps[nmaps] = m;
    map_sizes[nmaps++] = total + pg;
    return front ? m + pg : m + total - n;
}

static unsigned char *from_hex(const char *hex, size_t *n)
{
    *n = strlen(hex) / 2;
    unsigned char *b = guarded(*n);
    for (size_t i = 0; i < *n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%%2x", &v);
        b[i] = (unsigned char)v;
    }
    return b;
}

static void print_hex(const char *what, const unsigned char *b, size_t n)
{
    printf(" %%s=", what);
    for (size_t i = 0; i < n; i++)
        printf("%%02x", b[i]);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A random object of n bytes: often a boundary value or small, else random bytes. */
static void fill(unsigned char *b, size_t n, int scalar)
{
    uint64_t how = next() %% 8, v = next();
    for (size_t i = 0; i < n; i++) {
        unsigned char byte = (unsigned char)(next() >> 13);
        if (how == 0) byte = 0;
        else if (how == 1) byte = 0xff;
        else if (how == 2 && scalar) byte = i == 0 ? (unsigned char)(v %% 40) : 0;
        else if (how == 3 && scalar) byte = i == 0 ? (unsigned char)(v %% 40) : 0xff;
        else if (how == 4 && scalar) byte = i + 1 == n ? 0x80 : 0;
        else if (how == 4) byte = (unsigned char)("rwx019:/ \0a"[next() %% 11]);
        else if (how == 5 && scalar) byte = i + 1 == n ? 0x7f : 0xff;
        else if (how == 5) byte = (unsigned char)(next() %% 4);
        b[i] = byte;
    }
}

int main(int argc, char **argv)
{
    size_t n;
    (void)n;
    if (argc >= 2 && strcmp(argv[1], "--front") == 0) {
        front = 1;
        argv++;
        argc--;
    }
    if (argc >= 3 && strcmp(argv[1], "--random") == 0) {
        long count = atol(argv[2]);
        for (long t = 0; t < count; t++) {
            release();
%(random)s
            if (!pre(%(args)s))
                continue;
            printf("%%ld:", t);
%(call)s
            printf("\n");
            fflush(stdout);
        }
        return 0;
    }
    if (argc != %(argc)d)
        return 3;
%(load)s
%(call)s
    printf("\n");
    return 0;
}
"""


def driver_source(src, name, params, ret, globals_, buffer_sizes, assumes):
    """C source of a driver: `drv HEX…` (one per parameter, then per global) or
    `drv --random N` (inputs that fail a precondition are skipped)."""
    defs = "\n".join(re.findall(r"^#\s*define[^\n]*$", src, re.M)
                     + re.findall(r"struct\s+\w+\s*\{[^}]*\}\s*;", src))
    decl = ", ".join("void *" if p else t for t, _, p in params) or "void"
    externs = "\n".join(f"extern unsigned char {g}[];" for g, _ in globals_)
    load, rand = [], []
    for i, (t, pname, p) in enumerate(params):
        if p:
            load.append(f"    size_t n{i}; unsigned char *p{i} = from_hex(argv[{i + 1}], &n{i});")
            size = buffer_sizes[pname]
            rand.append(f"            size_t n{i} = {size}; unsigned char *p{i} = guarded(n{i}); "
                        f"fill(p{i}, n{i}, 0);")
        else:
            load.append(f"    {t} p{i}; {{ unsigned char *b = from_hex(argv[{i + 1}], &n); "
                        f"if (n != sizeof p{i}) return 3; memcpy(&p{i}, b, n); }}")
            rand.append(f"            {t} p{i}; fill((unsigned char *)&p{i}, sizeof p{i}, 1);")
    for j, (g, size) in enumerate(globals_):
        k = len(params) + j + 1
        load.append(f"    {{ unsigned char *b = from_hex(argv[{k}], &n); memcpy({g}, b, n); }}")
        rand.append(f"            fill({g}, {size}, 0);")
    args = ", ".join(f"p{i}" for i in range(len(params)))
    call = []
    if ret == "void":
        call.append(f"    {name}({args});")
    else:
        call.append(f"    {ret} r = {name}({args}); print_hex(\"ret\", (unsigned char *)&r, sizeof r);")
    for i, (_, pname, p) in enumerate(params):
        if p:
            call.append(f"    print_hex(\"{pname}\", p{i}, n{i});")
    for g, size in globals_:
        call.append(f"    print_hex(\"{g}\", {g}, {size});")
    pre_params = ", ".join(f"unsigned char *{pname}" if p else f"{t} {pname}"
                           for t, pname, p in params) or "void"
    pre = " && ".join(f"({a})" for a in assumes) or "1"
    return DRIVER % {"defs": defs, "ret": ret, "name": name, "decl": decl,
                     "pre_params": pre_params, "pre": pre, "args": args,
                     "externs": externs, "argc": len(params) + len(globals_) + 1,
                     "load": "\n".join(load), "random": "\n".join(rand),
                     "call": "\n".join("    " + c if c.startswith("    ") else c for c in call)}


def read_ktest(path):
    """The objects of a .ktest file as [(name, bytes)] (KLEE's format, versions 1 to 3)."""
    data = open(path, "rb").read()
    if data[:5] not in (b"KTEST", b"BOUT\n"):
        raise ValueError(f"{path}: not a ktest file")
    pos = 5
    def u32():
        nonlocal pos
        pos += 4
        return struct.unpack(">I", data[pos - 4:pos])[0]
    def blob():
        nonlocal pos
        n = u32()
        pos += n
        return data[pos - n:pos]
    version = u32()
    for _ in range(u32()):
        blob()
    if version >= 2:
        u32()
        u32()
    return [(blob().decode(), blob()) for _ in range(u32())]


def run(cmd, timeout=None, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def native_outcome(code, out):
    if code == "timeout":
        return "timeout"
    if code != 0:
        return f"failed (status {code})"
    return out.strip()


class Case:
    def __init__(self, name, work, level):
        self.name = name
        self.dir = REPO / "corpora" / name
        self.src = (self.dir / "a.c").read_text()
        toml = tomllib.loads((self.dir / "case.toml").read_text())
        self.func = toml.get("a", toml.get("function"))
        checks = toml.get("check", [{"args": []}])
        chosen = next((c for c in checks if c.get("expect") == "equivalent"), checks[0])
        self.args = list(chosen.get("args", []))
        self.work = work / name
        self.level = level
        self.ret, self.params = prototype(self.src, self.func)
        sizes = {}
        i = 0
        default = 16
        self.assumes = []
        while i < len(self.args):
            if self.args[i] == "--assume":
                self.assumes.append(self.args[i + 1])
                i += 1
            elif self.args[i] == "--buffer-size":
                v = self.args[i + 1]
                if "=" in v:
                    sizes[v.split("=")[0]] = int(v.split("=")[1])
                else:
                    default = int(v)
                i += 1
            i += 1
        structs = dict(re.findall(r"struct\s+(\w+)\s*\{([^}]*)\}", self.src))
        self.buffer_sizes = {}
        for t, pname, p in self.params:
            m = re.match(r"struct (\w+) \*", t)
            if p and m and m.group(1) in structs:
                self.buffer_sizes[pname] = f"sizeof(struct {m.group(1)})"
            elif p:
                self.buffer_sizes[pname] = str(sizes.get(pname, default))
        self.drivers = {}

    def compile(self, c_file, stem):
        """bitcode and native object from one C file; None when it does not compile."""
        bc, obj = self.work / f"{stem}.bc", self.work / f"{stem}.o"
        code, _, err = run([CLANG, "-c", "-emit-llvm", *LEVEL_FLAGS[self.level], *CFLAGS,
                            str(c_file), "-o", str(bc)])
        if code != 0:
            return None, err.strip().splitlines()[-1] if err.strip() else "compile failed"
        code, _, err = run([CLANG, "-c", "-O0", str(bc), "-o", str(obj)])
        if code != 0:
            return None, "native compile of the bitcode failed: " + err.strip()[-200:]
        return bc, None

    def driver(self, stem, globals_):
        """The driver binary linked with stem.o for these global objects."""
        key = (stem, tuple(globals_))
        if key not in self.drivers:
            src = self.work / f"driver{len(globals_)}.c"
            src.write_text(driver_source(self.src, self.func, self.params, self.ret,
                                         globals_, self.buffer_sizes, self.assumes))
            exe = self.work / f"drv-{stem}-{len(globals_)}"
            # -lm: a mutant may keep a libm call (sqrt of a possibly negative value) that
            # the reference's build turned into an instruction.
            code, _, err = run([CLANG, "-O0", "-w", str(src), str(self.work / f"{stem}.o"),
                                "-o", str(exe), "-lm"])
            self.drivers[key] = exe if code == 0 else None
            if code != 0:
                print(f"mutants.py: driver for {stem} does not build: {err[-300:]}", file=sys.stderr)
        return self.drivers[key]

    def arguments(self, objects):
        """The driver's arguments for a test, and the globals it sets; None if a test object
        is neither a parameter nor a global the object file defines."""
        by_name = dict(objects)
        hexes = []
        for i, (_, pname, _) in enumerate(self.params):
            b = by_name.pop(pname, by_name.pop(f"arg{i}", None))
            if b is None:
                return None, None
            hexes.append(b.hex())
        globals_ = []
        for g, b in by_name.items():
            # Values the engine recorded for undefined behaviour: natively the machine
            # makes its own.
            if g.startswith("undefined."):
                continue
            globals_.append((g, len(b)))
            hexes.append(b.hex())
        return hexes, globals_


def check_mutant(case, mid, desc, source, max_time):
    """One result row: (id, case, class, description, detail, seconds)."""
    t0 = time.time()
    mdir = case.work / mid
    mdir.mkdir(parents=True, exist_ok=True)
    c = case.work / f"{mid}.c"
    c.write_text(source)
    bc, err = case.compile(c, mid)
    if bc is None:
        return "stillborn", err
    out = mdir / "xcheck-out"
    code, stdout, stderr = run([str(XCHECK), str(case.work / "ref.bc"), str(bc), "--function",
                                case.func, *case.args, "-j", "1", "--max-time", max_time,
                                "-o", str(out)], timeout=600)
    (mdir / "xcheck.log").write_text(stdout + stderr)
    if code == 0:
        return equivalent_check(case, mid)
    if code == 3:
        return "inconclusive", (stdout.split("verdict      : ")[-1].splitlines() or [""])[0]
    if code != 1:
        return "error", f"xcheck exit {code}: {(stderr.strip().splitlines() or [''])[-1]}"
    import json
    rows = json.loads((out / "report.json").read_text())["rows"]
    tests = [r for r in rows if r.get("ktest") and r["verdict"] in ("diverged", "error_one")]
    confirmed = [r for r in tests if r.get("confirmed")]
    if not confirmed:
        return "unconfirmed", f"{len(tests)} tests, none confirmed by xcheck's own replay"
    for r in confirmed:
        objects = read_ktest(out / r["ktest"])
        hexes, globals_ = case.arguments(objects)
        if hexes is None:
            continue
        ref, mut = case.driver("ref", globals_), case.driver(mid, globals_)
        if ref is None or mut is None:
            return "error", "the native driver does not build"
        for place in ([], ["--front"]):
            a = native_outcome(*run([str(ref), *place, *hexes], timeout=5)[:2])
            b = native_outcome(*run([str(mut), *place, *hexes], timeout=5)[:2])
            if a != b:
                return "caught", f"{r['ktest']}: ref {a[:80]} / mutant {b[:80]}"
    return "unconfirmed", f"{len(confirmed)} confirmed tests, none diverges natively"


def same_outcome(case, x, y):
    """Whether two native output lines agree as the check compares: byte for byte, or, for a
    floating-point return under `--fp-equal ieee`, as numbers (-0.0 equal to +0.0, NaN
    equal to NaN)."""
    if x == y:
        return True
    ieee = any(a == "--fp-equal" and b == "ieee" for a, b in zip(case.args, case.args[1:]))
    if not ieee or case.ret not in ("float", "double"):
        return False
    parts = []
    for line in (x, y):
        m = re.search(r"ret=([0-9a-fA-F]+)", line)
        if not m:
            return False
        raw = bytes.fromhex(m.group(1))
        if len(raw) not in (4, 8):
            return False
        value = struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]
        parts.append((line[:m.start()], line[m.end():], value))
    (pa, sa, va), (pb, sb, vb) = parts
    return pa == pb and sa == sb and (va == vb or (math.isnan(va) and math.isnan(vb)))


def equivalent_check(case, mid):
    ref, mut = case.driver("ref", []), case.driver(mid, [])
    if ref is None or mut is None:
        return "error", "the native driver does not build"
    n = "20000"
    ca, a, _ = run([str(ref), "--random", n], timeout=60)
    cb, b, _ = run([str(mut), "--random", n], timeout=60)
    if ca != 0 and ca == cb:
        return "error", f"the native drivers both stop with status {ca}"
    la, lb = a.splitlines(), b.splitlines()
    for x, y in zip(la, lb):
        if not same_outcome(case, x, y):
            return "WRONG-PROOF", f"natively differs: ref {x[:100]} / mutant {y[:100]}"
    if (ca, len(la)) != (cb, len(lb)):
        return "WRONG-PROOF", f"natively: ref status {ca} after {len(la)} inputs, mutant {cb} after {len(lb)}"
    return "equivalent", f"no difference natively on {len(la)} random inputs"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="*")
    ap.add_argument("-o", dest="out", default=str(BUILD / "mutants"))
    ap.add_argument("--level", choices=["O0", "O2"], default="O2")
    ap.add_argument("--max-time", default="60s")
    ap.add_argument("--mutants", default="", help="only these mutant ids (CASE-NN), comma-separated")
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    opts = ap.parse_args()
    for tool in (CLANG,):
        if shutil.which(tool) is None:
            sys.exit(f"mutants.py: {tool} not found (scripts/install.sh)")
    if not opts.list and not XCHECK.is_file():
        print(f"mutants.py: {XCHECK} not built (cargo build --release)", file=sys.stderr)
        sys.exit(2)
    names = opts.cases or sorted(d.name for d in (REPO / "corpora").iterdir()
                                  if (d / "case.toml").is_file())
    wanted = set(filter(None, opts.mutants.split(",")))
    work = Path(opts.out).resolve()
    work.mkdir(parents=True, exist_ok=True)
    results = []
    started = time.time()
    for name in names:
        if not (REPO / "corpora" / name / "case.toml").is_file():
            print(f"mutants.py: corpora/{name}/case.toml not found", file=sys.stderr)
            sys.exit(2)
        case = Case(name, work, opts.level)
        muts = [(f"{name}-{k + 1:02}", d, s) for k, (d, s) in enumerate(mutations(case.src))]
        if wanted:
            muts = [m for m in muts if m[0] in wanted]
        if opts.list:
            for mid, desc, _ in muts:
                print(f"{mid}\t{desc}")
            continue
        if not muts:
            continue
        case.work.mkdir(parents=True, exist_ok=True)
        (case.work / "ref.c").write_text(case.src)
        bc, err = case.compile(case.work / "ref.c", "ref")
        if bc is None:
            print(f"mutants.py: corpora/{name}/a.c does not build: {err}", file=sys.stderr)
            sys.exit(2)
        for mid, desc, source in muts:
            t0 = time.time()
            cls, detail = check_mutant(case, mid, desc, source, opts.max_time)
            secs = time.time() - t0
            results.append((mid, name, cls, desc, detail, secs))
            print(f"mutants.py: {mid} ({desc}): {cls}: {detail}", file=sys.stderr)
    if opts.list:
        return 0
    elapsed = time.time() - started
    with open(work / "results.tsv", "w") as f:
        f.write("mutant\tcase\tclass\tmutation\tdetail\tseconds\n")
        for r in results:
            f.write("\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in r[:5])
                    + f"\t{r[5]:.2f}\n")
    counts = {}
    for r in results:
        counts[r[2]] = counts.get(r[2], 0) + 1
    with open(work / "summary.md", "w") as f:
        f.write(f"{len(results)} mutants of {len(names)} cases in {elapsed:.0f} s "
                f"(level {opts.level}, --max-time {opts.max_time})\n\n")
        f.write("| case | mutants | caught | equivalent | inconclusive | other |\n|---|---|---|---|---|---|\n")
        for name in names:
            rs = [r for r in results if r[1] == name]
            if not rs:
                continue
            c = lambda k: sum(r[2] == k for r in rs)
            other = len(rs) - c("caught") - c("equivalent") - c("inconclusive")
            f.write(f"| {name} | {len(rs)} | {c('caught')} | {c('equivalent')} | "
                    f"{c('inconclusive')} | {other} |\n")
    print(f"mutants.py: {len(results)} mutants in {elapsed:.0f} s; results in {work}/results.tsv",
          file=sys.stderr)
    for k in sorted(counts):
        print(f"  {counts[k]:5} {k}", file=sys.stderr)
    bad = sum(counts.get(k, 0) for k in ("unconfirmed", "WRONG-PROOF", "error"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
