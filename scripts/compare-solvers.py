#!/usr/bin/env python3
# Runs every check of corpora/*/case.toml at -O0 and -O2 once per solver mode and prints one
# JSON line per run: exit code, expected code, wall seconds, the report's counters.
# Modes: bitwuzla (default), z3 (--solver z3), crosscheck (--cross-check-solver),
# z3-crosscheck (both). Used for reports/z3-crosscheck-2026-11-24.md.
#
# Usage: scripts/compare-solvers.py [MODE...] > runs.jsonl
#   Needs target/release/xcheck and the built corpus ($XCHECK_BUILD_DIR, default build/).
#   SKIP=popcount,gcd leaves pairs out; OUT=DIR holds the output directories (default
#   a temporary directory).
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
xcheck = os.path.join(repo, "target/release/xcheck")
build = os.environ.get("XCHECK_BUILD_DIR", os.path.join(repo, "build"))
modes = {
    "bitwuzla": [],
    "z3": ["--solver", "z3"],
    "crosscheck": ["--cross-check-solver"],
    "z3-crosscheck": ["--solver", "z3", "--cross-check-solver"],
}
codes = {"equivalent": 0, "diverged": 1, "inconclusive": 3}
selected = sys.argv[1:] or list(modes)
skip = os.environ.get("SKIP", "").split(",")
outs = os.environ.get("OUT") or tempfile.mkdtemp(prefix="compare-solvers-")

for case_toml in sorted(glob.glob(os.path.join(repo, "corpora/*/case.toml"))):
    name = os.path.basename(os.path.dirname(case_toml))
    if name in skip:
        continue
    with open(case_toml, "rb") as f:
        case = tomllib.load(f)
    spec = case.get("function") or f"{case['a']}={case['b']}"
    for i, check in enumerate(case["check"]):
        for opt in ["O0", "O2"]:
            pair = os.path.join(build, "corpora", name)
            for mode in selected:
                out = os.path.join(outs, f"{name}-{i}-{opt}-{mode}")
                subprocess.run(["rm", "-rf", out], check=True)
                args = [xcheck, f"{pair}/a.{opt}.bc", f"{pair}/b.{opt}.bc", "--function", spec,
                        "-o", out] + check.get("args", []) + modes[mode]
                start = time.time()
                run = subprocess.run(args, capture_output=True, text=True)
                wall = time.time() - start
                try:
                    with open(os.path.join(out, "report.json")) as f:
                        counters = dict(json.load(f)["summary"]["counters"])
                except (OSError, ValueError, KeyError):
                    counters = {}
                print(json.dumps(dict(case=name, check=i, opt=opt, mode=mode, code=run.returncode,
                                      want=codes[check["expect"]], wall=round(wall, 3),
                                      counters=counters, err=run.stderr.strip()[-300:])),
                      flush=True)
