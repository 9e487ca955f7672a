/* Handle conversions the C API lacked, and the C names of the Fortran
 * status sentinels. Fortran handles are the C handles (MPICH's ABI).
 * The window conversions are weak: when src/rma brings its own, those win. */
#include "fortran.h"

#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak PMPI_Win_c2f
MPI_Fint PMPI_Win_c2f(MPI_Win win)
{
    return (MPI_Fint)win;
}

#pragma weak MPI_Win_f2c = PMPI_Win_f2c
#pragma weak PMPI_Win_f2c
MPI_Win PMPI_Win_f2c(MPI_Fint win)
{
    return (MPI_Win)win;
}

/* MPI_F_STATUS(ES)_IGNORE are what a Fortran MPI_STATUS(ES)_IGNORE looks
 * like from C: the address of the sentinel in MPICH's common block (the
 * program's copy when it has one, which the dynamic linker gives us). */
__attribute__((constructor)) static void f_status_sentinels(void)
{
    MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
    MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
}
