/* ranks: 1 2 */
/* The large-count (_c) MPI-IO functions of MPI-4.1: every data access
 * routine's _c form (explicit offsets, individual and shared pointers,
 * blocking, nonblocking and split collective) writes a pattern that is read
 * back with another _c form and checked; MPI_File_get_type_extent_c; a data
 * representation registered with MPI_Register_datarep_c whose conversion
 * functions receive MPI_Count counts (checked in the file's bytes); the
 * error classes of bad arguments. */
static int rank, size;

#include "io_common.h"

#include <stdint.h>

#define K 16 /* ints per access */

static int tag_of(int v) { return v / 1000000; }
static int rank_of(int v) { return v / 1000 % 1000; }

static void fill(int *b, int tag)
{
    for (int i = 0; i < K; i++)
        b[i] = tag * 1000000 + rank * 1000 + i;
}

static void expect(const int *b, int tag, int from, const char *what)
{
    for (int i = 0; i < K; i++)
        CHECK(b[i] == tag * 1000000 + from * 1000 + i, "%s: int %d is %d, not %d", what, i, b[i],
              tag * 1000000 + from * 1000 + i);
}

static void expect_count(MPI_Status *st, int n, const char *what)
{
    int got;
    MPI_Get_count(st, MPI_INT, &got);
    CHECK(got == n, "%s: status count %d, not %d", what, got, n);
}

/* this rank's slot s: K ints, in bytes */
static MPI_Offset slot(int s)
{
    return ((MPI_Offset)s * size + rank) * K * (MPI_Offset)sizeof(int);
}

/* region s of the shared-pointer accesses: size blocks of K ints */
static MPI_Offset region(int s)
{
    return ((MPI_Offset)s * size) * K * (MPI_Offset)sizeof(int);
}

