#!/usr/bin/env python3
"""Before/after of a change on the same machine in one run: every corpus check (-O0 and -O2,
-j 1) under two xcheck binaries, each run REPEAT times (the minimum engine time is kept),
alternating so that load on the machine hits both alike. Prints a Markdown table of verdicts,
paths and engine milliseconds per check, the changed verdicts, and the totals.

Usage: scripts/bench-compare.py OLD_BIN NEW_BIN [CORPUS_DIR[:NEW_CORPUS_DIR]] [REPEAT]
CORPUS_DIR is a directory name under $XCHECK_BUILD_DIR (default build/): `corpora`
(clang-19) or `corpora-clang14`; an older binary may only read the older corpus. With
OLD:NEW the new binary runs on the second corpus (the same binary twice with
`corpora-clang14:corpora` compares the compilers). $XCHECK_COMPARE_NEW_ARGS (split on spaces)
is added to the new binary's arguments: the same binary twice with `--solver portfolio`
compares an option's setting."""
import json
import os
import subprocess
import sys
import tempfile
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("XCHECK_BUILD_DIR", os.path.join(ROOT, "build"))


NEW_ARGS = os.environ.get("XCHECK_COMPARE_NEW_ARGS", "").split()


def run(binary, a, b, function, extra):
    """Runs one check; returns (verdict, paths, engine ms)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [binary, a, b, "--function", function, "-o", out, "-j", "1"] + extra
        env = dict(os.environ, XCHECK_BUILD_DIR=BUILD)
        subprocess.run(cmd, capture_output=True, text=True, env=env)
        try:
            with open(os.path.join(out, "report.json")) as f:
                s = json.load(f)["summary"]
        except (OSError, ValueError):
            return "no report", 0, 0
    return s["overall"], s["paths"], s["wall_time_ms"]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    corpus = sys.argv[3] if len(sys.argv) > 3 else "corpora"
    corpora = corpus.split(":") if ":" in corpus else [corpus, corpus]
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    print(f"| pair | opt | args | verdict (old) | verdict (new) | paths (old/new) | old ms | new ms | new/old |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = [0, 0]
    changed = []
    for name in sorted(os.listdir(os.path.join(ROOT, "corpora"))):
        path = os.path.join(ROOT, "corpora", name, "case.toml")
        if not os.path.exists(path):
            continue
        case = tomllib.load(open(path, "rb"))
        function = case.get("function") or f"{case['a']}={case['b']}"
        for check in case["check"]:
            extra = check.get("args", [])
            for opt in ("O0", "O2"):
                best = [None, None]
                for _ in range(repeat):
                    for i, binary in enumerate((old, new)):
                        a = os.path.join(BUILD, corpora[i], name, f"a.{opt}.bc")
                        b = os.path.join(BUILD, corpora[i], name, f"b.{opt}.bc")
                        r = run(binary, a, b, function, extra + (NEW_ARGS if i == 1 else []))
                        if best[i] is None or r[2] < best[i][2]:
                            best[i] = r
                (vo, po, mo), (vn, pn, mn) = best
                totals[0] += mo
                totals[1] += mn
                ratio = f"{mn / mo:.2f}" if mo else "—"
                print(f"| {name} | {opt} | {' '.join(extra)} | {vo} | {vn} | {po}/{pn} | {mo} | {mn} | {ratio} |")
                sys.stdout.flush()
                if vo != vn or po != pn:
                    changed.append(f"{name} {opt} {' '.join(extra)}: {vo}/{po} paths → {vn}/{pn} paths")
    print(f"\nTotal engine time (minimum of {repeat} runs per check): old {totals[0] / 1000:.2f} s, "
          f"new {totals[1] / 1000:.2f} s.\n")
    print("Changed verdicts or path counts: " + ("none." if not changed else ""))
    for c in changed:
        print(f"- {c}")


if __name__ == "__main__":
    main()
