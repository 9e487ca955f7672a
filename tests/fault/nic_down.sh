#!/bin/bash
# One NIC fails: 4 s into a 20 s stress run (2 hosts x 2 rails, 2 ranks per
# host), host 1's NIC on rail 1 goes down for 8 s, longer than TCP alone would
# wait out. The job must keep running on rail 0 (no pause over 2 s), every
# message must arrive intact exactly once, and the rail must be reported
# failed and then up again. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster n 1gbit
stress_start 20
fault_start nic 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
fault_result "one NIC down for 8 s mid-run: no stall, every message exactly once, rail back"
