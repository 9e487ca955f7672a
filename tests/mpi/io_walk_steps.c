/* ranks: 1 2 */
/* The MPI-IO view walk steps by runs, not by elements (docs/io.md), counted
 * by the MPI_T counter io_view_steps: 1 MiB through the default view, and
 * through a contiguous filetype of ints, takes a handful of steps on every
 * access path (explicit offset, individual pointer, collective, split
 * collective, nonblocking, shared pointer, ordered); a subarray view takes
 * about one step per local row, never one per element. The data read back
 * is checked too. */
static int rank, size;

#include "io_common.h"

#define MIB (1 << 20)
#define ROWS 64
#define COLS 512 /* ints per local row */

static MPI_T_pvar_session ses;
static MPI_T_pvar_handle h;

static unsigned long long steps(void)
{
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(ses, h, &v) == MPI_SUCCESS, "pvar read");
    return v;
}

/* Steps one call costs at most through a contiguous view. */
#define FEW 4

#define COUNT_STEPS(what, limit, call)                                             \
    do {                                                                           \
        unsigned long long s0_ = steps();                                          \
        call;                                                                      \
        unsigned long long d_ = steps() - s0_;                                     \
        CHECK(d_ <= (unsigned long long)(limit), "%s: %llu view walk steps, want at most %llu", \
              (what), d_, (unsigned long long)(limit));                            \
        CHECK(d_ >= 1, "%s: the view walk was not counted", (what));                \
    } while (0)

static void fill(unsigned char *b, int seed)
{
    for (int i = 0; i < MIB; i++)
        b[i] = (unsigned char)(i * 7 + seed);
}

static void expect(const unsigned char *b, int seed, const char *what)
{
    for (int i = 0; i < MIB; i++)
        CHECK(b[i] == (unsigned char)(i * 7 + seed), "%s: byte %d is %d", what, i, b[i]);
}

