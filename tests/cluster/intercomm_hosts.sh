#!/bin/bash
# Intercommunicators across two virtual hosts (2 data rails over TCP): the
# intercommunicator tests with groups that span both hosts and groups that
# sit on one host each, even and odd rank counts. Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up i 2 2
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec"
    -iface "${name}mbr" -genv RAILMPI_TCP_RAILS "$rails")
for t in intercomm_basic intercomm_coll; do
    for n in 3 4 5; do
        out=$(timeout 120 "${mx[@]}" -n $n "$build/tests/mpi/mpi_$t" 2>&1)
        echo "$out" | grep -q "^$t OK" || fail "$t, $n ranks on 2 hosts: $(echo "$out" | tail -3)"
    done
done
[ $fails = 0 ] || exit 1
echo "OK: intercommunicators across 2 hosts"
