#!/bin/bash
# The libfabric transport under a NIC failure: as nic_down.sh, with the rails
# carried by ofi endpoints (RAILMPI_NET=ofi, provider tcp;ofi_rxm here): 4 s
# into a 30 s stress run host 1's NIC on rail 1 goes down for 8 s. The job
# must keep running on rail 0, every message arrive intact exactly once, and
# the rail be reported failed and then recovered on every path, the lower
# rank's too (it never reconnects: it takes the peer's newer generation as
# the reconnection). rxm's TCP connection resumes when TCP retransmits, which its
# backoff may put seconds after the NIC is back, unless its timeout is
# capped (below). Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster q 1gbit
stress_start 30 RAILMPI_NET=ofi RAILMPI_OFI_RAILS="$rails"
fault_start nic 4 8
stress_wait
check_stress
check_mid_run
check_gap 2
check_event 1 failed
check_event 1 up
check_event 1 'up \(recovered'
# no path of rail 1 may stay down long after the NIC is back (8 s down; a
# path never back would show about 26 s). railmpi caps the retransmission
# timeout of rxm's connections (RAILMPI_OFI_TCP_RTO_MAX_MS, 1 s) where the
# kernel can (Linux >= 6.15): every path is then back within 3 s of the NIC
# (0.1-0.2 s measured; 4-6 s with TCP's backoff), else within 12 s
back=12
[ -e /proc/sys/net/ipv4/tcp_rto_max_ms ] && back=3
down=$(grep -oE "rail 1 \(ofi\): .* down [0-9.]+ s" "$tmp/stress.out" | awk '{ print $(NF - 1) }' | sort -n | tail -1)
awk -v d="${down:-99}" -v m="$(slack $back)" 'BEGIN { exit !(d <= 8 + m) }' ||
    fail "a path of rail 1 stayed down ${down:-?} s (the NIC was down 8 s; at most $(slack $back) s more allowed)"
echo "longest time a path of rail 1 was down: ${down:-?} s (the NIC: 8 s)"
grep -qE "stats: peer [0-9]+ rail 1 \(ofi\): sent [1-9]" "$tmp/stress.out" || fail "rail 1 carried nothing over ofi"
fault_result "ofi: one NIC down for 8 s mid-run: no stall, every message exactly once, rail back"
