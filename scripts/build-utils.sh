#!/usr/bin/env bash
# Builds real utilities from Debian's source packages through `xcheck cc` (bundled musl):
# each as a native static executable (for replaying counterexamples) and its
# whole-program bitcode (for the engine). Outputs, under ${XCHECK_BUILD_DIR:-<repo>/build}:
#   utils/IMPL-UTIL  utils/IMPL-UTIL.bc   for example utils/busybox-tee, utils/coreutils-tee.bc
#   utils/work/...                        the build trees (out of the source trees)
#   src/busybox-1.35.0/ src/coreutils-9.1/ src/toybox-0.8.9/   the unpacked sources
# IMPL is busybox (1.35.0, one applet per build: `make allnoconfig` plus the applet,
# scripts/utils/busybox-base.config and scripts/utils/busybox-UTIL.config if present),
# coreutils (9.1, one configured tree, `make src/UTIL`) or toybox (0.8.9, scripts/single.sh
# UTIL: one command per build). A utility whose behaviour depends on its name (busybox's
# and coreutils' `[`) is built under that name: `xcheck` takes argv[0] from the file name.
#
# Usage: scripts/build-utils.sh [--versions] [--suite klee-paper] [IMPL:UTIL ...]
#        scripts/build-utils.sh busybox|coreutils|all      (their `wc`, as before)
#   --versions           release against release (issue 35): each busybox and coreutils
#                        utility asked for is built twice, from Debian 12 (bookworm: busybox
#                        1.35.0, coreutils 9.1) and Debian 13 (trixie: busybox 1.37.0,
#                        coreutils 9.7), as utils-versions/busybox135-UTIL, busybox137-UTIL,
#                        coreutils91-UTIL, coreutils97-UTIL (and .bc), build trees under
#                        utils-versions/work/RELEASE/; sources through the private apt
#                        configurations of scripts/build-versions.sh (versions/apt/RELEASE,
#                        unpacked under versions/src/RELEASE/; the system's apt sources are
#                        not touched). busybox's applets are built into one busybox
#                        per release (a multi-call binary: argv[0], from the file name,
#                        chooses the applet). toybox is left out (Debian 12 and 13 ship
#                        the same 0.8.9 source). Check them with
#                        `xcheck suite DIR/utils-versions --against busybox135 --sides busybox137`.
#   --suite klee-paper   the utilities the KLEE paper crosschecked (BusyBox against GNU
#                        coreutils): tee comm cksum split tr [ test tail unexpand sum head
#                        cut seq basename echo cat wc, from each of the three projects that
#                        has it (toybox has no unexpand or sum, and no standalone `[`).
# Every utility is built even when another fails; the script fails at the end if any did,
# and prints one line per utility either way.
#
# Needs target/release/xcheck (cargo build --release) and scripts/build-musl.sh's output.
# Cached: a utility is skipped when both its outputs are newer than this script, its files
# under scripts/utils/ and the bitcode libc. Otherwise a busybox applet is rebuilt from
# scratch (about 40 s); coreutils keeps its configured tree while the configure arguments
# are unchanged and relinks the program (configure runs with musl-native-cc, xcheck cc's
# native compiler without LTO or the bitcode link: 3 min instead of over 40; make then
# compiles with xcheck cc, and config.h is checked against the bitcode libc);
# toybox rebuilds the command in its copied tree (about 20 s).
# XCHECK_UTILS_CLEAN=1 wipes the build trees first.
#
# Downloads: only `apt-get source busybox coreutils` and toybox's orig tarball (`apt-get
# source --download-only`: Debian's toybox diff is missing from the archive) from Debian's
# archive (a deb-src entry for bookworm main is added if there is none, as
# scripts/build-musl.sh does).
# Build dependencies, all Debian packages that scripts/install.sh already installs:
# make, perl, xz-utils and bzip2 (the last four come with dpkg-dev) and clang-19 (the
# version scripts/lib/llvm.sh names, as xcheck cc's), which also serves as busybox's and
# toybox's HOSTCC for their configuration tools, so gcc is not needed.
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
# What is built, per release (set_release): busybox's and coreutils' versions and the
# IMPL part of the outputs' names. "system": the default build (bookworm, system apt).
release=system
bb_version=1.35.0 cu_version=9.1 bb_name=busybox cu_name=coreutils
xcheck="${XCHECK_BIN:-$repo/target/release/xcheck}"
libc="$build/musl/lib/libc.a"
jobs=2
# shellcheck source=lib/llvm.sh
source "$repo/scripts/lib/llvm.sh"

