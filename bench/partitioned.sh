#!/bin/bash
# Partitioned communication against one send after the compute, side by
# side on this host: railmpi, MPICH and Open MPI run bench/partitioned.c
# (4 threads fill 16 MiB in partitions with some compute per element; time
# from the sender's start to the last byte at the receiver, with each
# partition sent as it is filled ("part") and with one MPI_Isend after the
# threads finish ("isend")). Debian's Open MPI 4.1 has no MPI_Psend_init:
# it runs the isend case only. Several rounds alternate the MPIs (the
# machine is shared and noisy); each figure is the best of the rounds.
# --hosts: the two ranks on two virtual hosts over two TCP rails shaped to
# 2 Gbit/s each (root; bench/peers.sh says how each MPI is started there).
#   bench/partitioned.sh [--rounds N] [--build DIR] [--parts P] [--work W] [--reps R] [--hosts]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$here")/build
rounds=3 parts=64 work=20 reps=10 hosts=0
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift ;;
        --build) build=$2; shift ;;
        --parts) parts=$2; shift ;;
        --work) work=$2; shift ;;
        --reps) reps=$2; shift ;;
        --hosts) hosts=1 ;;
        *) echo "usage: bench/partitioned.sh [--rounds N] [--build DIR] [--parts P] [--work W] [--reps R] [--hosts]" >&2
           exit 2 ;;
    esac
    shift
done
[ -x "$build/bin/mpicc" ] || { echo "bench: build railmpi first" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [ $hosts = 1 ]; then
    [ "$(id -u)" = 0 ] || { echo "bench/partitioned.sh --hosts: needs root (network namespaces)" >&2; exit 1; }
    vc=$(dirname "$here")/tests/cluster/vcluster.sh
    name=pq tmp=$out
    trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$out"' EXIT
    . "$here/peers.sh"
    peers_init
    bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
    rails=$(bash "$vc" rails $name)
    mgmt=$(bash "$vc" net $name m)
fi
"$build/bin/mpicc" -O2 "$here/partitioned.c" -o "$out/p.railmpi" -lpthread
mpicc.mpich -O2 "$here/partitioned.c" -o "$out/p.mpich" -lpthread 2>/dev/null
mpicc.openmpi -O2 -DBENCH_NO_PARTITIONED "$here/partitioned.c" -o "$out/p.openmpi" -lpthread
args=("$parts" "$work" "$reps")
# unbound: the sender's four threads need every core
for r in $(seq "$rounds"); do
    if [ $hosts = 1 ]; then
        for impl in railmpi mpich openmpi; do
            peer_run $impl 120 "$out/p.$impl" "${args[@]}" > "$out/$impl.$r" 2> "$out/$impl.$r.err" ||
                echo "bench: $impl failed: $(tail -n 2 "$out/$impl.$r.err" | tr '\n' ' ')" >&2
        done
        continue
    fi
    timeout 300 "$build/bin/mpiexec" -n 2 -bind-to none "$out/p.railmpi" "${args[@]}" > "$out/railmpi.$r" 2>/dev/null ||
        echo "bench: railmpi failed" >&2
    timeout 300 mpiexec.mpich -n 2 -bind-to none "$out/p.mpich" "${args[@]}" > "$out/mpich.$r" 2>/dev/null ||
        echo "bench: MPICH failed" >&2
    timeout 300 mpirun.openmpi --allow-run-as-root -n 2 --bind-to none "$out/p.openmpi" "${args[@]}" \
        > "$out/openmpi.$r" 2>/dev/null || echo "bench: Open MPI failed" >&2
done
where="one host"
[ $hosts = 1 ] && where="two virtual hosts, 2 x 2 Gbit/s rails"
python3 - "$out" "$parts" "$work" "$where" <<'PY'
import sys, glob
out, parts, work, where = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
def best(impl):
    v = {}
    for f in glob.glob(f"{out}/{impl}.*"):
        for line in open(f):
            p = line.split()
            if len(p) == 2 and p[0] in ("part", "isend", "fill"):
                x = float(p[1])
                if x >= 0:
                    v[p[0]] = min(v.get(p[0], x), x)
    return v
res = {i: best(i) for i in ("railmpi", "mpich", "openmpi")}
names = {"railmpi": "railmpi", "mpich": "MPICH", "openmpi": "Open MPI"}
print(f"{where}: 16 MiB, 4 threads, {parts} partitions, work {work}: time to the last byte (us, best of rounds)")
print(f"{'MPI':>9} {'part':>9} {'isend':>9} {'fill':>9} {'part/isend':>11}")
def f(x):
    return f"{x:9.0f}" if x is not None else f"{'-':>9}"
for i in res:
    r = res[i]
    p, s = r.get("part"), r.get("isend")
    ratio = f"{p / s:11.2f}" if p and s else f"{'-':>11}"
    print(f"{names[i]:>9} {f(p)} {f(s)} {f(r.get('fill'))} {ratio}")
rp = res["railmpi"].get("part")
for i in ("mpich", "openmpi"):
    for k in ("part", "isend"):
        a, b = res["railmpi"].get(k), res[i].get(k)
        if a and b:
            print(f"railmpi {k} / {names[i]} {k}: {a / b:.2f}")
    b = res[i].get("isend")
    if rp and b:
        print(f"railmpi part / {names[i]} isend: {rp / b:.2f}")
PY
