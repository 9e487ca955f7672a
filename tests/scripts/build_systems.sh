#!/bin/bash
# Build systems find railmpi (tests/scripts/detect, docs/install.md): against
# a `cmake --install` prefix alone, in a clean environment (its bin/ first on
# PATH, MPI_HOME set as its module sets it), a C and a Fortran program build
# with CMake's FindMPI (MPI_C, MPI_Fortran with the mpi_f08 module, the MPI
# version of mpi.h, railmpi's library and mpiexec), Meson's dependency('mpi'),
# autotools (AC_PROG_CC([mpicc]) and an AX_MPI-style check) and pkg-config
# (mpi, mpi-c, mpi-fort), and run under mpiexec.
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
install_to_tmp "$build"
p=$tmp/p
src=$here/detect
ver=$(sed -n 's/^Version: //p' "$p/lib/pkgconfig/mpi.pc")
mpiver=$(awk '/define MPI_VERSION /{v=$3} /define MPI_SUBVERSION /{s=$3} END{print v "." s}' "$p/include/mpi.h")
run() { env -i PATH="$p/bin:/usr/bin:/bin" HOME="$tmp" MPI_HOME="$p" "$@"; }
# runs DIR's hello_c and hello_f on 3 ranks: railmpi's library, the right sums
check_run() {
    local out
    out=$(run timeout 60 "$p/bin/mpiexec" -n 3 --timeout 50 "$2/hello_c" 2>&1)
    [ "$out" = "C 3 3 railmpi" ] || fail "$1: hello_c: $out"
    out=$(run timeout 60 "$p/bin/mpiexec" -n 3 --timeout 50 "$2/hello_f" 2>&1)
    [ "$out" = "F 3 3" ] || fail "$1: hello_f: $out"
    for b in hello_c hello_f; do
        # (pkg-config's path comes as p/lib/pkgconfig/../../lib)
        lib=$(ldd "$2/$b" | awk '$1 == "libmpi.so.12" {print $3}')
        [ "$(realpath -ms "$lib")" = "$p/lib/libmpi.so.12" ] || fail "$1: $b: $(ldd "$2/$b" | grep mpi)"
    done
}

# CMake: FindMPI
if run cmake -S "$src" -B "$tmp/cmake" >"$tmp/cmake.log" 2>&1 && run cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1; then
    f=$tmp/cmake/found.txt
    val() { sed -n "s/^$1=//p" "$f"; }
    [ "$(val C_VERSION)" = "$mpiver" ] || fail "FindMPI: MPI_C_VERSION $(val C_VERSION), mpi.h says $mpiver"
    [ "$(val Fortran_VERSION)" = "$mpiver" ] || fail "FindMPI: MPI_Fortran_VERSION $(val Fortran_VERSION)"
    case $(val C_LIBRARIES) in "$p/lib/libmpi.so"*) ;; *) fail "FindMPI: MPI_C_LIBRARIES $(val C_LIBRARIES)" ;; esac
    [ "$(val C_INCLUDE_DIRS)" = "$p/include" ] || fail "FindMPI: MPI_C_INCLUDE_DIRS $(val C_INCLUDE_DIRS)"
    case $(val C_LIBRARY_VERSION_STRING) in railmpi*) ;; *) fail "FindMPI: library $(val C_LIBRARY_VERSION_STRING)" ;; esac
    for m in F77_HEADER F90_MODULE F08_MODULE; do
        [ "$(val Fortran_HAVE_$m)" = TRUE ] || fail "FindMPI: MPI_Fortran_HAVE_$m is $(val Fortran_HAVE_$m)"
    done
    [ "$(val MPIEXEC_EXECUTABLE)" = "$p/bin/mpiexec" ] || fail "FindMPI: MPIEXEC_EXECUTABLE $(val MPIEXEC_EXECUTABLE)"
    [ "$(val MPIEXEC_NUMPROC_FLAG)" = "-n" ] || fail "FindMPI: MPIEXEC_NUMPROC_FLAG $(val MPIEXEC_NUMPROC_FLAG)"
    check_run FindMPI "$tmp/cmake"
else
    fail "CMake with FindMPI: $(tail -15 "$tmp/cmake.log")"
fi

# Meson: dependency('mpi', language: 'c' | 'fortran'). Meson asks pkg-config
# for Open MPI's ompi-c first, then the wrappers (--showme:*): pkg-config sees
# only railmpi's directory, or Debian's Open MPI would answer.
if run PKG_CONFIG_LIBDIR="$p/lib/pkgconfig" meson setup "$src" "$tmp/meson" >"$tmp/meson.log" 2>&1 &&
   run meson compile -C "$tmp/meson" >>"$tmp/meson.log" 2>&1; then
    grep -q "railmpi-test mpi c $ver fortran $ver" "$tmp/meson.log" || fail "meson: $(grep -i "mpi" "$tmp/meson.log" | head -5)"
    check_run meson "$tmp/meson"
else
    fail "meson: $(tail -15 "$tmp/meson.log")"
fi

# autotools: AC_PROG_CC([mpicc]), AC_PROG_FC([mpifort]), AX_MPI-style HELLO_MPI
mkdir "$tmp/auto"
cp "$src"/{configure.ac,Makefile.am,acinclude.m4,hello.c,hello.f90} "$tmp/auto/"
if (cd "$tmp/auto" && run autoreconf -i && run ./configure && run make) >"$tmp/auto.log" 2>&1; then
    grep -q "^CC='mpicc'" "$tmp/auto/config.log" || fail "configure: $(grep "^CC=" "$tmp/auto/config.log")"
    grep -q "^FC='mpifort'" "$tmp/auto/config.log" || fail "configure: $(grep "^FC=" "$tmp/auto/config.log")"
    [ "$(grep -c "whether MPI's interface compiles... yes" "$tmp/auto.log")" = 2 ] || fail "configure: the MPI checks"
    check_run autotools "$tmp/auto"
else
    fail "autotools: $(tail -15 "$tmp/auto.log")"
fi

# pkg-config: the names MPICH's and Open MPI's packages give
export PKG_CONFIG_PATH=$p/lib/pkgconfig
for pc in mpi mpi-c mpi-cxx mpi-fort; do
    [ "$(pkg-config --modversion "$pc")" = "$ver" ] || fail "pkg-config $pc: $(pkg-config --modversion "$pc" 2>&1)"
done
inc=$(pkg-config --cflags-only-I mpi-c | tr -d ' ')
[ "$(realpath -m "${inc#-I}")" = "$p/include" ] || fail "pkg-config --cflags mpi-c: $inc"
mkdir "$tmp/pc"
cc "$src/hello.c" $(pkg-config --cflags --libs mpi-c) -o "$tmp/pc/hello_c" 2>"$tmp/err" || fail "cc with pkg-config mpi-c: $(cat "$tmp/err")"
gfortran -J "$tmp/pc" "$src/hello.f90" $(pkg-config --cflags --libs mpi-fort) -o "$tmp/pc/hello_f" 2>"$tmp/err" ||
    fail "gfortran with pkg-config mpi-fort: $(cat "$tmp/err")"
[ $fails = 0 ] && check_run pkg-config "$tmp/pc"
[ $fails = 0 ] && echo "OK: build systems" || exit 1
