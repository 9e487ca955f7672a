/* One-sided communication and MPI-IO through the standard ABI: windows,
 * fence epochs, put/get/accumulate, locks, the window attributes whose
 * values are the ABI's constants; a file (MPI_MODE_* bits, MPI_SEEK_*,
 * statuses, MPI_FILE_NULL) in the current directory. 2 ranks. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

static void rma(void)
{
    int base[4] = {0, 0, 0, 0}, peer = 1 - std_rank;
    MPI_Win win;
    OK(MPI_Win_create(base, sizeof base, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *flavor, *model, flag;
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor %d", flag ? *flavor : -1);
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "model %d", flag ? *model : -1);
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int v = 10 + std_rank;
    OK(MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    OK(MPI_Accumulate(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, MPI_SUM, win));
    OK(MPI_Accumulate(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, MPI_SUM, win));
    OK(MPI_Win_fence(0, win));
    CHECK(base[0] == 10 + peer && base[1] == 2 * (10 + peer), "put/accumulate %d %d", base[0], base[1]);
    int g = -1;
    OK(MPI_Get(&g, 1, MPI_INT, peer, 1, 1, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    CHECK(g == 2 * (10 + std_rank), "get %d", g);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    int old = -1, one = 1;
    OK(MPI_Fetch_and_op(&one, &old, MPI_INT, peer, 2, MPI_SUM, win));
    OK(MPI_Win_unlock(peer, win));
    CHECK(old == 0 || old == 1, "fetch_and_op %d", old);
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free");
}

/* a data representation that stores each int complemented: its functions see
 * the ABI's datatype handles */
static int flip_calls;

static int flip_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    CHECK(extra == &flip_calls, "extent: extra_state");
    CHECK(dt == MPI_INT, "extent: not MPI_INT");
    *extent = sizeof(int);
    return MPI_SUCCESS;
}

/* the representation's conversion, either way: n ints complemented */
static void flip_ints(int *to, const int *from, MPI_Offset n)
{
    for (MPI_Offset i = 0; i < n; i++)
        to[i] = ~from[i];
}

static int flip_write(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos, void *extra)
{
    (void)extra;
    CHECK(dt == MPI_INT, "write conversion: not MPI_INT");
    flip_calls++;
    flip_ints(file, (int *)user + pos, count);
    return MPI_SUCCESS;
}

static int flip_read(void *user, MPI_Datatype dt, int count, void *file, MPI_Offset pos, void *extra)
{
    (void)extra;
    CHECK(dt == MPI_INT, "read conversion: not MPI_INT");
    flip_calls++;
    flip_ints((int *)user + pos, file, count);
    return MPI_SUCCESS;
}

/* three ints written through representation `rep` are stored complemented
 * and read back as they were, the conversions called */
static void flip_roundtrip(const char *rep, const int *calls)
{
    char name[64];
    snprintf(name, sizeof name, "std_rma_io.%d.%s", std_rank, rep);
    MPI_File fh;
    OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                     MPI_INFO_NULL, &fh));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL));
    int data[3] = {1, 2, 3}, raw[3], back[3];
    OK(MPI_File_write_at(fh, 0, data, 3, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    OK(MPI_File_read_at(fh, 0, raw, 3, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(raw[0] == ~1 && raw[2] == ~3, "%s: stored %d %d", rep, raw[0], raw[2]);
    OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, rep, MPI_INFO_NULL));
    OK(MPI_File_read_at(fh, 0, back, 3, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == 1 && back[2] == 3 && *calls >= 2, "%s: read back %d %d (%d calls)", rep, back[0], back[2],
          *calls);
    OK(MPI_File_close(&fh));
}

static void datarep(void)
{
    OK(MPI_Register_datarep("flip", flip_read, flip_write, flip_extent, &flip_calls));
    flip_roundtrip("flip", &flip_calls);
}

#if MPI_VERSION >= 4
/* the same with MPI_Register_datarep_c: counts are MPI_Count */
static int flipc_calls;

static int flipc_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    CHECK(extra == &flipc_calls, "extent (c): extra_state");
    return flip_extent(dt, extent, &flip_calls);
}

static int flipc_write(void *user, MPI_Datatype dt, MPI_Count count, void *file, MPI_Offset pos, void *extra)
{
    CHECK(extra == &flipc_calls && dt == MPI_INT, "write conversion (c): extra_state or datatype");
    flipc_calls++;
    flip_ints(file, (int *)user + pos, count);
    return MPI_SUCCESS;
}

static int flipc_read(void *user, MPI_Datatype dt, MPI_Count count, void *file, MPI_Offset pos, void *extra)
{
    CHECK(extra == &flipc_calls && dt == MPI_INT, "read conversion (c): extra_state or datatype");
    flipc_calls++;
    flip_ints((int *)user + pos, file, count);
    return MPI_SUCCESS;
}

static void datarep_c(void)
{
    OK(MPI_Register_datarep_c("flipc", flipc_read, flipc_write, flipc_extent, &flipc_calls));
    int rc = MPI_Register_datarep_c("flipc", flipc_read, flipc_write, flipc_extent, &flipc_calls), cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_DUP_DATAREP, "a second \"flipc\": class %d, not MPI_ERR_DUP_DATAREP", cls);
    flip_roundtrip("flipc", &flipc_calls);
}
#endif

static void io(void)
{
    MPI_File fh;
    const char *name = "std_rma_io.dat";
    OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    int amode;
    OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);
    int data[4], back[4];
    for (int i = 0; i < 4; i++)
        data[i] = 100 * std_rank + i;
    MPI_Status st;
    OK(MPI_File_write_at(fh, (MPI_Offset)(std_rank * sizeof data), data, 4, MPI_INT, &st));
    int n;
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4, "write count %d", n);
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_File_read_at(fh, (MPI_Offset)((1 - std_rank) * sizeof data), back, 4, MPI_INT, &st));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 4 && back[3] == 100 * (1 - std_rank) + 3, "read %d %d", n, back[3]);
    MPI_Offset size, pos;
    OK(MPI_File_get_size(fh, &size));
    CHECK(size == 2 * (MPI_Offset)sizeof data, "size %lld", (long long)size);
    OK(MPI_File_seek(fh, 2 * (MPI_Offset)sizeof(int), MPI_SEEK_SET));
    OK(MPI_File_seek(fh, (MPI_Offset)sizeof(int), MPI_SEEK_CUR));
    OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 3 * (MPI_Offset)sizeof(int), "position %lld", (long long)pos);
    OK(MPI_File_read(fh, back, 1, MPI_INT, MPI_STATUS_IGNORE));
    CHECK(back[0] == 3, "read after seek %d", back[0]);
    OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "File_close left the handle");
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        OK(MPI_File_delete(name, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    rma();
    io();
    datarep();
#if MPI_VERSION >= 4
    datarep_c();
#endif
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
