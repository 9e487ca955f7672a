/* ranks: 1 2 */
/* A small nonblocking access (outside atomic mode) is done at the call
 * (docs/io.md, "Nonblocking and split collective forms"): right after
 * MPI_File_iwrite_at of 4 KiB returns, before any other MPI call, the data
 * is in the file (read with pread on another descriptor), and right after
 * MPI_File_iread_at returns the buffer holds the file's bytes. Each is
 * tried 50 times (a worker thread loses that race nearly every time); a
 * 2 KiB write through a vector view is in the file at once too. The
 * requests still complete with the right counts; a large access (1 MiB)
 * and any access in atomic mode still go to the background, with the same
 * data at completion. */
static int rank, size;

#include "io_common.h"

#include <fcntl.h>

#define SMALL 4096
#define TRIES 50
#define LARGE (1 << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[300];
    io_path(path, sizeof path, "small");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    unsigned char *w = malloc(LARGE), *r = malloc(LARGE);
    MPI_Request rq;
    MPI_Status st;
    int n;
    for (int t = 0; t < TRIES; t++) {
        MPI_Offset at = ((MPI_Offset)t * size + rank) * SMALL;
        memset(w, t + 1 + rank, SMALL);
        CHECK(MPI_File_iwrite_at(fh, at, w, SMALL, MPI_BYTE, &rq) == MPI_SUCCESS, "iwrite_at");
        CHECK(pread(fd, r, SMALL, at) == SMALL && !memcmp(r, w, SMALL),
              "try %d: a 4 KiB iwrite_at was not in the file when the call returned", t);
        CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == SMALL, "iwrite_at count %d", n);
        memset(r, 0, SMALL);
        CHECK(MPI_File_iread_at(fh, at, r, SMALL, MPI_BYTE, &rq) == MPI_SUCCESS, "iread_at");
        CHECK(!memcmp(r, w, SMALL), "try %d: a 4 KiB iread_at had not read when the call returned", t);
        CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == SMALL, "iread_at count %d", n);
    }
    /* through a vector view (every other 1 KiB of the file from byte 1 MiB on) */
    MPI_Datatype vt;
    MPI_Type_vector(2, 1024, 2048 * size, MPI_BYTE, &vt);
    MPI_Type_commit(&vt);
    MPI_Offset vdisp = LARGE + (MPI_Offset)rank * 1024;
    CHECK(MPI_File_set_view(fh, vdisp, MPI_BYTE, vt, "native", MPI_INFO_NULL) == MPI_SUCCESS, "set_view");
    memset(w, 0x5c + rank, 2048);
    CHECK(MPI_File_iwrite_at(fh, 0, w, 2048, MPI_BYTE, &rq) == MPI_SUCCESS, "iwrite_at (vector)");
    CHECK(pread(fd, r, 1024, vdisp) == 1024 && !memcmp(r, w, 1024) &&
              pread(fd, r + 1024, 1024, vdisp + 2048 * size) == 1024 && !memcmp(r + 1024, w, 1024),
          "a 2 KiB iwrite_at through a vector view was not in the file when the call returned");
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL) == MPI_SUCCESS, "set_view");
    MPI_Type_free(&vt);
    /* large, and small in atomic mode: completed by the wait, same data */
    MPI_Offset big = 2 * LARGE + (MPI_Offset)rank * LARGE;
    for (int i = 0; i < LARGE; i++)
        w[i] = (unsigned char)(i * 13 + rank);
    CHECK(MPI_File_iwrite_at(fh, big, w, LARGE, MPI_BYTE, &rq) == MPI_SUCCESS, "large iwrite_at");
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
    memset(r, 0, LARGE);
    CHECK(MPI_File_iread_at(fh, big, r, LARGE, MPI_BYTE, &rq) == MPI_SUCCESS, "large iread_at");
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == LARGE && !memcmp(r, w, LARGE), "large iread_at: count %d or data", n);
    CHECK(MPI_File_set_atomicity(fh, 1) == MPI_SUCCESS, "set_atomicity");
    memset(w, 0x77, SMALL);
    CHECK(MPI_File_iwrite_at(fh, big, w, SMALL, MPI_BYTE, &rq) == MPI_SUCCESS, "atomic iwrite_at");
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
    memset(r, 0, SMALL);
    CHECK(MPI_File_iread_at(fh, big, r, SMALL, MPI_BYTE, &rq) == MPI_SUCCESS, "atomic iread_at");
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS, "wait");
    CHECK(!memcmp(r, w, SMALL), "atomic iread_at: wrong data");
    close(fd);
    free(w);
    free(r);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    io_dir_remove();
    if (rank == 0)
        printf("io_nonblock_small: ok\n");
    MPI_Finalize();
    return 0;
}