say() { echo "build-utils: $*" >&2; }
die() { say "$*"; exit 1; }

usage="usage: $0 [--suite klee-paper] [IMPL:UTIL ...] | busybox|coreutils|all"
# The KLEE paper's set (OSDI 2008, BusyBox against GNU coreutils), as IMPL:UTIL.
klee_paper=()
for u in tee comm cksum split tr '[' test tail unexpand sum head cut seq basename echo cat wc; do
    klee_paper+=("busybox:$u" "coreutils:$u")
    case "$u" in
        unexpand | sum | '[') ;;  # toybox 0.8.9 has no such standalone command
        *) klee_paper+=("toybox:$u") ;;
    esac
done
wanted=()
versions=0
[ $# -gt 0 ] || set -- all
while [ $# -gt 0 ]; do
    case "$1" in
        --versions) versions=1; shift ;;
        -h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        --suite)
            [ "${2:-}" = klee-paper ] || die "--suite: unknown suite '${2:-}' (known: klee-paper)"
            wanted+=("${klee_paper[@]}")
            shift 2 ;;
        busybox | coreutils) wanted+=("$1:wc"); shift ;;
        all) wanted+=(busybox:wc coreutils:wc); shift ;;
        busybox:?* | coreutils:?* | toybox:?*) wanted+=("$1"); shift ;;
        *) die "$usage" ;;
    esac
done

[ -x "$xcheck" ] || die "$xcheck not built (cargo build --release)"
[ -f "$libc" ] || die "$libc missing (scripts/build-musl.sh)"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo

if [ "$versions" = 1 ]; then
    out="$build/utils-versions"
    work_parent="$out/work"
    APT_ROOT="$build/versions/apt" SRC_ROOT="$build/versions/src"
    # shellcheck source=lib/apt-release.sh
    source "$repo/scripts/lib/apt-release.sh"
    kept=()
    for item in "${wanted[@]}"; do
        case "$item" in
            toybox:*) ;;  # the same 0.8.9 in both releases
            *) kept+=("$item") ;;
        esac
    done
    [ ${#kept[@]} -gt 0 ] || die "--versions builds busybox and coreutils utilities only"
    wanted=("${kept[@]}")
fi

if [ "${XCHECK_UTILS_CLEAN:-0}" = 1 ]; then
    rm -rf "$work_parent"
fi

# Every build's CC: one command (toybox's scripts look CC up as one file) at a fixed path
# (coreutils' configured tree is kept while its configure arguments, CC included, are the
# same), running this run's xcheck against this build's musl wherever the binary lies.
cc="$work_parent/bin/xcheck-cc"
mkdir -p "$work_parent/bin"
printf '#!/bin/sh\nXCHECK_MUSL_DIR=%q exec %q cc "$@"\n' "$build/musl" "$xcheck" >"$cc.tmp"
chmod +x "$cc.tmp"
mv "$cc.tmp" "$cc"
# configure's compiler for coreutils: xcheck cc's native half alone (the same musl target,
# headers and flags; linked statically with Debian's musl, the release the bitcode libc is
# built from) without -flto and without the whole-program bitcode link, which made every
# link test of configure slow (over 40 minutes for coreutils 9.1 on a loaded machine). Its
# answers are those of the bitcode's C library and compiler; make then builds with "$cc".
native_cc="$work_parent/bin/musl-native-cc"
write_native_cc() {
    local resource
    resource="$("$CLANG" -print-resource-dir)"
    local rt
    rt="$("$CLANG" -print-libgcc-file-name --rtlib=compiler-rt 2>/dev/null || true)"
    [ -f "$rt" ] || rt="$(gcc -print-libgcc-file-name 2>/dev/null || true)"
    local lib=/usr/lib/x86_64-linux-musl
    for f in crt1.o crti.o crtn.o libc.a; do
        [ -f "$lib/$f" ] || die "$lib/$f not found: install musl-dev (scripts/install.sh)"
    done
    cat >"$native_cc.tmp" <<EOS
#!/bin/sh
# Written by scripts/build-utils.sh: xcheck cc's native compiler without LTO or bitcode.
head="-target x86_64-unknown-linux-musl -nostdinc -isystem $build/musl/include -isystem $resource/include -isystem $build/musl/kernel-include -fno-stack-protector -g"
tail="-fno-vectorize -fno-slp-vectorize"
for a in "\$@"; do
    case "\$a" in
        -c | -S | -E | -M | -MM | -fsyntax-only | --precompile | --analyze | '-###' | \\
        -v | -V | --version | -qversion | -print-* | --print-* | -dump*)
            exec $CLANG \$head "\$@" \$tail ;;
    esac
done
exec $CLANG \$head -Qunused-arguments -fuse-ld=lld -static -nostdlib -L$lib $lib/crt1.o $lib/crti.o "\$@" \$tail $lib/libc.a ${rt:+$rt} $lib/crtn.o
EOS
    chmod +x "$native_cc.tmp"
    mv "$native_cc.tmp" "$native_cc"
}

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

# up_to_date NAME [CONFIG]: both outputs of NAME (IMPL-UTIL) exist and are newer than
# every input, the configuration fragments CONFIG-base.config and CONFIG.config among them
# (CONFIG is NAME when not given: busybox-UTIL).
up_to_date() {
    local inputs=("$script" "$repo/scripts/lib/llvm.sh" "$libc") f config="${2:-$1}"
    for f in "$extra/$config.config" "$extra/${config%%-*}-base.config"; do
        [ -f "$f" ] && inputs+=("$f")
    done
    newer_than_all "$out/$1" "${inputs[@]}" && newer_than_all "$out/$1.bc" "${inputs[@]}"
}

# install_outputs NAME NATIVE BITCODE: copies a build's two outputs to $out/NAME(.bc),
# each replaced at once.
install_outputs() {
    mkdir -p "$out"
    cp "$2" "$out/$1.tmp"
    cp "$3" "$out/$1.bc.tmp"
    mv "$out/$1.tmp" "$out/$1"
    mv "$out/$1.bc.tmp" "$out/$1.bc"
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

# busybox_symbol UTIL: the Kconfig symbol of the applet UTIL (`[` is TEST1).
busybox_symbol() {
    case "$1" in
        '[') echo TEST1 ;;
        *) echo "$1" | tr 'a-z-' 'A-Z_' ;;
    esac
}