static void contiguous(const char *path, MPI_Datatype etype, MPI_Datatype ftype, int unit)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    unsigned char *w = malloc(MIB), *r = malloc(MIB);
    int n = MIB / unit; /* etypes in 1 MiB */
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    if (ftype != MPI_DATATYPE_NULL)
        CHECK(MPI_File_set_view(fh, 0, etype, ftype, "native", MPI_INFO_NULL) == MPI_SUCCESS, "set_view");
    MPI_Datatype mt = unit == 1 ? MPI_BYTE : MPI_INT;
    MPI_Offset mine = (MPI_Offset)rank * n;
    fill(w, rank);
    COUNT_STEPS("write_at", FEW, MPI_File_write_at(fh, mine, w, n, mt, &st));
    COUNT_STEPS("read_at", FEW, MPI_File_read_at(fh, mine, r, n, mt, &st));
    expect(r, rank, "read_at");
    fill(w, rank + 1);
    COUNT_STEPS("write_at_all", FEW, MPI_File_write_at_all(fh, mine, w, n, mt, &st));
    memset(r, 0, MIB);
    COUNT_STEPS("read_at_all", FEW, MPI_File_read_at_all(fh, mine, r, n, mt, &st));
    expect(r, rank + 1, "read_at_all");
    fill(w, rank + 2);
    COUNT_STEPS("write_at_all_begin", FEW, (MPI_File_write_at_all_begin(fh, mine, w, n, mt),
                                            MPI_File_write_at_all_end(fh, w, &st)));
    memset(r, 0, MIB);
    COUNT_STEPS("read_at_all_begin", FEW, (MPI_File_read_at_all_begin(fh, mine, r, n, mt),
                                           MPI_File_read_at_all_end(fh, r, &st)));
    expect(r, rank + 2, "read_at_all_begin");
    fill(w, rank + 3);
    COUNT_STEPS("iwrite_at", FEW, (MPI_File_iwrite_at(fh, mine, w, n, mt, &rq), MPI_Wait(&rq, &st)));
    memset(r, 0, MIB);
    COUNT_STEPS("iread_at", FEW, (MPI_File_iread_at(fh, mine, r, n, mt, &rq), MPI_Wait(&rq, &st)));
    expect(r, rank + 3, "iread_at");
    MPI_File_seek(fh, mine, MPI_SEEK_SET);
    fill(w, rank + 4);
    COUNT_STEPS("write", FEW, MPI_File_write(fh, w, n, mt, &st));
    MPI_File_seek(fh, mine, MPI_SEEK_SET);
    memset(r, 0, MIB);
    COUNT_STEPS("read", FEW, MPI_File_read(fh, r, n, mt, &st));
    expect(r, rank + 4, "read");
    fill(w, rank + 5);
    COUNT_STEPS("write_ordered", FEW, MPI_File_write_ordered(fh, w, n, mt, &st));
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    memset(r, 0, MIB);
    COUNT_STEPS("read_ordered", FEW, MPI_File_read_ordered(fh, r, n, mt, &st));
    expect(r, rank + 5, "read_ordered");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    fill(w, 9);
    COUNT_STEPS("write_shared", FEW, MPI_File_write_shared(fh, w, n, mt, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    memset(r, 0, MIB);
    COUNT_STEPS("read_shared", FEW, MPI_File_read_shared(fh, r, n, mt, &st));
    expect(r, 9, "read_shared");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    free(w);
    free(r);
}

/* A ROWS x (COLS * size) array of ints, columns split over the processes. */
static void subarray(const char *path)
{
    int gs[2] = {ROWS, COLS * size}, ls[2] = {ROWS, COLS}, at[2] = {0, COLS * rank};
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gs, ls, at, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_Status st;
    int n = ROWS * COLS, *w = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        w[i] = (i / COLS) * gs[1] + COLS * rank + i % COLS;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS, "set_view");
    /* one run per local row (on one process the rows meet: fewer) */
    COUNT_STEPS("subarray write_at", ROWS + 2, MPI_File_write_at(fh, 0, w, n, MPI_INT, &st));
    COUNT_STEPS("subarray read_at", ROWS + 2, MPI_File_read_at(fh, 0, r, n, MPI_INT, &st));
    CHECK(!memcmp(w, r, sizeof(int) * (size_t)n), "subarray read_at: wrong data");
    /* the collective walks the view once to plan and once more when each
     * process ends up moving its own pieces */
    COUNT_STEPS("subarray write_at_all", 2 * ROWS + 4, MPI_File_write_at_all(fh, 0, w, n, MPI_INT, &st));
    memset(r, 0, sizeof(int) * (size_t)n);
    COUNT_STEPS("subarray read_at_all", 2 * ROWS + 4, MPI_File_read_at_all(fh, 0, r, n, MPI_INT, &st));
    CHECK(!memcmp(w, r, sizeof(int) * (size_t)n), "subarray read_at_all: wrong data");
    /* half a row from the middle of row 3: one step */
    COUNT_STEPS("subarray half row", 1, MPI_File_read_at(fh, 3 * COLS + COLS / 4, r, COLS / 2, MPI_INT, &st));
    CHECK(r[0] == w[3 * COLS + COLS / 4], "half row: wrong data");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Type_free(&ft);
    free(w);
    free(r);
}

int main(int argc, char **argv)
{
    int provided, idx, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_get_index("io_view_steps", MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS,
          "no counter io_view_steps");
    CHECK(MPI_T_pvar_session_create(&ses) == MPI_SUCCESS, "session");
    CHECK(MPI_T_pvar_handle_alloc(ses, idx, NULL, &h, &count) == MPI_SUCCESS && count == 1,
          "handle (count %d)", count);
    io_dir_make();
    char path[300];
    io_path(path, sizeof path, "bytes");
    contiguous(path, MPI_BYTE, MPI_DATATYPE_NULL, 1); /* the default view */
    MPI_Datatype ct;
    MPI_Type_contiguous(256, MPI_INT, &ct);
    MPI_Type_commit(&ct);
    io_path(path, sizeof path, "ints");
    contiguous(path, MPI_INT, ct, 4);
    MPI_Type_free(&ct);
    io_path(path, sizeof path, "subarray");
    subarray(path);
    io_dir_remove();
    MPI_T_pvar_handle_free(ses, &h);
    MPI_T_pvar_session_free(&ses);
    MPI_T_finalize();
    if (rank == 0)
        printf("io_walk_steps: ok\n");
    MPI_Finalize();
    return 0;
}
