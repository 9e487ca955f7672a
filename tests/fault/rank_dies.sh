#!/bin/bash
# A rank that dies is a dead process, not a network fault: 4 s into a 30 s
# stress run (2 hosts x 2 rails, 2 ranks per host) one rank on host 2 is
# killed (SIGKILL). mpiexec must end the job within 5 s, exit 137 and name
# the rank and the signal. The survivors see the dead rank's connections
# reset and may log them (even as a partition, for the moment before mpiexec
# ends them), but the job must not wait on it as a partition nor end with an
# "unreachable" error. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster k 1gbit
stress_start 30
sleep 4
victim=
for p in $(ip netns pids "${name}h2"); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = stress ] && { victim=$p; break; }
done
[ -n "$victim" ] || fail "no stress rank found on host 2"
killed_at=$(now)
[ -z "$victim" ] || kill -KILL "$victim"
stress_wait
took=$(awk -v a="$stress_t1" -v b="$killed_at" 'BEGIN { printf "%.1f", a - b }')
echo "job ended $took s after the kill (exit $stress_rc)"
[ "$stress_rc" = 137 ] || fail "mpiexec exited with $stress_rc, expected 137 (a rank killed by signal 9)"
awk -v t="$took" 'BEGIN { exit !(t <= 5) }' || fail "the job ended $took s after the kill (at most 5 s)"
grep -qE "rank [0-9]+ \(pid $victim\) was killed by signal 9" "$tmp/stress.out" ||
    fail "mpiexec did not name the dead rank: $(grep mpiexec "$tmp/stress.out" | head -3)"
! grep -qE "partition-timeout|unreachable" "$tmp/stress.out" || fail "a dead rank was reported as a partition"
fault_result "a rank killed mid-run: mpiexec names it and ends the job at once, no partition"
