#!/bin/bash
# Collectives on communicators that span hosts take the two-level paths
# (src/coll/build_hier.c: a host's ranks combine at its leader, leaders
# cross the network; allreduce, reduce, bcast, barrier, allgather): the collective MPI programs, with their ranks told
# they sit round-robin on two and three virtual hosts (RAILMPI_HOST_ID, so
# ranks of different "hosts" talk over TCP on loopback and a host's ranks
# are not contiguous), every result checked exactly as on one host; and the
# same with the two levels off (RAILMPI_COLL_HIERARCHICAL=0).
set -u
build=$1
. "$(dirname "$0")/lib.sh"
run() { # PROG HOSTS RANKS HIERARCHICAL
    local p=$build/tests/mpi/mpi_$1 out
    [ -x "$p" ] || { fail "$p not built"; return; }
    out=$(RAILMPI_COLL_HIERARCHICAL=$4 timeout 100 "$build/bin/mpiexec" -n $3 --timeout 90 \
        bash -c "RAILMPI_HOST_ID=vhost\$((PMI_RANK % $2)) exec \"\$0\"" "$p" 2>&1) ||
        fail "$1, $3 ranks on $2 hosts, hierarchical $4: $(echo "$out" | tail -3)"
    echo "$out" | grep -q "OK" || fail "$1, $3 ranks on $2 hosts, hierarchical $4: no OK"
}
run coll_algos 2 4 1
run coll_algos 2 7 1
run coll_algos 3 5 1
run coll_algos 3 7 0
run coll_ring 2 3 1
run coll_ring 3 7 1
run coll_basic 2 4 1
run coll_basic 3 5 1
run coll_nb_basic 2 5 1
run coll_nb_basic 3 8 1
[ $fails = 0 ] && echo "OK: collectives across 2 and 3 virtual hosts, two levels on and off" || exit 1
