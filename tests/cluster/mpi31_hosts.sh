#!/bin/bash
# The programs of the MPI-3.1 families of topologies, intercommunicators,
# communicator creation, dynamic processes (within one job) and datatypes
# at 6 and 8 ranks on three virtual hosts (2 data rails over TCP; 2 or 3
# ranks a host, so shared memory and the rails meet in one job), and the
# intercommunicator ones at 5 ranks on two hosts (groups of unequal size
# across the hosts). Root only; torn down on exit. About 30 s.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
cluster_up m 3 2
mx() { # HOSTS N PROGRAM
    timeout -k 5 100 "$build/bin/mpiexec" -hosts "$1" -launcher-exec "ip netns exec" -iface "${name}mbr" \
        -genv RAILMPI_TCP_RAILS "$rails" --timeout 90 -n "$2" "$build/tests/mpi/mpi_$3"
}
three="${name}h1,${name}h2,${name}h3" two="${name}h1,${name}h2"
runs=0 t0=$(date +%s)
run() { # HOSTS N PROGRAM
    runs=$((runs + 1))
    if ! mx "$@" >"$tmp/out" 2>&1 || grep -q "FAIL" "$tmp/out"; then
        fail "$3 with $2 ranks on $(echo "$1" | tr ',' ' ' | wc -w) hosts: $(grep -m3 -E "FAIL|ERR|Abort|signal|mpiexec" "$tmp/out" | tr '\n' ' ')"
    fi
}
for t in topo_cart topo_graph intercomm_basic intercomm_coll intercomm_idup comm_nb dyn_world dtype_darray \
    dtype_subarray dtype_derived; do
    for n in 6 8; do
        run "$three" $n $t
    done
done
for n in 6 8; do
    run "$three" $n coll_nb_inter
done
for t in intercomm_idup intercomm_coll; do
    run "$two" 5 $t
done
echo "$runs runs in $(( $(date +%s) - t0 )) s"
[ $fails = 0 ] || exit 1
echo "OK: the MPI-3.1 families at 5 to 8 ranks on 2 and 3 hosts"
