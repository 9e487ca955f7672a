#!/bin/bash
# railmpi's libmpi_cxx.so.40 against Open MPI 4.1's (docs/abi.md, "C++
# programs"):  ompi_cxx_exports.sh LIBRARY [OPEN_MPI_LIBRARY]
# - soname libmpi_cxx.so.40, no symbol versions (Open MPI's has none);
# - every symbol Open MPI's exports is exported, data with Open MPI's size (a
#   program built without PIE copies the predefined objects), except the glue
#   Open MPI's own libmpi.so.40 calls (ompi_cxx_*, the *_errhandler_invoke
#   functions), which no program reaches;
# - it needs nothing of Open MPI's internals (ompi_*/opal_* symbols other than
#   the predefined objects and ompi_op_set_cxx_callback).
# Exits 77 (skipped) where Open MPI's library is not installed.
set -u
lib=$1 ompi=${2:-/usr/lib/x86_64-linux-gnu/libmpi_cxx.so.40}
if [ ! -f "$ompi" ]; then
    echo "SKIP: $ompi (Debian's libopenmpi-dev) is not installed"
    exit 77
fi
fail=0
bad() { echo "FAIL: $*"; fail=1; }
soname=$(readelf -d "$lib" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libmpi_cxx.so.40 ] || bad "soname '$soname'"
readelf -V "$lib" | grep -q 'Version definition' && bad "the library defines symbol versions"
ours=$(nm -S -D --defined-only "$lib" | awk 'NF == 4 {print $4, $3, $2}' | sort)
theirs=$(nm -S -D --defined-only "$ompi" | awk 'NF == 4 {print $4, $3, $2}' | sort)
n=0
while read -r sym kind size; do
    case $sym in
        ompi_cxx_* | ompi_mpi_cxx_*_errhandler_invoke) continue ;;
    esac
    got=$(awk -v s="$sym" '$1 == s {print $3}' <<<"$ours")
    if [ -z "$got" ]; then
        bad "$(c++filt "$sym") is not exported"
    elif [[ $kind == [BDRV] ]] && [ "$got" != "$size" ]; then
        bad "$(c++filt "$sym"): size 0x$got, Open MPI's 0x$size"
    fi
    n=$((n + 1))
done <<<"$theirs"
internals=$(nm -D --undefined-only "$lib" | awk '{print $2}' | grep -E '^(ompi|opal)_' |
    grep -v -E '^ompi_mpi_[a-z0-9_]+$|^ompi_request_null$|^ompi_op_set_cxx_callback$')
[ -z "$internals" ] || bad "needs Open MPI internals:" $internals
[ $fail = 0 ] && echo "OK: $n of Open MPI's symbols"
exit $fail
