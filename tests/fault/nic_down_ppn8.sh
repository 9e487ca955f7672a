#!/bin/bash
# One NIC fails under 8 ranks per host: 2 hosts x 2 rails, every rank
# streaming verified 64 KiB messages (striped over both rails) to every other
# in rounds (bench/scale.c); 3 s into the traffic, host 1's NIC on rail 1 goes
# down for 8 s. With health kept per host pair and rail, every rank's paths
# there fail together: no round after the fault may take more than 0.5 s
# longer than the longest round before it, every message must arrive intact,
# and rail 1 must be reported failed and up again.
# Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster e 1gbit
"$fault_build/bin/mpicc" -O2 "$here/../../bench/scale.c" -o "$tmp/scale" || { echo "FAIL: cannot build scale"; exit 1; }
timeout -k 5 80 "${mx[@]}" -ppn 8 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_NET_CHUNK 32768 \
    "$tmp/scale" 0.5 16 65536 progress > "$tmp/stress.out" 2>&1 &
stress_pid=$!
stress_bound=80
# 16 ranks take a while to connect on a small machine: the fault is timed
# from the first round
for ((i = 0; i < 600; i++)); do grep -q "^progress" "$tmp/stress.out" 2>/dev/null && break; sleep 0.1; done
fault_start nic 3 8
stress_wait
[ "$stress_rc" = 0 ] && grep -q "^OK" "$tmp/stress.out" || fail "the job failed (exit $stress_rc)"
check_mid_run
# a round's own length is no stall: the allowance is 0.5 s over the longest
# round before the fault
s=$(fault_time start)
longest=$(awk -v s="$s" '$1 == "progress" { if (p != "" && $2 < s && $2 - p > m) m = $2 - p; p = $2 }
                         END { printf "%.3f", m }' "$tmp/stress.out")
echo "longest round before the fault: $longest s"
check_gap "$(awk -v m="$longest" 'BEGIN { printf "%.3f", m + 0.5 }')"
check_event 1 failed
check_event 1 up
fault_result "one NIC down for 8 s under 8 ranks per host: no stall over 0.5 s, every message intact"
