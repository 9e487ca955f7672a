#!/bin/bash
# The ofi transport on RDMA hardware: libfabric's verbs;ofi_rxm provider
# (InfiniBand, RoCE, iWARP) wherever an RDMA device exists; where none does
# (no verbs domain in `fi_info -p "verbs;ofi_rxm"`) it skips and says so.
# Two hosts on this machine: mpiexec starts both proxies here, the ranks'
# host names differ (a, b), so they meet over the NICs (the HCA loops the
# traffic back), not in shared memory. Every rail of the provider is used.
#  1. the provider carries the job (its rails reported, with remote writes
#     and, but on iWARP, the RDMA fast path);
#  2. rdma_reuse.c: large messages by remote writes into buffers freed and
#     remapped between sends, every byte checked, bytes written remotely on
#     every rail both ways; 48 messages of 4 MiB in flight at once;
#  3. small_msgs.c: small messages of every size, order and bytes checked,
#     frames by the fast path both ways (not on iWARP);
#  4. the MPI suite (tests/mpi) as mpi_suite_ofi.sh runs it, 2 and 4 ranks.
# RAILMPI_TEST_VERBS_PROVIDER runs the same over another provider (shm runs
# it on any machine: the script's own check).
set -u
build=$1
. "$(dirname "$0")/lib.sh" # suite_runs; no virtual cluster here
prov=${RAILMPI_TEST_VERBS_PROVIDER:-verbs;ofi_rxm}
fail() { echo "FAIL: $*"; exit 1; }
command -v fi_info >/dev/null || { echo "SKIP: fi_info (libfabric-bin) missing"; exit 77; }
if ! fi_info -p "$prov" >/dev/null 2>&1; then
    echo "SKIP: no RDMA device here: libfabric's $prov provider finds no domain (fi_info -p \"$prov\");" \
         "this test runs the MPI suite, remote writes and the RDMA fast path over it where one exists"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '#!/bin/sh\nshift\nexec "$@"\n' > "$tmp/here"
chmod +x "$tmp/here"
mx=("$build/bin/mpiexec" -hosts a,b -launcher-exec "$tmp/here" -genv RAILMPI_NET ofi
    -genv RAILMPI_OFI_PROVIDER "$prov" --timeout 100)
for p in rdma_reuse small_msgs; do
    "$build/bin/mpicc" -O2 "$here/$p.c" -o "$tmp/$p" || fail "cannot build $p"
done
# 1. the provider's rails
timeout -k 5 60 "${mx[@]}" -genv RAILMPI_VERBOSE 2 -n 2 -ppn 1 "$build/tests/mpi/mpi_p2p_basic" > "$tmp/out" 2>&1 ||
    fail "a job over $prov: $(grep -m3 -E "ERR|rror|Abort" "$tmp/out" | tr '\n' ' ')"
grep "railmpi\[0\]: ofi: rail [0-9]*: provider" "$tmp/out" | sed 's/^railmpi\[0\]: //' > "$tmp/rails"
[ -s "$tmp/rails" ] || fail "no ofi rail of provider $prov reported"
cat "$tmp/rails"
nrails=$(wc -l < "$tmp/rails")
grep -q "remote writes" "$tmp/rails" || fail "$prov: rails without remote writes"
fast=1
grep -q "RDMA fast path" "$tmp/rails" || { fast=0; echo "note: no RDMA fast path on these rails (iWARP)"; }
# 2. remote writes
timeout -k 5 150 "${mx[@]}" -genv RAILMPI_STATS 1 -n 2 -ppn 1 "$tmp/rdma_reuse" 48 48 > "$tmp/rdma" 2>&1 &&
    grep -q "^OK rounds" "$tmp/rdma" || { grep -v stats: "$tmp/rdma" | tail; fail "rdma_reuse over $prov"; }
for peer in 0 1; do
    for ((r = 0; r < nrails; r++)); do
        grep -qE "stats: peer $peer rail $r \(ofi\): .* written remotely [0-9]{7,} bytes" "$tmp/rdma" ||
            { grep stats "$tmp/rdma"; fail "nothing written remotely to rank $peer over rail $r"; }
    done
done
echo "OK: remote writes over $prov, every rail both ways"
# 3. small messages
timeout -k 5 120 "${mx[@]}" -genv RAILMPI_STATS 1 -n 2 -ppn 1 "$tmp/small_msgs" 2 > "$tmp/small" 2>&1 &&
    grep -q "^OK small" "$tmp/small" || { grep -v stats: "$tmp/small" | tail; fail "small_msgs over $prov"; }
if [ $fast = 1 ]; then
    for peer in 0 1; do
        n=$(grep -oE "stats: peer $peer rail [0-9]+ \(ofi\): .* fast path [0-9]+ frames" "$tmp/small" |
            grep -oE "fast path [0-9]+" | awk '{s += $3} END {print s + 0}')
        [ "$n" -ge 1000 ] || { grep stats "$tmp/small"; fail "$n frames to rank $peer by the fast path"; }
    done
    echo "OK: small messages over $prov, by the RDMA fast path"
fi
# 4. the MPI suite (lib.sh's suite_runs: what mpi_suite_ofi.sh leaves out, left out here)
runs=0
while read -r t n; do
    runs=$((runs + 1))
    timeout -k 5 110 "${mx[@]}" -n "$n" "$build/tests/mpi/mpi_$t" > "$tmp/out" 2>&1 < /dev/null ||
        fail "$t with $n ranks over $prov: $(grep -m3 -E "FAIL|ERR|Abort|signal" "$tmp/out" | tr '\n' ' ')"
done < <(suite_runs all)
echo "OK: the MPI suite over $prov, $runs runs across two hosts of this machine"
