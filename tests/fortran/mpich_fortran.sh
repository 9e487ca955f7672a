#!/bin/bash
# Fortran programs built with Debian's MPICH (mpif90.mpich: mpif.h and
# MPICH's own `use mpi` module) run unchanged on railmpi: libmpichfort.so.12
# resolves to railmpi, MPICH's sentinel common blocks (MPI_IN_PLACE,
# MPI_STATUS_IGNORE, ...) and Fortran attribute keys are understood, under
# railmpi's mpiexec and under MPICH's Hydra.
set -u
build=$1
lib=$build/lib
here=$(cd "$(dirname "$0")" && pwd)
command -v mpif90.mpich >/dev/null && command -v mpiexec.mpich >/dev/null || { echo "SKIP: MPICH Fortran missing"; exit 77; }
. "$here/../scripts/lib.sh"
skip_if_sanitized "$build" "a sanitizer build cannot be loaded into programs built without the sanitizer"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for src in p2p_f77.f coll_mod.f90 attr_errh.f90; do
    prog=${src%.*}
    mpif90.mpich -O1 "$here/$src" -o "$prog" 2>build.log || { fail "mpif90.mpich $src: $(tail -3 build.log)"; continue; }
    ldd_out=$(LD_LIBRARY_PATH=$lib ldd "./$prog")
    echo "$ldd_out" | grep -q "libmpichfort.so.12 => $lib/libmpichfort.so.12" || fail "$prog: libmpichfort.so.12 does not resolve to railmpi: $ldd_out"
    out=$(LD_LIBRARY_PATH=$lib timeout 60 "$build/bin/mpiexec" -n 2 "./$prog" 2>&1)
    [ $? = 0 ] && echo "$out" | grep -qx ' *OK' || fail "$prog under railmpi's mpiexec: $(echo "$out" | tail -3)"
    out=$(LD_LIBRARY_PATH=$lib timeout 60 mpiexec.mpich -n 2 "./$prog" 2>&1)
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
out=$(LD_LIBRARY_PATH=$lib timeout 60 "$build/bin/mpiexec" -n 1 ./ver 2>&1)
[ "$out" = railmpi ] || fail "MPI_GET_LIBRARY_VERSION from an MPICH-built program: $out"
[ $fails = 0 ] && echo "OK: MPICH-built Fortran programs run on railmpi" || exit 1
