/* ranks: 2 4 */
/* The shared file pointer of processes on one host lives in a mapped word
 * moved by compare-and-swap (docs/io.md, "Shared file pointer"):
 * - 2000 write_shared calls per process, all at once, each of one record
 *   (rank, index): every record lands exactly once and the file holds
 *   nothing else (no two calls got the same place);
 * - while an outside process holds an fcntl write lock over the pointer's
 *   file, write_shared, read_shared and seek_shared still complete (no
 *   lock is taken); once it lets go the pointer is where they left it.
 * Across virtual hosts (RAILMPI_HOST_ID) the locked file is used: only the
 * first part runs there. */
static int rank, size;

#include "io_common.h"


#define RECS 2000

/* The pointer's file: the one entry of the directory with ".shfp." in it. */
static void shfp_name(char *out, size_t n)
{
    DIR *d = opendir(io_dir);
    struct dirent *e;
    out[0] = 0;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".shfp."))
            snprintf(out, n, "%s/%s", io_dir, e->d_name);
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[300];
    io_path(path, sizeof path, "records");
    MPI_File fh;
    MPI_Status st;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    for (int i = 0; i < RECS; i++) {
        int rec[2] = {rank, i};
        CHECK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st) == MPI_SUCCESS, "write_shared %d", i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long len;
        int *all = (int *)io_slurp(path, &len);
        CHECK(len == (long)size * RECS * 8, "file length %ld, want %ld", len, (long)size * RECS * 8);
        char *seen = calloc((size_t)size * RECS, 1);
        for (long k = 0; k < len / 8; k++) {
            int r = all[2 * k], i = all[2 * k + 1];
            CHECK(r >= 0 && r < size && i >= 0 && i < RECS, "record %ld is (%d, %d)", k, r, i);
            CHECK(!seen[r * RECS + i], "record (%d, %d) twice", r, i);
            seen[r * RECS + i] = 1;
        }
        free(seen);
        free(all);
    }

    MPI_Comm local;
    int nlocal;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &nlocal);
    MPI_Comm_free(&local);
    const char *hid = getenv("RAILMPI_HOST_ID");
    int one_host = nlocal == size && !(hid && *hid);
    int oh = one_host, all_one = 0;
    MPI_Allreduce(&oh, &all_one, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_one) {
        io_holder_t h = {-1, -1};
        if (rank == 0) {
            char sp[600];
            shfp_name(sp, sizeof sp);
            CHECK(sp[0], "no shared pointer file in %s", io_dir);
            h = io_holder_start(sp, 0, 0);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        int rec[2] = {rank, -1}, in[2];
        CHECK(MPI_File_write_shared(fh, rec, 2, MPI_INT, &st) == MPI_SUCCESS, "write_shared under the lock");
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET) == MPI_SUCCESS, "seek_shared under the lock");
        CHECK(MPI_File_read_shared(fh, in, 2, MPI_INT, &st) == MPI_SUCCESS, "read_shared under the lock");
        CHECK(in[1] >= 0 && in[1] < RECS, "read_shared got (%d, %d)", in[0], in[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(io_holder_end(&h), "shared pointer calls waited for a lock on the pointer's file");
        MPI_Offset pos;
        MPI_File_get_position_shared(fh, &pos);
        CHECK(pos == (MPI_Offset)size * 8, "shared position %lld, want %lld", (long long)pos,
              (long long)size * 8);
    }
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    io_dir_remove();
    if (rank == 0)
        printf("io_shfp_local: ok\n");
    MPI_Finalize();
    return 0;
}
