/* ranks: 1 2 3 */
/* The window object: predefined attributes for every flavour, user
 * attributes with a delete callback run by MPI_Win_free, names, info hints,
 * the group, error handlers (a handler gets the window; call_errhandler),
 * handle conversion, and MPI_Alloc_mem memory in a window. */
#include <mpi.h>

#include "check.h"
#include <string.h>

static int rank, size;
static int deleted, handler_calls, handler_code;
static MPI_Win handler_win;

static int del_fn(MPI_Win w, int key, void *val, void *extra)
{
    (void)w;
    (void)key;
    (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void on_error(MPI_Win *w, int *code, ...)
{
    handler_calls++;
    handler_win = *w;
    handler_code = *code;
}

static void check_attrs(MPI_Win win, void *base, MPI_Aint sz, int du, int flavor)
{
    void *b;
    MPI_Aint *s;
    int *d, *f, *m, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag);
    CHECK(flag && b == base, "MPI_WIN_BASE %p, want %p", b, base);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &s, &flag);
    CHECK(flag && *s == sz, "MPI_WIN_SIZE %ld", (long)*s);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &d, &flag);
    CHECK(flag && *d == du, "MPI_WIN_DISP_UNIT %d", *d);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &f, &flag);
    CHECK(flag && *f == flavor, "MPI_WIN_CREATE_FLAVOR %d", *f);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &m, &flag);
    CHECK(flag && *m == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char buf[256];
    MPI_Win win, w2, w3;
    MPI_Win_create(buf, sizeof buf, 2, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    check_attrs(win, buf, sizeof buf, 2, MPI_WIN_FLAVOR_CREATE);
    void *abase;
    MPI_Win_allocate(100, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &w2);
    check_attrs(w2, abase, 100, 4, MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
    check_attrs(w3, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC);
    int flag;
    void *v;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK(MPI_Win_set_attr(win, MPI_WIN_BASE, &flag) != MPI_SUCCESS, "predefined attribute set");

    /* user attributes */
    int key, one = 1, two = 2;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL);
    MPI_Win_set_attr(win, key, &one);
    MPI_Win_set_attr(win, key, &two); /* deletes the first */
    CHECK(deleted == 1, "replacing ran the delete callback: %d", deleted);
    MPI_Win_get_attr(win, key, &v, &flag);
    CHECK(flag && v == &two, "get_attr");
    MPI_Win_set_attr(w2, key, &one);
    MPI_Win_delete_attr(w2, key);
    CHECK(deleted == 2, "delete_attr: %d", deleted);
    MPI_Win_get_attr(w2, key, &v, &flag);
    CHECK(!flag, "deleted attribute still there");

    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 0 && name[0] == 0, "default name '%s'", name);
    MPI_Win_set_name(win, "ring window");
    MPI_Win_get_name(win, name, &len);
    CHECK(!strcmp(name, "ring window") && len == 11, "name '%s'", name);

    /* info: the hints in use, not those given (tests/mpi/info_used.c) */
    MPI_Info in, used;
    MPI_Info_create(&in);
    MPI_Info_set(in, "no_locks", "true");
    MPI_Info_set(in, "my_key", "x");
    MPI_Win_set_info(w2, in);
    MPI_Info_free(&in);
    MPI_Win_get_info(w2, &used);
    char val[MPI_MAX_INFO_VAL];
    MPI_Info_get(used, "no_locks", sizeof val - 1, val, &flag);
    CHECK(flag && !strcmp(val, "false"), "no_locks '%s' (railmpi takes locks)", val);
    MPI_Info_get(used, "accumulate_ordering", sizeof val - 1, val, &flag);
    CHECK(flag && !strcmp(val, "rar,raw,war,waw"), "accumulate_ordering '%s'", val);
    MPI_Info_get(used, "my_key", sizeof val - 1, val, &flag);
    CHECK(!flag, "an unknown key was returned");
    MPI_Info_free(&used);

    /* group */
    MPI_Group g, wg;
    int res;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT, "window group differs: %d", res);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* error handlers */
    MPI_Errhandler eh, got;
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Win_get_errhandler(win, &got);
    CHECK(got == eh, "get_errhandler");
    MPI_Errhandler_free(&got);
    int rc = MPI_Win_unlock(0, win); /* not locked */
    CHECK(handler_calls == 1 && handler_win == win && handler_code == rc, "handler on error: %d calls", handler_calls);
    int cls;
    MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "class given to the handler: %d", cls);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_Errhandler_free(&eh);

    /* conversion */
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "c2f/f2c");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "c2f/f2c of MPI_WIN_NULL");

    /* MPI_Alloc_mem memory as a window */
    double *am;
    MPI_Win w4;
    MPI_Alloc_mem(4 * sizeof(double), MPI_INFO_NULL, &am);
    MPI_Win_create(am, 4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &w4);
    MPI_Win_fence(0, w4);
    double x = rank + 0.25;
    MPI_Put(&x, 1, MPI_DOUBLE, (rank + 1) % size, 3, 1, MPI_DOUBLE, w4);
    MPI_Win_fence(0, w4);
    CHECK(am[3] == (rank + size - 1) % size + 0.25, "put into MPI_Alloc_mem memory: %g", am[3]);
    MPI_Win_free(&w4);
    MPI_Free_mem(am);

    MPI_Win_free(&win);
    CHECK(deleted == 4, "Win_free ran the delete callback: %d", deleted);
    MPI_Win_free(&w2);
    MPI_Win_free(&w3);
    MPI_Win_free_keyval(&key);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
