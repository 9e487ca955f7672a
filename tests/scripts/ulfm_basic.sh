#!/bin/bash
# Process fault tolerance on one host: 4 ranks, one kills itself (SIGKILL)
# mid-run; with RAILMPI_PROC_FT=1 (and again with mpiexec
# -disable-auto-cleanup) the survivors see MPIX_ERR_PROC_FAILED, the
# wildcard receive's MPIX_ERR_PROC_FAILED_PENDING until acknowledged, the
# failed group, a failing collective and a revoke that reaches ranks blocked
# in a receive (ulfm_basic.c checks each), then finish; mpiexec names the
# dead rank and still exits 137. Without the setting the job ends at the
# death, as before. Then ulfm_shrink.c: agreements with ranks dying in
# them (the coordinator too) and two shrinks, whose communicators work,
# built with railmpi's mpicc and, where MPICH is installed, with mpicc.mpich
# against MPICH's ULFM declarations (the same program runs unchanged).
# ulfm_rma_io.c: one-sided operations and collective file access with a
# dead member fail with MPIX_ERR_PROC_FAILED, and the window and the file
# are freed. ulfm_inter.c: agreement, acknowledgement and shrink on an
# intercommunicator whose remote group lost a rank. ulfm_agree_deaths.c: 8
# ranks, three of them (the first root among them) dying inside agreements;
# every survivor's outcome is the same.
# Every run is bounded (timeout) and leaves no process.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "the test program is built with the plain mpicc wrapper"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
for p in ulfm_basic ulfm_shrink ulfm_rma_io ulfm_inter ulfm_agree_deaths; do
    "$build/bin/mpicc" -O1 "$(dirname "$0")/$p.c" -o "$tmp/$p" || { echo "FAIL: cannot build $p.c"; exit 1; }
done
prog=ulfm_basic
run() { # label, then the command's words before the program
    local label=$1
    shift
    local t0=$(date +%s.%N)
    out=$(timeout 60 "$@" "$tmp/$prog" "$tmp/$prog.dat" 2>&1)
    rc=$?
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "$label: exit $rc after $took s"
}
for how in env option; do
    if [ $how = env ]; then
        run "RAILMPI_PROC_FT=1" env RAILMPI_PROC_FT=1 "$build/bin/mpiexec" -n 4
    else
        run "-disable-auto-cleanup" "$build/bin/mpiexec" -n 4 -disable-auto-cleanup
    fi
    [ $rc = 124 ] && fail "$how: the job hung (killed by timeout after 60 s)"
    echo "$out" | grep "^FAIL" && fail "$how: a survivor's check failed"
    echo "$out" | grep -q "^OK ulfm_basic" || fail "$how: the survivors did not finish: $(echo "$out" | tail -3)"
    [ $rc = 137 ] || fail "$how: mpiexec exited $rc, expected 137 (a rank killed by signal 9)"
    echo "$out" | grep -qE "rank 3 \(pid [0-9]+\) was killed by signal 9.*the job goes on" ||
        fail "$how: mpiexec did not name the dead rank: $(echo "$out" | grep mpiexec | head -2)"
    awk -v t="$took" 'BEGIN { exit !(t <= 20) }' || fail "$how: the run took $took s"
done
# without process fault tolerance a death still ends the job at once
run "default" "$build/bin/mpiexec" -n 4
[ $rc = 137 ] || fail "default: mpiexec exited $rc, expected 137"
echo "$out" | grep -q "^OK ulfm_basic" && fail "default: the job went on after a rank died"
echo "$out" | grep -q "the job goes on" && fail "default: mpiexec kept the job"
awk -v t="$took" 'BEGIN { exit !(t <= 10) }' || fail "default: the job took $took s to end"
prog=ulfm_shrink
run "agreement and shrink" "$build/bin/mpiexec" -n 4 -disable-auto-cleanup
[ $rc = 124 ] && fail "shrink: the job hung (killed by timeout after 60 s)"
echo "$out" | grep "^FAIL" && fail "shrink: a survivor's check failed"
echo "$out" | grep -q "^OK ulfm_shrink" || fail "shrink: the survivors did not finish: $(echo "$out" | tail -3)"
[ $rc = 137 ] || fail "shrink: mpiexec exited $rc, expected 137"
prog=ulfm_rma_io
run "windows and files" "$build/bin/mpiexec" -n 4 -disable-auto-cleanup
[ $rc = 124 ] && fail "windows and files: the job hung (killed by timeout after 60 s)"
echo "$out" | grep "^FAIL" && fail "windows and files: a survivor's check failed"
echo "$out" | grep -q "^OK ulfm_rma_io" || fail "windows and files: the survivors did not finish: $(echo "$out" | tail -3)"
[ $rc = 137 ] || fail "windows and files: mpiexec exited $rc, expected 137"
prog=ulfm_inter
run "intercommunicator" "$build/bin/mpiexec" -n 4 -disable-auto-cleanup
[ $rc = 124 ] && fail "intercommunicator: the job hung (killed by timeout after 60 s)"
echo "$out" | grep "^FAIL" && fail "intercommunicator: a survivor's check failed"
echo "$out" | grep -q "^OK ulfm_inter" || fail "intercommunicator: the survivors did not finish: $(echo "$out" | tail -3)"
[ $rc = 137 ] || fail "intercommunicator: mpiexec exited $rc, expected 137"
prog=ulfm_agree_deaths
for radix in 8 2; do # one level below the root, and three (binomial)
    run "deaths inside agreements, RAILMPI_AGREE_RADIX=$radix" env RAILMPI_AGREE_RADIX=$radix "$build/bin/mpiexec" -n 8 -disable-auto-cleanup
    [ $rc = 124 ] && fail "deaths inside agreements ($radix): the job hung (killed by timeout after 60 s)"
    echo "$out" | grep "^FAIL" && fail "deaths inside agreements ($radix): a survivor's check failed"
    echo "$out" | grep -q "^OK ulfm_agree_deaths" ||
        fail "deaths inside agreements ($radix): the survivors did not finish: $(echo "$out" | tail -3)"
done
if command -v mpicc.mpich >/dev/null; then
    prog=ulfm_shrink
    mpicc.mpich -O1 -DULFM_BLOCKING_ONLY -Werror=implicit-function-declaration "$(dirname "$0")/ulfm_shrink.c" \
        -o "$tmp/ulfm_shrink" || fail "mpicc.mpich cannot build ulfm_shrink.c"
    run "agreement and shrink, built with MPICH" env LD_LIBRARY_PATH="$build/lib" "$build/bin/mpiexec" -n 4 -disable-auto-cleanup
    echo "$out" | grep "^FAIL" && fail "MPICH-built shrink: a survivor's check failed"
    echo "$out" | grep -q "^OK ulfm_shrink" || fail "MPICH-built shrink: the survivors did not finish: $(echo "$out" | tail -3)"
    [ $rc = 137 ] || fail "MPICH-built shrink: mpiexec exited $rc, expected 137"
else
    echo "(no mpicc.mpich: the MPICH-built run is left out)"
fi
[ $fails = 0 ] && echo "OK: survivors of a rank's death see ULFM's errors, acknowledge, revoke, agree, shrink and finish"
exit $((fails > 0))
