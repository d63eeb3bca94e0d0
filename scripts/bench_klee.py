#!/usr/bin/env python3
"""xcheck and KLEE side by side (issue 32) on the "Real functions" pairs as KLEE harnesses
(klee_make_symbolic + klee_assume + klee_assert, the bounds of each pair's xcheck arguments;
`klee_proto`/`klee_main` in scripts/real/functions.toml) and on KLEE's tutorial mod/modOpt
harness with and without `klee_assume(y != 0)` (scripts/real/klee_mod.c).

Every harness is LLVM 14 bitcode (clang-14, -O0 and -O2 for the sides and the harness, linked
by llvm-link-14). KLEE is not part of the project: build it with /work/shared/tools/build-klee.sh
and point KLEE_DIR at its PEERS directory (default /work/klee-build). Each harness is run by
`klee` (Z3, no libc) and by `xcheck run`; the xcheck function check of the pair (as
bench_real.py runs it) is timed too. Wall times are whole processes.

Usage: KLEE_DIR=/work/klee-build python3 scripts/bench_klee.py [--max-time S] [--only TEXT]"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_real  # noqa: E402

ROOT = bench_real.ROOT
BIN = bench_real.BIN
REAL = bench_real.REAL
KLEE_DIR = os.environ.get("KLEE_DIR", "/work/klee-build")
KLEE = os.path.join(KLEE_DIR, "build", "klee", "bin", "klee")
KLEE_INCLUDE = os.path.join(KLEE_DIR, "src", "klee", "include")
CC = "clang-14"
LINK = "llvm-link-14"


def harness_source(pair):
    proto = pair["klee_proto"]
    return "\n".join([
        "#include <klee/klee.h>",
        proto.replace("F", "A", 1) + ";",
        proto.replace("F", "B", 1) + ";",
        "#define SYM(v) klee_make_symbolic(&(v), sizeof(v), #v)",
        "int main(void) {",
        pair["klee_main"],
        "return 0;",
        "}",
        "",
    ])


def side(spec, sources, opt, rename, out):
    """One side's bitcode, its function renamed (A or B) so both link into one module."""
    fn, tag = rename
    if ":" in spec:
        name, path = spec.split(":", 1)
        src = bench_real.source_tree(name, sources[name])
        subst = {"repo": ROOT, "src": src, "gen": os.path.join(bench_real.BUILD, "musl", "gen")}
        flags = [f.format(**subst) for f in sources[name].get("cflags", [])] + [f"-I{src}"]
        file = os.path.join(src, path)
        # a musl side keeps its target's data layout; KLEE's harness is x86_64 Linux too
        flags = [f for i, f in enumerate(flags)
                 if f != "-target" and (i == 0 or flags[i - 1] != "-target")]
    else:
        flags, file = [], os.path.join(REAL, spec)
    subprocess.run([CC, f"-{opt}", "-g", "-c", "-emit-llvm", "-w", f"-D{fn}={tag}"] + flags
                   + [file, "-o", out], check=True)


def run_klee(bc, outdir, max_time):
    """KLEE's wall time, completed paths, assertion failures, and whether it stopped early."""
    start = time.monotonic()
    try:
        p = subprocess.run([KLEE, f"--output-dir={outdir}", f"--max-time={max_time}s",
                            f"--max-solver-time={max_time}s", "--solver-backend=z3", bc],
                           capture_output=True, text=True, timeout=max_time + 60)
        err = p.stderr
    except subprocess.TimeoutExpired:
        # KLEE's timer does not interrupt a solver query: killed a minute past the limit
        return {"wall": time.monotonic() - start, "paths": None, "partial": 0, "errors": 0,
                "halted": True, "killed": True}
    wall = time.monotonic() - start
    paths = re.search(r"completed paths = (\d+)", err)
    partial = re.search(r"partially completed paths = (\d+)", err)
    errors = len([f for f in os.listdir(outdir) if f.endswith(".err")]) if os.path.isdir(outdir) else 0
    halted = "HaltTimer" in err
    return {"wall": wall, "paths": int(paths.group(1)) if paths else None,
            "partial": int(partial.group(1)) if partial else 0, "errors": errors,
            "halted": halted, "killed": False}


