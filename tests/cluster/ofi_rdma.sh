#!/bin/bash
# Rendezvous by remote writes over ofi (RAILMPI_NET=ofi, tcp;ofi_rxm over two
# rails between two virtual hosts): rdma_reuse.c sends large messages both
# ways from and into buffers freed, unmapped and allocated again between
# sends, and checks every byte; the statistics must show both rails' bytes
# written remotely (not sent as copies), both ways; then many large
# messages in flight at once, with failover on and RAILMPI_OFI_RMA_STREAM=1
# (over tcp;ofi_rxm a write given up on after a path failure is fenced by
# renewing the receiver's endpoint: docs/transport-ofi.md). Then with
# failover off; with the defaults (failover on: the copy path over
# tcp;ofi_rxm) and with remote writes off (RAILMPI_OFI_RMA_MIN=0), nothing
# written remotely. Last, libfabric's shm provider. Root only; torn down
# on exit.
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
# each rank wrote into the other over both rails
written() { # OUT
    for peer in 0 1; do
        for r in 0 1; do
            grep -qE "stats: peer $peer rail $r \(ofi\): .* written remotely [0-9]{7,} bytes" "$1" ||
                { grep stats "$1"; echo "FAIL: nothing written remotely to rank $peer over rail $r ($1)"; exit 1; }
        done
    done
}
# then 48 messages of 4 MiB in flight at once, twice: the writes of all
# of them must leave room for each rail's heartbeats
run "$tmp/rdma" -- -genv RAILMPI_OFI_RMA_STREAM 1 "$tmp/rdma_reuse" 48 48
grep "^OK" "$tmp/rdma"
written "$tmp/rdma"
echo "OK: remote writes over tcp;ofi_rxm with failover on (RAILMPI_OFI_RMA_STREAM=1)"
run "$tmp/noft" -- -genv RAILMPI_FT 0 "$tmp/rdma_reuse" 12
written "$tmp/noft"
run "$tmp/copy" -- -genv RAILMPI_FT 0 -genv RAILMPI_OFI_RMA_MIN 0 "$tmp/rdma_reuse" 12
if grep -qE "written remotely [1-9][0-9]* bytes" "$tmp/copy"; then
    grep stats "$tmp/copy"; echo "FAIL: remote writes with RAILMPI_OFI_RMA_MIN=0"; exit 1
fi
run "$tmp/ft" -- "$tmp/rdma_reuse" 12
if grep -qE "written remotely [1-9][0-9]* bytes" "$tmp/ft"; then
    grep stats "$tmp/ft"; echo "FAIL: remote writes over tcp;ofi_rxm with failover on by default"; exit 1
fi
# libfabric's shm provider (the virtual hosts share this machine's memory)
if fi_info -p shm -c FI_RMA >/dev/null 2>&1; then
    run "$tmp/shm" -- -genv RAILMPI_OFI_PROVIDER shm -genv RAILMPI_OFI_RAILS "" "$tmp/rdma_reuse" 24
    for peer in 0 1; do
        grep -qE "stats: peer $peer rail 0 \(ofi\): .* written remotely [0-9]{7,} bytes" "$tmp/shm" ||
            { grep stats "$tmp/shm"; echo "FAIL: nothing written remotely to rank $peer over the shm provider"; exit 1; }
    done
    echo "OK: shm provider: remote writes with failover on"
fi
echo "OK: rendezvous by remote writes over ofi, buffers freed and remapped between sends"
