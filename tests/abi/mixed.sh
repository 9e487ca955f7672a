#!/bin/bash
# One MPI library per process (docs/abi.md): a program built for one of
# railmpi's ABIs that loads another MPI library (RTLD_LOCAL) before MPI_Init
# is told so by MPI_Init, with both libraries' names: railmpi's other ABI in
# both directions, and Debian's MPICH (libmpich.so.12) and Open MPI
# (libmpi.so.40) where they are installed. Without the other library MPI_Init
# succeeds. MPI_Session_init the same, once each way.
#   mixed.sh SOURCE_DIR INCLUDE_DIR LIBDIR MPICC
set -u
src=$1/mixed.c inc=$2 libdir=$3 mpicc=$4
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# a sanitizer build of the library: the program carries the runtime too; the
# runs that fail MPI_Init on purpose end the process without MPI_Finalize,
# so leaks are not checked in them
san=()
if nm -D "$libdir/libmpi.so.12" | grep -q __asan_init; then
    san=(-fsanitize=address,undefined)
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fi
cc -O1 -Wall -Werror "${san[@]}" -I"$inc" -o "$tmp/p12" "$src" -L"$libdir" -Wl,-rpath,"$libdir" -l:libmpi.so.12 -ldl ||
    { echo "FAIL: does not build against libmpi.so.12"; exit 1; }
"$mpicc" -abi -O1 -Wall -Werror -o "$tmp/pabi" "$src" -ldl || { echo "FAIL: mpicc -abi"; exit 1; }
fail=0
# PROG LIBRARY OURS: MPI_Init fails, under the default error handler with a
# message naming OURS and LIBRARY, under MPI_ERRORS_RETURN with MPI_ERR_OTHER
mixed() {
    local prog=$1 lib=$2 ours=$3 out rc
    out=$(timeout -k 5 30 "$tmp/$prog" "$lib" 2>&1); rc=$?
    if [ $rc = 77 ]; then echo "skipped: $out"; return; fi
    if [ $rc = 0 ] || ! grep -q "two MPI libraries" <<<"$out" || ! grep -qF "$lib" <<<"$out" ||
        ! grep -qF "$libdir/$ours" <<<"$out"; then
        echo "FAIL: $prog with $lib: exit $rc, said: $out"; fail=1; return
    fi
    out=$(RAILMPI_INITIAL_ERRHANDLER=mpi_errors_return timeout -k 5 30 "$tmp/$prog" "$lib" 2>&1); rc=$?
    if [ $rc != 3 ] || ! grep -q "INIT-FAILED MPI_ERR_OTHER" <<<"$out"; then
        echo "FAIL: $prog with $lib, MPI_ERRORS_RETURN: exit $rc, said: $out"; fail=1; return
    fi
    echo "ok: $prog with $lib"
}
# the same with MPI_Session_init
session() {
    local prog=$1 lib=$2 out rc
    out=$(MIXED_SESSION=1 timeout -k 5 30 "$tmp/$prog" "$lib" 2>&1); rc=$?
    if [ $rc = 0 ] || ! grep -q "MPI_Session_init.*two MPI libraries" <<<"$out" || ! grep -qF "$lib" <<<"$out"; then
        echo "FAIL: $prog with $lib, MPI_Session_init: exit $rc, said: $out"; fail=1; return
    fi
    out=$(MIXED_SESSION=1 timeout -k 5 30 "$tmp/$prog" 2>&1) || { echo "FAIL: $prog alone, MPI_Session_init: $out"; fail=1; return; }
    echo "ok: $prog with $lib, MPI_Session_init"
}
for prog in p12 pabi; do
    out=$(timeout -k 5 30 "$tmp/$prog" 2>&1) || { echo "FAIL: $prog alone: $out"; fail=1; }
done
mixed p12 "$libdir/libmpi_abi.so.0" libmpi.so.12
mixed pabi "$libdir/libmpi.so.12" libmpi_abi.so.0
session p12 "$libdir/libmpi_abi.so.0"
session pabi "$libdir/libmpi.so.12"
for other in /usr/lib/x86_64-linux-gnu/libmpich.so.12 /usr/lib/x86_64-linux-gnu/libmpi.so.40; do
    [ -e "$other" ] || { echo "skipped: no $other"; continue; }
    mixed p12 "$other" libmpi.so.12
    mixed pabi "$other" libmpi_abi.so.0
done
[ $fail = 0 ] && echo OK
exit $fail
