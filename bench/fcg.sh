#!/bin/bash
# A Fortran application benchmark side by side: bench/fcg.f90 (conjugate
# gradients on an N x N Poisson grid, a halo column to each neighbour and two
# MPI_ALLREDUCEs per iteration) built with railmpi's mpifort, mpif90.mpich
# and mpif90.openmpi, 2 ranks:
#   (1) one host;
#   (2) 2 virtual hosts x 2 TCP rails shaped to 2 Gbit/s (tests/cluster/vcluster.sh,
#       the peers started as bench/peers.sh does);
#   (3) the same with host 1's NIC on rail 1 going down 3 s into a longer run
#       and staying down: railmpi must finish on rail 0; the peers are killed
#       after a bound, and reported as such ("hung", or their exit status).
# Each time is the median of RUNS runs; ratios are peer time / railmpi time
# (above 1: railmpi is faster). Every run's residual is printed: the same for
# all MPIs, or one of them computed something else.
# Root only for (2) and (3); the cluster is torn down on exit.
#   bench/fcg.sh [--build DIR] [--markdown] [--runs R] [--n N] [--iters I] [--one-host]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0 runs=3 n=1024 iters=600 onehost=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        --runs) runs=$2; shift ;;
        --n) n=$2; shift ;;
        --iters) iters=$2; shift ;;
        --one-host) onehost=1 ;;
        *) echo "usage: bench/fcg.sh [--build DIR] [--markdown] [--runs R] [--n N] [--iters I] [--one-host]" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$build/bin/mpifort" ] || { echo "bench/fcg.sh: no $build/bin/mpifort (build railmpi with gfortran)" >&2; exit 1; }
