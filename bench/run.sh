#!/bin/bash
# Side-by-side benchmark on this host: railmpi, MPICH and Open MPI (Debian
# packages) run the same ping-pong and windowed-bandwidth programs in one
# go, alternating several rounds because the machine is shared and noisy;
# each figure is the best of the rounds. Prints a table with railmpi/peer
# ratios; --markdown prints it as Markdown for docs/performance.md; --quick
# measures and prints only a few sizes (for the demo).
#   bench/run.sh [--markdown] [--quick] [--rounds N] [--build DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
rounds=3
md=0
quick=0
while [ $# -gt 0 ]; do
    case "$1" in
        --markdown) md=1 ;;
        --quick) quick=1 ;;
        --rounds) rounds=$2; shift ;;
        --build) build=$2; shift ;;
        *) echo "usage: bench/run.sh [--markdown] [--quick] [--rounds N] [--build DIR]" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$build/bin/mpicc" ] || { echo "bench: build railmpi first (scripts/test.sh or cmake --build $build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# (MPICH's header declares status arrays in a way gcc 12 warns about; not ours to fix)
for p in pingpong bw; do
    "$build/bin/mpicc" -O2 "$here/$p.c" -o "$out/$p.railmpi"
    mpicc.mpich -O2 "$here/$p.c" -o "$out/$p.mpich" 2>/dev/null
    mpicc.openmpi -O2 "$here/$p.c" -o "$out/$p.openmpi"
done
# --quick: latency only up to 1 KiB (the programs loop over every size up to their argument)
max() { [ $quick = 1 ] && [ "$1" = pingpong ] && echo 1024 || echo ""; }
run() { # impl prog
    case $1 in
        railmpi) timeout 300 "$build/bin/mpiexec" -n 2 -bind-to core "$out/$2.railmpi" $(max $2) ;;
        mpich) timeout 300 mpiexec.mpich -n 2 -bind-to core "$out/$2.mpich" $(max $2) ;;
        openmpi) timeout 300 mpirun.openmpi --allow-run-as-root -n 2 --bind-to core "$out/$2.openmpi" $(max $2) ;;
    esac
}
for r in $(seq "$rounds"); do
    for impl in railmpi mpich openmpi; do
        run $impl pingpong > "$out/lat.$impl.$r" 2>/dev/null || echo "bench: $impl pingpong failed" >&2
        run $impl bw > "$out/bw.$impl.$r" 2>/dev/null || echo "bench: $impl bw failed" >&2
    done
done
python3 - "$out" "$rounds" "$md" "$quick" <<'PY'
import sys, glob, collections
out, rounds, md, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"
shown = {"lat": {8, 1024}, "bw": {65536, 1048576, 4194304}}
def best(kind, impl, better):
    vals = collections.defaultdict(list)
    for f in glob.glob(f"{out}/{kind}.{impl}.*"):
        for line in open(f):
            p = line.split()
            if len(p) == 2:
                vals[int(p[0])].append(float(p[1]))
    return {k: better(v) for k, v in vals.items()}
for kind, unit, better in (("lat", "us", min), ("bw", "MB/s", max)):
    r, m, o = (best(kind, i, better) for i in ("railmpi", "mpich", "openmpi"))
    title = "latency (us, lower is better)" if kind == "lat" else "bandwidth (MB/s, higher is better)"
    if md:
        print(f"\n### {title}\n\n| size (B) | railmpi | MPICH | Open MPI | railmpi / best peer |\n|---:|---:|---:|---:|---:|")
    else:
        print(f"\n{title}\n{'size':>9} {'railmpi':>10} {'MPICH':>10} {'OpenMPI':>10} {'ratio':>7}")
    for s in sorted(set(r) | set(m) | set(o)):
        if quick and s not in shown[kind]:
            continue
        peers = [x for x in (m.get(s), o.get(s)) if x is not None]
        bp = (min(peers) if kind == "lat" else max(peers)) if peers else None
        ratio = f"{r[s] / bp:.2f}" if s in r and bp else "-"
        f = lambda d: f"{d[s]:.2f}" if s in d and kind == "lat" else (f"{d[s]:.0f}" if s in d else "-")
        if md:
            print(f"| {s} | {f(r)} | {f(m)} | {f(o)} | {ratio} |")
        else:
            print(f"{s:>9} {f(r):>10} {f(m):>10} {f(o):>10} {ratio:>7}")
PY
