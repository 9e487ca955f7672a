#!/bin/bash
# Process fault tolerance across hosts (2 hosts x 2 rails, 2 ranks per host,
# RAILMPI_PROC_FT through mpiexec -disable-auto-cleanup): rank 3, on host 2,
# kills itself (SIGKILL) after a barrier. Its host's proxy reports the death,
# mpiexec passes it to the other host's proxy, and every survivor runs the
# checks of tests/scripts/ulfm_basic.c: ranks 0 and 1 reach the dead rank
# over the rails, rank 2 through shared memory. The dead rank's connections
# resetting is no partition: nothing waits for the partition timeout, and
# the job ends with exit 137 naming the rank. Then ulfm_shrink.c (agreement
# with ranks dying in it, the coordinator too, and shrink) across the two
# hosts. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster u 1gbit
for p in ulfm_basic ulfm_shrink; do
    "$fault_build/bin/mpicc" -O1 "$here/../scripts/$p.c" -o "$tmp/$p" || { echo "FAIL: cannot build $p.c"; exit 1; }
done
t0=$(now)
timeout -k 5 60 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 "$tmp/ulfm_basic" > "$tmp/ulfm.out" 2>&1
rc=$?
took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "job ended after $took s (exit $rc)"
[ $rc = 124 ] && fail "the job hung (killed by timeout after 60 s)"
grep "^FAIL" "$tmp/ulfm.out" && fail "a survivor's check failed"
grep -q "^OK ulfm_basic" "$tmp/ulfm.out" || fail "the survivors did not finish"
[ $rc = 137 ] || fail "mpiexec exited $rc, expected 137 (a rank killed by signal 9)"
grep -qE "rank 3 \(pid [0-9]+\) was killed by signal 9.*the job goes on" "$tmp/ulfm.out" ||
    fail "the proxy did not name the dead rank"
# the dead rank's connections may fail before the launcher's word comes (a
# rail event); no partition may time out and no operation end as unreachable
! grep -qE "partition-timeout|MPI_ERR.*unreachable" "$tmp/ulfm.out" || fail "a dead rank was reported as a partition"
awk -v t="$took" 'BEGIN { exit !(t <= 20) }' || fail "the run took $took s"
t0=$(now)
timeout -k 5 60 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 "$tmp/ulfm_shrink" > "$tmp/shrink.out" 2>&1
rc=$?
took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "agreement and shrink: job ended after $took s (exit $rc)"
[ $rc = 124 ] && fail "shrink: the job hung (killed by timeout after 60 s)"
grep "^FAIL" "$tmp/shrink.out" && fail "shrink: a survivor's check failed"
grep -q "^OK ulfm_shrink" "$tmp/shrink.out" || fail "shrink: the survivors did not finish"
[ $rc = 137 ] || fail "shrink: mpiexec exited $rc, expected 137"
! grep -qE "partition-timeout|MPI_ERR.*unreachable" "$tmp/shrink.out" || fail "shrink: a dead rank was reported as a partition"
[ $fails = 0 ] || { echo "--- output:"; grep -vE "^progress " "$tmp/ulfm.out" "$tmp/shrink.out" | tail -40; }
fault_result "a rank killed on another host: the survivors see ULFM's errors over the rails and finish"
