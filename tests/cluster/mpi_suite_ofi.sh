#!/bin/bash
# The whole MPI suite (tests/mpi) across two virtual hosts with the rails
# carried by libfabric (RAILMPI_NET=ofi, tcp;ofi_rxm on two rails): every
# program once, at 4 ranks (2 per host, so shared memory and ofi meet in one
# job) or, where its first line allows no 4, at 2 (one per host).
# RAILMPI_TEST_COUNTS=all runs it at 2 and 4 where allowed; RAILMPI_TEST_NET=tcp
# runs the same over the tcp transport, RAILMPI_TEST_OFI_PROVIDER=shm over
# libfabric's shm provider (tests/cluster/mpi_suite_ofi_shm.sh: the virtual
# hosts share this machine's memory, so shm reaches across them; one rail,
# its domain, with remote writes). Left out, because they check a
# one-host layout (and fail alike over tcp): misc_env (MPIX_Rail_migrate on
# one host), mpit (rail counters of a one-host job), topo_hosts
# (tests/scripts/topo_hosts.sh places its ranks), rma_shared and rma_nofree
# (MPI_Win_allocate_shared needs one host); and flood, whose memory bound is
# the tcp and shm transports' (ofi's registered bounce buffers, about 20 MiB
# per rail, are touched as traffic comes: see docs/transport-ofi.md); and
# coll_nb_progress, whose timing bound needs the computing rank's core to
# itself (tests/cluster/lib.sh, suite_runs).
# Odd rank counts are left out: mpiexec -n 3 over two hosts fails at start-up
# over any transport. Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
net=${RAILMPI_TEST_NET:-ofi}
prov=${RAILMPI_TEST_OFI_PROVIDER:-}
if [ "$net" != tcp ]; then
    command -v fi_info >/dev/null && fi_info -p "${prov:-tcp}" >/dev/null 2>&1 ||
        { echo "SKIP: no libfabric ${prov:-tcp} provider"; exit 77; }
fi
cluster_up s 2 2
ofi_rails=$rails
[ -n "$prov" ] && ofi_rails="" # the provider's own domains (shm: one)
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_NET "$net" -genv RAILMPI_OFI_PROVIDER "$prov" -genv RAILMPI_OFI_RAILS "$ofi_rails"
    -genv RAILMPI_TCP_RAILS "$rails" --timeout 100)
[ -n "$prov" ] && net="$net ($prov)"
# the provider really carries the job: its rail is reported
# (over shm, each rank first plants what a killed process with its process id
# leaves in /dev/shm, the provider's region "PID:0:0": it must not stop the start)
if [ "${net%% *}" = ofi ]; then
    plant=()
    [ "$prov" = shm ] && plant=(bash -c 'echo "$$" >> "$0/planted"; head -c 4096 /dev/zero > "/dev/shm/$$:0:0"; exec "$@"' "$tmp")
    timeout -k 5 60 "${mx[@]}" -genv RAILMPI_VERBOSE 2 -n 2 "${plant[@]}" "$build/tests/mpi/mpi_p2p_basic" > "$tmp/out" 2>&1
    grep -q "ofi: rail 0: provider ${prov:-tcp}" "$tmp/out" || fail "no ofi rail of provider ${prov:-tcp}: $(grep -m3 -E "ofi|ERR" "$tmp/out" | tr '\n' ' ')"
    if [ "$prov" = shm ]; then
        [ "$(grep -c "removed /[0-9]*:0:0, the shm provider's region of a dead process" "$tmp/out")" = 2 ] ||
            fail "a dead process's shm region stopped the start: $(grep -m3 -E "ofi: rail|ERR" "$tmp/out" | tr '\n' ' ')"
        while read -r p; do rm -f "/dev/shm/$p:0:0"; done < "$tmp/planted"
    fi
fi
runs=0 t0=$(date +%s)
while read -r t n; do
    runs=$((runs + 1))
    if ! timeout -k 5 110 "${mx[@]}" -n "$n" "$build/tests/mpi/mpi_$t" > "$tmp/out" 2>&1 < /dev/null; then
        fail "$t with $n ranks over $net across 2 hosts: $(grep -m6 -E "FAIL|ERR|Abort|signal|^railmpi" "$tmp/out" | tr '\n' ' ')"
    elif [ -n "${RM_TEST_VERBOSE:-}" ]; then
        echo "ok $t $n"
    fi
done < <(suite_runs "${RAILMPI_TEST_COUNTS:-}")
echo "$runs runs in $(( $(date +%s) - t0 )) s"
[ $runs -ge 24 ] || fail "only $runs programs ran"
[ $fails = 0 ] && echo "OK: the MPI suite across 2 hosts over $net"
exit $((fails > 0))
