#!/bin/bash
# railmpi's libmpi.so.40 against Open MPI 4.1's ABI (docs/abi.md):
#   ompi_exports.sh LIBRARY OBJECTS_TABLE FUNCTIONS_TABLE [OPEN_MPI_LIBRARY]
# - its soname is libmpi.so.40 and it defines no symbol versions (Open MPI's
#   has none either);
# - every predefined object of tools/abi/ompi_objects.txt is exported with
#   the table's size, and with the size Open MPI's own library gives it when
#   that is installed (a program built without PIE copies the object);
# - every MPI_/PMPI_ function it exports is one Open MPI exports, and the
#   functions of the core API are all there;
# - Open MPI's MPI_*_DUP_FN and MPI_*_NULL_*_FN functions are exported, and
#   ompi_op_set_cxx_callback (MPI::Op::Init of Open MPI's C++ header).
set -u
lib=$1 objs=$2 funcs=$3 ompi=${4:-/usr/lib/x86_64-linux-gnu/libmpi.so.40}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libmpi.so.40 ] || bad "soname '$soname'"
readelf -V "$lib" | grep -q 'Version definition' && bad "the library defines symbol versions"
ours=$(nm -S -D --defined-only "$lib")
theirs=
[ -f "$ompi" ] && theirs=$(nm -S -D --defined-only "$ompi")
nobj=0
while read -r cls name sym size; do
    case $cls in ''|'#'*) continue ;; esac
    got=$(awk -v s="$sym" '$4 == s && $3 ~ /[BDbd]/ {print $2}' <<<"$ours")
    [ -n "$got" ] || { bad "$sym ($name) not exported as data"; continue; }
    [ $((16#$got)) -eq "$size" ] || bad "$sym: size $((16#$got)), the table says $size"
    if [ -n "$theirs" ]; then
        want=$(awk -v s="$sym" '$4 == s {print $2}' <<<"$theirs")
        [ -n "$want" ] && [ "$got" != "$want" ] && bad "$sym: size 0x$got, Open MPI's 0x$want"
    fi
    nobj=$((nobj + 1))
done <"$objs"
allowed=$(grep -v '^#' "$funcs" | sort -u)
[ -n "$theirs" ] && allowed=$(awk '$4 ~ /^MPI_/ {print $4}' <<<"$theirs" | sort -u)
exported=$(awk '$4 ~ /^P?MPI_/ && $3 ~ /[TWi]/ {sub(/^P/, "", $4); print $4}' <<<"$ours" | sort -u)
for f in $(comm -23 <(echo "$exported") <(echo "$allowed")); do
    bad "$f is exported but not Open MPI's"
done
nfun=$(grep -c . <<<"$exported")
for f in MPI_Init MPI_Finalize MPI_Send MPI_Recv MPI_Isend MPI_Irecv MPI_Wait MPI_Waitall MPI_Allreduce \
         MPI_Comm_split MPI_Type_create_struct MPI_Win_create MPI_File_open MPI_Comm_create_keyval \
         MPI_Op_create MPI_Comm_create_errhandler MPI_Status_c2f MPI_Errhandler_create MPI_Comm_c2f; do
    for p in "" P; do
        grep -q " [TW] $p$f\$" <<<"$ours" || bad "$p$f is not exported"
    done
done
for o in "" COMM_ TYPE_ WIN_; do
    for k in NULL_COPY_FN NULL_DELETE_FN DUP_FN; do
        grep -q " T OMPI_C_MPI_$o$k\$" <<<"$ours" || bad "OMPI_C_MPI_$o$k is not exported"
    done
done
# what the inline code of Open MPI's C++ header calls (MPI::Op::Init)
grep -q " T ompi_op_set_cxx_callback\$" <<<"$ours" || bad "ompi_op_set_cxx_callback is not exported"
[ $fail = 0 ] && echo "OK: $nobj predefined objects, $nfun functions (and their PMPI_ names)"
exit $fail
