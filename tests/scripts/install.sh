#!/bin/bash
# `cmake --install` lays out a usable MPI: wrappers, launcher, header,
# libmpi.so.12 + libmpich.so.12, pkg-config file, manual pages; a program built with the
# installed mpicc finds the library through its rpath, also after the prefix moves.
set -u
build=$1
. "$(dirname "$0")/lib.sh"
install_to_tmp "$build"
for f in bin/mpicc bin/mpicxx bin/mpiexec bin/mpirun include/mpi.h lib/libmpi.so.12 lib/libmpich.so.12 \
         lib/libmpi.so lib/pkgconfig/mpi.pc; do
    [ -e "$tmp/p/$f" ] || fail "missing $f"
done
[ "$(readlink -f "$tmp/p/lib/libmpich.so.12")" = "$(readlink -f "$tmp/p/lib/libmpi.so.12")" ] || fail "libmpich.so.12 is not libmpi.so.12"
cat > "$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) { int r; MPI_Init(&argc, &argv); MPI_Comm_rank(MPI_COMM_WORLD, &r);
  if (r == 0) printf("hello\n"); MPI_Finalize(); return 0; }
C
mv "$tmp/p" "$tmp/moved"
p=$tmp/moved
"$p/bin/mpicc" "$tmp/hello.c" -o "$tmp/hello" || fail "installed mpicc cannot build"
"$p/bin/mpicc" -show | grep -q -- "-I$p/include" || fail "mpicc -show does not use the moved prefix: $("$p/bin/mpicc" -show)"
out=$(env -u LD_LIBRARY_PATH timeout 60 "$p/bin/mpiexec" -n 2 "$tmp/hello")
[ "$out" = hello ] || fail "installed program: $out"
ldd "$tmp/hello" | grep -q "libmpi.so.12 => $p/lib/libmpi.so.12" || fail "rpath does not point at the prefix"
PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags mpi | grep -q -- "-I" || fail "pkg-config mpi"
# a manual page for every tool, each rendering without warnings
for t in mpiexec mpirun mpicc mpicxx mpifort mpif90 mpif77 railbench railstat; do
    pg=$(MANPATH=$p/share/man man -w "$t" 2>&1)
    # (mpirun, mpicxx, mpif90, mpif77 are .so links to the page they share)
    case $pg in "$p/share/man/man1/"*.1) ;; *) fail "man -w $t: $pg"; continue ;; esac
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPATH=$p/share/man man --warnings "$t" 2>&1 >/dev/null)
    [ -z "$w" ] || fail "man $t: $w"
    MANPATH=$p/share/man man "$t" 2>/dev/null | grep -q "^NAME" || fail "man $t renders no NAME section"
done
[ $fails = 0 ] && echo "OK: install" || exit 1