[ $onehost = 1 ] || [ "$(id -u)" = 0 ] || { echo "bench/fcg.sh: needs root for the virtual hosts (or --one-host)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=fc
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
log() { echo "$*" >&2; } # progress to stderr, the table to stdout
impls="railmpi mpich openmpi"
"$build/bin/mpifort" -O2 "$here/fcg.f90" -J "$tmp" -o "$tmp/fcg.railmpi" || exit 1
mkdir -p "$tmp/m" "$tmp/o"
mpif90.mpich -O2 "$here/fcg.f90" -J "$tmp/m" -o "$tmp/fcg.mpich" || impls=${impls/mpich/}
mpif90.openmpi -O2 "$here/fcg.f90" -J "$tmp/o" -o "$tmp/fcg.openmpi" || impls=${impls/openmpi/}
. "$here/peers.sh"
peers_init

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "-"; else printf "%.2f", a / b }'; }
# one run: "SECONDS RESIDUAL", or "- -" and the reason in $tmp/why
local_run() { # IMPL ARGS...
    local impl=$1; shift
    case $impl in
        railmpi) timeout -k 5 300 "$build/bin/mpiexec" -n 2 "$tmp/fcg.railmpi" "$@" ;;
        mpich) timeout -k 5 300 mpiexec.mpich -n 2 "$tmp/fcg.mpich" "$@" ;;
        openmpi) timeout -k 5 300 mpirun.openmpi --allow-run-as-root -n 2 "$tmp/fcg.openmpi" "$@" ;;
    esac
}
result() { awk '$1 == "result" { print $2, $3; f = 1 } END { if (!f) print "- -" }'; }
# median time of RUNS runs (alternating the MPIs, so drifting load hits all alike)
declare -A T R F FT
measure() { # WHERE (local|cluster)
    local i impl out
    for impl in $impls; do : > "$tmp/t.$1.$impl"; done
    for i in $(seq "$runs"); do
        for impl in $impls; do
            log "$1 run $i: $impl ..."
            if [ "$1" = local ]; then out=$(local_run "$impl" "$n" "$iters" 2>/dev/null | result)
            else out=$(peer_run "$impl" 300 "$tmp/fcg.$impl" "$n" "$iters" 2>/dev/null | result); fi
            [ "${out% *}" = - ] || echo "${out% *}" >> "$tmp/t.$1.$impl"
            R[$1.$impl]=${out#* }
        done
    done
    for impl in $impls; do T[$1.$impl]=$(median < "$tmp/t.$1.$impl"); done
}

measure local
if [ $onehost = 0 ]; then
    bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
    rails=$(bash "$vc" rails $name)
    mgmt=$(bash "$vc" net $name m)
    measure cluster
    # (3) rail 1 fails 3 s into a run twice as long, and stays down
    fiters=$((iters * 2))
    for impl in $impls; do
        log "rail failure: $impl ..."
        bash "$vc" nic-up $name 1 1 >/dev/null 2>&1
        bound=$(awk -v t="${T[cluster.railmpi]}" 'BEGIN { b = int(t * 2 * 3 + 30); print (b > 60 ? b : 60) }')
        t0=$(date +%s.%N)
        peer_run "$impl" "$bound" "$tmp/fcg.$impl" "$n" "$fiters" > "$tmp/f.$impl" 2>&1 &
        pid=$!
        sleep 3
        bash "$vc" nic-down $name 1 1
        wait $pid
        rc=$?
        wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        out=$(result < "$tmp/f.$impl")
        if [ "${out% *}" != - ] && [ $rc = 0 ]; then
            F[$impl]="finished: ${out% *} s (residual ${out#* })"
            FT[$impl]=${out% *}
        elif [ $rc = 124 ] || [ $rc = 137 ]; then
            F[$impl]="hung: killed after $bound s"
        else
            F[$impl]="aborted after $wall s (exit $rc): $(grep -m1 -iE 'error|abort|fail' "$tmp/f.$impl" | cut -c1-90)"
        fi
        # the peers' launchers may leave ranks behind in the namespaces
        for h in 1 2; do for p in $(ip netns pids "${name}h$h" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done; done
    done
    bash "$vc" nic-up $name 1 1 >/dev/null 2>&1
fi

row() { # LABEL WHERE
    local m=${T[$2.mpich]:--} o=${T[$2.openmpi]:--} r=${T[$2.railmpi]:--}
    if [ $md = 1 ]; then
        echo "| $1 | $r | $m | $o | $(ratio "$m" "$r") | $(ratio "$o" "$r") | ${R[$2.railmpi]:--} / ${R[$2.mpich]:--} / ${R[$2.openmpi]:--} |"
    else
        printf "%-28s %9s %9s %9s %8s %8s   %s\n" "$1" "$r" "$m" "$o" "$(ratio "$m" "$r")" "$(ratio "$o" "$r")" \
            "${R[$2.railmpi]:--} ${R[$2.mpich]:--} ${R[$2.openmpi]:--}"
    fi
}
echo "fcg N=$n, $iters iterations, 2 ranks, median of $runs runs: seconds (lower is better)"
if [ $md = 1 ]; then
    echo "| where | railmpi s | MPICH s | Open MPI s | MPICH / railmpi | Open MPI / railmpi | residual (railmpi / MPICH / Open MPI) |"
    echo "|---|---:|---:|---:|---:|---:|---|"
else
    printf "%-28s %9s %9s %9s %8s %8s   %s\n" where railmpi MPICH OpenMPI "M/r" "O/r" residuals
fi
row "one host" local
if [ $onehost = 0 ]; then
    row "2 hosts x 2 rails (2 Gbit/s)" cluster
    echo
    echo "rail 1 (host 1's NIC) down 3 s into a run of $fiters iterations, not restored:"
    for impl in $impls; do echo "- $impl: ${F[$impl]}"; done
    [ -z "${FT[railmpi]:-}" ] ||
        echo "- railmpi with the rail failure / without (same iterations, 2 x the median above): $(ratio "${FT[railmpi]}" "$(awk -v t="${T[cluster.railmpi]}" 'BEGIN { print t * 2 }')")"
fi
