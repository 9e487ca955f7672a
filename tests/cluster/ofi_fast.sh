#!/bin/bash
# The ofi transport's RDMA fast path (docs/transport-ofi.md): small frames
# written into a ring in the peer's memory. small_msgs.c (every size from 0
# to 2100 bytes, across the ring slot's capacity; windows both ways; a
# burst that overruns the ring) checks every byte and the order, over two
# rails of tcp;ofi_rxm between two virtual hosts: with failover on (the
# default), with it off, and with the fast path off (RAILMPI_OFI_FAST=0,
# nothing written into rings); then over libfabric's shm provider. The
# statistics must show frames sent by the fast path both ways. Root only;
# torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
command -v fi_info >/dev/null && fi_info -p "tcp;ofi_rxm" -c FI_RMA >/dev/null 2>&1 ||
    { echo "SKIP: no libfabric tcp;ofi_rxm provider with FI_RMA"; exit 77; }
cluster_up f 2 2
"$build/bin/mpicc" -O2 "$here/small_msgs.c" -o "$tmp/small_msgs" || { echo "FAIL: cannot build small_msgs"; exit 1; }
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_OFI_RAILS "$rails" -genv RAILMPI_NET ofi -genv RAILMPI_STATS 1 -ppn 1)
run() { # OUT -- mpiexec arguments
    local out=$1; shift 2
    if ! timeout -k 5 120 "${mx[@]}" "$@" > "$out" 2>&1 || ! grep -q "^OK small" "$out"; then
        grep -v "stats:" "$out" | tail -20; echo "FAIL: $*"; exit 1
    fi
}
fast_both() { # OUT WHAT: each rank sent at least 1000 frames by the fast path
    for peer in 0 1; do
        n=$(grep -oE "stats: peer $peer rail [0-9]+ \(ofi\): .* fast path [0-9]+ frames" "$1" |
            grep -oE "fast path [0-9]+" | awk '{s += $3} END {print s + 0}')
        [ "$n" -ge 1000 ] || { grep stats "$1"; echo "FAIL: $2: $n frames to rank $peer by the fast path"; exit 1; }
    done
}
run "$tmp/ft" -- "$tmp/small_msgs" 2
fast_both "$tmp/ft" "tcp;ofi_rxm, failover on"
echo "OK: tcp;ofi_rxm with failover on: small frames by the fast path, every byte and the order right"
run "$tmp/noft" -- -genv RAILMPI_FT 0 "$tmp/small_msgs" 1
fast_both "$tmp/noft" "tcp;ofi_rxm, failover off"
run "$tmp/off" -- -genv RAILMPI_OFI_FAST 0 "$tmp/small_msgs" 1
if grep -qE "fast path [1-9][0-9]* frames" "$tmp/off"; then
    grep stats "$tmp/off"; echo "FAIL: fast-path frames with RAILMPI_OFI_FAST=0"; exit 1
fi
echo "OK: RAILMPI_OFI_FAST=0: no frame by the fast path"
if fi_info -p shm -c FI_RMA >/dev/null 2>&1; then
    run "$tmp/shm" -- -genv RAILMPI_OFI_PROVIDER shm -genv RAILMPI_OFI_RAILS "" "$tmp/small_msgs" 1
    fast_both "$tmp/shm" "shm provider"
    echo "OK: shm provider: small frames by the fast path"
fi
echo "OK: the RDMA fast path over ofi"
