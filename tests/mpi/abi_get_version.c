/* ranks: 1 */
/* The ABI chapter's calls in the MPICH-ABI library: MPI_Abi_get_version
 * answers -1.-1 (this library is not the standard ABI's; libmpi_abi.so
 * answers 1.0, tests/abi), also before MPI_Init; MPI_Abi_get_info gives the
 * widths of MPI_Aint, MPI_Count and MPI_Offset; a NULL argument is
 * MPI_ERR_ARG. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank;

static void expect_size(MPI_Info info, const char *key, size_t want)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info_get(info, key, sizeof v - 1, v, &flag);
    CHECK(flag && (size_t)atoi(v) == want, "%s: flag %d value %s, want %zu", key, flag, flag ? v : "", want);
}

int main(int argc, char **argv)
{
    int major = 0, minor = 0;
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS, "MPI_Abi_get_version before MPI_Init failed");
    CHECK(major == -1 && minor == -1, "before MPI_Init: %d.%d, want -1.-1", major, minor);
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    major = minor = 0;
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == -1 && minor == -1,
          "MPI_Abi_get_version: %d.%d, want -1.-1", major, minor);
    int cls = -1;
    MPI_Error_class(MPI_Abi_get_version(NULL, &minor), &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL abi_major: class %d", cls);
    MPI_Info info = MPI_INFO_NULL;
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL, "MPI_Abi_get_info failed");
    expect_size(info, "mpi_aint_size", sizeof(MPI_Aint));
    expect_size(info, "mpi_count_size", sizeof(MPI_Count));
    expect_size(info, "mpi_offset_size", sizeof(MPI_Offset));
    MPI_Info_free(&info);
    MPI_Error_class(MPI_Abi_get_info(NULL), &cls);
    CHECK(cls == MPI_ERR_ARG, "NULL info: class %d", cls);
    printf("OK\n");
    MPI_Finalize();
    return 0;
}
