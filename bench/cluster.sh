#!/bin/bash
# Two virtual hosts, two TCP rails, windowed bandwidth of large messages:
# railmpi (adaptive striping), Open MPI (TCP BTL over both rails) and MPICH
# (UCX over both rail interfaces) on the same virtual cluster in one run.
# Rails shaped 2+2 Gbit/s, then 2+0.5 Gbit/s. Prints MB/s and ratios to the
# sum of the rail rates, and to what plain TCP carries on the same links
# (railbench -L transport on each rail alone, summed): at MTU 1500 the
# Ethernet, IP and TCP headers take about 4.4 % of a shaped rail's rate, so
# that sum, not the rate, is the ceiling of any MPI over TCP here.
# Root only; the cluster is torn down on exit.
#   bench/cluster.sh [--build DIR] [--markdown] [--only railmpi|mpich|openmpi] [--mtu N]
# --mtu: every rail link's MTU (default 1500; 9000 for jumbo frames, which
# cut the headers' share of a rail to 0.7 % and the packets to a sixth).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0
only=
mtu=
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        --only) only=$2; shift ;;
        --mtu) mtu=$2; shift ;;
        *) echo "usage: bench/cluster.sh [--build DIR] [--markdown] [--only railmpi|mpich|openmpi] [--mtu N]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/cluster.sh: needs root (network namespaces)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
tools=$(cd "$top/../shared/tools" 2>/dev/null && pwd || echo "")
name=bc
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$here/bw.c" -o "$tmp/bw.railmpi"
mpicc.mpich -O2 "$here/bw.c" -o "$tmp/bw.mpich" 2>/dev/null
mpicc.openmpi -O2 "$here/bw.c" -o "$tmp/bw.openmpi"
. "$here/peers.sh"
peers_init
last() { awk 'END { print $2 }'; }
run_all() { # prints "railmpi mpich openmpi" MB/s at 4 MiB
    local r= m= o=
    want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
    want railmpi && r=$(peer_run railmpi 180 "$tmp/bw.railmpi" 4194304 2>/dev/null | last)
    want mpich && m=$(peer_run mpich 180 "$tmp/bw.mpich" 4194304 2>/dev/null | last)
    want openmpi && o=$(peer_run openmpi 180 "$tmp/bw.openmpi" 4194304 2>/dev/null | last)
    # plain TCP, each rail alone (one connection, no MPI engine)
    local t0 t1
    t0=$(peer_run railmpi 180 "$build/bin/railbench" -L transport -R 0 -t bw -m 4194304:4194304 -i 10 -x 2 2>/dev/null | last)
    t1=$(peer_run railmpi 180 "$build/bin/railbench" -L transport -R 1 -t bw -m 4194304:4194304 -i 10 -x 2 2>/dev/null | last)
    echo "${r:--} ${m:--} ${o:--} $(awk -v a="$t0" -v b="$t1" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.1f", a + b }')"
}
bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
[ -z "$mtu" ] || for r in 0 1; do bash "$vc" mtu $name $r "$mtu" || exit 1; done
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
read -r r1 m1 o1 t1 < <(run_all)
for h in 1 2; do bash "$vc" rate $name $h 1 500mbit; done
read -r r2 m2 o2 t2 < <(run_all)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || a == "" || b == "-" || b == "") print "-"; else printf "%.2f", a / b }'; }
if [ $md = 1 ]; then
    echo "| rails | sum of rates | plain TCP, rails alone, summed | railmpi | MPICH | Open MPI | railmpi / sum of rates | railmpi / plain TCP | MPICH / plain TCP | Open MPI / plain TCP |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    echo "| 2 + 2 Gbit/s | 500 MB/s | $t1 | $r1 | $m1 | $o1 | $(ratio "$r1" 500) | $(ratio "$r1" "$t1") | $(ratio "$m1" "$t1") | $(ratio "$o1" "$t1") |"
    echo "| 2 + 0.5 Gbit/s | 312 MB/s | $t2 | $r2 | $m2 | $o2 | $(ratio "$r2" 312) | $(ratio "$r2" "$t2") | $(ratio "$m2" "$t2") | $(ratio "$o2" "$t2") |"
else
    printf "%-16s %8s %8s %8s %8s %8s %8s\n" rails TCP railmpi MPICH OpenMPI "r/sum" "r/TCP"
    printf "%-16s %8s %8s %8s %8s %8s %8s\n" "2+2 Gbit/s" "$t1" "$r1" "$m1" "$o1" "$(ratio "$r1" 500)" "$(ratio "$r1" "$t1")"
    printf "%-16s %8s %8s %8s %8s %8s %8s\n" "2+0.5 Gbit/s" "$t2" "$r2" "$m2" "$o2" "$(ratio "$r2" 312)" "$(ratio "$r2" "$t2")"
fi
