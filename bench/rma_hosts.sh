#!/bin/bash
# One-sided benchmarks across two virtual hosts over two TCP rails shaped to
# 2 Gbit/s each: bench/rma.c built for railmpi, MPICH (UCX) and Open MPI
# (osc pt2pt: its default one-sided component fails over the TCP BTL) and
# run side by side on one virtual cluster, rounds alternating between the
# implementations; each figure is the median of its rounds (the machine is
# shared and noisy). Prints put and get bandwidth (lock/flush and fence
# forms) and latencies, with railmpi / best peer, and for bandwidth
# railmpi / the rails' summed rate (500 MB/s; the Ethernet, IP and TCP
# headers at MTU 1500 leave about 478 MB/s of payload).
# Root only; the cluster is torn down on exit.
#   bench/rma_hosts.sh [--build DIR] [--rounds N] [--max BYTES] [--only IMPL] [--markdown] [--bw]
# --bw: only the bandwidth figures at BYTES (a few seconds per run, so more
# rounds fit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
rounds=3
max=4194304
only=
md=0
bw=
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --max) max=$2; shift ;;
        --only) only=$2; shift ;;
        --markdown) md=1 ;;
        --bw) bw=bw ;;
        *) echo "usage: bench/rma_hosts.sh [--build DIR] [--rounds N] [--max BYTES] [--only IMPL] [--markdown] [--bw]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/rma_hosts.sh: needs root (network namespaces)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=br
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
impls="railmpi mpich openmpi"
[ -z "$only" ] || impls=$only
"$build/bin/mpicc" -O2 "$here/rma.c" -o "$tmp/rma.railmpi" || exit 1
mpicc.mpich -O2 "$here/rma.c" -o "$tmp/rma.mpich" 2>/dev/null
mpicc.openmpi -O2 "$here/rma.c" -o "$tmp/rma.openmpi"
. "$here/peers.sh"
peers_init
bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
for ((i = 0; i < rounds; i++)); do
    for impl in $impls; do
        extra=
        [ "$impl" = openmpi ] && extra="--mca osc pt2pt"
        # MPICH sometimes hangs at exit after printing every figure: what a
        # run printed counts even when it is killed
        # shellcheck disable=SC2086
        peer_run "$impl" 300 $extra "$tmp/rma.$impl" "$max" $bw > "$tmp/$impl.$i" 2> "$tmp/$impl.$i.err" ||
            echo "rma_hosts.sh: $impl ended with status $? in round $i ($(grep -c . "$tmp/$impl.$i") figures): $(tail -n 2 "$tmp/$impl.$i.err" | tr '\n' ' ')" >&2
    done
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), median of $rounds rounds"
python3 - "$tmp" "$md" <<'PY'
import sys, glob, collections, statistics
tmp, md = sys.argv[1], sys.argv[2] == "1"
def med(impl):
    vals = collections.defaultdict(list)
    for f in glob.glob(f"{tmp}/{impl}.[0-9]*"):
        if f.endswith(".err"):
            continue
        for line in open(f):
            p = line.split()
            if len(p) == 3:
                vals[(p[0], int(p[1]))].append(float(p[2]))
    return {k: statistics.median(v) for k, v in vals.items()}
r, m, o = med("railmpi"), med("mpich"), med("openmpi")
names = {"put_bw": "put bandwidth, lock/flush (MB/s)", "get_bw": "get bandwidth, lock/flush (MB/s)",
         "fput_bw": "put bandwidth, fence (MB/s)", "fget_bw": "get bandwidth, fence (MB/s)",
         "put_lat": "put + flush latency (us)", "get_lat": "get + flush latency (us)",
         "fence_lat": "fence + put + fence (us)", "sr_lat": "send + zero-byte answer (us)",
         "acc_rate": "accumulate rate (k/s)"}
order = ["put_bw", "get_bw", "fput_bw", "fget_bw", "put_lat", "get_lat", "fence_lat", "sr_lat", "acc_rate"]
keys = sorted(set(r) | set(m) | set(o), key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1]))
f = lambda d, k: f"{d[k]:.1f}" if k in d else "-"
if md:
    print("| figure | size | railmpi | MPICH | Open MPI | railmpi / best peer | railmpi / 500 MB/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
else:
    print("(bandwidth MB/s: r/peer = railmpi / faster peer, r/sum = railmpi / 500 MB/s; latency us: r/peer = railmpi / faster peer)")
    print(f"{'test':>10} {'size':>8} {'railmpi':>9} {'MPICH':>9} {'OpenMPI':>9} {'r/peer':>7} {'r/sum':>6}")
for k in keys:
    lat = k[0].endswith("lat")
    peers = [x for x in (m.get(k), o.get(k)) if x is not None]
    bp = (min(peers) if lat else max(peers)) if peers else None
    ratio = f"{r[k] / bp:.2f}" if k in r and bp else "-"
    rs = f"{r[k] / 500:.2f}" if k in r and k[0].endswith("_bw") else ""
    if md:
        print(f"| {names.get(k[0], k[0])} | {k[1]} | {f(r, k)} | {f(m, k)} | {f(o, k)} | {ratio} | {rs} |")
    else:
        print(f"{k[0]:>10} {k[1]:>8} {f(r, k):>9} {f(m, k):>9} {f(o, k):>9} {ratio:>7} {rs:>6}")
PY
