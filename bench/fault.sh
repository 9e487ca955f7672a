#!/bin/bash
# What faults cost, on 2 virtual hosts x 2 rails shaped to 2 Gbit/s each
# (tests/cluster/vcluster.sh; root only; the cluster is removed on any exit):
#   (a) no fault: latency (8 B) and bandwidth (4 MiB) with RAILMPI_FT=1 vs 0,
#       median of 3 alternating runs            target: FT=1 within 3 % of FT=0
#   (b) rail 1 down mid-stream (host 1's NIC): time until traffic flows on rail
#       0 alone (an iteration at >= 80 % of rail 0's own rate), median of 5
#       runs                                    target <= 0.5 s
#       and the rate then vs rail 0 alone       target >= 0.95
#   (c) rail 1 back: time until an iteration runs at >= 90 % of the rate
#       before the fault, median of the same runs      target <= 2 s
#   (d) a compute + allreduce loop of about 60 s (bench/ft_loop.c), fault-free
#       vs 3 faults injected (NIC down, switch down, NIC down, 3 s each), with
#       80 ms and with 400 ms of compute per 4 MiB allreduce
#                                               target: within 5 %
#   MPICH and Open MPI through the (b) fault (railbench built against each),
#   and all three MPIs with rail 1 down for good, each killed after a bound:
#   "hung (killed after N s)" when they never finish.
#   (e) all three with rail 1 flapping (host 1's NIC down and up every 200 ms
#       for 10 s, from 4 s into a 16 s stream): the longest iteration from the
#       flapping on (how long traffic stood still) and the rate while it
#       flapped against rail 0's own rate.
# (tests/cluster/lib.sh sets $here to its own directory, hence $bdir.)
# The streams are railbench -t bw -T (tests/fault/lib.sh: stream_run,
# stream_analyze). Benchmarks, not tests: numbers and ratios are printed,
# targets are not enforced.
#   bench/fault.sh [--build DIR] [--markdown] [--quick]
# --quick: 1 run in (b)/(c), a 20 s loop in (d), no MPICH or Open MPI (for trying it out).
# RAILMPI_TEST_NET=ofi: railmpi's rails over the libfabric transport (tests/fault/lib.sh).
set -u
bdir=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$bdir")
build=$top/build
md=0 quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        --quick) quick=1 ;;
        *) echo "usage: bench/fault.sh [--build DIR] [--markdown] [--quick]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/fault.sh: needs root (network namespaces)" >&2; exit 1; }
[ -x "$build/bin/mpiexec" ] || { echo "bench/fault.sh: build railmpi first ($build)" >&2; exit 1; }
fault_build=$build
. "$top/tests/fault/lib.sh"
. "$bdir/peers.sh"
runs=5 loop_s=60 peers="mpich openmpi"
[ $quick = 1 ] && runs=1 loop_s=20 peers=""
log() { echo "$*" >&2; } # progress goes to stderr, the table to stdout
fault_cluster b 2gbit
peers_init
rail0=$(vc net "$name" 0)
"$build/bin/mpicc" -O2 "$bdir/ft_loop.c" -o "$tmp/ft_loop" || exit 1
for p in $peers; do
    mpicc.$p -O2 -w -I"$top/src" "$top/tools/railbench/railbench.c" "$top/tools/railbench/transport.c" \
        "$top"/src/util/{rails,config,log,sock}.c -o "$tmp/railbench.$p" ||
        { echo "bench/fault.sh: cannot build railbench against $p" >&2; exit 1; }
done
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == "" || b == "" || b == 0) print "-"; else printf "%.3f", a / b }'; }
rb() { "$build/bin/railbench" "$@"; }

# (a) no fault: FT on vs off, alternating so drifting load hits both alike
log "(a) no fault: RAILMPI_FT=1 vs RAILMPI_FT=0 ..."
for i in 1 2 3; do
    for ft in 1 0; do
        peer_run railmpi 120 -genv RAILMPI_FT $ft "$build/bin/railbench" -t lat -m 8:8 -i 2000 2>/dev/null |
            awk '!/^#/ { print $2 }' >> "$tmp/lat.$ft"
        peer_run railmpi 120 -genv RAILMPI_FT $ft "$build/bin/railbench" -t bw -m 4194304:4194304 -w 8 -i 20 -x 2 \
            2>/dev/null | awk '!/^#/ { print $2 }' >> "$tmp/bw.$ft"
    done
done
lat1=$(median < "$tmp/lat.1") lat0=$(median < "$tmp/lat.0")
bw1=$(median < "$tmp/bw.1") bw0=$(median < "$tmp/bw.0")

# rail 0 alone: the rate failover should keep
log "rail 0 alone ..."
stream_run 4 "$tmp/one.dat" RAILMPI_TCP_RAILS="$rail0" RAILMPI_OFI_RAILS="$rail0"
one=$(awk '!/^#/ && NF == 2 { if (!t0) t0 = $1; if ($1 - t0 > 1) { s += $2; n++ } } END { if (n) printf "%.0f", s / n; else print "-" }' "$tmp/one.dat")

