/* Window bindings: creation and freeing, groups, info hints, attributes,
 * names, error handlers, handle conversion. */
#include "comm/attr.h"
#include "mpi/win_impl.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mpi_win_raise(win_t *w, int errclass, const char *fn, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (!w)
        return mpi_err_raise(NULL, errclass, fn, "%s", detail);
    /* the reporting path takes a communicator for its handler; a window's
     * handler has the same shape (handle pointer, code) */
    comm_t as = {.handle = w->handle, .errh = w->errh};
    return mpi_err_raise(&as, errclass, fn, "%s", detail);
}

/* ---- info hints ---------------------------------------------------------
 * MPI_Win_get_info answers the hints the standard gives defaults for, with
 * the values railmpi works by (MPI-4.1, window info: the hints in use, not
 * those given): railmpi takes locks on every window, orders every
 * accumulate, accepts any mix of operations and exchanges each rank's size
 * and unit, whatever the application asserted; a shared window's parts
 * follow each other unless every rank gave alloc_shared_noncontig true.
 * Hints it does not act on are not kept. */
static const char *const win_hint_keys[][2] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
};
#define WIN_NHINTS (int)(sizeof win_hint_keys / sizeof win_hint_keys[0])

/* ---- creation ------------------------------------------------------------ */

static int win_create_common(const char *fn_name_, void *base, MPI_Aint size, MPI_Aint disp_unit,
                             MPI_Info info, MPI_Comm comm, int flavor, void *baseptr, MPI_Win *win)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, win, "win is NULL");
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (size < 0)
            MPI_FAIL(c, MPI_ERR_SIZE, "negative size %ld", (long)size);
        if (disp_unit <= 0)
            MPI_FAIL(c, MPI_ERR_DISP, "displacement unit %ld is not positive", (long)disp_unit);
    }
    CHECK_ARG(c, flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC || baseptr,
              "baseptr is NULL");
    int noncontig = 0;
    if (info != MPI_INFO_NULL) {
        int n, flag = 0;
        char v[8];
        if (PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
            MPI_FAIL(c, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
        PMPI_Info_get(info, "alloc_shared_noncontig", (int)sizeof v - 1, v, &flag);
        noncontig = flag && !strcmp(v, "true");
    }
    win_t *w;
    rm_status_t st = rma_win_create(c, base, size, flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit,
                                    flavor, noncontig, &w);
    if (st == RM_ERR_UNSUPPORTED)
        MPI_FAIL(c, MPI_ERR_RMA_SHARED, "the processes of the communicator are not all on one host");
    MPI_CHECK_STATUS(c, st);
    if (baseptr)
        *(void **)baseptr = w->base;
    *win = w->handle;
    MPI_END();
}

RM_ALIAS(Win_create)
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return win_create_common("MPI_Win_create", base, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_CREATE, NULL, win);
}

RM_ALIAS(Win_allocate)
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return win_create_common("MPI_Win_allocate", NULL, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_ALLOCATE, baseptr, win);
}

RM_ALIAS(Win_allocate_shared)
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return win_create_common("MPI_Win_allocate_shared", NULL, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_SHARED, baseptr, win);
}

/* MPI-4.1: the displacement unit as an MPI_Aint */
RM_ALIAS(Win_create_c)
int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    return win_create_common("MPI_Win_create_c", base, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_CREATE, NULL, win);
}

RM_ALIAS(Win_allocate_c)
int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return win_create_common("MPI_Win_allocate_c", NULL, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_ALLOCATE, baseptr, win);
}

RM_ALIAS(Win_allocate_shared_c)
int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return win_create_common("MPI_Win_allocate_shared_c", NULL, size, disp_unit, info, comm,
                             MPI_WIN_FLAVOR_SHARED, baseptr, win);
}

RM_ALIAS(Win_create_dynamic)
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_create_common("MPI_Win_create_dynamic", NULL, 0, 1, info, comm,
                             MPI_WIN_FLAVOR_DYNAMIC, NULL, win);
}

