#!/bin/bash
# A Fortran program built with Open MPI's compiler wrapper (mpif90.openmpi:
# its mpif.h, its `mpi` module (libmpi_mpifh.so.40) or its `mpi_f08` module
# (libmpi_usempif08.so.40)) runs on
# railmpi unchanged under `mpiexec -abi openmpi` (docs/abi.md).
#   ompi_fortran.sh SOURCE MPIEXEC [C_SOURCE]
# C_SOURCE (built with mpicc.openmpi) is linked in. (mpif.h has no interfaces:
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
mpif90.openmpi -O1 -fallow-argument-mismatch -w -I"$(dirname "$src")" -J "$tmp" \
    -o "$exe" "$src" "${objs[@]}" || { echo "FAIL: does not build"; exit 1; }
readelf -d "$exe" | grep -Eq 'NEEDED.*\[libmpi_(mpifh|usempif08)\.so\.40\]' || { echo "FAIL: not linked with Open MPI's Fortran libraries"; exit 1; }
cd "$tmp" || exit 1
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
# a sanitizer build of the library: its runtime must come first in a program
# built without it
lib=$(dirname "$mpiexec")/../lib/openmpi-abi/libmpi.so.40
san=$(ldd "$lib" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
timeout -k 5 60 "$mpiexec" -abi openmpi -n 2 --timeout 50 ${san:+-genv LD_PRELOAD "$san"} "$exe"
