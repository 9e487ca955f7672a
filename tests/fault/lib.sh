# Shared by the fault tests (tests/fault/*.sh), bench/fault.sh and
# scripts/demo.sh: a 2-host x 2-rail virtual cluster, fault injection on a
# timer, the stress and bandwidth-stream runs, and the checks and figures
# drawn from their output. Sourcing it sources tests/cluster/lib.sh
# (cluster_up, fail, $name, $tmp, $rails, $mgmt; the cluster and $tmp are
# removed on any exit).
#
#   fault_cluster PREFIX [RATE]       2 hosts x 2 rails, both rails shaped to RATE; the
#                                     rails' transport is $RAILMPI_TEST_NET (tcp when
#                                     unset; ofi: libfabric endpoints on the same rails)
#   fault_needs KIND                  skip (77) if this kernel cannot inject KIND
#   fault_start KIND AT [FOR]         in the background: inject KIND AT seconds from
#                                     now (from the stress run's first round, while one
#                                     runs), clear it FOR seconds later (no FOR: never);
#                                     fault_wait waits for every fault started
#   stress_start SECONDS [NAME=VAL..] the stress program for SECONDS, 2 ranks per host
#                                     (linked with $stress_libs first, if set)
#   stress_wait                       wait for it; sets $stress_rc
#   check_stress / check_mid_run / check_gap MAX / check_resume MAX /
#   check_event RAIL WORD / check_mpi_error MAX   the assertions (each calls fail())
#   fault_result DESCRIPTION          OK, or the log and exit 1
#   stream_run SECONDS OUT [NAME=VAL..]   railbench bandwidth over time (+ OUT.err)
#   stream_analyze OUT RAIL_MBS       figures of one stream around the fault window
#
# Fault kinds (host 1 is h1, "rail 1" is the second rail; rail 0 keeps working
# unless the kind says otherwise):
#   nic        host 1's NIC on rail 1 admin down (the host sees it: link down)
#   switch     rail 1's switch stops forwarding (silent: both NICs stay up)
#   partition  both rails' switches down: no path between the hosts at all
#   flap       host 1's NIC on rail 1 goes down and up every 200 ms
#   loss       1 % of packets dropped on rail 1, both directions (iptables)
#   delay      100 ms extra one-way delay on rail 1, both directions (tc netem; on
#              kernels without it, a relay between host 1 and rail 1's switch that
#              holds every frame 100 ms each way: vcluster.sh delay)
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/../cluster" && pwd)/lib.sh"
vc() { bash "$here/vcluster.sh" "$@"; }
now() { date +%s.%N | cut -c1-17; }

# Set by the caller: where bin/mpiexec, bin/mpicc and bin/railbench are (a build
# directory or an installed prefix).
fault_build=${fault_build:?set fault_build before sourcing tests/fault/lib.sh}
fault_pids=() stress_pid=
# Under AddressSanitizer (scripts/test.sh --sanitize) every rank runs about
# twice as slow, under ThreadSanitizer (--tsan) 5-15 times, so the timing
# limits (check_gap, check_resume, check_mpi_error and the tests' own bounds
# and windows through slack) are doubled under ASan and tripled under TSan
# (doubled, CI's TSan run of tests/fault/ofi_delay.sh once paused 6.6 s
# against 6); every other check is unchanged.
case $(sanitizer "$fault_build") in
    tsan) fault_slack=3 ;;
    asan) fault_slack=2 ;;
    *) fault_slack=1 ;;
esac
slack() { awk -v m="$1" -v f="$fault_slack" 'BEGIN { print m * f }'; }