static void explicit_and_individual(MPI_File fh)
{
    int w[K], r[K];
    MPI_Status st;
    MPI_Request rq;

    fill(w, 1);
    CHECK(MPI_File_write_at_c(fh, slot(1), w, K, MPI_INT, &st) == MPI_SUCCESS, "write_at_c");
    expect_count(&st, K, "write_at_c");
    CHECK(MPI_File_read_at_c(fh, slot(1), r, K, MPI_INT, &st) == MPI_SUCCESS, "read_at_c");
    expect_count(&st, K, "read_at_c");
    expect(r, 1, rank, "read_at_c");

    fill(w, 2);
    CHECK(MPI_File_write_at_all_c(fh, slot(2), w, K, MPI_INT, &st) == MPI_SUCCESS,
          "write_at_all_c");
    expect_count(&st, K, "write_at_all_c");
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_at_all_c(fh, slot(2), r, K, MPI_INT, &st) == MPI_SUCCESS, "read_at_all_c");
    expect(r, 2, rank, "read_at_all_c");

    fill(w, 3);
    CHECK(MPI_File_iwrite_at_c(fh, slot(3), w, K, MPI_INT, &rq) == MPI_SUCCESS, "iwrite_at_c");
    MPI_Wait(&rq, &st);
    expect_count(&st, K, "iwrite_at_c");
    memset(r, 0, sizeof r);
    CHECK(MPI_File_iread_at_c(fh, slot(3), r, K, MPI_INT, &rq) == MPI_SUCCESS, "iread_at_c");
    MPI_Wait(&rq, &st);
    expect(r, 3, rank, "iread_at_c");

    fill(w, 4);
    CHECK(MPI_File_iwrite_at_all_c(fh, slot(4), w, K, MPI_INT, &rq) == MPI_SUCCESS,
          "iwrite_at_all_c");
    MPI_Wait(&rq, &st);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_iread_at_all_c(fh, slot(4), r, K, MPI_INT, &rq) == MPI_SUCCESS,
          "iread_at_all_c");
    MPI_Wait(&rq, &st);
    expect_count(&st, K, "iread_at_all_c");
    expect(r, 4, rank, "iread_at_all_c");

    fill(w, 5);
    CHECK(MPI_File_write_at_all_begin_c(fh, slot(5), w, K, MPI_INT) == MPI_SUCCESS,
          "write_at_all_begin_c");
    MPI_File_write_at_all_end(fh, w, &st);
    expect_count(&st, K, "write_at_all_begin_c");
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_at_all_begin_c(fh, slot(5), r, K, MPI_INT) == MPI_SUCCESS,
          "read_at_all_begin_c");
    MPI_File_read_at_all_end(fh, r, &st);
    expect(r, 5, rank, "read_at_all_begin_c");

    /* the individual pointer: each access moves it by K ints */
    MPI_Offset pos;
    fill(w, 6);
    MPI_File_seek(fh, slot(6), MPI_SEEK_SET);
    CHECK(MPI_File_write_c(fh, w, K, MPI_INT, &st) == MPI_SUCCESS, "write_c");
    MPI_File_get_position(fh, &pos);
    CHECK(pos == slot(6) + K * (MPI_Offset)sizeof(int), "write_c moved the pointer to %lld",
          (long long)pos);
    MPI_File_seek(fh, slot(6), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_c(fh, r, K, MPI_INT, &st) == MPI_SUCCESS, "read_c");
    expect(r, 6, rank, "read_c");

    fill(w, 7);
    MPI_File_seek(fh, slot(7), MPI_SEEK_SET);
    CHECK(MPI_File_write_all_c(fh, w, K, MPI_INT, &st) == MPI_SUCCESS, "write_all_c");
    MPI_File_seek(fh, slot(7), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_all_c(fh, r, K, MPI_INT, &st) == MPI_SUCCESS, "read_all_c");
    expect(r, 7, rank, "read_all_c");

    fill(w, 8);
    MPI_File_seek(fh, slot(8), MPI_SEEK_SET);
    CHECK(MPI_File_iwrite_c(fh, w, K, MPI_INT, &rq) == MPI_SUCCESS, "iwrite_c");
    MPI_Wait(&rq, &st);
    MPI_File_seek(fh, slot(8), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_iread_c(fh, r, K, MPI_INT, &rq) == MPI_SUCCESS, "iread_c");
    MPI_Wait(&rq, &st);
    expect(r, 8, rank, "iread_c");

    fill(w, 9);
    MPI_File_seek(fh, slot(9), MPI_SEEK_SET);
    CHECK(MPI_File_iwrite_all_c(fh, w, K, MPI_INT, &rq) == MPI_SUCCESS, "iwrite_all_c");
    MPI_Wait(&rq, &st);
    MPI_File_seek(fh, slot(9), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_iread_all_c(fh, r, K, MPI_INT, &rq) == MPI_SUCCESS, "iread_all_c");
    MPI_Wait(&rq, &st);
    expect(r, 9, rank, "iread_all_c");

    fill(w, 10);
    MPI_File_seek(fh, slot(10), MPI_SEEK_SET);
    CHECK(MPI_File_write_all_begin_c(fh, w, K, MPI_INT) == MPI_SUCCESS, "write_all_begin_c");
    MPI_File_write_all_end(fh, w, &st);
    MPI_File_seek(fh, slot(10), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_all_begin_c(fh, r, K, MPI_INT) == MPI_SUCCESS, "read_all_begin_c");
    MPI_File_read_all_end(fh, r, &st);
    expect_count(&st, K, "read_all_begin_c");
    expect(r, 10, rank, "read_all_begin_c");
}

/* After every rank wrote one block of tag through the shared pointer at
 * region s: each block is one rank's, each rank's once. */
