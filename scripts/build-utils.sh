#!/usr/bin/env bash
# Builds real utilities from Debian's source packages through `xcheck cc` (bundled musl):
# each as a native static executable (for replaying counterexamples) and its
# whole-program bitcode (for the engine). Outputs, under ${XCHECK_BUILD_DIR:-<repo>/build}:
#   utils/busybox-wc   utils/busybox-wc.bc     busybox 1.35.0, a one-applet busybox (wc)
#   utils/coreutils-wc utils/coreutils-wc.bc   coreutils 9.1, src/wc
#   utils/work/<tool>/                         the build trees (out of the source trees)
#   src/busybox-1.35.0/ src/coreutils-9.1/     the unpacked source packages
#
# Usage: scripts/build-utils.sh [busybox|coreutils|all]   (default all)
#
# Needs target/release/xcheck (cargo build --release) and scripts/build-musl.sh's output.
# Cached: a tool is skipped when both its outputs are newer than this script, its files
# under scripts/utils/ and the bitcode libc. Otherwise busybox is rebuilt from scratch
# (about 40 s); coreutils keeps its configured tree while the configure arguments are
# unchanged (configure through the wrapper takes minutes) and relinks wc.
# XCHECK_UTILS_CLEAN=1 wipes the build trees first.
#
# Downloads: only `apt-get source busybox coreutils` from Debian's archive (a deb-src
# entry for bookworm main is added if there is none, as scripts/build-musl.sh does).
# Build dependencies, all Debian packages that scripts/install.sh already installs:
# make, perl, xz-utils and bzip2 (the last four come with dpkg-dev) and clang-19 (the
# version scripts/lib/llvm.sh names, as xcheck cc's), which also serves as busybox's HOSTCC for Kconfig and its helpers, so gcc is not needed.
# Nothing of `apt-get build-dep` is needed: the parts built here use neither texinfo,
# gettext, gperf, bison nor the libraries coreutils can link.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script="$repo/scripts/$(basename "${BASH_SOURCE[0]}")"
extra="$repo/scripts/utils"
build="${XCHECK_BUILD_DIR:-$repo/build}"
src_parent="$build/src"
out="$build/utils"
work_parent="$out/work"
xcheck="${XCHECK_BIN:-$repo/target/release/xcheck}"
libc="$build/musl/lib/libc.a"
jobs=2
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"

say() { echo "build-utils: $*" >&2; }
die() { say "$*"; exit 1; }

what="${1:-all}"
case "$what" in
    busybox | coreutils | all) ;;
    -h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "usage: $0 [busybox|coreutils|all]" ;;
esac
[ $# -le 1 ] || die "usage: $0 [busybox|coreutils|all]"

[ -x "$xcheck" ] || die "$xcheck not built (cargo build --release)"
[ -f "$libc" ] || die "$libc missing (scripts/build-musl.sh)"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

# Build dependencies: the tools, and the Debian package providing each when missing.
missing=()
for pair in make:make perl:perl xz:xz-utils bzip2:bzip2 dpkg-source:dpkg-dev \
            "$CLANG:$LLVM_PKG_CLANG" "$LLVM_AR:$LLVM_PKG_TOOLS" "$LLVM_RANLIB:$LLVM_PKG_TOOLS" \
            "$LLVM_NM:$LLVM_PKG_TOOLS" "$LLVM_DIS:$LLVM_PKG_TOOLS" "$LLVM_STRIP:$LLVM_PKG_TOOLS" \
            "$LD_LLD:$LLVM_PKG_LLD"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
    say "installing ${missing[*]} from Debian"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# newer_than_all FILE INPUT...: FILE exists and is newer than every INPUT.
newer_than_all() {
    local file="$1" f
    shift
    [ -f "$file" ] || return 1
    for f in "$@"; do
        [ "$file" -nt "$f" ] || return 1
    done
}

# up_to_date TOOL: both outputs of TOOL exist and are newer than every input.
up_to_date() {
    local inputs=("$script" "$repo/scripts/lib/llvm.sh" "$libc")
    shopt -s nullglob
    inputs+=("$extra"/"$1"*)
    shopt -u nullglob
    newer_than_all "$out/$1" "${inputs[@]}" && newer_than_all "$out/$1.bc" "${inputs[@]}"
}

# --- Sources -------------------------------------------------------------------------
# ensure_deb_src PACKAGE VERSION: apt knows the source package PACKAGE at VERSION.
ensure_deb_src() {
    apt-cache showsrc "$1" 2>/dev/null | grep -q "^Version: $2" && return 0
    local list=/etc/apt/sources.list.d/xcheck-src.list
    if [ ! -f "$list" ]; then
        # Debian 12's deb822 entries name a keyring; apt refuses a second entry for the
        # same archive that names none ("Conflicting values set for option Signed-By").
        local keyring=/usr/share/keyrings/debian-archive-keyring.gpg opts=""
        [ -f "$keyring" ] && opts="[signed-by=$keyring] "
        say "adding $list"
        echo "deb-src ${opts}http://deb.debian.org/debian bookworm main" | $sudo tee "$list" >/dev/null
    fi
    say "apt-get update"
    $sudo apt-get update -q >&2
    apt-cache showsrc "$1" 2>/dev/null | grep -q "^Version: $2" \
        || die "Debian's archive has no source package $1 $2"
}

# fetch_source PACKAGE VERSION DIR MARKER: unpacks PACKAGE into $src_parent/DIR (with
# Debian's patches applied) unless DIR/MARKER already exists.
fetch_source() {
    local pkg="$1" version="$2" dir="$src_parent/$3" marker="$4"
    [ -f "$dir/$marker" ] && return 0
    ensure_deb_src "$pkg" "$version"
    mkdir -p "$src_parent"
    rm -rf "$dir"
    say "apt-get source $pkg"
    (cd "$src_parent" && apt-get source -q "$pkg" >&2)
    [ -f "$dir/$marker" ] || die "apt-get source $pkg did not unpack $dir"
}

# --- Summary -------------------------------------------------------------------------
# summarize NAME SECONDS: one line with the size of NAME's whole-program bitcode.
summarize() {
    local bc="$out/$1.bc" counts
    # Defined functions, and the instructions of their bodies (indented lines between
    # `define` and the closing brace; labels and metadata are not indented).
    counts="$("$LLVM_DIS" "$bc" -o - | awk '
        /^define / { f++; body = 1; next }
        body && /^}/ { body = 0; next }
        body && /^  [^ ]/ { n++ }
        END { printf "%d functions, %d instructions", f, n }')"
    echo "build-utils: $1: ${bc#"$repo"/}: $counts; native ${out#"$repo"/}/$1 ($(du -k "$out/$1" | cut -f1) KiB); built in $2 s"
}

