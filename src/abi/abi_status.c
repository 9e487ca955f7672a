/* The standard ABI's status conversions between C and Fortran
 * (MPI_Status_c2f, _f2c, _c2f08, _f082c, _f2f08, _f082f). In the ABI the C
 * status, the Fortran INTEGER status (MPI_F_STATUS_SIZE 8; MPI_F_SOURCE,
 * MPI_F_TAG, MPI_F_ERROR 0, 1, 2) and TYPE(MPI_Status) (MPI_F08_status) are
 * laid out alike, and the values in them (ranks, tags, error classes) are
 * the same in C and Fortran: each conversion checks its arguments and copies
 * the eight integers. docs/abi.md. */
#include <string.h>

#include "abi_conv.h"
#include "abi_tables.h"
#include "comm/comm.h"
#include "util/lock.h"

typedef struct {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint MPI_internal[5];
} abi_F08_status;

_Static_assert(sizeof(abi_Status) == 8 * sizeof(MPI_Fint) && sizeof(abi_F08_status) == sizeof(abi_Status),
               "the ABI's statuses are eight integers");

int mpi_err_raise(comm_t *comm, int errclass, const char *fn, const char *fmt, ...);

/* a NULL status (MPI_STATUS_IGNORE, MPI_F_STATUS_IGNORE and
 * MPI_F08_STATUS_IGNORE are NULL in the ABI) is erroneous on either side */
static int status_convert(const char *fn, const void *from, const char *from_name, void *to,
                          const char *to_name)
{
    if (!from || !to) {
        rm_lock();
        int rc = mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL (a status to ignore is not one to convert)",
                               !from ? from_name : to_name);
        rm_unlock();
        return abi_err_out(rc);
    }
    memmove(to, from, sizeof(abi_Status));
    return MPI_SUCCESS;
}

int PMPI_Status_c2f(const abi_Status *c_status, MPI_Fint *f_status)
{
    return status_convert("MPI_Status_c2f", c_status, "c_status", f_status, "f_status");
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint *f_status, abi_Status *c_status)
{
    return status_convert("MPI_Status_f2c", f_status, "f_status", c_status, "c_status");
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

int PMPI_Status_c2f08(const abi_Status *c_status, abi_F08_status *f08_status)
{
    return status_convert("MPI_Status_c2f08", c_status, "c_status", f08_status, "f08_status");
}
#pragma weak MPI_Status_c2f08 = PMPI_Status_c2f08

int PMPI_Status_f082c(const abi_F08_status *f08_status, abi_Status *c_status)
{
    return status_convert("MPI_Status_f082c", f08_status, "f08_status", c_status, "c_status");
}
#pragma weak MPI_Status_f082c = PMPI_Status_f082c

int PMPI_Status_f2f08(const MPI_Fint *f_status, abi_F08_status *f08_status)
{
    return status_convert("MPI_Status_f2f08", f_status, "f_status", f08_status, "f08_status");
}
#pragma weak MPI_Status_f2f08 = PMPI_Status_f2f08

int PMPI_Status_f082f(const abi_F08_status *f08_status, MPI_Fint *f_status)
{
    return status_convert("MPI_Status_f082f", f08_status, "f08_status", f_status, "f_status");
}
#pragma weak MPI_Status_f082f = PMPI_Status_f082f
