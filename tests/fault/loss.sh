#!/bin/bash
# A lossy rail: 3 s into a 25 s stress run, rail 1 drops 1 % of packets both
# ways for 10 s. The job must keep running (no pause over 3 s) and deliver
# every message intact exactly once. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster o 1gbit
fault_needs loss
stress_start 25
fault_start loss 3 10
stress_wait
check_stress
check_mid_run
check_gap 3
dropped=$(awk '$1 == "dropped" { print $2 }' "$tmp/faults")
[ "${dropped:-0}" -gt 0 ] || fail "no packet was dropped: the fault did not bite"
echo "$dropped packets dropped on rail 1"
fault_result "1 % packet loss on rail 1 for 10 s: no stall, every message exactly once"