# run_logged LOG COMMAND...: runs COMMAND with its output in LOG; on failure shows the
# end of LOG and fails.
run_logged() {
    local log="$1"
    shift
    if ! "$@" >>"$log" 2>&1; then
        tail -n 40 "$log" >&2
        die "failed: $* (whole output in ${log#"$repo"/})"
    fi
}

# --- busybox 1.35.0: one applet ---------------------------------------------------------
# apply_config_fragment CONFIG FRAGMENT: see scripts/utils/busybox-wc.config.
apply_config_fragment() {
    local config="$1" fragment="$2" line name
    while IFS= read -r line; do
        case "$line" in
            "# CONFIG_"*" is not set") name="${line#\# }"; name="${name%% *}" ;;
            "" | "#"*) continue ;;
            CONFIG_*=*) name="${line%%=*}" ;;
            *) die "$fragment: cannot read line: $line" ;;
        esac
        sed -i -E "/^(# )?$name[= ]/d" "$config"
        [ "$line" = "$name=default" ] || echo "$line" >>"$config"
    done <"$fragment"
}

build_busybox() {
    local applet=wc name=busybox-wc
    if up_to_date "$name"; then
        say "$name is up to date"
        return 0
    fi
    local start=$SECONDS
    local src="$src_parent/busybox-1.35.0"
    fetch_source busybox 1:1.35.0 busybox-1.35.0 applets/applets.c
    local work="$work_parent/$name" log="$work_parent/$name.log"
    # Always from scratch: Kbuild's dependency tracking of .config through fixdep is
    # reliable, but a changed script may mean changed flags, and it takes only ~40 s.
    rm -rf "$work" "$log"
    mkdir -p "$work"
    local mk=(make -C "$src" O="$work" HOSTCC="$CLANG" CC="$xcheck cc"
              AR="$LLVM_AR" NM="$LLVM_NM" STRIP="$LLVM_STRIP" SKIP_STRIP=y)
    say "configuring busybox ($applet only)"
    run_logged "$log" "${mk[@]}" allnoconfig
    apply_config_fragment "$work/.config" "$extra/$name.config"
    # (`yes` dies of SIGPIPE, which pipefail would count as a failure.)
    (yes "" || true) | run_logged "$log" "${mk[@]}" oldconfig
    # The fragment's options must have survived oldconfig (a wrong name or an unmet
    # dependency would silently drop them).
    grep -q "^CONFIG_${applet^^}=y" "$work/.config" || die "oldconfig dropped CONFIG_${applet^^}"
    say "busybox .config: $(grep -E '^CONFIG_[A-Z0-9_]+=y' "$work/.config" | sed 's/=y$//; s/^CONFIG_//' | tr '\n' ' ')"
    say "building busybox with -j$jobs (log: ${log#"$repo"/})"
    run_logged "$log" "${mk[@]}" -j"$jobs" busybox
    [ -f "$work/busybox_unstripped.bc" ] || die "no bitcode: $work/busybox_unstripped.bc"
    mkdir -p "$out"
    # The unstripped binary keeps its symbols, which helps when replaying.
    cp "$work/busybox_unstripped" "$out/$name.tmp"
    cp "$work/busybox_unstripped.bc" "$out/$name.bc.tmp"
    mv "$out/$name.tmp" "$out/$name"
    mv "$out/$name.bc.tmp" "$out/$name.bc"
    summarize "$name" $((SECONDS - start))
}

