#!/bin/bash
# A rail fails during large collectives: 2 hosts x 2 rails, 2 ranks per
# host, MPI_Allreduce (1 MiB), MPI_Alltoall (256 KiB a pair) and
# MPI_Iallreduce (1 MiB) back to back for 16 s (tests/mpi/coll_storm.c,
# every result checked against its exact value); 3 s into the run host 1's
# NIC on rail 1 goes down for 6 s. The schedules' messages are point-to-point
# messages on the channels, so what the failed rail held is sent again on
# rail 0: the run must finish with every result exact, keep going through
# the fault (no pause over 5 s: a round moves 3 MiB a rank, and on this
# shared machine a loaded moment stretches it), and see the rail reported failed and up
# again. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster k 1gbit
# fault_start's timer runs from the first "progress" line in $tmp/stress.out
timeout -k 5 70 "${mx[@]}" -ppn 2 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 \
    "$fault_build/tests/mpi/mpi_coll_storm" 16 > "$tmp/stress.out" 2>&1 &
stress_pid=$!
stress_bound=70
fault_start nic 3 6
stress_wait
[ "$stress_rc" != 124 ] && [ "$stress_rc" != 137 ] || fail "the run hung: killed after $stress_bound s"
[ "$stress_rc" = 0 ] || fail "the run ended with status $stress_rc"
! grep -q "^FAIL" "$tmp/stress.out" || fail "$(grep -m3 ^FAIL "$tmp/stress.out")"
grep -q "^coll_storm: [0-9]* rounds on 4 ranks, every result exact: OK" "$tmp/stress.out" ||
    fail "no report of exact results from 4 ranks"
check_mid_run
check_gap 5
check_event 1 failed
check_event 1 up
rounds=$(sed -n 's/^coll_storm: \([0-9]*\) rounds.*/\1/p' "$tmp/stress.out")
after=$(awk -v e="$(fault_time end)" '$1 == "progress" && $2 > e { n++ } END { print n + 0 }' "$tmp/stress.out")
[ "$after" -ge 3 ] || fail "only $after rounds after the rail came back"
fault_result "a rail down for 6 s during large allreduce/alltoall: $rounds rounds, every result exact"
