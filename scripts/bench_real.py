#!/usr/bin/env python3
"""The benchmark's "Real functions" section (issue 32): library functions from Debian's
source packages and bit tricks against naive references (scripts/real/functions.toml), at
-O0 and -O2 from clang-14 and clang-19, each with --max-time 20 and -j 1. Run alone it prints
only this section: `python3 scripts/bench_real.py`. Sources are unpacked under
build/bench-src (zlib by `apt-get source`; musl is the tree scripts/build-musl.sh unpacks).

`python3 scripts/bench_real.py --compare OLD_BIN NEW_BIN [--repeat N] [--only A|B]` runs
every row under both binaries alternately (so that the machine's load hits both alike), N
times each (default 3; once for a row that reached the time limit under both), and prints
verdicts and the smallest wall time of each, and the ratio; `--only` keeps the pairs whose
names contain one of the |-separated texts."""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("XCHECK_BIN", os.path.join(ROOT, "target", "release", "xcheck"))
BUILD = os.environ.get("XCHECK_BUILD_DIR", os.path.join(ROOT, "build"))
REAL = os.path.join(ROOT, "scripts", "real")
COMPILERS = ["clang-14", "clang-19"]
OPTS = ["O0", "O2"]
MAX_TIME = "20"


def source_tree(name, spec):
    """The unpacked source of `name`, fetched once with `apt-get source`."""
    if spec.get("path") == "musl":
        src = os.path.join(BUILD, "src", "musl-1.2.3")
        if not os.path.isdir(src):
            subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-musl.sh")], check=True,
                           stderr=subprocess.DEVNULL)
        return src
    parent = os.path.join(BUILD, "bench-src")
    found = [d for d in glob.glob(os.path.join(parent, f"{spec['package']}-*")) if os.path.isdir(d)]
    if not found:
        os.makedirs(parent, exist_ok=True)
        subprocess.run(["apt-get", "source", "-q", spec["package"]], cwd=parent, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = [d for d in glob.glob(os.path.join(parent, f"{spec['package']}-*")) if os.path.isdir(d)]
    return sorted(found)[0]


def compile_side(spec, sources, cc, opt, out):
    """Bitcode of one side: a file of scripts/real, or SOURCE:PATH in a source package."""
    if ":" in spec:
        name, path = spec.split(":", 1)
        src = source_tree(name, sources[name])
        subst = {"repo": ROOT, "src": src, "gen": os.path.join(BUILD, "musl", "gen")}
        flags = [f.format(**subst) for f in sources[name].get("cflags", [])] + [f"-I{src}"]
        file = os.path.join(src, path)
    else:
        flags, file = [], os.path.join(REAL, spec)
    subprocess.run([cc, f"-{opt}", "-g", "-c", "-emit-llvm", "-w"] + flags + [file, "-o", out],
                   check=True)


def real_functions():
    table = tomllib.load(open(os.path.join(REAL, "functions.toml"), "rb"))
    print("\n## Real functions\n")
    print("Library functions from Debian's source packages and bit tricks against naive references "
          "(`scripts/real/functions.toml`), at -O0 and -O2 from clang-14 and clang-19, each with "
          f"`--max-time {MAX_TIME}` and -j 1. *wall ms* is the whole process.\n")
    print("| pair | compiler | opt | verdict | paths | proved | unknown | wall ms |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for pair in table["pair"]:
            for cc in COMPILERS:
                for opt in OPTS:
                    a = os.path.join(tmp, f"a.{cc}.{opt}.bc")
                    b = os.path.join(tmp, f"b.{cc}.{opt}.bc")
                    compile_side(pair["a"], table["sources"], cc, opt, a)
                    compile_side(pair["b"], table["sources"], cc, opt, b)
                    s, wall = run_row(BIN, a, b, pair, os.path.join(tmp, "out"))
                    print(f"| {pair['name']} | {cc} | {opt} | {s['overall']} | {s['paths']} "
                          f"| {s.get('proved', '—')} | {s.get('unknown', '—')} | {wall:.0f} |")
                    sys.stdout.flush()


def run_row(binary, a, b, pair, out):
    """One check of a pair's row: its report's summary and the process's wall ms."""
    start = time.monotonic()
    subprocess.run([binary, a, b, "--function", pair["function"], "-j", "1",
                    "--max-time", MAX_TIME, "-o", out] + pair["args"],
                   capture_output=True, text=True)
    wall = (time.monotonic() - start) * 1000
    try:
        with open(os.path.join(out, "report.json")) as f:
            return json.load(f)["summary"], wall
    except (OSError, ValueError):
        return {"overall": "no report", "paths": 0}, wall


def compare(old, new, repeat, only):
    """Every row under OLD and NEW alternately (see the module documentation)."""
    table = tomllib.load(open(os.path.join(REAL, "functions.toml"), "rb"))
    print("| pair | compiler | opt | verdict (old) | verdict (new) | old ms | new ms | new/old |")
    print("|---|---|---|---|---|---|---|---|")
    limit = float(MAX_TIME) * 1000 * 0.75
    with tempfile.TemporaryDirectory() as tmp:
        for pair in table["pair"]:
            if only and not any(o in pair["name"] for o in only.split("|")):
                continue
            for cc in COMPILERS:
                for opt in OPTS:
                    a = os.path.join(tmp, f"a.{cc}.{opt}.bc")
                    b = os.path.join(tmp, f"b.{cc}.{opt}.bc")
                    compile_side(pair["a"], table["sources"], cc, opt, a)
                    compile_side(pair["b"], table["sources"], cc, opt, b)
                    best, verdicts = [None, None], [set(), set()]
                    for i in range(repeat):
                        for k, binary in enumerate((old, new)):
                            s, wall = run_row(binary, a, b, pair, os.path.join(tmp, "out"))
                            verdicts[k].add(s["overall"])
                            best[k] = wall if best[k] is None else min(best[k], wall)
                        if min(best) >= limit:
                            break
                    v = [" / ".join(sorted(x)) for x in verdicts]
                    print(f"| {pair['name']} | {cc} | {opt} | {v[0]} | {v[1]} | {best[0]:.0f} "
                          f"| {best[1]:.0f} | {best[1] / max(best[0], 1):.2f} |")
                    sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--compare":
        import argparse
        ap = argparse.ArgumentParser()
        ap.add_argument("--compare", nargs=2, metavar=("OLD_BIN", "NEW_BIN"), required=True)
        ap.add_argument("--repeat", type=int, default=3)
        ap.add_argument("--only", default="")
        args = ap.parse_args()
        compare(args.compare[0], args.compare[1], args.repeat, args.only)
    else:
        real_functions()
