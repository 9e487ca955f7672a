#!/bin/bash
# Scale rehearsal of failure detection (issue 18): 8 virtual hosts x 16 ranks
# (oversubscribed: correctness, not speed), 2 rails, every rank connected to
# every other on both rails (bench/scale.c). Idle for IDLE s, then rounds of
# verified messages to every peer for BUSY s, during which host 1's NIC on
# rail 1 goes down for FOR s and comes back, then idle again. Prints the idle
# packet rate per host pair and rail before and after (every host's rail NIC
# counters), when each rank first saw rail 1 fail (rail events), whether
# every message arrived intact, and each rank's memory. Root only; about
# 60-90 s; the cluster is removed on any exit.
#   bench/scale.sh [--build DIR] [--hosts H] [--ppn N] [--timeout-ms MS]
# The path timeout is raised (default 5000 ms): 128 ranks polling on 2 cores
# leave a rank's health tick waiting longer than 300 ms for a core, which
# would be taken for a silent network. Every rank must see the failure within
# twice the path timeout (a starved rank runs its tick late); how many did
# within the timeout is printed.
set -u
bdir=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$bdir")
build=$top/build
nh=8 ppn=16 T=5000 idle=6 busy=24 fault_at=4 fault_for=8 bytes=65536
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --hosts) nh=$2; shift ;;
        --ppn) ppn=$2; shift ;;
        --timeout-ms) T=$2; shift ;;
        *) echo "usage: bench/scale.sh [--build DIR] [--hosts H] [--ppn N] [--timeout-ms MS]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/scale.sh: needs root (network namespaces)" >&2; exit 1; }
[ -x "$build/bin/mpiexec" ] || { echo "bench/scale.sh: build railmpi first ($build)" >&2; exit 1; }
. "$top/tests/cluster/lib.sh"
cluster_up s "$nh" 2
vc() { bash "$top/tests/cluster/vcluster.sh" "$@"; }
hosts=$(seq -f "${name}h%g" 1 "$nh" | paste -sd,)
"$build/bin/mpicc" -O2 "$bdir/scale.c" -o "$tmp/scale" || { echo "cannot build scale.c"; exit 1; }
txsum() { # RAIL: packets every host sent on it
    local s=0 h
    for ((h = 1; h <= nh; h++)); do
        s=$((s + $(ip netns exec "${name}h$h" cat "/sys/class/net/rail$1/statistics/tx_packets")))
    done
    echo $s
}
at() { # UNIXTIME: sleep until then
    local d; d=$(awk -v t="$1" -v n="$(date +%s.%N)" 'BEGIN { d = t - n; printf "%.3f", (d > 0 ? d : 0) }'); sleep "$d"
}
out=$tmp/scale.out
echo "scale rehearsal: $nh hosts x $ppn ranks, 2 rails, RAILMPI_PATH_TIMEOUT_MS=$T"
timeout -k 5 400 "$build/bin/mpiexec" -hosts "$hosts" -launcher-exec "ip netns exec" -iface "${name}mbr" \
    -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_VERBOSE 1 -genv RAILMPI_PATH_TIMEOUT_MS "$T" \
    -genv RAILMPI_NET_CHUNK 32768 -ppn "$ppn" "$tmp/scale" $idle $busy $bytes > "$out" 2>&1 &