# (b) + (c): rail 1 down 4 s into a 14 s stream, back 5 s later
: > "$tmp/bc"
for i in $(seq $runs); do
    log "(b)/(c) run $i of $runs: rail 1 down at 4 s, back at 9 s ..."
    : > "$tmp/faults"
    fault_start nic 4 5
    stream_run 14 "$tmp/s$i.dat"
    fault_wait
    stream_analyze "$tmp/s$i.dat" "$one" > "$tmp/s$i.fig"
    cluster_reap
    ( . "$tmp/s$i.fig" 2>/dev/null; echo "${failover:--} ${single:--} ${back:--} ${before:--} ${verified:--} ${bad:--}" ) >> "$tmp/bc"
done
fo=$(awk '$1 != "-" { print $1 }' "$tmp/bc" | median)
nofo=$(awk '$1 == "-"' "$tmp/bc" | wc -l)
single=$(awk '$2 != "-" { print $2 }' "$tmp/bc" | median)
back=$(awk '$3 != "-" { print $3 }' "$tmp/bc" | median)
noback=$(awk '$3 == "-"' "$tmp/bc" | wc -l)
bad=$(awk '{ s += ($6 == "-" ? 0 : $6) } END { print s + 0 }' "$tmp/bc")

# railbench's stream under one MPI (built against it) for SECONDS while fault
# KIND strikes 4 s in (cleared FOR s later; no FOR: never), into $tmp/IMPL.KIND;
# when the run did not finish, prints what happened instead and returns 1.
fault_stream() { # IMPL KIND SECONDS BOUND [FOR]
    local impl=$1 kind=$2 secs=$3 bound=$4 rc prog=$tmp/railbench.$1
    [ "$impl" = railmpi ] && prog=$build/bin/railbench
    : > "$tmp/faults"
    fault_start "$kind" 4 ${5:-}
    peer_run "$impl" "$bound" "$prog" -t bw -T "$secs" -a -m 1048576:1048576 -w 16 \
        > "$tmp/$impl.$kind" 2> "$tmp/$impl.$kind.err"
    rc=$?
    fault_wait
    cluster_reap
    [ -n "${5:-}" ] || vc nic-up "$name" 1 1 # for the next run
    if [ $rc = 124 ] || [ $rc = 137 ]; then echo "hung (killed after $bound s)"; return 1; fi
    [ $rc = 0 ] || { echo "failed (exit $rc)"; return 1; }
}

# The (b) fault under each MPI, cleared after 5 s as in (b), or never: then
# only failing over keeps the stream going.
peer_fig() { # IMPL [FOR] -> one line: what happened
    fault_stream "$1" nic 14 50 ${2:-} || return
    ( eval "$(stream_analyze "$tmp/$1.nic" "$one")"
      if [ "$failover" != - ]; then echo "traffic on rail 0 after $failover s"
      elif [ "$restore" != - ]; then echo "no failover: stalled until the rail came back (both rails again after $back s)"
      else echo "no failover: stalled $stall s, then finished"; fi )
}
# (e) the same stream under each MPI while rail 1 flaps for 10 s
flap_fig() { # IMPL -> one line: the longest stall and the rate while rail 1 flapped
    fault_stream "$1" flap 16 60 10 || return
    ( eval "$(stream_analyze "$tmp/$1.flap" "$one")"
      echo "longest stall $stall s; $during MB/s while it flapped ($(ratio "$during" "$one") x rail 0 alone)" )
}
declare -A peer_res perm_res flap_res
for p in railmpi $peers; do
    log "$p: rail 1 flapping for 10 s (bound 60 s) ..."
    flap_res[$p]=$(flap_fig $p)
done
for p in $peers; do
    log "$p: rail 1 down for 5 s (bound 50 s) ..."
    peer_res[$p]=$(peer_fig $p 5)
done
for p in railmpi $peers; do
    log "$p: rail 1 down for good (bound 50 s) ..."
    perm_res[$p]=$(peer_fig $p)
done

# (d) a ~60 s compute + allreduce loop: calibrate, then fault-free vs 3 faults.
# Two shapes: 80 ms of compute per 4 MiB allreduce (about half the time
# communicating), and 400 ms (about a sixth), closer to a compute-bound code.
loop_case() { # COMPUTE_MS -> "clean faulty per_iteration_ms"
    local c=$1 per iters clean faulty q
    log "(d) compute $c ms + allreduce loop: calibrating ..."
    per=$(peer_run railmpi 120 "$tmp/ft_loop" 10 "$c" 2>/dev/null | awk '{ print $6 }')
    iters=$(awk -v p="${per:-100}" -v s=$loop_s 'BEGIN { printf "%d", s * 1000 / p }')
    log "(d) $iters iterations (~$loop_s s) fault-free ..."
    clean=$(peer_run railmpi $((loop_s * 3)) "$tmp/ft_loop" "$iters" "$c" 2>/dev/null | awk '/^iterations/ { print $4 }')
    log "(d) the same with 3 faults ..."
    : > "$tmp/faults"
    q=$((loop_s / 4))
    fault_start nic $q 3
    fault_start switch $((2 * q)) 3
    fault_start nic $((3 * q)) 3
    faulty=$(peer_run railmpi $((loop_s * 3)) "$tmp/ft_loop" "$iters" "$c" 2>"$tmp/loop.err" |
             awk '/^iterations/ && !/FAIL/ { print $4 }')
    fault_wait
    cluster_reap
    echo "${clean:--} ${faulty:--} ${per:--}"
}
read -r clean faulty per80 < <(loop_case 80)
read -r clean4 faulty4 per400 < <(loop_case 400)