def run_xcheck(args, outdir):
    """Wall time, verdict and paths (`xcheck run`: completed paths and errors) of one run."""
    start = time.monotonic()
    p = subprocess.run([BIN] + args + ["-o", outdir, "--json"], capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        j = json.loads(p.stdout.splitlines()[0])
    except (IndexError, ValueError):
        return {"wall": wall, "verdict": "no report", "paths": "? paths"}
    if j.get("run"):
        r = j["run"]
        paths = f"{r['completed']} paths" + (f", {len(r['errors'])} errors" if r["errors"] else "")
        paths += f", {len(r['unknown'])} unknown" if r["unknown"] else ""
        return {"wall": wall, "verdict": j["verdict"], "paths": paths}
    s = j.get("summary") or {}
    return {"wall": wall, "verdict": s.get("overall", j.get("verdict")),
            "paths": f"{s.get('paths', '?')} paths"}


def klee_cell(k):
    what = f"{k['paths']} paths" if k["paths"] is not None else "?"
    if k["errors"]:
        what += f", {k['errors']} errors"
    if k["killed"]:
        return f"> {k['wall']:.0f} s (killed a minute past the limit, inside one solver query)"
    if k["halted"]:
        what += ", stopped at the time limit"
    if k["partial"]:
        what += f", {k['partial']} partially completed"
    return f"{k['wall']:.2f} s ({what})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-time", type=int, default=60)
    ap.add_argument("--only", default="")
    ap.add_argument("--opts", default="O0,O2")
    a = ap.parse_args()
    if not os.path.exists(KLEE):
        sys.exit(f"KLEE not found at {KLEE} (set KLEE_DIR; see /work/shared/tools/build-klee.sh)")
    table = tomllib.load(open(os.path.join(REAL, "functions.toml"), "rb"))
    print(f"| case | opt | KLEE 3.2 + Z3 (wall, limit {a.max_time} s) | xcheck run (harness) "
          "| xcheck function check |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="s32b-klee-") as tmp:
        cases = []
        for pair in table["pair"]:
            if "klee_main" in pair:
                cases.append(("pair", pair["name"], pair))
        for assume in (True, False):
            cases.append(("mod", "KLEE mod/modOpt, " + ("y != 0 assumed" if assume
                                                          else "no assumption"), assume))
        for kind, name, data in cases:
            if a.only and a.only not in name:
                continue
            for opt in a.opts.split(","):
                d = os.path.join(tmp, re.sub(r"\W+", "_", name) + opt)
                os.makedirs(d)
                bc = os.path.join(d, "h.bc")
                if kind == "pair":
                    pair = data
                    h = os.path.join(d, "h.c")
                    with open(h, "w") as f:
                        f.write(harness_source(pair))
                    fn = pair["function"]
                    parts = []
                    for tag, spec in (("A", pair["a"]), ("B", pair["b"])):
                        out = os.path.join(d, tag + ".bc")
                        side(spec, table["sources"], opt, (fn, tag), out)
                        parts.append(out)
                    subprocess.run([CC, f"-{opt}", "-g", "-c", "-emit-llvm", "-w",
                                    f"-I{KLEE_INCLUDE}", h, "-o", os.path.join(d, "m.bc")],
                                   check=True)
                    subprocess.run([LINK, os.path.join(d, "m.bc")] + parts + ["-o", bc],
                                   check=True)
                else:
                    flags = ["-DASSUME"] if data else []
                    subprocess.run([CC, f"-{opt}", "-g", "-c", "-emit-llvm", "-w",
                                    f"-I{KLEE_INCLUDE}"] + flags
                                   + [os.path.join(REAL, "klee_mod.c"), "-o", bc], check=True)
                k = run_klee(bc, os.path.join(d, "klee-out"), a.max_time)
                x = run_xcheck(["run", bc, "--max-time", str(a.max_time), "-j", "1"],
                               os.path.join(d, "xrun"))
                cell_f = "—"
                if kind == "pair":
                    fa, fb = os.path.join(d, "fa.bc"), os.path.join(d, "fb.bc")
                    bench_real.compile_side(pair["a"], table["sources"], CC, opt, fa)
                    bench_real.compile_side(pair["b"], table["sources"], CC, opt, fb)
                    f = run_xcheck([fa, fb, "--function", pair["function"], "-j", "1",
                                    "--max-time", str(a.max_time)] + pair["args"],
                                   os.path.join(d, "xfn"))
                    cell_f = f"{f['wall']:.2f} s ({f['verdict']}, {f['paths']})"
                print(f"| {name} | {opt} | {klee_cell(k)} | {x['wall']:.2f} s ({x['verdict']}, "
                      f"{x['paths']}) | {cell_f} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
