#!/bin/bash
# switch_down.sh over the libfabric transport (RAILMPI_NET=ofi, tcp;ofi_rxm):
# rail 1's switch goes silent for 8 s mid-run, both NICs stay up, so nothing
# but heartbeats notices; rxm's connections die without a word. The job must
# not stall, every message must arrive exactly once, and rail 1 must come
# back. One of the fault tests CI runs over ofi; the rest run over ofi with
# RAILMPI_TEST_NET=ofi ctest -L fault. Root only; torn down on exit.
set -u
export RAILMPI_TEST_NET=ofi
exec bash "$(dirname "$0")/switch_down.sh" "$@"
