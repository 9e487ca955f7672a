#!/bin/bash
# `cmake --install` lays out Fortran MPI: mpifort/mpif90/mpif77, mpif.h, the
# mpi and mpi_f08 modules, libmpifort.so.12 and libmpichfort.so.12 (both the
# same library as libmpi.so.12), mpi-fort.pc; programs built with the
# installed mpifort in all three forms run, also after the prefix moves.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../scripts/lib.sh"
install_to_tmp "$build"
for f in bin/mpifort bin/mpif90 bin/mpif77 include/mpif.h include/mpi.mod include/mpi_f08.mod \
         lib/libmpifort.so.12 lib/libmpichfort.so.12 lib/pkgconfig/mpi-fort.pc; do
    [ -e "$tmp/p/$f" ] || fail "missing $f"
done
for l in libmpifort.so.12 libmpichfort.so.12; do
    [ "$(readlink -f "$tmp/p/lib/$l")" = "$(readlink -f "$tmp/p/lib/libmpi.so.12")" ] || fail "$l is not libmpi.so.12"
done
mv "$tmp/p" "$tmp/moved"
p=$tmp/moved
"$p/bin/mpifort" -show | grep -q -- "-I$p/include" || fail "mpifort -show does not use the moved prefix: $("$p/bin/mpifort" -show)"
"$p/bin/mpif90" -compile-info | grep -q -- "-I$p/include" || fail "mpif90 -compile-info"
"$p/bin/mpif77" -link-info | grep -q -- "-lmpi" || fail "mpif77 -link-info"
cd "$tmp"
for src in p2p_f77.f coll_mod.f90 f08_basic.f90; do
    prog=${src%.*}
    "$p/bin/mpifort" -O1 "$here/$src" -o "$prog" 2>build.log || { fail "installed mpifort $src: $(tail -3 build.log)"; continue; }
    out=$(env -u LD_LIBRARY_PATH timeout 60 "$p/bin/mpiexec" -n 2 "./$prog" 2>&1)
    [ $? = 0 ] && echo "$out" | grep -qx ' *OK' || fail "$prog: $(echo "$out" | tail -3)"
done
ldd "$tmp/f08_basic" | grep -q "libmpi.so.12 => $p/lib/libmpi.so.12" || fail "rpath does not point at the prefix"
PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --libs mpi-fort | grep -q -- "-lmpi" || fail "pkg-config mpi-fort"
[ $fails = 0 ] && echo "OK: Fortran install" || exit 1
