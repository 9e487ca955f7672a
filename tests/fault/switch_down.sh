#!/bin/bash
# One switch fails silently: 4 s into a 20 s stress run, rail 1's switch stops
# forwarding for 8 s while every NIC stays up, so only missing traffic tells.
# The job must keep running on rail 0 (no pause over 2 s), every message must
# arrive intact exactly once, and rail 1 must be reported failed and then up
# again. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster w 1gbit
stress_start 20
fault_start switch 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
fault_result "rail 1's switch down for 8 s mid-run: no stall, every message exactly once, rail back"
