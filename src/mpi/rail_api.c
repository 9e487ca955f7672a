/* railmpi's extensions for its rails (MPIX_). */
#include "mpi/mpiimpl.h"

int MPIX_Rail_migrate(int rail, int off, int *changed)
{
    MPI_BEGIN("MPIX_Rail_migrate");
    if (rail < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "rail %d is negative", rail);
    int n = proto_rail_migrate(rail, off ? 1 : 0);
    if (changed)
        *changed = n;
    MPI_END();
}
