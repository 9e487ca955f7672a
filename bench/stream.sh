#!/bin/bash
# Blocking large messages across two virtual hosts over two TCP rails:
# bench/stream.c (one message in flight, the receiver reads every byte before
# posting the next receive; and a ping-pong of the same sizes) built for
# railmpi, MPICH and Open MPI and run side by side on one virtual cluster,
# rails shaped 2+2 Gbit/s, then 2+0.5 Gbit/s. Prints MB/s and one-way times
# with ratios: to the sum of the rails' rates, to Open MPI, and the ping-pong
# against its bound, 1.05 x size / (summed payload rate) + one small-message
# latency (railmpi's 8-byte half round trip in the same run). The payload
# rate of a shaped rail is its rate less the Ethernet, IP and TCP headers
# at MTU 1500 (4.4 %): 239 MB/s at 2 Gbit/s, 59.75 at 0.5.
# Root only; the cluster is torn down on exit.
#   bench/stream.sh [--build DIR] [--markdown] [--secs S] [--rounds N] [--only IMPL]
# With --rounds N every implementation runs N times, alternating, and the
# best of its rounds is reported (the machine is shared and noisy).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
md=0
secs=2
rounds=1
only=
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --markdown) md=1 ;;
        --secs) secs=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --only) only=$2; shift ;;
        *) echo "usage: bench/stream.sh [--build DIR] [--markdown] [--secs S] [--rounds N] [--only IMPL]" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" = 0 ] || { echo "bench/stream.sh: needs root (network namespaces)" >&2; exit 1; }
vc=$top/tests/cluster/vcluster.sh
name=bs
tmp=$(mktemp -d)
trap 'bash "$vc" down $name >/dev/null 2>&1; rm -rf "$tmp"' EXIT INT TERM
impls="railmpi mpich openmpi"
[ -z "$only" ] || impls=$only
"$build/bin/mpicc" -O2 "$here/stream.c" -o "$tmp/stream.railmpi" || exit 1
mpicc.mpich -O2 "$here/stream.c" -o "$tmp/stream.mpich" 2>/dev/null
mpicc.openmpi -O2 "$here/stream.c" -o "$tmp/stream.openmpi"
. "$here/peers.sh"
peers_init
sizes="65536 262144 1048576 4194304"

# run_round TAG: every implementation once; results in $tmp/TAG.IMPL.N
run_round() {
    local tag=$1 n=$2 impl
    for impl in $impls; do
        peer_run "$impl" 300 "$tmp/stream.$impl" "$secs" 64k 256k 1m 4m > "$tmp/$tag.$impl.$n" 2>"$tmp/$tag.$impl.$n.err"
        grep -q '^bad' "$tmp/$tag.$impl.$n" && echo "stream.sh: $impl delivered corrupted data" >&2
    done
    # one small-message latency (railmpi, 8 bytes)
    peer_run railmpi 120 "$tmp/stream.railmpi" 0.2 8 > "$tmp/$tag.lat.$n" 2>/dev/null
}
# best TAG IMPL KIND SIZE: best over rounds (max MB/s, min us)
best() {
    cat "$tmp/$1.$2".[0-9]* 2>/dev/null | awk -v k="$3" -v s="$4" '
        $1 == k && $2 == s { v = $3 + 0; if (n == 0 || (k == "stream" ? v > b : v < b)) b = v; n++ }
        END { if (n) printf "%.1f", b; else print "-" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || a == "" || b == "-" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }

report() { # TAG LABEL SUM_OF_RATES PAYLOAD_RATE
    local tag=$1 label=$2 sum=$3 pay=$4 s
    local lat; lat=$(cat "$tmp/$tag.lat".[0-9]* 2>/dev/null | awk '$1 == "pingpong" { v = $3 + 0; if (!n || v < b) b = v; n++ } END { if (n) printf "%.1f", b; else print "-" }')
    if [ $md = 1 ]; then
        echo
        echo "**$label** (sum of rates $sum MB/s, payload ceiling $pay MB/s; small-message latency $lat us)"
        echo
        echo "| size | railmpi MB/s | MPICH MB/s | Open MPI MB/s | railmpi / sum of rates | railmpi / Open MPI | ping-pong railmpi us | MPICH us | Open MPI us | railmpi bound us | railmpi / bound |"
        echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    else
        echo "$label: sum of rates $sum MB/s, payload ceiling $pay MB/s, small-message latency $lat us"
        printf "%9s %9s %9s %9s %7s %7s | %9s %9s %9s %9s %7s\n" size railmpi MPICH OpenMPI r/sum r/OMPI "pp rail" "pp MPICH" "pp OMPI" bound r/bound
    fi
    for s in $sizes; do
        local r m o pr pm po bound
        r=$(best "$tag" railmpi stream "$s"); m=$(best "$tag" mpich stream "$s"); o=$(best "$tag" openmpi stream "$s")
        pr=$(best "$tag" railmpi pingpong "$s"); pm=$(best "$tag" mpich pingpong "$s"); po=$(best "$tag" openmpi pingpong "$s")
        bound=$(awk -v s="$s" -v p="$pay" -v l="$lat" 'BEGIN { if (l == "-") l = 0; printf "%.1f", 1.05 * s / p + l }')
        if [ $md = 1 ]; then
            echo "| $s | $r | $m | $o | $(ratio "$r" "$sum") | $(ratio "$r" "$o") | $pr | $pm | $po | $bound | $(ratio "$pr" "$bound") |"
        else
            printf "%9s %9s %9s %9s %7s %7s | %9s %9s %9s %9s %7s\n" "$s" "$r" "$m" "$o" "$(ratio "$r" "$sum")" "$(ratio "$r" "$o")" "$pr" "$pm" "$po" "$bound" "$(ratio "$pr" "$bound")"
        fi
    done
}

bash "$vc" up $name 2 2 2gbit 2gbit >/dev/null || exit 1
rails=$(bash "$vc" rails $name)
mgmt=$(bash "$vc" net $name m)
for ((i = 0; i < rounds; i++)); do run_round a "$i"; done
for h in 1 2; do bash "$vc" rate $name $h 1 500mbit; done
for ((i = 0; i < rounds; i++)); do run_round b "$i"; done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg), $secs s per size, best of $rounds"
report a "2 + 2 Gbit/s" 500 478
report b "2 + 0.5 Gbit/s" 312.5 298.75
