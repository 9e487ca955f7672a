#!/bin/bash
# Memory under floods (tests/mpi/flood.c at full size): three ranks each send
# N 1 KiB messages, then M 256 KiB messages, to rank 0, which posts no
# receive for a while (it only polls for a "done" message), then receives
# and checks everything. Prints rank 0's peak RSS growth while it was
# flooded, against its bound, 3 x RAILMPI_PEER_BUFFER + 8 MiB; on one host
# (shared memory) and, as root, on two virtual hosts over two TCP rails (one
# sender local, two remote).
#   bench/flood.sh [--build DIR] [--n N (1000000)] [--m M (400)] [--poll S (5)] [--buffer SIZE (4m)]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
n=1000000 m=400 poll=5 buffer=4m
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --n) n=$2; shift ;;
        --m) m=$2; shift ;;
        --poll) poll=$2; shift ;;
        --buffer) buffer=$2; shift ;;
        *) echo "usage: bench/flood.sh [--build DIR] [--n N] [--m M] [--poll S] [--buffer SIZE]" >&2; exit 2 ;;
    esac
    shift
done
prog=$build/tests/mpi/mpi_flood
show() { # LABEL: reads the program's output
    awk -v l="$1" '$1 == "flood" { printf "%-28s %7s B x %8s per sender: rank 0 peak RSS grew %8.1f MiB\n", l, $2, $3, $4 / 1024 }
                   $1 == "OK" { ok = 1 } END { if (!ok) print l ": FAILED" }'
}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), RAILMPI_PEER_BUFFER=$buffer"
s=$(date +%s)
RAILMPI_PEER_BUFFER=$buffer timeout 3600 "$build/bin/mpiexec" -n 4 "$prog" "$n" "$m" "$poll" 2>&1 | show "one host (shm)"
echo "  ($(( $(date +%s) - s )) s)"
if [ "$(id -u)" = 0 ]; then
    vc=$top/tests/cluster/vcluster.sh name=bf
    trap 'bash "$vc" down $name >/dev/null 2>&1' EXIT INT TERM
    bash "$vc" up $name 2 2 >/dev/null || exit 1
    rails=$(bash "$vc" rails $name)
    s=$(date +%s)
    timeout 3600 "$build/bin/mpiexec" -hosts "${name}h1,${name}h2" -ppn 2 -launcher-exec "ip netns exec" \
        -iface "${name}mbr" -bind-to none -genv RAILMPI_TCP_RAILS "$rails" -genv RAILMPI_PEER_BUFFER "$buffer" \
        "$prog" "$n" "$m" "$poll" 2>&1 | show "two virtual hosts (tcp)"
    echo "  ($(( $(date +%s) - s )) s)"
fi
