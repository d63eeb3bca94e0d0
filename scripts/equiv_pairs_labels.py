#!/usr/bin/env python3
"""Checks the labels of the equivalence benchmark (corpora/equiv-pairs, issue 33) natively,
without xcheck: every pair is compiled with clang-19 at -O0 and -O2 into one executable that
calls both sides on the same inputs (boundary values of each parameter's type, their
combinations, then random values) and compares what they return and what they print on
stdout. A pair labelled "not" must show a differing input; a pair labelled "equivalent" must
show none. Exit status 0 when every label holds, 1 otherwise.

    python3 scripts/equiv_pairs_labels.py [--trials N] [--seed S] [NAME...]

Each pair's `pair.toml` gives `proto` (the C prototype of `function`, scalar parameters of
the types in TYPES below, a scalar, `double` or `void` result) and, under `[native]`, an
optional range `[lo, hi]` per parameter: the loops whose trip count is an input are tried
only up to that count natively (xcheck gets the whole range). Doubles are compared as bits,
except that any NaN equals any NaN. Native testing is evidence, not proof: an "equivalent"
label is one no test found a difference for, and the pair's comment says why it holds."""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIRS = os.path.join(ROOT, "corpora", "equiv-pairs")
CC = "clang-19"

# C type -> (kind, bits, signed): kind "i" integer, "f" double.
TYPES = {
    "uint8_t": ("i", 8, False), "int8_t": ("i", 8, True),
    "uint16_t": ("i", 16, False), "int16_t": ("i", 16, True),
    "uint32_t": ("i", 32, False), "int32_t": ("i", 32, True),
    "unsigned": ("i", 32, False), "int": ("i", 32, True),
    "uint64_t": ("i", 64, False), "int64_t": ("i", 64, True),
    "double": ("f", 64, True),
}

DRIVER = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

%(decls)s

static uint64_t rng = %(seed)du;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

static int cap_fd, saved_fd;
static char out_a[1 << 16], out_b[1 << 16];
static size_t len_a, len_b;
static void begin(void) {
    fflush(stdout);
    if (ftruncate(cap_fd, 0) || lseek(cap_fd, 0, SEEK_SET) != 0) abort();
    dup2(cap_fd, 1);
}
static size_t end(char *buf) {
    fflush(stdout);
    dup2(saved_fd, 1);
    ssize_t n = pread(cap_fd, buf, sizeof out_a, 0);
    return n < 0 ? 0 : (size_t)n;
}

/* Boundary values of an integer type within [lo, hi]. */
static int64_t ibound(int bits, int sgn, int64_t lo, int64_t hi, unsigned k, int *ok) {
    static const int64_t small[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 15, 16, 17, 31, 32, 33,
                                    63, 64, 99, 100, 101, 255, 256, 1000, 9999, 10000, 65535, 65536};
    int64_t v;
    unsigned n = sizeof small / sizeof small[0];
    if (k < n) v = small[k];
    else if (k < 2 * n) v = -small[k - n];
    else {
        k -= 2 * n;
        int64_t top = bits == 64 ? (sgn ? INT64_MAX : -1) : (sgn ? (INT64_C(1) << (bits - 1)) - 1 : (INT64_C(1) << bits) - 1);
        int64_t bot = sgn ? (bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1))) : 0;
        switch (k) {
        case 0: v = top; break; case 1: v = top - 1; break; case 2: v = bot; break;
        case 3: v = bot + 1; break; case 4: v = top / 2; break; case 5: v = top / 2 + 1; break;
        case 6: v = hi; break; case 7: v = lo; break; case 8: v = hi - 1; break; case 9: v = lo + 1; break;
        default: if (k - 10 < 62) { v = (int64_t)(UINT64_C(1) << (k - 10 + 1)); if (k %% 2) v -= 1; break; }
                 *ok = 0; return 0;
        }
    }
    *ok = 1;
    if (!sgn && bits < 64 && (v < 0 || v > top_of(bits))) { *ok = 0; }
    if (sgn && bits < 64 && (v < -(INT64_C(1) << (bits - 1)) || v > (INT64_C(1) << (bits - 1)) - 1)) *ok = 0;
    if (bits == 64 && !sgn) { /* any 64-bit pattern */ }
    else if (v < lo || v > hi) *ok = 0;
    return v;
}
%(params)s

