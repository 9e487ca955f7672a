#!/bin/bash
# The test harness's kernel-stall rule (tests/cluster/lib.sh, rerun.sh): a run
# that fails after the kernel held one of its processes in uninterruptible
# sleep for seconds exits 75, not 1, with the stall shown; rerun.sh runs such
# a test again and reports two such runs as skipped (77); a failure without a
# stall stays a failure, and a stall in a run that passes changes nothing.
# The stall is made with vfork(): the parent waits, uninterruptible, until
# its child (which sleeps 3 s) exits. Root only; every cluster torn down.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v cc >/dev/null || { echo "SKIP: no C compiler"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/hold.c" <<'C'
#include <unistd.h>
int main(void)
{
    if (vfork() == 0) { /* the parent stays in D until this ends */
        sleep(3);
        _exit(0);
    }
    return 0;
}
C
cc -O2 "$work/hold.c" -o "$work/hold" || { echo "FAIL: cannot build the stall program"; exit 1; }
# an inner test: STALL (1: hold a process of host 1) and RESULT (pass|fail)
cat > "$work/inner.sh" <<EOF2
set -u
. "$here/lib.sh"
cluster_up q 2 1
[ \$1 = 0 ] || bash "$here/vcluster.sh" exec "\$name" 1 "$work/hold"
[ \$2 = pass ] || fail "the inner test fails"
[ \$fails = 0 ] || exit 1
echo "OK: inner"
EOF2
fails=0
check() { # WHAT WANT-STATUS WANT-TEXT OUT STATUS
    if [ "$5" != "$2" ] || ! grep -q "$3" <<<"$4"; then
        echo "FAIL: $1: status $5 (want $2), output:"; echo "$4" | tail -8; fails=$((fails + 1))
    fi
}
out=$(timeout 60 bash "$work/inner.sh" 1 fail 2>&1); rc=$?
check "a failure after a 3 s stall" 75 "kernel stall: .* held uninterruptible for [0-9]* ms so far" "$out" $rc
out=$(timeout 60 bash "$work/inner.sh" 0 fail 2>&1); rc=$?
check "a failure without a stall" 1 "FAIL: the inner test fails" "$out" $rc
out=$(timeout 60 bash "$work/inner.sh" 1 pass 2>&1); rc=$?
check "a pass with a stall" 0 "OK: inner" "$out" $rc
out=$(timeout 120 bash "$here/rerun.sh" "$work/inner.sh" 1 fail 2>&1); rc=$?
check "rerun.sh, a stall in both runs" 77 "SKIP: the kernel held a rank in both runs" "$out" $rc
[ "$(grep -c "^kernel stall: .*held" <<<"$out")" = 2 ] || { echo "FAIL: rerun.sh did not run the test twice"; fails=$((fails + 1)); }
out=$(timeout 60 bash "$here/rerun.sh" "$work/inner.sh" 0 fail 2>&1); rc=$?
check "rerun.sh, a failure without a stall" 1 "FAIL: the inner test fails" "$out" $rc
! grep -q "running it once more" <<<"$out" || { echo "FAIL: rerun.sh reran a plain failure"; fails=$((fails + 1)); }
# The fault tests' machine-hold rule (tests/fault/lib.sh, hold_watch): a timing
# check that fails across a time the test's own timer was held (here: its
# watcher stopped for 0.4 s, as a loaded machine would) exits 75 with the hold
# shown; without the hold the same failure stays a failure.
cat > "$work/inner_fault.sh" <<EOF2
set -u
fault_build=$build
. "$here/../fault/lib.sh"
fault_cluster r
t0=\$EPOCHREALTIME
sleep 0.2 # the watcher is running
if [ \$1 = 1 ]; then kill -STOP \$hold_pid; sleep 0.4; kill -CONT \$hold_pid; fi
sleep 0.3
printf 'progress %s\nprogress %s\n' "\$t0" "\$EPOCHREALTIME" > "\$tmp/stress.out"
echo "start \$t0" > "\$tmp/faults"
check_gap 0.1
[ \$fails = 0 ] || exit 1
EOF2
out=$(timeout 60 bash "$work/inner_fault.sh" 1 2>&1); rc=$?
check "a stall check failed across a machine hold" 75 "machine hold: the test's own 20 ms timer woke late ([0-9]* ms at" "$out" $rc
out=$(timeout 60 bash "$work/inner_fault.sh" 0 2>&1); rc=$?
check "a stall check failed without a hold" 1 "FAIL: traffic stalled for 0\.[5-9]" "$out" $rc
grep -q "machine hold" <<<"$out" && { echo "FAIL: a hold was noted where there was none"; fails=$((fails + 1)); }
[ -z "$(ip netns list | grep -E '^[qr][0-9]*h')" ] || { echo "FAIL: a cluster was left behind"; fails=$((fails + 1)); }
[ $fails = 0 ] || exit 1
echo "OK: kernel stalls and machine holds are told from failures; rerun.sh runs a stalled failure once more"
