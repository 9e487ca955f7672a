#!/bin/bash
# The railmpi://host process set names the ranks of this rank's host: the
# sessions-only program tests/mpi/session_world.c, with its ranks told they
# sit round-robin on two virtual hosts (RAILMPI_HOST_ID), builds a per-host
# communicator from it holding exactly the ranks of its host (the program
# checks the members against every rank's host name) and says how many.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
prog=$build/tests/mpi/mpi_session_world
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
for n in 4 5; do
    out=$(timeout 100 "$build/bin/mpiexec" -n $n --timeout 90 \
        bash -c 'RAILMPI_HOST_ID=vhost$((PMI_RANK % 2)) exec "$0"' "$prog" 2>&1) ||
        fail "$n ranks on two hosts: $(echo "$out" | tail -5)"
    want="host: $(((n + 1) / 2)) of $n ranks"
    echo "$out" | grep -qx "$want" || fail "$n ranks: expected '$want': $(echo "$out" | grep -v 'rail event' | tail -3)"
    echo "$out" | grep -qx "OK" || fail "$n ranks: no OK: $(echo "$out" | tail -3)"
done
[ $fails = 0 ] && echo "OK: per-host communicators from railmpi://host on two virtual hosts" || exit 1