int main(int argc, char **argv) {
    long trials = atol(argv[1]);
    FILE *t = tmpfile();
    cap_fd = fileno(t);
    saved_fd = dup(1);
    long tried = 0;
    /* Boundary combinations, then random ones. */
    for (long round = 0; round < trials; round++) {
%(pick)s
        begin();
        %(call_a)s
        len_a = end(out_a);
        begin();
        %(call_b)s
        len_b = end(out_b);
        tried++;
        if (%(differ)s || len_a != len_b || memcmp(out_a, out_b, len_a)) {
            printf("DIFFER on %(fmt_in)s\n", %(args_in)s);
            %(show)s
            printf("  stdout A: \"%%.*s\"\n  stdout B: \"%%.*s\"\n", (int)len_a, out_a, (int)len_b, out_b);
            return 1;
        }
    }
    printf("no difference in %%ld trials\n", tried);
    return 0;
}
"""


def top_of_helper():
    return ("static int64_t top_of(int bits) { return bits >= 63 ? INT64_MAX : "
            "(INT64_C(1) << bits) - 1; }\n")


def parse_proto(proto):
    m = re.fullmatch(r"\s*([\w ]+?)\s+(\w+)\s*\((.*)\)\s*", proto)
    if not m:
        raise SystemExit(f"bad proto: {proto}")
    ret, name, params = m.groups()
    out = []
    for p in params.split(","):
        p = p.strip()
        if p in ("", "void"):
            continue
        ty, pname = p.rsplit(None, 1)
        if ty not in TYPES:
            raise SystemExit(f"unsupported parameter type {ty} in {proto}")
        out.append((ty, pname))
    if ret != "void" and ret not in TYPES:
        raise SystemExit(f"unsupported result type {ret} in {proto}")
    return ret, name, out


def driver(proto, ranges, seed):
    ret, name, params = parse_proto(proto)
    decls = f"{ret} A_{name}({', '.join(t for t, _ in params) or 'void'});\n"
    decls += f"{ret} B_{name}({', '.join(t for t, _ in params) or 'void'});\n"
    decls = top_of_helper() + decls
    pick = []
    gens = []
    nb = 130  # boundary candidates per integer parameter (ibound: 2 x 29 small, 10 ends, 62 powers of two)
    for i, (ty, pn) in enumerate(params):
        kind, bits, sgn = TYPES[ty]
        lo, hi = ranges.get(pn, [None, None])
        if kind == "i":
            if lo is None:
                lo = -(1 << (bits - 1)) if sgn else 0
                hi = (1 << (bits - 1)) - 1 if sgn else (1 << bits) - 1
            lo, hi = int(lo), int(hi)
            hi_c = f"INT64_C({hi})" if hi < (1 << 63) else "INT64_MAX"
            lo_c = f"INT64_C({lo})" if lo > -(1 << 63) else "INT64_MIN"
            gens.append(f"""
static {ty} gen{i}(long round, int boundary) {{
    int ok = 0;
    int64_t lo = {lo_c}, hi = {hi_c};
    if (boundary) {{
        for (unsigned k = (unsigned)(round % {nb}), tries = 0; tries < {nb}; k = (k + 1) % {nb}, tries++) {{
            int64_t v = ibound({bits}, {int(sgn)}, lo, hi, k, &ok);
            if (ok) return ({ty})v;
        }}
    }}
    uint64_t r = next();
    if (r % 4 == 0 && hi - lo > 1000) {{ /* small values near the ends */
        uint64_t d = next() % 1000;
        return ({ty})(next() & 1 ? lo + (int64_t)d : hi - (int64_t)d);
    }}
    if ((uint64_t)(hi - lo) + 1 == 0) return ({ty})next();
    return ({ty})(lo + (int64_t)(next() % ((uint64_t)(hi - lo) + 1)));
}}""")
        else:
            lo = float(lo) if lo is not None else None
            hi = float(hi) if hi is not None else None
            filt = "" if lo is None else f"if (!(v >= {lo!r} && v <= {hi!r})) v = {lo!r} + (double)(next() % 1000000) / 1000000.0 * ({hi!r} - {lo!r});"
            gens.append(f"""
