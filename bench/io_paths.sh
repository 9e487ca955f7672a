#!/bin/bash
# Every MPI-IO access path (bench/io_paths.c: explicit offsets, individual
# pointer, collective, split collective, nonblocking with and without
# computation between, shared pointer, ordered, and plain pwrite/pread on
# the same layout) for railmpi, MPICH (ROMIO) and Open MPI side by side on
# one host, through the default view and through a subarray view, for each
# block size and process count asked. Each of --rounds rounds runs every
# MPI once per configuration, the order turned by one place each round;
# the median of the rounds is reported with railmpi's ratio to the faster
# peer. Files live in --dir (a temporary directory by default) and are
# never synced: the rates are the page cache's as an application sees them.
# The default run is short (1 and 2 processes, 4 KiB and 1 MiB blocks,
# 64 MiB per process, at most 4096 blocks); --full runs the whole matrix
# (1, 2, 4 processes; 4 KiB, 64 KiB, 1 MiB, 16 MiB blocks; 64 MiB per
# process). On a machine with 2 cores, 4 processes measure the scheduler
# as much as the I/O path.
#   bench/io_paths.sh [--build DIR] [--dir DIR] [--ranks "1 2"] [--blocks "4096 1048576"]
#                     [--views "contig subarray"] [--mib MIB] [--max-blocks N]
#                     [--paths "write_at read_at ..."] [--rounds N] [--full] [--markdown]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
dir=
ranks="1 2"
blocks="4096 1048576"
views="contig subarray"
mib=64
maxb=4096
paths=
rounds=3
md=0
usage() { sed -n '2,/^set -u/p' "$0" | sed -n '/bench\/io_paths.sh \[/,/markdown\]/p' | sed 's/^#//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --dir) dir=$2; shift ;;
        --ranks) ranks=$2; shift ;;
        --blocks) blocks=$2; shift ;;
        --views) views=$2; shift ;;
        --mib) mib=$2; shift ;;
        --max-blocks) maxb=$2; shift ;;
        --paths) paths=$2; shift ;;
        --rounds) rounds=$2; shift ;;
        --full) ranks="1 2 4"; blocks="4096 65536 1048576 16777216"; mib=64 ;;
        --markdown) md=1 ;;
        *) usage ;;
    esac
    shift
done
tmp=$(mktemp -d)
[ -n "$dir" ] || dir=$tmp
work=$(mktemp -d "$dir/io_paths_XXXXXX")
trap 'rm -rf "$tmp" "$work"' EXIT INT TERM
"$build/bin/mpicc" -O2 "$here/io_paths.c" -o "$tmp/p.railmpi" || exit 1
mpicc.mpich -O2 "$here/io_paths.c" -o "$tmp/p.mpich" 2>/dev/null || exit 1
mpicc.openmpi -O2 "$here/io_paths.c" -o "$tmp/p.openmpi" || exit 1
impls="railmpi mpich openmpi"
run() { # IMPL RANKS ARGS...
    local impl=$1 n=$2
    shift 2
    case $impl in
        railmpi) timeout -k 5 900 "$build/bin/mpiexec" -n "$n" -bind-to none "$tmp/p.railmpi" "$@" ;;
        mpich) timeout -k 5 900 mpiexec.mpich -n "$n" -bind-to none "$tmp/p.mpich" "$@" ;;
        openmpi) timeout -k 5 900 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$n" --bind-to none \
            "$tmp/p.openmpi" "$@" ;;
    esac
}
nblocks_of() { # BLOCK
    local n=$((mib * 1048576 / $1))
    [ "$n" -gt "$maxb" ] && n=$maxb
    [ "$n" -lt 1 ] && n=1
    echo $n
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
configs=
for v in $views; do for n in $ranks; do for b in $blocks; do configs="$configs $v:$n:$b"; done; done; done
for r in $(seq "$rounds"); do
    order=$(echo $impls | awk -v k=$(((r - 1) % 3)) '{for (i = 0; i < NF; i++) printf "%s ", $((i + k) % NF + 1)}')
    for c in $configs; do
        IFS=: read -r v n b <<< "$c"
        for impl in $order; do
            out=$tmp/$impl.$v.$n.$b.$r
            # shellcheck disable=SC2086
            run $impl "$n" "$work/f" "$b" "$(nblocks_of "$b")" "$v" $paths > "$out" 2> "$out.err"
            grep -q '^bad' "$out" && echo "io_paths.sh: $impl $c read back wrong data" >&2
            [ -s "$out" ] || echo "io_paths.sh: $impl $c failed: $(tail -2 "$out.err")" >&2
            rm -f "$work"/f "$work"/.f.*
        done
    done
done
median() { sort -n | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
get() { # IMPL CONFIG PATH
    for r in $(seq "$rounds"); do awk -v k="$3" '$1 == k {print $2}' "$tmp/$1.$2.$r" 2>/dev/null; done | median
}
ratio() { awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN {m = b > c ? b : c; if (a != "-" && m > 0) printf "%.2f", a / m; else print "-"}'; }
fsname=$(df -P "$work" | awk 'NR == 2 {print $1 " (" $6 ")"}')
echo "MPI-IO paths, one host, file system $fsname; MB/s aggregate (MB = 1e6 bytes), median of $rounds rounds;"
echo "ratio = railmpi / the faster of MPICH and Open MPI; load average before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $configs; do
    IFS=: read -r v n b <<< "$c"
    key=$v.$n.$b
    list=$(awk '{print $1}' "$tmp/railmpi.$key.1" 2>/dev/null | grep -v '^bad')
    [ -n "$list" ] || list=$(awk '{print $1}' "$tmp/mpich.$key.1" 2>/dev/null | grep -v '^bad')
    echo
    if [ $md = 1 ]; then
        echo "**$v view, $n process(es), blocks of $b bytes, $(nblocks_of "$b") per process**"
        echo
        echo "| path | railmpi | MPICH | Open MPI | ratio |"
        echo "|---|---:|---:|---:|---:|"
    else
        echo "== $v view, $n process(es), blocks of $b bytes, $(nblocks_of "$b") per process"
        printf "%-20s %10s %10s %10s %7s\n" path railmpi mpich openmpi ratio
    fi
    for p in $list; do
        a=$(get railmpi "$key" "$p"); m=$(get mpich "$key" "$p"); o=$(get openmpi "$key" "$p")
        if [ $md = 1 ]; then
            echo "| \`$p\` | $a | $m | $o | $(ratio "$a" "$m" "$o") |"
        else
            printf "%-20s %10s %10s %10s %7s\n" "$p" "$a" "$m" "$o" "$(ratio "$a" "$m" "$o")"
        fi
    done
done
