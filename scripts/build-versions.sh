#!/usr/bin/env bash
# Builds two releases of the same libraries, Debian 12 (bookworm) against Debian 13
# (trixie), into linked bitcode for `xcheck lib OLD NEW` (issue 35):
#   musl 1.2.3 (bookworm) and musl 1.2.5 (trixie)
#   zlib 1.2.13 (bookworm) and zlib 1.3.1 (trixie)
# Outputs, under ${XCHECK_BUILD_DIR:-<repo>/build}/versions/ (nothing here is committed):
#   src/<release>/<package>-<version>/   the unpacked Debian source packages
#   musl-<version>/libc.bc       the library's functions linked into one bitcode module
#   musl-<version>/libc.a        the same objects as an archive of bitcode
#   musl-<version>/printf.bc     libc.bc's objects, src/stdio, the thread pointer of
#                                harness/musl and scripts/versions/musl-printf.c: the
#                                printf family through wrappers of a fixed shape (xc_*)
#   zlib-<version>/libz.bc, libz.a   likewise (libz.a is native code, for linking a program)
#   zlib-<version>/wrapped.bc    libz.bc and scripts/versions/zlib-inflate.c: inflate on
#                                bounded inputs through wrappers (xc_inflate, xc_inflate_raw)
#   apt/<release>/               a private apt configuration with one deb-src line for
#                                <release> main; the system's sources are never changed
#
# Usage: scripts/build-versions.sh [musl] [zlib]     (both when none is named)
#
# Cached like build-musl.sh: a library whose outputs are newer than this script is not
# rebuilt, and an unpacked source is not fetched again. The only downloads are
# `apt-get source musl zlib` from deb.debian.org, through the private apt configuration
# (so `apt-get source musl` elsewhere still finds bookworm's 1.2.3 for build-musl.sh).
#
# musl is compiled with build-musl.sh's flags (harness/musl/include first on the include
# path, generic C only, -U__GNUC__ for src/string so the string functions take their byte
# loops), but only the directories the function gate reads: MUSL_DIRS below. Calls out of
# them (the math functions, malloc) stay declarations: xcheck links musl's math into each
# side of a function check and models malloc itself. zlib is compiled with `xcheck cc -c`
# (the bundled musl's headers), -O1 -g.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
overlay="$repo/harness/musl"
build="${XCHECK_BUILD_DIR:-$repo/build}"
out="$build/versions"
xcheck="${XCHECK:-$repo/target/release/xcheck}"
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"
MUSL_DIRS="${MUSL_DIRS:-ctype errno internal locale multibyte prng stdlib string}"
# What printf.bc adds to them.
PRINTF_DIRS="${PRINTF_DIRS:-stdio}"
wrappers="$repo/scripts/versions"

say() { echo "build-versions: $*" >&2; }
die() { say "$*"; exit 1; }

for tool in "$CLANG" "$LLVM_AR" "$LLVM_LINK" apt-get apt-cache dpkg-source make; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found; run scripts/install.sh"
done

APT_ROOT="$out/apt" SRC_ROOT="$out/src"
# shellcheck source=lib/apt-release.sh
source "$repo/scripts/lib/apt-release.sh"
fetch() { fetch_release "$@" || exit 1; }

