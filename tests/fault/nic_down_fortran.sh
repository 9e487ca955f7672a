#!/bin/bash
# nic_down.sh with the traffic written in Fortran: tests/fault/fstress.f90
# (the `mpi` module, built with this build's mpifort) streams checked
# messages on 2 hosts x 2 rails, 2 ranks per host, for 20 s; 4 s in, host
# 1's NIC on rail 1 goes down for 8 s. The job must keep running on rail 0
# (no pause over 2 s), every message must arrive intact exactly once, and
# the rail must be reported failed and then up again. Root only; bounded
# (stress_start's timeout) and torn down on exit.
set -u
fault_build=$1
[ -x "$fault_build/bin/mpifort" ] && command -v gfortran >/dev/null ||
    { echo "SKIP: no mpifort (built without a Fortran compiler)"; exit 77; }
fsrc=$(cd "$(dirname "$0")" && pwd)/fstress.f90
. "$(dirname "$0")/lib.sh"
fault_cluster nf 1gbit
# stress_start runs $tmp/stress: the Fortran program takes its arguments
"$fault_build/bin/mpifort" -O2 -J "$tmp" "$fsrc" -o "$tmp/stress" ||
    { echo "FAIL: cannot build fstress.f90"; exit 1; }
stress_start 20
fault_start nic 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
fault_result "Fortran traffic, one NIC down for 8 s mid-run: no stall, every message exactly once, rail back"
