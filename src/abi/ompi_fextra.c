/* Fortran procedures of Open MPI's libraries with no C function of
 * libmpi.so.40 behind them (docs/abi.md, "Fortran through Open MPI's ABI"):
 * MPI_AINT_ADD and MPI_AINT_DIFF (C macros in Open MPI's mpi.h; they call
 * the Fortran procedures libmpi.so.40 holds for them) and MPI_F_SYNC_REG, under the names of
 * libmpi_mpifh.so.40 (mpif.h and `use mpi`) or, compiled with OMPI_F08, of
 * libmpi_usempif08.so.40 (`use mpi_f08`). */
#include "ompi_fortran.h"

/* MPI-4.1 2.5.6: address arithmetic, libmpi.so.40's Fortran procedures
 * (src/abi/ompi_conv.c) */
MPI_Aint mpi_aint_add_f90_(const MPI_Aint *base, const MPI_Aint *disp);
MPI_Aint mpi_aint_diff_f90_(const MPI_Aint *addr1, const MPI_Aint *addr2);

static MPI_Aint f_aint_add(const MPI_Aint *base, const MPI_Aint *disp)
{
    return mpi_aint_add_f90_(base, disp);
}

static MPI_Aint f_aint_diff(const MPI_Aint *addr1, const MPI_Aint *addr2)
{
    return mpi_aint_diff_f90_(addr1, addr2);
}

/* MPI-4.1 19.1.17: does nothing; being an external procedure given the
 * buffer, the compiler must assume the call reads and changes it */
static void f_sync_reg(void *buf)
{
    __asm__ volatile("" : : "r"(buf) : "memory");
}

#ifdef OMPI_F08
#define F_NAMES(f, low) \
    RM_FALIAS(f, mpi_##low##_f08_) \
    RM_FALIAS(f, pmpi_##low##_f08_)
#else
#define F_NAMES(f, low) \
    RM_FALIAS(f, mpi_##low) \
    RM_FALIAS(f, mpi_##low##_) \
    RM_FALIAS(f, mpi_##low##__) \
    RM_FALIAS(f, pmpi_##low) \
    RM_FALIAS(f, pmpi_##low##_) \
    RM_FALIAS(f, pmpi_##low##__)
RM_FALIAS(f_aint_add, MPI_AINT_ADD)
RM_FALIAS(f_aint_add, PMPI_AINT_ADD)
RM_FALIAS(f_aint_diff, MPI_AINT_DIFF)
RM_FALIAS(f_aint_diff, PMPI_AINT_DIFF)
RM_FALIAS(f_sync_reg, MPI_F_SYNC_REG)
RM_FALIAS(f_sync_reg, PMPI_F_SYNC_REG)
#endif

F_NAMES(f_aint_add, aint_add)
F_NAMES(f_aint_diff, aint_diff)
F_NAMES(f_sync_reg, f_sync_reg)
