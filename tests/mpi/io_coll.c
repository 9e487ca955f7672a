/* ranks: 1 2 3 4 */
/* Collective buffering (two-phase I/O): interleaved subarray writes and
 * reads through aggregators, with the hints that shape it (cb_nodes,
 * cb_buffer_size down to a few bytes per round, striping_unit alignment,
 * romio_cb_read/write enable, disable, automatic). The pieces leave holes,
 * which must keep what the file held there (the aggregators read a domain
 * before writing it, also on a write-only file); reads fill the holes with
 * the file's bytes and count only data before the end of the file; bad
 * arguments on some processes end the call on all of them. */
static int rank, size;

#include "io_common.h"

#define ROWS 20
#define COLS 26
#define FILL 0xeeeeeeeeu

static const char *const configs[][8] = {
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_buffer_size", "64", "cb_nodes", "2"},
    {"romio_cb_write", "enable", "romio_cb_read", "enable", "cb_nodes", "3", "striping_unit", "40"},
    {"romio_cb_write", "automatic", "romio_cb_read", "automatic", "cb_buffer_size", "1000",
     "cb_nodes", "1"},
    {"romio_cb_write", "disable", "romio_cb_read", "disable", "cb_buffer_size", "8", "cb_nodes", "4"},
};

static MPI_Info make_info(const char *const *kv)
{
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 0; i < 8; i += 2)
        MPI_Info_set(info, kv[i], kv[i + 1]);
    return info;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512];
    io_path(path, sizeof path, "coll.dat");
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int coords[2] = {rank / dims[1], rank % dims[1]};
    int gsz[2] = {ROWS, COLS}, lsz[2], start[2], isz[2], istart[2];
    for (int d = 0; d < 2; d++) {
        int q = gsz[d] / dims[d], rem = gsz[d] % dims[d];
        lsz[d] = q + (coords[d] < rem);
        start[d] = coords[d] * q + (coords[d] < rem ? coords[d] : rem);
        /* the interior: one cell off each side, so the pieces leave holes */
        isz[d] = lsz[d] - 2;
        istart[d] = start[d] + 1;
    }
    MPI_Datatype inner, block;
    MPI_Type_create_subarray(2, gsz, isz, istart, MPI_ORDER_C, MPI_INT, &inner);
    MPI_Type_commit(&inner);
    MPI_Type_create_subarray(2, gsz, lsz, start, MPI_ORDER_C, MPI_INT, &block);
    MPI_Type_commit(&block);
    int *mine = malloc(sizeof(int) * (size_t)isz[0] * isz[1]);
    int *back = malloc(sizeof(int) * (size_t)lsz[0] * lsz[1]);
    MPI_File fh;
    MPI_Status st;
    int n, err;

    for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        if (rank == 0) {
            FILE *fp = fopen(path, "wb");
            unsigned fill = FILL;
            for (int i = 0; i < ROWS * COLS; i++)
                fwrite(&fill, 4, 1, fp);
            fclose(fp);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < isz[0]; i++)
            for (int j = 0; j < isz[1]; j++)
                mine[i * isz[1] + j] = (int)(c * 100000) + (istart[0] + i) * COLS + istart[1] + j;
        MPI_Info info = make_info(configs[c]);
        CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, info, &fh) == MPI_SUCCESS, "open");
        MPI_File_set_view(fh, 0, MPI_INT, inner, "native", MPI_INFO_NULL);
        err = MPI_File_write_all(fh, mine, isz[0] * isz[1], MPI_INT, &st);
        CHECK(err == MPI_SUCCESS, "config %zu: write_all %d", c, err);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == isz[0] * isz[1], "config %zu: write_all count %d", c, n);
        MPI_File_close(&fh);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            long len;
            unsigned char *b = io_slurp(path, &len);
            CHECK(len == ROWS * COLS * 4, "config %zu: length %ld", c, len);
            for (int r = 0; r < ROWS; r++)
                for (int col = 0; col < COLS; col++) {
                    int q, inside = 0;
                    for (int p = 0; p < size && !inside; p++) {
                        int pc[2] = {p / dims[1], p % dims[1]}, ps[2], pl[2];
                        for (int d = 0; d < 2; d++) {
                            int qq = gsz[d] / dims[d], rem = gsz[d] % dims[d];
                            pl[d] = qq + (pc[d] < rem);
                            ps[d] = pc[d] * qq + (pc[d] < rem ? pc[d] : rem);
                        }
                        inside = r > ps[0] && r < ps[0] + pl[0] - 1 && col > ps[1] && col < ps[1] + pl[1] - 1;
                    }
                    memcpy(&q, b + ((size_t)r * COLS + col) * 4, 4);
                    int want = inside ? (int)(c * 100000) + r * COLS + col : (int)FILL;
                    CHECK(q == want, "config %zu: cell (%d,%d) = %d, want %d", c, r, col, q, want);
                }
            free(b);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        /* read the whole block back: the holes read as the fill */
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
        MPI_Info_free(&info);
        MPI_File_set_view(fh, 0, MPI_INT, block, "native", MPI_INFO_NULL);
        memset(back, 0, sizeof(int) * (size_t)lsz[0] * lsz[1]);
        MPI_File_read_all(fh, back, lsz[0] * lsz[1], MPI_INT, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == lsz[0] * lsz[1], "config %zu: read_all count %d", c, n);
        for (int i = 0; i < lsz[0]; i++)
            for (int j = 0; j < lsz[1]; j++) {
                int in = i > 0 && i < lsz[0] - 1 && j > 0 && j < lsz[1] - 1;
                int want = in ? (int)(c * 100000) + (start[0] + i) * COLS + start[1] + j : (int)FILL;
                CHECK(back[i * lsz[1] + j] == want, "config %zu: read (%d,%d) = %d, want %d", c, i, j,
                      back[i * lsz[1] + j], want);
            }
        /* past the end: only what is there counts */
        MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
        int tail[8];
        MPI_File_read_at_all(fh, ROWS * COLS - 3 + rank, tail, 8, MPI_INT, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        CHECK(n == (3 - rank > 0 ? 3 - rank : 0), "config %zu: read past the end: %d", c, n);
        MPI_File_close(&fh);
    }

    /* contiguous blocks with cb forced on: full domains, no read first */
    MPI_Info info = make_info(configs[0]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    MPI_File_set_size(fh, 0);
    int v[10];
    for (int i = 0; i < 10; i++)
        v[i] = rank * 10 + i;
    MPI_File_write_at_all(fh, rank * 40, v, 10, MPI_INT, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int peer = (rank + 1) % size, w[10];
    MPI_File_read_at_all(fh, peer * 40, w, 10, MPI_INT, &st);
    for (int i = 0; i < 10; i++)
        CHECK(w[i] == peer * 10 + i, "contiguous blocks: [%d] = %d", i, w[i]);
    /* bad arguments somewhere: everybody returns, nobody waits */
    err = MPI_File_write_at_all(fh, 0, v, rank == size - 1 ? -1 : 1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_COUNT, "a bad count on one process: %d", err);
    err = MPI_File_read_all(fh, w, 1, rank == 0 ? MPI_DATATYPE_NULL : MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_TYPE, "a null type on one process: %d", err);
    MPI_Offset at;
    MPI_File_get_position(fh, &at);
    CHECK(at == 0, "a failed read_all moved the pointer to %lld", (long long)at);
    err = MPI_File_write_ordered(fh, v, rank == size - 1 ? -1 : 1, MPI_INT, &st);
    CHECK(io_class(err) == MPI_ERR_COUNT, "write_ordered, a bad count on one process: %d", err);
    MPI_File_get_position_shared(fh, &at);
    CHECK(at == 0, "a failed write_ordered moved the shared pointer to %lld", (long long)at);
    MPI_File_close(&fh);

    MPI_Type_free(&inner);
    MPI_Type_free(&block);
    free(mine);
    free(back);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_coll\n");
    return 0;
}
