# Debian source packages of one release through a private apt configuration (issue 35):
# sourced by scripts/build-versions.sh and scripts/build-utils.sh (--versions). The
# system's apt sources are never changed: each release has its own sources.list (one
# deb-src line for RELEASE main), lists and cache under $APT_ROOT/RELEASE.
#
# Needs APT_ROOT (the configurations' parent), SRC_ROOT (sources unpack under
# SRC_ROOT/RELEASE/) and a function `say`.

# apt_opts RELEASE: apt's options for the private configuration of RELEASE.
apt_opts() {
    local dir="$APT_ROOT/$1"
    echo "-o Dir::Etc::SourceList=$dir/sources.list -o Dir::Etc::SourceParts=$dir/parts" \
        "-o Dir::State::Lists=$dir/lists -o Dir::Cache=$dir/cache -o Debug::NoLocking=1"
}

# apt_setup RELEASE: creates the configuration of RELEASE and reads its index, once.
apt_setup() {
    local release="$1" dir="$APT_ROOT/$1"
    [ -d "$dir/lists" ] && ls "$dir/lists/"*Sources* >/dev/null 2>&1 && return 0
    mkdir -p "$dir/parts" "$dir/lists/partial" "$dir/cache/archives/partial"
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg opts=""
    [ -f "$keyring" ] && opts="[signed-by=$keyring] "
    echo "deb-src ${opts}http://deb.debian.org/debian $release main" >"$dir/sources.list"
    say "apt-get update ($release main, sources only)"
    # shellcheck disable=SC2046
    apt-get $(apt_opts "$release") update -q >&2
}

# fetch_release RELEASE PACKAGE UPSTREAM: unpacks PACKAGE of RELEASE (Debian's patches
# applied) under SRC_ROOT/RELEASE/ and prints its directory; fails unless the upstream
# version is UPSTREAM. An unpacked source is not fetched again.
fetch_release() {
    local release="$1" pkg="$2" upstream="$3" parent="$SRC_ROOT/$1" dir
    dir="$(find "$parent" -maxdepth 1 -type d -name "$pkg-*$upstream*" 2>/dev/null | head -1)"
    if [ -z "$dir" ]; then
        apt_setup "$release"
        local version versions
        # shellcheck disable=SC2046
        versions="$(apt-cache $(apt_opts "$release") showsrc "$pkg" | awk '/^Version:/ { print $2 }' | sort -rV)"
        mkdir -p "$parent"
        # Newest first: the archive's index can name a version whose files are not (yet, or
        # any more) in the pool, as trixie's zlib 1.3.1-1+deb13u1 was.
        for version in $versions; do
            case "$version" in *"$upstream"*) ;; *) continue ;; esac
            say "apt-get source $pkg=$version ($release)"
            # shellcheck disable=SC2046
            (cd "$parent" && apt-get $(apt_opts "$release") source -q "$pkg=$version" >&2) && break
            say "apt-get source $pkg=$version failed; trying an older $upstream"
        done
        dir="$(find "$parent" -maxdepth 1 -type d -name "$pkg-*$upstream*" | head -1)"
        [ -n "$dir" ] || { say "apt-get source $pkg did not unpack under $parent"; return 1; }
    fi
    echo "$dir"
}
