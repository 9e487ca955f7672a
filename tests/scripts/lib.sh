# Sourced by the scripted tests: fail() counts failures in $fails;
# skip_if_sanitized BUILD REASON skips (exit 77) when the library carries the
# sanitizer runtime, which programs built without it cannot load.
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skip_if_sanitized() {
    if nm -D "$1/lib/libmpi.so.12" 2>/dev/null | grep -qE '__asan_init|__tsan_init'; then
        echo "SKIP: $2"
        exit 77
    fi
}
# install_to_tmp BUILD: for the tests of an installed railmpi: skips (77) when
# BUILD is sanitized, makes $tmp (removed at exit) and installs BUILD in $tmp/p.
install_to_tmp() {
    skip_if_sanitized "$1" "installed wrappers do not add sanitizer flags"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cmake --install "$1" --prefix "$tmp/p" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
}
# sanitized_pmix_ranks BUILD DIR: in a sanitized build, ranks started by a
# PMIx server report the few bytes libpmix's PMIx_Init keeps until exit as
# leaks. Suppress exactly those (full stacks, so that the suppression matches
# PMIx_Init and nothing railmpi allocates or fails to free); the file goes to
# DIR. Exports ASAN_OPTIONS and LSAN_OPTIONS for the ranks.
sanitized_pmix_ranks() {
    nm -D "$1/lib/libmpi.so.12" 2>/dev/null | grep -q __asan_init || return 0
    { printf 'leak:pmix_rte_init\n'; cat "$(dirname "${BASH_SOURCE[0]}")/../lsan.supp" 2>/dev/null; } >"$2/lsan.supp"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
    export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$2/lsan.supp"
}
