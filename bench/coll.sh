#!/bin/bash
# Collectives: railmpi, MPICH and Open MPI side by side in one run
# (bench/coll.c built with each). One host, 2 and 4 ranks (4 oversubscribe a
# 2-core machine): barrier, bcast, reduce, allreduce, allgather and alltoall
# at 8 B, 1 KiB, 64 KiB and 1 MiB; the overlap measure (MPI_Iallreduce of
# 1 MiB on 4 ranks, or --overlap-np N, with as long a compute loop, waited
# for after it; and with a sleep in place of the compute loop, -W of
# bench/coll.c; --overlap-only: nothing else); with
# --cluster (root: network namespaces) also 2 virtual hosts x 2 ranks over
# 2 x 2 Gbit/s rails, allreduce and alltoall at 1 MiB (a run that hangs is
# killed after 120 s; whatever it printed before counts). Times in us (the
# slowest rank's mean per call, best of three runs); "r/best" is railmpi's
# time over the faster peer's (< 1: railmpi is faster).
# Each MPI's sweep runs -r times (default 3), the three MPIs in turn, and
# each point keeps its best time: on a shared machine the load of other
# jobs comes and goes, and the best of several runs is the least disturbed.
#   bench/coll.sh [--build DIR] [--markdown] [--cluster] [-T SECONDS per point] [-r REPEATS]
#                 [--overlap-np N] [--overlap-only]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0 cluster=0 secs=0.15 reps=3 ovnp=4 ovonly=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        --cluster) cluster=1 ;;
        -T) secs=$2; shift ;;
        -r) reps=$2; shift ;;
        --overlap-np) ovnp=$2; shift ;;
        --overlap-only) ovonly=1 ;;
        *) echo "usage: bench/coll.sh [--build DIR] [--markdown] [--cluster] [-T SECONDS] [-r REPEATS] [--overlap-np N] [--overlap-only]" >&2; exit 2 ;;
    esac
    shift
done
tmp=$(mktemp -d)
name=bk
vc=$top/tests/cluster/vcluster.sh
trap '[ $cluster = 0 ] || bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
"$build/bin/mpicc" -O2 "$here/coll.c" -o "$tmp/coll.railmpi" || exit 1
mpicc.mpich -O2 "$here/coll.c" -o "$tmp/coll.mpich" || exit 1
mpicc.openmpi -O2 "$here/coll.c" -o "$tmp/coll.openmpi" || exit 1

local_run() { # IMPL NP ARGS...
    local impl=$1 np=$2; shift 2
    case $impl in
        railmpi) timeout -k 5 300 "$build/bin/mpiexec" -n "$np" "$tmp/coll.railmpi" "$@" ;;
        mpich) timeout -k 5 300 mpiexec.mpich -n "$np" "$tmp/coll.mpich" "$@" ;;
        openmpi) timeout -k 5 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$np" "$tmp/coll.openmpi" "$@" ;;
    esac
}

