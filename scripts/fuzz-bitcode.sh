#!/usr/bin/env bash
# Flips 1 to 4 random bits in N bitcode files (corpus pairs and whole programs from build/)
# and runs xcheck on each against its unchanged partner. Every run must end with exit 0, 1,
# 2 or 3: never a signal (LLVM's reader aborting is 134, a segfault 139) and never a panic
# (101). Prints a table of outcomes; exits 1 if any run crashed.
#
# Usage: scripts/fuzz-bitcode.sh N [SEED]     (XCHECK=path/to/xcheck; default target/release)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: scripts/fuzz-bitcode.sh N [SEED]}
seed=${2:-1}
xcheck=${XCHECK:-target/release/xcheck}
[ -x "$xcheck" ] || { echo "fuzz-bitcode: no $xcheck (cargo build --release)" >&2; exit 2; }
ls build/corpora/*/a.O2.bc >/dev/null 2>&1 ||
    { echo "fuzz-bitcode: build the corpora first (scripts/build-corpora.sh)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$n" "$seed" "$xcheck" "$work" <<'EOF'
import collections, glob, os, random, re, subprocess, sys

n, seed, xcheck, work = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
rng = random.Random(seed)
# (mutated file, partner, extra arguments): corpus pairs at -O0 and -O2, and whole programs.
jobs = []
for case in sorted(glob.glob("build/corpora/*/")):
    name = os.path.basename(case.rstrip("/"))
    toml = os.path.join("corpora", name, "case.toml")
    m = re.search(r'^function\s*=\s*"([^"]+)"', open(toml).read(), re.M) if os.path.exists(toml) else None
    if not m:
        continue
    for opt in ("O0", "O2"):
        a, b = f"{case}a.{opt}.bc", f"{case}b.{opt}.bc"
        if os.path.exists(a) and os.path.exists(b):
            jobs.append((a, b, ["--function", m.group(1)]))
for prog in sorted(glob.glob("build/programs/*/")):
    a, b = prog + "a.bc", prog + "b.bc"
    if os.path.exists(a) and os.path.exists(b):
        jobs.append((a, b, ["--sym-args", "0", "1", "2", "--sym-stdin", "2"]))

outcomes = collections.Counter()
classes = collections.Counter()
crashes = []
for i in range(n):
    a, b, extra = rng.choice(jobs)
    data = bytearray(open(a, "rb").read())
    flips = [rng.randrange(len(data) * 8) for _ in range(rng.randint(1, 4))]
    for bit in flips:
        data[bit // 8] ^= 1 << (bit % 8)
    mutant = os.path.join(work, f"m{i:04d}.bc")
    open(mutant, "wb").write(data)
    cmd = [xcheck, mutant, b, *extra, "-j", "1", "--max-time", "10",
           "-o", os.path.join(work, "out")]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=120)
        code = p.returncode
        err = p.stderr.decode(errors="replace").strip().splitlines()
    except subprocess.TimeoutExpired:
        code, err = "timeout", []
    outcomes[code] += 1
    last = err[-1] if err else ""
    if code == 2:
        # The message without the file name, cut before its details.
        msg = last.split(": ", 3)[-1]
        classes[re.split(r" \(|: |; ", msg)[0][:60] + ("  [" + re.search(r"reader (\w+)", msg).group(1) + "]" if "LLVM's reader" in msg else "")] += 1
        if len(err) != 1:
            crashes.append((i, a, flips, code, "error is not one line: " + " | ".join(err)[:300]))
    if code not in (0, 1, 2, 3):
        crashes.append((i, a, flips, code, last))
    os.remove(mutant)

print(f"fuzz-bitcode: {n} mutated files, seed {seed}, {len(jobs)} source files")
print("exit code counts:", ", ".join(f"{k}: {v}" for k, v in sorted(outcomes.items(), key=str)))
print("exit-2 messages:")
for k, v in classes.most_common():
    print(f"  {v:4d}  {k}")
for i, a, flips, code, last in crashes:
    print(f"CRASH #{i}: {a} bits {flips}: exit {code}: {last}")
sys.exit(1 if crashes else 0)
EOF
