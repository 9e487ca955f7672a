#!/bin/bash
# When a waiting rank yields its core: at once only where this host's ranks
# outnumber the cores they may run on together (the union of their CPU
# masks), else after RAILMPI_SPIN_COUNT polls or RAILMPI_SPIN_TIME_US of
# them, whichever comes first. Ranks pinned to a core each
# (mpiexec's default binding, or taskset per rank) see one CPU apiece and
# must not count as oversubscribed for it; two ranks that share one core
# must. The verbose start-up line says which, and MPI_T counts the yields.
set -u
build=$1
bin=$build/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
prog=$build/tests/mpi/mpi_p2p_basic
cores=$(nproc)
cat > "$tmp/pin" <<'SH'
#!/bin/sh
exec taskset -c $((PMI_RANK % $(nproc))) "$@"
SH
chmod +x "$tmp/pin"
policy() { # OUT -- mpiexec arguments: the yield lines of every rank
    local out=$1; shift 2
    RAILMPI_VERBOSE=2 RAILMPI_SPIN_COUNT=2000 timeout -k 5 60 "$bin/mpiexec" "$@" > "$out" 2>&1 ||
        fail "mpiexec $*: $(grep -m3 -E 'FAIL|rror' "$out" | tr '\n' ' ')"
    grep "a waiting rank yields after" "$out"
}
[ "$cores" -ge 2 ] || { echo "SKIP: one core"; exit 77; }
policy "$tmp/pinned" -- -n 2 -bind-to none "$tmp/pin" "$prog" > "$tmp/p"
[ "$(grep -c "yields after 2000 idle polls" "$tmp/p")" = 2 ] ||
    fail "2 ranks pinned to a core each count as oversubscribed: $(cat "$tmp/p")"
policy "$tmp/bound" -- -n 2 "$prog" > "$tmp/b"
[ "$(grep -c "yields after 2000 idle polls" "$tmp/b")" = 2 ] ||
    fail "2 ranks under mpiexec's default binding count as oversubscribed: $(cat "$tmp/b")"
# two ranks allowed one core between them (on any machine)
policy "$tmp/over" -- -n 2 -bind-to none taskset -c 0 "$prog" > "$tmp/o"
[ "$(grep -c "yields after 1 idle polls" "$tmp/o")" = 2 ] ||
    fail "2 ranks on one core do not yield at once: $(cat "$tmp/o")"
# every way of waiting follows the policy (MPI_Recv, MPI_Waitany, MPI_Probe;
# tests/mpi/spin_yields.c counts yields with MPI_T): on one shared CPU each
# round trip yields and none spins while the peer needs the core; on a CPU
# each, waits poll
# (the spin count alone: a sanitized build's round trips take 7-18 us, near
# the timed spin). With the peer answering 300 us late and a spin count never
# reached, the timed spin yields in every wait, and without it none does.
for m in "shared:0:2000:taskset -c 0" "apart:0:2000:$tmp/pin" "late:20:1000000000:$tmp/pin" \
    "late-count:0:1000000000:$tmp/pin"; do
    IFS=: read -r mode us count wrap <<< "$m"
    RAILMPI_SPIN_TIME_US=$us RAILMPI_SPIN_COUNT=$count timeout -k 5 60 "$bin/mpiexec" -n 2 -bind-to none $wrap \
        "$build/tests/mpi/mpi_spin_yields" "$mode" > "$tmp/y" 2>&1 ||
        fail "ways of waiting, $mode: $(grep -m3 -E 'FAIL|rror' "$tmp/y" | tr '\n' ' ')"
    sed "s/^/$mode: /" "$tmp/y" | grep -v OK
done
[ $fails = 0 ] && echo "OK: waiting ranks yield at once only when the host's ranks outnumber its cores, in every way of waiting"
exit $((fails > 0))