fault_cluster() { # PREFIX [RATE]
    fault_rate=${2:-}
    cluster_up "$1" 2 2 $fault_rate $fault_rate
    # on any exit: stop the fault timer and the job first, then the cluster goes;
    # Ctrl-C or TERM ends the script (through the EXIT trap) instead of resuming it
    # (RAILMPI_TEST_KEEP=DIR: the run's files are copied there first, for a closer look)
    trap 'cluster_exit $?; [ -z "${hold_pid:-}" ] || kill "$hold_pid" 2>/dev/null; fault_stop; [ -z "$stress_pid" ] || kill "$stress_pid" 2>/dev/null
          [ -z "${RAILMPI_TEST_KEEP:-}" ] || { mkdir -p "$RAILMPI_TEST_KEEP" && cp -r "$tmp"/. "$RAILMPI_TEST_KEEP"; }
          vc down "$name" >/dev/null 2>&1; rm -rf "$tmp"; exit $cluster_rc' EXIT
    trap 'exit 130' INT TERM
    hosts="${name}h1,${name}h2"
    mx=("$fault_build/bin/mpiexec" -hosts "$hosts" -launcher-exec "ip netns exec" -iface "${name}mbr"
        -genv RAILMPI_TCP_RAILS "$rails")
    # RAILMPI_TEST_NET=ofi ctest -L fault: every fault test over libfabric endpoints
    fault_net=${RAILMPI_TEST_NET:-tcp}
    if [ "$fault_net" != tcp ]; then
        command -v fi_info >/dev/null && fi_info -p tcp >/dev/null 2>&1 ||
            { echo "SKIP: RAILMPI_TEST_NET=$fault_net but no libfabric tcp provider"; exit 77; }
        mx+=(-genv RAILMPI_NET "$fault_net" -genv RAILMPI_OFI_RAILS "$rails")
        echo "rails over $fault_net"
    fi
    : > "$tmp/faults"
    hold_watch &
    hold_pid=$!
}

# A timer of the test's own, every 20 ms: a wake-up 100 ms or more late means
# the machine held the test's processes (a loaded host, the hypervisor), not
# railmpi; each is noted in $tmp/holds as "hold FROM TO". A timing check that
# fails across such a hold notes it in $tmp/kstall, so the run is judged
# again (tests/cluster/rerun.sh). No forks: read's timeout on a FIFO no one
# writes is the timer.
hold_watch() {
    local fd t0 t1
    trap 'exit 0' TERM
    mkfifo "$tmp/hold.fifo" && exec {fd}<>"$tmp/hold.fifo" || exit 0
    while kill -0 $$ 2>/dev/null; do
        t0=$EPOCHREALTIME
        read -r -t 0.02 -u "$fd"
        t1=$EPOCHREALTIME
        (( ${t1/./} - ${t0/./} >= 120000 )) && echo "hold $t0 $t1" >> "$tmp/holds"
    done
}
# The holds of 100 ms or more that overlap FROM..TO, noted in $tmp/kstall with
# WHAT (the check that failed); true if there was one.
holds_within() { # FROM TO WHAT
    local h
    h=$(awk -v a="$1" -v b="$2" '$1 == "hold" && $3 > a && $2 < b { printf "%s%.0f ms at %.3f", (n++ ? ", " : ""), ($3 - $2) * 1000 - 20, $2 }' \
        "$tmp/holds" 2>/dev/null)
    [ -n "$h" ] || return 1
    echo "machine hold: the test's own 20 ms timer woke late ($h) during $3" >> "$tmp/kstall"
}

# netem replaces the rail's shaping; carry the rate over so only the fault changes.
# The queue limit must hold a bandwidth-delay product, or netem drops instead of delaying.
netem_on() { # RAIL ARGS...
    local r=$1 h; shift
    for h in 1 2; do vc netem "$name" $h $r "$@" limit 100000 ${fault_rate:+rate $fault_rate}; done
}
netem_off() { # RAIL
    local h
    for h in 1 2; do
        if [ -n "$fault_rate" ]; then vc rate "$name" $h "$1" "$fault_rate"; else vc netem "$name" $h "$1" clear; fi
    done
}

fault_apply() { # KIND
    case $1 in
        nic|flap) vc nic-down "$name" 1 1 ;;
        switch) vc switch-down "$name" 1 ;;
        partition) vc switch-down "$name" 0 && vc switch-down "$name" 1 ;;
        loss) vc drop "$name" 1 1 1% && vc drop "$name" 2 1 1% ;;
        delay) if [ "$fault_delay_by" = netem ]; then netem_on 1 delay 100ms; else vc delay "$name" 1 1 100; fi ;;
        *) echo "fault_apply: unknown fault $1" >&2; return 2 ;;
    esac
}
fault_clear() { # KIND
    case $1 in
        nic|flap) vc nic-up "$name" 1 1 ;;
        switch) vc switch-up "$name" 1 ;;
        partition) vc switch-up "$name" 0; vc switch-up "$name" 1 ;;
        loss) # how many packets were dropped: proof the fault was real
            echo "dropped $(for h in 1 2; do vc exec "$name" $h iptables -L OUTPUT -v -x -n; done |
                            awk '/vcluster-drop/ { s += $1 } END { print s + 0 }')" >> "$tmp/faults"
            vc drop "$name" 1 1 clear; vc drop "$name" 2 1 clear ;;
        delay) if [ "$fault_delay_by" = netem ]; then netem_off 1; else vc delay "$name" 1 1 clear; fi ;;
    esac
}

