#!/bin/bash
# The windowed small-message rate across two virtual hosts over one
# unshaped TCP rail: railmpi, MPICH (UCX over the rail interface) and Open
# MPI (TCP BTL on the rail's subnet) run the same program, bench/msgrate.c
# (rank 0 on one host posts 64 non-blocking sends of N bytes, rank 1 on the
# other 64 receives, then a 1-byte answer), 1 B - 4 KiB. The three alternate
# over several rounds because the machine is shared; each figure is the
# median of the rounds and the ratio is railmpi / the faster peer (> 1 is
# better). Every rank is pinned to core (rank mod cores) by a small wrapper,
# for all three. Root only; the cluster is torn down on exit.
#   bench/msgrate_hosts.sh [--build DIR] [--rounds N] [--iters N] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0
rounds=3
iters=2000
usage() { echo "usage: bench/msgrate_hosts.sh [--build DIR] [--rounds N] [--iters N] [--markdown]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --iters) iters=$2; shift ;;
        --markdown) md=1 ;;
        *) usage ;;
    esac
    shift
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$iters" =~ ^[1-9][0-9]*$ ]] || usage
[ "$(id -u)" = 0 ] || { echo "bench/msgrate_hosts.sh: needs root (network namespaces)" >&2; exit 1; }
[ -x "$build/bin/mpicc" ] || { echo "bench/msgrate_hosts.sh: build railmpi first ($build/bin/mpicc)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=bm
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$here/msgrate.c" -o "$tmp/m.railmpi" || exit 1
mpicc.mpich -O2 "$here/msgrate.c" -o "$tmp/m.mpich" 2>/dev/null || echo "bench: no MPICH build" >&2
mpicc.openmpi -O2 "$here/msgrate.c" -o "$tmp/m.openmpi" 2>/dev/null || echo "bench: no Open MPI build" >&2
bash "$vc" up $name 2 1 >/dev/null || exit 1
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
. "$here/peers.sh"
peers_init
args="0 4096 64 $iters" # no latency part; rates 1 B - 4 KiB, window 64
run() { # impl round -> "rate SIZE MSGS/S" lines in $tmp/IMPL.ROUND
    local o=$tmp/$1.$2
    [ -x "$tmp/m.$1" ] || return
    peer_run $1 300 --pin "$tmp/m.$1" $args \
        2>"$o.err" | awk '$1 == "rate" && NF == 3' >"$o"
    [ -s "$o" ] || echo "bench: $1 produced no figures in round $2: $(head -c 300 "$o.err")" >&2
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
    for impl in railmpi mpich openmpi; do run $impl $r; done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp" "$rounds" "$md" "$rails" "$iters" "$load0" "$load1" <<'PY'
import sys, glob, collections, statistics
tmp, rounds, md, rail, iters, load0, load1 = sys.argv[1:8]
md = md == "1"
impls = ("railmpi", "mpich", "openmpi")
med = {}
for i in impls:
    vals = collections.defaultdict(list)
    for f in glob.glob(f"{tmp}/{i}.*"):
        if f.endswith(".err"):
            continue
        for line in open(f):
            _, s, v = line.split()
            vals[int(s)].append(float(v))
    med[i] = {s: statistics.median(v) for s, v in vals.items()}
print(f"{'' if md else '# '}one rail ({rail}) between two virtual hosts, one pair of ranks; {rounds} rounds, {iters} "
      f"iterations per size; load average before: {load0}, after: {load1}")
title = "message rate across two hosts (million messages/s, window 64; median; higher is better)"
if md:
    print(f"\n**{title}**\n\n| size (B) | railmpi | MPICH | Open MPI | railmpi / faster peer |\n|---:|---:|---:|---:|---:|")
else:
    print(f"\n{title}\n{'size':>6} {'railmpi':>9} {'MPICH':>9} {'OpenMPI':>9} {'ratio':>7}")
for s in sorted(set().union(*(med[i].keys() for i in impls))):
    peers = [med[i][s] for i in ("mpich", "openmpi") if s in med[i]]
    r = med["railmpi"].get(s)
    ratio = f"{r / max(peers):.2f}" if r and peers else "-"
    cell = lambda i: f"{med[i][s] / 1e6:.3f}" if s in med[i] else "-"
    if md:
        print(f"| {s} | {cell('railmpi')} | {cell('mpich')} | {cell('openmpi')} | {ratio} |")
    else:
        print(f"{s:>6} {cell('railmpi'):>9} {cell('mpich'):>9} {cell('openmpi'):>9} {ratio:>7}")
PY
