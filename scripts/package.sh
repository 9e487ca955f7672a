#!/bin/bash
# Build railmpi's Debian packages (debian/; docs/install.md) on Debian 12:
#   scripts/package.sh [--from-build BUILD] [--out DIR]
# Builds from a copy of the source tree, so the tree stays clean, and leaves
# librailmpi12, librailmpi-dev, railmpi-bin and railmpi-doc (.deb) in DIR
# (default deb-out/). --from-build packages an existing, unsanitized build
# directory (cmake --install) instead of building again.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/deb-out
prebuilt=
while [ $# -gt 0 ]; do
    case $1 in
        --from-build) prebuilt=$(cd "$2" && pwd); shift 2 ;;
        --out) mkdir -p "$2"; out=$(cd "$2" && pwd); shift 2 ;;
        *) echo "usage: scripts/package.sh [--from-build BUILD] [--out DIR]" >&2; exit 2 ;;
    esac
done
if [ -n "$prebuilt" ] && nm -D "$prebuilt/lib/libmpi.so.12" 2>/dev/null | grep -qE '__asan_init|__tsan_init'; then
    echo "package.sh: $prebuilt is a sanitizer build; packages need a plain one" >&2
    exit 1
fi
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null || {
    echo "package.sh: dpkg-buildpackage and debhelper are missing (bash scripts/deps.sh installs them)" >&2
    exit 1
}
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
# a native package: its version is the project's
project=$(sed -n 's/^project(railmpi VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ "$version" = "$project" ] || {
    echo "package.sh: debian/changelog says $version, CMakeLists.txt $project: add a changelog entry (dch -v $project)" >&2
    exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/railmpi-$version
mkdir "$tree"
# the sources without build directories and outputs
tar -C "$src" --exclude=./.git --exclude='./build*' --exclude=./deb-out --exclude=./demo-out \
    --exclude=./bench/out -cf - . | tar -C "$tree" -xf -
(
    cd "$tree"
    export DEB_BUILD_OPTIONS="nocheck parallel=${RAILMPI_JOBS:-2}"
    [ -n "$prebuilt" ] && export RAILMPI_PREBUILT=$prebuilt
    dpkg-buildpackage -b -us -uc
) >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; echo "package.sh: dpkg-buildpackage failed" >&2; exit 1; }
mkdir -p "$out"
mv "$work"/*.deb "$out"/
ls "$out"/*.deb
