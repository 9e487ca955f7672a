/* ranks: 1 */
/* Window keyvals exist without windows: create, free (setting the handle
 * to MPI_KEYVAL_INVALID), freeing again through a copy is not fatal, a
 * window keyval is not a communicator or datatype keyval, and the
 * predefined MPI_WIN_* callbacks can be named. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>

static int rank;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int wk, copy, cls, v = 1;
    CHECK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &wk, NULL) == MPI_SUCCESS,
          "create");
    copy = wk;
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, wk, &v) != MPI_SUCCESS, "window keyval on a comm");
    CHECK(MPI_Type_set_attr(MPI_INT, wk, &v) != MPI_SUCCESS, "window keyval on a type");
    int ck = wk;
    MPI_Error_class(MPI_Comm_free_keyval(&ck), &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "Comm_free_keyval of a window keyval: %d", cls);
    CHECK(MPI_Win_free_keyval(&wk) == MPI_SUCCESS && wk == MPI_KEYVAL_INVALID, "free");
    CHECK(MPI_Win_free_keyval(&copy) == MPI_SUCCESS, "free again through a copy");
    int k2;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k2, NULL);
    MPI_Win_free_keyval(&k2);
    if (rank == 0)
        printf("attr_win_keyval: OK\n");
    MPI_Finalize();
    return 0;
}
