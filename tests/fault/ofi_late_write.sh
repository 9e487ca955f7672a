#!/bin/bash
# A remote write given up on must not land after its receive completed
# (libfabric transport, tcp;ofi_rxm, failover on, remote writes on over it:
# RAILMPI_OFI_RMA_STREAM=1): 4 MiB messages go by
# remote writes from host 1's rank to host 2's, one at a time, while host 1's
# NIC on rail 1 goes down three times for 3 s (4, 12 and 20 s into a 30 s
# run). The message in flight then has a write stuck on rail 1 in the
# provider; the sender gives it up and writes that chunk again on rail 0.
# rxm over tcp would place the stuck write's rest whenever its TCP
# connection resumed (after the NIC is back, when TCP retransmits), into
# memory the receiver had handed back; the sender's WDONE names the rail,
# and the receiver leaves that endpoint for a new one before it lets go
# (docs/transport-ofi.md, "Faults"). The receiver (tests/cluster/late_write.c)
# keeps the buffer of every message that took over 100 ms filled with a
# byte no message carries and checks it at the end, after the connection
# would have resumed. Without a fence 2 runs in 3 found 130-510 KiB placed
# late. Root only; torn down on exit.
set -u
fault_build=$1
export RAILMPI_TEST_NET=ofi
. "$(dirname "$0")/lib.sh"
fault_cluster w 1gbit
"$fault_build/bin/mpicc" -O2 "$here/late_write.c" -o "$tmp/late_write" ||
    { echo "FAIL: cannot build late_write"; exit 1; }
timeout -k 5 100 "${mx[@]}" -ppn 1 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 -genv RAILMPI_OFI_RMA_STREAM 1 \
    "$tmp/late_write" 30 > "$tmp/stress.out" 2>&1 &
stress_pid=$!
fault_start nic 4 3
fault_start nic 12 3
fault_start nic 20 3
wait "$stress_pid"; rc=$?; stress_pid=
fault_wait
grep -E "^(FAIL|OK|message )" "$tmp/stress.out"
[ "$rc" = 0 ] || fail "late_write exited with $rc"
kept=$(sed -n 's/^OK messages [0-9]* kept \([0-9]*\)$/\1/p' "$tmp/stress.out")
[ -n "$kept" ] || fail "late_write did not finish its checks"
[ "${kept:-0}" -ge 1 ] || fail "no message was in flight when the NIC went down: nothing was checked"
grep -qE "stats: peer 1 rail 1 \(ofi\): .* written remotely [1-9]" "$tmp/stress.out" ||
    fail "nothing was written remotely over rail 1"
grep -q "ofi: rail 1: endpoint renewed" "$tmp/stress.out" ||
    fail "no endpoint was renewed: no write was given up on, nothing was tested"
check_event 1 failed
fault_result "ofi: writes given up on when a NIC failed placed nothing after their receives completed"
