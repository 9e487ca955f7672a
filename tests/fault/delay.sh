#!/bin/bash
# A slow rail: 3 s into a 25 s stress run, rail 1 gets 100 ms of extra delay
# both ways for 10 s (slow is not dead). The job must keep running (no pause
# over 3 s) and deliver every message intact exactly once. Root only; torn
# down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster d 1gbit
fault_needs delay
stress_start 25
fault_start delay 3 10
stress_wait
check_stress
check_mid_run
check_gap 3
rtt=$(fault_time rtt)
echo "rail 1 round trip during the fault: ${rtt:-?} s"
awk -v r="${rtt:-0}" 'BEGIN { exit !(r >= 0.19) }' || fail "the delay was not in effect (round trip ${rtt:-unknown} s)"
fault_result "100 ms extra delay on rail 1 for 10 s: no stall, every message exactly once"
