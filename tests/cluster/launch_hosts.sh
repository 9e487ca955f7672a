#!/bin/bash
# Multi-host launch on a virtual cluster (3 hosts as network namespaces, a
# management network, 2 data rails): MPI programs across hosts over TCP,
# a rank failing on a remote host ends the whole job with its code, and no
# process is left in any host when mpiexec is killed. Root only; torn down
# on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up l 3 2
hosts="${name}h1,${name}h2,${name}h3"
mx=("$build/bin/mpiexec" -hosts "$hosts" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_TCP_RAILS "$rails")
left_behind() {
    sleep 0.5
    for h in 1 2 3; do
        [ -z "$(ip netns pids "${name}h$h")" ] || { fail "processes left on host $h after $1"; ip netns pids "${name}h$h" | xargs -r kill -KILL; }
    done
}

for t in p2p_basic coll_basic comm_groups; do
    out=$(timeout 120 "${mx[@]}" -ppn 2 "$build/tests/mpi/mpi_$t" 2>&1)
    echo "$out" | grep -q "^OK" || fail "$t across 3 hosts: $(echo "$out" | tail -3)"
done
left_behind "normal runs"

"$build/bin/mpicc" -O1 "$here/../scripts/actor.c" -o "$tmp/actor" || fail "cannot build actor"
timeout 60 "${mx[@]}" -ppn 2 "$tmp/actor" exit 4 3 >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "remote rank exiting 3: mpiexec returned $rc ($(tail -3 "$tmp/out"))"
grep -q "rank 4 (pid [0-9]*) exited with code 3" "$tmp/out" || fail "no message naming rank 4: $(cat "$tmp/out")"
left_behind "a remote failure"

"${mx[@]}" -ppn 1 "$tmp/actor" sleep 33 >/dev/null 2>&1 &
pid=$!
sleep 2
{ kill -KILL $pid; wait $pid; } 2>/dev/null
sleep 1
left_behind "SIGKILL to mpiexec"

[ $fails = 0 ] && echo "OK: multi-host launch" || exit 1
