#!/bin/bash
# Every C function the library exports has its Fortran binding, under the
# names MPICH's Fortran programs call (mpi_x_ and pmpi_x_, plus mpi_x,
# mpi_x__ and MPI_X), except the functions the standard binds in C only.
#   bindings_check.sh LIBRARY
set -u
lib=$1
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' | sed 's/@.*//' | sort -u)
# C only in MPI-3.1: the tools interface, handle and status conversions.
c_only='^MPI_(T_[a-z_]+|[A-Z][a-z]+_c2f|[A-Z][a-z]+_f2c|Status_c2f|Status_f2c)$'
missing=0 n=0
for f in $(echo "$syms" | grep -E '^MPI_[A-Z][a-z0-9_]*[a-z][a-z0-9_]*$' | grep -vE "$c_only"); do
    l=$(echo "$f" | tr 'A-Z' 'a-z')
    u=$(echo "$f" | tr 'a-z' 'A-Z')
    for s in "${l}_" "p${l}_" "$l" "${l}__" "$u" "P$u"; do
        if ! echo "$syms" | grep -qxF "$s"; then
            echo "FAIL: $f has no Fortran binding $s (describe it in tools/api/mpi_api.txt)"
            missing=1
        fi
    done
    n=$((n + 1))
done
[ $n -gt 100 ] || { echo "FAIL: only $n C functions found"; exit 1; }
[ $missing = 0 ] || exit 1
echo "OK: all $n C functions with a Fortran binding in MPI-3.1 have one"