static int win_shared_query_common(const char *fn_name_, MPI_Win win, int rank, MPI_Aint *size,
                                   MPI_Aint *disp_unit, int int_unit, void *baseptr)
{
    MPI_BEGIN_SHARED();
    win_t *w;
    CHECK_WIN(w, win);
    if (!size)
        WIN_FAIL(w, MPI_ERR_ARG, "size is NULL");
    if (!disp_unit)
        WIN_FAIL(w, MPI_ERR_ARG, "disp_unit is NULL");
    if (!baseptr)
        WIN_FAIL(w, MPI_ERR_ARG, "baseptr is NULL");
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        WIN_FAIL(w, MPI_ERR_RMA_FLAVOR, "not a window of MPI_Win_allocate_shared");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        WIN_FAIL(w, MPI_ERR_RANK, "invalid rank %d (window of %d processes)", rank, w->size);
    MPI_Aint sz, unit;
    void *base;
    rma_win_shared_query(w, rank, &sz, &unit, &base);
    if (int_unit && unit > INT_MAX)
        WIN_FAIL(w, MPI_ERR_VALUE_TOO_LARGE,
                 "displacement unit %ld does not fit an int: use MPI_Win_shared_query_c", (long)unit);
    *size = sz;
    *disp_unit = unit;
    *(void **)baseptr = base;
    MPI_END();
}

RM_ALIAS(Win_shared_query)
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint unit = 0;
    int rc = win_shared_query_common("MPI_Win_shared_query", win, rank, size,
                                     disp_unit ? &unit : NULL, 1, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)unit;
    return rc;
}

RM_ALIAS(Win_shared_query_c)
int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return win_shared_query_common("MPI_Win_shared_query_c", win, rank, size, disp_unit, 0,
                                   baseptr);
}

RM_ALIAS(Win_attach)
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    MPI_BEGIN("MPI_Win_attach");
    win_t *w;
    CHECK_WIN(w, win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        WIN_FAIL(w, MPI_ERR_RMA_FLAVOR, "not a window of MPI_Win_create_dynamic");
    if (size < 0)
        WIN_FAIL(w, MPI_ERR_SIZE, "negative size %ld", (long)size);
    if (!base && size > 0)
        WIN_FAIL(w, MPI_ERR_RMA_ATTACH, "NULL base with size %ld", (long)size);
    if (rma_win_attach(w, base, size) < 0)
        WIN_FAIL(w, MPI_ERR_NO_MEM, "out of memory");
    MPI_END();
}

RM_ALIAS(Win_detach)
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    MPI_BEGIN("MPI_Win_detach");
    win_t *w;
    CHECK_WIN(w, win);
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        WIN_FAIL(w, MPI_ERR_RMA_FLAVOR, "not a window of MPI_Win_create_dynamic");
    if (rma_win_detach(w, base) < 0)
        WIN_FAIL(w, MPI_ERR_RMA_ATTACH, "no memory attached at %p", base);
    MPI_END();
}

RM_ALIAS(Win_free)
int PMPI_Win_free(MPI_Win *win)
{
    MPI_BEGIN("MPI_Win_free");
    win_t *w;
    CHECK_ARG(NULL, win, "win is NULL");
    CHECK_WIN(w, *win);
    /* a revoked window's epochs end with it (ULFM: it can only be freed) */
    if (!w->comm->revoked && (w->nlocks || w->lock_all || w->acc_ranks || w->exposed))
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "an epoch is still open (lock, start or post)");
    if ((err = attr_delete_all(&w->attrs, ATTR_WIN, w->handle)) != MPI_SUCCESS)
        WIN_FAIL(w, err, "an attribute delete callback failed");
    /* a failure of the free itself (a dead member, ULFM) goes to the
     * window's handler, which outlives the window for that */
    errhandler_t *eh = w->errh;
    int handle = w->handle;
    eh->refcount++;
    rm_status_t st = rma_win_free(w);
    *win = MPI_WIN_NULL;
    if (st < 0)
        err = mpi_err_raise_eh(eh, handle, mpi_err_from_status(st), fn_name_, "%s", rm_status_str(st));
    errhandler_release(eh);
    MPI_END();
}

