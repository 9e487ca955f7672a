#!/bin/bash
# railmpi programs under Slurm's `srun --mpi=pmi2` (the PMI-2 client in
# src/boot/pmi2.c) and `srun --mpi=pmix` (the PMIx client in src/boot/pmix.c).
# Starts a private one-node Slurm once (slurm_lib.sh): its own munge key and socket,
# slurm.conf, ports, pid files, state and spool in a scratch directory, so a
# system Slurm on this host is left alone. Then, under each plugin: the MPI
# test programs with 2 ranks and 4 (oversubscribed), a program built with our
# mpicc that checks rank and size against Slurm's task ids, that the plugin's
# protocol was spoken and that libpmix is loaded under PMIx only, a job whose
# two ranks pose as separate hosts, so they connect over TCP with the job
# secret rank 0 drew (srun issues none), and MPI_Abort ending the job. Under
# PMIx also: the host layout PMIx gives, and railmpi's mpiexec run as a PMIx
# task, whose ranks inherit the PMIx variables but must speak PMI-1 to it.
# MPI_Comm_spawn under both: a clear MPI_ERR_SPAWN where the server cannot
# spawn (PMI-2; Slurm's pmix plugin implements no PMIx_Spawn).
# The PMIx part is skipped, saying so, when Slurm lacks its pmix plugin. Root
# only; every step is bounded in time; on any exit the jobs, the daemons and
# everything they started are stopped by pid, and the directory removed.
set -u
build=$(cd "$1" && pwd)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/slurm_lib.sh"
mpi=pmi2 # the plugin of every step run() starts
run() { # run N [srun options] PROGRAM...: a job step, its output in $out
    local n=$1
    shift
    local t0=$SECONDS rc limit=$((budget - SECONDS))
    [ $limit -gt 60 ] && limit=60
    [ $limit -ge 10 ] || die "out of time before srun $*"
    out=$(timeout $limit "${sl[@]}" srun --mpi=$mpi -n "$n" --time=2 --kill-on-bad-exit=1 "$@" 2>&1)
    rc=$?
    echo "srun --mpi=$mpi -n $n ${*##*/}: exit $rc after $((SECONDS - t0)) s"
    return $rc
}

cat >"$tmp/who.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* whether libpmix is mapped into this process */
static const char *pmix_loaded(void) {
    char line[512];
    const char *yes = "no";
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "/libpmix.so"))
            yes = "yes";
    if (f)
        fclose(f);
    return yes;
}
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, n, sum;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d size %d procid %s ntasks %s sum %d libpmix %s\n", r, n, getenv("SLURM_PROCID"),
           getenv("SLURM_NTASKS"), sum, pmix_loaded());
    MPI_Finalize();
    return 0;
}
C
cat >"$tmp/abort.c" <<'C'
#include <mpi.h>
#include <unistd.h>
/* rank 1 aborts while rank 0 waits for a message that never comes */
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
cat >"$tmp/spawn.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>
/* MPI_Comm_spawn of two copies of itself: "spawned" with the children's
 * values, or "refused" with the error class and errcodes */
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    int r, v, codes[2] = {-1, -1}, cls;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        v = 100 + r;
        MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    self[l > 0 ? l : 0] = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS) {
        int sum = 0;
        for (int i = 0; r == 0 && i < 2; i++) {
            MPI_Recv(&v, 1, MPI_INT, i, 1, inter, MPI_STATUS_IGNORE);
            sum += v;
        }
        MPI_Comm_disconnect(&inter);
        printf("spawn rank %d: spawned%s\n", r, r == 0 && sum == 201 ? " and heard both" : "");
    } else {
        printf("spawn rank %d: refused %s errcodes %s within 10 s %s\n", r, cls == MPI_ERR_SPAWN ? "MPI_ERR_SPAWN" : "(other class)",
               codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN ? "set" : "not set",
               MPI_Wtime() - t0 < 10 ? "yes" : "no");
    }
    MPI_Finalize();
    return 0;
}
C
"$build/bin/mpicc" -O1 "$tmp/spawn.c" -o "$tmp/spawn" || die "cannot build with mpicc"
"$build/bin/mpicc" -O1 "$tmp/who.c" -o "$tmp/who" || die "cannot build with mpicc"
"$build/bin/mpicc" -O1 "$tmp/abort.c" -o "$tmp/abort" || die "cannot build with mpicc"
iface=$(ip -4 route show default 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit }}')

