#!/bin/bash
# A partition past RAILMPI_PARTITION_TIMEOUT_S (2 s here) under process
# fault tolerance (2 hosts x 2 rails, 2 ranks per host, mpiexec
# -disable-auto-cleanup): once tests/cluster/ulfm_host.c's loop runs, both
# rails' switches go down for good (the management network, mpiexec's, stays
# up). At the timeout the ranks tell their proxy, and mpiexec, the arbiter,
# declares the host named in the first report dead: it kills that host's
# proxy and ranks and lists them dead on the other host, whose two ranks
# shrink and finish. Which host survives depends on whose report came first.
# The job ends with exit 137, within bounded time, and no rank fails with
# "unreachable". Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster x 1gbit
"$fault_build/bin/mpicc" -O1 "$here/ulfm_host.c" -o "$tmp/ulfm_host" || { echo "FAIL: cannot build ulfm_host.c"; exit 1; }
timeout -k 5 90 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 -genv RAILMPI_PARTITION_TIMEOUT_S 2 \
    "$tmp/ulfm_host" > "$tmp/part.out" 2>&1 &
job=$!
for i in $(seq 300); do grep -q "^ready" "$tmp/part.out" && break; sleep 0.1; done
grep -q "^ready" "$tmp/part.out" || fail "the loop did not start"
t0=$(now)
fault_apply partition
wait $job
rc=$?
took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
fault_clear partition
echo "job ended $took s after the partition (exit $rc)"
[ $rc = 124 ] && fail "the job hung (killed by timeout)"
grep "^FAIL" "$tmp/part.out" && fail "a survivor's check failed"
grep -q "^OK ulfm_host 2$" "$tmp/part.out" || fail "the survivors did not finish as 2 ranks"
[ $rc = 137 ] || fail "mpiexec exited $rc, expected 137 (the host declared dead, killed)"
grep -qE "unreachable past the partition timeout: host ${name}h[12] counts as dead" "$tmp/part.out" ||
    fail "mpiexec did not declare a host dead"
! grep -qE "MPI_ERR.*unreachable|its pending operations fail with MPI_ERR_OTHER" "$tmp/part.out" ||
    fail "an operation failed as unreachable instead of as a dead process"
awk -v t="$took" 'BEGIN { exit !(t <= 20) }' || fail "the survivors took $took s to finish"
[ $fails = 0 ] || { echo "--- output:"; grep -vE "^progress | rail event .*(suspect|probes)" "$tmp/part.out" | tail -30; }
fault_result "a partition past the timeout: one host declared dead by mpiexec, the other shrinks and finishes"
