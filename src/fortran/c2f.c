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
MPI_F08_status *MPI_F08_STATUS_IGNORE;
MPI_F08_status *MPI_F08_STATUSES_IGNORE;

__attribute__((constructor)) static void f_status_sentinels(void)
{
    MPI_F_STATUS_IGNORE = mpipriv1_.status_ignore;
    MPI_F_STATUSES_IGNORE = mpipriv2_.statuses_ignore;
    /* mpi_f08's MPI_STATUS(ES)_IGNORE live in the same common blocks */
    MPI_F08_STATUS_IGNORE = (MPI_F08_status *)mpipriv1_.status_ignore;
    MPI_F08_STATUSES_IGNORE = (MPI_F08_status *)mpipriv2_.statuses_ignore;
}

/* TYPE(MPI_Status) of mpi_f08 is the INTEGER status of mpif.h, field for
 * field: the checks and the copy are MPI_Status_c2f's and _f2c's. */
#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08
int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return PMPI_Status_c2f(c_status, (MPI_Fint *)f08_status);
}

#pragma weak MPI_Status_f082c = PMPI_Status_f082c
int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return PMPI_Status_f2c((const MPI_Fint *)f08_status, c_status);
}

/* MPI-4.0 19.3.5: between mpif.h's INTEGER status and mpi_f08's
 * TYPE(MPI_Status) (the same layout here), through the C status so the
 * arguments get the same checks */
#pragma weak MPI_Status_f082f = PMPI_Status_f082f
int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    MPI_Status c;
    int rc = PMPI_Status_f082c(f08_status, &c);
    return rc != MPI_SUCCESS ? rc : PMPI_Status_c2f(&c, f_status);
}

#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08
int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    MPI_Status c;
    int rc = PMPI_Status_f2c(f_status, &c);
    return rc != MPI_SUCCESS ? rc : PMPI_Status_c2f08(&c, f08_status);
}