# --- musl ------------------------------------------------------------------------------
build_musl() {
    local release="$1" version="$2" src dest gen obj
    dest="$out/musl-$version"
    if [ -f "$dest/libc.bc" ] && [ "$dest/libc.bc" -nt "$script" ] \
        && [ -f "$dest/printf.bc" ] && [ "$dest/printf.bc" -nt "$wrappers/musl-printf.c" ]; then
        say "${dest#"$repo"/}/libc.bc and printf.bc are up to date"
        return 0
    fi
    src="$(fetch "$release" musl "$version")"
    [ "$(cat "$src/VERSION")" = "$version" ] || die "$src is not musl $version"
    gen="$dest/gen" obj="$dest/obj"
    mkdir -p "$gen" "$obj"
    make -s -C "$gen" -f "$src/Makefile" srcdir="$src" ARCH=x86_64 \
        obj/include/bits/alltypes.h obj/include/bits/syscall.h obj/src/internal/version.h >&2
    local cflags=(-target x86_64-unknown-linux-musl -emit-llvm -c -O1 -g
        -std=c99 -nostdinc -ffreestanding -fno-stack-protector
        -fno-vectorize -fno-slp-vectorize -fexcess-precision=standard
        -D_XOPEN_SOURCE=700
        -I"$overlay/include" -I"$src/arch/x86_64" -I"$src/arch/generic"
        -I"$gen/obj/src/internal" -I"$src/src/include" -I"$src/src/internal"
        -I"$gen/obj/include" -I"$src/include"
        -w -Qunused-arguments -Werror=implicit-function-declaration
        -fdebug-prefix-map="$src"=musl-"$version")
    local todo=() extra=() d f
    for d in $MUSL_DIRS; do
        for f in "$src/src/$d"/*.c; do todo+=("$f"); done
    done
    for d in $PRINTF_DIRS; do
        for f in "$src/src/$d"/*.c; do extra+=("$f"); done
    done
    say "musl $version: compiling ${#todo[@]} files of src/{${MUSL_DIRS// /,}} and ${#extra[@]} of src/{${PRINTF_DIRS// /,}} on $(nproc) cores"
    printf '%s\0' "${todo[@]}" "${extra[@]}" | XC_CFLAGS="$(printf '%s\n' "${cflags[@]}")" XC_OBJ="$obj" \
        XC_SRC="$src" CLANG="$CLANG" xargs -0 -n 16 -P "$(nproc)" bash -c '
        mapfile -t flags <<<"$XC_CFLAGS"
        for f in "$@"; do
            rel="${f#"$XC_SRC"/}"; o="$XC_OBJ/${rel//\//_}.o"
            [ -f "$o" ] && [ "$o" -nt "$f" ] && continue
            extra=(); case "$f" in */src/string/*) extra=(-U__GNUC__) ;; esac
            "$CLANG" "${flags[@]}" "${extra[@]}" "$f" -o "$o.tmp" 2>"$o.log" && mv "$o.tmp" "$o" \
                || echo "build-versions: not compiled (see $o.log): $rel" >&2
        done' _
    local objects=()
    for f in "${todo[@]}"; do
        local rel="${f#"$src"/}"
        [ -f "$obj/${rel//\//_}.o" ] && objects+=("$obj/${rel//\//_}.o")
    done
    rm -f "$dest/libc.a"
    "$LLVM_AR" rcs "$dest/libc.a" "${objects[@]}"
    "$LLVM_LINK" "${objects[@]}" -o "$dest/libc.bc.tmp"
    mv "$dest/libc.bc.tmp" "$dest/libc.bc"
    say "built ${dest#"$repo"/}/libc.bc from ${#objects[@]} objects"
    # printf.bc: the wrappers, the stdio objects, and the thread pointer (musl's locks and
    # errno read the thread; harness/musl/thread_pointer.c gives it one, as a function
    # check links it), so that the native driver of a function check links too.
    local more=()
    for f in "${extra[@]}"; do
        local rel="${f#"$src"/}"
        [ -f "$obj/${rel//\//_}.o" ] && more+=("$obj/${rel//\//_}.o")
    done
    for f in "$overlay/thread_pointer.c" "$wrappers/musl-printf.c"; do
        "$CLANG" "${cflags[@]}" "$f" -o "$obj/xc_$(basename "$f" .c).o"
        more+=("$obj/xc_$(basename "$f" .c).o")
    done
    "$LLVM_LINK" "${objects[@]}" "${more[@]}" -o "$dest/printf.bc.tmp"
    mv "$dest/printf.bc.tmp" "$dest/printf.bc"
    say "built ${dest#"$repo"/}/printf.bc from $((${#objects[@]} + ${#more[@]})) objects"
}

# --- zlib ------------------------------------------------------------------------------
build_zlib() {
    local release="$1" version="$2" src dest
    dest="$out/zlib-$version"
    if [ -f "$dest/libz.bc" ] && [ "$dest/libz.bc" -nt "$script" ] \
        && [ -f "$dest/wrapped.bc" ] && [ "$dest/wrapped.bc" -nt "$wrappers/zlib-inflate.c" ]; then
        say "${dest#"$repo"/}/libz.bc and wrapped.bc are up to date"
        return 0
    fi
    [ -x "$xcheck" ] || die "$xcheck not found; build it (cargo build --release) or set XCHECK"
    src="$(fetch "$release" zlib "$version")"
    grep -q "ZLIB_VERSION \"$version\"" "$src/zlib.h" || die "$src is not zlib $version"
    mkdir -p "$dest/obj" "$dest/native"
    local objects=() natives=() f o
    for f in adler32 compress crc32 deflate infback inffast inflate inftrees trees uncompr zutil; do
        o="$dest/obj/$f.o"
        [ -f "$o" ] && [ "$o" -nt "$script" ] || "$xcheck" cc -c -O1 -g -w -I"$src" "$src/$f.c" -o "$o"
        objects+=("$o")
        o="$dest/native/$f.o"
        [ -f "$o" ] && [ "$o" -nt "$script" ] || "$CLANG" -c -O1 -g -w -I"$src" "$src/$f.c" -o "$o"
        natives+=("$o")
    done
    rm -f "$dest/libz.a"
    "$LLVM_AR" rcs "$dest/libz.a" "${natives[@]}"
    "$LLVM_LINK" "${objects[@]}" -o "$dest/libz.bc.tmp"
    mv "$dest/libz.bc.tmp" "$dest/libz.bc"
    "$xcheck" cc -c -O1 -g -w -I"$src" "$wrappers/zlib-inflate.c" -o "$dest/obj/xc_inflate.o"
    "$LLVM_LINK" "${objects[@]}" "$dest/obj/xc_inflate.o" -o "$dest/wrapped.bc.tmp"
    mv "$dest/wrapped.bc.tmp" "$dest/wrapped.bc"
    say "built ${dest#"$repo"/}/libz.bc and wrapped.bc"
}

start=$SECONDS
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(musl zlib)
for lib in "${what[@]}"; do
    case "$lib" in
        musl) build_musl bookworm 1.2.3; build_musl trixie 1.2.5 ;;
        zlib) build_zlib bookworm 1.2.13; build_zlib trixie 1.3.1 ;;
        *) die "unknown library $lib (musl, zlib)" ;;
    esac
done
say "done in $((SECONDS - start)) s; outputs under ${out#"$repo"/}/"
