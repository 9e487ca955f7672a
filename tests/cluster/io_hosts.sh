#!/bin/bash
# MPI-IO across two virtual hosts that share a file system (the namespaces
# share the root file system; the files live in a directory of this test's
# scratch space): every family of the io_* tests (open and access modes,
# error classes, views and representations, explicit offsets, individual
# and shared file pointers, ordered, nonblocking and split-collective forms,
# atomic mode, collective buffering, a write past the end of the room,
# nonblocking accesses that overlap a lock and point-to-point traffic) with
# 4 ranks, 2 per host, so that the default of one aggregator per host gives
# two aggregators on distinct hosts (io_file checks cb_nodes is 2); then
# 3 ranks (2 + 1) and 2 ranks (1 + 1). Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up f 2 2
fs=$tmp/shared
mkdir -p "$fs"
run() { # ranks ppn test
    local n=$1 ppn=$2 t=$3
    out=$(timeout 100 "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" \
        -iface "${name}mbr" -genv RAILMPI_TCP_RAILS "$rails" -genv RM_TEST_IODIR "$fs" -ppn "$ppn" \
        -n "$n" "$build/tests/mpi/mpi_$t" 2>&1)
    [ -n "${RM_TEST_VERBOSE:-}" ] && echo "$out"
    echo "$out" | grep -q "^OK $t" || fail "$t, $n ranks on 2 hosts ($ppn per host): $(echo "$out" | tail -3)"
}
for t in io_file io_access io_view io_coll io_nonblock; do
    run 4 2 $t
done
run 3 2 io_coll
run 3 2 io_access
run 2 1 io_nospace
run 2 1 io_view
run 2 1 io_nonblock
# every test removed its directory: nothing is left in the shared one
left=$(ls -A "$fs")
[ -z "$left" ] || fail "files left in the shared directory: $left"
[ $fails = 0 ] && echo "OK: MPI-IO across 2 hosts"
exit $((fails > 0))
