#!/bin/bash
# Collective MPI-IO on one host: bench/io.c (4 ranks, a 2-D block
# decomposition of one array, written with MPI_File_write_all through
# subarray views and read back with MPI_File_read_all) built for railmpi,
# MPICH (ROMIO) and Open MPI and run side by side, with two plain sequential
# writes of the same size into the same directory in the same run: dd
# (16 MiB blocks from /dev/zero) and bench/seqwrite.c, one process writing
# an array it holds in memory (as much memory as the MPI processes hold
# together; 16 MiB write() calls). Every run starts from a removed file;
# nothing is synced, so the rates are those of the file system's page
# cache as an application sees them. Each of --rounds rounds runs
# everything once, alternating; the median of the rounds is reported, with
# the ratios to dd, to the write loop and to MPICH, and each round's write
# rates below the table (page-cache rates on a virtual machine can move by
# several times between runs: docs/performance.md).
#   bench/io.sh [--build DIR] [--dir DIR] [--mib MIB] [--rounds N] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
dir=
mib=1024
rounds=3
md=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --dir) dir=$2; shift ;;
        --mib) mib=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --markdown) md=1 ;;
        *) echo "usage: bench/io.sh [--build DIR] [--dir DIR] [--mib MIB] [--rounds N] [--markdown]" >&2; exit 2 ;;
    esac
    shift
done
tmp=$(mktemp -d)
[ -n "$dir" ] || dir=$tmp
work=$(mktemp -d "$dir/io_bench_XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$here/io.c" -o "$tmp/io.railmpi" || exit 1
cc -O2 "$here/seqwrite.c" -o "$tmp/seqwrite" || exit 1
mpicc.mpich -O2 "$here/io.c" -o "$tmp/io.mpich" 2>/dev/null || exit 1
mpicc.openmpi -O2 "$here/io.c" -o "$tmp/io.openmpi" || exit 1
impls="railmpi mpich openmpi"
run() { # IMPL
    case $1 in
        railmpi) timeout -k 5 600 "$build/bin/mpiexec" -n 4 -bind-to none "$tmp/io.railmpi" "$work/f" "$mib" ;;
        mpich) timeout -k 5 600 mpiexec.mpich -n 4 -bind-to none "$tmp/io.mpich" "$work/f" "$mib" ;;
        openmpi) timeout -k 5 600 mpirun.openmpi --allow-run-as-root --oversubscribe -n 4 --bind-to none \
            "$tmp/io.openmpi" "$work/f" "$mib" ;;
    esac
}
# One round: dd, the write loop and the MPIs, the order turned by one place
# each round, so that each runs after each of the others equally often (on
# a virtual machine what the run before freed changes the next one's rate)
all="dd loop $impls"
n_all=$(echo $all | wc -w)
for r in $(seq "$rounds"); do
    order=$(echo $all | awk -v k=$(((r - 1) % n_all)) '{for (i = 0; i < NF; i++) printf "%s ", $((i + k) % NF + 1)}')
    for item in $order; do
        rm -f "$work/f" "$work/dd" "$work/s"
        case $item in
            dd)
                t0=$(date +%s.%N)
                dd if=/dev/zero of="$work/dd" bs=16M count=$((mib / 16)) 2>/dev/null
                t1=$(date +%s.%N)
                echo "$mib $t0 $t1" | awk '{printf "%.1f\n", $1 * 1048576 / ($3 - $2) / 1e6}' > "$tmp/dd.$r" ;;
            loop)
                "$tmp/seqwrite" "$work/s" "$mib" | awk '$1 == "write" {print $2}' > "$tmp/loop.$r"
                [ -s "$tmp/loop.$r" ] || echo "io.sh: the write loop failed" >&2 ;;
            *)
                run $item > "$tmp/$item.$r" 2> "$tmp/$item.$r.err"
                grep -q '^bad' "$tmp/$item.$r" && echo "io.sh: $item read back wrong data" >&2
                grep -q '^write' "$tmp/$item.$r" || echo "io.sh: $item failed: $(tail -2 "$tmp/$item.$r.err")" >&2 ;;
        esac
    done
    rm -f "$work/f" "$work/dd" "$work/s"
done
median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
get() { # IMPL write|read
    for r in $(seq "$rounds"); do awk -v k="$2" '$1 == k {print $2}' "$tmp/$1.$r"; done | median
}
dd_w=$(cat "$tmp"/dd.* | median)
declare -A w rd
for impl in $impls; do
    w[$impl]=$(get $impl write)
    rd[$impl]=$(get $impl read)
done
shape=$(grep -h '^array' "$tmp"/railmpi.* | head -1)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}'; }
fsname=$(df -P "$work" | awk 'NR == 2 {print $1 " (" $6 ")"}')
loop_w=$(cat "$tmp"/loop.* | median)
rounds_of() { # NAME: its write rate in each round
    for r in $(seq "$rounds"); do
        case $1 in
            dd | loop) cat "$tmp/$1.$r" ;;
            *) awk '$1 == "write" {print $2}' "$tmp/$1.$r" ;;
        esac
    done | tr '\n' ' ' | sed 's/ $//'
}
if [ $md = 1 ]; then
    echo "4 ranks, one host; $shape; file system $fsname; median of $rounds rounds (MB/s, MB = 1e6 bytes)"
    echo
    echo "| | write | read | write / dd | write / loop | write / MPICH | read / MPICH |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    echo "| dd (bs=16M) | $dd_w | | 1.00 | $(ratio $dd_w $loop_w) | | |"
    echo "| write loop | $loop_w | | $(ratio $loop_w $dd_w) | 1.00 | | |"
    for impl in $impls; do
        echo "| $impl | ${w[$impl]} | ${rd[$impl]} | $(ratio ${w[$impl]} $dd_w) | $(ratio ${w[$impl]} $loop_w) | $(ratio ${w[$impl]} ${w[mpich]}) | $(ratio ${rd[$impl]} ${rd[mpich]}) |"
    done
    echo
    echo "Write MB/s in each round: dd $(rounds_of dd); write loop $(rounds_of loop); $(for impl in $impls; do printf '%s %s; ' $impl "$(rounds_of $impl)"; done | sed 's/; $//')"
else
    echo "4 ranks, one host; $shape; file system $fsname; median of $rounds rounds"
    printf "%-10s %10s %10s %9s %11s %12s %11s\n" "" "write MB/s" "read MB/s" "write/dd" "write/loop" "write/MPICH" "read/MPICH"
    printf "%-10s %10s %10s %9s %11s\n" dd "$dd_w" "" 1.00 "$(ratio $dd_w $loop_w)"
    printf "%-10s %10s %10s %9s %11s\n" loop "$loop_w" "" "$(ratio $loop_w $dd_w)" 1.00
    for impl in $impls; do
        printf "%-10s %10s %10s %9s %11s %12s %11s\n" $impl "${w[$impl]}" "${rd[$impl]}" "$(ratio ${w[$impl]} $dd_w)" \
            "$(ratio ${w[$impl]} $loop_w)" "$(ratio ${w[$impl]} ${w[mpich]})" "$(ratio ${rd[$impl]} ${rd[mpich]})"
    done
    echo "write MB/s by round: dd $(rounds_of dd); loop $(rounds_of loop)"
    for impl in $impls; do echo "  $impl $(rounds_of $impl)"; done
fi
