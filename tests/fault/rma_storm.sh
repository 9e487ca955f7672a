#!/bin/bash
# A rail fails during a passive-target accumulate storm: 2 hosts x 2 rails,
# 2 ranks per host, every rank fetch-and-adds and accumulates into every
# rank's window and puts and reads back a 64 KiB block (striped over the
# rails) for 14 s (tests/mpi/rma_storm.c); 3 s in, host 1's NIC on rail 1
# goes down for 6 s. The operations are frames on the channel, so those the
# failed rail carried unacknowledged are sent again on rail 0 and the target
# drops the duplicates: every fetched value must come back in order, every
# block intact, and every counter and array must end with the exact sum; the
# statistics must show frames sent again (the failure hit the storm). The rail
# must be reported failed and up again. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster a 1gbit
# round-robin places every frame, ordered ones included, on the rails in
# turn: fetch-and-adds and accumulates are in flight on the failing rail too
timeout -k 5 60 "${mx[@]}" -ppn 2 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 -genv RAILMPI_RAIL_POLICY round-robin \
    "$fault_build/tests/mpi/mpi_rma_storm" 14 > "$tmp/stress.out" 2>&1 &
storm_pid=$!
# the storm prints no progress lines for fault_start to wait for: its timer
# runs from the launch (stress_pid is set after it)
fault_start nic 3 6
stress_pid=$storm_pid
stress_wait
[ "$stress_rc" = 0 ] || fail "the storm ended with status $stress_rc"
grep -q "^rma_storm: [0-9]* operations, exact sums: OK" "$tmp/stress.out" || fail "no exact sums"
grep -q "^start" "$tmp/faults" || fail "the fault was never injected"
check_event 1 failed
check_event 1 up
# the storm's frames are all the traffic there is: resent ones are one-sided operations
resent=$(grep -oE "resent [0-9]+ frames" "$tmp/stress.out" | awk '{s += $2} END {print s + 0}')
[ "$resent" -gt 0 ] || fail "no frame was sent again: the failure did not hit the storm"
ops=$(sed -n 's/^rma_storm: \([0-9]*\) operations.*/\1/p' "$tmp/stress.out")
[ "${ops:-0}" -gt 1000 ] || fail "too few operations ($ops): the storm did not run through the fault"
fault_result "a rail down for 6 s during a fetch-and-op storm: $ops operations, $resent frames resent, exact sums"
