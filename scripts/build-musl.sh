#!/usr/bin/env bash
# Builds musl 1.2.3, from Debian's source package, into a bitcode C library for
# whole-program mode. Every system call goes to one external function,
#   long __xc_syscall(long n, long a, long b, long c, long d, long e, long f),
# the engine's POSIX model. Outputs, under ${XCHECK_BUILD_DIR:-<repo>/build}:
#   musl/lib/libc.a          archive of bitcode objects, with a symbol index for lld
#   musl/lib/lib{m,pthread,...}.a   empty, as musl installs them (all is in libc.a)
#   musl/include/            musl's public headers, the system include dir for programs
#   musl/kernel-include/     linux/, asm/, asm-generic/ from Debian's linux-libc-dev
#   src/musl-1.2.3/          the unpacked source package
#
# Usage: scripts/build-musl.sh
#
# Cached: nothing is done when libc.a is newer than this script and every file of
# harness/musl/; otherwise only the objects older than their source, this script or
# an overlay header are recompiled. The only download is `apt-get source musl`, from
# Debian's archive; if no deb-src entry exists, one is added for bookworm main.
#
# What differs from musl's own build, and why:
# - harness/musl/include/ comes first on the include path. It replaces the assembly
#   of syscall_arch.h (system calls), atomic_arch.h and pthread_arch.h.
# - Only generic C is compiled (src/*/*.c); the src/*/<arch>/ directories are skipped.
#   harness/musl/*.c stands in for the x86_64 assembly that has no working generic C
#   (__set_thread_area, __unmapself, __syscall_cp_asm) and forwards musl's internal
#   allocator names (__libc_malloc, ...) to malloc.
# - src/malloc/ is left out except reallocarray.c: the engine supplies malloc, calloc,
#   realloc, free, aligned_alloc, posix_memalign, memalign and malloc_usable_size.
# - setjmp, longjmp and sigsetjmp are assembly only in musl and stay undefined.
# - No -frounding-math: with it clang emits constrained floating-point intrinsics.
#   -ffreestanding keeps clang from turning memcpy.c's loop into a call of memcpy.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
overlay="$repo/harness/musl"
build="${XCHECK_BUILD_DIR:-$repo/build}"
src_parent="$build/src"
src="$src_parent/musl-1.2.3"
out="$build/musl"
lib="$out/lib/libc.a"
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"

say() { echo "build-musl: $*" >&2; }
die() { say "$*"; exit 1; }

for tool in "$CLANG" "$LLVM_AR" "$LLVM_NM" "$LLVM_LINK" "$LLVM_DIS" apt-get dpkg-source make; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found; run scripts/install.sh"
done

