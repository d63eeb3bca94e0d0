#!/usr/bin/env python3
"""The benchmark: every corpus check at -O0 and -O2 with -j 1 and -j 2, plus the branch-per-bit
pair with --merge and with no flag, and a concrete loop for interpreter speed, then every whole-program check of
corpora/programs, a program pair with 4096 paths, and (when scripts/build-utils.sh has built
them) busybox wc against coreutils wc for a fixed time. Prints a Markdown report (keep it
with `scripts/bench.sh > reports/bench.md`).

Per check: verdict, paths, solver queries asked of the chain, how many each layer answered,
backend queries, solver-time share, wall time (-j 1), instructions per second, peak memory,
and the speed-up of -j 2 over -j 1."""
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_real  # noqa: E402
import bench_equiv_pairs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# XCHECK_BIN compares another build (a before/after of a change) on the same machine.
BIN = os.environ.get("XCHECK_BIN", os.path.join(ROOT, "target", "release", "xcheck"))
BUILD = os.environ.get("XCHECK_BUILD_DIR", os.path.join(ROOT, "build"))
# The one LLVM version the scripts use (scripts/lib/llvm.sh), as xcheck links and runs it.
with open(os.path.join(ROOT, "scripts", "lib", "llvm.sh")) as _f:
    LLVM_VERSION = re.search(r"^LLVM_VERSION=(\d+)$", _f.read(), re.M)[1]
CLANG = f"clang-{LLVM_VERSION}"


def run(a, b, function, extra, jobs, opts=()):
    """Runs one check (a function pair, or whole programs when `function` is None, with
    `extra` as their environment); returns (summary, wall seconds, peak KiB)."""
    with tempfile.TemporaryDirectory() as out:
        if function is None:
            cmd = ["/usr/bin/time", "-f", "%M", BIN, a, b, "-o", out, "-j", str(jobs)] + list(opts) + ["--"] + extra
        else:
            cmd = ["/usr/bin/time", "-f", "%M", BIN, a, b, "--function", function, "-o", out, "-j", str(jobs)] + extra
        start = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - start
        peak = int(p.stderr.strip().splitlines()[-1]) if p.stderr.strip() else 0
        with open(os.path.join(out, "report.json")) as f:
            summary = json.load(f)["summary"]
    return summary, wall, peak


def counters(summary):
    return {k: v for k, v in summary["counters"]}


def row(name, opt, extra, a, b, function, jobs2=True, opts=()):
    s1, w1, peak = run(a, b, function, extra, 1, opts)
    w2 = run(a, b, function, extra, 2)[1] if jobs2 else None
    c = counters(s1)
    decided = (c["branches decided by known values"] + c["branches decided by ranges"]
               + c.get("branches decided by the path condition", 0) + c["branch sides answered by the path's model"])
    cached = c["query cache hits"] + c["cex cache: unsat subset"] + c["cex cache: sat superset"] + c["cex cache: model reuse"]
    asked = decided + c["solver queries"]
    avoided = 100.0 * (asked - c["backend queries"]) / asked if asked else 100.0
    share = 100.0 * c["backend time ms"] / 1000.0 / w1 if w1 else 0
    ips = c["instructions"] / (s1["wall_time_ms"] / 1000.0) if s1["wall_time_ms"] else 0
    engine = s1["wall_time_ms"]
    return (
        f"| {name} | {opt} | {' '.join(extra)} | {s1['overall']} | {s1['paths']} | {decided} | {c['solver queries']} | {cached} "
        f"| {c.get('ranges: decided unsat', 0)} | {c.get('enumerated', 0)} "
        f"| {c['backend queries']} | {avoided:.0f}% | {share:.0f}% | {engine} | {w1 * 1000:.0f} | {ips / 1e6:.2f}M | {peak // 1024} "
        f"| {f'{w1 / w2:.2f}×' if w2 else '—'} |"
    ), w1, engine / 1000.0