suite() { # the checks under the plugin in $mpi, whose protocol railmpi names $1
    local proto=$1 libpmix=no r t0
    [ "$mpi" = pmix ] && libpmix=yes
    # every task must be one rank of the job: a task that fell back to a
    # singleton would pass these programs alone
    for t in p2p_basic coll_basic; do
        run 2 --export=ALL,RAILMPI_VERBOSE=2 "$build/tests/mpi/mpi_$t" || fail "$mpi: $t with 2 ranks: $(echo "$out" | tail -5)"
        echo "$out" | grep -q "^OK" || fail "$mpi: $t with 2 ranks printed no OK: $(echo "$out" | tail -5)"
        [ "$(echo "$out" | grep -c "boot: $proto, rank [0-9] of 2,")" = 2 ] || fail "$mpi: $t: not 2 ranks of one job"
        run 4 --overcommit --export=ALL,RAILMPI_VERBOSE=2 "$build/tests/mpi/mpi_$t" ||
            fail "$mpi: $t with 4 ranks on 2 CPUs: $(echo "$out" | tail -5)"
        echo "$out" | grep -q "^OK" || fail "$mpi: $t with 4 ranks printed no OK: $(echo "$out" | tail -5)"
        [ "$(echo "$out" | grep -c "boot: $proto, rank [0-9] of 4,")" = 4 ] || fail "$mpi: $t: not 4 ranks of one job"
    done

    run 3 --overcommit --export=ALL,RAILMPI_VERBOSE=2 "$tmp/who" || fail "$mpi: mpicc program: $(echo "$out" | tail -5)"
    for r in 0 1 2; do
        echo "$out" | grep -qx "rank $r size 3 procid $r ntasks 3 sum 3 libpmix $libpmix" ||
            fail "$mpi: rank $r did not report itself as Slurm's task $r of 3 with libpmix $libpmix: $(echo "$out" | grep '^rank')"
    done
    [ "$(echo "$out" | grep -c "boot: $proto, rank")" = 3 ] || fail "$mpi: not every rank spoke $proto: $(echo "$out" | grep 'boot:')"
    if [ "$mpi" = pmix ]; then
        # one node: PMIx's local rank is the task's rank, node 0 for all
        for r in 0 1 2; do
            echo "$out" | grep -q "boot: PMIx, rank $r of 3, job .*, local rank $r of 3 on node 0$" ||
                fail "pmix: rank $r was not told its place on the node: $(echo "$out" | grep 'boot:')"
        done
    fi

    # Two ranks that believe they are on two hosts talk over TCP, and only
    # succeed if both hold the secret that rank 0 published through Slurm.
    if [ -n "$iface" ] && ip -4 -o addr show dev "$iface" | grep -q inet; then
        run 2 --export=ALL,RAILMPI_TCP_RAILS="$iface",RAILMPI_STATS=1 \
            bash -c 'RAILMPI_HOST_ID=slurmhost$SLURM_PROCID exec "$0"' "$build/tests/mpi/mpi_p2p_basic" ||
            fail "$mpi: p2p_basic over TCP under srun: $(echo "$out" | tail -5)"
        echo "$out" | grep -q "^OK" || fail "$mpi: p2p_basic over TCP printed no OK: $(echo "$out" | tail -5)"
        echo "$out" | grep -q "stats: peer 1 rail 0 (tcp)" ||
            fail "$mpi: rank 0 did not reach rank 1 over TCP: $(echo "$out" | grep stats)"
    else
        echo "note: no interface with a default route; the TCP part is left out"
    fi

    # MPI_Comm_spawn: PMI-2 cannot spawn; PMIx spawns where the server
    # implements PMIx_Spawn (Slurm's pmix plugin does not): either the
    # children answer, or a clear MPI_ERR_SPAWN at once, errcodes set
    run 2 --export=ALL,RAILMPI_VERBOSE=2 "$tmp/spawn"
    if [ "$mpi" = pmix ] && echo "$out" | grep -q "^spawn rank 0: spawned and heard both"; then
        echo "note: this Slurm's pmix plugin spawns"
    else
        for r in 0 1; do
            echo "$out" | grep -q "^spawn rank $r: refused MPI_ERR_SPAWN errcodes set within 10 s yes" ||
                fail "$mpi: MPI_Comm_spawn at rank $r: $(echo "$out" | tail -5)"
        done
        want="the launcher cannot spawn"
        [ "$mpi" = pmix ] && want="the PMIx server did not spawn"
        echo "$out" | grep -q "MPI_ERR_SPAWN: cannot spawn: $want" ||
            fail "$mpi: MPI_Comm_spawn's message does not say why ($want): $(echo "$out" | grep -m2 MPI_ERR_SPAWN)"
        [ "$mpi" != pmix ] || echo "note: $(echo "$out" | grep -m1 -o 'the PMIx server did not spawn.*')"
    fi

    # MPI_Abort reaches the launcher, which ends the job: rank 0 would
    # otherwise wait for its message until srun's time limit (srun is told
    # not to end the job itself when a task fails)
    t0=$SECONDS
    run 2 --kill-on-bad-exit=0 "$tmp/abort"
    r=$?
    [ $r != 0 ] || fail "$mpi: a job whose rank called MPI_Abort exited 0: $(echo "$out" | tail -5)"
    # PMIx_Abort carries the code to srun (PMI-2's abort carries none): a
    # rank that merely exited would leave 137, its peer killed by Slurm
    [ "$mpi" != pmix ] || [ $r = 7 ] || fail "pmix: MPI_Abort's code 7 did not reach srun (exit $r)"
    [ $((SECONDS - t0)) -le 20 ] || fail "$mpi: MPI_Abort took $((SECONDS - t0)) s to end the job"
}

