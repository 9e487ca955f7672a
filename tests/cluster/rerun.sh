#!/bin/bash
# How ctest runs a cluster or fault test: tests/cluster/rerun.sh TEST.sh ARGS...
# A test exits 75 when it failed after the kernel held one of its ranks in
# uninterruptible sleep for seconds (tests/cluster/lib.sh, kstall_watch), or
# after a fault test's timer slept 2 s or more too long (tests/fault/lib.sh,
# fault_start), or when a fault test's timing check failed across a time the
# machine held its 20 ms timer 100 ms or more (hold_watch): that run could
# not judge railmpi, so it is run once more. A second such run is reported
# as skipped (77), the stalls shown; any other status is the test's.
set -u
[ $# -ge 1 ] || { echo "usage: tests/cluster/rerun.sh TEST.sh [ARGS...]" >&2; exit 2; }
test=$1
shift
bash "$test" "$@"
rc=$?
[ $rc = 75 ] || exit $rc
echo "rerun.sh: the kernel held a rank of $(basename "$test") (above); running it once more"
bash "$test" "$@"
rc=$?
[ $rc = 75 ] || exit $rc
echo "SKIP: the kernel held a rank in both runs of $(basename "$test"): railmpi could not be judged"
exit 77
