#!/bin/bash
# Process fault tolerance under Slurm, which reports no death to the ranks:
# they find it themselves (src/proto/ft_detect.c; docs/ulfm.md,
# "Launchers"). ulfm_detect.c with 4 ranks and RAILMPI_PROC_FT=1, rank 3
# killing itself: under `srun --mpi=pmi2 --kill-on-bad-exit=0` the
# survivors see the death, shrink and work on for 2 s, and srun lets them
# finish; under `srun --mpi=pmix` they see it too (within milliseconds),
# but Slurm's pmix plugin cancels the step once the dead task's PMIx
# connection is lost, whatever --kill-on-bad-exit says: only that the death
# was seen is checked there. Root only (a private Slurm, slurm_lib.sh);
# every step bounded, everything stopped on exit.
set -u
build=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "the test program is built with the plain mpicc wrapper"
budget=120
. "$(dirname "$0")/slurm_lib.sh"
"$build/bin/mpicc" -O1 "$(dirname "$0")/ulfm_detect.c" -o "$tmp/ulfm_detect" || die "cannot build ulfm_detect.c"
run() { # PLUGIN SECONDS: ulfm_detect under srun, its survivors working on for SECONDS
    local t0=$SECONDS
    out=$(RAILMPI_PROC_FT=1 RAILMPI_VERBOSE=1 timeout 40 "${sl[@]}" srun --mpi=$1 -n 4 --overcommit --time=1 \
        --kill-on-bad-exit=0 "$tmp/ulfm_detect" $2 2>&1)
    rc=$?
    echo "srun --mpi=$1 ulfm_detect $2: exit $rc after $((SECONDS - t0)) s"
    echo "$out" | grep -E "^(rank|OK|FAIL)"
}
run pmi2 2
echo "$out" | grep "^FAIL" && fail "pmi2: a survivor's check failed"
echo "$out" | grep -q "^rank 0: the survivors worked on for 200 rounds" || fail "pmi2: the survivors did not work on: $(echo "$out" | tail -5)"
echo "$out" | grep -q "^OK ulfm_detect" || fail "pmi2: the survivors did not finish: $(echo "$out" | tail -5)"
[ $rc = 137 ] || fail "pmi2: srun exited $rc, expected 137 (a task killed by signal 9)"
if timeout 10 "${sl[@]}" srun --mpi=list 2>&1 | grep -qw pmix; then
    run pmix 2
    echo "$out" | grep "^FAIL" && fail "pmix: a survivor's check failed"
    echo "$out" | grep -q "rank 3: its process has exited" ||
        fail "pmix: no survivor saw the death: $(echo "$out" | tail -5)"
    echo "$out" | grep -q "^OK ulfm_detect" && echo "(pmix: this Slurm let the survivors finish)"
else
    echo "SKIP (pmix part): this Slurm has no pmix plugin"
fi
[ $fails = 0 ] && echo "OK: under srun the ranks find a dead peer themselves; pmi2 lets the survivors finish" || die "$fails check(s) failed"