pid=$!
for ((i = 0; i < 3000; i++)); do grep -q "^t0 " "$out" 2>/dev/null && break; sleep 0.1; done
t0=$(awk '$1 == "t0" { print $2; exit }' "$out")
[ -n "$t0" ] || { echo "FAIL: the job never connected: $(tail -5 "$out")"; kill $pid; wait $pid; exit 1; }
pairs=$((nh * (nh - 1)))
rate() { # A0 A1 B0 B1 SECONDS -> per host pair and rail, both rails
    awk -v a0=$1 -v a1=$2 -v b0=$3 -v b1=$4 -v w=$5 -v p=$pairs \
        'BEGIN { printf "rail 0 %.1f, rail 1 %.1f packets/s per host pair and rail", (b0 - a0) / w / p, (b1 - a1) / w / p }'
}
at "$(awk -v t=$t0 'BEGIN { printf "%.3f", t + 1 }')"; a0=$(txsum 0) a1=$(txsum 1)
at "$(awk -v t=$t0 -v i=$idle 'BEGIN { printf "%.3f", t + i - 0.5 }')"; b0=$(txsum 0) b1=$(txsum 1)
before=$(rate $a0 $a1 $b0 $b1 $(awk -v i=$idle 'BEGIN { print i - 1.5 }'))
fs=$(awk -v t=$t0 -v i=$idle -v f=$fault_at 'BEGIN { printf "%.3f", t + i + f }')
at "$fs"; vc nic-down "$name" 1 1; fs=$(date +%s.%N)
at "$(awk -v t=$fs -v f=$fault_for 'BEGIN { printf "%.3f", t + f }')"; vc nic-up "$name" 1 1; fe=$(date +%s.%N)
wait_busy() { grep -q "^busy " "$out"; }
for ((i = 0; i < 1200; i++)); do wait_busy && break; sleep 0.25; done
busy_end=$(awk '$1 == "busy" { print $5; exit }' "$out")
# idle after: from a second after the traffic ended (the job idles IDLE s from there)
s=$(awk -v b="${busy_end:-0}" 'BEGIN { printf "%.3f", b + 1 }')
end=$(awk -v b="${busy_end:-0}" -v i=$idle 'BEGIN { printf "%.3f", b + i }')
at "$s"; a0=$(txsum 0) a1=$(txsum 1) ta=$(date +%s.%N)
at "$(awk -v e=$end 'BEGIN { printf "%.3f", e - 0.5 }')"; b0=$(txsum 0) b1=$(txsum 1) tb=$(date +%s.%N)
after=$(rate $a0 $a1 $b0 $b1 $(awk -v a=$ta -v b=$tb 'BEGIN { print b - a }'))
wait $pid; rc=$?
echo "idle before: $before"
echo "idle after:  $after"
echo "rail 1 of host 1 down from $(awk -v t=$t0 -v s=$fs 'BEGIN { printf "%.2f", s - t }') to $(awk -v t=$t0 -v s=$fe 'BEGIN { printf "%.2f", s - t }') s (after t0)"
# when every rank first logged a rail 1 failure after the fault
awk -v fs=$fs -v fe=$fe -v T=$T -v n=$((nh * ppn)) '
    /rail event [0-9.]+ peer [0-9]+ rail 1: failed/ {
        match($0, /railmpi\[[0-9]+\]/); r = substr($0, RSTART + 8, RLENGTH - 9)
        split(substr($0, index($0, "rail event ") + 11), w, " ")
        if (w[1] >= fs && w[1] <= fe && !(r in seen)) { seen[r] = w[1] - fs; k++ }
    }
    END {
        max = 0; in_t = 0
        for (r in seen) { if (seen[r] > max) max = seen[r]; if (seen[r] <= T / 1000 + 0.5) in_t++ }
        printf "ranks that saw rail 1 fail: %d of %d; %d within the path timeout + 0.5 s, the last %.2f s after the fault (path timeout %.1f s)\n", k, n, in_t, max, T / 1000
        exit !(k == n && max <= 2 * T / 1000)
    }' "$out"
seen_ok=$?
grep -E "^(busy|OK|FAIL)" "$out"
awk '$1 == "mem" { kb += $7; n++; if ($7 > max) max = $7; peers = $5; gsub(/[(),]/, ""); k0 += $11; k1 += $13 }
     END { if (n) printf "memory: %d ranks, %d peers each, VmRSS mean %.0f KB before connecting, %.0f KB connected, %.0f KB at the end (max %d KB)\n", n, peers, k0 / n, k1 / n, kb / n, max }' "$out"
fails=0
[ $rc = 0 ] && grep -q "^OK" "$out" || { echo "FAIL: the job failed (rc $rc)"; grep -E "error|FAIL" "$out" | head -5; fails=1; }
[ $seen_ok = 0 ] || { echo "FAIL: not every rank saw rail 1 fail within twice the path timeout"; fails=1; }
[ $fails = 0 ] && echo "OK: scale rehearsal" || exit 1
