/* What is Open MPI's own in its ABI, seen from a program built with Open
 * MPI's mpicc (tests/abi/ompi_run.sh): predefined handles are the addresses
 * of Open MPI's objects and come back as such from railmpi; statuses have
 * Open MPI's layout; MPI_*_DUP_FN and MPI_*_NULL_*_FN are Open MPI's
 * functions; callbacks get Open MPI's handles and error classes; MPI-1's
 * attribute calls and MPI_Status_c2f/f2c are there. Also built without PIE (copy
 * relocations of the predefined objects). 2 ranks. */
#include <mpi.h>
#include <stddef.h>
#include <string.h>
#include "std_check.h"

/* MPI_Keyval_create, MPI_Attr_put/get: deprecated, still in Open MPI 4.1 */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int copies, deletes, handler_calls;
static MPI_Comm handler_comm;
static int handler_class;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    CHECK(extra == &copies, "copy: extra_state");
    CHECK(comm != MPI_COMM_NULL && keyval != MPI_KEYVAL_INVALID, "copy: handle or keyval");
    int size = 0;
    OK(MPI_Comm_size(comm, &size));
    CHECK(size == 2, "copy: the communicator handed over has size %d", size);
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    int size = 0;
    OK(MPI_Comm_size(comm, &size));
    deletes++;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static void handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_comm = *comm;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    int size, flag, v;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "needs 2 ranks");
    CHECK(sizeof(MPI_Status) == 24 && offsetof(MPI_Status, MPI_ERROR) == 8, "Open MPI's status");

    /* predefined handles come back as Open MPI's objects */
    MPI_Errhandler eh;
    OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "world's error handler %p", (void *)eh);
    OK(MPI_Errhandler_free(&eh));
    MPI_Comm parent;
    OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "parent %p", (void *)parent);
    MPI_Group g;
    OK(MPI_Comm_group(MPI_COMM_SELF, &g));
    MPI_Group e;
    int excl = 0;
    OK(MPI_Group_excl(g, 1, &excl, &e));
    CHECK(e == MPI_GROUP_EMPTY, "empty group %p", (void *)e);
    OK(MPI_Group_free(&g));
    MPI_Datatype vec, types[1];
    int ints[3];
    MPI_Aint addrs[1];
    OK(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &vec));
    OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types));
    CHECK(types[0] == MPI_DOUBLE && ints[2] == 3, "contents %p", (void *)types[0]);
    OK(MPI_Type_free(&vec));
    CHECK(vec == MPI_DATATYPE_NULL, "Type_free");

    /* requests: MPI_REQUEST_NULL after completion, Open MPI's status fields */
    int buf[4] = {1, 2, 3, 4}, got[4];
    MPI_Request rq;
    MPI_Status st;
    int peer = 1 - std_rank;
    OK(MPI_Irecv(got, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    OK(MPI_Send(buf, 3, MPI_INT, peer, 9, MPI_COMM_WORLD));
    OK(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL, "request after Wait");
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 9 && st._ucount == 3 * sizeof(int) && !st._cancelled,
          "status %d %d %zu", st.MPI_SOURCE, st.MPI_TAG, st._ucount);
    OK(MPI_Recv(got, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && st._ucount == 0, "PROC_NULL status");
    MPI_Fint fst[6];
    OK(MPI_Status_c2f(&st, fst));
    CHECK(fst[0] == MPI_PROC_NULL, "Status_c2f source %d", fst[0]);
    MPI_Status back;
    OK(MPI_Status_f2c(fst, &back));
    CHECK(back.MPI_SOURCE == MPI_PROC_NULL && back.MPI_TAG == MPI_ANY_TAG, "Status_f2c");

    /* attributes: the program's copy and delete functions, and Open MPI's
     * MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN / MPI_COMM_NULL_DELETE_FN */
    int k_user, k_dup, k_null, k_old;
    OK(MPI_Comm_create_keyval(copy_fn, delete_fn, &k_user, &copies));
    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k_dup, NULL));
    OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k_null, NULL));
    OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k_old, NULL));
    static int a = 1, b = 2, c = 3, d = 4;
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k_user, &a));
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k_dup, &b));
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k_null, &c));
    OK(MPI_Attr_put(MPI_COMM_WORLD, k_old, &d));
    MPI_Comm dup;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int *p;
    OK(MPI_Comm_get_attr(dup, k_user, &p, &flag));
    CHECK(flag && p == &a && copies == 1, "user copy %d %d", flag, copies);
    OK(MPI_Comm_get_attr(dup, k_dup, &p, &flag));
    CHECK(flag && p == &b, "MPI_COMM_DUP_FN");
    OK(MPI_Comm_get_attr(dup, k_null, &p, &flag));
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
    OK(MPI_Attr_get(dup, k_old, &p, &flag));
    CHECK(flag && p == &d, "MPI_DUP_FN");
    OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL && deletes == 1, "delete %d", deletes);
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag && *p >= 32767, "MPI_TAG_UB");
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_user));
    OK(MPI_Comm_free_keyval(&k_user));
    CHECK(k_user == MPI_KEYVAL_INVALID, "free_keyval");

    /* an error handler of the program's: Open MPI's handle and class */
    MPI_Errhandler mine;
    OK(MPI_Comm_create_errhandler(handler, &mine));
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_errhandler(dup, mine));
    int rc = MPI_Send(buf, 1, MPI_INT, 5, 0, dup);
    CHECK(rc == MPI_ERR_RANK && handler_calls == 1 && handler_comm == dup && handler_class == MPI_ERR_RANK,
          "handler %d calls, class %d, rc %d", handler_calls, handler_class, rc);
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    /* no communicator: MPI_COMM_SELF's handler (MPI-4; MPI_COMM_WORLD's in
     * Open MPI 4.1) */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    rc = MPI_Recv(buf, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_NULL, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_ERR_COMM, "MPI_COMM_NULL: %d", rc);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    OK(MPI_Errhandler_free(&mine));
    OK(MPI_Comm_free(&dup));

    /* a failed MPI_Comm_dup gives MPI_COMM_NULL */
    int k_fail;
    OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &k_fail, NULL));
    OK(MPI_Comm_set_attr(MPI_COMM_WORLD, k_fail, &a));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    dup = MPI_COMM_WORLD;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(rc != MPI_SUCCESS && dup == MPI_COMM_NULL, "failed dup: rc %d, newcomm %p", rc, (void *)dup);
    OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, k_fail));
    OK(MPI_Comm_free_keyval(&k_fail));

    /* MPI_COMM_TYPE_SHARED splits; so do Open MPI's hardware types (a
     * process bound to no single core is in no core's communicator) and its
     * OMPI_COMM_TYPE_CU and OMPI_COMM_TYPE_CLUSTER, which hold every process */
    int csize = 0;
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &dup));
    CHECK(dup != MPI_COMM_NULL, "shared split");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_HOST, 0, MPI_INFO_NULL, &dup));
    CHECK(dup != MPI_COMM_NULL, "host split");
    OK(MPI_Comm_size(dup, &csize));
    CHECK(csize == 2, "host split size %d", csize);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_CORE, 0, MPI_INFO_NULL, &dup));
    if (dup != MPI_COMM_NULL) {
        OK(MPI_Comm_size(dup, &csize));
        CHECK(csize == 1, "core split size %d", csize);
        OK(MPI_Comm_free(&dup));
    }
    int wrank = -1, crank = -1, cmp = -1;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &wrank));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_CLUSTER, 0, MPI_INFO_NULL, &dup));
    OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "cluster split: %d, not congruent with MPI_COMM_WORLD", cmp);
    OK(MPI_Comm_free(&dup));
    /* ranked by key: reversed */
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, OMPI_COMM_TYPE_CU, -wrank, MPI_INFO_NULL, &dup));
    OK(MPI_Comm_size(dup, &csize));
    OK(MPI_Comm_rank(dup, &crank));
    CHECK(csize == 2 && crank == 1 - wrank, "CU split: size %d, rank %d of world rank %d", csize, crank, wrank);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_UNDEFINED split");

    /* a mode or assertion bit Open MPI does not define is an error */
    MPI_File fh = MPI_FILE_NULL;
    rc = MPI_File_open(MPI_COMM_SELF, "ompi_handles.unknown_bit", MPI_MODE_RDWR | MPI_MODE_CREATE | 0x10000,
                       MPI_INFO_NULL, &fh);
    CHECK(rc != MPI_SUCCESS && fh == MPI_FILE_NULL, "amode with an unknown bit: %d", rc);
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* MPI_Comm_idup: the new communicator is there when the request completes */
    MPI_Comm d1, d2;
    MPI_Request rqs[2];
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &rqs[0]));
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &d2, &rqs[1]));
    /* MPI_Waitall sets no MPI_ERROR when it succeeds */
    MPI_Status sts[2];
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = 12345;
    OK(MPI_Waitall(2, rqs, sts));
    CHECK(sts[0].MPI_ERROR == 12345 && sts[1].MPI_ERROR == 12345, "Waitall wrote MPI_ERROR %d %d",
          sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    CHECK(d1 != MPI_COMM_NULL && d2 != MPI_COMM_NULL && d1 != d2, "idup results");
    OK(MPI_Comm_compare(d1, MPI_COMM_WORLD, &v));
    CHECK(v == MPI_CONGRUENT, "idup compares %d", v);
    OK(MPI_Allreduce(&std_rank, &v, 1, MPI_INT, MPI_SUM, d2));
    CHECK(v == 1, "allreduce on an idup %d", v);
    OK(MPI_Comm_free(&d1));
    OK(MPI_Comm_free(&d2));

    /* names that share an object in Open MPI */
    int tsz = 0;
    OK(MPI_Type_size(MPI_CXX_FLOAT_COMPLEX, &tsz));
    CHECK(tsz == 8, "MPI_CXX_FLOAT_COMPLEX size %d", tsz);
    OK(MPI_Type_size(MPI_LONG_LONG, &tsz));
    CHECK(tsz == 8, "MPI_LONG_LONG size %d", tsz);

    /* strings longer than Open MPI's limits are cut to them */
    char lname[MPI_MAX_OBJECT_NAME + 16], big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memset(lname, '#', sizeof lname);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_name(dup, big));
    int len = -1;
    OK(MPI_Comm_get_name(dup, lname, &len));
    CHECK(len == MPI_MAX_OBJECT_NAME - 1 && lname[len] == 0 && lname[MPI_MAX_OBJECT_NAME] == '#',
          "Comm_get_name: length %d", len);
    OK(MPI_Comm_free(&dup));
    MPI_Info info;
    char key[MPI_MAX_INFO_KEY + 16];
    memset(key, '#', sizeof key);
    OK(MPI_Info_create(&info));
    big[100] = 0;
    OK(MPI_Info_set(info, big, "v"));
    OK(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strlen(key) == MPI_MAX_INFO_KEY - 1 && key[MPI_MAX_INFO_KEY] == '#', "Info_get_nthkey %zu",
          strlen(key));
    OK(MPI_Info_free(&info));
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    OK(MPI_Get_library_version(version, &len));
    CHECK(len < MPI_MAX_LIBRARY_VERSION_STRING && strstr(version, "Open MPI") && !strstr(version, "MPICH"),
          "library version '%s'", version);

    /* Fortran handles of predefined objects and back */
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "Comm c2f/f2c");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT, "Type c2f/f2c");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "Op c2f/f2c");

    /* one-sided: window assertions (which share bits with file modes in
     * Open MPI's values) and the window's model */
    MPI_Win win;
    int wbuf[2] = {0, 0};
    OK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    v = 10 + std_rank;
    OK(MPI_Put(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, win));
    OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, win));
    CHECK(wbuf[1] == 10 + peer, "put %d", wbuf[1]);
    OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOCHECK, win));
    OK(MPI_Get(&v, 1, MPI_INT, peer, 1, 1, MPI_INT, win));
    OK(MPI_Win_unlock(peer, win));
    CHECK(v == 10 + std_rank, "get %d", v);
    int *model;
    OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE), "model %d", flag ? *model : -1);
    OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    rc = MPI_Win_fence(0x100, win);
    CHECK(rc == MPI_ERR_ASSERT, "fence with an unknown assertion bit: %d", rc);
    OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &model, &flag));
    CHECK(flag && *model == MPI_WIN_FLAVOR_CREATE, "flavor");
    OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "Win_free");

    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
