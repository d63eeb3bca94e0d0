#!/usr/bin/env python3
"""The benchmark's "Equivalence pairs" section (issue 33): every pair of corpora/equiv-pairs
(loops with input-bounded trip counts, recursion, numerical routines, printing; each
labelled equivalent or not and the label checked natively by scripts/equiv_pairs_labels.py)
compiled as a new user would (clang-19 -O0 -g, or --opt) and checked by xcheck with a fixed
limit per pair (--max-time 10, -j 1). Prints one row per pair (label, verdict, wall time,
why it is undecided) and the totals: the share decided, the share decided wrongly (an
EQUIVALENT on a pair labelled not, or a confirmed difference on a pair labelled equivalent:
each is a bug, printed loudly, and the exit status is 1), and the share decided by
induction (xcheck's output says "proved for all inputs").

    python3 scripts/bench_equiv_pairs.py [--max-time S] [--opt O0|O2] [NAME...]
    bash scripts/bench.sh equiv-pairs        # the same, as a section of the benchmark
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("XCHECK_BIN", os.path.join(ROOT, "target", "release", "xcheck"))
PAIRS = os.path.join(ROOT, "corpora", "equiv-pairs")
CLANG = "clang-19"
INDUCTION = "proved for all inputs"


def pair_names():
    return sorted(n for n in os.listdir(PAIRS) if os.path.isfile(os.path.join(PAIRS, n, "pair.toml")))


def undecided_reason(report):
    """Why a pair is undecided: its undecided rows' most frequent reason (with its count),
    or, when every path found was decided, that exploration did not finish (with the
    number of paths proved)."""
    import re
    reasons = collections.Counter()
    proved = 0
    for row in report.get("rows", []):
        verdict = row.get("verdict")
        proved += verdict == "proved"
        if verdict == "unknown":
            detail = re.sub(r" at [\w./-]+:\d+(:\d+)?", "", row.get("detail", ""))
            detail = detail.replace(", not retried before exploration ended", "")
            reasons[detail[:110]] += 1
        elif verdict == "diverged" and not row.get("confirmed", True):
            reasons["difference not confirmed by replay"] += 1
    if not reasons:
        return f"exploration incomplete ({proved} paths proved)"
    (why, n), *rest = reasons.most_common()
    more = f"; +{len(rest)} other reason(s)" if rest else ""
    return f"{n}× {why}{more}"


def check_pair(name, opt, max_time, tmp):
    """Runs xcheck on one pair: (label, verdict, wall seconds, by induction, undecided why)."""
    d = os.path.join(PAIRS, name)
    spec = tomllib.load(open(os.path.join(d, "pair.toml"), "rb"))
    bcs = []
    for side in ("a", "b"):
        bc = os.path.join(tmp, f"{name}.{side}.{opt}.bc")
        subprocess.run([CLANG, f"-{opt}", "-g", "-c", "-emit-llvm", "-w", os.path.join(d, f"{side}.c"),
                        "-o", bc], check=True)
        bcs.append(bc)
    out = os.path.join(tmp, f"{name}.{opt}.out")
    start = time.monotonic()
    run = subprocess.run([BIN, *bcs, "--function", spec["function"], "-j", "1", "--max-time", str(max_time),
                          "-o", out] + spec.get("args", []), capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        verdict = report["summary"]["overall"]
    except (OSError, ValueError, KeyError):
        report, verdict = {"summary": {}}, f"error (exit {run.returncode})"
    text = run.stdout
    md = os.path.join(out, "report.md")
    if os.path.exists(md):
        text += open(md).read()
    induction = INDUCTION in text
    why = undecided_reason(report) if verdict not in ("equivalent", "diverged") else ""
    if verdict.startswith("error"):
        why = (run.stderr.strip().splitlines() or [""])[-1][:100]
    return spec["label"], verdict, wall, induction, why


def wrong(label, verdict):
    """A decided verdict against the label: a soundness bug."""
    return (label == "not" and verdict == "equivalent") or (label == "equivalent" and verdict == "diverged")


def equiv_pairs(max_time=10, opt="O0", names=None):
    """Prints the section; returns the number of wrong verdicts."""
    names = names or pair_names()
    print("\n## Equivalence pairs\n")
    print(f"The pairs of `corpora/equiv-pairs` (issue 33; labels checked natively by "
          f"`scripts/equiv_pairs_labels.py`), compiled with `{CLANG} -{opt} -g` and checked with "
          f"`--max-time {max_time}` and -j 1. *time* is the whole process (replay included). "
          f"*by induction*: the output says \"{INDUCTION}\".\n")
    print("| pair | label | verdict | time s | by induction | undecided because |")
    print("|---|---|---|---|---|---|")
    decided = bad = induced = 0
    kinds = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            label, verdict, wall, induction, why = check_pair(name, opt, max_time, tmp)
            is_decided = verdict in ("equivalent", "diverged")
            decided += is_decided
            induced += is_decided and induction
            is_wrong = wrong(label, verdict)
            bad += is_wrong
            if not is_decided:
                kinds[name.split("_")[0]] += 1
            shown = f"**WRONG: {verdict}**" if is_wrong else verdict
            print(f"| {name} | {label} | {shown} | {wall:.1f} | {'yes' if induction else ''} | {why} |")
            sys.stdout.flush()
    n = len(names)
    pct = lambda k: f"{100 * k / n:.0f}%" if n else "—"
    print(f"\n{n} pairs: {decided} decided ({pct(decided)}), {bad} wrong ({pct(bad)}), "
          f"{induced} decided by induction ({pct(induced)}). Undecided by kind: "
          + (", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) or "none") + ".")
    if bad:
        print(f"\n**{bad} WRONG VERDICT(S): an EQUIVALENT on a pair that is not, or a confirmed "
              f"difference on an equivalent pair. This is a soundness bug; report it.**")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-time", type=int, default=10)
    ap.add_argument("--opt", default="O0", choices=["O0", "O2"])
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    return 1 if equiv_pairs(args.max_time, args.opt, args.names) else 0


if __name__ == "__main__":
    sys.exit(main())
