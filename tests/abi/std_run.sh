#!/bin/bash
# A program built for the MPI-5.0 standard ABI by someone else runs on
# railmpi: compiled against the MPI Forum's reference header (not railmpi's),
# linked with railmpi's libmpi_abi.so and run under railmpi's mpiexec.
#   std_run.sh SOURCE REFERENCE_DIR LIBDIR MPIEXEC [MPICC]
# With MPICC the program is built by `MPICC -abi` (railmpi's own standard-ABI
# header) instead. Exits 77 (skipped) when the reference header is not there.
set -u
src=$1 ref=$2 libdir=$3 mpiexec=$4 mpicc=${5:-}
if [ ! -f "$ref/mpi.h" ]; then
    echo "SKIP: no reference header at $ref/mpi.h (expected at ../shared/abi-reference beside the source tree)"
    exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exe=$tmp/$(basename "$src" .c)
if [ -n "$mpicc" ]; then
    "$mpicc" -abi -O1 -Wall -Werror -I"$(dirname "$src")" -o "$exe" "$src" || { echo "FAIL: mpicc -abi"; exit 1; }
else
    # a sanitizer build's library needs its runtime in the program too
    san=()
    syms=$(nm -D "$libdir/libmpi_abi.so.0" 2>/dev/null)
    if grep -q __tsan_init <<<"$syms"; then san=(-fsanitize=thread)
    elif grep -q __asan_init <<<"$syms"; then san=(-fsanitize=address,undefined); fi
    # -I the reference only: the program must not see any railmpi header
    cc -O1 -Wall -Werror "${san[@]}" -I"$ref" -I"$(dirname "$src")" -o "$exe" "$src" \
        -L"$libdir" -Wl,-rpath,"$libdir" -l:libmpi_abi.so.0 || { echo "FAIL: does not build"; exit 1; }
fi
# the binary needs the standard ABI's library, not railmpi's MPICH-ABI one
readelf -d "$exe" | grep -q 'NEEDED.*\[libmpi_abi\.so\.0\]' || { echo "FAIL: not linked with libmpi_abi.so.0"; exit 1; }
cd "$tmp" || exit 1
timeout -k 5 60 "$mpiexec" -n 2 --timeout 50 "$exe"
