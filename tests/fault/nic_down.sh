#!/bin/bash
# One NIC fails: 4 s into a 20 s stress run (2 hosts x 2 rails, 2 ranks per
# host), host 1's NIC on rail 1 goes down for 8 s, longer than TCP alone would
# wait out. The job must keep running on rail 0 (no pause over 2 s), every
# message must arrive intact exactly once, and the rail must be reported
# failed and then up again. The stress program is linked with railstat (the
# MPI_T tool): its per-rail table must show rail 1's failure and recovery and
# traffic on both rails. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster n 1gbit
stress_libs="-L$fault_build/lib -Wl,-rpath,$fault_build/lib -lrailstat"
stress_start 20
fault_start nic 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
# railstat: "railstat: RAIL  sentMB receivedMB frames resent failures recoveries misses down_s"
stat() { awk -v r="$1" -v c="$2" '$1 == "railstat:" && $2 == r && NF == 10 {print $c}' "$tmp/stress.out"; }
grep -q "^railstat: 4 ranks, 2 network rails" "$tmp/stress.out" || fail "no railstat table for 4 ranks and 2 rails"
[ "$(stat 1 7)" -ge 1 ] 2>/dev/null || fail "railstat shows no failure on rail 1: '$(stat 1 7)'"
[ "$(stat 1 8)" -ge 1 ] 2>/dev/null || fail "railstat shows no recovery on rail 1: '$(stat 1 8)'"
[ "$(stat 0 7)" = 0 ] || fail "railstat shows failures on rail 0: '$(stat 0 7)'"
awk -v a="$(stat 0 3)" -v b="$(stat 1 3)" 'BEGIN {exit !(a > 10 && b > 10)}' ||
    fail "railstat: too little traffic per rail (rail 0 $(stat 0 3) MB, rail 1 $(stat 1 3) MB)"
awk -v d="$(stat 1 10)" 'BEGIN {exit !(d >= 4)}' || fail "railstat: rail 1 down time $(stat 1 10) s"
# the host-level judgement through MPI_T: host 0 judged host 1's rail 1 failed
grep -qE "^railstat: hosts rail 1: probes [0-9]+, failures [1-9]" "$tmp/stress.out" ||
    fail "railstat: rank 0's host judged no host failed on rail 1: $(grep 'hosts rail 1' "$tmp/stress.out")"
grep -qE "^railstat: hosts rail 0: probes [0-9]+, failures 0 " "$tmp/stress.out" ||
    fail "railstat: host failures on rail 0: $(grep 'hosts rail 0' "$tmp/stress.out")"
fault_result "one NIC down for 8 s mid-run: no stall, every message exactly once, rail back"
