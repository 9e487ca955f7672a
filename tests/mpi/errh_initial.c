/* ranks: 1 2 */
/* MPI-4.1 9.3, error handlers outside objects: the initial error handler
 * (RAILMPI_INITIAL_ERRHANDLER, which mpiexec -initial-errhandler sets; run
 * with --from-mpiexec this program leaves it to mpiexec) takes errors before
 * MPI_Init, MPI_COMM_WORLD and MPI_COMM_SELF start with it, an error tied to
 * no object goes to MPI_COMM_SELF's handler (not MPI_COMM_WORLD's, which is
 * fatal here), setting MPI_COMM_SELF's handler sets the initial one, which
 * takes errors after MPI_Finalize. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, self_calls;

static void on_self(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    self_calls++;
}

int main(int argc, char **argv)
{
    rank = -1;
    if (argc < 2 || strcmp(argv[1], "--from-mpiexec"))
        setenv("RAILMPI_INITIAL_ERRHANDLER", "mpi_errors_return", 1);
    /* before MPI_Init: the initial handler (returns) */
    char v[8];
    int flag, cls;
    int err = MPI_Info_get(MPI_INFO_NULL, "key", sizeof v - 1, v, &flag);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_INFO, "before MPI_Init: MPI_Info_get(MPI_INFO_NULL) gave class %d", cls);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_COMM_WORLD did not start with the initial handler");
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_COMM_SELF did not start with the initial handler");

    /* an error tied to no object: MPI_COMM_SELF's handler, not MPI_COMM_WORLD's */
    MPI_Errhandler mine;
    MPI_Comm_create_errhandler(on_self, &mine);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, mine);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Datatype bad = MPI_DATATYPE_NULL;
    err = MPI_Type_commit(&bad);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_TYPE && self_calls == 1, "MPI_Type_commit(MPI_DATATYPE_NULL): class %d, MPI_COMM_SELF's "
          "handler called %d times", cls, self_calls);
    int dims[2] = {0, 0};
    err = MPI_Dims_create(-1, 2, dims);
    CHECK(err != MPI_SUCCESS && self_calls == 2, "MPI_Dims_create(-1): handler called %d times", self_calls);
    /* a communicator's own error still goes to its handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    err = MPI_Send(&flag, 1, MPI_INT, 1 << 20, 0, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_RANK && self_calls == 2, "a rank error on MPI_COMM_WORLD: class %d", cls);
    MPI_Errhandler_free(&mine);
    MPI_Finalize();

    /* after MPI_Finalize: the initial handler, which MPI_COMM_SELF's setting replaced */
    err = MPI_Info_get(MPI_INFO_NULL, "key", sizeof v - 1, v, &flag);
    CHECK(err != MPI_SUCCESS && self_calls == 3, "after MPI_Finalize: handler called %d times", self_calls);
    if (rank == 0)
        printf("OK: the initial error handler, and MPI_COMM_SELF's for errors of no object\n");
    return 0;
}