# Round trip (s) from host 1 to host 2 over a rail: a TCP connect to a closed
# port comes back refused after one round trip.
rail_rtt() { # RAIL
    vc exec "$name" 1 python3 -c '
import socket, sys, time
s = socket.socket(); s.settimeout(3); t = time.monotonic()
try: s.connect((sys.argv[1], 9))
except OSError: pass
print("%.3f" % (time.monotonic() - t))' "$(vc addr "$name" 2 "$1")"
}

# Skip (exit 77) when this machine cannot inject KIND: delay needs sch_netem
# or else ethtool and a C compiler (the relay), loss needs iptables' statistic
# match.
fault_delay_by=netem
fault_needs() { # KIND
    case $1 in
        delay)
            if vc netem "$name" 1 1 delay 1ms 2>/dev/null; then netem_off 1
            elif command -v ethtool >/dev/null && command -v cc >/dev/null; then fault_delay_by=relay
            else echo "SKIP: no sch_netem (tc netem) and no ethtool for the delay relay"; exit 77; fi ;;
        loss)
            if vc drop "$name" 1 1 0.1% 2>/dev/null; then vc drop "$name" 1 1 clear
            else echo "SKIP: cannot drop packets with iptables (package iptables, statistic match)"; exit 77; fi ;;
    esac
}

