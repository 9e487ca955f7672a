/* ranks: 1 2 3 4 */
/* MPI-IO files (MPI-3.1 13.2): open with every access mode and the error
 * classes of bad ones, close, delete, DELETE_ON_CLOSE, EXCL, APPEND,
 * set_size / preallocate / get_size, group and amode, info hints reported
 * back, atomicity, sync, error handlers (MPI_FILE_NULL's default is
 * MPI_ERRORS_RETURN; user handlers are called with the file), c2f / f2c. */
static int rank, size;

#include "io_common.h"

static int handler_calls, handler_code;
static MPI_File handler_file;

static void on_error(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_file = *fh;
}

static void check_hint(MPI_Info info, const char *key, const char *want)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag, "hint %s not reported", key);
    if (want)
        CHECK(!strcmp(val, want), "hint %s = %s, want %s", key, val, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512], missing[512];
    io_path(path, sizeof path, "a.dat");
    io_path(missing, sizeof missing, "missing.dat");
    MPI_File fh = MPI_FILE_NULL;
    int err;

    /* MPI_FILE_NULL's handler: errors return */
    MPI_Errhandler eh;
    MPI_File_get_errhandler(MPI_FILE_NULL, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "default file handler 0x%x", (unsigned)eh);

    /* bad access modes */
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "RDONLY|CREATE: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "RDWR|WRONLY: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "no access mode: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "RDWR|SEQUENTIAL: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "RDONLY|EXCL: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | 0x10000, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_AMODE, "unknown bit: %d", err);
    CHECK(fh == MPI_FILE_NULL, "a failed open gave a handle");
    CHECK(io_dir_entries() == 0, "a failed open left %d files", io_dir_entries());

    /* a file that is not there */
    err = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_NO_SUCH_FILE, "missing file: %d", err);
    err = MPI_File_delete(missing, MPI_INFO_NULL);
    CHECK(io_class(err) == MPI_ERR_NO_SUCH_FILE, "delete missing file: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_BAD_FILE, "a directory: %d", err);
    err = MPI_File_open(MPI_COMM_WORLD, "", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_BAD_FILE, "empty name: %d", err);
    err = MPI_File_open(MPI_COMM_NULL, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_COMM, "MPI_COMM_NULL: %d", err);

    /* create, with hints */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_ds_read", "disable");
    MPI_Info_set(info, "no_such_hint", "1");
    err = MPI_File_open(MPI_COMM_WORLD, path,
                        MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, info, &fh);
    CHECK(err == MPI_SUCCESS, "create: %d", err);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(io_dir_entries() == 1, "open made %d files (the shared pointer's comes when used)",
          io_dir_entries());
    MPI_Info used;
    MPI_File_get_info(fh, &used);
    check_hint(used, "cb_buffer_size", "1048576");
    check_hint(used, "striping_unit", "65536");
    check_hint(used, "romio_cb_write", "enable");
    check_hint(used, "romio_cb_read", "automatic");
    check_hint(used, "romio_ds_read", "disable");
    check_hint(used, "romio_ds_write", "automatic");
    /* cb_nodes defaults to one aggregator per host */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int noderank, nhosts;
    MPI_Comm_rank(node, &noderank);
    noderank = noderank == 0;
    MPI_Allreduce(&noderank, &nhosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    char hosts[16];
    snprintf(hosts, sizeof hosts, "%d", nhosts);
    check_hint(used, "cb_nodes", hosts);
    int flag;
    char val[64];
    MPI_Info_get(used, "no_such_hint", 63, val, &flag);
    CHECK(!flag, "an unknown hint came back");
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_Info_set(info, "cb_buffer_size", "not a number");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    MPI_File_get_info(fh, &used);
    check_hint(used, "cb_buffer_size", "1048576");
    check_hint(used, "cb_nodes", "1");
    check_hint(used, "cb_config_list", "*:*");
    MPI_Info_free(&used);
    /* get_info says what is in effect: no more aggregators than processes,
     * or than cb_config_list allows on each host; striping_factor means
     * nothing to POSIX files; romio_no_indep_rw makes automatic collective
     * buffering enable; sizes over 1 GiB are refused */
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1000");
    MPI_Info_set(info, "striping_factor", "4");
    MPI_Info_set(info, "romio_no_indep_rw", "true");
    MPI_Info_set(info, "cb_buffer_size", "4294967296");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    MPI_File_get_info(fh, &used);
    snprintf(val, sizeof val, "%d", nprocs);
    check_hint(used, "cb_nodes", val);
    check_hint(used, "romio_no_indep_rw", "true");
    check_hint(used, "romio_cb_read", "enable");
    check_hint(used, "romio_cb_write", "enable");
    check_hint(used, "cb_buffer_size", "1048576");
    MPI_Info_get(used, "striping_factor", 63, val, &flag);
    CHECK(!flag, "striping_factor reported");
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_config_list", "*:1");
    MPI_Info_set(info, "romio_no_indep_rw", "false");
    MPI_Info_set(info, "romio_cb_read", "automatic");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    MPI_File_get_info(fh, &used);
    check_hint(used, "cb_nodes", hosts); /* one per host at most */
    check_hint(used, "cb_config_list", "*:1");
    check_hint(used, "romio_cb_read", "automatic");
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_config_list", "*:*");
    MPI_Info_set(info, "cb_nodes", "2");
    MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    MPI_File_get_info(fh, &used);
    snprintf(val, sizeof val, "%d", nprocs < 2 ? nprocs : 2);
    check_hint(used, "cb_nodes", val);
    MPI_Info_free(&used);

    int amode;
    MPI_File_get_amode(fh, &amode);
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode 0x%x", amode);
    MPI_Group g, wg;
    int cmp;
    MPI_File_get_group(fh, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "file group differs: %d", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* sizes */
    MPI_Offset sz = -1;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 0, "new file size %lld", (long long)sz);
    MPI_File_set_size(fh, 1000);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "size after set_size %lld", (long long)sz);
    MPI_File_preallocate(fh, 500); /* never shrinks */
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 1000, "size after a smaller preallocate %lld", (long long)sz);
    MPI_File_preallocate(fh, 4096);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 4096, "size after preallocate %lld", (long long)sz);
    MPI_File_set_size(fh, 10);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 10, "size after shrinking %lld", (long long)sz);
    err = MPI_File_set_size(fh, -1);
    CHECK(io_class(err) == MPI_ERR_ARG, "negative size: %d", err);

    /* atomicity, sync */
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 0, "atomic by default");
    MPI_File_set_atomicity(fh, 1);
    MPI_File_get_atomicity(fh, &flag);
    CHECK(flag == 1, "atomic not set");
    CHECK(MPI_File_sync(fh) == MPI_SUCCESS, "sync");

    /* handle conversion */
    MPI_Fint fi = MPI_File_c2f(fh);
    CHECK(fi != 0 && MPI_File_f2c(fi) == fh, "c2f/f2c");
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "f2c(0)");

    /* a user handler on the file sees the file and the class */
    MPI_Errhandler mine;
    MPI_File_create_errhandler(on_error, &mine);
    MPI_File_set_errhandler(fh, mine);
    MPI_Errhandler got;
    MPI_File_get_errhandler(fh, &got);
    CHECK(got == mine, "get_errhandler");
    MPI_Errhandler_free(&got);
    err = MPI_File_read_at(fh, -5, val, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(io_class(err) == MPI_ERR_ARG && handler_calls == 1 && handler_code == MPI_ERR_ARG &&
              handler_file == fh, "handler: err %d calls %d code %d", err, handler_calls, handler_code);
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_IO, "call_errhandler");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_File_close(&fh);
    CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");
    err = MPI_File_get_amode(fh, &amode);
    CHECK(io_class(err) == MPI_ERR_FILE, "closed file: %d", err);

    /* EXCL on an existing file */
    err = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                        MPI_INFO_NULL, &fh);
    CHECK(io_class(err) == MPI_ERR_FILE_EXISTS, "EXCL on an existing file: %d", err);
    /* MPI_FILE_NULL's handler is now a user one: failed opens call it */
    MPI_File_set_errhandler(MPI_FILE_NULL, mine);
    handler_calls = 0;
    err = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK(handler_calls == 1 && handler_file == MPI_FILE_NULL && io_class(err) == MPI_ERR_NO_SUCH_FILE,
          "MPI_FILE_NULL handler: %d calls", handler_calls);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);

    /* APPEND: the pointers start at the end */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh);
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == 10, "APPEND position %lld", (long long)pos);
    MPI_File_get_position_shared(fh, &pos);
    CHECK(pos == 10, "APPEND shared position %lld", (long long)pos);
    /* a read on a write-only file, a write on a read-only one */
    err = MPI_File_read(fh, val, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(io_class(err) == MPI_ERR_ACCESS, "read on WRONLY: %d", err);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    err = MPI_File_write_at(fh, 0, "x", 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(io_class(err) == MPI_ERR_READ_ONLY, "write on RDONLY: %d", err);
    err = MPI_File_set_size(fh, 0);
    CHECK(io_class(err) == MPI_ERR_READ_ONLY, "set_size on RDONLY: %d", err);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_get_size(fh, &sz);
    CHECK(sz == 10, "failed calls changed the file: size %lld", (long long)sz);
    MPI_File_close(&fh);

    /* delete, DELETE_ON_CLOSE */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(MPI_File_delete(path, MPI_INFO_NULL) == MPI_SUCCESS, "delete");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(path, F_OK) != 0, "file still there after delete");
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE |
                      MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh);
    CHECK(access(path, F_OK) == 0, "file not created");
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(access(path, F_OK) != 0, "DELETE_ON_CLOSE left the file");
    CHECK(io_dir_entries() == 0, "%d files left behind", io_dir_entries());

    /* opening on a subcommunicator */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    char p2[512];
    io_path(p2, sizeof p2, rank % 2 ? "odd.dat" : "even.dat");
    CHECK(MPI_File_open(half, p2, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                        MPI_INFO_NULL, &fh) == MPI_SUCCESS, "open on a subcommunicator");
    MPI_Comm_free(&half); /* the file keeps its own */
    MPI_File_get_group(fh, &g);
    int gs;
    MPI_Group_size(g, &gs);
    CHECK(gs == (size + 1 - rank % 2) / 2, "group size %d", gs);
    MPI_Group_free(&g);
    MPI_File_close(&fh);

    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_file\n");
    return 0;
}
