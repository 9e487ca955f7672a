#!/bin/bash
# Small messages on one host, railmpi, MPICH and Open MPI side by side:
# latency (ping-pong, half round trip) 1 B - 1 KiB and the windowed message
# rate (64 messages in flight, then a 1-byte answer) 1 B - 4 KiB, with one
# pair of ranks (2 ranks) and two pairs at once (4 ranks: 0-1 and 2-3), once
# with the receives posted ahead and once with every message arriving
# before its receive (matched out of the unexpected queue).
# All three run the same program, bench/msgrate.c. Every rank is pinned to
# core (rank mod cores) by a small wrapper, the same for all three: with 4
# ranks on a 2-core machine two ranks share each core (oversubscribed; each
# pair still spans both cores). The implementations alternate over several
# rounds because the machine is shared; each figure is the median of the
# rounds, and the ratio is railmpi / the faster peer (latency: < 1 is better,
# rate: > 1 is better). The load average before and after is printed.
#   bench/msgrate.sh [--build DIR] [--rounds N] [--iters N] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
rounds=5
iters=2000
md=0
usage() { echo "usage: bench/msgrate.sh [--build DIR] [--rounds N] [--iters N] [--markdown]" >&2; exit 2; }
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
[ -x "$build/bin/mpicc" ] || { echo "bench/msgrate.sh: build railmpi first ($build/bin/mpicc)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$here/msgrate.c" -o "$out/m.railmpi" || exit 1
# (MPICH's header declares status arrays in a way gcc 12 warns about; not ours to fix)
mpicc.mpich -O2 "$here/msgrate.c" -o "$out/m.mpich" 2>/dev/null || echo "bench: no MPICH build" >&2
mpicc.openmpi -O2 "$here/msgrate.c" -o "$out/m.openmpi" 2>/dev/null || echo "bench: no Open MPI build" >&2
cat > "$out/pin" <<'SH'
#!/bin/sh
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
exec taskset -c $((r % $(nproc))) "$@"
SH
chmod +x "$out/pin"
run() { # impl ranks args...
    local impl=$1 n=$2
    shift 2
    case $impl in
        railmpi) timeout 300 "$build/bin/mpiexec" -n "$n" -bind-to none "$out/pin" "$out/m.railmpi" "$@" ;;
        mpich) timeout 300 mpiexec.mpich -n "$n" -bind-to none "$out/pin" "$out/m.mpich" "$@" ;;
        openmpi) timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --bind-to none \
            "$out/pin" "$out/m.openmpi" "$@" ;;
    esac
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
    for impl in railmpi mpich openmpi; do
        [ -x "$out/m.$impl" ] || continue
        # one pair: latency 1 B - 1 KiB and the rate; two pairs: the rate only
        run $impl 2 1024 4096 64 "$iters" > "$out/2.$impl.$r" 2>/dev/null || echo "bench: $impl, 2 ranks, round $r failed" >&2
        run $impl 4 0 4096 64 "$iters" > "$out/4.$impl.$r" 2>/dev/null || echo "bench: $impl, 4 ranks, round $r failed" >&2
    done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$out" "$md" "$rounds" "$iters" "$load0" "$load1" <<'PY'
import sys, glob, collections, statistics
out, md, rounds, iters, load0, load1 = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
impls = ("railmpi", "mpich", "openmpi")
def med(np, kind, impl):
    vals = collections.defaultdict(list)
    for f in glob.glob(f"{out}/{np}.{impl}.*"):
        for line in open(f):
            p = line.split()
            if len(p) == 3 and p[0] == kind:
                vals[int(p[1])].append(float(p[2]))
    return {k: statistics.median(v) for k, v in vals.items()}, {k: len(v) for k, v in vals.items()}
print(f"# {rounds} rounds, {iters} iterations per size; load average before: {load0}, after: {load1}")
tables = (("lat", 2, "latency, 1 pair (us, half round trip; median; lower is better)", min),
          ("rate", 2, "message rate, 1 pair (million messages/s, window 64; median; higher is better)", max),
          ("rate", 4, "message rate, 2 pairs on 2 cores, oversubscribed (million messages/s, window 64; median)", max),
          ("unexp", 2, "message rate, 1 pair, every message unexpected (million messages/s, window 64; median)", max),
          ("unexp", 4, "message rate, 2 pairs, every message unexpected, oversubscribed (million messages/s, window 64; median)", max))
for kind, np, title, better in tables:
    d = {i: med(np, kind, i)[0] for i in impls}
    fmt = (lambda v: f"{v:.3f}") if kind == "lat" else (lambda v: f"{v / 1e6:.2f}")
    if md:
        print(f"\n#### {title}\n\n| size (B) | railmpi | MPICH | Open MPI | railmpi / faster peer |\n|---:|---:|---:|---:|---:|")
    else:
        print(f"\n{title}\n{'size':>6} {'railmpi':>9} {'MPICH':>9} {'OpenMPI':>9} {'ratio':>7}")
    for s in sorted(set().union(*(d[i].keys() for i in impls))):
        peers = [d[i][s] for i in ("mpich", "openmpi") if s in d[i]]
        bp = better(peers) if peers else None
        r = d["railmpi"].get(s)
        ratio = f"{r / bp:.2f}" if r and bp else "-"
        cell = lambda i: fmt(d[i][s]) if s in d[i] else "-"
        if md:
            print(f"| {s} | {cell('railmpi')} | {cell('mpich')} | {cell('openmpi')} | {ratio} |")
        else:
            print(f"{s:>6} {cell('railmpi'):>9} {cell('mpich'):>9} {cell('openmpi'):>9} {ratio:>7}")
PY
