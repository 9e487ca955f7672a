#!/bin/bash
# MPI-IO interoperability with MPICH (ROMIO): tests/scripts/mpich_io.c,
# built with railmpi's mpicc and with mpicc.mpich, writes a 2-D array
# through subarray views on 4 processes in "native" and in "external32";
# the files railmpi writes are byte-identical to MPICH's, each reads the
# other's back, and the MPICH-built binary runs on railmpi through the ABI
# and writes the same bytes.
set -u
build=$1
lib=$build/lib
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || { echo "SKIP: MPICH packages missing"; exit 77; }
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "a sanitizer build cannot be loaded into programs built without the sanitizer"
src=$(dirname "$0")/mpich_io.c
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/mpicc" -O1 "$src" -o "$tmp/io.railmpi" || { echo "FAIL: cannot build with railmpi"; exit 1; }
mpicc.mpich -O1 "$src" -o "$tmp/io.mpich" 2>/dev/null || { echo "FAIL: cannot build with mpicc.mpich"; exit 1; }
rm_run() { timeout 60 "$build/bin/mpiexec" -n 4 "$@" 2>&1; }
mp_run() { timeout 60 mpiexec.mpich -n 4 "$@" 2>&1; }
for rep in native external32; do
    out=$(rm_run "$tmp/io.railmpi" write "$tmp/r.$rep" $rep)
    [ "$out" = "OK write" ] || fail "railmpi write ($rep): $out"
    out=$(mp_run "$tmp/io.mpich" write "$tmp/m.$rep" $rep)
    [ "$out" = "OK write" ] || { fail "MPICH write ($rep): $out"; continue; }
    cmp "$tmp/r.$rep" "$tmp/m.$rep" || fail "railmpi's and MPICH's $rep files differ"
    out=$(rm_run "$tmp/io.railmpi" check "$tmp/m.$rep" $rep)
    [ "$out" = "OK check" ] || fail "railmpi reading MPICH's $rep file: $out"
    out=$(mp_run "$tmp/io.mpich" check "$tmp/r.$rep" $rep)
    [ "$out" = "OK check" ] || fail "MPICH reading railmpi's $rep file: $out"
    out=$(LD_LIBRARY_PATH=$lib rm_run "$tmp/io.mpich" write "$tmp/a.$rep" $rep)
    [ "$out" = "OK write" ] || fail "MPICH-built binary on railmpi ($rep): $out"
    cmp "$tmp/a.$rep" "$tmp/m.$rep" || fail "the MPICH-built binary on railmpi wrote another $rep file"
done
[ "$(stat -c %s "$tmp/m.native" 2>/dev/null)" = $((64 + 37 * 29 * 8)) ] || fail "MPICH's file is not 64 + 37 x 29 x 8 bytes"
[ $fails = 0 ] && echo "OK: MPI-IO files identical to MPICH's" || exit 1
