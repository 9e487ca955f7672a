/* ranks: 1 2 3 4 */
/* MPI-IO data access (MPI-3.1 13.4) without a view: explicit offsets,
 * individual file pointers (seek, get_position), the shared file pointer
 * (read/write_shared, the ordered forms, seek_shared), nonblocking and split
 * collective forms with their statuses; file contents checked byte for byte;
 * error classes of bad arguments, and the file unchanged after them. */
static int rank, size;

#include "io_common.h"

#define N 100

static void check_count(MPI_Status *st, MPI_Datatype t, int want, const char *what)
{
    int n = -1;
    MPI_Get_count(st, t, &n);
    CHECK(n == want, "%s: count %d, want %d", what, n, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512];
    io_path(path, sizeof path, "d.dat");
    MPI_File fh;
    MPI_Status st;
    int buf[N], in[N], err;
    long len;

    /* explicit offsets: block r holds r * 1000 + i */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    for (int i = 0; i < N; i++)
        buf[i] = rank * 1000 + i;
    MPI_File_write_at(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, &st);
    check_count(&st, MPI_INT, N, "write_at");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int peer = (rank + 1) % size;
    MPI_File_read_at_all(fh, (MPI_Offset)peer * N * 4, in, N, MPI_INT, &st);
    check_count(&st, MPI_INT, N, "read_at_all");
    for (int i = 0; i < N; i++)
        CHECK(in[i] == peer * 1000 + i, "read_at: [%d] = %d", i, in[i]);
    if (rank == 0) {
        unsigned char *b = io_slurp(path, &len);
        CHECK(len == (long)size * N * 4, "file length %ld", len);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++) {
                int v;
                memcpy(&v, b + ((size_t)r * N + i) * 4, 4);
                CHECK(v == r * 1000 + i, "file int %d of block %d is %d", i, r, v);
            }
        free(b);
    }
    /* reading past the end: short count, not an error */
    MPI_File_read_at(fh, (MPI_Offset)size * N * 4 - 8, in, 10, MPI_INT, &st);
    check_count(&st, MPI_INT, 2, "read at the end");

    /* individual pointers: each process reads the file from its own start */
    MPI_File_seek(fh, (MPI_Offset)peer * N * 4 + 40, MPI_SEEK_SET);
    MPI_Offset pos;
    MPI_File_read(fh, in, 5, MPI_INT, &st);
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (MPI_Offset)peer * N * 4 + 60, "position after read %lld", (long long)pos);
    CHECK(in[0] == peer * 1000 + 10 && in[4] == peer * 1000 + 14, "read: %d %d", in[0], in[4]);
    MPI_File_seek(fh, -8, MPI_SEEK_CUR);
    MPI_File_read_all(fh, in, 1, MPI_INT, &st);
    CHECK(in[0] == peer * 1000 + 13, "after SEEK_CUR: %d", in[0]);
    MPI_File_seek(fh, -4, MPI_SEEK_END);
    MPI_File_read(fh, in, 1, MPI_INT, &st);
    CHECK(in[0] == (size - 1) * 1000 + N - 1, "after SEEK_END: %d", in[0]);
    err = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    CHECK(io_class(err) == MPI_ERR_ARG, "seek before the start: %d", err);
    err = MPI_File_seek(fh, 0, 12345);
    CHECK(io_class(err) == MPI_ERR_ARG, "bad whence: %d", err);

    /* bad arguments change nothing */
    err = MPI_File_write_at(fh, 0, buf, -1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_COUNT, "negative count: %d", err);
    err = MPI_File_write_at(fh, 0, buf, 1, MPI_DATATYPE_NULL, &st);
    CHECK(io_class(err) == MPI_ERR_TYPE, "null type: %d", err);
    MPI_Datatype loose;
    MPI_Type_contiguous(2, MPI_INT, &loose);
    err = MPI_File_write_at(fh, 0, buf, 1, loose, &st);
    CHECK(io_class(err) == MPI_ERR_TYPE, "uncommitted type: %d", err);
    MPI_Type_free(&loose);
    err = MPI_File_write_at(fh, -4, buf, 1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_ARG, "negative offset: %d", err);
    err = MPI_File_write_at(MPI_FILE_NULL, 0, buf, 1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_FILE, "MPI_FILE_NULL: %d", err);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *b = io_slurp(path, &len);
        int v;
        memcpy(&v, b, 4);
        CHECK(len == (long)size * N * 4 && v == 0, "bad calls changed the file");
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* nonblocking and split collective forms */
    MPI_Request rq;
    MPI_File_iread_at(fh, (MPI_Offset)peer * N * 4, in, N, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    check_count(&st, MPI_INT, N, "iread_at");
    CHECK(in[N - 1] == peer * 1000 + N - 1, "iread_at data %d", in[N - 1]);
    MPI_File_seek(fh, (MPI_Offset)peer * N * 4, MPI_SEEK_SET);
    MPI_File_iread_all(fh, in, 3, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    check_count(&st, MPI_INT, 3, "iread_all");
    MPI_File_read_all_begin(fh, in, 4, MPI_INT);
    err = MPI_File_read_all_begin(fh, in, 4, MPI_INT);
    CHECK(io_class(err) == MPI_ERR_OTHER, "second begin: %d", err);
    err = MPI_File_write_all_end(fh, in, &st);
    CHECK(io_class(err) == MPI_ERR_OTHER, "mismatched end: %d", err);
    MPI_File_read_all_end(fh, in, &st);
    check_count(&st, MPI_INT, 4, "read_all_end");
    CHECK(in[0] == peer * 1000 + 3, "split read data %d", in[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* everybody has read before anybody overwrites */
    for (int i = 0; i < N; i++)
        buf[i] = -(rank * 1000 + i);
    MPI_File_iwrite_at(fh, (MPI_Offset)rank * N * 4, buf, N / 2, MPI_INT, &rq);
    MPI_Wait(&rq, &st);
    check_count(&st, MPI_INT, N / 2, "iwrite_at");
    MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * N * 4 + N / 2 * 4, buf + N / 2, N / 2, MPI_INT);
    MPI_File_write_at_all_end(fh, buf + N / 2, &st);
    check_count(&st, MPI_INT, N / 2, "write_at_all_end");
    MPI_File_seek(fh, (MPI_Offset)rank * N * 4, MPI_SEEK_SET);
    MPI_File_iwrite(fh, buf, 1, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_iwrite_all(fh, buf + 1, 1, MPI_INT, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_write_all_begin(fh, buf + 2, 1, MPI_INT);
    MPI_File_write_all_end(fh, buf + 2, MPI_STATUS_IGNORE);
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (MPI_Offset)rank * N * 4 + 12, "position after 3 writes %lld", (long long)pos);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *b = io_slurp(path, &len);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++) {
                int v;
                memcpy(&v, b + ((size_t)r * N + i) * 4, 4);
                CHECK(v == -(r * 1000 + i), "after the nonblocking writes int %d of %d is %d", i, r, v);
            }
        free(b);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* shared pointer: every record lands once, none overwritten */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    for (int k = 0; k < 20; k++) {
        int rec[2] = {rank, k};
        if (k % 2)
            MPI_File_write_shared(fh, rec, 2, MPI_INT, &st);
        else {
            MPI_File_iwrite_shared(fh, rec, 2, MPI_INT, &rq);
            MPI_Wait(&rq, &st);
        }
        check_count(&st, MPI_INT, 2, "write_shared");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == (MPI_Offset)size * 20 * 8, "shared position %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *b = io_slurp(path, &len);
        CHECK(len == (long)size * 20 * 8, "shared file length %ld", len);
        int seen[4][20] = {{0}};
        for (long i = 0; i < len / 8; i++) {
            int rec[2];
            memcpy(rec, b + i * 8, 8);
            CHECK(rec[0] >= 0 && rec[0] < size && rec[1] >= 0 && rec[1] < 20 && !seen[rec[0]][rec[1]],
                  "record %ld is (%d, %d)", i, rec[0], rec[1]);
            seen[rec[0]][rec[1]] = 1;
        }
        free(b);
    }
    /* ordered: rank r writes r + 1 copies of r after the lower ranks' */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_set_size(fh, 0);
    for (int i = 0; i <= rank; i++)
        buf[i] = rank;
    MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &st);
    check_count(&st, MPI_INT, rank + 1, "write_ordered");
    MPI_File_write_ordered_begin(fh, buf, rank + 1, MPI_INT);
    MPI_File_write_ordered_end(fh, buf, &st);
    int total = size * (size + 1) / 2;
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 2 * total * 4, "shared position after ordered writes %lld", (long long)pos);
    err = MPI_File_seek_shared(fh, rank, MPI_SEEK_SET);
    CHECK(size == 1 || io_class(err) == MPI_ERR_NOT_SAME, "different seek_shared offsets: %d", err);
    MPI_File_seek_shared(fh, total * 4, MPI_SEEK_SET); /* bytes: the etype is MPI_BYTE */
    MPI_File_read_ordered(fh, in, rank + 1, MPI_INT, &st);
    check_count(&st, MPI_INT, rank + 1, "read_ordered");
    for (int i = 0; i <= rank; i++)
        CHECK(in[i] == rank, "read_ordered [%d] = %d", i, in[i]);
    MPI_File_seek_shared(fh, -total * 4, MPI_SEEK_END);
    MPI_File_read_ordered_begin(fh, in, rank + 1, MPI_INT);
    MPI_File_read_ordered_end(fh, in, &st);
    check_count(&st, MPI_INT, rank + 1, "read_ordered_end");
    CHECK(in[rank] == rank, "read_ordered_end data %d", in[rank]);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_read_shared(fh, in, total, MPI_INT, &st);
        for (int r = 0, k = 0; r < size; r++)
            for (int i = 0; i <= r; i++, k++)
                CHECK(in[k] == r, "ordered file int %d is %d, want %d", k, in[k], r);
        MPI_File_iread_shared(fh, in, total, MPI_INT, &rq);
        MPI_Wait(&rq, &st);
        check_count(&st, MPI_INT, total, "iread_shared");
        CHECK(in[total - 1] == size - 1, "iread_shared data");
    }
    MPI_File_close(&fh);

    /* SEQUENTIAL: the shared pointer only */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
    err = MPI_File_write_at(fh, 0, buf, 1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "write_at on SEQUENTIAL: %d", err);
    err = MPI_File_seek(fh, 0, MPI_SEEK_SET);
    CHECK(io_class(err) == MPI_ERR_UNSUPPORTED_OPERATION, "seek on SEQUENTIAL: %d", err);
    MPI_File_close(&fh);

    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_access\n");
    return 0;
}
