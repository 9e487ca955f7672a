#!/bin/bash
# The topology, communicator and error tests compiled with Debian's MPICH
# (mpicc.mpich: MPICH's mpi.h, its MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY and
# constants) run on railmpi unchanged.
set -u
build=$1
lib=$build/lib
command -v mpicc.mpich >/dev/null || { echo "SKIP: MPICH packages missing"; exit 77; }
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "a sanitizer build cannot be loaded into programs built without the sanitizer"
src=$(cd "$(dirname "$0")/../mpi" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in topo_cart topo_graph comm_nb err_user; do
    mpicc.mpich -O1 -I"$src" "$src/$t.c" -o "$tmp/$t" 2>"$tmp/cc.log" || { fail "mpicc.mpich $t: $(head -5 "$tmp/cc.log")"; continue; }
    for n in 1 3 4; do
        out=$(LD_LIBRARY_PATH=$lib timeout 100 "$build/bin/mpiexec" -n $n --timeout 90 "$tmp/$t" 2>&1) ||
            fail "MPICH-built $t on $n ranks: $(echo "$out" | tail -3)"
        echo "$out" | grep -q "^OK" || fail "MPICH-built $t on $n ranks printed no OK: $(echo "$out" | tail -3)"
    done
done
[ $fails = 0 ] && echo "OK: MPICH-built topology, communicator and error programs run on railmpi" || exit 1
