#!/bin/bash
# Partitioned communication across two virtual hosts over two TCP rails:
# tests/mpi/part_basic.c and part_threads.c with one rank per host (every
# partition crosses the rails) and with two per host (pairs split over the
# hosts and pairs within one). The partitions of the early-arrival and
# large cases go by rendezvous, striped like any large message: the
# statistics must show at least a megabyte sent on each rail. Root only;
# torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up p 2 2
hl="${name}h1,${name}h2"
for t in part_basic part_threads; do
    for ppn in 1 2; do
        out=$(timeout 150 "$build/bin/mpiexec" -hosts "$hl" -launcher-exec "ip netns exec" -iface "${name}mbr" \
            -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 -ppn $ppn \
            "$build/tests/mpi/mpi_$t" 2>&1)
        [ -n "${RM_TEST_VERBOSE:-}" ] && echo "$out"
        echo "$out" | grep -q "^$t: OK$" || { fail "$t, $ppn per host: $(echo "$out" | grep -v stats | tail -3)"; continue; }
        if [ $ppn = 1 ]; then
            for r in 0 1; do
                echo "$out" | grep -qE "stats: peer 1 rail $r \(tcp\): sent [0-9]+ frames [0-9]{7,} bytes" ||
                    fail "$t: rail $r carried under a megabyte to rank 1: $(echo "$out" | grep "stats: peer 1 rail" | head -2)"
            done
        fi
    done
done
[ $fails = 0 ] && echo "OK: partitioned communication across hosts"
exit $((fails > 0))
