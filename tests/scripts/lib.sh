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
