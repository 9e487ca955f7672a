#!/bin/bash
# Deaths found by the ranks themselves (src/proto/ft_detect.c), as under a
# launcher that reports none (srun, Open MPI's mpirun, Hydra): railmpi's
# mpiexec keeps the job (RAILMPI_PROC_FT=1) but its failure board is not
# used (RAILMPI_PROC_FT_DETECT=on), so only the ranks' own looking can fail
# the dead rank. ulfm_detect.c: 4 ranks, rank 3 kills itself; on one host
# (its pid, over shared memory), alone on a virtual host (RAILMPI_HOST_ID:
# the others reach it over TCP only, its connections end and its listener
# refuses), on two virtual hosts of two ranks (rank 1 finds it over shared
# memory and tells the others), and under Open MPI's mpirun
# --enable-recovery where it is installed. Then the control: with the board
# withheld and the ranks not looking (RAILMPI_PROC_FT_DETECT=off) nobody
# learns of the death and the survivors wait until mpiexec's --timeout.
# Every run is bounded and leaves no process.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
skip_if_sanitized "$build" "the test program is built with the plain mpicc wrapper"
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp/ulfm_detect" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O1 "$(dirname "$0")/ulfm_detect.c" -o "$tmp/ulfm_detect" || { echo "FAIL: cannot build ulfm_detect.c"; exit 1; }
run() { # HOST TIMEOUT RANK_ENV [NAME=VALUE...]: HOST, of PMI_RANK, numbers the rank's virtual host
    local host=$1 limit=$2 renv=$3
    shift 3
    out=$(env RAILMPI_PROC_FT=1 RAILMPI_VERBOSE=1 "$@" timeout $((limit + 10)) "$build/bin/mpiexec" -n 4 --timeout $limit \
        bash -c "$renv RAILMPI_HOST_ID=vhost\$(($host)) exec \"\$0\"" "$tmp/ulfm_detect" 2>&1)
    rc=$?
}
check() { # LAYOUT PATTERN...: the run's checks; each PATTERN must be in its output
    local what=$1
    shift
    echo "$out" | grep -E "^(rank|OK|FAIL)"
    echo "$out" | grep "^FAIL" && fail "$what: a survivor's check failed"
    echo "$out" | grep -q "^OK ulfm_detect" || fail "$what: the survivors did not finish: $(echo "$out" | tail -5)"
    [ $rc = 137 ] || fail "$what: mpiexec exited $rc, expected 137 (a rank killed by signal 9)"
    for p in "$@"; do
        echo "$out" | grep -q "$p" || fail "$what: no '$p'"
    done
}
# one host: shared memory
run 0 30 "" RAILMPI_PROC_FT_DETECT=on
check "one host" "rank 3: its process has exited"
# the dead rank alone on its host: only TCP can tell
run "PMI_RANK == 3" 30 "" RAILMPI_PROC_FT_DETECT=on
check "rank 3 alone on a host" "rank 3: its host refuses a connection to it"
# two hosts, two ranks each: rank 1 finds it over shared memory and tells the others
run "PMI_RANK % 2" 30 "" RAILMPI_PROC_FT_DETECT=on
check "two hosts" "rank 3: its process has exited"
# Open MPI's mpirun keeps the job with --enable-recovery but tells the ranks
# nothing (docs/ulfm.md, "Launchers"): they find the death themselves
if mpirun=$(command -v mpirun.openmpi); then
    out=$(env -u PMIX_NAMESPACE -u PMIX_RANK RAILMPI_PROC_FT=1 RAILMPI_VERBOSE=1 timeout 60 "$mpirun" --allow-run-as-root \
        --oversubscribe --timeout 40 --enable-recovery -n 4 -x RAILMPI_PROC_FT -x RAILMPI_VERBOSE "$tmp/ulfm_detect" 1 2>&1)
    rc=$?
    echo "$out" | grep -E "^(rank|OK|FAIL)"
    echo "$out" | grep "^FAIL" && fail "mpirun: a survivor's check failed"
    echo "$out" | grep -q "^rank 0: the survivors worked on for 100 rounds" || fail "mpirun: the survivors did not work on: $(echo "$out" | tail -5)"
    echo "$out" | grep -q "^OK ulfm_detect" || fail "mpirun: the survivors did not finish: $(echo "$out" | tail -5)"
    echo "$out" | grep -q "rank 3: its process has exited" || fail "mpirun: no rank saw the dead rank's pid gone"
else
    echo "(no mpirun.openmpi: the Open MPI run is left out)"
fi
# the control: nothing reports the death (the board withheld from the ranks,
# which do not look), the survivors wait for it
run "PMI_RANK % 2" 4 RAILMPI_FT_FD=-1 RAILMPI_PROC_FT_DETECT=off
echo "$out" | grep -q "^OK ulfm_detect" && fail "control: the survivors learned of the death with nobody looking"
echo "$out" | grep -q "timeout" || fail "control: mpiexec did not end the job at its --timeout: $(echo "$out" | tail -3)"
sleep 0.5
pgrep -f "$tmp/ulfm_detect" >/dev/null && fail "processes left behind: $(pgrep -af "$tmp/ulfm_detect")"
[ $fails = 0 ] && echo "OK: the ranks find a dead peer themselves, over shared memory and TCP"
exit $((fails > 0))
