#!/bin/bash
# A partition: 4 s into a 20 s stress run both switches go down for 5 s, so no
# path at all joins the hosts. The job must wait it out (well inside the
# partition timeout), resume within 3 s of the rails' return, and deliver
# every message intact exactly once; ranks must report the partition and its
# end. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster t 1gbit
stress_start 20
fault_start partition 4 5
stress_wait
check_stress
check_mid_run
check_resume 3
check_event '[0-9,]+' partitioned
check_event '[0-9,]+' resumed
fault_result "both rails down for 5 s mid-run: resumed, every message exactly once"
