#!/bin/bash
# railmpi's libmpi_mpifh.so.40, libmpi_usempif08.so.40 and
# libmpi_usempi_ignore_tkr.so.40 (docs/abi.md): their sonames, that the first
# two need railmpi's libmpi.so.40, and, where Open MPI's are
# installed, that every name they export is one Open MPI's library exports
# (no misspelt binding), and that the common calls are there.
#   ompi_fortran_exports.sh LIBDIR [OPENMPI_LIBDIR]
set -u
dir=$1 sys=${2:-/usr/lib/x86_64-linux-gnu}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for lib in mpifh usempif08 usempi_ignore_tkr; do
    ours=$dir/libmpi_$lib.so.40
    readelf -d "$ours" | grep -q "SONAME.*\[libmpi_$lib\.so\.40\]" || { echo "FAIL: $lib: soname"; fail=1; }
    # (a sanitizer build adds its ODR indicators of the data it exports)
    nm -D --defined-only "$ours" | awk '{print $3}' | grep -v '^__odr_asan\.' | sort > "$tmp/ours"
    if [ $lib = usempi_ignore_tkr ]; then
        # MPI_SIZEOF's specifics and the sentinels, needing no MPI library
        wants="mpi_sizeof_real64_r1_ pmpi_sizeof_int32_scalar_ mpi_fortran_bottom_"
        ! readelf -d "$ours" | grep -q 'NEEDED.*\[libmpi' || { echo "FAIL: $lib needs an MPI library"; fail=1; }
    else
        wants="mpi_send_ mpi_recv_ mpi_waitall_ mpi_allreduce_"
        readelf -d "$ours" | grep -q 'NEEDED.*\[libmpi\.so\.40\]' || { echo "FAIL: $lib: does not need libmpi.so.40"; fail=1; }
    fi
    for want in $wants; do
        w=$want
        [ $lib = usempif08 ] && w=${want%_}_f08_
        grep -qx "$w" "$tmp/ours" || { echo "FAIL: $lib: no $w"; fail=1; }
    done
    if [ -e "$sys/libmpi_$lib.so.40" ]; then
        nm -D --defined-only "$sys/libmpi_$lib.so.40" | awk '{print $3}' | sort > "$tmp/theirs"
        extra=$(comm -23 "$tmp/ours" "$tmp/theirs")
        [ -z "$extra" ] || { echo "FAIL: $lib exports names Open MPI's does not:" $extra; fail=1; }
        if [ $lib = usempi_ignore_tkr ]; then
            missing=$(comm -13 "$tmp/ours" "$tmp/theirs")
            [ -z "$missing" ] || { echo "FAIL: $lib lacks names Open MPI's exports:" $missing; fail=1; }
        fi
    else
        echo "(Open MPI's libmpi_$lib.so.40 is not installed: names not compared)"
    fi
done
[ $fail = 0 ] && echo OK
exit $fail
