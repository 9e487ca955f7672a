/* The ABI chapter's functions (MPI-5.0) in the MPICH-ABI library: this
 * library is not built for the standard ABI, so MPI_Abi_get_version answers
 * -1.-1; libmpi_abi.so answers 1.0 (src/abi, docs/abi.md). */
#include <stdio.h>
#include "mpiimpl.h"

RM_ALIAS(Abi_get_version)
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_get_version");
    CHECK_ARG(NULL, abi_major, "abi_major is NULL");
    CHECK_ARG(NULL, abi_minor, "abi_minor is NULL");
    *abi_major = -1;
    *abi_minor = -1;
    MPI_END();
}

/* the widths of MPI_Aint, MPI_Count and MPI_Offset, under the keys the ABI
 * chapter names; the same in both libraries */
RM_ALIAS(Abi_get_info)
int PMPI_Abi_get_info(MPI_Info *info)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_get_info");
    CHECK_ARG(NULL, info, "info is NULL");
    static const struct {
        const char *key;
        int size;
    } keys[] = {
        {"mpi_aint_size", (int)sizeof(MPI_Aint)},
        {"mpi_count_size", (int)sizeof(MPI_Count)},
        {"mpi_offset_size", (int)sizeof(MPI_Offset)},
    };
    MPI_Info in;
    if ((err = PMPI_Info_create(&in)) != MPI_SUCCESS)
        goto fn_exit;
    for (size_t i = 0; err == MPI_SUCCESS && i < sizeof keys / sizeof keys[0]; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", keys[i].size);
        err = PMPI_Info_set(in, keys[i].key, v);
    }
    if (err != MPI_SUCCESS) {
        PMPI_Info_free(&in);
        goto fn_exit;
    }
    *info = in;
    MPI_END();
}
