#!/bin/bash
# Without failover (RAILMPI_FT=0) a dead NIC is an error, never a hang: 4 s
# into a 30 s stress run host 1's NIC on rail 1 goes down for good. The job
# must end by itself within 15 s of the fault, with a non-zero exit and an MPI
# error naming the peer and the rail. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster z 1gbit
stress_start 30 RAILMPI_FT=0
fault_start nic 4
stress_wait
check_mpi_error 15
fault_result "RAILMPI_FT=0 and a NIC down: a clear MPI error naming the peer and rail, no hang"
