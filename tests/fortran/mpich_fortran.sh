#!/bin/bash
# Fortran programs built with Debian's MPICH (mpif90.mpich: mpif.h and
# MPICH's own `use mpi` module) run unchanged on railmpi: libmpichfort.so.12
# resolves to railmpi, MPICH's sentinel common blocks (MPI_IN_PLACE,
# MPI_STATUS_IGNORE, ...) and Fortran attribute keys are understood, file
# error handlers and data representations written in Fortran are called,
# MPI_SIZEOF resolves to MPICH's module procedures, and programs built with
# MPICH's `use mpi_f08` (its *_f08_ and *_f08ts_ entry points, array
# sections as gfortran descriptors, its MPIR_F08_* sentinels and the handle
# operators of its mpi_f08_types module) run too, under railmpi's mpiexec
# and under MPICH's Hydra.
set -u
build=$1
lib=$build/lib
here=$(cd "$(dirname "$0")" && pwd)
command -v mpif90.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || { echo "SKIP: MPICH Fortran missing"; exit 77; }
. "$here/../scripts/lib.sh"
# A sanitized library can be loaded into these programs only with its runtime
# preloaded: AddressSanitizer is (leaks are not checked: the programs' own
# runtime is not ours); ThreadSanitizer is not tried.
preload=
if nm -D "$lib/libmpi.so.12" | grep -q __asan_init; then
    preload=$(gcc -print-file-name=libasan.so)
    export ASAN_OPTIONS=detect_leaks=0
else
    skip_if_sanitized "$build" "a ThreadSanitizer build cannot be loaded into programs built without it"
fi
run() { LD_PRELOAD=$preload LD_LIBRARY_PATH=$lib "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# MPICH's mpi module does not declare MPI_CONVERSION_FN_NULL: file_cb.f90
# without the lines that use it
sed '/MPI_CONVERSION_FN_NULL/,+2d' "$here/file_cb.f90" > file_cb.f90
# MPI_SIZEOF through MPICH's module: its specific procedures are in
# libmpichfort (__mpi_sizeofs_MOD_*), which railmpi provides
cat > sizeof_mpich.f90 <<'F'
program sizeof_mpich
  use mpi
  integer :: i, s(5), ierr
  double precision :: d
  complex :: c
  logical :: l
  integer(kind=8) :: k(4)
  call MPI_Init(ierr)
  call MPI_Sizeof(i, s(1), ierr)
  call MPI_Sizeof(d, s(2), ierr)
  call MPI_Sizeof(c, s(3), ierr)
  call MPI_Sizeof(l, s(4), ierr)
  call MPI_Sizeof(k, s(5), ierr)
  if (all(s == (/ 4, 8, 8, 4, 8 /))) then
    print '(a)', 'OK'
  else
    print *, 'FAIL: MPI_SIZEOF', s
  end if
  call MPI_Finalize(ierr)
end program
F
for src in p2p_f77.f coll_mod.f90 attr_errh.f90 ./file_cb.f90 ./sizeof_mpich.f90 f08_basic.f90 f08_sections.f90 f08_calls.f90 f08_file_cb.f90 \
           free_ierr_h.f90 free_ierr_mod.f90 free_ierr_f08.f90 f08_status_conv.f90; do
    prog=$(basename "${src%.*}")
    case $src in ./*) path=$src ;; *) path=$here/$src ;; esac
    mpif90.mpich -O1 "$path" -o "$prog" 2>build.log || { fail "mpif90.mpich $src: $(tail -3 build.log)"; continue; }
    ldd_out=$(LD_LIBRARY_PATH=$lib ldd "./$prog")
    echo "$ldd_out" | grep -q "libmpichfort.so.12 => $lib/libmpichfort.so.12" || fail "$prog: libmpichfort.so.12 does not resolve to railmpi: $ldd_out"
    out=$(run timeout 60 "$build/bin/mpiexec" -n 2 "./$prog" 2>&1)
    [ $? = 0 ] && echo "$out" | grep -qx ' *OK' || fail "$prog under railmpi's mpiexec: $(echo "$out" | tail -3)"
    out=$(run timeout 60 mpiexec.mpich -n 2 "./$prog" 2>&1)
    [ $? = 0 ] && echo "$out" | grep -qx ' *OK' || fail "$prog under Hydra: $(echo "$out" | tail -3)"
done
# the library a program ran on is railmpi's
cat > ver.f90 <<'F'
program ver
  use mpi
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: v
  integer :: l, ierr
  call MPI_Init(ierr)
  call MPI_Get_library_version(v, l, ierr)
  print '(a)', v(1:7)
  call MPI_Finalize(ierr)
end program
F
mpif90.mpich ver.f90 -o ver 2>/dev/null || fail "mpif90.mpich ver.f90"
out=$(run timeout 60 "$build/bin/mpiexec" -n 1 ./ver 2>&1)
[ "$out" = railmpi ] || fail "MPI_GET_LIBRARY_VERSION from an MPICH-built program: $out"
[ $fails = 0 ] && echo "OK: MPICH-built Fortran programs run on railmpi" || exit 1