static double gen{i}(long round, int boundary) {{
    static const double special[] = {{0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.1, -0.1,
        0.49999999999999994, -0.49999999999999994, 3.0, 100.0, -40.0, 1e308, -1e308, 1.7976931348623157e308,
        4.9406564584124654e-324, 2.2250738585072014e-308, -2.2250738585072014e-308, 1e-300, 4503599627370496.0,
        4503599627370497.0, 9007199254740993.0, INFINITY, -INFINITY, NAN, 1e16, -1e16, 123456.789}};
    unsigned n = sizeof special / sizeof special[0];
    double v;
    if (boundary) v = special[(round / {max(1, 33 ** i)}) % n];
    else {{
        uint64_t r = next();
        switch (r % 4) {{
        case 0: {{ uint64_t b = next(); memcpy(&v, &b, 8); break; }}
        case 1: v = (double)(int64_t)(next() % 2001) - 1000.0 + (double)(next() % 8) / 8.0; break;
        case 2: v = ((double)(next() >> 11) / 9007199254740992.0 - 0.5) * 2000.0; break;
        default: v = ldexp((double)(next() >> 11), (int)(next() % 200) - 150) * (next() & 1 ? 1 : -1); break;
        }}
    }}
    {filt}
    return v;
}}""")
        pick.append(f"        {ty} a{i} = gen{i}(round, boundary);")
    nbound = 1
    for ty, _ in params:
        nbound *= nb if TYPES[ty][0] == "i" else 33
    nbound = min(nbound, 40000)
    pick.insert(0, f"        int boundary = round < {nbound};")
    # Boundary rounds: each parameter walks its candidates at its own pace.
    for i, (ty, _) in enumerate(params):
        if TYPES[ty][0] == "i":
            stride = nb ** i
            pick[i + 1] = pick[i + 1].replace(f"gen{i}(round,", f"gen{i}(round / {stride},")
    args = ", ".join(f"a{i}" for i in range(len(params)))
    if ret == "void":
        call_a, call_b, differ, show = f"A_{name}({args});", f"B_{name}({args});", "0", ""
    else:
        call_a = f"{ret} ra = A_{name}({args});"
        call_b = f"{ret} rb = B_{name}({args});"
        if TYPES[ret][0] == "f":
            differ = "(memcmp(&ra, &rb, 8) != 0 && !(isnan(ra) && isnan(rb)))"
            show = 'printf("  A returns %a\\n  B returns %a\\n", ra, rb);'
        else:
            differ = "(ra != rb)"
            show = 'printf("  A returns %lld\\n  B returns %lld\\n", (long long)ra, (long long)rb);'
        # Declared in the loop body: the calls' results live there.
    fmt_in = ", ".join(f"{pn}=%a" if TYPES[ty][0] == "f" else f"{pn}=%lld" for ty, pn in params)
    args_in = ", ".join(f"a{i}" if TYPES[ty][0] == "f" else f"(long long)a{i}"
                        for i, (ty, _) in enumerate(params))
    if not params:
        fmt_in, args_in = "(no inputs)%s", '""'
    return DRIVER % {
        "decls": decls, "seed": seed, "params": "\n".join(gens), "pick": "\n".join(pick),
        "call_a": call_a, "call_b": call_b, "differ": differ, "show": show,
        "fmt_in": fmt_in, "args_in": args_in,
    }


def check(name, trials, seed, tmp):
    d = os.path.join(PAIRS, name)
    spec = tomllib.load(open(os.path.join(d, "pair.toml"), "rb"))
    fn = spec["function"]
    src = os.path.join(tmp, f"{name}-driver.c")
    with open(src, "w") as f:
        f.write(driver(spec["proto"], spec.get("native", {}), seed))
    results = []
    for opt in ("-O0", "-O2"):
        exe = os.path.join(tmp, f"{name}{opt}")
        objs = []
        for side in ("a", "b"):
            obj = os.path.join(tmp, f"{name}-{side}{opt}.o")
            subprocess.run([CC, opt, "-c", "-w", f"-D{fn}={side.upper()}_{fn}",
                            os.path.join(d, f"{side}.c"), "-o", obj], check=True)
            objs.append(obj)
        subprocess.run([CC, opt, "-w", src] + objs + ["-lm", "-o", exe], check=True)
        try:
            run = subprocess.run([exe, str(trials)], capture_output=True, text=True, timeout=300)
            out = run.stdout.strip()
            found = run.returncode == 1
            if run.returncode not in (0, 1):
                out = f"driver failed ({run.returncode}): {run.stderr.strip()[:200]}"
                found = None
        except subprocess.TimeoutExpired:
            out, found = "timed out", None
        results.append((opt, found, out))
    return spec["label"], results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=88172645463325252)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    names = args.names or sorted(n for n in os.listdir(PAIRS)
                                 if os.path.isfile(os.path.join(PAIRS, n, "pair.toml")))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            label, results = check(name, args.trials, args.seed, tmp)
            for opt, found, out in results:
                want = label == "not"
                ok = found is not None and found == want
                bad += not ok
                first = out.splitlines()[0] if out else ""
                print(f"{'ok  ' if ok else 'BAD '} {name:32} {opt} {label:10} {first}")
                if found and not ok or (found and want and opt == "-O0"):
                    for line in out.splitlines()[1:]:
                        print(f"       {line}")
            sys.stdout.flush()
    print(f"{len(names)} pairs, {bad} label check(s) failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
