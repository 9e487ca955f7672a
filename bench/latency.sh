#!/bin/bash
# Small-message latency over one TCP rail between two virtual hosts: railmpi
# against the plain TCP ping-pong on the same link (non-blocking sockets,
# TCP_NODELAY, no MPI engine), MPICH (UCX over the rail interface) and Open
# MPI (TCP BTL on the rail's subnet), which run bench/pingpong.c. railmpi and
# plain TCP run in one job (railbench -L both: blocks of each, alternating),
# so that the machine's load, which comes and goes, weighs on both alike;
# the three jobs (that one, MPICH, Open MPI) alternate over several rounds.
# Each figure is the best (lowest) of the rounds, and the railmpi / TCP ratio
# of every round is shown for each size: its worst (highest) round, and every
# round for 1 byte. Root only; the cluster is torn down on exit.
#
# Every rank is pinned to core (rank mod cores) by a small wrapper, for all
# four: the launchers would otherwise bind each host's first rank to core 0,
# so on one machine both ranks would share a core.
#   bench/latency.sh [--build DIR] [--rounds N] [--iters N] [--max BYTES] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0
rounds=3
iters=10000
max=1024
usage() { echo "usage: bench/latency.sh [--build DIR] [--rounds N] [--iters N] [--max BYTES] [--markdown]" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --iters) iters=$2; shift ;;
        --max) max=$2; shift ;;
        --markdown) md=1 ;;
        *) usage ;;
    esac
    shift
done
[[ "$rounds" =~ ^[1-9][0-9]*$ && "$iters" =~ ^[1-9][0-9]*$ && "$max" =~ ^[1-9][0-9]*$ ]] || usage
[ "$(id -u)" = 0 ] || { echo "bench/latency.sh: needs root (network namespaces)" >&2; exit 1; }
[ -x "$build/bin/railbench" ] || { echo "bench/latency.sh: build railmpi first ($build/bin/railbench)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=bl
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
mpicc.mpich -O2 "$here/pingpong.c" -o "$tmp/pp.mpich" 2>/dev/null || echo "bench: no MPICH build" >&2
mpicc.openmpi -O2 "$here/pingpong.c" -o "$tmp/pp.openmpi" 2>/dev/null || echo "bench: no Open MPI build" >&2
bash "$vc" up $name 2 1 >/dev/null || exit 1
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
. "$here/peers.sh"
peers_init
warm=$((iters / 10))
run() { # impl round -> "size usec" lines in $tmp/IMPL.ROUND (railmpi: also $tmp/tcp.ROUND)
    local o=$tmp/$1.$2
    case $1 in
        railmpi)
            peer_run railmpi 300 --pin "$build/bin/railbench" -L both -t lat -m 1:$max -i $iters -x $warm \
                2>"$o.err" | awk -v t="$tmp/tcp.$2" '/^[0-9]+ [0-9.]+ [0-9.]+$/ && $1 > 0 {
                    print $1, $2 > t; print $1, $3 }' >"$o" ;;
        mpich | openmpi)
            [ -x "$tmp/pp.$1" ] || return
            peer_run $1 300 --pin "$tmp/pp.$1" $max 2>"$o.err" | awk '/^[0-9]+ [0-9.]+$/ && $1 > 0' >"$o" ;;
    esac
    [ -s "$o" ] || echo "bench: $1 produced no figures in round $2: $(head -c 300 "$o.err")" >&2
}
for r in $(seq "$rounds"); do
    for impl in railmpi mpich openmpi; do run $impl $r; done
done
python3 - "$tmp" "$rounds" "$md" "$rails" <<'PY'
import sys, collections
tmp, rounds, md, rail = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
impls = ("tcp", "railmpi", "mpich", "openmpi")
vals = {i: collections.defaultdict(list) for i in impls}
per_round = collections.defaultdict(dict)  # (round, size) -> impl -> figure
for i in impls:
    for r in range(1, rounds + 1):
        try:
            for line in open(f"{tmp}/{i}.{r}"):
                s, v = line.split()
                vals[i][int(s)].append(float(v))
                per_round[(r, int(s))][i] = float(v)
        except FileNotFoundError:
            pass
best = {i: {s: min(v) for s, v in vals[i].items()} for i in impls}
sizes = sorted(set(best["tcp"]) | set(best["railmpi"]))
# railmpi / TCP of each round (one job each), by size
paired = collections.defaultdict(list)
for (r, s), v in sorted(per_round.items()):
    if "railmpi" in v and "tcp" in v:
        paired[s].append(v["railmpi"] / v["tcp"])
f = lambda i, s: f"{best[i][s]:.2f}" if s in best[i] else "-"
ratio = lambda s: f"{best['railmpi'][s] / best['tcp'][s]:.2f}" if s in best["railmpi"] and s in best["tcp"] else "-"
worst = lambda s: f"{max(paired[s]):.2f}" if paired[s] else "-"
if md:
    print(f"one rail ({rail}), latency in us (half round trip), best of {rounds} rounds; "
          "railmpi / TCP: of the best figures, and the worst round's\n")
    print("| size (B) | plain TCP | railmpi | MPICH | Open MPI | railmpi / TCP | worst round |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        print(f"| {s} | {f('tcp', s)} | {f('railmpi', s)} | {f('mpich', s)} | {f('openmpi', s)} | {ratio(s)} | {worst(s)} |")
else:
    print(f"one rail ({rail}), latency in us (half round trip), best of {rounds} rounds")
    print(f"{'size':>6} {'TCP':>9} {'railmpi':>9} {'MPICH':>9} {'OpenMPI':>9} {'r/TCP':>6} {'worst':>6}")
    for s in sizes:
        print(f"{s:>6} {f('tcp', s):>9} {f('railmpi', s):>9} {f('mpich', s):>9} {f('openmpi', s):>9} {ratio(s):>6} {worst(s):>6}")
if paired[1]:
    print(("\n" if md else "") + "1-byte railmpi / TCP per round: " + " ".join(f"{x:.2f}" for x in paired[1]))
PY
