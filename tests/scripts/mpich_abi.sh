#!/bin/bash
# Programs built against Debian's MPICH run unchanged on railmpi: the
# prebuilt NPmpich2 (netpipe-mpich2) and a program compiled with mpicc.mpich,
# under railmpi's mpiexec and under MPICH's own Hydra launcher.
set -u
build=$1
lib=$build/lib
command -v NPmpich2 >/dev/null && command -v mpicc.mpich >/dev/null || { echo "SKIP: MPICH packages missing"; exit 77; }
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "a sanitizer build cannot be loaded into programs built without the sanitizer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ldd_out=$(LD_LIBRARY_PATH=$lib ldd "$(command -v NPmpich2)")
echo "$ldd_out" | grep -q "libmpich.so.12 => $lib/libmpich.so.12" || fail "libmpich.so.12 does not resolve to railmpi: $ldd_out"

cd "$tmp"
# -p 0: no perturbed sizes around the powers of two (40 sizes instead of
# 106), which keeps NetPIPE's run to about 25 s on a loaded 2-core machine
if LD_LIBRARY_PATH=$lib timeout 120 "$build/bin/mpiexec" -n 2 NPmpich2 -u 1048576 -p 0 -o np.out >np.log 2>&1; then
    # NetPIPE writes "bytes  Mbps  usec" lines; it checks its own data
    n=$(grep -c . np.out)
    [ "$n" -gt 20 ] || fail "NPmpich2 wrote only $n lines"
    awk '$2 <= 0 { bad = 1 } END { exit bad }' np.out || fail "NPmpich2 reported zero throughput"
else
    fail "NPmpich2 under railmpi failed: $(tail -5 np.log)"
fi

cat > ring.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int r, n; char v[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &n);
    int len; MPI_Get_library_version(v, &len);
    static double big[1 << 18]; for (int i = 0; i < (1 << 18); i++) big[i] = r + i;
    MPI_Sendrecv_replace(big, 1 << 18, MPI_DOUBLE, (r + 1) % n, 1, (r + n - 1) % n, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int ok = big[12345] == (r + n - 1) % n + 12345, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (r == 0) printf("%s %s\n", all ? "OK" : "BAD", strstr(v, "railmpi") ? "railmpi" : v);
    MPI_Finalize(); return !all;
}
C
mpicc.mpich -O1 ring.c -o ring 2>/dev/null || fail "mpicc.mpich failed"
out=$(LD_LIBRARY_PATH=$lib timeout 60 "$build/bin/mpiexec" -n 3 ./ring 2>&1)
[ "$out" = "OK railmpi" ] || fail "MPICH-built program under railmpi's mpiexec: $out"
out=$(LD_LIBRARY_PATH=$lib timeout 60 mpiexec.mpich -n 3 ./ring 2>&1)
[ "$out" = "OK railmpi" ] || fail "MPICH-built program under Hydra with railmpi: $out"
# a PMI_JOBID from an enclosing srun step must not make railmpi speak PMI-2
# to Hydra, whose PMI-2 fence is no barrier
out=$(PMI_JOBID=1.0 LD_LIBRARY_PATH=$lib RAILMPI_VERBOSE=2 timeout 60 mpiexec.mpich -n 3 ./ring 2>&1)
echo "$out" | grep -qx "OK railmpi" || fail "under Hydra with a stray PMI_JOBID: $(echo "$out" | grep -v debug | tail -3)"
[ "$(echo "$out" | grep -c 'boot: PMI-1, rank')" = 3 ] || fail "under Hydra with a stray PMI_JOBID, not every rank spoke PMI-1"

[ $fails = 0 ] && echo "OK: MPICH binaries run on railmpi" || exit 1
