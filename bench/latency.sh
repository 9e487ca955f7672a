#!/bin/bash
# Small-message latency over one TCP rail between two virtual hosts: railmpi
# (railbench -L mpi) against the plain TCP ping-pong on the same link
# (railbench -L transport: non-blocking sockets, TCP_NODELAY, no MPI engine),
# MPICH (UCX over the rail interface) and Open MPI (TCP BTL on the rail's
# subnet), which run bench/pingpong.c. All in one run, alternating the four
# over several rounds because the machine is shared; each figure is the best
# (lowest) of the rounds, and the railmpi / TCP ratio of every round is shown
# for 1 byte. Root only; the cluster is torn down on exit.
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
run() { # impl round -> "size usec" lines in $tmp/IMPL.ROUND
    local o=$tmp/$1.$2
    case $1 in
        tcp | railmpi)
            local level=mpi
            [ $1 = tcp ] && level=transport
            peer_run railmpi 300 --pin "$build/bin/railbench" -L $level -t lat -m 1:$max -i $iters -x $warm ;;
        mpich | openmpi)
            [ -x "$tmp/pp.$1" ] || return
            peer_run $1 300 --pin "$tmp/pp.$1" $max ;;
    esac 2>"$o.err" | awk '/^[0-9]+ [0-9.]+$/ && $1 > 0' >"$o"
    [ -s "$o" ] || echo "bench: $1 produced no figures in round $2: $(head -c 300 "$o.err")" >&2
}
for r in $(seq "$rounds"); do
    for impl in tcp railmpi mpich openmpi; do run $impl $r; done
done
python3 - "$tmp" "$rounds" "$md" "$rails" <<'PY'
import sys, collections
tmp, rounds, md, rail = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
impls = ("tcp", "railmpi", "mpich", "openmpi")
vals = {i: collections.defaultdict(list) for i in impls}
per_round = collections.defaultdict(dict)  # round -> impl -> 1-byte figure
for i in impls:
    for r in range(1, rounds + 1):
        try:
            for line in open(f"{tmp}/{i}.{r}"):
                s, v = line.split()
                vals[i][int(s)].append(float(v))
                if int(s) == 1:
                    per_round[r][i] = float(v)
        except FileNotFoundError:
            pass
best = {i: {s: min(v) for s, v in vals[i].items()} for i in impls}
sizes = sorted(set(best["tcp"]) | set(best["railmpi"]))
f = lambda i, s: f"{best[i][s]:.2f}" if s in best[i] else "-"
ratio = lambda s: f"{best['railmpi'][s] / best['tcp'][s]:.2f}" if s in best["railmpi"] and s in best["tcp"] else "-"
if md:
    print(f"one rail ({rail}), latency in us (half round trip), best of {rounds} rounds\n")
    print("| size (B) | plain TCP | railmpi | MPICH | Open MPI | railmpi / TCP |")
    print("|---:|---:|---:|---:|---:|---:|")
    for s in sizes:
        print(f"| {s} | {f('tcp', s)} | {f('railmpi', s)} | {f('mpich', s)} | {f('openmpi', s)} | {ratio(s)} |")
else:
    print(f"one rail ({rail}), latency in us (half round trip), best of {rounds} rounds")
    print(f"{'size':>6} {'TCP':>9} {'railmpi':>9} {'MPICH':>9} {'OpenMPI':>9} {'r/TCP':>6}")
    for s in sizes:
        print(f"{s:>6} {f('tcp', s):>9} {f('railmpi', s):>9} {f('mpich', s):>9} {f('openmpi', s):>9} {ratio(s):>6}")
rs = [per_round[r]["railmpi"] / per_round[r]["tcp"] for r in sorted(per_round)
      if "railmpi" in per_round[r] and "tcp" in per_round[r]]
if rs:
    print(("\n" if md else "") + "1-byte railmpi / TCP per round: " + " ".join(f"{x:.2f}" for x in rs))
PY
