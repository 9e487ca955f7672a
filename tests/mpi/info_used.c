/* ranks: 1 2 3 */
/* MPI_Comm_get_info, MPI_Win_get_info and MPI_File_get_info return the hints
 * in use, not those given (MPI-4.1 7.4.4, window and file info): a key
 * railmpi ignores (invalid_test_key, the mpi_assert_* assertions) is not
 * returned, from MPI_Comm_dup_with_info, MPI_Comm_set_info, window creation,
 * MPI_Win_set_info, MPI_File_open or MPI_File_set_info; a window reports
 * the standard's hints with the values railmpi works by whatever was
 * asserted (alloc_shared_noncontig as the layout is: contiguous unless every
 * rank allowed otherwise), and a file the hints it acts on with their values
 * (tests/mpi/io_file.c checks those further). */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* the value of key in info (NULL when absent); static storage */
static const char *got(MPI_Info info, const char *key)
{
    static char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    return flag ? val : NULL;
}

static MPI_Info hints(const char *const *kv)
{
    MPI_Info in;
    MPI_Info_create(&in);
    for (; *kv; kv += 2)
        MPI_Info_set(in, kv[0], kv[1]);
    return in;
}

static void comm_info(void)
{
    static const char *const kv[] = {"invalid_test_key", "true", "mpi_assert_no_any_tag", "true",
                                     "mpi_assert_allow_overtaking", "true", NULL};
    MPI_Info in = hints(kv), used;
    MPI_Comm d;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &d);
    MPI_Comm_get_info(d, &used);
    CHECK(!got(used, "invalid_test_key"), "MPI_Comm_dup_with_info: invalid_test_key returned");
    CHECK(!got(used, "mpi_assert_no_any_tag"), "MPI_Comm_dup_with_info: an ignored assertion returned");
    CHECK(!got(used, "mpi_assert_allow_overtaking"), "MPI_Comm_dup_with_info: an ignored assertion returned");
    MPI_Info_free(&used);
    MPI_Comm_set_info(d, in);
    MPI_Comm_get_info(d, &used);
    CHECK(!got(used, "invalid_test_key"), "MPI_Comm_set_info: invalid_test_key returned");
    MPI_Info_free(&used);
    MPI_Comm_set_info(MPI_COMM_WORLD, in);
    MPI_Comm_get_info(MPI_COMM_WORLD, &used);
    CHECK(!got(used, "invalid_test_key"), "MPI_COMM_WORLD: invalid_test_key returned");
    MPI_Info_free(&used);
    MPI_Comm_free(&d);
    MPI_Info_free(&in);
}

static void win_expect(MPI_Win win, const char *how, int shared)
{
    static const char *const want[][2] = {
        {"no_locks", "false"}, {"accumulate_ordering", "rar,raw,war,waw"},
        {"accumulate_ops", "same_op_no_op"}, {"same_size", "false"}, {"same_disp_unit", "false"},
    };
    MPI_Info used;
    MPI_Win_get_info(win, &used);
    CHECK(!got(used, "invalid_test_key"), "%s: invalid_test_key returned", how);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *v = got(used, want[i][0]);
        CHECK(v && !strcmp(v, want[i][1]), "%s: %s is '%s', want '%s'", how, want[i][0], v ? v : "(absent)",
              want[i][1]);
    }
    const char *v = got(used, "alloc_shared_noncontig"), *sv = shared == 2 ? "true" : "false";
    if (shared)
        CHECK(v && !strcmp(v, sv), "%s: alloc_shared_noncontig is '%s', want '%s'", how, v ? v : "(absent)", sv);
    else
        CHECK(!v, "%s: alloc_shared_noncontig on a window that is not shared", how);
    MPI_Info_free(&used);
}

