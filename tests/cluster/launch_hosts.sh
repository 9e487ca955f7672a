#!/bin/bash
# Multi-host launch on a virtual cluster (3 hosts as network namespaces, a
# management network, 2 data rails): MPI programs across hosts over TCP,
# a rank failing on a remote host ends the whole job with its code, the
# program's arguments and environment reach remote ranks byte for byte, and
# no process is left in any host when mpiexec is killed. Root only; torn down
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

# What no quoting gets through both ssh and `ip netns exec` reaches remote
# ranks byte for byte: odd arguments, -genv values, the exported environment
# (under a launcher that, like ssh, starts the proxy with an environment of
# its own: here none at all), and the directory mpiexec runs in.
count() { grep -cFx -- "$1" "$tmp/out"; }
odd=("two words" "it's" 'say "hi"' "" "%41 \\ \$HOME *" "-n" "a  'b' \"c\"")
(cd "$tmp" && timeout 60 "${mx[@]}" -ppn 1 "$tmp/actor" args "${odd[@]}" >"$tmp/out" 2>&1)
rc=$?
[ "$rc" = 0 ] || fail "argument job: mpiexec returned $rc ($(tail -3 "$tmp/out"))"
for a in "${odd[@]}"; do
    [ "$(count "[$a]")" = 3 ] || fail "argument [$a] did not reach all 3 ranks: $(cat "$tmp/out")"
done
[ "$(count "cwd=$tmp")" = 3 ] || fail "remote ranks did not start in mpiexec's directory: $(grep cwd= "$tmp/out")"
RM_TEST_EXPORTED="exported value" RM_TEST_BOTH=exported timeout 60 "${mx[@]}" -ppn 1 \
    -launcher-exec "env -i $(command -v ip) netns exec" \
    -genv RM_TEST_SPACE "a b  c" -genv RM_TEST_EMPTY "" -genv RM_TEST_QUOTES "it's \"q\"" \
    -genv RM_TEST_BOTH genv -genv RAILMPI_HOST_ID bogus "$tmp/actor" env RM_TEST_SPACE RM_TEST_EMPTY \
    RM_TEST_QUOTES RM_TEST_EXPORTED RM_TEST_BOTH RAILMPI_HOST_ID >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "environment job: mpiexec returned $rc ($(tail -3 "$tmp/out"))"
for v in "RM_TEST_SPACE=a b  c" "RM_TEST_EMPTY=" "RM_TEST_QUOTES=it's \"q\"" \
         "RM_TEST_EXPORTED=exported value" "RM_TEST_BOTH=genv"; do
    [ "$(count "$v")" = 3 ] || fail "$v did not reach all 3 ranks: $(cat "$tmp/out")"
done
for h in 1 2 3; do # what the proxy tells a rank about itself wins over -genv
    [ "$(count "RAILMPI_HOST_ID=${name}h$h")" = 1 ] || fail "host id on host $h: $(grep HOST_ID "$tmp/out")"
done
# -genvnone: not even what the proxy inherits from the launcher
RM_TEST_EXPORTED="exported value" timeout 60 "${mx[@]}" -ppn 1 -genvnone -genv RM_TEST_EMPTY "" \
    "$tmp/actor" env RM_TEST_EXPORTED RM_TEST_EMPTY >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "-genvnone job: mpiexec returned $rc ($(tail -3 "$tmp/out"))"
[ "$(count "RM_TEST_EXPORTED=(unset)")" = 3 ] && [ "$(count "RM_TEST_EMPTY=")" = 3 ] ||
    fail "-genvnone: $(cat "$tmp/out")"
left_behind "the argument and environment jobs"

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