# source_of PACKAGE VERSION MARKER: prints the unpacked source of PACKAGE VERSION of this
# release, fetched if needed.
source_of() {
    if [ "$release" = system ]; then
        local debian="$2"
        [ "$1" = busybox ] && debian="1:$2"
        fetch_source "$1" "$debian" "$1-$2" "$3"
        echo "$src_parent/$1-$2"
    else
        fetch_release "$release" "$1" "$2"
    fi
}

# build_busybox APPLET...: one busybox with these applets (the default build: one a
# build; --versions: every applet asked for in one build per release, since a build from
# scratch takes minutes on a loaded machine), installed as $bb_name-APPLET for each. A
# multi-call busybox runs the applet argv[0] names, and a check takes argv[0] from the
# file names (`tee` for busybox135-tee.bc against busybox137-tee.bc).
build_busybox() {
    local applets=() applet symbol
    for applet in "$@"; do
        if up_to_date "$bb_name-$applet" "busybox-$applet"; then
            say "$bb_name-$applet is up to date"
        else
            applets+=("$applet")
        fi
    done
    [ ${#applets[@]} -gt 0 ] || return 0
    local start=$SECONDS src
    src="$(source_of busybox "$bb_version" applets/applets.c)"
    [ -f "$src/applets/applets.c" ] || die "no busybox $bb_version source"
    for applet in "${applets[@]}"; do
        symbol="$(busybox_symbol "$applet")"
        grep -rqsE "^(//config:)?config $symbol\$" "$src" --include=Config.src --include=*.c \
            || { say "busybox $bb_version has no applet $applet (no config $symbol)"; return 1; }
    done
    local name="$bb_name-${applets[0]}"
    [ ${#applets[@]} -eq 1 ] || name="$bb_name-set"
    local work="$work_parent/$name" log="$work_parent/$name.log"
    # Always from scratch: Kbuild's dependency tracking of .config through fixdep is
    # reliable, but a changed script may mean changed flags, and it takes only ~40 s.
    rm -rf "$work" "$log"
    mkdir -p "$work"
    local mk=(make -C "$src" O="$work" HOSTCC="$CLANG" CC="$cc"
              AR="$LLVM_AR" NM="$LLVM_NM" STRIP="$LLVM_STRIP" SKIP_STRIP=y)
    say "configuring busybox $bb_version (${applets[*]})"
    run_logged "$log" "${mk[@]}" allnoconfig
    apply_config_fragment "$work/.config" "$extra/busybox-base.config"
    for applet in "${applets[@]}"; do
        symbol="$(busybox_symbol "$applet")"
        sed -i -E "/^(# )?CONFIG_$symbol[= ]/d" "$work/.config"
        echo "CONFIG_$symbol=y" >>"$work/.config"
        if [ -f "$extra/busybox-$applet.config" ]; then
            apply_config_fragment "$work/.config" "$extra/busybox-$applet.config"
        fi
    done
    # (`yes` dies of SIGPIPE, which pipefail would count as a failure.)
    (yes "" || true) | run_logged "$log" "${mk[@]}" oldconfig
    # Each applet must have survived oldconfig (a wrong name or an unmet dependency would
    # silently drop it).
    for applet in "${applets[@]}"; do
        symbol="$(busybox_symbol "$applet")"
        grep -q "^CONFIG_$symbol=y" "$work/.config" || die "oldconfig dropped CONFIG_$symbol"
    done
    say "busybox .config: $(grep -E '^CONFIG_[A-Z0-9_]+=y' "$work/.config" | sed 's/=y$//; s/^CONFIG_//' | tr '\n' ' ')"
    say "building busybox $bb_version with -j$jobs (log: ${log#"$repo"/})"
    run_logged "$log" "${mk[@]}" -j"$jobs" busybox
    [ -f "$work/busybox_unstripped.bc" ] || die "no bitcode: $work/busybox_unstripped.bc"
    # The unstripped binary keeps its symbols, which helps when replaying.
    for applet in "${applets[@]}"; do
        install_outputs "$bb_name-$applet" "$work/busybox_unstripped" "$work/busybox_unstripped.bc"
        summarize "$bb_name-$applet" $((SECONDS - start))
    done
}

# --- coreutils 9.1: src/wc ----------------------------------------------------------------
# What the engine supplies to a whole program's bitcode, left undefined by its link: the
# system call entry (__xc_*), the allocator (scripts/build-musl.sh leaves musl's out), the
# setjmp family (assembly only in musl) and the linker's _DYNAMIC.
engine_symbols='__xc_[a-z_]+|_DYNAMIC|malloc|calloc|realloc|free|aligned_alloc|posix_memalign|memalign|malloc_usable_size'
engine_symbols+='|setjmp|_setjmp|sigsetjmp|__sigsetjmp|longjmp|_longjmp'

# check_config_h CONFIG_H: configure linked its tests against Debian's native musl; the
# bitcode links against scripts/build-musl.sh's, which leaves out musl's assembly-only
# functions and its allocator. Names each function config.h says exists (HAVE_NAME) that
# the native libc defines and the bitcode libc neither defines nor gets from the engine
# (coreutils 9.7: fts_open, which none of the KLEE paper's utilities calls); whether a
# program calls one is checked on its bitcode (check_undefined).
check_config_h() {
    local syms="$work_parent/libc-only-native.txt" have missing
    comm -23 <("$LLVM_NM" --defined-only /usr/lib/x86_64-linux-musl/libc.a 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u) \
             <("$LLVM_NM" --defined-only "$libc" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u) \
        | grep -vxE "$engine_symbols" >"$syms" || true
    have="$(grep -oE '^#define HAVE_[A-Za-z0-9_]+ 1' "$1" | awk '{ print tolower(substr($2, 6)) }' | sort -u)"
    missing="$(comm -12 <(echo "$have") "$syms" | tr '\n' ' ')"
    if [ -n "$missing" ]; then
        say "config.h: functions the bitcode libc lacks: ${missing}(a program calling one fails check_undefined)"
    else
        say "config.h: every function it assumes is in the bitcode libc or the engine's"
    fi
}

# check_undefined BITCODE: fails if the whole program's bitcode leaves a function undefined
# that the engine does not supply (a configure answer the bitcode libc cannot honour).
check_undefined() {
    local undefined
    undefined="$("$LLVM_NM" --undefined-only "$1" | awk '{ print $NF }' | grep -vxE "$engine_symbols" | tr '\n' ' ' || true)"
    [ -z "$undefined" ] || die "$1 leaves undefined what neither the bitcode libc nor the engine defines: $undefined"
}

build_coreutils() {
    local prog="$1" name="$cu_name-$1"
    if up_to_date "$name" "coreutils-$prog"; then
        say "$name is up to date"
        return 0
    fi
    local start=$SECONDS src
    src="$(source_of coreutils "$cu_version" src/wc.c)"
    [ -f "$src/src/wc.c" ] || die "no coreutils $cu_version source"
    local c_file="$prog.c"
    [ "$prog" = '[' ] && c_file=lbracket.c
    [ -f "$src/src/$c_file" ] || { say "coreutils $cu_version has no program $prog (no src/$c_file)"; return 1; }
    local work="$work_parent/coreutils" log="$work_parent/coreutils.log"
    local configure_args=(CC="$native_cc" AR="$LLVM_AR" RANLIB="$LLVM_RANLIB" NM="$LLVM_NM"
        --disable-nls --without-selinux --without-openssl --without-libgmp
        --disable-acl --disable-xattr --disable-libcap
        --disable-silent-rules)
    local stamp="$work/.xcheck-configure-args"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "${configure_args[*]}" ] || [ ! -f "$work/Makefile" ]; then
        rm -rf "$work" "$log"
        mkdir -p "$work"
        write_native_cc
        say "configuring coreutils $cu_version with $(basename "$native_cc") (log: ${log#"$repo"/})"
        # coreutils' configure refuses to run as root (it checks mknod on a fifo).
        (cd "$work" && FORCE_UNSAFE_CONFIGURE=1 run_logged "$log" "$src/configure" "${configure_args[@]}")
        echo "${configure_args[*]}" >"$stamp"
    fi
    # wc (AVX2/AVX-512 line counting) and cksum (pclmul, AVX2, AVX-512, vmull CRC: 9.1
    # has pclmul, 9.7 all four, and gnulib's crc module in 9.7 its own pclmul CRC) choose
    # fast paths at run time through cpuid inline assembly; configure has no switch for
    # them. Undefine them in config.h and drop their libraries (built with
    # -mavx2/-mpclmul…) from the Makefile. The Makefile's am__append lines leave them in
    # noinst_LIBRARIES, which only `make all` builds. Each file is edited only when it
    # needs it (an edited config.h recompiles everything).
    local fast='((USE_(AVX2|AVX512|PCLMUL|VMULL)_|GL_CRC_X86_64_)[A-Z0-9_]+)'
    local libs='((wc|cksum)_(avx2|avx512|pclmul|vmull)_ldadd)'
    if grep -qE "^#define $fast " "$work/lib/config.h"; then
        sed -i -E "s~^#define $fast .*~/* #undef \\1 */~" "$work/lib/config.h"
    fi
    if grep -qE "^$libs = ." "$work/Makefile"; then
        sed -i -E "s/^$libs = .*/\\1 =/" "$work/Makefile"
    fi
    if grep -qE "^#define $fast " "$work/lib/config.h" \
       || grep -qE "^$libs = ." "$work/Makefile"; then
        die "could not switch off the AVX2/pclmul fast paths"
    fi
    check_config_h "$work/lib/config.h"
    # `make src/wc` alone skips BUILT_SOURCES (gnulib's replacement headers and other
    # generated files), which `make all` builds first.
    local built_sources
    built_sources="$(make -s -C "$work" -f Makefile -f - xcheck-print-built-sources \
        <<<'xcheck-print-built-sources: ; @echo $(BUILT_SOURCES)' 2>/dev/null)"
    say "building coreutils src/$prog with -j$jobs (log: ${log#"$repo"/})"
    # shellcheck disable=SC2086  # a list of file names without spaces
    run_logged "$log" make -C "$work" -j"$jobs" CC="$cc" $built_sources
    rm -f "$work/src/$prog" "$work/src/$prog.bc"
    run_logged "$log" make -C "$work" -j"$jobs" CC="$cc" "src/$prog"
    [ -f "$work/src/$prog.bc" ] || die "no bitcode: $work/src/$prog.bc"
    check_undefined "$work/src/$prog.bc"
    install_outputs "$name" "$work/src/$prog" "$work/src/$prog.bc"
    summarize "$name" $((SECONDS - start))
}

# --- toybox 0.8.9: one command per build ----------------------------------------------
build_toybox() {
    local cmd="$1" name="toybox-$1"
    if up_to_date "$name"; then
        say "$name is up to date"
        return 0
    fi
    local start=$SECONDS
    local src="$src_parent/toybox-0.8.9"
    if [ ! -f "$src/main.c" ]; then
        ensure_deb_src toybox 0.8.9+dfsg-1
        mkdir -p "$src_parent"
        # Debian's diff for this version is missing from the archive, so `apt-get source`
        # stops before unpacking; the orig tarball is all that is needed.
        say "apt-get source --download-only toybox"
        (cd "$src_parent" && apt-get source -q --download-only toybox >&2) || true
        local tarball="$src_parent/toybox_0.8.9+dfsg.orig.tar.xz"
        [ -f "$tarball" ] || die "apt-get source did not fetch $tarball"
        rm -rf "$src"
        tar -C "$src_parent" -xf "$tarball"
        [ -f "$src/main.c" ] || die "$tarball did not unpack to $src"
    fi
    grep -qE "TOY[(]$cmd[ ,]" "$src"/toys/*/*.c \
        || { say "toybox 0.8.9 has no command $cmd"; return 1; }
    # single.sh builds in the tree it runs in (generated/, .config): a copy of the sources.
    local work="$work_parent/toybox" log="$work_parent/$name.log"
    if [ ! -f "$work/main.c" ]; then
        rm -rf "$work"
        mkdir -p "$work_parent"
        cp -r "$src" "$work"
    fi
    rm -f "$log" "$work/$cmd" "$work/generated/unstripped/$cmd"{,.bc}
    say "building toybox $cmd (log: ${log#"$repo"/})"
    # CPUS: make.sh's parallel compiles. NOSTRIP: keep symbols for replays.
    (cd "$work" && run_logged "$log" env CC="$cc" HOSTCC="$CLANG" CPUS=$jobs NOSTRIP=1 \
        scripts/single.sh "$cmd")
    # make.sh links generated/unstripped/CMD (xcheck cc writes the bitcode beside it),
    # then copies it to CMD.
    local linked="$work/generated/unstripped/$cmd"
    [ -f "$linked.bc" ] || die "no bitcode: $linked.bc"
    install_outputs "$name" "$linked" "$linked.bc"
    summarize "$name" $((SECONDS - start))
}

# set_release RELEASE: what --versions builds of RELEASE, and where.
set_release() {
    release="$1"
    case "$1" in
        bookworm) bb_version=1.35.0 cu_version=9.1 bb_name=busybox135 cu_name=coreutils91 ;;
        trixie) bb_version=1.37.0 cu_version=9.7 bb_name=busybox137 cu_name=coreutils97 ;;
    esac
    work_parent="$out/work/$1"
}

releases=(system)
[ "$versions" = 0 ] || releases=(bookworm trixie)
failed=()
for rel in "${releases[@]}"; do
    [ "$rel" = system ] || set_release "$rel"
    # --versions: busybox's applets in one build per release.
    together=()
    if [ "$rel" != system ]; then
        for item in "${wanted[@]}"; do
            case "$item" in busybox:*) together+=("${item#busybox:}") ;; esac
        done
    fi
    if [ ${#together[@]} -gt 0 ]; then
        set +e
        ( set -e; build_busybox "${together[@]}" )
        rc=$?
        set -e
        [ $rc -eq 0 ] || failed+=("$rel:busybox:${together[*]}")
    fi
    for item in "${wanted[@]}"; do
        impl="${item%%:*}" util="${item#*:}"
        [ ${#together[@]} -eq 0 ] || [ "$impl" != busybox ] || continue
        # A subshell per utility, outside any condition so that `set -e` holds inside it:
        # one failed build does not stop the others.
        set +e
        ( set -e; "build_$impl" "$util" )
        rc=$?
        set -e
        [ $rc -eq 0 ] || failed+=("$rel:$item")
    done
done
if [ ${#failed[@]} -gt 0 ]; then
    die "not built: ${failed[*]}"
fi