# Every object depends on this script, the toolchain's version and the overlay headers
# (musl's own sources and headers never change once unpacked); the archive also on the
# overlay's C files.
common_inputs=("$script" "$repo/scripts/lib/llvm.sh" "$overlay"/include/*.h)

# newer_than_all FILE INPUT...: FILE exists and is newer than every INPUT.
newer_than_all() {
    local file="$1" f
    shift
    [ -f "$file" ] || return 1
    for f in "$@"; do
        [ "$file" -nt "$f" ] || return 1
    done
}
# up_to_date FILE: FILE exists and is newer than the common inputs.
up_to_date() { newer_than_all "$1" "${common_inputs[@]}"; }

if newer_than_all "$lib" "${common_inputs[@]}" "$overlay"/*.c && [ -d "$out/include" ] && [ -d "$out/kernel-include" ]; then
    say "${lib#"$repo"/} is up to date"
    exit 0
fi

start=$SECONDS

# --- Source --------------------------------------------------------------------------
if [ ! -f "$src/VERSION" ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    if ! apt-cache showsrc musl 2>/dev/null | grep -q '^Version: 1\.2\.3'; then
        list=/etc/apt/sources.list.d/xcheck-src.list
        if [ ! -f "$list" ]; then
            # The deb822 entries of Debian 12 name a keyring; apt refuses a second entry
            # for the same archive that names none ("Conflicting values set for option
            # Signed-By").
            keyring=/usr/share/keyrings/debian-archive-keyring.gpg
            opts=""
            [ -f "$keyring" ] && opts="[signed-by=$keyring] "
            say "adding $list"
            echo "deb-src ${opts}http://deb.debian.org/debian bookworm main" | $sudo tee "$list" >/dev/null
        fi
        say "apt-get update"
        $sudo apt-get update -q >&2
    fi
    mkdir -p "$src_parent"
    rm -rf "$src"
    say "apt-get source musl"
    (cd "$src_parent" && apt-get source -q musl >&2)
    [ -f "$src/VERSION" ] || die "apt-get source did not unpack $src"
fi
[ "$(cat "$src/VERSION")" = 1.2.3 ] || die "$src is not musl 1.2.3"

# --- Generated headers, by musl's own Makefile rules ------------------------------------
gen="$out/gen"
mkdir -p "$gen"
make -s -C "$gen" -f "$src/Makefile" srcdir="$src" ARCH=x86_64 \
    obj/include/bits/alltypes.h obj/include/bits/syscall.h obj/src/internal/version.h >&2

# --- Installed headers: what `make install-headers` would put in <prefix>/include ------
if ! up_to_date "$out/include/bits/alltypes.h" || [ "$gen/obj/include/bits/alltypes.h" -nt "$out/include/bits/alltypes.h" ]; then
    rm -rf "$out/include.tmp"
    mkdir -p "$out/include.tmp/bits"
    cp -R "$src/include/." "$out/include.tmp/"
    rm -f "$out/include.tmp/alltypes.h.in"
    cp "$src"/arch/generic/bits/*.h "$out/include.tmp/bits/"
    cp "$src"/arch/x86_64/bits/*.h "$out/include.tmp/bits/"
    cp "$gen"/obj/include/bits/*.h "$out/include.tmp/bits/"
    rm -rf "$out/include"
    mv "$out/include.tmp" "$out/include"
fi

# Kernel headers: musl-dev ships none; point at Debian's linux-libc-dev copies.
kdir="$out/kernel-include"
mkdir -p "$kdir"
for pair in linux:/usr/include/linux asm:/usr/include/x86_64-linux-gnu/asm \
            asm-generic:/usr/include/asm-generic; do
    name="${pair%%:*}" target="${pair#*:}"
    [ -d "$target" ] || die "$target missing; install linux-libc-dev"
    ln -sfn "$target" "$kdir/$name"
done

# --- Compile ---------------------------------------------------------------------------
obj="$out/obj"
mkdir -p "$obj" "$out/lib"

sources=()
for f in "$src"/src/*/*.c; do
    rel="${f#"$src"/}"
    case "$rel" in
        src/malloc/reallocarray.c) ;;
        src/malloc/*) continue ;;
        src/thread/__set_thread_area.c | src/thread/__unmapself.c) continue ;;
    esac
    sources+=("$f")
done
sources+=("$overlay"/*.c)

# object_of SRC: the object file of a source. musl has equal base names in different
# directories (src/linux/clone.c, src/thread/clone.c), so the directory is kept.
object_of() {
    local rel
    case "$1" in
        "$src"/*) rel="${1#"$src"/}" ;;
        *) rel="harness/${1##*/}" ;;
    esac
    echo "$obj/${rel//\//_}.o"
}

todo=()
objects=()
for f in "${sources[@]}"; do
    o="$(object_of "$f")"
    objects+=("$o")
    if ! up_to_date "$o" || [ "$f" -nt "$o" ]; then
        todo+=("$f" "$o")
    fi
done

cflags=(-target x86_64-unknown-linux-musl -emit-llvm -c -O1 -g
        -std=c99 -nostdinc -ffreestanding -fno-stack-protector
        -fno-vectorize -fno-slp-vectorize -fexcess-precision=standard
        -D_XOPEN_SOURCE=700
        -I"$overlay/include" -I"$src/arch/x86_64" -I"$src/arch/generic"
        -I"$gen/obj/src/internal" -I"$src/src/include" -I"$src/src/internal"
        -I"$gen/obj/include" -I"$src/include"
        -w -Qunused-arguments -Werror=implicit-function-declaration -Werror=implicit-int
        -Werror=pointer-sign -Werror=pointer-arith -Werror=int-conversion
        -Werror=incompatible-pointer-types
        -fdebug-prefix-map="$src"=musl-1.2.3 -fdebug-prefix-map="$repo"=.)
