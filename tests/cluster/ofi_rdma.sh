#!/bin/bash
# Rendezvous by remote writes over ofi (RAILMPI_NET=ofi, tcp;ofi_rxm over two
# rails between two virtual hosts): rdma_reuse.c sends large messages both
# ways from and into buffers freed, unmapped and allocated again between
# sends, and checks every byte; the statistics must show both rails' bytes
# written remotely (not sent as copies), both ways; then many large
# messages in flight at once. tcp;ofi_rxm writes
# remotely only with failover off (RAILMPI_FT=0; docs/transport-ofi.md), so
# that run has it off. Then the same with failover on, and with remote
# writes off (RAILMPI_OFI_RMA_MIN=0): the copy path, nothing written
# remotely. Last, libfabric's shm provider, which writes remotely with
# failover on. Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
command -v fi_info >/dev/null && fi_info -p "tcp;ofi_rxm" -c FI_RMA >/dev/null 2>&1 ||
    { echo "SKIP: no libfabric tcp;ofi_rxm provider with FI_RMA"; exit 77; }
cluster_up r 2 2 2gbit 2gbit
"$build/bin/mpicc" -O2 "$here/rdma_reuse.c" -o "$tmp/rdma_reuse" || { echo "FAIL: cannot build rdma_reuse"; exit 1; }
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_OFI_RAILS "$rails" -genv RAILMPI_NET ofi -genv RAILMPI_STATS 1 -ppn 1)
run() { # OUT -- mpiexec arguments
    local out=$1; shift 2
    if ! timeout -k 5 150 "${mx[@]}" "$@" > "$out" 2>&1 || ! grep -q "^OK rounds" "$out"; then
        grep -v "stats:" "$out" | tail -20; echo "FAIL: $*"; exit 1
    fi
}
# then 48 messages of 4 MiB in flight at once, twice: the writes of all
# of them must leave room for each rail's heartbeats
run "$tmp/rdma" -- -genv RAILMPI_FT 0 "$tmp/rdma_reuse" 48 48
grep "^OK" "$tmp/rdma"
# each rank wrote into the other over both rails
for peer in 0 1; do
    for r in 0 1; do
        grep -qE "stats: peer $peer rail $r \(ofi\): .* written remotely [0-9]{7,} bytes" "$tmp/rdma" ||
            { grep stats "$tmp/rdma"; echo "FAIL: nothing written remotely to rank $peer over rail $r"; exit 1; }
    done
done
run "$tmp/copy" -- -genv RAILMPI_FT 0 -genv RAILMPI_OFI_RMA_MIN 0 "$tmp/rdma_reuse" 12
if grep -qE "written remotely [1-9][0-9]* bytes" "$tmp/copy"; then
    grep stats "$tmp/copy"; echo "FAIL: remote writes with RAILMPI_OFI_RMA_MIN=0"; exit 1
fi
# failover on: a tcp-carried write caught by an outage could land after its
# receive completed, so none is made
run "$tmp/ft" -- "$tmp/rdma_reuse" 12
if grep -qE "written remotely [1-9][0-9]* bytes" "$tmp/ft"; then
    grep stats "$tmp/ft"; echo "FAIL: remote writes over tcp;ofi_rxm with failover on"; exit 1
fi
# libfabric's shm provider (the virtual hosts share this machine's memory):
# not carried in TCP streams, so it writes remotely with failover on
if fi_info -p shm -c FI_RMA >/dev/null 2>&1; then
    run "$tmp/shm" -- -genv RAILMPI_OFI_PROVIDER shm -genv RAILMPI_OFI_RAILS "" "$tmp/rdma_reuse" 24
    for peer in 0 1; do
        grep -qE "stats: peer $peer rail 0 \(ofi\): .* written remotely [0-9]{7,} bytes" "$tmp/shm" ||
            { grep stats "$tmp/shm"; echo "FAIL: nothing written remotely to rank $peer over the shm provider"; exit 1; }
    done
    echo "OK: shm provider: remote writes with failover on"
fi
echo "OK: rendezvous by remote writes over ofi, buffers freed and remapped between sends"
