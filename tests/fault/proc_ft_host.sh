#!/bin/bash
# A whole host dies under a resilient program (2 hosts x 2 rails, 2 ranks per
# host, mpiexec -disable-auto-cleanup): once tests/cluster/ulfm_host.c's loop
# of allreduce + agreement runs, every process of host 2 (its proxy and both
# ranks) is killed. mpiexec reports the host's ranks dead to host 1, whose
# two ranks see the step fail, agree, revoke, shrink to 2 ranks and go on;
# the job ends with the host's death in its exit code (137), in bounded
# time, with no partition reported. First the same loop sees one rank of
# host 2 killed while host 1's NIC on rail 1 is down (failed over to rail 0
# beforehand): a process failure during a rail failure is still one, and the
# rail failure is none. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster w 1gbit
"$fault_build/bin/mpicc" -O1 "$here/ulfm_host.c" -o "$tmp/ulfm_host" || { echo "FAIL: cannot build ulfm_host.c"; exit 1; }
timeout -k 5 90 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 "$tmp/ulfm_host" > "$tmp/rail.out" 2>&1 &
job=$!
for i in $(seq 300); do grep -q "^ready" "$tmp/rail.out" && break; sleep 0.1; done
fault_apply nic
sleep 1 # the rail's failure is detected (RAILMPI_PATH_TIMEOUT_MS) and its traffic moved
victim=
for p in $(ip netns pids "${name}h2"); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = ulfm_host ] && { victim=$p; break; }
done
[ -n "$victim" ] || fail "no rank found on host 2"
[ -z "$victim" ] || kill -KILL "$victim"
wait $job
rc=$?
fault_clear nic
echo "one rank killed during a rail failure: exit $rc"
grep "^FAIL" "$tmp/rail.out" && fail "rail down: a survivor's check failed"
grep -q "^OK ulfm_host 3$" "$tmp/rail.out" || fail "rail down: the survivors did not finish as 3 ranks"
[ $rc = 137 ] || fail "rail down: mpiexec exited $rc, expected 137"
grep -qE "rail 1: failed" "$tmp/rail.out" || fail "rail down: no rail failure was seen (the fault was not real)"
[ "$(grep -cE "rank [0-9]+ has failed$" "$tmp/rail.out")" = 3 ] ||
    fail "rail down: not exactly one death reported to the 3 survivors"
! grep -qE "partition-timeout|MPI_ERR.*unreachable" "$tmp/rail.out" || fail "rail down: a partition was reported"

timeout -k 5 90 "${mx[@]}" -ppn 2 -disable-auto-cleanup -genv RAILMPI_VERBOSE 1 "$tmp/ulfm_host" > "$tmp/host.out" 2>&1 &
job=$!
for i in $(seq 300); do grep -q "^ready" "$tmp/host.out" && break; sleep 0.1; done
grep -q "^ready" "$tmp/host.out" || fail "the loop did not start"
killed_at=$(now)
kill -KILL $(ip netns pids "${name}h2") 2>/dev/null
wait $job
rc=$?
took=$(awk -v a="$killed_at" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
echo "job ended $took s after host 2 was killed (exit $rc)"
[ $rc = 124 ] && fail "the job hung (killed by timeout)"
grep "^FAIL" "$tmp/host.out" && fail "a survivor's check failed"
grep -q "^OK ulfm_host 2$" "$tmp/host.out" || fail "the survivors did not finish as 2 ranks"
[ "$(grep -c "shrunk to 2 ranks" "$tmp/host.out")" = 2 ] || fail "not both survivors shrank to 2 ranks"
[ $rc = 137 ] || fail "mpiexec exited $rc, expected 137 (a host killed by signal 9)"
grep -q "the proxy on host ${name}h2 (ranks 2-3) ended with signal 9" "$tmp/host.out" || fail "mpiexec did not name the dead host"
! grep -qE "partition-timeout|MPI_ERR.*unreachable" "$tmp/host.out" || fail "the dead host was reported as a partition"
awk -v t="$took" 'BEGIN { exit !(t <= 20) }' || fail "the survivors took $took s to finish"
[ $fails = 0 ] || { echo "--- output:"; grep -vE "^progress " "$tmp/rail.out" "$tmp/host.out" | tail -40; }
fault_result "a whole host killed: its ranks are reported dead, the survivors shrink and finish"
