#!/bin/bash
# Point-to-point conformance across two virtual hosts over TCP (one rank per
# host, so every message crosses a rail): send cancellation (a cancel request
# is a frame on the channel like any other; the receiver withdraws the
# unmatched envelope), statuses, MPI_PROC_NULL. With fault tolerance on
# (frames kept until acked) and off (eager frames complete from the channel's
# callback). Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up p 2 2
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_TCP_RAILS "$rails" -ppn 1)
for ft in 1 0; do
    for t in p2p_cancel p2p_status p2p_procnull; do
        out=$(timeout 100 "${mx[@]}" -genv RAILMPI_FT $ft "$build/tests/mpi/mpi_$t" 2>&1)
        [ -n "${RM_TEST_VERBOSE:-}" ] && echo "$out"
        echo "$out" | grep -q ": OK$" || fail "$t across 2 hosts (RAILMPI_FT=$ft): $(echo "$out" | tail -3)"
    done
done
[ $fails = 0 ] && echo "OK: point-to-point conformance across hosts"
exit $((fails > 0))
