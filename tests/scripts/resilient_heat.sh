#!/bin/bash
# examples/resilient_heat.c, the resilient solver of docs/ulfm.md, on 4
# ranks of one host: once without a fault, then with rank 2 killed (kill -9
# from here) after its first checkpoints. The survivors revoke, agree,
# shrink, restore the last checkpoint and finish; the answer is the same,
# bit for bit, as without the fault, the recovery is reported, mpiexec exits
# 137, and neither run hangs (timeout).
set -u
build=$1
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "the example is built with the plain mpicc wrapper"
tmp=$(mktemp -d)
job=
trap '[ -z "$job" ] || kill "$job" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
src=$(cd "$(dirname "$0")/../.." && pwd)/examples/resilient_heat.c
"$build/bin/mpicc" -O2 "$src" -o "$tmp/heat" || { echo "FAIL: cannot build resilient_heat.c"; exit 1; }
args=(65536 8000 250)
timeout 60 "$build/bin/mpiexec" -n 4 -disable-auto-cleanup "$tmp/heat" "${args[@]}" > "$tmp/clean.out" 2>&1
rc=$?
[ $rc = 0 ] || fail "the run without a fault exited $rc: $(tail -3 "$tmp/clean.out")"
want=$(sed -n 's/^result: \(.*\) (0 recoveries)$/\1/p' "$tmp/clean.out")
[ -n "$want" ] || fail "the run without a fault gave no result"
echo "without a fault: $want"

timeout 60 "$build/bin/mpiexec" -n 4 -disable-auto-cleanup "$tmp/heat" "${args[@]}" > "$tmp/fault.out" 2>&1 &
job=$!
for i in $(seq 600); do grep -q "^checkpoint at step" "$tmp/fault.out" && break; sleep 0.05; done
victim=$(awk '$1 == "rank" && $2 == 2 && $3 == "pid" { print $4 }' "$tmp/fault.out")
if [ -n "$victim" ] && grep -q "^checkpoint at step" "$tmp/fault.out" && ! grep -q "^result" "$tmp/fault.out"; then
    kill -KILL "$victim"
else
    fail "rank 2 was not found running mid-run"
fi
wait $job
rc=$?
job=
got=$(sed -n 's/^result: \(.*\) (1 recoveries)$/\1/p' "$tmp/fault.out")
echo "rank 2 killed:   $got (exit $rc)"
[ $rc = 124 ] && fail "the run with a fault hung (killed by timeout)"
[ $rc = 137 ] || fail "mpiexec exited $rc, expected 137"
grep -q "^recovered: 3 ranks go on from step" "$tmp/fault.out" || fail "no recovery reported: $(tail -3 "$tmp/fault.out")"
[ -n "$got" ] && [ "$got" = "$want" ] || fail "the answer after the fault ($got) is not the answer without it ($want)"
[ $fails = 0 ] && echo "OK: the resilient solver loses a rank and gives the same answer"
exit $((fails > 0))
