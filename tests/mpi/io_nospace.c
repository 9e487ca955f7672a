/* ranks: 1 2 */
/* A write that runs out of room answers MPI_ERR_NO_SPACE and leaves what the
 * file held before it alone. The room is a file size limit (RLIMIT_FSIZE,
 * SIGXFSZ ignored): the same short write and error a full disk gives, with
 * no file system to mount. With the argument "full" the room is instead the
 * file system of $RM_TEST_IODIR, which holds LIMIT bytes of data
 * (tests/scripts/io_tmpfs.sh mounts a tmpfs that small): a full disk, where
 * growing the size of a file without writing it still succeeds (sparse)
 * but reserving its blocks (preallocate) fails. */
static int rank, size;

#include "io_common.h"

#include <signal.h>
#include <sys/resource.h>

#define LIMIT (64 * 1024)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512];
    io_path(path, sizeof path, "full.dat");
    int full = argc > 1 && !strcmp(argv[1], "full");
    if (!full) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {LIMIT, LIMIT};
        CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit");
    }
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    enum { HEAD = 1024, BIG = 128 * 1024 };
    char *head = malloc(HEAD), *big = malloc(BIG);
    memset(head, 'a' + rank, HEAD);
    memset(big, 'z', BIG);
    MPI_File_write_at(fh, rank * HEAD, head, HEAD, MPI_CHAR, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    int err = MPI_File_write_at(fh, size * HEAD, big, BIG, MPI_CHAR, &st);
    CHECK(io_class(err) == MPI_ERR_NO_SPACE, "write past the limit: %d", err);
    err = MPI_File_write_at_all(fh, size * HEAD + rank * BIG, big, BIG, MPI_CHAR, &st);
    CHECK(io_class(err) == MPI_ERR_NO_SPACE, "collective write past the limit: %d", err);
    if (full) {
        err = MPI_File_preallocate(fh, 2 * LIMIT);
        CHECK(io_class(err) == MPI_ERR_NO_SPACE, "preallocate past the room: %d", err);
    } else {
        MPI_File_preallocate(fh, 0);
        err = MPI_File_set_size(fh, 2 * LIMIT);
        CHECK(io_class(err) == MPI_ERR_NO_SPACE, "set_size past the limit: %d", err);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    char *back = malloc(HEAD * 2);
    for (int r = 0; r < size; r++) {
        MPI_File_read_at(fh, r * HEAD, back, HEAD, MPI_CHAR, &st);
        for (int i = 0; i < HEAD; i++)
            CHECK(back[i] == 'a' + r, "byte %d of block %d is %d after the failed writes", i, r, back[i]);
    }
    MPI_File_close(&fh);
    free(head);
    free(big);
    free(back);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_nospace\n");
    return 0;
}
