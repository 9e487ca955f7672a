#!/bin/bash
# The topology, communicator and error tests compiled with Debian's MPICH
# (mpicc.mpich: MPICH's mpi.h, its MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY and
# constants) run on railmpi unchanged; MPI_Dims_create gives MPICH's grids.
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
# MPI_Dims_create answers as Debian's MPICH: every product up to 20000 in
# 2-6 dimensions, and with some dimensions fixed (docs/topology.md)
cat >"$tmp/dims.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* MPI_Dims_create: no object (MPI-4.1 9.3) */
    static const int fixed[][6] = {{0}, {0, 2, 0}, {3, 0, 0, 0}, {0, 0, 0, 4}, {2, 0, 3, 0, 0}};
    static const int nds[] = {0, 3, 4, 4, 5};
    for (int p = 0; p < 5; p++)
        for (int nd = p ? nds[p] : 2; nd <= (p ? nds[p] : 6); nd++)
            for (int n = 1; n <= 20000; n++) {
                int d[6];
                for (int i = 0; i < 6; i++) d[i] = fixed[p][i];
                int rc = MPI_Dims_create(n, nd, d);
                printf("%d %d %d:", p, nd, n);
                for (int i = 0; rc == MPI_SUCCESS && i < nd; i++) printf(" %d", d[i]);
                printf(rc == MPI_SUCCESS ? "\n" : " error\n");
            }
    MPI_Finalize();
    return 0;
}
C
if mpicc.mpich -O1 "$tmp/dims.c" -o "$tmp/dims" 2>"$tmp/cc.log"; then
    timeout 100 mpiexec.mpich -n 1 "$tmp/dims" >"$tmp/dims.mpich" 2>"$tmp/dims.err" || fail "dims under MPICH: $(tail -3 "$tmp/dims.err")"
    LD_LIBRARY_PATH=$lib timeout 100 "$build/bin/mpiexec" -n 1 --timeout 90 "$tmp/dims" >"$tmp/dims.rail" 2>&1 || fail "dims under railmpi: $(tail -3 "$tmp/dims.rail")"
    lines=$(wc -l <"$tmp/dims.mpich")
    [ "$lines" = 180000 ] || fail "MPICH's dims program printed $lines lines"
    cmp -s "$tmp/dims.mpich" "$tmp/dims.rail" || fail "MPI_Dims_create differs from MPICH's: $(diff "$tmp/dims.mpich" "$tmp/dims.rail" | head -4)"
else
    fail "mpicc.mpich dims: $(head -5 "$tmp/cc.log")"
fi

[ $fails = 0 ] && echo "OK: MPICH-built topology, communicator and error programs run on railmpi; MPI_Dims_create answers as MPICH's" || exit 1
