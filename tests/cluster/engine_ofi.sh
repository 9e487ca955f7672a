#!/bin/bash
# The libfabric transport between two virtual hosts (RAILMPI_NET=ofi, the
# tcp;ofi_rxm provider over two rails): point-to-point and collective tests
# with one and two ranks per host (one buffer per message, rxm's default, and
# multi-receive buffers with RAILMPI_OFI_MULTI_RECV=1), and bandwidth runs (remote writes,
# copies) whose statistics must show both rails carrying data over ofi; then
# both transports on one channel
# (RAILMPI_NET=tcp,ofi: four rails); every signal's action as the program
# set it (signals_kept.c). Root only; torn down on exit.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
command -v fi_info >/dev/null && fi_info -p tcp >/dev/null 2>&1 || { echo "SKIP: no libfabric tcp provider"; exit 77; }
cluster_up f 2 2
mx=("$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -launcher-exec "ip netns exec" -iface "${name}mbr"
    -genv RAILMPI_OFI_RAILS "$rails" -genv RAILMPI_TCP_RAILS "$rails")
run() { # WHAT OUT -- mpiexec arguments
    local what=$1 out=$2; shift 3
    if ! timeout -k 5 100 "${mx[@]}" "$@" > "$out" 2>&1 || ! grep -q "$what" "$out"; then
        tail -20 "$out"; echo "FAIL: $*"; exit 1
    fi
}
run OK "$tmp/p2p" -- -genv RAILMPI_NET ofi -genv RAILMPI_VERBOSE 2 -ppn 1 "$build/tests/mpi/mpi_p2p_basic"
# tcp;ofi_rxm: one buffer per message unless multi-receive is asked for (its
# multi-receive is not safe across connection failures: docs/transport-ofi.md)
if grep -q "multi-receive buffers" "$tmp/p2p" || ! grep -q "ofi: rail 1: provider" "$tmp/p2p"; then
    grep "ofi: rail" "$tmp/p2p"; echo "FAIL: multi-receive buffers over tcp;ofi_rxm by default"; exit 1
fi
run OK "$tmp/p2p_mrecv" -- -genv RAILMPI_NET ofi -genv RAILMPI_VERBOSE 2 -genv RAILMPI_OFI_MULTI_RECV 1 -ppn 1 \
    "$build/tests/mpi/mpi_p2p_basic"
grep -q "ofi: rail 1: provider .*multi-receive buffers" "$tmp/p2p_mrecv" ||
    { grep "ofi: rail" "$tmp/p2p_mrecv"; echo "FAIL: RAILMPI_OFI_MULTI_RECV=1: no multi-receive buffers over tcp;ofi_rxm"; exit 1; }
run OK "$tmp/coll" -- -genv RAILMPI_NET ofi -ppn 2 "$build/tests/mpi/mpi_coll_basic"
run "^4194304 " "$tmp/bw" -- -genv RAILMPI_NET ofi -genv RAILMPI_STATS 1 -ppn 1 "$build/bin/railbench" -t bw -m 1048576:4194304 -i 10 -x 1
for r in 0 1; do
    # sent as copies, or written into the receive buffer (docs/transport-ofi.md)
    grep -qE "stats: peer 1 rail $r \(ofi\): (sent [0-9]+ frames [0-9]{7,} bytes|.* written remotely [0-9]{7,} bytes)" "$tmp/bw" ||
        { grep stats "$tmp/bw"; echo "FAIL: rail $r carried no data over ofi"; exit 1; }
done
# large messages as copies: 64 KiB frames one after another in the multi-receive buffers
run "^4194304 " "$tmp/bwcopy" -- -genv RAILMPI_NET ofi -genv RAILMPI_OFI_RMA_MIN 0 -genv RAILMPI_OFI_MULTI_RECV 1 \
    -genv RAILMPI_STATS 1 -ppn 1 \
    "$build/bin/railbench" -t bw -m 65536:4194304 -i 10 -x 1
for r in 0 1; do
    grep -qE "stats: peer 1 rail $r \(ofi\): sent [0-9]+ frames [0-9]{7,} bytes" "$tmp/bwcopy" ||
        { grep stats "$tmp/bwcopy"; echo "FAIL: rail $r carried no copies over ofi"; exit 1; }
done
run OK "$tmp/both" -- -genv RAILMPI_NET tcp,ofi -genv RAILMPI_STATS 1 -ppn 1 "$build/tests/mpi/mpi_p2p_basic"
for r in "0 (tcp)" "1 (tcp)" "2 (ofi)" "3 (ofi)"; do
    grep -qF "stats: peer 1 rail $r" "$tmp/both" || { grep stats "$tmp/both"; echo "FAIL: no rail $r with RAILMPI_NET=tcp,ofi"; exit 1; }
done
# libfabric's providers' libraries must not take the program's signals
"$build/bin/mpicc" -O2 "$here/signals_kept.c" -o "$tmp/signals_kept" || { echo "FAIL: cannot build signals_kept"; exit 1; }
run "^OK signals" "$tmp/sig" -- -genv RAILMPI_NET ofi -ppn 1 "$tmp/signals_kept"
grep -E "^(1048576|4194304) " "$tmp/bw"
echo "OK: engine over ofi (tcp;ofi_rxm), alone and beside tcp"
