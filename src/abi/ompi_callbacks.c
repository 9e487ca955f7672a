/* Procedures of programs built for Open MPI's ABI that the engine calls
 * (user operations, error handlers, attribute copy and delete functions,
 * generalized requests, data representations): the standard ABI's
 * trampolines, compiled over Open MPI's conversions, so the procedures get
 * Open MPI's handles, error classes and status (docs/abi.md). */
#include "ompi_conv.h"
#include "abi_tables.h"
#include "abi_callbacks.c"

/* MPI-1's name for MPI_Comm_create_errhandler, which Open MPI 4.1 still has */
int PMPI_Errhandler_create(abi_handle_errhandler *fn, abi_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(fn, errhandler);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
