#!/bin/bash
# The collective test programs (tests/mpi/coll_*.c) at 5 to 8 ranks on
# three virtual hosts (2 data rails over TCP; 2 or 3 ranks a host, placed
# in blocks, so a host's ranks meet through shared memory and the hosts
# over the rails), with the two-level paths on (a host's ranks combine at
# its leader first, src/coll/build_hier.c) and off
# (RAILMPI_COLL_HIERARCHICAL=0): every result checked exactly by the
# programs themselves (large_count_coll.c: the _c forms). Root only; torn
# down on exit. About 40 s.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up c 3 2
three="${name}h1,${name}h2,${name}h3"
runs=0 t0=$(date +%s)
run() { # HIERARCHICAL N PROGRAM
    local p=$build/tests/mpi/mpi_$3
    runs=$((runs + 1))
    [ -x "$p" ] || { fail "$p not built"; return; }
    if ! timeout -k 5 100 "$build/bin/mpiexec" -hosts "$three" -launcher-exec "ip netns exec" \
        -iface "${name}mbr" -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_COLL_HIERARCHICAL "$1" \
        --timeout 90 -n "$2" "$p" >"$tmp/out" 2>&1 || grep -q "FAIL" "$tmp/out" ||
        ! grep -q "OK" "$tmp/out"; then
        fail "$3 with $2 ranks on 3 hosts, hierarchical $1: $(grep -m3 -E "FAIL|ERR|Abort|signal|mpiexec" "$tmp/out" | tr '\n' ' ')"
    fi
}
for h in 1 0; do
    run $h 8 coll_algos
    run $h 6 coll_basic
    run $h 8 coll_nb_basic
    run $h 6 coll_nb_async
    run $h 8 coll_nb_inter
    run $h 7 coll_neighbor
    run $h 6 coll_persistent
    run $h 8 coll_ring
    run $h 6 coll_storm
    run $h 8 large_count_coll
done
run 1 7 coll_algos
run 0 8 coll_basic
echo "$runs runs in $(( $(date +%s) - t0 )) s"
[ $fails = 0 ] || exit 1
echo "OK: the collective programs at 5 to 8 ranks on 3 hosts, two levels on and off"