# the table
fmt() { awk -v v="$1" -v d="${2:-1}" 'BEGIN { if (v == "-" || v == "") print "-"; else printf "%.*f", d, v }'; }
verdict() { # VALUE OP TARGET
    awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN { if (v == "-" || v == "") print "-"; else if ((op == "<=" && v <= t) || (op == ">=" && v >= t)) print "met"; else print "missed" }'
}
lr=$(ratio "$lat1" "$lat0") br=$(ratio "$bw1" "$bw0")
sr=$(ratio "$single" "$one") dr=$(ratio "$faulty" "$clean") dr4=$(ratio "$faulty4" "$clean4")
fo_txt=$(fmt "$fo" 2)
[ "$nofo" -gt 0 ] && fo_txt="$fo_txt ($nofo of $runs runs: no failover)"
back_txt=$(fmt "$back" 2)
[ "$noback" -gt 0 ] && back_txt="$back_txt ($noback of $runs runs: never)"
rows=(
    "(a) latency 8 B, FT=1 / FT=0|$(fmt "$lat1" 2) / $(fmt "$lat0" 2) us|$lr|<= 1.03|$(verdict "$lr" "<=" 1.03)"
    "(a) bandwidth 4 MiB, FT=1 / FT=0|$(fmt "$bw1" 0) / $(fmt "$bw0" 0) MB/s|$br|>= 0.97|$(verdict "$br" ">=" 0.97)"
    "(b) rail down: traffic on rail 0 after (s, median of $runs)|$fo_txt|-|<= 0.5 s|$(verdict "$fo" "<=" 0.5)"
    "(b) rate on rail 0 after failover / rail 0 alone|$(fmt "$single" 0) / $(fmt "$one" 0) MB/s|$sr|>= 0.95|$(verdict "$sr" ">=" 0.95)"
    "(c) rail back: full aggregate after (s, median of $runs)|$back_txt|-|<= 2 s|$(verdict "$back" "<=" 2)"
    "(d) ${loop_s} s loop, 80 ms compute + 4 MiB allreduce ($(fmt "$per80" 0) ms per iteration), 3 faults / fault-free|$(fmt "$faulty" 1) / $(fmt "$clean" 1) s|$dr|<= 1.05|$(verdict "$dr" "<=" 1.05)"
    "(d) ${loop_s} s loop, 400 ms compute + 4 MiB allreduce ($(fmt "$per400" 0) ms per iteration), 3 faults / fault-free|$(fmt "$faulty4" 1) / $(fmt "$clean4" 1) s|$dr4|<= 1.05|$(verdict "$dr4" "<=" 1.05)"
)
label() { case $1 in railmpi) echo railmpi ;; mpich) echo "MPICH 4.0 (UCX)" ;; *) echo "Open MPI 4.1 (TCP BTL)" ;; esac; }
for p in $peers; do rows+=("$(label $p): rail 1 down for 5 s as in (b)|${peer_res[$p]}|-|-|-"); done
for p in railmpi $peers; do rows+=("$(label $p): rail 1 down for good|${perm_res[$p]}|-|-|-"); done
for p in railmpi $peers; do rows+=("(e) $(label $p): rail 1 flapping every 200 ms for 10 s|${flap_res[$p]}|-|-|-"); done
if [ $md = 1 ]; then
    echo "Faults on 2 hosts x 2 rails at 2 Gbit/s each (bench/fault.sh; messages verified: $bad bad)"
    echo
    echo "| case | measured | ratio | target | |"
    echo "|---|---|---:|---|---|"
    for r in "${rows[@]}"; do echo "| ${r//|/ | } |"; done
else
    printf '%-58s %-40s %7s %9s %s\n' case measured ratio target ""
    for r in "${rows[@]}"; do
        IFS='|' read -r a b c d e <<< "$r"
        printf '%-58s %-40s %7s %9s %s\n' "$a" "$b" "$c" "$d" "$e"
    done
    echo "messages verified in the (b)/(c) streams: $(awk '{ s += ($5 == "-" ? 0 : $5) } END { print s + 0 }' "$tmp/bc") intact, $bad bad"
fi
