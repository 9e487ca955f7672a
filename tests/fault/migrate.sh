#!/bin/bash
# Operator-driven path migration: while a verified bandwidth stream runs over
# 2 hosts x 2 rails, `mpiexec -migrate off 1` (from another shell) moves the
# traffic off rail 1 — the rail's interface goes quiet while rail 0 carries
# everything — and `mpiexec -migrate on 1` brings it back. Every message
# arrives intact, both ranks report the migrations, and malformed or
# misdirected commands get a clear error. Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster g 1gbit
mpiexec=$fault_build/bin/mpiexec
rx() { vc exec "$name" 2 cat /sys/class/net/rail$1/statistics/rx_bytes; }
# bytes received by host 2 on rail $1 over $2 seconds
# (windows and waits are stretched by $fault_slack: under TSan the ranks are slower)
rx_over() { local a b; a=$(rx "$1"); sleep "$(slack "$2")"; b=$(rx "$1"); echo $((b - a)); }

# Under TSan the adaptive policy measures the sanitizer's slowdown, not the
# rails, and may leave rail 1 idle before any migration: stripe evenly there.
policy=()
[ "$fault_slack" = 1 ] || policy=(-genv RAILMPI_RAIL_POLICY even)
# mpiexec itself is the job's pid: its own --timeout bounds the run
"${mx[@]}" --timeout 60 -genv RAILMPI_VERBOSE 1 "${policy[@]}" "$fault_build/bin/railbench" -T "$(slack 9)" -a -c -w 8 \
    -m 1048576:1048576 > "$tmp/stream" 2> "$tmp/stream.err" &
job=$!
stress_pid=$job # the EXIT trap kills it if the test ends early
sleep "$(slack 2.5)"
both0=$(rx_over 0 1) both1=$(rx_over 1 1)

"$mpiexec" -migrate off 1 -job $job > "$tmp/cmd" 2>&1 || fail "migrate off: $(cat "$tmp/cmd")"
grep -q "^mpiexec: job $job: ok: passed to the ranks of 2 of 2 hosts$" "$tmp/cmd" ||
    fail "migrate off: unexpected answer: $(cat "$tmp/cmd")"
sleep "$(slack 0.5)"
off1=$(rx_over 1 2) off0=$(rx_over 0 0.2)

"$mpiexec" -migrate on 1 -job $job > "$tmp/cmd" 2>&1 || fail "migrate on: $(cat "$tmp/cmd")"
sleep "$(slack 0.5)"
on1=$(rx_over 1 2)

# a malformed command is refused before it reaches the job; a job that does
# not exist is named as such
"$mpiexec" -migrate sideways 1 -job $job > "$tmp/cmd" 2>&1 && fail "a malformed command was accepted"
grep -q "expected 'migrate off RAIL' or 'migrate on RAIL'" "$tmp/cmd" || fail "malformed: $(cat "$tmp/cmd")"
"$mpiexec" -migrate off 99 -job $job > "$tmp/cmd" 2>&1 && fail "rail 99 was accepted"
"$mpiexec" -migrate off 1 -job 999999999 > "$tmp/cmd" 2>&1 && fail "a job that does not exist was reached"
grep -q "cannot reach the job of mpiexec 999999999" "$tmp/cmd" || fail "no job: $(cat "$tmp/cmd")"
"$mpiexec" -migrate off 1 -job $job ./prog > "$tmp/cmd" 2>&1 && fail "-migrate with a program was accepted"

wait $job
rc=$?
stress_pid=
[ $rc = 0 ] || fail "the stream's mpiexec exited with $rc"
grep -qE '^# verified [1-9][0-9]* messages of 1048576 bytes intact and in place, 0 bad$' "$tmp/stream" ||
    fail "stream: not every message verified: $(grep '^#' "$tmp/stream")"
echo "rail 1 bytes into host 2: striped $both1 per s, migrated off $off1 in 2 s, back on $on1 in 2 s;" \
     "rail 0 while both carry: $both0 per s"
# striped, rail 1 carried a good share; migrated off, only heartbeats and
# probes (a few hundred bytes a second); back on, a good share again
[ "$both1" -gt 10000000 ] || fail "rail 1 carried too little before the migration ($both1 B/s)"
[ "$off1" -lt 100000 ] || fail "rail 1 still carried $off1 bytes in 2 s after 'migrate off'"
[ "$off0" -gt 2000000 ] || fail "rail 0 did not carry the traffic after 'migrate off' ($off0 B in 0.2 s)"
[ "$on1" -gt 20000000 ] || fail "rail 1 did not take traffic again after 'migrate on' ($on1 B in 2 s)"
grep -q "mpiexec: operator command: migrate off 1" "$tmp/stream.err" || fail "mpiexec did not log the command"
for r in 0 1; do
    grep -qE "^railmpi\[$r\]: rail event .* rail 1: migrated " "$tmp/stream.err" ||
        fail "rank $r reported no migration off rail 1"
    grep -qE "^railmpi\[$r\]: rail event .* rail 1: up \(traffic back on this rail by request\)" "$tmp/stream.err" ||
        fail "rank $r reported no return to rail 1"
done
[ $fails = 0 ] || { echo "--- stream:"; tail -5 "$tmp/stream"; grep -E "rail|mpiexec" "$tmp/stream.err" | head -20; }
fault_result "operator migration off rail 1 and back during a verified stream"
