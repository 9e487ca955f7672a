#!/bin/bash
# Parallel HDF5 on railmpi: tests/hdf5/phdf5.c built with Debian's MPICH build
# of HDF5 (h5pcc.mpich, libhdf5-mpich-dev) runs unchanged through the MPICH
# ABI (railmpi's libmpich.so.12 first on the library path) on 1, 2 and 4
# processes, and h5dump reads the file back. Skipped (77) without HDF5.
#   phdf5.sh BUILD_DIR
set -u
build=$1 here=$(cd "$(dirname "$0")" && pwd)
command -v h5pcc.mpich >/dev/null && command -v h5dump >/dev/null || { echo "SKIP: no h5pcc.mpich/h5dump"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && h5pcc.mpich -o phdf5 "$here/phdf5.c") || { echo "FAIL: build"; exit 1; }
export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ldd "$tmp/phdf5" | grep -q "$build/lib/libmpich.so.12" || { echo "FAIL: not linked to railmpi"; exit 1; }
# a sanitizer build of the library: its runtime must come first in a program built without it
san=$(ldd "$build/lib/libmpi.so.12" | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
if [ -n "$san" ]; then
    export LD_PRELOAD=$san ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi
for n in 1 2 4; do
    out=$("$build/bin/mpiexec" -n $n --timeout 100 "$tmp/phdf5" "$tmp/f$n.h5" 2>&1)
    grep -q "OK phdf5" <<<"$out" || { echo "FAIL: $n processes:"; echo "$out" | tail -20; exit 1; }
    d=$(h5dump -d /field -s "63,40" -c "1,8" "$tmp/f$n.h5") || { echo "FAIL: h5dump ($n)"; exit 1; }
    grep -q "(63,40): 3064.25, 3065.25, 3066.25, 3067.25, 3068.25, 3069.25, 3070.25," <<<"$d" ||
        { echo "FAIL: $n processes: field"; echo "$d"; exit 1; }
    want=$(seq 0 10 $(( (n - 1) * 10 )) | paste -sd, | sed 's/,/, /g')
    h5dump -d /ranks "$tmp/f$n.h5" | grep -q "(0): $want\$" || { echo "FAIL: $n processes: ranks"; h5dump -d /ranks "$tmp/f$n.h5"; exit 1; }
    h5dump -a /field/steps "$tmp/f$n.h5" | grep -q "(0): 42" || { echo "FAIL: $n processes: attribute"; exit 1; }
done
echo "OK: parallel HDF5 (MPICH build) on 1, 2, 4 processes; h5dump reads the files"
