#!/bin/bash
# railbench runs each test and prints well-formed figures; bad options are refused.
set -u
build=$1
b="$build/bin/mpiexec -n 2 --timeout 60 $build/bin/railbench"
. "$(dirname "$0")/lib.sh"
out=$($b -t lat -m 0:64 -i 200) || fail "lat run"
[ "$(echo "$out" | grep -cE '^[0-9]+ [0-9.]+$')" = 8 ] || fail "lat: expected 8 sizes: $out"
out=$($b -t bw -m 1024:65536 -i 5 -w 8) || fail "bw run"
[ "$(echo "$out" | grep -cE '^[0-9]+ [0-9.]+$')" = 7 ] || fail "bw: expected 7 sizes: $out"
echo "$out" | awk '/^[0-9]/ && $2 <= 0 { exit 1 }' || fail "bw: a zero figure"
out=$($b -t bibw -m 65536:65536 -i 5) || fail "bibw run"
echo "$out" | grep -qE '^65536 [0-9.]+$' || fail "bibw output: $out"
out=$($b -T 1 -m 1:262144) || fail "per-iteration run"
n=$(echo "$out" | grep -cE '^[0-9]+\.[0-9]+ [0-9.]+$')
[ "$n" -gt 5 ] || fail "per-iteration mode printed $n lines"
$b -t nonsense >/dev/null 2>&1 && fail "a bad option was accepted"
[ $fails = 0 ] && echo "OK: railbench" || exit 1