/* MPI-4.1: by default the parts of a shared window follow each other */
static void shared_contiguous(MPI_Win win, MPI_Aint part, int nshm, const char *how)
{
    char *prev = NULL;
    for (int r = 0; r < nshm; r++) {
        MPI_Aint sz;
        int unit;
        char *b;
        MPI_Win_shared_query(win, r, &sz, &unit, &b);
        CHECK(sz == part && (!prev || b == prev + part), "%s: rank %d's part at %p, size %ld, after %p", how, r,
              (void *)b, (long)sz, (void *)prev);
        prev = b;
    }
}

static void win_info(void)
{
    /* assertions railmpi does not act on: reported with the values in use */
    static const char *const kv[] = {"invalid_test_key", "true", "no_locks", "true", "accumulate_ordering", "none",
                                     "accumulate_ops", "same_op", "same_size", "true", "same_disp_unit", "true",
                                     "alloc_shared_noncontig", "true", NULL};
    MPI_Info in = hints(kv);
    int buf[4];
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), in, MPI_COMM_WORLD, &win);
    win_expect(win, "MPI_Win_create", 0);
    MPI_Win_set_info(win, in);
    win_expect(win, "MPI_Win_set_info", 0);
    MPI_Win_free(&win);
    MPI_Win_create_dynamic(in, MPI_COMM_WORLD, &win);
    win_expect(win, "MPI_Win_create_dynamic", 0);
    MPI_Win_free(&win);
    /* alloc_shared_noncontig is acted on when every rank gives it; shared
     * windows over this host's ranks (the suite also runs across hosts) */
    MPI_Comm shm;
    int nshm, shm_rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &nshm);
    MPI_Comm_rank(shm, &shm_rank);
    int *base;
    MPI_Win_allocate_shared(sizeof buf, sizeof(int), in, shm, &base, &win);
    win_expect(win, "MPI_Win_allocate_shared, noncontig", 2);
    MPI_Win_free(&win);
    MPI_Win_allocate_shared(sizeof buf, sizeof(int), MPI_INFO_NULL, shm, &base, &win);
    win_expect(win, "MPI_Win_allocate_shared", 1);
    shared_contiguous(win, sizeof buf, nshm, "MPI_Win_allocate_shared");
    MPI_Win_free(&win);
    MPI_Win_allocate_shared(sizeof buf, sizeof(int), shm_rank == 0 ? in : MPI_INFO_NULL, shm, &base, &win);
    win_expect(win, "MPI_Win_allocate_shared, noncontig on rank 0 only", nshm > 1 ? 1 : 2);
    if (nshm > 1)
        shared_contiguous(win, sizeof buf, nshm, "MPI_Win_allocate_shared, noncontig on rank 0 only");
    MPI_Win_free(&win);
    MPI_Comm_free(&shm);
    MPI_Info_free(&in);
}

static void file_info(void)
{
    static const char *const kv[] = {"invalid_test_key", "true", "cb_buffer_size", "1048576",
                                     "ind_rd_buffer_size", "-1", NULL};
    char name[64];
    snprintf(name, sizeof name, "/tmp/railmpi_info_used_%d_%d", (int)getpid(), rank);
    MPI_Info in = hints(kv), used;
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, in,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "MPI_File_open %s: %d", name, rc);
    MPI_File_get_info(fh, &used);
    CHECK(!got(used, "invalid_test_key"), "MPI_File_open: invalid_test_key returned");
    const char *v = got(used, "cb_buffer_size");
    CHECK(v && !strcmp(v, "1048576"), "cb_buffer_size '%s'", v ? v : "(absent)");
    v = got(used, "ind_rd_buffer_size");
    CHECK(v && !strcmp(v, "4194304"), "an unusable ind_rd_buffer_size: '%s', want the default", v ? v : "(absent)");
    CHECK(got(used, "romio_cb_write") && got(used, "cb_nodes"), "hints in effect missing");
    MPI_Info_free(&used);
    MPI_File_set_info(fh, in);
    MPI_File_get_info(fh, &used);
    CHECK(!got(used, "invalid_test_key"), "MPI_File_set_info: invalid_test_key returned");
    MPI_Info_free(&used);
    MPI_File_close(&fh);
    MPI_Info_free(&in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comm_info();
    win_info();
    file_info();
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
