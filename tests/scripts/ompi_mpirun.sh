#!/bin/bash
# railmpi programs under Open MPI's mpirun, a PMIx server other than Slurm
# (src/boot/pmix.c): the MPI test programs with 2 ranks and 4, every rank one
# of the job as PMIx numbered it, MPI_Abort's code as mpirun's exit status,
# and MPI_Comm_spawn(_multiple) through PMIx_Spawn. Skipped when Open MPI is
# not installed.
set -u
build=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
mpirun=$(command -v mpirun.openmpi) || { echo "SKIP: mpirun.openmpi missing (scripts/deps.sh installs openmpi-bin)"; exit 77; }
tmp=$(mktemp -d /tmp/railmpi-ompi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# the caller's launcher variables must not reach the ranks
unset RAILMPI_JOB_SECRET RAILMPI_HOST_ID RAILMPI_LAUNCH_ADDR RAILMPI_CTL_FD PMI_FD PMI_PORT PMI_ID PMI_RANK \
    PMI_SIZE PMI_JOBID MPI_LOCALNRANKS PMIX_NAMESPACE PMIX_RANK
for v in $(compgen -e | grep '^PMIX_SERVER_URI'); do unset "$v"; done

sanitized_pmix_ranks "$build" "$tmp"
run() { # run N PROGRAM...: output in $out; mpirun's own timeout ends a hung job
    local n=$1 rc
    shift
    out=$(timeout 60 "$mpirun" --allow-run-as-root --oversubscribe --timeout 50 -n "$n" -x RAILMPI_VERBOSE=2 \
        -x ASAN_OPTIONS -x LSAN_OPTIONS "$@" 2>&1)
    rc=$?
    echo "mpirun -n $n ${1##*/}: exit $rc"
    return $rc
}

for t in p2p_basic coll_basic; do
    for n in 2 4; do
        run $n "$build/tests/mpi/mpi_$t" || fail "$t with $n ranks: $(echo "$out" | tail -5)"
        echo "$out" | grep -q "^OK" || fail "$t with $n ranks printed no OK: $(echo "$out" | tail -5)"
        for ((r = 0; r < n; r++)); do
            echo "$out" | grep -q "boot: PMIx, rank $r of $n, .*local rank $r of $n on node 0$" ||
                fail "$t: no rank $r of $n from PMIx: $(echo "$out" | grep 'boot:')"
        done
    done
done

cat >"$tmp/abort.c" <<'C'
#include <mpi.h>
#include <unistd.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, x;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (r == 1) {
        usleep(200000);
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
C
if "$build/bin/mpicc" -O1 "$tmp/abort.c" -o "$tmp/abort"; then
    run 2 "$tmp/abort"
    rc=$?
    [ $rc = 7 ] || fail "MPI_Abort(7) under mpirun: exit $rc: $(echo "$out" | tail -5)"
else
    fail "cannot build with mpicc"
fi

# MPI_Comm_spawn through PMIx_Spawn, which mpirun implements: children of
# one command (in its info key wdir) and of two (one MPI_COMM_WORLD,
# MPI_APPNUM per command) talk both ways with their parents over the
# channel and disconnect; a program that does not exist is refused before
# mpirun is asked (mpirun would end the whole job): MPI_ERR_SPAWN, errcodes
if "$build/bin/mpicc" -O1 "$(dirname "$0")/dynamic.c" -o "$tmp/dyn"; then
    mkdir "$tmp/wdir"
    for mode in spawn spawnmulti; do
        run 2 "$tmp/dyn" $mode "$tmp/wdir" || fail "$mode under mpirun: $(echo "$out" | grep -v 'rail' | tail -5)"
        echo "$out" | grep -q "^$mode ok" && echo "$out" | grep -q "^child2\? ok" ||
            fail "$mode under mpirun: $(echo "$out" | grep -v 'rail' | tail -5)"
    done
    run 2 "$tmp/dyn" spawnmissing
    echo "$out" | grep -q "^spawnmissing ok" || fail "spawn of a missing program under mpirun: $(echo "$out" | tail -5)"
    echo "$out" | grep -q "MPI_ERR_SPAWN: cannot spawn: cannot find the program" ||
        fail "spawn of a missing program under mpirun: no reason given"
else
    fail "cannot build dynamic.c with mpicc"
fi

[ $fails = 0 ] && echo "OK: railmpi under Open MPI's mpirun" || { echo "FAIL: $fails check(s) failed"; exit 1; }