# One flag a line, for the xargs workers (exported functions cannot see arrays).
XC_CFLAGS="$(printf '%s\n' "${cflags[@]}")"
export XC_CFLAGS CLANG

# compile SRC OBJ...: compiles each pair, writing through a temporary so that a failed
# compile leaves no fresh-looking object.
compile() {
    local flags
    mapfile -t flags <<<"$XC_CFLAGS"
    while [ $# -ge 2 ]; do
        # musl's string functions read whole aligned words when __GNUC__ is defined,
        # past the end of the object (harmless on real pages, out of bounds for an
        # engine that checks every access against its object). Without __GNUC__ they
        # take their plain byte loops.
        local extra=()
        case "$1" in */src/string/*) extra=(-U__GNUC__) ;; esac
        "$CLANG" "${flags[@]}" "${extra[@]}" "$1" -o "$2.tmp" || { echo "build-musl: failed: $1" >&2; return 255; }
        mv "$2.tmp" "$2"
        shift 2
    done
}
export -f compile

if [ ${#todo[@]} -gt 0 ]; then
    say "compiling $((${#todo[@]} / 2)) of ${#objects[@]} files on $(nproc) cores"
    printf '%s\0' "${todo[@]}" | xargs -0 -n 32 -P "$(nproc)" bash -c 'compile "$@"' _
fi

# --- Archive ---------------------------------------------------------------------------
# A fresh archive each time, so that objects of removed sources cannot linger.
rm -f "$lib.tmp"
printf '%s\n' "${objects[@]}" | sort | xargs "$LLVM_AR" rcs "$lib.tmp"
mv "$lib.tmp" "$lib"
# Empty companions, as musl installs them: -lm, -lpthread... find everything in libc.a.
for name in m rt pthread crypt util xnet resolv dl; do
    [ -f "$out/lib/lib$name.a" ] || "$LLVM_AR" rcs "$out/lib/lib$name.a"
done

# --- Checks ----------------------------------------------------------------------------
# Inline assembly: only the empty barriers of explicit_bzero and __libc_start_main may
# remain, asm statements whose template is "" (they emit no instruction).
dis="$("$LLVM_LINK" "${objects[@]}" -o - | "$LLVM_DIS" -o -)"
bad_asm="$(grep -oE 'asm (sideeffect )?"[^"]*", "[^"]*"' <<<"$dis" | grep -vE '^asm (sideeffect )?"", ' | sort -u || true)"
[ -z "$bad_asm" ] || die "inline assembly left in the bitcode libc: $bad_asm"
# A few math functions ask for strict floating point with #pragma STDC FENV_ACCESS ON;
# list them (the engine does not support floating point anyway).
strict_fp="$(awk '/^define / { fn = $0; sub(/\(.*/, "", fn); sub(/.*@/, "", fn) }
    /call .*@llvm\.experimental\.constrained/ { print fn }' <<<"$dis" | sort -u | tr '\n' ' ')"
[ -z "$strict_fp" ] || say "note: constrained floating point (FENV_ACCESS) in: $strict_fp"

# Undefined symbols of the whole archive: referenced by some member, defined by none.
undefined="$("$LLVM_NM" --no-sort "$lib" 2>/dev/null | awk '
    NF == 2 && $1 == "U" { u[$2] = 1; next }
    NF == 2 && $1 == "w" { if (!($2 in u)) u[$2] = 0; next }
    NF >= 3 { d[$3] = 1 }
    END { for (s in u) if (!(s in d)) print s (u[s] ? "" : "(weak)") }' | sort | tr '\n' ' ')"
say "undefined in libc.a: $undefined"
say "built ${lib#"$repo"/} ($(du -h "$lib" | cut -f1)) in $((SECONDS - start)) s"
