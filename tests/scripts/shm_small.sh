#!/bin/bash
# A small /dev/shm (as a container's 64 MiB default, or less): in a mount
# namespace of its own, /dev/shm is a tmpfs of 8 MiB, and 4 ranks on one host
# send each other 16 MiB per pair through the shared-memory rings (every
# ring cycled many times). At the default ring size the inboxes would take
# 16 MiB and the first touch past the tmpfs' room would kill a rank with
# SIGBUS; the rings are sized to the tmpfs instead, and every byte arrives.
# A /dev/shm too small even for the smallest rings is a clear error at
# start-up.
# Root only (unshare, mount).
set -u
build=$1
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for a mount namespace"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$build/bin/mpicc" -O1 "$(dirname "$0")/shm_small.c" -o "$tmp/shm_small" || { echo "FAIL: cannot build shm_small.c"; exit 1; }
unshare -m --propagation private true 2>/dev/null || { echo "SKIP: cannot make a mount namespace"; exit 77; }
for n in 2 4; do
    out=$(timeout 120 unshare -m --propagation private sh -c '
        mount -t tmpfs -o size=8m railmpi_small_shm /dev/shm || exit 77
        exec "$1/bin/mpiexec" -n "$2" "$3"' sh "$build" "$n" "$tmp/shm_small" 2>&1)
    rc=$?
    [ $rc = 77 ] && { echo "SKIP: cannot mount a tmpfs on /dev/shm"; exit 77; }
    echo "$out" | grep -q "^OK shm_small" || fail "$n ranks in an 8 MiB /dev/shm (exit $rc): $(echo "$out" | tail -3)"
done
# too small even for the smallest rings: a clear error at start-up, no SIGBUS
out=$(timeout 60 unshare -m --propagation private sh -c '
    mount -t tmpfs -o size=256k railmpi_small_shm /dev/shm || exit 77
    exec "$1/bin/mpiexec" -n 4 "$2"' sh "$build" "$tmp/shm_small" 2>&1)
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] || fail "4 ranks in a 256 KiB /dev/shm: exit $rc, not an error"
echo "$out" | grep -q "too little for the queues of 4 ranks" || fail "no clear error in a 256 KiB /dev/shm: $(echo "$out" | tail -3)"
echo "$out" | grep -qi "bus error\|signal" && fail "a rank was killed in a 256 KiB /dev/shm: $(echo "$out" | grep -i "bus error\|signal" | head -2)"
[ $fails = 0 ] && echo "OK: shared-memory rings sized to a small /dev/shm"
exit $((fails > 0))
