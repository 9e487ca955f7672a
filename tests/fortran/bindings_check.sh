#!/bin/bash
# Every C function the library exports has its Fortran binding, under the
# names MPICH's Fortran programs call (mpi_x_ and pmpi_x_, plus mpi_x,
# mpi_x__ and MPI_X, and MPICH's mpi_f08 names mpi_x_f08_ or mpi_x_f08ts_),
# except the functions the standard binds in C only.
#   bindings_check.sh LIBRARY
set -u
lib=$1
export LC_ALL=C  # sort and join must agree on the order
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" || $2 == "i" {print $3}' | sed 's/@.*//' | sort -u)
# C only in MPI-3.1: the tools interface, handle and status conversions.
c_only='^MPI_(T_[a-z_]+|[A-Z][a-z]+_c2f|[A-Z][a-z]+_f2c|Status_c2f|Status_f2c|Status_c2f08|Status_f082c)$'
# Bindings still to write, marked "?" in the description, are named here
# every run so they are not forgotten.
here=$(cd "$(dirname "$0")/../.." && pwd)
todo=$(sed -nE 's/^\? (MPI_[A-Za-z0-9_]+).*/\1/p' "$here/tools/api/mpi_api.txt")
[ -z "$todo" ] || echo "still without a Fortran binding: $(echo $todo)"
# The MPI-4 large-count forms (_c) are described with "!": the standard gives
# them no mpif.h or `use mpi` binding, only mpi_f08 overloads, whose entry
# points are checked below; the ones whose int form has no generated binding
# (written by hand, or none) are named every run.
# (a hand-written _c line whose int form is hand-written too, MPI_Register_datarep_c,
# has its mpi_f08 entry point written by hand)
large=$(sed -nE 's/^! (MPI_[A-Za-z0-9_]+_c)\(.*/\1/p' "$here/tools/api/mpi_api.txt")
bound=$(grep -E '^MPI_' "$here/tools/api/mpi_api.txt" | grep -v '@hand' | sed -E 's/\(.*//')
bound_hand=$(grep -E '^MPI_.*@hand' "$here/tools/api/mpi_api.txt" | sed -E 's/\(.*//')
large_hand=$(sed -nE 's/^! (MPI_[A-Za-z0-9_]+_c)\(.*@hand.*/\1/p' "$here/tools/api/mpi_api.txt")
overloaded=$(echo "$large" | while read -r f; do
    if echo "$large_hand" | grep -qxF "$f"; then
        echo "$bound_hand" | grep -qxF "${f%_c}" && echo "$f"
    else
        echo "$bound" | grep -qxF "${f%_c}" && echo "$f"
    fi
done)
unbound=$(echo "$large" | grep -vxF -e "${overloaded:-MPI_none}")
[ -z "$unbound" ] || echo "large-count forms without an mpi_f08 overload: $(echo $unbound)"
todo="$todo
$large"
todo=$(echo "$todo" | grep .)
fns=$(echo "$syms" | grep -E '^MPI_[A-Z][a-z0-9_]*[a-z][a-z0-9_]*$' | grep -vE "$c_only" | grep -vxF -e "${todo:-MPI_none}")
n=$(echo "$fns" | grep -c .)
# every spelling each function must have, against what the library has
want=$(echo "$fns" | awk '{ l = tolower($0); u = toupper($0);
    print $0 " " l "_"; print $0 " p" l "_"; print $0 " " l; print $0 " " l "__";
    print $0 " " u; print $0 " P" u }' | sort -k2,2)
missing=$(join -1 2 -2 1 -v 1 <(echo "$want") <(echo "$syms" | sort) | awk '{ print $2 " has no Fortran binding " $1 }')
if [ -n "$missing" ]; then
    echo "$missing" | sed 's/^/FAIL: /' | head -40
    echo "(describe the functions in tools/api/mpi_api.txt)"
    missing=1
else
    missing=0
fi
# MPICH's mpi_f08 ABI: mpi_x_f08_, or mpi_x_f08ts_ when x has a buffer
# (docs/fortran.md), and the same with pmpi_
f08_missing=$(echo "$fns" | awk '{ l = tolower($0); print l; print "p" l }' | while read -r f; do
    echo "$syms" | grep -qxE "${f}_f08(ts)?_" || echo "$f"
done)
if [ -n "$f08_missing" ]; then
    echo "$f08_missing" | sed 's/^/FAIL: no mpi_f08 entry point (_f08_ or _f08ts_) for /' | head -40
    missing=1
fi
# mpi_f08's large-count overloads: mpi_x_c_f08_ or mpi_x_c_f08ts_ (and
# pmpi_) for each MPI_X_c whose MPI_X is bound, and no mpif.h/`use mpi` names
nover=$(echo "$overloaded" | grep -c .)
lc_missing=$(echo "$overloaded" | grep . | awk '{ l = tolower($0); print l; print "p" l }' | while read -r f; do
    echo "$syms" | grep -qxE "${f}_f08(ts)?_" || echo "FAIL: no mpi_f08 large-count entry point (_f08_ or _f08ts_) for $f"
    echo "$syms" | grep -qxF "${f}_" && echo "FAIL: $f has an mpif.h/mpi module name ${f}_ (mpi_f08 only)"
done)
if [ -n "$lc_missing" ]; then
    echo "$lc_missing" | head -40
    missing=1
fi
[ $n -gt 100 ] || { echo "FAIL: only $n C functions found"; exit 1; }
[ $missing = 0 ] || exit 1
echo "OK: all $n C functions with a Fortran binding in MPI-3.1 have one, and $nover large-count forms their mpi_f08 overload"
