/* ranks: 2 4 */
/* On one host, the processes of a collective write that is not aggregated
 * write their own pieces one process at a time, each holding the fcntl
 * lock on byte 2^62 of the file while it writes (docs/io.md, "Collective
 * buffering"). An outside process holding that lock for a while must hold
 * every write back: it sees the file still empty, then, once it lets go,
 * everybody's pieces land and read back whole. A process whose access is
 * one piece takes no turn (one system call): with the lock held outside,
 * such a collective write completes. */
static int rank, size;

#include "io_common.h"

#include <time.h>

#define PIECE 256 /* bytes: large enough that one host does not aggregate */
#define PIECES 8

static int lock_turn(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = (off_t)1 << 62, .l_len = 1};
    return fcntl(fd, F_SETLKW, &fl);
}

/* Every process writes one contiguous piece with write_at_all while an
 * outside process holds the turn lock: the writes are done before it lets
 * go (held back by the lock, they would wait out its 5 s). */
static void one_piece(const char *path)
{
    io_holder_t h = {-1, -1};
    if (rank == 0)
        h = io_holder_start(path, (off_t)1 << 62, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS, "open");
    unsigned char out[PIECE * PIECES], back[PIECE * PIECES];
    memset(out, rank + 1, sizeof out);
    MPI_Offset at = (MPI_Offset)(size + rank) * (MPI_Offset)sizeof out;
    CHECK(MPI_File_write_at_all(fh, at, out, (int)sizeof out, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          "one-piece write_at_all");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(io_holder_end(&h), "one-piece collective writes waited for the turn lock");
    CHECK(MPI_File_read_at(fh, at, back, (int)sizeof back, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              !memcmp(out, back, sizeof out), "one-piece write_at_all: wrong data");
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512];
    io_path(path, sizeof path, "turns.dat");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS,
          "open");
    /* pieces interleave: piece k of rank r at (k * size + r) * PIECE */
    MPI_Datatype ft;
    MPI_Type_vector(PIECES, PIECE, PIECE * size, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, (MPI_Offset)rank * PIECE, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    unsigned char out[PIECE * PIECES], back[PIECE * PIECES];
    for (int i = 0; i < PIECE * PIECES; i++)
        out[i] = (unsigned char)(rank * 31 + i);

    /* rank 0's child takes the turn lock and keeps it 300 ms; only where
     * every rank is on one host (the suite also runs across virtual hosts,
     * where no turn is taken) */
    MPI_Comm local;
    int nlocal;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &nlocal);
    MPI_Comm_free(&local);
    int one_host = nlocal == size;
    pid_t child = -1;
    int up[2] = {-1, -1};
    if (rank == 0 && one_host) {
        CHECK(pipe(up) == 0, "pipe");
        child = fork();
        CHECK(child >= 0, "fork");
        if (child == 0) {
            int fd = open(path, O_RDWR);
            if (fd < 0 || lock_turn(fd, F_WRLCK) < 0)
                _exit(2);
            if (write(up[1], "L", 1) != 1)
                _exit(2);
            nanosleep(&(struct timespec){0, 300000000}, NULL);
            struct stat sb;
            int empty = fstat(fd, &sb) == 0 && sb.st_size == 0;
            lock_turn(fd, F_UNLCK);
            _exit(empty ? 0 : 1);
        }
        char c;
        CHECK(read(up[0], &c, 1) == 1, "the child did not take the lock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Status st;
    int n;
    CHECK(MPI_File_write_all(fh, out, PIECE * PIECES, MPI_BYTE, &st) == MPI_SUCCESS, "write_all");
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == PIECE * PIECES, "write_all count %d", n);
    if (rank == 0 && one_host) {
        int ws = 0;
        CHECK(waitpid(child, &ws, 0) == child, "waitpid");
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) != 2, "the child failed to lock the file");
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
              "a write went ahead while another process held the turn");
        close(up[0]);
        close(up[1]);
    }
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == (MPI_Offset)PIECE * PIECES * size, "size %lld", (long long)sz);
    /* read a neighbour's pieces back through its view */
    int peer = (rank + 1) % size;
    MPI_File_set_view(fh, (MPI_Offset)peer * PIECE, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    CHECK(MPI_File_read_all(fh, back, PIECE * PIECES, MPI_BYTE, &st) == MPI_SUCCESS, "read_all");
    for (int i = 0; i < PIECE * PIECES; i++)
        CHECK(back[i] == (unsigned char)(peer * 31 + i), "byte %d of rank %d's pieces", i, peer);
    MPI_File_close(&fh);
    if (one_host)
        one_piece(path);
    MPI_Type_free(&ft);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_turns\n");
    return 0;
}