def klee_harnesses():
    """One row per harness of corpora/klee: errors found, paths, whether exploration
    completed, wall time with -j 1, and KLEE's time where the issue gives one."""
    harness_dir = os.path.join(ROOT, "corpora", "klee")
    table = tomllib.load(open(os.path.join(harness_dir, "harnesses.toml"), "rb"))
    print("\n## KLEE-style harnesses\n")
    print("`xcheck run` on each harness of `corpora/klee` at -O0, -j 1 (*slow* ones with --max-time 30). "
          "*KLEE* is KLEE 3.2 + Z3 4.8.12 on the same machine kind, from issue 11, where it gives one.\n")
    print("| harness | errors (expected) | paths | complete | wall ms | KLEE ms | xcheck/KLEE |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, h in sorted(table.items()):
            bc = os.path.join(tmp, f"{name}.bc")
            subprocess.run([CLANG, "-c", "-emit-llvm", "-g", "-O0", "-Xclang", "-disable-O0-optnone",
                            "-I", os.path.join(ROOT, "harness", "include"),
                            os.path.join(harness_dir, f"{name}.c"), "-o", bc], check=True)
            out = os.path.join(tmp, f"out-{name}")
            limit = "30" if h.get("slow") else "120"
            start = time.monotonic()
            p = subprocess.run([BIN, "run", bc, "--json", "-j", "1", "--max-time", limit, "-o", out],
                               capture_output=True, text=True)
            wall = (time.monotonic() - start) * 1000
            run = json.loads(p.stdout)["run"]
            klee = h.get("klee_s")
            ratio = f"{wall / (klee * 1000):.2f}×" if klee else "—"
            done = "yes" if run["complete"] else f"no ({run['stop_reason']})"
            print(f"| {name} | {len(run['errors'])} ({h['errors']}) | {run['completed']} | {done} | {wall:.0f} "
                  f"| {klee * 1000:.0f} | {ratio} |" if klee else
                  f"| {name} | {len(run['errors'])} ({h['errors']}) | {run['completed']} | {done} | {wall:.0f} | — | — |")
            sys.stdout.flush()


def main():
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-corpora.sh")], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    cpu = "unknown cpu"
    try:
        cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read()).group(1)
    except (OSError, AttributeError):
        pass
    print("# Benchmark\n")
    print(f"Measured {time.strftime('%Y-%m-%d')} by `scripts/bench.sh` on {platform.node()}: {os.cpu_count()} cores ({cpu}), "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GiB, release build. Wall time includes loading, "
          "linking, exploration, solving, minimizing and replaying counterexamples.\n")
    print("Columns: *decided* = branch sides answered by the path condition (known values, ranges) or the path's model "
          "without a query; *queries* = queries asked of the solver chain; *cached* = of those, answered by the query cache "
          "or the counterexample cache; *ranges* = of those, decided unsatisfiable by range rewriting; *enum* = of those, "
          "decided by trying the inputs their constraints leave (at most 16 input bytes); *backend* = checks Bitwuzla ran; *avoided* = share "
          "of all feasibility questions that never reached Bitwuzla; *solver* = Bitwuzla's share of wall time; "
          "*engine* = milliseconds the check itself took (the report's wall time: loading, linking, exploring, solving, "
          "minimizing, replaying); *wall* = milliseconds of the whole process with -j 1, which adds the start-up below; "
          "*instr/s* = LLVM instructions interpreted per second of engine time; *peak* = MiB; *-j 2* = speed-up over -j 1.\n")
    start = time.monotonic()
    for _ in range(10):
        subprocess.run([BIN, "--version"], capture_output=True, check=True)
    print(f"Process start-up (`xcheck --version`: mapping the binary, with LLVM {LLVM_VERSION} linked in statically, "
          f"relocating it and the shared libraries it loads (libz3, libstdc++), LLVM's static constructors): "
          f"{(time.monotonic() - start) * 100:.0f} ms.\n")
    print("| pair | opt | args | verdict | paths | decided | queries | cached | ranges | enum | backend | avoided | solver | engine ms | wall ms | instr/s | peak | -j 2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    total = engine_total = 0.0
    under = checks = 0
    for name in sorted(os.listdir(os.path.join(ROOT, "corpora"))):
        case_path = os.path.join(ROOT, "corpora", name, "case.toml")
        if not os.path.exists(case_path):
            continue
        case = tomllib.load(open(case_path, "rb"))
        function = case.get("function") or f"{case['a']}={case['b']}"
        for check in case["check"]:
            for opt in ("O0", "O2"):
                a = os.path.join(BUILD, "corpora", name, f"a.{opt}.bc")
                b = os.path.join(BUILD, "corpora", name, f"b.{opt}.bc")
                line, wall, engine = row(name, opt, check.get("args", []), a, b, function)
                total += wall
                engine_total += engine
                checks += 1
                under += engine < 0.05
                print(line)
                sys.stdout.flush()
    print(f"\nWhole corpus, -j 1: {total:.2f} s of wall time, {engine_total:.2f} s of engine time; "
          f"{under} of {checks} checks under 50 ms of engine time.\n")
    # The branch-per-bit pair and a concrete loop, built from the test fixtures.
    with tempfile.TemporaryDirectory() as tmp:
        def bc(src, opt):
            out = os.path.join(tmp, os.path.basename(src) + f".{opt}.bc")
            subprocess.run([CLANG, "-c", "-emit-llvm", "-g", f"-{opt}", "-Xclang", "-disable-O0-optnone",
                            os.path.join(ROOT, "tests", "fixtures", src), "-o", out], check=True)
            return out
        print("| special | opt | args | verdict | paths | decided | queries | cached | ranges | enum | backend | avoided | solver | engine ms | wall ms | instr/s | peak | -j 2 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        line, *_ = row("popcount, if per bit vs SWAR", "O0", ["--merge"], bc("bits_a.c", "O0"), bc("bits_b.c", "O0"), "popc")
        print(line)
        # The same pair with no flag: merged automatically (issue 11's target: under 5 s).
        line, *_ = row("popcount, if per bit vs SWAR, no flag", "O0", [], bc("bits_a.c", "O0"), bc("bits_b.c", "O0"), "popc")
        print(line)
        line, *_ = row("concrete loop (interpreter speed)", "O0", [], bc("loop_a.c", "O0"), bc("loop_b.c", "O0"), "spin")
        print(line)
        line, *_ = row("concrete floating-point loop", "O0", [], bc("floop_a.c", "O0"), bc("floop_b.c", "O0"), "fspin")
        print(line)

    # KLEE-style harnesses (corpora/klee), run by `xcheck run` at -O0, with KLEE's times
    # where issue 11 measured them.
    klee_harnesses()

    # Whole programs (built with xcheck cc against the bundled musl).
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-musl.sh")], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    # Real library functions and bit tricks against naive references (scripts/bench_real.py).
    bench_real.real_functions()
    # The equivalence pairs of issue 33 (scripts/bench_equiv_pairs.py): share decided, wrong, by induction.
    bench_equiv_pairs.equiv_pairs()

    subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-programs.sh")], cwd=ROOT, check=True, stderr=subprocess.DEVNULL)
    print("\n## Whole programs\n")
    print("The columns are those above; *args* is the environment (KLEE's options).\n")
    print("| programs | opt | args | verdict | paths | decided | queries | cached | ranges | enum | backend | avoided | solver | engine ms | wall ms | instr/s | peak | -j 2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    programs = os.path.join(ROOT, "corpora", "programs")
    total = 0.0
    for name in sorted(os.listdir(programs)):
        case_path = os.path.join(programs, name, "case.toml")
        if not os.path.exists(case_path):
            continue
        for check in tomllib.load(open(case_path, "rb"))["check"]:
            a = os.path.join(BUILD, "programs", name, "a.bc")
            b = os.path.join(BUILD, "programs", name, "b.bc")
            line, wall, _ = row(name, "O1", check["args"], a, b, None)
            total += wall
            print(line)
            sys.stdout.flush()
    a = os.path.join(BUILD, "programs", "wc_l", "a.bc")
    b = os.path.join(BUILD, "programs", "wc_l", "b.bc")
    line, *_ = row("wc_l, 4096 paths", "O1", ["--sym-stdin", "12"], a, b, None)
    print(line)
    print(f"\nEvery program check, -j 1: {total:.2f} s.\n")
    bb = os.path.join(BUILD, "utils", "busybox-wc.bc")
    cu = os.path.join(BUILD, "utils", "coreutils-wc.bc")
    if os.path.exists(bb) and os.path.exists(cu):
        env = ["--sym-args", "0", "2", "2", "--sym-stdin", "8"]
        print("busybox 1.35 wc against coreutils 9.1 wc (`scripts/build-utils.sh`), for 60 s, -j 1:\n")
        print("| programs | opt | args | verdict | paths | decided | queries | cached | ranges | enum | backend | avoided | solver | engine ms | wall ms | instr/s | peak | -j 2 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        line, *_ = row("busybox wc vs coreutils wc", "Os/O2", env, bb, cu, None, jobs2=False, opts=["--max-time", "60"])
        print(line)


if __name__ == "__main__":
    main()
