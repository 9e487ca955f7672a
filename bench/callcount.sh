#!/bin/bash
# Instructions per call on the message fast path, counted by valgrind's
# callgrind (deterministic: the same on a busy machine, unlike a timing):
# bench/callcount.c on 2 ranks of one host, 1-byte messages; the inclusive
# instruction count of MPI_Isend, MPI_Wait, MPI_Send and MPI_Allreduce on the
# sending rank and of MPI_Irecv and MPI_Recv on the receiving one, divided by
# the calls (2 x 1000 each). MPI_Isend, MPI_Wait and MPI_Irecv never wait for
# the peer; MPI_Recv's and MPI_Allreduce's counts include what progress finds.
# railmpi (this build, and a second build with --base DIR, e.g. a worktree
# of an earlier commit), MPICH and Open MPI side by side, with ratios; with
# --abi also the same program built for the standard ABI (mpicc_abi,
# libmpi_abi.so), the difference, and the translation layer's own
# instructions per call (the ABI's MPI_X less the engine's binding it calls,
# in the same run: exact for every function); with --ompi the same for the
# program built by Open MPI's mpicc on railmpi's libmpi.so.40
# (mpiexec -abi openmpi).
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
# Wait_st: the receiving rank's MPI_Wait, which asks for a status (only the
# ABI layer's own count is reported: the rest depends on timing)
FUNCS=(Isend Wait Send Allreduce Irecv Recv Wait_st)
# inclusive count of the first function matching REGEX in FILE, per call
per_call() {
    awk -v re="$2" '$0 ~ re { gsub(",", "", $1); print int($1 / 2000); exit }' "$1"
}
# IMPL MPICC RUN... -> one count per FUNCS entry ("-" when missing), then,
# for the ABI build, the layer's own count per FUNCS entry
count() {
    local impl=$1 cc=$2
    shift 2
    mkdir -p "$tmp/$impl"
    "$cc" -O2 "$here/callcount.c" -o "$tmp/$impl/prog" || { echo "- - - - - - - - - - - - - -"; return; }
    # railmpi's waits spin without yielding, so the sender's count does not
    # depend on how often a yield came
    RAILMPI_SPIN_COUNT=1000000 timeout -k 5 600 "$@" valgrind --tool=callgrind \
        --callgrind-out-file="$tmp/$impl/cg.%p" "$tmp/$impl/prog" > "$tmp/$impl/out" 2>&1
    local f fn v own
    declare -A tot lay
    for f in "$tmp/$impl"/cg.*; do
        [ -f "$f" ] || continue
        callgrind_annotate --inclusive=yes --auto=no --threshold=100 "$f" > "$f.txt" 2>/dev/null
        # the sending rank is the one that called MPI_Isend, the receiving
        # one the one that called MPI_Irecv
        local side=recv
        grep -Eq ':P?MPI_Isend( |$)' "$f.txt" && side=send
        for fn in "${FUNCS[@]}"; do
            case "$side:$fn" in
                send:Irecv|send:Recv|send:Wait_st|recv:Isend|recv:Wait|recv:Send|recv:Allreduce) continue ;;
            esac
            # one line per function: "1,277,570 (9.79%)  file:PMPI_Isend [lib]"
            v=$(per_call "$f.txt" ":P?MPI_${fn%_st}( |\$)")
            [ -n "$v" ] && [ "$fn" != Wait_st ] && tot[$fn]=$v
            own=$(per_call "$f.txt" ":RMI_P?MPI_${fn%_st}( |\$)")
            [ -n "$v" ] && [ -n "$own" ] && lay[$fn]=$((v - own))
        done
    done
    local out=()
    for fn in "${FUNCS[@]}"; do out+=("${tot[$fn]:--}"); done
    for fn in "${FUNCS[@]}"; do out+=("${lay[$fn]:--}"); done
    echo "${out[*]}"
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
    order+=(ompi)
    res[ompi]=$(count ompi mpicc.openmpi "$build/bin/mpiexec" -abi openmpi -n 2)
fi
if [ $peers = 1 ]; then
    order+=(mpich openmpi)
    res[mpich]=$(count mpich mpicc.mpich mpiexec.mpich -n 2)
    res[openmpi]=$(count openmpi mpicc.openmpi mpirun.openmpi --allow-run-as-root -n 2)
fi
echo "# instructions per call (callgrind), 1-byte messages, 2 ranks on one host"
row() { printf "%-16s" "$1"; shift; printf " %10s" "$@"; echo; }
row "" MPI_Isend MPI_Wait MPI_Send MPI_Allreduce MPI_Irecv MPI_Recv "Wait(status)"
for i in "${order[@]}"; do
    read -r -a v <<< "${res[$i]}"
    row "$i" "${v[@]:0:7}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && b > 0) printf "%.2f", a / b; else printf "-" }'; }
read -r -a r <<< "${res[railmpi]}"
for i in "${order[@]}"; do
    [ "$i" = railmpi ] && continue
    read -r -a v <<< "${res[$i]}"
    out=()
    for k in 0 1 2 3 4 5 6; do out+=("$(ratio "${r[$k]}" "${v[$k]}")"); done
    row "railmpi/$i" "${out[@]}"
done
if [ $abi = 1 ]; then
    read -r -a v <<< "${res[abi]}"
    diff() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/) printf "%+d", a - b; else printf "-" }'; }
    out=()
    for k in 0 1 2 3 4 5 6; do out+=("$(diff "${v[$k]}" "${r[$k]}")"); done
    row "abi-railmpi" "${out[@]}"
    # exact: the ABI's MPI_X less the engine's binding, in the same process
    row "abi layer" "${v[@]:7:7}"
fi
if [ $ompi = 1 ]; then
    read -r -a v <<< "${res[ompi]}"
    row "ompi layer" "${v[@]:7:7}"
fi
