#!/bin/bash
# The libfabric transport under a NIC failure: as nic_down.sh, with the rails
# carried by ofi endpoints (RAILMPI_NET=ofi, provider tcp;ofi_rxm here): 4 s
# into a 20 s stress run host 1's NIC on rail 1 goes down for 8 s. The job
# must keep running on rail 0, every message arrive intact exactly once, and
# the rail be reported failed and then up again. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster q 1gbit
stress_start 20 RAILMPI_NET=ofi RAILMPI_OFI_RAILS="$rails"
fault_start nic 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
grep -qE "stats: peer [0-9]+ rail 1 \(ofi\): sent [1-9]" "$tmp/stress.out" || fail "rail 1 carried nothing over ofi"
fault_result "ofi: one NIC down for 8 s mid-run: no stall, every message exactly once, rail back"
