#!/bin/bash
# Instructions per call on the message fast path, counted by valgrind's
# callgrind (deterministic: the same on a busy machine, unlike a timing):
# bench/callcount.c on 2 ranks of one host, 1-byte messages; the inclusive
# instruction count of MPI_Isend and MPI_Wait on the sending rank and of
# MPI_Irecv on the receiving one, divided by the calls (2 x 1000 each).
# railmpi (this build, and a second build with --base DIR, e.g. a worktree
# of an earlier commit), MPICH and Open MPI side by side, with ratios; with
# --abi also the same program built for the standard ABI (mpicc_abi,
# libmpi_abi.so) and what its translation layer adds per call; with --ompi
# the program built by Open MPI's mpicc, run on railmpi's libmpi.so.40
# (mpiexec -abi openmpi), and what that layer adds.
#   bench/callcount.sh [--build DIR] [--base DIR] [--no-peers] [--abi] [--ompi]
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(dirname "$here")/build
base= peers=1 abi=0 ompi=0
while [ $# -gt 0 ]; do
    case "$1" in
        --build) build=$2; shift ;;
        --base) base=$2; shift ;;
        --no-peers) peers=0 ;;
        --abi) abi=1 ;;
        --ompi) ompi=1 ;;
        *) echo "usage: bench/callcount.sh [--build DIR] [--base DIR] [--no-peers] [--abi] [--ompi]" >&2; exit 2 ;;
    esac
    shift
done
command -v valgrind >/dev/null || { echo "callcount: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# IMPL MPICC RUN... -> "isend wait irecv" per call, or "- - -"
count() {
    local impl=$1 cc=$2
    shift 2
    mkdir -p "$tmp/$impl"
    "$cc" -O2 "$here/callcount.c" -o "$tmp/$impl/prog" || { echo "- - -"; return; }
    # railmpi's waits spin without yielding, so the sender's count does not
    # depend on how often a yield came
    RAILMPI_SPIN_COUNT=1000000 timeout -k 5 600 "$@" valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/$impl/cg.%p" "$tmp/$impl/prog" > "$tmp/$impl/out" 2>&1
    local f isend=- wait=- irecv=-
    for f in "$tmp/$impl"/cg.*; do
        [ -f "$f" ] || continue
        callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$f" > "$f.txt" 2>/dev/null
        # one line per function: "1,277,570 (9.79%)  file:PMPI_Isend [lib]"
        local is ir w
        is=$(awk '/:P?MPI_Isend( |$)/ { gsub(",", "", $1); print $1; exit }' "$f.txt")
        ir=$(awk '/:P?MPI_Irecv( |$)/ { gsub(",", "", $1); print $1; exit }' "$f.txt")
        w=$(awk '/:P?MPI_Wait( |$)/ { gsub(",", "", $1); print $1; exit }' "$f.txt")
        if [ -n "$is" ]; then isend=$((is / 2000)); wait=$((${w:-0} / 2000)); fi
        [ -n "$ir" ] && irecv=$((ir / 2000))
    done
    echo "$isend $wait $irecv"
}
declare -A res
order=(railmpi)
res[railmpi]=$(count railmpi "$build/bin/mpicc" "$build/bin/mpiexec" -n 2)
if [ -n "$base" ]; then
    order+=(base)
    res[base]=$(count base "$base/bin/mpicc" "$base/bin/mpiexec" -n 2)
fi
if [ $abi = 1 ]; then
    order+=(abi)
    res[abi]=$(count abi "$build/bin/mpicc_abi" "$build/bin/mpiexec" -n 2)
fi
if [ $ompi = 1 ]; then
    order+=(ompi-abi)
    res[ompi-abi]=$(count ompi-abi mpicc.openmpi "$build/bin/mpiexec" -abi openmpi -n 2)
fi
if [ $peers = 1 ]; then
    order+=(mpich openmpi)
    res[mpich]=$(count mpich mpicc.mpich mpiexec.mpich -n 2)
    res[openmpi]=$(count openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root -n 2)
fi
echo "# instructions per call (callgrind), 1-byte messages, 2 ranks on one host"
printf "%-16s %10s %10s %10s\n" "" MPI_Isend MPI_Wait MPI_Irecv
for i in "${order[@]}"; do
    read -r a b c <<< "${res[$i]}"
    printf "%-16s %10s %10s %10s\n" "$i" "$a" "$b" "$c"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && b > 0) printf "%.2f", a / b; else printf "-" }'; }
read -r r1 r2 r3 <<< "${res[railmpi]}"
for i in "${order[@]}"; do
    [ "$i" = railmpi ] && continue
    read -r a b c <<< "${res[$i]}"
    printf "%-16s %10s %10s %10s\n" "railmpi/$i" "$(ratio "$r1" "$a")" "$(ratio "$r2" "$b")" "$(ratio "$r3" "$c")"
done
diff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) printf "%+d", a - b; else printf "-" }'; }
if [ $abi = 1 ]; then
    read -r a b c <<< "${res[abi]}"
    printf "%-16s %10s %10s %10s\n" "abi-railmpi" "$(diff "$a" "$r1")" "$(diff "$b" "$r2")" "$(diff "$c" "$r3")"
fi
if [ $ompi = 1 ]; then
    read -r a b c <<< "${res[ompi-abi]}"
    printf "%-16s %10s %10s %10s\n" "ompi-abi-railmpi" "$(diff "$a" "$r1")" "$(diff "$b" "$r2")" "$(diff "$c" "$r3")"
fi