# the best time of each point over the repeats, in first-seen order
best() { awk '{ k = $1 " " $2; if (!(k in v)) { keys[++n] = k; v[k] = $3 } else if ($3 + 0 < v[k] + 0) v[k] = $3 }
              END { for (i = 1; i <= n; i++) print keys[i], v[keys[i]] }' "$@"; }
# "op bytes r m o" rows from three "op bytes us" files
join3() { awk 'FNR == 1 { f++ } { k = $1 " " $2; if (f == 1) { keys[++n] = k } v[f, k] = $3 }
               END { for (i = 1; i <= n; i++) { k = keys[i]; print k, v[1, k], (v[2, k] == "" ? "-" : v[2, k]), (v[3, k] == "" ? "-" : v[3, k]) } }' "$@"; }

# rows "SETTING op bytes r m o" accumulate in $tmp/rows
: > "$tmp/rows"
for np in 2 4; do
    [ $ovonly = 1 ] && break
    for rep in $(seq "$reps"); do
        for impl in railmpi mpich openmpi; do local_run $impl $np -T "$secs" >> "$tmp/$impl.$np.all" 2>> "$tmp/$impl.$np.err"; done
    done
    for impl in railmpi mpich openmpi; do best "$tmp/$impl.$np.all" > "$tmp/$impl.$np"; done
    join3 "$tmp/railmpi.$np" "$tmp/mpich.$np" "$tmp/openmpi.$np" | sed "s/^/1x$np /" >> "$tmp/rows"
done

# overlap: railmpi as it starts by default (the progress thread from the
# first nonblocking collective on) and without the thread (off: progress
# only inside MPI calls), the peers; a compute loop, then a sleep (-W) in
# its place (the repeat with the lowest ratio)
ov() { awk '$1 ~ /^overlap/ { print $3, $4, $5, $6 }'; }
ovbest() { sort -k4,4g | head -1; }
ovrun() { # IMPL [-W]
    for rep in $(seq "$reps"); do local_run "$1" "$ovnp" -O $2 -T "$secs" | ov; done | ovbest
}
for w in "" -W; do
    ov_r[${#w}]=$(ovrun railmpi "$w")
    ov_rf[${#w}]=$(RAILMPI_ASYNC_PROGRESS=off ovrun railmpi "$w")
    ov_m[${#w}]=$(ovrun mpich "$w")
    ov_o[${#w}]=$(ovrun openmpi "$w")
done

if [ $cluster = 1 ] && [ $ovonly = 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "bench/coll.sh --cluster: needs root (network namespaces)" >&2; exit 1; }
    bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
    rails=$(bash "$vc" rails $name)
    mgmt=$(bash "$vc" net $name m)
    . "$here/peers.sh"
    peers_init
    h1=${name}h1 h2=${name}h2
    a=(-o allreduce,alltoall -s 1048576 -T "$(awk -v s="$secs" 'BEGIN { print s * 4 }')")
    for rep in $(seq "$reps"); do
    timeout -k 5 120 "$build/bin/mpiexec" -hosts "$h1,$h2" -ppn 2 -launcher-exec "ip netns exec" \
        -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" "$tmp/coll.railmpi" "${a[@]}" \
        >> "$tmp/railmpi.ca" 2>> "$tmp/railmpi.c.err"
    # MPICH: UCX over both rails between hosts and its shared memory within one
    timeout -k 5 120 mpiexec.mpich -hosts "$h1,$h2" -n 4 -ppn 2 -launcher ssh -launcher-exec "$tmp/ns-ssh" \
        -iface "${name}mbr" -bind-to none -genv UCX_TLS tcp,self,sm -genv UCX_NET_DEVICES rail0,rail1 \
        "$tmp/coll.mpich" "${a[@]}" >> "$tmp/mpich.ca" 2>> "$tmp/mpich.c.err"
    # Open MPI: the TCP BTL over both rails for every pair (its vader BTL crashes
    # here: both namespaces have the same host name, so it takes the other
    # host's ranks for its own)
    timeout -k 5 120 mpirun.openmpi --allow-run-as-root -np 4 --host "$h1:2,$h2:2" --mca routed direct \
        --mca plm_rsh_agent "$tmp/ns-ssh" --mca oob_tcp_if_include "$mgmt" --mca btl tcp,self \
        --mca btl_tcp_if_include "$rails" --bind-to none "$tmp/coll.openmpi" "${a[@]}" \
        >> "$tmp/openmpi.ca" 2>> "$tmp/openmpi.c.err"
    done
    for impl in railmpi mpich openmpi; do best "$tmp/$impl.ca" > "$tmp/$impl.c"; done
    join3 "$tmp/railmpi.c" "$tmp/mpich.c" "$tmp/openmpi.c" | sed "s/^/2x2 /" >> "$tmp/rows"
fi

human() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%d MiB", b / 1048576; else if (b >= 1024) printf "%d KiB", b / 1024; else if (b > 0) printf "%d B", b; else print "-" }'; }
ratio() { awk -v r="$1" -v m="$2" -v o="$3" 'BEGIN { if (r == "" || r == "-") { print "-"; exit }
    b = ""; if (m != "-" && m != "") b = m; if (o != "-" && o != "" && (b == "" || o + 0 < b + 0)) b = o
    if (b == "" || b + 0 == 0) print "-"; else printf "%.2f\n", r / b }'; }
if [ $md = 1 ]; then
    echo "| ranks | collective | size | railmpi us | MPICH us | Open MPI us | railmpi / faster peer |"
    echo "|---|---|---:|---:|---:|---:|---:|"
else
    printf "%-6s %-10s %8s %10s %10s %10s %7s\n" ranks op size railmpi MPICH OpenMPI r/best
fi
while read -r set op bytes r m o; do
    q=$(ratio "$r" "$m" "$o")
    if [ $md = 1 ]; then echo "| $set | $op | $(human "$bytes") | $r | $m | $o | $q |"
    else printf "%-6s %-10s %8s %10s %10s %10s %7s\n" "$set" "$op" "$(human "$bytes")" "$r" "$m" "$o" "$q"; fi
done < "$tmp/rows"
# how many points are at most 1.0x and at most 0.8x the faster peer's time
awk '{ print }' "$tmp/rows" | while read -r set op bytes r m o; do ratio "$r" "$m" "$o"; done |
    awk '$1 != "-" { n++; if ($1 <= 1.0) a++; if ($1 <= 0.8) b++ }
         END { printf "\n%d points: %d at <= 1.0x the faster peer, %d at <= 0.8x\n", n, a, b }'
echo
for w in 0 2; do
    what="compute as long"; [ $w = 2 ] && what="a sleep as long (-W)"
    echo "overlap ($ovnp ranks, one host, MPI_Iallreduce 1 MiB + $what; us: allreduce alone, compute alone, both, both / longer):"
    printf "  %-34s %s\n" "railmpi" "${ov_r[$w]:--}" "railmpi RAILMPI_ASYNC_PROGRESS=off" "${ov_rf[$w]:--}" \
        "MPICH" "${ov_m[$w]:--}" "Open MPI" "${ov_o[$w]:--}"
done
