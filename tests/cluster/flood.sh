#!/bin/bash
# Flow control across hosts: tests/mpi/flood.c on two virtual hosts over two
# rails, two ranks per host, so rank 0 is flooded by one rank over shared
# memory and two over TCP while it posts no receive. Its peak RSS must stay
# within the senders' RAILMPI_PEER_BUFFER (1 MiB each here) plus slack, and
# every message must arrive intact and in order. Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up f 2 2
out=$(timeout 150 "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -ppn 2 -launcher-exec "ip netns exec" \
    -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_PEER_BUFFER 1m \
    "$build/tests/mpi/mpi_flood" 20000 40 2 2>&1)
rc=$?
echo "$out" | tail -5
[ $rc = 0 ] && echo "$out" | grep -q "^OK" || { echo "FAIL: flood across hosts (rc $rc)"; exit 1; }
echo "OK: flood across hosts"