static void check_region(MPI_File fh, int s, int tag, const char *what)
{
    int all[64 * K];
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_File_read_at_c(fh, region(s), all, (MPI_Count)size * K, MPI_INT, &st) ==
              MPI_SUCCESS,
          "%s: read_at_c of the region", what);
    int seen[64] = {0};
    for (int b = 0; b < size; b++) {
        int *blk = all + b * K;
        for (int i = 0; i < K; i++)
            CHECK(tag_of(blk[i]) == tag && blk[i] % 1000 == i, "%s: block %d int %d is %d", what,
                  b, i, blk[i]);
        seen[rank_of(blk[0])]++;
    }
    for (int q = 0; q < size; q++)
        CHECK(seen[q] == 1, "%s: rank %d's block is there %d times", what, q, seen[q]);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void shared_pointer(MPI_File fh, int base)
{
    int w[K], r[K];
    MPI_Status st;
    MPI_Request rq;

    /* ordered: rank order */
    fill(w, 21);
    MPI_File_seek_shared(fh, region(base), MPI_SEEK_SET);
    CHECK(MPI_File_write_ordered_c(fh, w, K, MPI_INT, &st) == MPI_SUCCESS, "write_ordered_c");
    MPI_File_seek_shared(fh, region(base), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_ordered_c(fh, r, K, MPI_INT, &st) == MPI_SUCCESS, "read_ordered_c");
    expect(r, 21, rank, "read_ordered_c");
    CHECK(MPI_File_read_at_c(fh, region(base) + rank * K * (MPI_Offset)sizeof(int), r, K, MPI_INT,
                             &st) == MPI_SUCCESS,
          "read_at_c");
    expect(r, 21, rank, "write_ordered_c in rank order");

    fill(w, 22);
    MPI_File_seek_shared(fh, region(base + 1), MPI_SEEK_SET);
    CHECK(MPI_File_write_ordered_begin_c(fh, w, K, MPI_INT) == MPI_SUCCESS,
          "write_ordered_begin_c");
    MPI_File_write_ordered_end(fh, w, &st);
    MPI_File_seek_shared(fh, region(base + 1), MPI_SEEK_SET);
    memset(r, 0, sizeof r);
    CHECK(MPI_File_read_ordered_begin_c(fh, r, K, MPI_INT) == MPI_SUCCESS,
          "read_ordered_begin_c");
    MPI_File_read_ordered_end(fh, r, &st);
    expect_count(&st, K, "read_ordered_begin_c");
    expect(r, 22, rank, "read_ordered_begin_c");

    /* unordered: one block per rank, in some order */
    fill(w, 23);
    MPI_File_seek_shared(fh, region(base + 2), MPI_SEEK_SET);
    CHECK(MPI_File_write_shared_c(fh, w, K, MPI_INT, &st) == MPI_SUCCESS, "write_shared_c");
    check_region(fh, base + 2, 23, "write_shared_c");
    MPI_File_seek_shared(fh, region(base + 2), MPI_SEEK_SET);
    CHECK(MPI_File_read_shared_c(fh, r, K, MPI_INT, &st) == MPI_SUCCESS, "read_shared_c");
    expect_count(&st, K, "read_shared_c");
    CHECK(tag_of(r[0]) == 23 && rank_of(r[0]) < size, "read_shared_c read %d", r[0]);
    expect(r, 23, rank_of(r[0]), "read_shared_c");

    fill(w, 24);
    MPI_File_seek_shared(fh, region(base + 3), MPI_SEEK_SET);
    CHECK(MPI_File_iwrite_shared_c(fh, w, K, MPI_INT, &rq) == MPI_SUCCESS, "iwrite_shared_c");
    MPI_Wait(&rq, &st);
    check_region(fh, base + 3, 24, "iwrite_shared_c");
    MPI_File_seek_shared(fh, region(base + 3), MPI_SEEK_SET);
    CHECK(MPI_File_iread_shared_c(fh, r, K, MPI_INT, &rq) == MPI_SUCCESS, "iread_shared_c");
    MPI_Wait(&rq, &st);
    CHECK(tag_of(r[0]) == 24 && rank_of(r[0]) < size, "iread_shared_c read %d", r[0]);
    expect(r, 24, rank_of(r[0]), "iread_shared_c");
}

static void bad_arguments(MPI_File fh)
{
    int w[K];
    MPI_Status st;
    MPI_Request rq;
    MPI_Count ext;
    fill(w, 0);
    CHECK(io_class(MPI_File_write_at_c(fh, 0, w, -1, MPI_INT, &st)) == MPI_ERR_COUNT,
          "write_at_c of -1");
    CHECK(io_class(MPI_File_read_c(fh, w, 1, MPI_DATATYPE_NULL, &st)) == MPI_ERR_TYPE,
          "read_c without a type");
    CHECK(io_class(MPI_File_iwrite_c(fh, w, 1, MPI_INT, NULL)) == MPI_ERR_ARG,
          "iwrite_c without a request");
    CHECK(io_class(MPI_File_iread_at_c(fh, -4, w, 1, MPI_INT, &rq)) == MPI_ERR_ARG,
          "iread_at_c at -4");
    CHECK(io_class(MPI_File_write_shared_c(MPI_FILE_NULL, w, 1, MPI_INT, &st)) == MPI_ERR_FILE,
          "write_shared_c on MPI_FILE_NULL");
    CHECK(io_class(MPI_File_get_type_extent_c(fh, MPI_INT, NULL)) == MPI_ERR_ARG,
          "get_type_extent_c without extent");
    CHECK(io_class(MPI_File_get_type_extent_c(fh, MPI_DATATYPE_NULL, &ext)) == MPI_ERR_TYPE,
          "get_type_extent_c without a type");
    /* a count of 2^32 + 1 chars is not cut to 1: the NULL buffer is refused */
    CHECK(io_class(MPI_File_write_at_c(fh, 0, NULL, ((MPI_Count)1 << 32) + 1, MPI_CHAR, &st)) ==
              MPI_ERR_BUFFER,
          "write_at_c of 2^32 + 1 from NULL");
}

