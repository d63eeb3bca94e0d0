#!/usr/bin/env bash
# Native tests of the system-call model (harness/posix/*.c): compiles the model with the
# primitives of prims_native.c and the small test programs t_*.c, which call __xc_syscall
# directly, runs them on chosen inputs and checks exit status, stdout and the symbolic
# objects made. Also checks every XC_ constant against the host's headers, and that each
# model file compiles to bitcode with build.rs's flags without a warning.
#   bash harness/posix/test/run.sh            (CC=clang-19 to use another native compiler;
#                                             XC_ENGINE=target/release/xcheck to also run
#                                             engine_smoke.c under the engine)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
CC=${CC:-cc}
# The bitcode compiler and disassembler: build.rs's (the version scripts/lib/llvm.sh names).
# shellcheck source=../../../scripts/lib/llvm.sh
source "$root/scripts/lib/llvm.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# ---- 1. bitcode with build.rs's flags, no warnings ------------------------------------------
if command -v "$CLANG" >/dev/null && command -v "$LLVM_DIS" >/dev/null; then
    for f in "$root"/harness/posix/*.c; do
        if "$CLANG" -c -emit-llvm -O1 -g -target x86_64-unknown-linux-gnu -fno-vectorize \
            -fno-slp-vectorize -ffreestanding -fno-builtin -I "$root/harness/include" \
            -Wall -Wextra -Werror "$f" -o "$work/$(basename "$f" .c).bc" 2>"$work/cc.err"; then
            # Only the plainest intrinsics (clang can introduce others, e.g. llvm.load.relative
            # for tables of strings, which the interpreter need not support). clang-19's -O1
            # adds llvm.assume and the integer min/max, which the interpreter lowers.
            odd=$("$LLVM_DIS" "$work/$(basename "$f" .c).bc" -o - | grep -o '@llvm\.[a-z0-9_.]*' |
                grep -vE '^@llvm\.(dbg|lifetime|memcpy|memset|assume|[su]m(in|ax))\.' |
                grep -vx '@llvm\.assume' | sort -u | tr '\n' ' ' || true)
            if [ -z "$odd" ]; then
                ok "bitcode $(basename "$f")"
            else
                bad "bitcode $(basename "$f"): intrinsics $odd"
            fi
        else
            bad "bitcode $(basename "$f")"
            cat "$work/cc.err"
        fi
    done
else
    echo "skip bitcode checks (no $CLANG)"
fi

# ---- 2. constants against the host's headers ------------------------------------------------
{
    echo '#define _GNU_SOURCE'
    for h in sys/syscall.h errno.h fcntl.h sys/stat.h unistd.h sys/ioctl.h sys/mman.h \
        signal.h elf.h sys/resource.h asm/prctl.h linux/futex.h stddef.h poll.h sys/vfs.h dirent.h \
        sys/inotify.h; do
        echo "#include <$h>"
    done
    echo '#include <xcheck/posix.h>'
    grep -o '^#define XC_[A-Za-z0-9_]*' "$root/harness/include/xcheck/posix.h" |
        sed 's/^#define //' | while read -r x; do
            host=${x#XC_}
            case $host in
            SYS_* | E[A-Z]* | O_* | S_IF* | F_* | FD_CLOEXEC | TC* | TIOC* | FIO* | SEEK_* | \
                MAP_* | PROT_WRITE | SIG[A-Z]* | SA_* | AT_* | RLIMIT_* | RLIM_INFINITY | \
                ARCH_* | FUTEX_* | X_OK | POLL* | DT_* | IN_*)
                # glibc's O_LARGEFILE is 0 on x86_64 (the kernel's and musl's is 0100000)
                case $host in SIG_* | EPOCH | O_LARGEFILE) continue ;; esac
                echo "_Static_assert((long)($x) == (long)($host), \"$x\");"
                ;;
            esac
        done
    echo '_Static_assert(sizeof(struct stat) == sizeof(struct xc_stat), "stat size");'
    for fld in st_dev st_ino st_nlink st_mode st_uid st_gid st_rdev st_size st_blksize st_blocks; do
        echo "_Static_assert(offsetof(struct stat, $fld) == offsetof(struct xc_stat, $fld), \"$fld\");"
    done
    echo '_Static_assert(offsetof(struct stat, st_mtim) == offsetof(struct xc_stat, st_mtime_sec), "mtime");'
    echo '_Static_assert(sizeof(struct statfs) == sizeof(struct xc_statfs), "statfs size");'
    for fld in f_type f_bsize f_blocks f_bfree f_bavail f_files f_ffree f_fsid f_namelen f_frsize f_flags; do
        echo "_Static_assert(offsetof(struct statfs, $fld) == offsetof(struct xc_statfs, $fld), \"$fld\");"
    done
    echo '_Static_assert(sizeof(struct pollfd) == sizeof(struct xc_pollfd), "pollfd size");'
    echo 'int main(void) { return 0; }'
} >"$work/consts.c"
n_consts=$(grep -c _Static_assert "$work/consts.c")
if $CC -std=gnu11 -I "$root/harness/include" -c "$work/consts.c" -o "$work/consts.o" 2>"$work/cc.err"; then
    ok "constants ($n_consts checked against the host headers)"
else
    bad "constants"
    cat "$work/cc.err"
fi

# ---- 3. the test programs ---------------------------------------------------------------------
cflags=(-std=gnu11 -O1 -g -I "$root/harness/include")
objs=()
for f in "$root"/harness/posix/*.c; do
    o="$work/model_$(basename "$f" .c).o"
    $CC "${cflags[@]}" -Wall -Wextra -Werror -c "$f" -o "$o"
    objs+=("$o")
done
$CC "${cflags[@]}" -c "$root/harness/klee.c" -o "$work/klee.o"
$CC "${cflags[@]}" -Wall -Wextra -c "$here/prims_native.c" -o "$work/prims.o"
objs+=("$work/klee.o" "$work/prims.o")
for t in t_argv t_io t_reset t_fail t_misc t_dir t_pipe; do
    $CC "${cflags[@]}" -Wall -Wextra -Wno-unused-function -o "$work/$t" "$here/$t.c" "${objs[@]}"
done

scratch="$work/scratch"
export XC_INPUT="$work/input" XC_OBJLOG="$work/objects"

# input LINES...: the symbolic objects' values, one "name hex" or "name s:text" a line
input() { printf '%s\n' "$@" >"$XC_INPUT"; }

# le VALUE BYTES: VALUE as BYTES little-endian bytes in hex.
le() { printf "%0$(($2 * 2))x" "$1" | sed 's/../& /g' | tr ' ' '\n' | tac | tr -d '\n'; }
# stat_hex SIZE INO: the 144-byte struct stat64 the model pins a symbolic file's (or
# stdin's) stat object to: device 0x803, inode INO, one link, S_IFREG|0644, uid and gid 0,
# SIZE bytes, block size 4096, 8 blocks, every time 2020-01-01 (XC_EPOCH), 24 zero bytes.
stat_hex() {
    local t
    t=$(le 1577836800 8)$(le 0 8)
    echo "$(le 0x803 8)$(le "$2" 8)$(le 1 8)$(le 0x81a4 4)$(le 0 12)$(le 0 8)$(le "$1" 8)$(le 4096 8)$(le 8 8)$t$t$t$(le 0 24)"
}

# The objects the last run made: "name size" of each, in order, separated by spaces.
objects_made() { tr '\n' ' ' <"$XC_OBJLOG" | sed 's/ $//'; }

# case_ NAME STATUS EXPECTED-STDOUT|- EXPECTED-OBJECTS|- PROGRAM ARGS...
# Runs the program in a fresh scratch directory holding host.txt; "-" skips a comparison.
case_() {
    local name=$1 status=$2 out=$3 objects=$4
    shift 4
    rm -rf "$scratch"
    mkdir -p "$scratch"
    printf 'hello host\n' >"$scratch/host.txt"
    : >"$XC_OBJLOG"
    local got=0
    { (cd "$scratch" && exec "$work/$1" "${@:2}") >"$work/stdout" 2>"$work/stderr" </dev/null; } \
        2>/dev/null || got=$?
    local why=""
    [ "$got" = "$status" ] || why="exit status $got, expected $status"
    if [ -z "$why" ] && [ "$out" != "-" ] && [ "$(cat "$work/stdout")" != "$out" ]; then
        why="stdout differs"
        diff <(printf '%s\n' "$out") "$work/stdout" | sed 's/^/    /' || true
    fi
    if [ -z "$why" ] && [ "$objects" != "-" ] && [ "$(objects_made)" != "$objects" ]; then
        why="objects: $(objects_made)"
    fi
    if [ -z "$why" ]; then
        ok "$name"
    else
        bad "$name: $why"
        sed 's/^/    stderr: /' "$work/stderr"
    fi
}

aux='argv[argc]=0 envp[0]=0
aux 6=4096
aux 11=0
aux 12=0
aux 13=0
aux 14=0
aux 23=0
aux 25=3c915e07a248d36f19e472bb058dc62a
aux 0=0'

# argv block layout, --sym-arg / --sym-args, reset of the arguments
input 'arg00 s:abc' 'n_args 02000000' 'arg01 s:x' 'arg02 s:yz'
block='argc=6
argv[0]="wc"
argv[1]="-x"
argv[2]="abc"
argv[3]="x"
argv[4]="yz"
argv[5]="plain"'"
$aux"
case_ "argv: block layout, two of --sym-args 1 2 2, reset gives fresh copies" 0 \
    "$block
-- after reset
$block
fresh=1" "arg00 4 n_args 4 arg01 3 arg02 3" \
    t_argv wc -x --sym-arg 3 --sym-args 1 2 2 plain

input 'n_args 00000000'
case_ "argv: --sym-args 0 3 2 with a count of 0" 0 \
    "argc=1
argv[0]=\"wc\"
$aux
-- after reset
argc=1
argv[0]=\"wc\"
$aux
fresh=1" "n_args 4" t_argv wc --sym-args 0 3 2

input 'n_args 03000000' 'arg00 01ff00' 'arg01' 'arg02 4100'
block='argc=4
argv[0]="p"
argv[1]="\x01\xff"
argv[2]=""
argv[3]="A"'"
$aux"
case_ "argv: --sym-args 2 3 2 with a count of 3, any bytes" 0 "$block
-- after reset
$block
fresh=1" "n_args 4 arg00 3 arg01 3 arg02 3" t_argv p --sym-args 2 3 2

# KLEE 3.x's objects: each file's bytes and stat, stdin's, the failure counters; the stat
# objects are pinned to the model's values (any other value is a false assumption).
st_a3="A_data_stat $(stat_hex 3 10)" st_b3="B_data_stat $(stat_hex 3 11)"
input "$st_a3" "$st_b3" "stdin_stat $(stat_hex 4 9)"
case_ "argv: object order of files, stdin, failure counters" 0 - \
    "arg00 2 A_data 3 A_data_stat 144 B_data 3 B_data_stat 144 stdin 4 stdin_stat 144 read_fail 4 write_fail 4 close_fail 4 ftruncate_fail 4 getcwd_fail 4" \
    t_argv prog --sym-stdin 4 --sym-files 2 3 --sym-arg 1 --max-fail 1
input "$st_a3"
case_ "argv: --sym-files 1 3 --sym-args 0 1 2 makes n_args first, then A's objects" 0 - \
    "n_args 4 A_data 3 A_data_stat 144" t_argv prog --sym-files 1 3 --sym-args 0 1 2
input "stdin_stat $(stat_hex 5 9)"
case_ "argv: --sym-stdin alone makes stdin and stdin_stat, no model_version" 0 - \
    "stdin 5 stdin_stat 144" t_argv prog --sym-stdin 5
input "stdin_stat $(stat_hex 5 9)" 'read_fail 01000000'
case_ "argv: --sym-stdin 5 --max-fail 2" 0 - \
    "stdin 5 stdin_stat 144 read_fail 4 write_fail 4 close_fail 4 ftruncate_fail 4 getcwd_fail 4" \
    t_argv prog --sym-stdin 5 --max-fail 2
input "A_data_stat $(stat_hex 3 11)" "$st_b3"
case_ "argv: a stat object other than the model's values is a false assumption" 134 "" - \
    t_argv prog --sym-files 2 3
input "$st_a3" "B_data_stat $(stat_hex 4 11)"
case_ "argv: the size in a stat object must be the file's" 134 "" - t_argv prog --sym-files 2 3

input 'arg00 s:abc'
case_ "argv: the last byte of a symbolic argument is constrained to 0" 134 "" - t_argv wc --sym-arg 2

input
for bad_args in "--sym-arg" "--sym-arg x" "--sym-arg 5000" "--sym-args 1 2" "--sym-args 3 2 1" \
    "--sym-args 0 0 4" "--sym-files 27 4" "--sym-files 2 0" "--sym-files 1 5000" \
    "--sym-files 1 2 --sym-files 1 2" "--sym-stdin" "--sym-stdin 4097" "--max-fail" \
    "--sym-stdout" "--sym-foo 3" "-sym-bar"; do
    # shellcheck disable=SC2086
    case_ "argv: bad option '$bad_args' is a user error" 77 "" - t_argv wc $bad_args
done
input 'arg00 s:ab'
case_ "argv: single-dash options, --fd-fail, --save-all-writes" 0 - \
    "arg00 3 read_fail 4 write_fail 4 close_fail 4 ftruncate_fail 4 getcwd_fail 4" \
    t_argv wc -sym-arg 2 --fd-fail -save-all-writes

# files and descriptors
input 'stdin s:0123456789' 'A_data s:alpha' 'B_data s:bravo' "stdin_stat $(stat_hex 10 9)" \
    "A_data_stat $(stat_hex 5 10)" "B_data_stat $(stat_hex 5 11)"
case_ "io: stdin chunks and EOF, stdout/stderr pipes, A/B, host and created files" 0 \
    "line one
writev
via five
ha" "A_data 5 A_data_stat 144 B_data 5 B_data_stat 144 stdin 10 stdin_stat 144" t_io

# reset
input 'A_data s:abcd' 'stdin s:wxyz' 'arg00 s:hi' "A_data_stat $(stat_hex 4 10)" \
    "stdin_stat $(stat_hex 4 9)"
case_ "reset: offsets, contents, created/deleted files, fd table, argv, inodes" 0 \
    "program A
program B" "arg00 3 A_data 4 A_data_stat 144 stdin 4 stdin_stat 144" t_reset

# --max-fail
fails='read_fail 4 write_fail 4 close_fail 4 ftruncate_fail 4 getcwd_fail 4'
st_in8="stdin_stat $(stat_hex 8 9)"
input 'read_fail 02000000' "$st_in8"
case_ "max-fail: the 2nd read fails, and again after reset" 0 "" "stdin 8 stdin_stat 144 $fails" t_fail count
input 'read_fail 01000000' 'close_fail 01000000' "$st_in8"
case_ "max-fail: at most N failures" 0 "" "stdin 8 stdin_stat 144 $fails" t_fail budget
input 'close_fail 02000000' 'write_fail 01000000' 'getcwd_fail 01000000'
case_ "max-fail: close counting, failed close keeps the fd, stdout write fails" 0 "second" \
    "$fails" t_fail close
input 'read_fail 02000000' "$st_in8"
case_ "max-fail: absent, nothing fails" 0 "" "stdin 8 stdin_stat 144" t_fail none

# other system calls
input
case_ "misc: memory, ids, time, uname, limits, randomness, handlers, unknown" 0 "" - t_misc basic
case_ "misc: exit_group(259) is status 3" 3 "bye" - t_misc exit
case_ "misc: kill(self, SIGTERM)" 143 "" - t_misc sigterm
case_ "misc: abort's tkill(SIGABRT)" 134 "" - t_misc abort
case_ "misc: an ignored signal" 0 "" - t_misc ignored

# directory listing
input "A_data s:alpha" "B_data s:bravo" "A_data_stat $(stat_hex 5 10)" "B_data_stat $(stat_hex 5 11)"
case_ "dir: getdents64/getdents of the root and of a made directory, offsets, reset" 0 "" - t_dir

# pipes
input
case_ "pipe: reads, writes, EOF, descriptors, poll/select, capacity, reset" 0 "before
after" - t_pipe basic
case_ "pipe: a write with no read end is killed by SIGPIPE" 141 "go" - t_pipe sigpipe
case_ "pipe: a write with no read end and SIGPIPE ignored is EPIPE" 0 "go
alive" - t_pipe ignored
case_ "pipe: a read that would wait forever is a model error" 77 "" - t_pipe hang
case_ "pipe: a write that would wait forever is a model error" 77 "" - t_pipe full
case_ "pipe: poll that would wait forever on an empty pipe is a model error" 77 "" - t_pipe pollhang
case_ "inotify: instances and watches, no events" 0 "" - t_pipe inotify
case_ "inotify: reading events is a model error" 77 "" - t_pipe inotifyread

# ---- 4. optional: the model under the engine (XC_ENGINE=target/release/xcheck, built from
# this tree so that its embedded harness is this model) ------------------------------------
if [ -n "${XC_ENGINE:-}" ]; then
    "$CLANG" -c -emit-llvm -O1 -g -I "$root/harness/include" "$here/engine_smoke.c" \
        -o "$work/engine_smoke.bc"
    if "$XC_ENGINE" run --max-time 300 -o "$work/engine-out" "$work/engine_smoke.bc" \
        >"$work/engine.log" 2>&1 && ! grep -q '^unknown' "$work/engine.log" &&
        grep -q 'errors: 0,' "$work/engine.log"; then
        ok "engine: $(tail -1 "$work/engine.log")"
    else
        bad "engine"
        sed 's/^/    /' "$work/engine.log"
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
