#!/bin/bash
# delay.sh over the libfabric transport (RAILMPI_NET=ofi, tcp;ofi_rxm): rail 1
# gets 100 ms of extra delay both ways for 10 s mid-run. ofi cannot see the
# network (a send completes once the provider took it), so the rail layer
# measures the path by delivery reports and takes the undelivered frames off
# a path that turned slow (docs/architecture.md, "Path repository"). The job
# must not stall over 3 s and every message must arrive exactly once. One of
# the fault tests CI runs over ofi. Root only; torn down on exit.
set -u
export RAILMPI_TEST_NET=ofi
exec bash "$(dirname "$0")/delay.sh" "$@"