RM_ALIAS(Win_get_group)
int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    MPI_BEGIN("MPI_Win_get_group");
    win_t *w;
    CHECK_WIN(w, win);
    if (!group)
        WIN_FAIL(w, MPI_ERR_ARG, "group is NULL");
    group_t *g = group_new(w->size, 0);
    if (g)
        memcpy(g->world, w->comm->group->world, sizeof(int) * (size_t)w->size);
    if (!g || !group_register(g)) {
        if (g)
            group_release(g);
        WIN_FAIL(w, MPI_ERR_NO_MEM, "out of memory");
    }
    g->rank = w->rank;
    *group = g->handle;
    MPI_END();
}

RM_ALIAS(Win_set_info)
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    MPI_BEGIN("MPI_Win_set_info");
    win_t *w;
    CHECK_WIN(w, win);
    int n;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        WIN_FAIL(w, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)info);
    MPI_END();
}

RM_ALIAS(Win_get_info)
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    MPI_BEGIN("MPI_Win_get_info");
    win_t *w;
    CHECK_WIN(w, win);
    if (!info_used)
        WIN_FAIL(w, MPI_ERR_ARG, "info_used is NULL");
    MPI_Info in;
    if ((err = PMPI_Info_create(&in)) != MPI_SUCCESS)
        goto fn_exit;
    for (int i = 0; i < WIN_NHINTS && err == MPI_SUCCESS; i++)
        err = PMPI_Info_set(in, win_hint_keys[i][0], win_hint_keys[i][1]);
    if (err == MPI_SUCCESS && w->flavor == MPI_WIN_FLAVOR_SHARED)
        err = PMPI_Info_set(in, "alloc_shared_noncontig", w->noncontig ? "true" : "false");
    if (err != MPI_SUCCESS) {
        PMPI_Info_free(&in);
        goto fn_exit;
    }
    *info_used = in;
    MPI_END();
}

/* ---- attributes ------------------------------------------------------------ */

static int win_predefined(int keyval)
{
    return keyval == MPI_WIN_BASE || keyval == MPI_WIN_SIZE || keyval == MPI_WIN_DISP_UNIT ||
           keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}

RM_ALIAS(Win_set_attr)
int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    MPI_BEGIN("MPI_Win_set_attr");
    win_t *w;
    CHECK_WIN(w, win);
    if (win_predefined(win_keyval))
        WIN_FAIL(w, MPI_ERR_KEYVAL, "predefined attributes are read-only");
    if ((err = attr_set(&w->attrs, ATTR_WIN, w->handle, win_keyval, attribute_val)) != MPI_SUCCESS)
        WIN_FAIL(w, err, "cannot set attribute %d", win_keyval);
    MPI_END();
}

RM_ALIAS(Win_get_attr)
int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    MPI_BEGIN("MPI_Win_get_attr");
    win_t *w;
    CHECK_WIN(w, win);
    if (!attribute_val || !flag)
        WIN_FAIL(w, MPI_ERR_ARG, "attribute_val or flag is NULL");
    void *v = NULL;
    switch (win_keyval) {
    case MPI_WIN_BASE: v = w->base; break;
    case MPI_WIN_SIZE: v = &w->attr_size; break;
    case MPI_WIN_DISP_UNIT: v = &w->attr_unit; break;
    case MPI_WIN_CREATE_FLAVOR: v = &w->attr_flavor; break;
    case MPI_WIN_MODEL: v = &w->attr_model; break;
    default:
        if ((err = attr_get(w->attrs, ATTR_WIN, win_keyval, (void **)attribute_val, flag)) != MPI_SUCCESS)
            WIN_FAIL(w, err, "invalid keyval %d", win_keyval);
        goto fn_exit;
    }
    /* refreshed at each query: a program writing through it changes nothing */
    w->attr_size = w->len;
    w->attr_unit = w->disp_unit > INT_MAX ? INT_MAX : (int)w->disp_unit;
    w->attr_flavor = w->flavor;
    w->attr_model = w->model;
    *(void **)attribute_val = v;
    *flag = 1;
    MPI_END();
}

