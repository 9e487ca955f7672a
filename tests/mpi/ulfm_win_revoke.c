/* ranks: 2 4 */
/* Windows and files go with the communicator they were created on (ULFM;
 * no failure, no RAILMPI_PROC_FT needed): a revoke of it reaches a rank
 * waiting for a lock, ranks blocked in a fence and in a collective file
 * write (4 ranks), all of which return MPIX_ERR_REVOKED; afterwards every
 * operation and synchronisation on those windows fails the same way at every
 * rank, the windows (an epoch still open at one of them) are freed and the
 * file is closed without waiting for anyone, and a window created on
 * MPI_COMM_WORLD goes on working. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

#define REVOKED(rc, what) CHECK(check_class(rc) == MPIX_ERR_REVOKED, "%s: class %d", (what), check_class(rc))

int main(int argc, char **argv)
{
    int size, rc, one = 1, buf[8] = {0}, *abuf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Win w, wa, ww;
    CHECK(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, d, &w) == MPI_SUCCESS, "create");
    CHECK(MPI_Win_allocate(sizeof buf, sizeof(int), MPI_INFO_NULL, d, &abuf, &wa) == MPI_SUCCESS, "allocate");
    int wbuf[8] = {0};
    CHECK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &ww) == MPI_SUCCESS,
          "create on MPI_COMM_WORLD");
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(wa, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(ww, MPI_ERRORS_RETURN);
    char path[64] = "";
    if (rank == 0)
        snprintf(path, sizeof path, "/tmp/railmpi_ulfm_win_revoke.%d", (int)getpid());
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_File f;
    rc = MPI_File_open(d, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &f);
    CHECK(rc == MPI_SUCCESS, "open %s: %d", path, rc);
    MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        /* holds rank 0's lock, so that rank 1's request waits */
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w) == MPI_SUCCESS, "lock");
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(150000); /* the others are blocked by now */
        CHECK(MPIX_Comm_revoke(d) == MPI_SUCCESS, "revoke");
        rc = MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, w);
        REVOKED(rc, "put inside the lock epoch");
        rc = MPI_Win_unlock(0, w);
        REVOKED(rc, "unlock");
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
            REVOKED(rc, "lock waiting for its grant");
        } else if (rank == 2) {
            rc = MPI_Win_fence(0, wa); /* ranks 0, 1 and 3 never enter it */
            REVOKED(rc, "blocked fence");
        } else {
            rc = MPI_File_write_at_all(f, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
            REVOKED(rc, "blocked collective write");
        }
    }
    /* every rank, whether it was blocked or not */
    rc = MPI_Win_fence(0, w);
    REVOKED(rc, "fence");
    rc = MPI_Win_lock_all(0, wa);
    REVOKED(rc, "lock_all");
    rc = MPI_Win_lock(MPI_LOCK_SHARED, size - 1, 0, wa);
    REVOKED(rc, "lock");
    rc = MPI_Get(&one, 1, MPI_INT, size - 1, 0, 1, MPI_INT, wa);
    REVOKED(rc, "get");
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    rc = MPI_Win_post(g, 0, w);
    REVOKED(rc, "post");
    rc = MPI_Win_start(g, 0, w);
    REVOKED(rc, "start");
    MPI_Group_free(&g);
    rc = MPI_File_write_at_all(f, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE);
    REVOKED(rc, "collective write");
    rc = MPI_File_set_size(f, 0);
    REVOKED(rc, "set_size");

    /* freed and closed, each rank alone (rank 0's lock epoch included) */
    CHECK(MPI_Win_free(&w) == MPI_SUCCESS && w == MPI_WIN_NULL, "free of a revoked window");
    CHECK(MPI_Win_free(&wa) == MPI_SUCCESS && wa == MPI_WIN_NULL, "free of a revoked allocated window");
    CHECK(MPI_File_close(&f) == MPI_SUCCESS && f == MPI_FILE_NULL, "close of a revoked file");

    /* a window on MPI_COMM_WORLD was not revoked */
    int v = rank + 1;
    CHECK(MPI_Win_fence(0, ww) == MPI_SUCCESS, "fence on the live window");
    CHECK(MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, ww) == MPI_SUCCESS, "put on the live window");
    CHECK(MPI_Win_fence(0, ww) == MPI_SUCCESS, "fence on the live window");
    CHECK(wbuf[0] == (rank + size - 1) % size + 1, "live window holds %d", wbuf[0]);
    CHECK(MPI_Win_free(&ww) == MPI_SUCCESS, "free of the live window");
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS, "comm free");
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_COMM_WORLD stopped working");
    if (rank == 0)
        printf("OK ulfm_win_revoke\n");
    MPI_Finalize();
    return 0;
}
