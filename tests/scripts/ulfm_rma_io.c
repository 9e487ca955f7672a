/* Windows and files over a communicator with a dead rank (tests/scripts/ulfm_basic.sh,
 * RAILMPI_PROC_FT=1): 4 ranks, rank 3 dies after the window and the file are open. The
 * survivors' one-sided operations and synchronizations that involve it report
 * MPIX_ERR_PROC_FAILED and return, and the window and the file can still be freed/closed
 * (the handles become null) once the survivors have synchronized among
 * themselves (a shrunk communicator's barrier: the window's own
 * synchronization fails with a dead member, and a rank that freed its
 * window would leave a peer's epoch at it unanswered). Rank 0 prints
 * "OK ulfm_rma_io". */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int rank;

int main(int argc, char **argv)
{
    int size, rc, buf[16] = {0}, x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4 && argc > 1, "run with 4 ranks and a file name");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win w;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_File f;
    rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f);
    CHECK(rc == MPI_SUCCESS, "open: %d", rc);
    MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, w);
    if (rank == 3)
        raise(SIGKILL);
    MPI_Group g;
    int n = 0;
    while (n == 0) { /* until the death is known */
        MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
        MPI_Group_size(g, &n);
        MPI_Group_free(&g);
    }
    rc = MPI_Put(&x, 1, MPI_INT, 3, 0, 1, MPI_INT, w);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "put to the dead rank: class %d", check_class(rc));
    rc = MPI_Win_fence(0, w);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "fence: class %d", check_class(rc));
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 3, 0, w);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "lock at the dead rank: class %d", check_class(rc));
    /* a live target still works */
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % 3, 0, w);
    if (rc == MPI_SUCCESS)
        rc = MPI_Put(&x, 1, MPI_INT, (rank + 1) % 3, rank, 1, MPI_INT, w);
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_unlock((rank + 1) % 3, w);
    CHECK(rc == MPI_SUCCESS, "a passive epoch at a live rank: %d", rc);
    /* every survivor's epochs are over before any frees the window: the
     * window's own synchronization fails with a dead member */
    MPI_Comm s;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
    CHECK(rc == MPI_SUCCESS && MPI_Barrier(s) == MPI_SUCCESS, "shrink + barrier: %d", rc);
    rc = MPI_Win_free(&w);
    CHECK(w == MPI_WIN_NULL, "the window was not freed (rc %d)", rc);
    /* files: independent access works, collective access fails, close returns */
    rc = MPI_File_write_at(f, rank * sizeof(int), &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "independent write: %d", rc);
    rc = MPI_File_write_at_all(f, rank * sizeof(int), &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "collective write: class %d", check_class(rc));
    rc = MPI_File_close(&f);
    CHECK(f == MPI_FILE_NULL, "the file was not closed (rc %d)", rc);
    MPI_Comm_free(&s);
    MPI_Finalize();
    if (rank == 0)
        printf("OK ulfm_rma_io\n");
    return 0;
}
