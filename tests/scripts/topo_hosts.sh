#!/bin/bash
# MPI_Cart_create with reorder keeps grid neighbours on one host: six ranks
# told they sit round-robin on two virtual hosts (RAILMPI_HOST_ID, so they
# talk over TCP on loopback) get host-contiguous grid ranks.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
prog=$build/tests/mpi/mpi_topo_hosts
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
for n in 4 6; do
    out=$(timeout 100 "$build/bin/mpiexec" -n $n --timeout 90 \
        bash -c 'RAILMPI_HOST_ID=vhost$((PMI_RANK % 2)) exec "$0"' "$prog" 2>&1) ||
        fail "$n ranks on two hosts: $(echo "$out" | tail -5)"
    echo "$out" | grep -q "^two hosts:" || fail "$n ranks: the ranks did not see two hosts: $(echo "$out" | tail -3)"
    echo "$out" | grep -qx "OK topo_hosts" || fail "$n ranks: no OK: $(echo "$out" | tail -3)"
    echo "$out" | grep "hosts:"
done
[ $fails = 0 ] && echo "OK: reordered grids keep neighbours on one host" || exit 1
