#!/bin/bash
# Communicator creation: railmpi, MPICH and Open MPI side by side in one run
# (bench/comm_create.c built with each), one host, 2 and 4 ranks (4
# oversubscribe a 2-core machine): MPI_Comm_dup, MPI_Comm_create,
# MPI_Comm_split, MPI_Comm_idup + wait, and four idups on four parents
# started in crossed orders (idup4x), each with its MPI_Comm_free. Times in
# us per creation (the slowest rank's mean over about -T seconds and at most
# -n calls per point, best of -r runs, the MPIs in turn); "r/best" is railmpi's time over the faster peer's.
# --base DIR adds another railmpi build (say main's) as a column, for a
# before/after in the same run; "-" is a point that failed there.
#   bench/comm_create.sh [--build DIR] [--base DIR] [-n CALLS] [-T SECONDS] [-r REPEATS]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
build=$top/build
base="" calls=2000 secs=0.3 reps=3
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --base) base=$2; shift ;;
        -n) calls=$2; shift ;;
        -T) secs=$2; shift ;;
        -r) reps=$2; shift ;;
        *) echo "usage: bench/comm_create.sh [--build DIR] [--base DIR] [-n CALLS] [-T SECONDS] [-r REPEATS]" >&2; exit 2 ;;
    esac
    shift
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
"$build/bin/mpicc" -O2 "$here/comm_create.c" -o "$tmp/cc.railmpi" || exit 1
mpicc.mpich -O2 "$here/comm_create.c" -o "$tmp/cc.mpich" || exit 1
mpicc.openmpi -O2 "$here/comm_create.c" -o "$tmp/cc.openmpi" || exit 1
impls="railmpi mpich openmpi"
[ -n "$base" ] && impls="railmpi base mpich openmpi"

run() { # IMPL NP
    case $1 in
        railmpi) timeout -k 5 120 "$build/bin/mpiexec" -n "$2" "$tmp/cc.railmpi" -n "$calls" -T "$secs" ;;
        base) LD_LIBRARY_PATH=$base/lib timeout -k 5 120 "$base/bin/mpiexec" -n "$2" "$tmp/cc.railmpi" -n "$calls" -T "$secs" ;;
        mpich) timeout -k 5 120 mpiexec.mpich -n "$2" "$tmp/cc.mpich" -n "$calls" -T "$secs" ;;
        openmpi) timeout -k 5 120 mpirun.openmpi --allow-run-as-root --oversubscribe -n "$2" "$tmp/cc.openmpi" -n "$calls" -T "$secs" ;;
    esac
}

# the best time of each op over the repeats
best() { awk '{ if (!($1 in v)) { k[++n] = $1; v[$1] = $2 } else if ($2 + 0 < v[$1] + 0) v[$1] = $2 }
              END { for (i = 1; i <= n; i++) print k[i], v[k[i]] }' "$1"; }
get() { awk -v o="$2" '$1 == o { print $2 }' "$1"; }

printf "%-6s %-8s %10s" ranks op railmpi
[ -n "$base" ] && printf " %10s" base
printf " %10s %10s %7s\n" MPICH OpenMPI r/best
for np in 2 4; do
    for rep in $(seq "$reps"); do
        for impl in $impls; do run $impl $np >> "$tmp/$impl.$np.all" 2> /dev/null; done
    done
    for impl in $impls; do best "$tmp/$impl.$np.all" > "$tmp/$impl.$np"; done
    for op in dup create split idup idup4x; do
        r=$(get "$tmp/railmpi.$np" $op) m=$(get "$tmp/mpich.$np" $op) o=$(get "$tmp/openmpi.$np" $op)
        q=$(awk -v r="$r" -v m="$m" -v o="$o" 'BEGIN { b = m; if (o != "" && (b == "" || o + 0 < b + 0)) b = o
            if (r == "" || b == "") print "-"; else printf "%.2f", r / b }')
        printf "%-6s %-8s %10s" "1x$np" $op "${r:--}"
        b=""
        [ -n "$base" ] && b=$(get "$tmp/base.$np" $op) && printf " %10s" "${b:--}"
        printf " %10s %10s %7s\n" "${m:--}" "${o:--}" "$q"
    done
done
