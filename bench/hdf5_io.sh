#!/bin/bash
# Parallel HDF5 on railmpi against MPICH: bench/hdf5_io.c built once with
# Debian's MPICH build of HDF5 (h5pcc.mpich, libhdf5-mpich-dev) and run
# unchanged on MPICH and, with railmpi's libmpich.so.12 first on the library
# path (the MPICH ABI), on railmpi; contiguous and chunked datasets,
# independent and collective transfers, written and read back. The two run
# alternately for --rounds rounds; medians of MB/s and railmpi / MPICH.
# Skipped without h5pcc.mpich.
#   bench/hdf5_io.sh [--build DIR] [--dir DIR] [--ranks N] [--mib MIB per process] [--rounds N]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
dir=
ranks=2
mib=64
rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --dir) dir=$2; shift ;;
        --ranks) ranks=$2; shift ;;
        --mib) mib=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        *) sed -n 's/^#   //p' "$0" >&2; exit 2 ;;
    esac
    shift
done
command -v h5pcc.mpich >/dev/null || { echo "hdf5_io.sh: no h5pcc.mpich (libhdf5-mpich-dev)" >&2; exit 77; }
tmp=$(mktemp -d)
[ -n "$dir" ] || dir=$tmp
work=$(mktemp -d "$dir/hdf5_io_XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT INT TERM
(cd "$tmp" && h5pcc.mpich -O2 -o hdf5_io "$here/hdf5_io.c") || exit 1
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for r in $(seq "$rounds"); do
    order="railmpi mpich"
    [ $((r % 2)) = 0 ] && order="mpich railmpi"
    for impl in $order; do
        out=$tmp/$impl.$r
        case $impl in
            railmpi) LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout -k 5 900 \
                "$build/bin/mpiexec" -n "$ranks" -bind-to none "$tmp/hdf5_io" "$work" "$mib" > "$out" 2> "$out.err" ;;
            mpich) timeout -k 5 900 mpiexec.mpich -n "$ranks" -bind-to none "$tmp/hdf5_io" "$work" "$mib" \
                > "$out" 2> "$out.err" ;;
        esac
        grep -q '^bad' "$out" && echo "hdf5_io.sh: $impl read back wrong data" >&2
        [ -s "$out" ] || echo "hdf5_io.sh: $impl failed: $(tail -2 "$out.err")" >&2
    done
done
median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
get() { for r in $(seq "$rounds"); do awk -v k="$2" -v d="$3" '$1 == k && $2 == d {print $3}' "$tmp/$1.$r"; done | median; }
echo "Parallel HDF5 (libhdf5-mpich), $ranks processes, $mib MiB per process, median of $rounds rounds (MB/s);"
echo "load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| dataset, transfer | railmpi write | MPICH write | ratio | railmpi read | MPICH read | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for k in contig-indep contig-coll chunked-indep chunked-coll; do
    rw=$(get railmpi $k write); mw=$(get mpich $k write); rr=$(get railmpi $k read); mr=$(get mpich $k read)
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a != "-" && b > 0) printf "%.2f", a / b; else print "-"}'; }
    echo "| $k | $rw | $mw | $(ratio "$rw" "$mw") | $rr | $mr | $(ratio "$rr" "$mr") |"
done
