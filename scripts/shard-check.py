#!/usr/bin/env python3
"""Shards against one run, on the whole corpus: every check of corpora/*/case.toml (at -O0
and -O2) and of corpora/programs, run once unsharded and once as N shards (`--shard K/N`,
one after another on this machine) joined by `xcheck merge`; the merged report must give the
same verdict, counts and rows (path order, verdict, merged paths, detail, test, confirmation)
as the unsharded one. A row's counterexample bytes are the solver's choice and are compared
separately (how many rows differ in them is printed, not failed).

Usage: scripts/shard-check.py [N] [FRONTIER] [ONLY]   (default 4 shards, 16 states per shard;
ONLY: just the checks whose label starts with it, e.g. `program`)
Prints a Markdown table; exits 1 when a merge differs from its unsharded run."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("XCHECK_BIN", os.path.join(ROOT, "target", "release", "xcheck"))
BUILD = os.environ.get("XCHECK_BUILD_DIR", os.path.join(ROOT, "build"))
SUMMARY = ["overall", "complete", "paths", "proved", "diverged", "errors_both", "errors_one",
           "unconfirmed", "unknown"]
ROW = ["verdict", "merged_paths", "detail", "ktest", "confirmed"]


def report(d):
    with open(os.path.join(d, "report.json")) as f:
        return json.load(f)


def xcheck(args, env=()):
    # A program's arguments and environment options go last, after `--`.
    tail = ["--", *env] if env else []
    return subprocess.run([BIN, *args, *tail], capture_output=True, text=True).returncode


def compare(name, args, env, n, frontier, tmp):
    full = os.path.join(tmp, "full")
    code = xcheck([*args, "-o", full, "-j", "1"], env)
    shards = []
    for k in range(1, n + 1):
        d = os.path.join(tmp, f"s{k}")
        xcheck([*args, "-o", d, "-j", "1", "--shard", f"{k}/{n}", "--shard-frontier", str(frontier)], env)
        shards.append(d)
    merged = os.path.join(tmp, "merged")
    merged_code = xcheck(["merge", *shards, "-o", merged])
    if not os.path.exists(os.path.join(merged, "report.json")) or not os.path.exists(
            os.path.join(full, "report.json")):
        return False, f"error (exit {code}, merge exit {merged_code})", 0, 0, 0, code
    a, b = report(full), report(merged)
    same = (code == merged_code
            and [a["summary"][k] for k in SUMMARY] == [b["summary"][k] for k in SUMMARY]
            and [[r[k] for k in ROW] for r in a["rows"]] == [[r[k] for k in ROW] for r in b["rows"]])
    inputs = sum(1 for x, y in zip(a["rows"], b["rows"]) if x["inputs"] != y["inputs"])
    frontier_states = report(shards[0])["summary"]["shard"]["frontier"]
    for d in [full, merged, *shards]:
        shutil.rmtree(d, ignore_errors=True)
    return same, a["summary"]["overall"], a["summary"]["paths"], frontier_states, inputs, code


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    frontier = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    checks = []
    corpora = os.path.join(ROOT, "corpora")
    for name in sorted(os.listdir(corpora)):
        path = os.path.join(corpora, name, "case.toml")
        if not os.path.exists(path):
            continue
        case = tomllib.load(open(path, "rb"))
        function = case.get("function") or f"{case['a']}={case['b']}"
        for check in case["check"]:
            for opt in ("O0", "O2"):
                a = os.path.join(BUILD, "corpora", name, f"a.{opt}.bc")
                b = os.path.join(BUILD, "corpora", name, f"b.{opt}.bc")
                extra = check.get("args", [])
                checks.append((f"{name} {opt}", extra, [a, b, "--function", function, *extra], []))
    programs = os.path.join(corpora, "programs")
    for name in sorted(os.listdir(programs)):
        path = os.path.join(programs, name, "case.toml")
        if not os.path.exists(path):
            continue
        for check in tomllib.load(open(path, "rb"))["check"]:
            a = os.path.join(BUILD, "programs", name, "a.bc")
            b = os.path.join(BUILD, "programs", name, "b.bc")
            checks.append((f"program {name}", check["args"], [a, b], check["args"]))
    checks = [c for c in checks if c[0].startswith(only)]
    print(f"{n} shards, {frontier} frontier states per shard.\n")
    print("| check | args | verdict | paths | frontier | merge = one run | rows with other bytes |")
    print("|---|---|---|---|---|---|---|")
    failed = 0
    for label, extra, args, env in checks:
        with tempfile.TemporaryDirectory() as tmp:
            same, overall, paths, fs, inputs, _ = compare(label, args, env, n, frontier, tmp)
        failed += not same
        print(f"| {label} | `{' '.join(extra)}` | {overall} | {paths} | {fs} | {'yes' if same else '**NO**'} | {inputs} |")
        sys.stdout.flush()
    print(f"\n{len(checks) - failed} of {len(checks)} merges equal their unsharded run.")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
