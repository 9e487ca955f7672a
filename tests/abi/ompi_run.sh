#!/bin/bash
# A program built with Open MPI's compiler wrapper (mpicc.openmpi: Open MPI's
# mpi.h, linked with libmpi.so.40) runs on railmpi unchanged under
# `mpiexec -abi openmpi`, which loads railmpi's libmpi.so.40 (docs/abi.md).
#   ompi_run.sh SOURCE MPIEXEC [NRANKS [CFLAGS...]]
# (-no-pie among the CFLAGS: the program copies the predefined objects into
# its own data, and the library must use those copies)
# Exits 77 (skipped) where Open MPI's mpicc is not installed.
set -u
src=$1 mpiexec=$2 n=${3:-2}
shift $(($# < 3 ? $# : 3))
wrapper=mpicc.openmpi
case $src in
    # C++ with MPI's C API only: Open MPI's libmpi_cxx.so.40 needs Open MPI's
    # internals, so neither its bindings nor the library (docs/abi.md)
    *.cc) wrapper=mpicxx.openmpi; set -- -DOMPI_SKIP_MPICXX=1 -Wl,--as-needed "$@" ;;
esac
mpicc=$(command -v $wrapper || true)
if [ -z "$mpicc" ]; then
    echo "SKIP: $wrapper (Debian's libopenmpi-dev) is not installed"
    exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
exe=$tmp/$(basename "${src%.*}")
"$mpicc" -O1 -Wall -Werror "$@" -I"$(dirname "$src")" -o "$exe" "$src" || { echo "FAIL: does not build"; exit 1; }
readelf -d "$exe" | grep -q 'NEEDED.*\[libmpi\.so\.40\]' || { echo "FAIL: not linked with libmpi.so.40"; exit 1; }
cd "$tmp" || exit 1
# Open MPI's own launcher variables must not leak into the ranks
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
# a sanitizer build of the library: its runtime must come first in a program
# built without it
lib=$(dirname "$mpiexec")/../lib/openmpi-abi/libmpi.so.40
san=$(ldd "$lib" 2>/dev/null | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
timeout -k 5 60 "$mpiexec" -abi openmpi -n "$n" --timeout 50 ${san:+-genv LD_PRELOAD "$san"} "$exe"
