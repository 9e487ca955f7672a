#!/bin/bash
# examples/resilient_heat.c across the virtual cluster (2 hosts x 2 rails,
# 2 ranks per host, mpiexec -disable-auto-cleanup): once without a fault,
# then with rank 2 (the first rank of host 2, whose halo neighbours are rank
# 1 across the rails and rank 3 on its host) killed with kill -9 mid-run.
# The survivors revoke, agree, shrink, restore the last in-memory checkpoint
# and finish with the same answer, bit for bit; no partition is reported,
# mpiexec exits 137, nothing hangs. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster v 1gbit
"$fault_build/bin/mpicc" -O2 "$here/../../examples/resilient_heat.c" -o "$tmp/heat" ||
    { echo "FAIL: cannot build resilient_heat.c"; exit 1; }
args=(65536 6000 250)
timeout -k 5 90 "${mx[@]}" -ppn 2 -disable-auto-cleanup "$tmp/heat" "${args[@]}" > "$tmp/clean.out" 2>&1
rc=$?
[ $rc = 0 ] || fail "the run without a fault exited $rc: $(tail -3 "$tmp/clean.out")"
want=$(sed -n 's/^result: \(.*\) (0 recoveries)$/\1/p' "$tmp/clean.out")
echo "without a fault: $want"
timeout -k 5 90 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 "$tmp/heat" "${args[@]}" \
    > "$tmp/fault.out" 2>&1 &
job=$!
for i in $(seq 600); do grep -q "^checkpoint at step" "$tmp/fault.out" && break; sleep 0.05; done
victim=$(awk '$1 == "rank" && $2 == 2 && $3 == "pid" { print $4 }' "$tmp/fault.out")
# the pid is the rank's in host 2's namespace, which shares ours (ip netns)
if [ -n "$victim" ] && grep -q "^checkpoint at step" "$tmp/fault.out" && ! grep -q "^result" "$tmp/fault.out"; then
    kill -KILL "$victim"
else
    fail "rank 2 was not found running mid-run"
fi
wait $job
rc=$?
got=$(sed -n 's/^result: \(.*\) (1 recoveries)$/\1/p' "$tmp/fault.out")
echo "rank 2 killed:   $got (exit $rc)"
[ $rc = 124 ] && fail "the run with a fault hung (killed by timeout)"
[ $rc = 137 ] || fail "mpiexec exited $rc, expected 137"
grep -q "^recovered: 3 ranks go on from step" "$tmp/fault.out" || fail "no recovery reported"
[ -n "$got" ] && [ "$got" = "$want" ] || fail "the answer after the fault ($got) is not the answer without it ($want)"
! grep -qE "partition-timeout|MPI_ERR.*unreachable" "$tmp/fault.out" || fail "the dead rank was reported as a partition"
[ $fails = 0 ] || { echo "--- output:"; grep -vE " rail event " "$tmp/fault.out" | tail -20; }
fault_result "the resilient solver loses a rank on another host and gives the same answer"
