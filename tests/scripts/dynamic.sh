#!/bin/bash
# Dynamic processes between two jobs started by two mpiexec on one host:
# connect/accept with traffic both ways and disconnect, the port found through
# mpiexec's name service, join over a TCP connection, MPI_ERR_PORT in bounded
# time for closed or unanswered ports, MPI_ERR_NAME / MPI_ERR_SERVICE.
set -u
build=$1
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
"$bin/mpicc" -O1 "$(dirname "$0")/dynamic.c" -o "$tmp/dyn" || { echo "FAIL: cannot build dynamic.c"; exit 1; }

mkdir "$tmp/names"
ns=(-nameserver "$tmp/names")
pair() { # NAME SERVER_N SERVER_MODE CLIENT_N CLIENT_MODE [ARG]
    rm -f "$tmp/port"
    local arg=${6:-$tmp/port}
    timeout 90 "$bin/mpiexec" "${ns[@]}" -n "$2" "$tmp/dyn" "$3" "$arg" >"$tmp/s.out" 2>&1 &
    local s=$!
    timeout 90 "$bin/mpiexec" "${ns[@]}" -n "$4" "$tmp/dyn" "$5" "$arg" >"$tmp/c.out" 2>&1
    local crc=$?
    wait $s
    local src=$?
    if [ $src != 0 ] || [ $crc != 0 ] || ! grep -q "$3 ok" "$tmp/s.out" || ! grep -q "$5 ok" "$tmp/c.out"; then
        fail "$1: server exit $src, client exit $crc"
        sed 's/^/  server: /' "$tmp/s.out"
        sed 's/^/  client: /' "$tmp/c.out"
    fi
}

pair "connect/accept 2+3 ranks" 2 server 3 client
pair "connect/accept 1+1 rank" 1 server 1 client
pair "publish/lookup, connect/accept 2+2" 2 pubserver 2 pubclient "railmpi test $$"
[ -z "$(ls "$tmp/names")" ] || fail "names left after unpublish: $(ls "$tmp/names")"
pair "join" 1 joinserver 1 joinclient

# MPI_Comm_spawn: 2 parents, 3 children in another directory; the parent's
# mpiexec ends after the children's
mkdir "$tmp/wdir"
out=$(timeout 90 "$bin/mpiexec" -genv DYN_MARK "from the parent" -n 2 "$tmp/dyn" spawn "$tmp/wdir" 2>&1)
echo "$out" | grep -q "^spawn ok" || fail "spawn: $out"
echo "$out" | grep -q "^child ok" || fail "spawn, the children: $out"
out=$(timeout 90 "$bin/mpiexec" -n 1 "$tmp/dyn" spawnmulti "$tmp/wdir" 2>&1)
echo "$out" | grep -q "^spawnmulti ok" || fail "spawn_multiple: $out"
echo "$out" | grep -q "^child2 ok" || fail "spawn_multiple, the children: $out"
out=$(timeout 60 "$bin/mpiexec" -n 2 "$tmp/dyn" spawnbad 2>&1)
echo "$out" | grep -q "^spawnbad ok" || fail "spawn of a missing program: $out"
sleep 0.3
pgrep -f "railmpi-program" >/dev/null && fail "processes left by a failed spawn"

# MPI_UNIVERSE_SIZE: mpiexec -usize, else the job's size; under Hydra too
for u in "2 7" "3 3"; do
    set -- $u
    extra=(); [ "$1" != "$2" ] && extra=(-usize "$2")
    out=$(timeout 60 "$bin/mpiexec" "${extra[@]}" -n "$1" "$tmp/dyn" usize "$2" 2>&1)
    echo "$out" | grep -q "^usize ok" || fail "MPI_UNIVERSE_SIZE with -n $1 ${extra[*]}: $out"
done
if command -v mpiexec.hydra >/dev/null; then
    out=$(timeout 60 mpiexec.hydra -usize 5 -n 2 "$tmp/dyn" usize 5 2>&1)
    echo "$out" | grep -q "^usize ok" || fail "MPI_UNIVERSE_SIZE under Hydra -usize 5: $out"
fi
out=$(timeout 10 "$bin/mpiexec" -usize 0 -n 1 true 2>&1) && fail "-usize 0 accepted"
echo "$out" | grep -q "usize needs a positive number" || fail "-usize 0: $out"

start=$(date +%s)
timeout 60 "$bin/mpiexec" "${ns[@]}" -n 1 "$tmp/dyn" closed "left$$" >"$tmp/x.out" 2>&1 || fail "closed ports: $(cat "$tmp/x.out")"
grep -q "closed ok" "$tmp/x.out" || fail "closed ports: $(cat "$tmp/x.out")"
[ $(( $(date +%s) - start )) -lt 30 ] || fail "closed ports took too long"
[ -z "$(ls "$tmp/names")" ] || fail "a name outlived its job: $(ls "$tmp/names")"

[ $fails = 0 ] || exit 1
echo "OK: dynamic processes"
