#!/usr/bin/env python3
"""Every file against itself (issue 30's invariant oracle).

A file checked against itself must be EQUIVALENT: whatever differs between the two copies
is the engine's doing (addresses, names, fresh values), never the program's. This checks
each corpus case's a and b bitcode (clang-19 and clang-14, -O0 and -O2, the functions and
options of corpora/<case>/case.toml), each whole-program pair's a and b (corpora/
programs, built by scripts/build-programs.sh, with each check's options), and each test
fixture that is a module of functions (tests/fixtures/*.c without `main`, built here by
clang-19 and clang-14 at -O0 and -O2, and *.ll by clang-19) against itself; a fixture is
checked as a regression gate of an unchanged file runs, `--all-functions`, a row per
function (functions whose types xcheck does not support are not checked, as the gate
lists them).

Classes (column `class` of results.tsv):
  equivalent    exit 0: the invariant holds;
  inconclusive  exit 3: a limit or an undecided path, not a wrong verdict;
  wrong         exit 1: NOT EQUIVALENT on identical code, an engine bug;
  error         exit 2 or a crash: the check failed, which counts as a wrong verdict;
  unbuilt       a fixture the compiler rejects (not a verdict).
Exit status: 0 when nothing is wrong or an error, else 1; 2 for a usage error.

Usage: scripts/self-check.py [-o DIR] [-j N] [--max-time T] [--cases A,B] [--programs A,B]
       [--fixtures A,B] [--no-programs] [--no-functions] [--no-fixtures]
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tomllib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("XCHECK_BUILD_DIR", os.path.join(REPO, "build"))
XCHECK = os.environ.get("XCHECK_BIN", os.path.join(REPO, "target", "release", "xcheck"))
CLASSES = {0: "equivalent", 1: "wrong", 3: "inconclusive"}
GATE_CLASSES = {"equivalent": "equivalent", "diverged": "wrong", "inconclusive": "inconclusive"}
FIXTURES = os.path.join(REPO, "tests", "fixtures")
COMPILERS = {"corpora": "clang-19", "corpora-clang14": "clang-14"}


def function_jobs(cases):
    """(label, bitcode, args) for every corpus case's a and b at each build."""
    jobs = []
    for case in sorted(os.listdir(os.path.join(REPO, "corpora"))):
        spec_path = os.path.join(REPO, "corpora", case, "case.toml")
        if not os.path.isfile(spec_path) or (cases and case not in cases):
            continue
        with open(spec_path, "rb") as f:
            spec = tomllib.load(f)
        names = {"a": spec.get("a", spec.get("function")), "b": spec.get("b", spec.get("function"))}
        # Distinct option sets of the case's checks, the first of each.
        option_sets = []
        for check in spec.get("check", [{"args": []}]):
            if check.get("args", []) not in option_sets:
                option_sets.append(check.get("args", []))
        for build in ("corpora", "corpora-clang14"):
            for opt in ("O0", "O2"):
                for side in ("a", "b"):
                    bc = os.path.join(BUILD, build, case, f"{side}.{opt}.bc")
                    if not os.path.isfile(bc) or not names[side]:
                        continue
                    for k, args in enumerate(option_sets):
                        label = f"{build}/{case}/{side}.{opt}" + (f"#{k}" if k else "")
                        jobs.append(("check", label, bc, ["--function", names[side]] + args, []))
    return jobs


def fixture_jobs(fixtures):
    """(label, source, compiler, level) for every fixture that is a module of functions."""
    jobs = []
    for name in sorted(os.listdir(FIXTURES)):
        stem, ext = os.path.splitext(name)
        if ext not in (".c", ".ll") or (fixtures and stem not in fixtures):
            continue
        with open(os.path.join(FIXTURES, name), errors="replace") as f:
            text = f.read()
        if re.search(r"\bmain\s*\(", text) or re.search(r"@main\(", text):
            continue
        for build, clang in COMPILERS.items():
            if ext == ".ll" and clang != "clang-19":
                continue
            for opt in ("O0", "O2"):
                label = f"fixtures-{build}/{stem}.{opt}"
                jobs.append(("gate", label, (os.path.join(FIXTURES, name), clang, opt), [], []))
    return jobs


