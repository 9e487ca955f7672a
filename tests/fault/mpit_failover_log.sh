#!/bin/bash
# MPI_T events seen by a tool: the stress program, built without any tool,
# runs 10 s on 2 hosts x 2 rails (2 ranks per host) with
# examples/mpit_failover_log.c preloaded (LD_PRELOAD, one log file per rank).
# 2 s in, host 1's NIC on rail 1 goes down for 3 s. Every message still
# arrives, and the logs show, through the tool's event callbacks, rail 1's
# paths failing and coming back up between ranks of different hosts, with
# the peer, rail, reason and a time inside the run; rail 0 shows no failure.
# Root only; torn down on exit.
set -u
fault_build=$1
. "$(dirname "$0")/lib.sh"
fault_cluster e 1gbit
tool=$fault_build/lib/libmpit_failover_log.so
[ -f "$tool" ] || { echo "FAIL: $tool not built"; exit 1; }
preload=$tool
# under ASan its runtime must come first in the preload list
[ "$(sanitizer "$fault_build")" != asan ] || preload="$(cc -print-file-name=libasan.so) $tool"
stress_start 10 LD_PRELOAD="$preload" MPIT_FAILOVER_LOG="$tmp/failover.%r"
fault_start nic 2 3
stress_wait
check_stress
check_event 1 failed
# mpit_failover_log: rank R t=T EVENT peer P rail K reason WHY
logs() { cat "$tmp"/failover.* 2>/dev/null; }
[ -n "$(logs)" ] || fail "the tool wrote no log (files: $(ls "$tmp" | tr '\n' ' '))"
# ranks 0,1 on host 1 and 2,3 on host 2: a rail-1 path failure is between hosts
cross() { awk -v ev="$1" -v why="$2" '$1 == "mpit_failover_log:" && $5 == ev && $9 == 1 && $11 ~ why {
              r = $3; p = $7; if (int(r / 2) != int(p / 2) && $4 ~ /^t=[0-9.]+$/) n++ } END { print n + 0 }'; }
failed=$(logs | cross rail_path_failed 'error|silence')
up=$(logs | cross rail_path_up 'probed')
[ "$failed" -ge 1 ] || fail "no rail_path_failed on rail 1 between hosts in the tool's log"
[ "$up" -ge 1 ] || fail "no rail_path_up (reason probed) on rail 1 between hosts in the tool's log"
logs | awk '$5 == "rail_path_failed" && $9 == 0 { bad = 1 } END { exit bad }' || fail "the log shows rail 0 failing"
# each failure the engine reported, the tool saw: as many on rail 1 as the ranks logged
engine=$(grep -cE "rail event [0-9.]+ peer [0-9]+ rail 1: failed" "$tmp/stress.out")
[ "$failed" = "$engine" ] || fail "the tool logged $failed rail-1 failures, the ranks reported $engine"
echo "tool log: $failed failures and $up recoveries on rail 1 (ranks' own event lines: $engine failures)"
[ $fails = 0 ] || { echo "--- tool log:"; logs | head -20; }
fault_result "a preloaded MPI_T event tool logs rail 1's failure and recovery"
