# HELLO_MPI([ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND]): MPI detection for the
# current language (C or Fortran) in the way of autoconf-archive's AX_MPI:
# find the MPI compiler wrapper (MPICC or MPIFC, user-settable), check that a
# call of MPI_Init links through it (else with -lmpi or -lmpich, which then go
# to MPILIBS), and that mpi.h (C) or the mpi_f08 module (Fortran) compiles.
AC_DEFUN([HELLO_MPI], [
AC_LANG_CASE([C], [
    AC_ARG_VAR([MPICC], [MPI C compiler wrapper])
    AC_CHECK_PROGS([MPICC], [mpicc mpcc mpiicc], [$CC])
    hello_mpi_save=$CC
    CC=$MPICC
], [Fortran], [
    AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper])
    AC_CHECK_PROGS([MPIFC], [mpifort mpif90 mpiifort], [$FC])
    hello_mpi_save=$FC
    FC=$MPIFC
])
hello_mpi_ok=no
MPILIBS=
AC_CHECK_FUNC([MPI_Init], [hello_mpi_ok=yes], [
    for hello_lib in mpi mpich; do
        AC_CHECK_LIB([$hello_lib], [MPI_Init], [MPILIBS=-l$hello_lib; hello_mpi_ok=yes])
        test $hello_mpi_ok = yes && break
    done])
if test $hello_mpi_ok = yes; then
    AC_MSG_CHECKING([whether MPI's interface compiles])
    hello_save_libs=$LIBS
    LIBS="$MPILIBS $LIBS"
    AC_LANG_CASE([C], [
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
            [[int v, s; MPI_Get_version(&v, &s); return v < 3;]])], [], [hello_mpi_ok=no])
    ], [Fortran], [
        AC_LINK_IFELSE([AC_LANG_PROGRAM([], [[      use mpi_f08
      integer v, s
      call MPI_Get_version(v, s)]])], [], [hello_mpi_ok=no])
    ])
    LIBS=$hello_save_libs
    AC_MSG_RESULT([$hello_mpi_ok])
fi
AC_LANG_CASE([C], [CC=$hello_mpi_save], [Fortran], [FC=$hello_mpi_save])
AC_SUBST([MPILIBS])
AS_IF([test $hello_mpi_ok = yes], [$1], [$2])
])
