#!/bin/bash
# A partition that outlasts RAILMPI_PARTITION_TIMEOUT_S (3 s here): 4 s into a
# 30 s stress run both switches go down for good. Pending operations must
# fail with an MPI error naming the peer and the rails within 15 s of the
# fault, and the job must end with a non-zero exit instead of hanging. Root
# only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster u 1gbit
stress_start 30 RAILMPI_PARTITION_TIMEOUT_S=3
fault_start partition 4
stress_wait
check_mpi_error 15
check_event '[0-9,]+' partition-timeout
fault_result "a partition longer than the partition timeout: a clear MPI error, no hang"
