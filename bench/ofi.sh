#!/bin/bash
# The libfabric transport against the tcp transport and against Open MPI over
# libfabric, on one virtual cluster: 2 hosts, 2 rails of 2 Gbit/s each, one
# rank per host. Windowed bandwidth at 4 MiB (bench/bw.c) and one-way latency
# at 8 bytes (bench/pingpong.c), the same programs under each:
#   railmpi tcp   RAILMPI_NET=tcp (both rails)
#   railmpi ofi   RAILMPI_NET=ofi, provider tcp;ofi_rxm (both rails): large
#                 messages by remote writes into the receive buffer (which
#                 tcp;ofi_rxm does with failover on only with
#                 RAILMPI_OFI_RMA_STREAM=1)
#   ofi copy      the same with RAILMPI_OFI_RMA_MIN=0: the copy path only
#   ofi fast off  latency with RAILMPI_OFI_FAST=0: small frames as messages,
#                 not written into the peer's ring (the RDMA fast path)
#   Open MPI ofi  --mca pml cm --mca mtl ofi, FI_PROVIDER=tcp; libfabric's tcp
#                 provider takes one interface (FI_TCP_IFACE=rail0), so one rail
#   MPICH         Debian's MPICH (UCX over tcp on both rails: its package has
#                 no libfabric device), the same links
# and prints the figures and the ratios ofi/tcp, ofi/(Open MPI ofi), ofi/MPICH.
# Failover times over ofi: RAILMPI_TEST_NET=ofi bench/fault.sh.
# Root only; the cluster is torn down on exit.
#   bench/ofi.sh [--build DIR] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        *) echo "usage: bench/ofi.sh [--build DIR] [--markdown]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/ofi.sh: needs root (network namespaces)" >&2; exit 1; }
command -v fi_info >/dev/null && fi_info -p tcp >/dev/null 2>&1 || { echo "bench/ofi.sh: no libfabric tcp provider" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=bo
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
for p in bw pingpong; do
    "$build/bin/mpicc" -O2 "$here/$p.c" -o "$tmp/$p.railmpi" || exit 1
    mpicc.openmpi -O2 "$here/$p.c" -o "$tmp/$p.openmpi" 2>/dev/null
    mpicc.mpich -O2 "$here/$p.c" -o "$tmp/$p.mpich" 2>/dev/null
done
. "$here/peers.sh"
peers_init
bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
bw_of() { awk 'END { print $2 }'; }
lat_of() { awk '$1 == 8 { print $2; exit }'; }
# the median of three runs: the machine is shared and its load varies
med3() { sort -g | awk '{ v[NR] = $1 } END { print (NR >= 2 ? v[int((NR + 1) / 2)] : (NR ? v[1] : "-")) }'; }
rm_run() { # NET PROG ARGS...
    local net=$1; shift
    peer_run railmpi 120 -genv RAILMPI_NET "$net" -genv RAILMPI_OFI_RAILS "$rails" "$@" 2>/dev/null
}
ompi_run() { # PROG ARGS...
    # Open MPI 4.1 leaves tcp out of mtl ofi unless told (mtl_ofi_provider_exclude)
    peer_run openmpi 120 --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "tcp;ofi_rxm" \
        -x FI_PROVIDER=tcp -x FI_TCP_IFACE=rail0 "$@" 2>/dev/null
}
load0=$(cut -d' ' -f1 /proc/loadavg)
bt=$(for i in 1 2 3; do rm_run tcp "$tmp/bw.railmpi" 4194304 | bw_of; done | med3)
bo=$(for i in 1 2 3; do rm_run ofi -genv RAILMPI_OFI_RMA_STREAM 1 "$tmp/bw.railmpi" 4194304 | bw_of; done | med3)
bc=$(for i in 1 2 3; do rm_run ofi -genv RAILMPI_OFI_RMA_MIN 0 "$tmp/bw.railmpi" 4194304 | bw_of; done | med3)
bm=$(for i in 1 2 3; do ompi_run "$tmp/bw.openmpi" 4194304 | bw_of; done | med3)
lt=$(for i in 1 2 3; do rm_run tcp "$tmp/pingpong.railmpi" 8 | lat_of; done | med3)
lo=$(for i in 1 2 3; do rm_run ofi "$tmp/pingpong.railmpi" 8 | lat_of; done | med3)
lm=$(for i in 1 2 3; do ompi_run "$tmp/pingpong.openmpi" 8 | lat_of; done | med3)
lf=$(for i in 1 2 3; do rm_run ofi -genv RAILMPI_OFI_FAST 0 "$tmp/pingpong.railmpi" 8 | lat_of; done | med3)
bh=$(for i in 1 2 3; do peer_run mpich 120 "$tmp/bw.mpich" 4194304 2>/dev/null | bw_of; done | med3)
lh=$(for i in 1 2 3; do peer_run mpich 120 "$tmp/pingpong.mpich" 8 2>/dev/null | lat_of; done | med3)
load1=$(cut -d' ' -f1 /proc/loadavg)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || a == "" || b == "-" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
if [ $md = 1 ]; then
    echo "| | railmpi tcp | railmpi ofi | ofi copy path | ofi, fast path off | Open MPI ofi (1 rail) | MPICH (UCX) | ofi / tcp | ofi / Open MPI ofi | ofi / MPICH |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    echo "| bandwidth 4 MiB (MB/s) | ${bt:--} | ${bo:--} | ${bc:--} | - | ${bm:--} | ${bh:--} | $(ratio "$bo" "$bt") | $(ratio "$bo" "$bm") | $(ratio "$bo" "$bh") |"
    echo "| latency 8 B (us, one way) | ${lt:--} | ${lo:--} | - | ${lf:--} | ${lm:--} | ${lh:--} | $(ratio "$lo" "$lt") | $(ratio "$lo" "$lm") | $(ratio "$lo" "$lh") |"
    echo
    echo "load average $load0 before, $load1 after"
else
    f="%-26s %11s %11s %10s %10s %12s %10s %8s %11s %9s\n"
    printf "$f" "" "railmpi-tcp" "railmpi-ofi" "ofi-copy" "ofi-nofast" "OpenMPI-ofi" "MPICH" "ofi/tcp" "ofi/OpenMPI" "ofi/MPICH"
    printf "$f" "bandwidth 4 MiB (MB/s)" "${bt:--}" "${bo:--}" "${bc:--}" "-" "${bm:--}" "${bh:--}" "$(ratio "$bo" "$bt")" "$(ratio "$bo" "$bm")" "$(ratio "$bo" "$bh")"
    printf "$f" "latency 8 B (us)" "${lt:--}" "${lo:--}" "-" "${lf:--}" "${lm:--}" "${lh:--}" "$(ratio "$lo" "$lt")" "$(ratio "$lo" "$lm")" "$(ratio "$lo" "$lh")"
    echo "load average $load0 before, $load1 after"
fi