# The fault runs in a subshell on a timer; "start T" and "end T" lines in
# $tmp/faults give the wall times the checks and figures refer to. Its sleeps
# are waited for, so a TERM (fault_stop) ends it at once, sleep included.
fault_start() { # KIND AT [FOR]
    # a sleep that overran by 2 s or more (the machine held this test's
    # processes: once CI's "sleep 6" took 11.2 s and the job ended before
    # the fault was cleared) goes to $tmp/kstall like a kernel stall: a
    # failed run is then run once more (tests/cluster/rerun.sh)
    ( nap() { local t0=$EPOCHREALTIME took; sleep "$1" & nap_pid=$!; wait $nap_pid
              took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$1" 'BEGIN { if (b - a >= n + 2) printf "%.1f", b - a }')
              [ -z "$took" ] || echo "timer stall: the fault's sleep $1 took $took s" >> "$tmp/kstall"; }
      trap 'kill $nap_pid 2>/dev/null; exit 0' TERM
      # on a loaded machine a job may take seconds to start: the timer runs
      # from its first round (up to 30 s of waiting), so the fault strikes
      # mid-run however long the start took
      if [ -n "$stress_pid" ]; then
          local w=0
          while [ $w -lt 300 ] && ! grep -q "^progress " "$tmp/stress.out" 2>/dev/null; do nap 0.1; w=$((w + 1)); done
      fi
      nap "$2"
      # a fault that was never injected must not pass for one that was survived
      fault_apply "$1" || { echo "error $1 could not be injected" >> "$tmp/faults"; exit 1; }
      echo "start $(now)" >> "$tmp/faults"
      # proof that a delay is real: the rail's round trip while it lasts
      [ "$1" != delay ] || echo "rtt $(rail_rtt 1)" >> "$tmp/faults"
      if [ "$1" = flap ]; then # down and up every 200 ms for FOR seconds
          local until=$(( $(date +%s) + ${3:-10} ))
          while [ "$(date +%s)" -lt $until ]; do
              nap 0.2; fault_clear nic; nap 0.2; fault_apply nic
          done
      elif [ -n "${3:-}" ]; then
          nap "$3"
      fi
      if [ -n "${3:-}" ]; then
          fault_clear "$1"
          echo "end $(now)" >> "$tmp/faults"
      fi ) &
    fault_pids+=($!)
}
# Several faults may be on their timers at once (call fault_start for each).
fault_wait() { local p; for p in "${fault_pids[@]}"; do wait "$p" 2>/dev/null; done; fault_pids=(); }
fault_stop() { local p; for p in "${fault_pids[@]}"; do kill "$p" 2>/dev/null; done; fault_wait; }
fault_time() { awk -v k="$1" '$1 == k { print $2; exit }' "$tmp/faults"; }
# End whatever still runs in the cluster's hosts (a killed launcher can leave
# ranks behind), so the next run starts clean.
cluster_reap() {
    local h p
    for h in 1 2; do for p in $(ip netns pids "${name}h$h" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done; done
}

# Long enough that a fault strikes mid-run; the bound stops a hang.
stress_start() { # SECONDS [NAME=VALUE...]
    local secs=$1 env=() kv; shift
    for kv in "$@"; do env+=(-genv "${kv%%=*}" "${kv#*=}"); done
    # $stress_libs (optional): libraries linked before the MPI library, e.g. a PMPI tool
    [ -x "$tmp/stress" ] || "$fault_build/bin/mpicc" -O2 "$here/stress.c" ${stress_libs:-} -o "$tmp/stress" ||
        { echo "FAIL: cannot build stress"; exit 1; }
    stress_bound=$((secs + 40))
    timeout -k 5 $stress_bound "${mx[@]}" -ppn 2 -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 "${env[@]}" \
        "$tmp/stress" "${secs}s" 11 > "$tmp/stress.out" 2>&1 &
    stress_pid=$!
    stress_t0=$(now)
}
stress_wait() { wait "$stress_pid"; stress_rc=$?; stress_t1=$(now); stress_pid=; fault_wait; }

# What went wrong, for the log: the run's last lines and every rail event.
stress_log() {
    echo "--- stress output (tail) and rail events:"
    grep -vE "^progress " "$tmp/stress.out" | tail -15
    [ -f "$tmp/stress.out" ] || return 0
    # the first events (start-up) and the last ones (the fault and after)
    local ev; ev=$(grep -cE " rail event | rail: " "$tmp/stress.out")
    if [ "$ev" -le 50 ]; then
        grep -E " rail event | rail: " "$tmp/stress.out"
    else
        grep -E " rail event | rail: " "$tmp/stress.out" | head -10
        echo "... ($((ev - 40)) more events)"
        grep -E " rail event | rail: " "$tmp/stress.out" | tail -30
    fi
    echo "--- faults:"; cat "$tmp/faults"
}

check_stress() { # the run ended by itself, cleanly, every message verified exactly once
    if [ "$stress_rc" = 124 ] || [ "$stress_rc" = 137 ]; then
        fail "stress hung: killed after $stress_bound s"
    elif [ "$stress_rc" != 0 ]; then
        fail "mpiexec exited with $stress_rc"
    fi
    grep -qE "^OK: [0-9]+ rounds, [0-9]+ messages .* verified exactly once" "$tmp/stress.out" ||
        fail "stress did not report every message verified exactly once"
    # a failure's own lines, and the indented detail a corrupt message adds
    ! grep -q "^FAIL" "$tmp/stress.out" || fail "stress: $(grep -m16 -E "^(FAIL|  )" "$tmp/stress.out")"
}

# The fault must have struck, and been cleared, while messages were flowing;
# otherwise the run proved nothing and must be made longer.
check_mid_run() {
    local s e first last
    s=$(fault_time start) e=$(fault_time end)
    first=$(awk '$1 == "progress" { print $2; exit }' "$tmp/stress.out")
    last=$(awk '$1 == "progress" { t = $2 } END { print t }' "$tmp/stress.out")
    [ -n "$s" ] && [ -n "$first" ] || { fail "no fault or no progress recorded"; return; }
    awk -v a="$first" -v b="$s" 'BEGIN { exit !(a < b) }' || fail "the fault struck before traffic began"
    awk -v a="$last" -v b="${e:-$s}" 'BEGIN { exit !(a > b) }' || fail "the run ended before the fault was over"
}

# No pause between rounds longer than MAX seconds from the fault on: the job
# kept running on the surviving rail instead of waiting for the broken one.
check_gap() { # MAX
    local s gap from to max
    max=$(slack "$1")
    s=$(fault_time start)
    read -r gap from to < <(awk -v s="$s" '$1 == "progress" { if (p != "" && $2 > s) { a = (p > s ? p : s); if ($2 - a > m) { m = $2 - a; f = a; t = $2 } } p = $2 }
                                      END { printf "%.2f %s %s\n", m, f, t }' "$tmp/stress.out")
    if ! awk -v g="$gap" -v m="$max" 'BEGIN { exit !(g <= m) }'; then
        fail "traffic stalled for $gap s after the fault, from $from to $to (at most $max s allowed)"
        holds_within "$from" "$to" "that stall" || true
    fi
    echo "longest pause after the fault: $gap s"
}

# Once the fault was cleared, traffic must be flowing again within MAX seconds.
check_resume() { # MAX
    local e took at max
    max=$(slack "$1")
    e=$(fault_time end)
    read -r took at < <(awk -v e="$e" '$1 == "progress" && $2 > e { printf "%.2f %s\n", $2 - e, $2; exit }' "$tmp/stress.out")
    [ -n "$took" ] || { fail "no progress after the fault was cleared"; return; }
    if ! awk -v t="$took" -v m="$max" 'BEGIN { exit !(t <= m) }'; then
        fail "traffic resumed $took s after the fault was cleared (at most $max s allowed)"
        holds_within "$e" "$at" "the wait for traffic" || true
    fi
    echo "traffic resumed $took s after the fault was cleared"
}

# A rail event with this word for this rail (a regex: '[0-9,]+' for any, or a
# list such as "rails 0,1"), logged by some rank (RAILMPI_VERBOSE=1).
check_event() { # RAIL WORD
    grep -qE " rail event [0-9.]+ peer [0-9]+ rails? $1: $2" "$tmp/stress.out" ||
        fail "no '$2' rail event for rail $1"
}

# The job must end by itself, soon after the fault, with an MPI error that names
# the peer and the rail: not a hang, not a silent success.
check_mpi_error() { # SECONDS: latest end after the fault
    local s took max
    max=$(slack "$1")
    s=$(fault_time start)
    if [ "$stress_rc" = 124 ] || [ "$stress_rc" = 137 ]; then
        fail "hung: killed after $stress_bound s instead of failing with an MPI error"
    elif [ "$stress_rc" = 0 ]; then
        fail "the job succeeded; expected an MPI error"
    fi
    grep -E "MPI_ERR" "$tmp/stress.out" | grep -E "(peer|rank) [0-9]+" | grep -qE "rails? [0-9]" ||
        fail "no MPI error naming the peer and the rail"
    if [ -n "$s" ]; then
        took=$(awk -v a="$stress_t1" -v b="$s" 'BEGIN { printf "%.1f", a - b }')
        if ! awk -v t="$took" -v m="$max" 'BEGIN { exit !(t <= m) }'; then
            fail "the error came $took s after the fault (at most $max s)"
            holds_within "$s" "$stress_t1" "the wait for the error" || true
        fi
        echo "job ended $took s after the fault (exit $stress_rc)"
    fi
}

fault_result() { # TEST-DESCRIPTION
    ! grep -q "^error" "$tmp/faults" || fail "$(grep -m1 "^error" "$tmp/faults")"
    if [ $fails = 0 ]; then echo "OK: $1"; else stress_log; exit 1; fi
}

# railbench's bandwidth stream: 16 MiB per iteration (16 x 1 MiB), every message
# verified, one "unixtime MB/s" line per iteration in OUT, stderr (rail events,
# stats) in OUT.err.
stream_block=$((16 * 1048576))
stream_run() { # SECONDS OUT [NAME=VALUE...]
    local secs=$1 out=$2 env=() kv; shift 2
    for kv in "$@"; do env+=(-genv "${kv%%=*}" "${kv#*=}"); done
    timeout -k 5 $((secs + 60)) "${mx[@]}" -genv RAILMPI_VERBOSE 1 -genv RAILMPI_STATS 1 "${env[@]}" \
        "$fault_build/bin/railbench" -t bw -T "$secs" -a -c -m 1048576:1048576 -w 16 > "$out" 2> "$out.err"
}

# Figures of one stream around a fault from $tmp/faults, as NAME=VALUE lines
# (times in seconds, rates in MB/s; "-" when the stream never got there):
#   t0         when the stream began (wall time); fault, restore: offsets from t0
#              (a fault never cleared counts as lasting to the end: restore "-")
#   before     rate before the fault
#   during     bytes delivered while the rail was down / the time it was down
#   failover   from the fault until an iteration ran at >= 80 % of RAIL_MBS
#              (the surviving rail alone); "-" if none before the rail was back
#   single     rate from failover + 0.5 s until the rail came back
#   back       from the restore until an iteration ran at >= 90 % of "before"
#   after      rate from then (or from the restore) to the end
#   detected, railup: from the rail events (RAILMPI_VERBOSE), if logged
#   stall      the longest iteration from the fault on (how long traffic stood still)
#   verified, bad: messages railbench checked
# An iteration's start is its end minus its bytes over its rate; a rate over a
# window counts each iteration's bytes pro rata to its overlap with the window.
stream_analyze() { # OUT RAIL_MBS
    local s e
    s=$(fault_time start) e=$(fault_time end)
    awk -v B="$stream_block" -v fs="${s:-0}" -v fe="${e:-0}" -v rail="$2" -v errf="$1.err" '
        function rate(a, b,   i, ov, by) { # MB/s delivered in [a, b]
            if (b <= a) return "-"
            by = 0
            for (i = 1; i <= n; i++) {
                ov = (en[i] < b ? en[i] : b) - (st[i] > a ? st[i] : a)
                if (ov > 0) by += B * ov / (en[i] - st[i])
            }
            return sprintf("%.0f", by / (b - a) / 1e6)
        }
        function rel(x) { return x == "-" ? "-" : sprintf("%.2f", x) }
        /^#/ { if ($2 == "verified") { ver = $3; bad = $(NF - 1) } next }
        NF == 2 && $2 > 0 { n++; en[n] = $1; r[n] = $2; st[n] = $1 - B / ($2 * 1e6) }
        END {
            if (!n) { print "error=no stream output"; exit }
            t0 = st[1]
            # skip the first second: connections and buffers warm up
            before = rate(t0 + 1, fs); fo = "-"; back = "-"
            restored = fe > 0; if (!restored) fe = en[n] # a fault never cleared lasts to the end
            for (i = 1; i <= n; i++) if (en[i] > fs && r[i] >= 0.8 * rail) { fo = st[i] - fs; if (fo < 0) fo = 0; break }
            if (fo != "-" && restored && fs + fo > fe) fo = "-"
            for (i = 1; restored && i <= n; i++) if (st[i] >= fe - 0.05 && r[i] >= 0.9 * before) { back = st[i] - fe; if (back < 0) back = 0; break }
            print "t0=" sprintf("%.6f", t0)
            print "fault=" sprintf("%.2f", fs - t0); print "restore=" (restored ? sprintf("%.2f", fe - t0) : "-")
            print "before=" before; print "during=" rate(fs, fe)
            print "failover=" rel(fo); print "single=" (fo == "-" ? "-" : rate(fs + fo + 0.5, fe))
            print "back=" rel(back); print "after=" rate(fe + (back == "-" ? 0 : back), en[n])
            det = "-"; up = "-"
            while ((getline line < errf) > 0)
                if (line ~ / rail event [0-9.]+ peer [0-9]+ rail 1: /) {
                    split(substr(line, index(line, "rail event ") + 11), w, " ")
                    if (det == "-" && line ~ /: failed/ && w[1] >= fs) det = w[1] - fs
                    if (up == "-" && line ~ /: up/ && w[1] >= fe) up = w[1] - fe
                }
            print "detected=" rel(det); print "railup=" rel(up)
            # the longest iteration ending after the fault: how long traffic stood still
            for (i = 1; i <= n; i++) if (en[i] > fs && en[i] - st[i] > stall) stall = en[i] - st[i]
            print "stall=" sprintf("%.2f", stall)
            print "verified=" (ver == "" ? "-" : ver); print "bad=" (bad == "" ? "-" : bad)
        }' "$1"
}
