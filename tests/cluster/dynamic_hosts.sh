#!/bin/bash
# Dynamic processes across two virtual hosts (2 data rails over TCP): two
# jobs, each with ranks on both hosts, meet through a port name (a file) and
# through mpiexec's name service, exchange traffic both ways over the rails
# and disconnect; a job on both hosts spawns onto either host, and a spawn of
# a missing program onto the other host fails cleanly. Root only; torn down
# on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up d 2 2
"$build/bin/mpicc" -O1 "$here/../scripts/dynamic.c" -o "$tmp/dyn" || { echo "FAIL: cannot build dynamic.c"; exit 1; }
mx() { # HOSTS N ARGS...
    local hosts=$1 n=$2
    shift 2
    timeout 120 "$build/bin/mpiexec" -hosts "$hosts" -launcher-exec "ip netns exec" -iface "${name}mbr" \
        -genv RAILMPI_TCP_RAILS "$rails" -n "$n" "$tmp/dyn" "$@"
}
pair() { # NAME SERVER_MODE CLIENT_MODE ARG
    rm -f "$tmp/port"
    mx "${name}h1,${name}h2" 2 "$2" "$4" >"$tmp/s.out" 2>&1 &
    local s=$!
    mx "${name}h2,${name}h1" 3 "$3" "$4" >"$tmp/c.out" 2>&1
    local crc=$?
    wait $s
    local src=$?
    if [ $src != 0 ] || [ $crc != 0 ] || ! grep -q "$2 ok" "$tmp/s.out" || ! grep -q "$3 ok" "$tmp/c.out"; then
        fail "$1: server exit $src, client exit $crc"
        sed 's/^/  server: /' "$tmp/s.out" | tail -20
        sed 's/^/  client: /' "$tmp/c.out" | tail -20
    fi
}
pair "connect/accept, 2+3 ranks on 2 hosts" server client "$tmp/port"
pair "publish/lookup, 2+3 ranks on 2 hosts" pubserver pubclient "railmpi hosts $$"
# a job on both hosts spawns 3 processes from rank 0's host, then onto the
# other host (info key host; the children check where they run), both ways
mkdir "$tmp/wdir"
out=$(mx "${name}h1,${name}h2" 2 spawn "$tmp/wdir" 2>&1)
echo "$out" | grep -q "^spawn ok" && echo "$out" | grep -q "^child ok" || fail "spawn from a 2-host job: $(echo "$out" | tail -20)"
for order in "h1 h2" "h2 h1"; do
    set -- $order
    out=$(mx "${name}$1,${name}$2" 2 spawn "$tmp/wdir" "${name}$2" 2>&1)
    echo "$out" | grep -q "^spawn ok" && [ "$(echo "$out" | grep -c "^child ok")" = 1 ] ||
        fail "spawn from a 2-host job (rank 0 on $1) onto $2: $(echo "$out" | tail -20)"
done
# a one-rank job whose second host is idle spawns onto that host
out=$(mx "${name}h1,${name}h2" 1 spawn "$tmp/wdir" "${name}h2" 2>&1)
echo "$out" | grep -q "^spawn ok" && echo "$out" | grep -q "^child ok" ||
    fail "spawn from a 1-rank job onto its idle second host: $(echo "$out" | tail -20)"
# both commands of a spawn_multiple onto the other host: one MPI_COMM_WORLD,
# each rank running its command (MPI_APPNUM) in its wdir
out=$(mx "${name}h1,${name}h2" 2 spawnmulti "$tmp/wdir" "${name}h2" 2>&1)
echo "$out" | grep -q "^spawnmulti ok" && echo "$out" | grep -q "^child2 ok" ||
    fail "spawn_multiple from a 2-host job onto h2: $(echo "$out" | tail -20)"
# children on the other host keep their traffic with the parents going
# while that host's NIC on rail 0 is down (the same failover as any job)
RAILMPI_VERBOSE=1 mx "${name}h1,${name}h2" 2 spawnft "$tmp/wdir" "${name}h2" >"$tmp/ft.out" 2>&1 &
ft=$!
for _ in $(seq 300); do grep -q "^streaming" "$tmp/ft.out" && break; sleep 0.1; done
if grep -q "^streaming" "$tmp/ft.out"; then
    bash "$here/vcluster.sh" nic-down "$name" 2 0
    sleep 2
    bash "$here/vcluster.sh" nic-up "$name" 2 0
fi
wait $ft
grep -q "^spawnft ok" "$tmp/ft.out" && grep -q "^childft ok" "$tmp/ft.out" ||
    fail "parents and children across hosts with rail 0 failed: $(tail -20 "$tmp/ft.out")"
# the parents' rank 0 knows the first child as process 2 (past its world of 2)
for ev in failed up; do
    grep -qE "^railmpi\[0\]: rail event [0-9.]+ peer 2 rail 0: $ev" "$tmp/ft.out" ||
        fail "the parent saw no '$ev' event for its child's path on rail 0: $(grep 'peer 2' "$tmp/ft.out" | head -5)"
done
# a program that does not exist, asked for on the other host: MPI_ERR_SPAWN,
# errcodes set, and nothing left running
out=$(mx "${name}h1,${name}h2" 2 spawnbad "${name}h2" 2>&1)
echo "$out" | grep -q "^spawnbad ok" || fail "spawn of a missing program onto the other host: $(echo "$out" | tail -20)"
sleep 0.5
left=$(pgrep -af "$tmp/dyn|railmpi-program" | grep -v pgrep)
[ -z "$left" ] || fail "processes left after the failed spawns: $left"
[ $fails = 0 ] || exit 1
echo "OK: dynamic processes across 2 hosts"