/* ---- a data representation with large-count conversion functions -------- */

static MPI_Count conv_calls, conv_last_count, extent_calls;

static void swap_ints(int *to, const int *from, MPI_Count n)
{
    for (MPI_Count i = 0; i < n; i++)
        to[i] = (int)__builtin_bswap32((uint32_t)from[i]);
}

static int conv_read(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    CHECK(dt == MPI_INT && extra == &conv_calls, "read conversion of type 0x%x", (unsigned)dt);
    conv_calls++;
    conv_last_count = count;
    swap_ints((int *)userbuf + position, filebuf, count);
    return MPI_SUCCESS;
}

static int conv_write(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    CHECK(dt == MPI_INT && extra == &conv_calls, "write conversion of type 0x%x", (unsigned)dt);
    conv_calls++;
    conv_last_count = count;
    swap_ints(filebuf, (const int *)userbuf + position, count);
    return MPI_SUCCESS;
}

static int conv_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    extent_calls++;
    MPI_Count sz;
    MPI_Type_size_x(dt, &sz);
    *extent = (MPI_Aint)sz;
    return MPI_SUCCESS;
}

static void datarep(const char *path)
{
    CHECK(MPI_Register_datarep_c("lc_swapped", conv_read, conv_write, conv_extent, &conv_calls) ==
              MPI_SUCCESS,
          "MPI_Register_datarep_c");
    CHECK(io_class(MPI_Register_datarep_c("lc_swapped", conv_read, conv_write, conv_extent,
                                          NULL)) == MPI_ERR_DUP_DATAREP,
          "registering lc_swapped twice");
    CHECK(io_class(MPI_Register_datarep_c("lc_other", conv_read, conv_write, NULL, NULL)) ==
              MPI_ERR_ARG,
          "registering without an extent function");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "lc_swapped", MPI_INFO_NULL) == MPI_SUCCESS,
          "set_view lc_swapped");
    MPI_Count ext = 0;
    MPI_Count calls = extent_calls;
    CHECK(MPI_File_get_type_extent_c(fh, MPI_INT, &ext) == MPI_SUCCESS && ext == 4 &&
              extent_calls > calls,
          "get_type_extent_c under lc_swapped: %lld", (long long)ext);
    int w[K], r[K];
    fill(w, 31);
    MPI_Status st;
    conv_calls = 0;
    CHECK(MPI_File_write_at_c(fh, (MPI_Offset)rank * K, w, K, MPI_INT, &st) == MPI_SUCCESS,
          "write_at_c through lc_swapped");
    CHECK(conv_calls == 1 && conv_last_count == K, "write conversion: %lld calls, count %lld",
          (long long)conv_calls, (long long)conv_last_count);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    /* the file holds the swapped bytes */
    long len;
    unsigned char *raw = io_slurp(path, &len);
    CHECK(len >= (long)((rank + 1) * K * sizeof(int)), "file of %ld bytes", len);
    for (int i = 0; i < K; i++) {
        int v;
        memcpy(&v, raw + (rank * K + i) * sizeof(int), sizeof v);
        CHECK(v == (int)__builtin_bswap32((uint32_t)w[i]), "file int %d is 0x%x", i, (unsigned)v);
    }
    free(raw);
    memset(r, 0, sizeof r);
    conv_calls = 0;
    CHECK(MPI_File_read_at_c(fh, (MPI_Offset)rank * K, r, K, MPI_INT, &st) == MPI_SUCCESS,
          "read_at_c through lc_swapped");
    CHECK(conv_calls == 1 && conv_last_count == K, "read conversion: %lld calls, count %lld",
          (long long)conv_calls, (long long)conv_last_count);
    expect(r, 31, rank, "read_at_c through lc_swapped");
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    io_dir_make();
    char path[300];
    io_path(path, sizeof path, "lc");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    MPI_Count ext;
    CHECK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &ext) == MPI_SUCCESS && ext == 8,
          "get_type_extent_c of MPI_DOUBLE: %lld", (long long)ext);
    explicit_and_individual(fh);
    shared_pointer(fh, 11);
    bad_arguments(fh);
    MPI_File_close(&fh);
    io_path(path, sizeof path, "lc_swapped");
    datarep(path);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("large_count_io: OK\n");
    return 0;
}