RM_ALIAS(Win_delete_attr)
int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    MPI_BEGIN("MPI_Win_delete_attr");
    win_t *w;
    CHECK_WIN(w, win);
    if (win_predefined(win_keyval))
        WIN_FAIL(w, MPI_ERR_KEYVAL, "predefined attributes are read-only");
    if ((err = attr_delete(&w->attrs, ATTR_WIN, w->handle, win_keyval)) != MPI_SUCCESS)
        WIN_FAIL(w, err, "cannot delete attribute %d", win_keyval);
    MPI_END();
}

/* ---- names, error handlers, conversion ------------------------------------ */

RM_ALIAS(Win_set_name)
int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    MPI_BEGIN("MPI_Win_set_name");
    win_t *w;
    CHECK_WIN(w, win);
    if (!win_name)
        WIN_FAIL(w, MPI_ERR_ARG, "win_name is NULL");
    snprintf(w->name, sizeof w->name, "%s", win_name);
    MPI_END();
}

RM_ALIAS(Win_get_name)
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    MPI_BEGIN("MPI_Win_get_name");
    win_t *w;
    CHECK_WIN(w, win);
    if (!win_name || !resultlen)
        WIN_FAIL(w, MPI_ERR_ARG, "win_name or resultlen is NULL");
    strcpy(win_name, w->name);
    *resultlen = (int)strlen(win_name);
    MPI_END();
}

RM_ALIAS(Win_create_errhandler)
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    MPI_BEGIN("MPI_Win_create_errhandler");
    CHECK_ARG(NULL, win_errhandler_fn && errhandler, "function or errhandler is NULL");
    /* called as fn(&handle, &code) like a communicator's */
    errhandler_t *e = errhandler_create((MPI_Comm_errhandler_function *)win_errhandler_fn);
    if (!e)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    *errhandler = e->handle;
    MPI_END();
}

RM_ALIAS(Win_set_errhandler)
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    MPI_BEGIN("MPI_Win_set_errhandler");
    win_t *w;
    errhandler_t *e;
    CHECK_WIN(w, win);
    if (!(e = errhandler_get(errhandler)))
        WIN_FAIL(w, MPI_ERR_ERRHANDLER, "invalid error handler 0x%x", (unsigned)errhandler);
    e->refcount++;
    errhandler_release(w->errh);
    w->errh = e;
    MPI_END();
}

RM_ALIAS(Win_get_errhandler)
int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    MPI_BEGIN("MPI_Win_get_errhandler");
    win_t *w;
    CHECK_WIN(w, win);
    if (!errhandler)
        WIN_FAIL(w, MPI_ERR_ARG, "errhandler is NULL");
    if (!w->errh->builtin)
        w->errh->refcount++; /* the caller frees its reference */
    *errhandler = w->errh->handle;
    MPI_END();
}

RM_ALIAS(Win_call_errhandler)
int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    MPI_BEGIN("MPI_Win_call_errhandler");
    win_t *w;
    CHECK_WIN(w, win);
    mpi_win_raise(w, errorcode, fn_name_, "invoked by the application");
    MPI_END();
}

RM_ALIAS(Win_c2f)
MPI_Fint PMPI_Win_c2f(MPI_Win win)
{
    return (MPI_Fint)win;
}

RM_ALIAS(Win_f2c)
MPI_Win PMPI_Win_f2c(MPI_Fint win)
{
    return (MPI_Win)win;
}
