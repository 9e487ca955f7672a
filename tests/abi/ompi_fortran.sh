#!/bin/bash
# A Fortran program built with Open MPI's compiler wrapper (mpif90.openmpi:
# its mpif.h, its `mpi` module (libmpi_mpifh.so.40) or its `mpi_f08` module
# (libmpi_usempif08.so.40)) runs on
# railmpi unchanged under `mpiexec -abi openmpi` (docs/abi.md).
#   ompi_fortran.sh SOURCE MPIEXEC [C_SOURCE]
# C_SOURCE (built with mpicc.openmpi) is linked in. With TKR=1 in the
# environment the program is linked with libmpi_usempi_ignore_tkr.so.40 as a
# link without --as-needed would, and railmpi's must be the copy it loads. (mpif.h has no interfaces:
# choice buffers of several types and ranks are allowed, without warnings.) Exits 77 (skipped) where
# Open MPI's mpif90 or mpicc is not installed.
set -u
src=$1 mpiexec=$2 csrc=${3:-}
for w in mpif90.openmpi mpicc.openmpi; do
    if ! command -v $w >/dev/null; then
        echo "SKIP: $w (Debian's libopenmpi-dev, gfortran) is not installed"
        exit 77
    fi
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exe=$tmp/$(basename "${src%.*}")
objs=()
if [ -n "$csrc" ]; then
    mpicc.openmpi -O1 -Wall -Werror -c -o "$tmp/c.o" "$csrc" || { echo "FAIL: C part does not build"; exit 1; }
    objs=("$tmp/c.o")
fi
tkr=()
[ "${TKR:-0}" = 1 ] && tkr=(-Wl,--push-state,--no-as-needed -lmpi_usempi_ignore_tkr -Wl,--pop-state)
mpif90.openmpi -O1 -fallow-argument-mismatch -w -I"$(dirname "$src")" -J "$tmp" \
    -o "$exe" "$src" "${objs[@]}" "${tkr[@]}" || { echo "FAIL: does not build"; exit 1; }
if [ "${TKR:-0}" = 1 ]; then
    readelf -d "$exe" | grep -q 'NEEDED.*\[libmpi_usempi_ignore_tkr\.so\.40\]' ||
        { echo "FAIL: not linked with libmpi_usempi_ignore_tkr.so.40"; exit 1; }
    # what `mpiexec -abi openmpi` puts first in the library path
    abidir=$(cd "$(dirname "$mpiexec")/../lib/openmpi-abi" && pwd)
    found=$(LD_LIBRARY_PATH=$abidir ldd "$exe" | awk '/libmpi_usempi_ignore_tkr\.so\.40/ {print $3}')
    case $found in
        "$abidir"/*) ;;
        *) echo "FAIL: libmpi_usempi_ignore_tkr.so.40 comes from ${found:-nowhere}, not $abidir"; exit 1 ;;
    esac
fi
readelf -d "$exe" | grep -Eq 'NEEDED.*\[libmpi_(mpifh|usempif08)\.so\.40\]' || { echo "FAIL: not linked with Open MPI's Fortran libraries"; exit 1; }
cd "$tmp" || exit 1
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
# a sanitizer build of the library: its runtime must come first in a program
# built without it
lib=$(dirname "$mpiexec")/../lib/openmpi-abi/libmpi.so.40
san=$(ldd "$lib" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
timeout -k 5 60 "$mpiexec" -abi openmpi -n 2 --timeout 50 ${san:+-genv LD_PRELOAD "$san"} "$exe"
