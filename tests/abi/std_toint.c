/* The ABI chapter's MPI_<Type>_toint/_fromint, newer than the reference
 * header: built with mpicc -abi (railmpi's include/abi/mpi.h). A predefined
 * handle's int is its ABI value; every handle comes back from its int. 2 ranks. */
#include <mpi.h>
#include "std_check.h"

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101, "world: %#x", MPI_Comm_toint(MPI_COMM_WORLD));
    CHECK(MPI_Type_toint(MPI_INT) == 0x209 && MPI_Type_fromint(0x209) == MPI_INT, "MPI_INT");
    CHECK(MPI_Op_fromint(MPI_Op_toint(MPI_SUM)) == MPI_SUM, "MPI_SUM");
    CHECK(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "request null");
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int i = MPI_Comm_toint(dup);
    MPI_Comm back = MPI_Comm_fromint(i);
    CHECK(back == dup, "dup does not come back from %d", i);
    int n = -1;
    OK(MPI_Comm_size(back, &n));
    CHECK(n == 2, "size through the int %d", n);
    MPI_Datatype t;
    OK(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK(MPI_Type_fromint(MPI_Type_toint(t)) == t, "derived datatype");
    OK(MPI_Type_free(&t));
    MPI_File fh;
    char name[32];
    snprintf(name, sizeof name, "std_toint.%d.dat", std_rank);
    OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    CHECK(MPI_File_fromint(MPI_File_toint(fh)) == fh, "file");
    CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL, "MPI_FILE_NULL");
    OK(MPI_File_close(&fh));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