suite PMI-2

if ! timeout 10 "${sl[@]}" srun --mpi=list 2>&1 | grep -qw pmix; then
    echo "SKIP (pmix part): this Slurm has no pmix plugin (srun --mpi=list); Debian's slurm-wlm ships mpi_pmix"
else
    mpi=pmix
    sanitized_pmix_ranks "$build" "$tmp"
    suite PMIx
    # railmpi's mpiexec as a task of a PMIx step: its ranks inherit the
    # step's PMIX_* variables, but mpiexec is their launcher
    run 1 --export=ALL,RAILMPI_VERBOSE=2 "$build/bin/mpiexec" -n 2 "$tmp/who" ||
        fail "pmix: mpiexec under srun: $(echo "$out" | tail -5)"
    for r in 0 1; do
        echo "$out" | grep -q "^rank $r size 2 procid 0 ntasks 1 sum 1 libpmix no$" ||
            fail "pmix: mpiexec's rank $r under srun is not rank $r of 2 without libpmix: $(echo "$out" | grep '^rank')"
    done
    [ "$(echo "$out" | grep -c 'boot: PMI-1, rank')" = 2 ] ||
        fail "pmix: mpiexec's ranks under srun did not speak PMI-1 to mpiexec: $(echo "$out" | grep 'boot:')"
fi

[ $fails = 0 ] && echo "OK: railmpi under srun --mpi=pmi2 and --mpi=pmix" || { die "$fails check(s) failed"; }
