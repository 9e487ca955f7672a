#!/bin/bash
# railbench's transport level between two virtual hosts with two rails: it
# finds both rails by itself (leaving the management network out), -r and
# RAILMPI_TCP_RAILS choose rails, -R K moves bytes over rail K only (seen in
# the hosts' interface counters and in a shaped rail's bandwidth), and the
# striped mode puts about half of every message on each rail. Root only.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up rb 2 2
rb() { # [mpiexec options...] -- railbench options...
    local mo=()
    while [ "$1" != -- ]; do mo+=("$1"); shift; done
    shift
    timeout 120 "$build/bin/mpiexec" -hosts ${name}h1,${name}h2 -launcher-exec "ip netns exec" \
        -iface ${name}mbr "${mo[@]}" "$build/bin/railbench" "$@" 2>"$tmp/err"
}
rx() { # host rail -> bytes received on that rail's interface
    bash "$here/vcluster.sh" exec "$name" "$1" cat /sys/class/net/rail$2/statistics/rx_bytes
}
r0=$(bash "$here/vcluster.sh" net "$name" 0)
r1=$(bash "$here/vcluster.sh" net "$name" 1)

# default discovery: both rails, in subnet order, not the management network
out=$(rb -- -L transport -t lat -m 1:8 -i 200) || fail "default rails: $(cat "$tmp/err")"
echo "$out" | grep -q "^# rail 0: $r0 (rail0), striped$" || fail "rail 0 not found: $out"
echo "$out" | grep -q "^# rail 1: $r1 (rail1), striped$" || fail "rail 1 not found: $out"
echo "$out" | grep -q "$mgmt" && fail "the management network counted as a rail: $out"
[ "$(echo "$out" | grep -cE '^[0-9]+ [0-9.]+$')" = 4 ] || fail "default rails: expected 4 sizes: $out"

# rail connections use RAILMPI_TCP_CONGESTION (default cubic: bbr would empty
# the rails every 10 s); one the kernel refuses is reported, the run goes on
echo "$out" | grep -q "^# congestion control: cubic$" || fail "default congestion control: $out"
out=$(rb -genv RAILMPI_TCP_CONGESTION reno -- -L transport -t lat -m 1:1 -i 100) || fail "reno run"
echo "$out" | grep -q "^# congestion control: reno$" || fail "RAILMPI_TCP_CONGESTION=reno not followed: $out"
out=$(rb -genv RAILMPI_TCP_CONGESTION nosuch -- -L transport -t lat -m 1:1 -i 100) || fail "refused cc: $(cat "$tmp/err")"
grep -q "congestion control 'nosuch' (RAILMPI_TCP_CONGESTION) refused" "$tmp/err" || fail "refused cc not reported: $(cat "$tmp/err")"
echo "$out" | grep -qE '^1 [0-9.]+$' || fail "refused cc: no result: $out"

# the library's variable and -r choose the rails; -r wins
out=$(rb -genv RAILMPI_TCP_RAILS "$r1" -- -L transport -t lat -m 1:1 -i 100) || fail "RAILMPI_TCP_RAILS run"
echo "$out" | grep -q "^# rail 0: $r1 (rail1)$" || fail "RAILMPI_TCP_RAILS=$r1 not followed: $out"
out=$(rb -genv RAILMPI_TCP_RAILS "$r1" -- -L transport -r rail0 -t lat -m 1:1 -i 100) || fail "-r run"
echo "$out" | grep -q "^# rail 0: $r0 (rail0)$" || fail "-r rail0 not followed: $out"
rb -- -L transport -r "$rails" -R 2 -t lat -m 1:1 >/dev/null && fail "-R 2 accepted with 2 rails"
grep -q "unknown rail; ranks 0 and 1 share 2" "$tmp/err" || fail "-R 2: $(cat "$tmp/err")"

# -R 1: the bytes travel on rail 1 only (40 MiB one way, h1 -> h2)
a0=$(rx 2 0) a1=$(rx 2 1)
out=$(rb -- -L transport -r "$rails" -R 1 -t bw -m 1048576:1048576 -w 8 -i 4 -x 1) || fail "-R 1 bw: $(cat "$tmp/err")"
d0=$(($(rx 2 0) - a0)) d1=$(($(rx 2 1) - a1))
[ $d1 -gt 41943040 ] || fail "-R 1: only $d1 bytes arrived on rail 1"
[ $d0 -lt 4194304 ] || fail "-R 1: $d0 bytes arrived on rail 0"

# striped: every message is cut in two, each rail carries about half
a0=$(rx 2 0) a1=$(rx 2 1)
out=$(rb -- -L transport -r "$rails" -t bw -m 1048576:1048576 -w 8 -i 4 -x 1) || fail "striped bw: $(cat "$tmp/err")"
d0=$(($(rx 2 0) - a0)) d1=$(($(rx 2 1) - a1))
[ $d0 -gt 18874368 ] && [ $d1 -gt 18874368 ] || fail "striped: rail 0 got $d0 bytes, rail 1 $d1"
echo "$out" | grep -qE '^1048576 [0-9.]+$' || fail "striped bw output: $out"

# a rail shaped to 100 Mbit/s (12.5 MB/s) measures as such; the other does not
for h in 1 2; do bash "$here/vcluster.sh" rate "$name" $h 1 100mbit; done
bw() { rb -- -L transport -r "$rails" -R "$1" -t bw -m 262144:262144 -w 8 -i 3 -x 1 | awk '$1 == 262144 { print $2 }'; }
s0=$(bw 0) s1=$(bw 1)
awk -v a="$s0" -v b="$s1" 'BEGIN { exit !(b > 0 && b < 14 && a > 2 * b) }' ||
    fail "shaped rail 1: -R 0 gave ${s0:-nothing} MB/s, -R 1 ${s1:-nothing} MB/s (expected <14 and a faster rail 0)"

# per-iteration mode over the transport, and the MPI level on the same cluster
out=$(rb -- -L transport -r "$rails" -R 0 -T 0.5 -w 8 -m 1:65536) || fail "per-iteration run"
[ "$(echo "$out" | grep -cE '^[0-9]+\.[0-9]+ [0-9.]+$')" -gt 3 ] || fail "per-iteration output: $out"
out=$(rb -genv RAILMPI_TCP_RAILS "$r0" -- -L mpi -t lat -m 1:8 -i 200) || fail "MPI level: $(cat "$tmp/err")"
[ "$(echo "$out" | grep -cE '^[0-9]+ [0-9.]+$')" = 4 ] || fail "MPI level output: $out"
[ $fails = 0 ] && echo "OK: railbench transport level per rail and striped" || exit 1
