#!/bin/bash
# mpiexec behaviour: exit status, failures, signals, timeouts, output
# forwarding, environment, and that no process outlives a job.
set -u
build=$1
bin=$build/bin
tmp=$(mktemp -d)
trap 'pkill -KILL -f "$tmp/actor" 2>/dev/null; rm -rf "$tmp"' EXIT
"$bin/mpicc" -O1 "$(dirname "$0")/actor.c" -o "$tmp/actor" || { echo "FAIL: cannot build actor"; exit 1; }
. "$(dirname "$0")/lib.sh"
orphans() { # no process of the job left
    sleep 0.3
    if pgrep -f "$tmp/actor" >/dev/null || pgrep -f "sleep 3[0-9]" -P 1 >/dev/null; then
        fail "processes left behind after: $1"; pgrep -af "$tmp/actor|sleep 3"
        pkill -KILL -f "$tmp/actor"; pkill -KILL -f "sleep 3[0-9]"
    fi
}
run() { timeout 60 "$bin/mpiexec" "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }

rc=$(run -n 3 "$tmp/actor" exit 1 3)
[ "$rc" = 3 ] || fail "rank exiting 3: mpiexec returned $rc"
grep -q "rank 1 (pid [0-9]*) exited with code 3" "$tmp/err" || fail "exit message: $(cat "$tmp/err")"
orphans "exit code"

# an MPI process that ends with 0 but never finalizes fails the job; a
# program that is not an MPI program (never says PMI init) does not
rc=$(run -n 3 "$tmp/actor" exit 1 0)
[ "$rc" = 1 ] || fail "rank exiting 0 without MPI_Finalize: mpiexec returned $rc"
grep -q "rank 1 (pid [0-9]*) exited without calling MPI_Finalize" "$tmp/err" || fail "no-finalize message: $(cat "$tmp/err")"
orphans "exit without finalize"
for i in 1 2 3 4 5 6 7 8 9 10; do
    rc=$(run -n 3 /bin/true)
    [ "$rc" = 0 ] || { fail "a non-MPI program, run $i: mpiexec returned $rc: $(cat "$tmp/err")"; break; }
done

rc=$(ASAN_OPTIONS=handle_segv=0 run -n 2 "$tmp/actor" segv 1)
[ "$rc" = 139 ] || fail "SIGSEGV: mpiexec returned $rc"
grep -q "rank 1 .*signal 11" "$tmp/err" || fail "signal message: $(cat "$tmp/err")"
orphans "segv"

rc=$(run -n 4 "$tmp/actor" abort 2 7)
[ "$rc" = 7 ] || fail "MPI_Abort(7): mpiexec returned $rc"
grep -q "rank 2 .*MPI_Abort with code 7" "$tmp/err" || fail "abort message: $(cat "$tmp/err")"
orphans "abort"

# a rank killed just after the others abort (as when a peer's death fails
# their calls and the launcher hears of the aborts first): the death is the
# cause mpiexec reports
rc=$(run -n 3 "$tmp/actor" killed 1 5)
[ "$rc" = 137 ] || fail "a death then aborts: mpiexec returned $rc: $(cat "$tmp/err")"
grep -q "rank 1 (pid [0-9]*) was killed by signal 9" "$tmp/err" || fail "death before aborts: $(cat "$tmp/err")"
orphans "death then aborts"

rc=$(run -n 2 "$tmp/actor" badsend 0)
[ "$rc" != 0 ] || fail "fatal MPI error: mpiexec returned 0"
grep -q "rank 0: MPI_Send: MPI_ERR_RANK" "$tmp/err" || fail "fatal error message: $(cat "$tmp/err")"
orphans "fatal error"

rc=$(run -n 2 --timeout 2 "$tmp/actor" sleep 30)
[ "$rc" = 124 ] || fail "--timeout: mpiexec returned $rc"
grep -q "timeout" "$tmp/err" || fail "timeout message"
orphans "timeout"

# SIGTERM and SIGKILL to mpiexec itself
"$bin/mpiexec" -n 2 "$tmp/actor" sleep 31 >/dev/null 2>&1 &
pid=$!; sleep 1; kill -TERM $pid; wait $pid; rc=$?
[ "$rc" != 0 ] || fail "SIGTERM: mpiexec returned 0"
orphans "SIGTERM to mpiexec"
"$bin/mpiexec" -n 2 "$tmp/actor" sleep 32 >/dev/null 2>&1 &
pid=$!; sleep 1; kill -KILL $pid; wait $pid 2>/dev/null
orphans "SIGKILL to mpiexec"

# output: labels, line by line, stdin to rank 0
rc=$(printf 'hello\nworld\n' | timeout 60 "$bin/mpiexec" -n 3 -l "$tmp/actor" echo >"$tmp/out" 2>"$tmp/err"; echo $?)
[ "$rc" = 0 ] || fail "echo job returned $rc"
for r in 0 1 2; do
    grep -qx "\[$r\] line one from $r" "$tmp/out" || fail "labelled line from $r missing"
    grep -qx "\[$r\] line two from $r" "$tmp/out" || fail "second line from $r missing"
done
grep -qx "\[0\] stdin: world" "$tmp/out" || fail "stdin did not reach rank 0"
[ "$(grep -c stdin "$tmp/out")" = 2 ] || fail "stdin reached more than rank 0"

# environment
rc=$(run -n 2 -genv RM_TEST_VAR xyz "$tmp/actor" env RM_TEST_VAR)
[ "$(grep -c 'RM_TEST_VAR=xyz' "$tmp/out")" = 2 ] || fail "-genv not passed: $(cat "$tmp/out")"
rc=$(RM_TEST_EXPORTED=yes run -n 2 -genv RAILMPI_LOCAL_RANK 7 "$tmp/actor" env RM_TEST_EXPORTED RAILMPI_LOCAL_RANK)
[ "$(grep -cx 'RM_TEST_EXPORTED=yes' "$tmp/out")" = 2 ] || fail "exported variable not passed: $(cat "$tmp/out")"
grep -qx 'RAILMPI_LOCAL_RANK=0' "$tmp/out" && grep -qx 'RAILMPI_LOCAL_RANK=1' "$tmp/out" ||
    fail "-genv overrode what mpiexec tells a rank about itself: $(cat "$tmp/out")"
rc=$(RM_TEST_EXPORTED=yes run -n 2 -genvnone -genv RM_TEST_VAR "" "$tmp/actor" env RM_TEST_EXPORTED RM_TEST_VAR)
[ "$(grep -cx 'RM_TEST_EXPORTED=(unset)' "$tmp/out")" = 2 ] && [ "$(grep -cx 'RM_TEST_VAR=' "$tmp/out")" = 2 ] ||
    fail "-genvnone: $(cat "$tmp/out")"

# usage errors are clear, not crashes
rc=$(run -n 2 --no-such-option "$tmp/actor")
[ "$rc" = 2 ] && grep -q "unknown" "$tmp/err" || fail "unknown option: rc $rc"
rc=$(run -n 2 /nonexistent/program)
[ "$rc" != 0 ] && grep -q "cannot run" "$tmp/err" || fail "missing program: rc $rc"
"$bin/mpiexec" --help-vars | grep -q RAILMPI_EAGER_THRESHOLD || fail "--help-vars"
"$bin/mpiexec" --help | grep -q -- "-genv" || fail "--help"

# a singleton (no launcher)
"$tmp/actor" env PMI_FD >"$tmp/out" 2>&1 || fail "singleton run failed"

# compiler wrapper queries
"$bin/mpicc" -show | grep -q -- "-lmpi" || fail "mpicc -show"
"$bin/mpicc" -compile-info | grep -q -- "-I" || fail "mpicc -compile-info"
"$bin/mpicc" -link-info | grep -q -- "-Wl,-rpath" || fail "mpicc -link-info"

# -initial-errhandler (MPI-4.1 9.3): the ranks' initial error handler; an error
# before MPI_Init returns under mpi_errors_return and ends the job by default
# (tests/mpi/errh_initial.c checks the rest inside the program); a name that
# is no predefined handler is refused
eh=$build/tests/mpi/mpi_errh_initial
rc=$(run -initial-errhandler mpi_errors_return -n 2 "$eh" --from-mpiexec)
[ "$rc" = 0 ] && grep -q "^OK" "$tmp/out" || fail "-initial-errhandler mpi_errors_return: rc $rc: $(cat "$tmp/out" "$tmp/err")"
rc=$(run -n 1 "$eh" --from-mpiexec)
[ "$rc" != 0 ] && grep -q "MPI_Info_get: MPI_ERR_INFO" "$tmp/err" || fail "default initial handler: rc $rc: $(cat "$tmp/err")"
rc=$(run -initial-errhandler mpi_errors_everywhere -n 1 "$eh")
[ "$rc" = 2 ] && grep -q "is none of" "$tmp/err" || fail "a bad -initial-errhandler: rc $rc: $(cat "$tmp/err")"
orphans "initial error handler"

[ $fails = 0 ] && echo "OK: launcher" || exit 1
