#!/bin/bash
# A flapping link: 3 s into a 25 s stress run, host 1's NIC on rail 1 goes down
# and up every 200 ms for 10 s. The job must keep running (no pause over 3 s)
# and deliver every message intact exactly once. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster f 1gbit
stress_start 25
fault_start flap 3 10
stress_wait
check_stress
check_mid_run
check_gap 3
fault_result "rail 1 flapping every 200 ms for 10 s: no stall, every message exactly once"
