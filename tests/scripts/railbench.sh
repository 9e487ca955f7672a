#!/bin/bash
# railbench runs each test at both levels (and latency at the two
# alternating in one job) and prints well-formed figures;
# bad options are refused with a message. The transport level runs over
# loopback here (named with -r); tests/cluster/railbench_rails.sh checks it
# between virtual hosts, per rail and striped.
set -u
build=$1
b="$build/bin/mpiexec -n 2 --timeout 60 $build/bin/railbench"
. "$(dirname "$0")/lib.sh"
lines() { echo "$1" | grep -cE '^[0-9]+ [0-9.]+$'; }
positive() { echo "$1" | awk '/^[0-9]/ && $2 <= 0 { exit 1 }'; }
for level in mpi "transport -r lo"; do
    out=$($b -L $level -t lat -m 0:64 -i 200) || fail "$level lat run"
    [ "$(lines "$out")" = 8 ] || fail "$level lat: expected 8 sizes: $out"
    positive "$out" || fail "$level lat: a zero figure: $out"
    out=$($b -L $level -t bw -m 1024:65536 -i 5 -w 8) || fail "$level bw run"
    [ "$(lines "$out")" = 7 ] || fail "$level bw: expected 7 sizes: $out"
    positive "$out" || fail "$level bw: a zero figure: $out"
    out=$($b -L $level -t bibw -m 65536:65536 -i 5) || fail "$level bibw run"
    echo "$out" | grep -qE '^65536 [0-9.]+$' || fail "$level bibw output: $out"
    out=$($b -L $level -T 1 -w 8 -m 1:65536) || fail "$level per-iteration run"
    n=$(echo "$out" | grep -cE '^[0-9]+\.[0-9]+ [0-9.]+$')
    [ "$n" -gt 5 ] || fail "$level per-iteration mode printed $n lines"
    [ "$n" = "$(echo "$out" | wc -l)" ] || fail "$level per-iteration mode printed other lines: $out"
done
# message rate: one figure per size, from one pair and from two (4 ranks:
# 0-1 and 2-3; the sum is more than either pair could show alone only on an
# idle machine, so only well-formedness is checked); a third rank sits out
b4="$build/bin/mpiexec -n 4 --timeout 60 $build/bin/railbench"
b3="$build/bin/mpiexec -n 3 --timeout 60 $build/bin/railbench"
for run in "$b" "$b4" "$b3"; do
    out=$($run -t rate -m 1:4096 -i 20 -w 16) || fail "rate run ($run)"
    [ "$(lines "$out")" = 13 ] || fail "rate: expected 13 sizes: $out"
    positive "$out" || fail "rate: a zero figure: $out"
    echo "$out" | grep -q '^# railbench message rate, MPI level, window 16' || fail "rate: no header: $out"
done
# the transport level names its rail and level, and 1-byte latency over
# loopback is sane (well under 10 ms even on a loaded machine)
out=$($b -L transport -r 127.0.0.0/8 -R 0 -t lat -m 1:1 -i 500)
echo "$out" | grep -q '^# rail 0: 127.0.0.0/8 (lo)$' || fail "transport: no rail line: $out"
echo "$out" | grep -q 'transport level' || fail "transport: level not named: $out"
echo "$out" | awk '$1 == 1 { found = 1; if ($2 > 10000) exit 1 } END { exit !found }' ||
    fail "transport: 1-byte latency missing or absurd: $out"
# both levels in one job, alternating: a transport and an MPI figure per size
out=$($b -L both -r lo -t lat -m 0:64 -i 200) || fail "both-levels lat run"
[ "$(echo "$out" | grep -cE '^[0-9]+ [0-9.]+ [0-9.]+$')" = 8 ] || fail "both levels: expected 8 sizes: $out"
echo "$out" | awk '/^[0-9]/ && ($2 <= 0 || $3 <= 0) { exit 1 }' || fail "both levels: a zero figure: $out"
echo "$out" | grep -q '^# size transport_usec mpi_usec$' || fail "both levels: no column line: $out"
refused() { # expected-message args...
    local msg=$1 err
    shift
    if err=$($b "$@" 2>&1 >/dev/null); then
        fail "accepted: $*"
    elif ! echo "$err" | grep -q -- "$msg"; then
        fail "'$*' refused without '$msg': $err"
    fi
}
# verified per-iteration mode with wall-clock stamps
out=$($b -T 1 -a -c -w 4 -m 1:300000) || fail "verified per-iteration run"
echo "$out" | grep -qE '^# verified [1-9][0-9]* messages of 300000 bytes intact and in place, 0 bad$' ||
    fail "verified mode: no verdict: $out"
now=$(date +%s)
echo "$out" | awk -v now="$now" '/^[0-9]/ { if ($1 < now - 120 || $1 > now + 5) exit 1; n++ } END { exit !n }' ||
    fail "-a: timestamps are not Unix time: $out"
refused usage -t nonsense
refused "go with -T" -a
refused "verifies MPI-level" -L transport -r lo -T 1 -c
refused usage -L nonsense
refused "unknown rail" -L transport -r lo -R 1
refused "expected a rail index" -L transport -r lo -R x
refused "neither a CIDR subnet" -L transport -r 198.18.0.0/99
refused "share no rail" -L transport -r 198.18.254.0/24
refused "at the transport level" -R 0
refused "unexpected argument" -t lat extra
refused "at the MPI level, without -T" -t rate -T 1
refused "at the MPI level, without -T" -L transport -r lo -t rate
refused "measures latency" -L both -r lo -t bw
refused "measures latency" -L both -r lo -t lat -T 1
[ $fails = 0 ] && echo "OK: railbench" || exit 1