# --- coreutils 9.1: src/wc ----------------------------------------------------------------
build_coreutils() {
    local prog=wc name=coreutils-wc
    if up_to_date "$name"; then
        say "$name is up to date"
        return 0
    fi
    local start=$SECONDS
    local src="$src_parent/coreutils-9.1"
    fetch_source coreutils 9.1 coreutils-9.1 src/wc.c
    local work="$work_parent/coreutils" log="$work_parent/coreutils.log"
    local configure_args=(CC="$xcheck cc" AR="$LLVM_AR" RANLIB="$LLVM_RANLIB" NM="$LLVM_NM"
        --disable-nls --without-selinux --without-openssl --without-libgmp
        --disable-acl --disable-xattr --disable-libcap
        --disable-silent-rules)
    local stamp="$work/.xcheck-configure-args"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${configure_args[*]}" ] || [ ! -f "$work/Makefile" ]; then
        rm -rf "$work" "$log"
        mkdir -p "$work"
        say "configuring coreutils (every link test builds native and bitcode: a few minutes; log: ${log#"$repo"/})"
        # coreutils' configure refuses to run as root (it checks mknod on a fifo).
        (cd "$work" && FORCE_UNSAFE_CONFIGURE=1 run_logged "$log" "$src/configure" "${configure_args[@]}")
        # wc (AVX2 line counting) and cksum (pclmul CRC) choose x86 fast paths at run
        # time through cpuid inline assembly; configure has no switch for them. Undefine
        # them in config.h and drop their libraries (built with -mavx2/-mpclmul) from
        # the Makefile. The Makefile's am__append lines leave them in noinst_LIBRARIES,
        # which only `make all` builds.
        sed -i -E 's|^#define (USE_AVX2_WC_LINECOUNT\|USE_PCLMUL_CRC32) .*|/* #undef \1 */|' "$work/lib/config.h"
        sed -i -E 's/^(wc_avx2_ldadd|cksum_pclmul_ldadd) = .*/\1 =/' "$work/Makefile"
        if grep -qE '^#define (USE_AVX2_WC_LINECOUNT|USE_PCLMUL_CRC32) ' "$work/lib/config.h" \
           || grep -qE '^(wc_avx2_ldadd|cksum_pclmul_ldadd) = .' "$work/Makefile"; then
            die "could not switch off the AVX2/pclmul fast paths"
        fi
        echo "${configure_args[*]}" >"$stamp"
    fi
    # `make src/wc` alone skips BUILT_SOURCES (gnulib's replacement headers and other
    # generated files), which `make all` builds first.
    local built_sources
    built_sources="$(make -s -C "$work" -f Makefile -f - xcheck-print-built-sources \
        <<<'xcheck-print-built-sources: ; @echo $(BUILT_SOURCES)' 2>/dev/null)"
    say "building coreutils src/$prog with -j$jobs (log: ${log#"$repo"/})"
    # shellcheck disable=SC2086  # a list of file names without spaces
    run_logged "$log" make -C "$work" -j"$jobs" $built_sources
    rm -f "$work/src/$prog" "$work/src/$prog.bc"
    run_logged "$log" make -C "$work" -j"$jobs" "src/$prog"
    [ -f "$work/src/$prog.bc" ] || die "no bitcode: $work/src/$prog.bc"
    mkdir -p "$out"
    cp "$work/src/$prog" "$out/$name.tmp"
    cp "$work/src/$prog.bc" "$out/$name.bc.tmp"
    mv "$out/$name.tmp" "$out/$name"
    mv "$out/$name.bc.tmp" "$out/$name.bc"
    summarize "$name" $((SECONDS - start))
}

if [ "${XCHECK_UTILS_CLEAN:-0}" = 1 ]; then
    rm -rf "$work_parent"
fi
case "$what" in
    busybox) build_busybox ;;
    coreutils) build_coreutils ;;
    all) build_busybox; build_coreutils ;;
esac
