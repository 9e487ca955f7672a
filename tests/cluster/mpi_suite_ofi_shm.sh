#!/bin/bash
# The whole MPI suite across two virtual hosts over libfabric's shm provider
# (RAILMPI_NET=ofi, RAILMPI_OFI_PROVIDER=shm): tests/cluster/mpi_suite_ofi.sh
# with that provider. The virtual hosts are network namespaces of this one
# machine, so the provider's shared memory reaches across them; ranks on
# the same virtual host still meet in railmpi's own shared memory.
export RAILMPI_TEST_OFI_PROVIDER=shm
exec bash "$(dirname "$0")/mpi_suite_ofi.sh" "$@"
