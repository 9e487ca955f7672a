#!/bin/bash
# Open MPI's ABI across hosts (docs/abi.md): 2 virtual hosts x 2 rails, 2
# ranks per host, every job under `mpiexec -abi openmpi` on railmpi's
# libmpi.so.40.
#  1. tests/cluster/stress.c built with Open MPI's mpicc.openmpi (checksummed
#     messages of 0 B - 8 MiB with wildcards and Ssends, allreduce and bcast
#     every round); host 1's NIC on rail 1 goes down 2 s into the 9 s run for
#     3 s: every message must arrive intact exactly once, the job finish, the
#     rail be reported failed and up again.
#  2. Debian's mpi4py, as `/usr/bin/python3 -c "..."` (tests/cluster/ompi_hosts.py:
#     point-to-point NumPy arrays and pickled objects, collectives on NumPy
#     arrays, one-sided), with the same fault: every result checked.
#  3. mpi4py's own benchmarks, `python3 -m mpi4py.bench helloworld` and
#     `ringtest`.
# Skipped (77) where mpicc.openmpi, Debian's mpi4py or NumPy are missing
# (scripts/deps.sh installs them). Root only; torn down on exit.
set -u
fault_build=$1
py=/usr/bin/python3
command -v mpicc.openmpi >/dev/null || { echo "SKIP: mpicc.openmpi (Debian's libopenmpi-dev) is not installed"; exit 77; }
"$py" -c 'import mpi4py, numpy' 2>/dev/null ||
    { echo "SKIP: $py cannot import mpi4py and numpy (Debian's python3-mpi4py, python3-numpy)"; exit 77; }
. "$(dirname "$0")/../fault/lib.sh"
fault_cluster o 1gbit
mx+=(-abi openmpi)
# a sanitizer build of the library: its runtime must come first in programs
# built without it, and the Python interpreter's own leaks are not railmpi's
san=$(ldd "$fault_build/lib/openmpi-abi/libmpi.so.40" | awk '/lib(asan|tsan)\.so/ {print $3; exit}')
[ -z "$san" ] || mx+=(-genv LD_PRELOAD "$san" -genv ASAN_OPTIONS "detect_leaks=0:abort_on_error=1")
# Open MPI's own launcher variables must not leak into the ranks
unset OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_RANK
mpicc.openmpi -O2 "$here/stress.c" -o "$tmp/stress" || { echo "FAIL: cannot build stress.c with mpicc.openmpi"; exit 1; }
readelf -d "$tmp/stress" | grep -q 'NEEDED.*\[libmpi\.so\.40\]' || { echo "FAIL: stress is not linked with libmpi.so.40"; exit 1; }

# the rail events and statistics only railmpi prints: the ranks ran on it,
# over both rails, and rail 1 failed and came back
check_railmpi() { # WHAT
    grep -qE "stats: peer [0-9]+ rail 1 \((tcp|ofi)\): sent [1-9]" "$tmp/stress.out" || fail "$1: no traffic on rail 1 (railmpi's statistics)"
    check_event 1 failed
    check_event 1 up
}
# 1. the C program
stress_start 9
fault_start nic 2 3
stress_wait
check_stress
check_mid_run
check_gap 3
check_railmpi "C program"
resent=$(grep -E "stats: peer [0-9]+ rail [0-9] \((tcp|ofi)\)" "$tmp/stress.out" | sed -nE 's/.*resent ([0-9]+) frames.*/\1/p' | awk '{s += $1} END {print s + 0}')
echo "C program: $(grep -m1 '^OK' "$tmp/stress.out"); $resent frames sent again"
[ $fails = 0 ] || { echo "--- part 1 (C program built with mpicc.openmpi):"; stress_log; }
mv "$tmp/stress.out" "$tmp/stress_c.out"
: > "$tmp/faults"

# 2. mpi4py: point-to-point, collectives, one-sided
cluster_reap
f1=$fails
timeout -k 5 60 "${mx[@]}" -ppn 2 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 \
    "$py" -c "$(cat "$here/ompi_hosts.py")" 9 > "$tmp/stress.out" 2>&1 &
stress_pid=$!
stress_bound=60
fault_start nic 2 3
stress_wait
[ "$stress_rc" != 124 ] && [ "$stress_rc" != 137 ] || fail "mpi4py: the run hung: killed after $stress_bound s"
[ "$stress_rc" = 0 ] || fail "mpi4py: the run ended with status $stress_rc"
! grep -q "^FAIL" "$tmp/stress.out" || fail "mpi4py: $(grep -m5 ^FAIL "$tmp/stress.out")"
grep -qE "^OK: mpi4py [0-9]+ rounds on 4 ranks" "$tmp/stress.out" || fail "mpi4py: no OK from 4 ranks"
grep -q "^library: railmpi .*Open MPI 4.1 ABI" "$tmp/stress.out" || fail "mpi4py: MPI_Get_library_version does not name railmpi's Open MPI ABI"
check_mid_run
check_gap 3
check_railmpi "mpi4py"
echo "mpi4py: $(grep -m1 '^OK' "$tmp/stress.out")"
[ $fails = "$f1" ] || { echo "--- part 2 (mpi4py):"; stress_log; }

# 3. mpi4py's benchmarks
cluster_reap
out=$(timeout -k 5 40 "${mx[@]}" -ppn 2 -genv RAILMPI_STATS 1 "$py" -m mpi4py.bench helloworld 2>&1)
rc=$?
for r in 0 1 2 3; do
    echo "$out" | grep -q "^Hello, World! I am process $r of 4 on " || { fail "mpi4py.bench helloworld (exit $rc): no line from rank $r"; break; }
done
echo "$out" | grep -qE "stats: peer [0-9]+ rail [01] \((tcp|ofi)\)" || fail "mpi4py.bench helloworld: no traffic between the hosts"
[ $rc = 0 ] || fail "mpi4py.bench helloworld exited with $rc: $(echo "$out" | tail -5)"
out=$(timeout -k 5 40 "${mx[@]}" -ppn 2 "$py" -m mpi4py.bench ringtest -n 1048576 -s 5 -l 50 2>&1)
rc=$?
echo "$out" | grep -E "^time for 50 loops = .* \(4 processes, 1048576 bytes\)" ||
    fail "mpi4py.bench ringtest (exit $rc): $(echo "$out" | tail -5)"
! echo "$out" | grep -q "does not match" || fail "mpi4py.bench ringtest: a message did not match"
[ $rc = 0 ] || fail "mpi4py.bench ringtest exited with $rc"

[ $fails = 0 ] || exit 1
echo "OK: Open MPI's ABI on 2 hosts x 2 rails: a C program and mpi4py through a NIC failure, mpi4py.bench"
