#!/bin/bash
# Flow control across hosts: tests/mpi/flood.c on two virtual hosts over two
# rails, two ranks per host, so rank 0 is flooded by one rank over shared
# memory and two over TCP while it posts no receive. Its peak RSS must stay
# within the senders' RAILMPI_PEER_BUFFER (1 MiB each here) plus slack, and
# every message must arrive intact and in order. Then a blocking stream of
# 256 KiB messages (stream_credit.c, same 1 MiB buffer): each send must go
# with its whole rendezvous window (MPI_T proto_rndv_short_windows) at most
# one time in 20, waiting for the credit earlier messages give back, where
# without that wait (RAILMPI_RNDV_CREDIT_WAIT_US=0) about one in four waits
# for the receiver's answer instead. Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up f 2 2
out=$(timeout 150 "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -ppn 2 -launcher-exec "ip netns exec" \
    -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_PEER_BUFFER 1m \
    "$build/tests/mpi/mpi_flood" 20000 40 2 2>&1)
rc=$?
echo "$out" | tail -5
if [ $rc != 0 ] || ! echo "$out" | grep -q "^OK"; then
    # what the ranks said besides the startup lines: rail events, errors
    echo "$out" | grep -v "host monitor:" | grep -E "^railmpi|^flood|FAIL" | tail -40
    echo "FAIL: flood across hosts (rc $rc)"; exit 1
fi
echo "OK: flood across hosts"

"$build/bin/mpicc" -O2 "$here/stream_credit.c" -o "$tmp/stream_credit" || { echo "FAIL: cannot build stream_credit"; exit 1; }
short() { # WAIT_US: prints the short windows of 200 sends
    timeout 60 "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" \
        -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_PEER_BUFFER 1m \
        -genv RAILMPI_RNDV_CREDIT_WAIT_US "$1" "$tmp/stream_credit" 262144 200 2>&1 | tee "$tmp/sc.out" |
        awk '$1 == "short" && $3 == "of" { print $2 }'
}
with=$(short 20000)
without=$(short 0)
echo "short windows: $with of 200 with the credit wait, $without without"
[ -n "$with" ] && [ "$with" -le 10 ] || { echo "FAIL: blocking stream: $with of 200 short windows"; tail -5 "$tmp/sc.out"; exit 1; }
[ -n "$without" ] && [ "$without" -gt 10 ] ||
    echo "note: without the wait only $without short windows (the receiver kept up; nothing to compare)"
echo "OK: blocking stream keeps its windows"