def program_jobs(programs):
    jobs = []
    root = os.path.join(REPO, "corpora", "programs")
    for name in sorted(os.listdir(root)):
        spec_path = os.path.join(root, name, "case.toml")
        if not os.path.isfile(spec_path) or (programs and name not in programs):
            continue
        with open(spec_path, "rb") as f:
            spec = tomllib.load(f)
        for side in ("a", "b"):
            bc = os.path.join(BUILD, "programs", name, f"{side}.bc")
            if not os.path.isfile(bc):
                continue
            for k, check in enumerate(spec.get("check", [])):
                label = f"programs/{name}/{side}" + (f"#{k}" if k else "")
                # A program check's options go after `--`, among the programs' arguments.
                jobs.append(("check", label, bc, [], list(check.get("args", []))))
    return jobs


def run(job, out_root, max_time):
    """The rows of one job: [(label, class, verdict, args)]."""
    kind, label, bc, options, program_args = job
    out = os.path.join(out_root, label.replace("/", "_").replace("#", "_"))
    if kind == "gate":
        return run_gate(label, bc, out, max_time)
    # A case that sets its own limit (corpora/strength_reduce) keeps it.
    limit = [] if "--max-time" in options else ["--max-time", max_time]
    cmd = [XCHECK, bc, bc, "-o", out] + limit + options
    if program_args:
        cmd += ["--"] + program_args
    args = options + program_args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        code = p.returncode
        text = p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        code, text = -1, "timed out"
    klass = CLASSES.get(code, "error")
    verdict = next((l for l in text.splitlines() if l.startswith("verdict")), text.strip()[-200:])
    return [(label, klass, verdict.replace("\t", " "), " ".join(args))]


def run_gate(label, source, out, max_time):
    """A fixture built, then `--all-functions` against itself: a row per function."""
    path, clang, opt = source
    os.makedirs(out, exist_ok=True)
    bc = os.path.join(out, "self.bc")
    built = subprocess.run([clang, "-c", "-emit-llvm", "-g", f"-{opt}", path, "-o", bc],
                           capture_output=True, text=True)
    if built.returncode != 0:
        last = (built.stderr.strip().splitlines() or ["?"])[-1]
        return [(label, "unbuilt", f"{clang}: {last}", "")]
    cmd = [XCHECK, bc, bc, "--all-functions", "--json", "-o", out, "--max-time", max_time]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return [(label, "error", "timed out", "--all-functions")]
    rows = []
    for line in p.stdout.splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        klass = GATE_CLASSES.get(row.get("verdict"), "error")
        summary = row.get("summary") or {}
        why = row.get("error") or summary.get("overall", "")
        notes = [n for n in summary.get("notes", []) if not n.startswith("coverage")]
        if klass != "equivalent" and notes:
            why = f"{why}: {'; '.join(notes)}"
        rows.append((f"{label}:{row.get('function')}", klass, why, "--all-functions"))
    if p.returncode == 2 or not rows:
        last = ((p.stdout + p.stderr).strip().splitlines() or ["no output"])[-1]
        rows.append((label, "error", f"exit {p.returncode}: {last}", "--all-functions"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", default=os.path.join(BUILD, "self-check"))
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--max-time", default="30s")
    ap.add_argument("--cases", default="")
    ap.add_argument("--programs", default="")
    ap.add_argument("--fixtures", default="")
    ap.add_argument("--no-programs", action="store_true")
    ap.add_argument("--no-functions", action="store_true")
    ap.add_argument("--no-fixtures", action="store_true")
    a = ap.parse_args()
    if not os.access(XCHECK, os.X_OK):
        print(f"self-check: {XCHECK} not built (cargo build --release)", file=sys.stderr)
        return 2
    cases = set(filter(None, a.cases.split(",")))
    programs = set(filter(None, a.programs.split(",")))
    fixtures = set(filter(None, a.fixtures.split(",")))
    jobs = [] if a.no_functions else function_jobs(cases)
    if not a.no_programs:
        jobs += program_jobs(programs)
    if not a.no_fixtures:
        jobs += fixture_jobs(fixtures)
    if not jobs:
        print("self-check: nothing to check (build the corpora first)", file=sys.stderr)
        return 2
    os.makedirs(a.o, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as pool:
        results = [r for rows in pool.map(lambda j: run(j, a.o, a.max_time), jobs) for r in rows]
    counts = {}
    with open(os.path.join(a.o, "results.tsv"), "w") as f:
        f.write("check\tclass\tverdict\targs\n")
        for label, klass, verdict, args in results:
            f.write(f"{label}\t{klass}\t{verdict}\t{args}\n")
            counts[klass] = counts.get(klass, 0) + 1
    for label, klass, verdict, args in results:
        if klass != "equivalent":
            print(f"{klass:13} {label} {args}: {verdict}")
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    print(f"self-check: {len(results)} checks of a file against itself: {summary}")
    return 1 if counts.get("wrong") or counts.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
