#!/bin/bash
# Small messages through each of railmpi's ABIs, side by side in one run:
# bench/msgrate.c built with `mpicc` (MPICH's ABI, libmpi.so.12), with
# `mpicc -abi` (the MPI-5.0 standard ABI, libmpi_abi.so.0) and, when the
# build has Open MPI's ABI (lib/openmpi-abi/libmpi.so.40) and Debian's
# mpicc.openmpi is there, with mpicc.openmpi run through `mpiexec -abi
# openmpi`. 1-byte latency (half round trip) and the 8-byte message rate
# (window 64) of one pair of ranks on one host, each rank pinned to a core
# of its own; the builds alternate over the rounds (this machine is shared),
# each figure is the median, and the ratio is the ABI's figure over the
# MPICH-ABI library's (latency: lower is better, rate: higher is better).
# What each translation layer costs in instructions is bench/callcount.sh
# --abi's (deterministic); this is what it costs in time.
#   bench/abi.sh [--build DIR] [--rounds N] [--iters N] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
rounds=7
iters=2000
md=0
usage() { echo "usage: bench/abi.sh [--build DIR] [--rounds N] [--iters N] [--markdown]" >&2; exit 2; }
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
[ -x "$build/bin/mpicc" ] || { echo "bench/abi.sh: build railmpi first ($build/bin/mpicc)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT INT TERM
abis="mpich std"
"$build/bin/mpicc" -O2 "$here/msgrate.c" -o "$out/m.mpich" || exit 1
"$build/bin/mpicc" -abi -O2 "$here/msgrate.c" -o "$out/m.std" || exit 1
if [ -e "$build/lib/openmpi-abi/libmpi.so.40" ] && command -v mpicc.openmpi >/dev/null; then
    mpicc.openmpi -O2 "$here/msgrate.c" -o "$out/m.ompi" && abis="$abis ompi"
else
    echo "bench/abi.sh: no Open MPI ABI in this build (or no mpicc.openmpi): that column is left out" >&2
fi
cat > "$out/pin" <<'SH'
#!/bin/sh
r=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
exec taskset -c $((r % $(nproc))) "$@"
SH
chmod +x "$out/pin"
run() { # abi
    local extra=
    [ "$1" = ompi ] && extra="-abi openmpi"
    # 1-byte latency and the rate up to 8 bytes, window 64
    timeout 300 "$build/bin/mpiexec" $extra -n 2 -bind-to none "$out/pin" "$out/m.$1" 1 8 64 "$iters"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
    for abi in $abis; do
        run "$abi" > "$out/$abi.$r" 2>"$out/$abi.$r.err" || { echo "bench/abi.sh: $abi, round $r failed:" >&2; tail -3 "$out/$abi.$r.err" >&2; }
    done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$out" "$md" "$rounds" "$iters" "$load0" "$load1" "$abis" <<'PY'
import sys, glob, statistics
out, md, rounds, iters, load0, load1, abis = sys.argv[1], sys.argv[2] == "1", *sys.argv[3:]
abis = abis.split()
names = {"mpich": "MPICH ABI (libmpi.so.12)", "std": "standard ABI (libmpi_abi.so.0)",
         "ompi": "Open MPI ABI (libmpi.so.40)"}
def med(abi, kind, size):
    vals = []
    for f in glob.glob(f"{out}/{abi}.[0-9]*"):
        if f.endswith(".err"):
            continue
        for line in open(f):
            p = line.split()
            if len(p) == 3 and p[0] == kind and int(p[1]) == size:
                vals.append(float(p[2]))
    return statistics.median(vals) if vals else None
print(f"# bench/abi.sh: {rounds} rounds, {iters} iterations, 2 ranks on one host (a core each); "
      f"load average before: {load0}, after: {load1}")
rows = [("1-byte latency (us, half round trip)", "lat", 1, lambda v: f"{v:.3f}"),
        ("8-byte message rate (million/s, window 64)", "rate", 8, lambda v: f"{v / 1e6:.2f}")]
base = {k: med("mpich", k, s) for _, k, s, _ in rows}
if md:
    print("\n| library | " + " | ".join(t for t, *_ in rows) + " | ratio to MPICH ABI (latency, rate) |")
    print("|---|" + "---:|" * (len(rows) + 1))
else:
    print(f"\n{'library':32} {'lat 1 B (us)':>13} {'rate 8 B (M/s)':>15} {'ratios':>12}")
for abi in abis:
    vals = [(med(abi, k, s), f) for _, k, s, f in rows]
    cells = [f(v) if v is not None else "-" for v, f in vals]
    ratios = ", ".join(f"{v / base[k]:.2f}" if v and base[k] else "-"
                       for (v, _), (_, k, _, _) in zip(vals, rows))
    if md:
        print(f"| {names[abi]} | " + " | ".join(cells) + f" | {ratios} |")
    else:
        print(f"{names[abi]:32} {cells[0]:>13} {cells[1]:>15} {ratios:>12}")
PY
