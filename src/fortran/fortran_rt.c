/* What the generated Fortran wrappers lean on, and the few bindings that
 * cannot be generated because the library must call back into Fortran:
 * keyvals with Fortran copy/delete procedures, generalized requests, and the
 * predefined Fortran callbacks (MPI_COMM_DUP_FN, ...). */
#include "fortran.h"


/* Our own copies of MPICH's sentinel blocks: a Fortran program defines them
 * too, and the program's copy wins (the library refers to them through the
 * GOT), so the library sees the same addresses the program passes. */
RM_FEXPORT struct f_priv1 mpipriv1_;
RM_FEXPORT struct f_priv2 mpipriv2_;
RM_FEXPORT struct f_privc mpiprivc_;
RM_FEXPORT MPI_Fint mpifcmb5_;
RM_FEXPORT MPI_Fint mpifcmb9_;
RM_FEXPORT MPI_Fint mpifcmba_;

MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n)
{
    if (n <= 0) return NULL;
    MPI_Aint *c = malloc((size_t)n * sizeof *c);
    if (!c) return NULL;
    for (MPI_Fint i = 0; i < n; i++) c[i] = a[i];
    return c;
}

MPI_Aint f_attr_value(MPI_Fint keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return v ? *(int *)v : 0;
    case MPI_WIN_SIZE:
        return v ? *(MPI_Aint *)v : 0;
    default:
        return (MPI_Aint)v;
    }
}

/* ------------------------------------------------------------------------
 * Keyvals whose callbacks are Fortran procedures. The C library sees a C
 * trampoline; its extra_state points at this record, which carries the
 * Fortran procedures and the Fortran extra_state. Attribute values are
 * INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI_KEYVAL_CREATE. */
typedef void (*f_copy_t)(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void (*f_delete_t)(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);
struct f_keyval {
    f_copy_t copy;
    f_delete_t del;
    int mpi1;            /* MPI_KEYVAL_CREATE: INTEGER values and extra_state */
    MPI_Aint extra;
    struct f_keyval *next;
};
/* Every record stays on this list: see f_keyval_create. */
static struct f_keyval *f_keyvals;

static int f_copy_tramp(int old, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_keyval *k = extra;
    MPI_Fint fo = old, fk = keyval, fflag = 0, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint fe = (MPI_Fint)k->extra, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
        k->copy(&fo, &fk, &fe, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)(MPI_Aint)vout;
    } else {
        MPI_Aint vin = (MPI_Aint)in, vout = 0;
        k->copy(&fo, &fk, &k->extra, &vin, &vout, &fflag, &ierr);
        *(void **)out = (void *)vout;
    }
    *flag = fflag != 0;
    return ierr;
}

static int f_delete_tramp(int obj, int keyval, void *val, void *extra)
{
    struct f_keyval *k = extra;
    MPI_Fint fo = obj, fk = keyval, ierr = MPI_SUCCESS;
    if (k->mpi1) {
        MPI_Fint fe = (MPI_Fint)k->extra, v = (MPI_Fint)(MPI_Aint)val;
        k->del(&fo, &fk, &v, &fe, &ierr);
    } else {
        MPI_Aint v = (MPI_Aint)val;
        k->del(&fo, &fk, &v, &k->extra, &ierr);
    }
    return ierr;
}

/* The predefined Fortran callbacks, called like user procedures. Their
 * upper-case spellings are C macros in mpi.h; here they name symbols. */
#undef MPI_NULL_COPY_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_COMM_DUP_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_WIN_DUP_FN
#define F_NULL_COPY(name, T)                                                            \
    RM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag, \
                         MPI_Fint *ierr)                                                \
    { (void)o; (void)k; (void)e; (void)in; (void)out; *flag = 0; *ierr = MPI_SUCCESS; }
#define F_DUP(name, T)                                                                  \
    RM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag, \
                         MPI_Fint *ierr)                                                \
    { (void)o; (void)k; (void)e; *out = *in; *flag = 1; *ierr = MPI_SUCCESS; }
#define F_NULL_DELETE(name, T)                                                          \
    RM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr)         \
    { (void)o; (void)k; (void)v; (void)e; *ierr = MPI_SUCCESS; }
/* ... and the module procedures of MPICH's mpi_f08_callbacks (the same
 * arguments by reference), so a keyval created from MPICH's mpi_f08 with
 * MPI_COMM_NULL_COPY_FN is recognised by its address. */
#define F_ALIASES(base, UP)                                                    \
    RM_FALIAS(base##_, base) RM_FALIAS(base##_, base##__) RM_FALIAS(base##_, UP) \
    RM_FALIAS(base##_, __mpi_f08_callbacks_MOD_##base)

F_NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
F_ALIASES(mpi_null_copy_fn, MPI_NULL_COPY_FN)
F_DUP(mpi_dup_fn_, MPI_Fint)
F_ALIASES(mpi_dup_fn, MPI_DUP_FN)
F_NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)
F_ALIASES(mpi_null_delete_fn, MPI_NULL_DELETE_FN)
F_NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
F_ALIASES(mpi_comm_null_copy_fn, MPI_COMM_NULL_COPY_FN)
F_DUP(mpi_comm_dup_fn_, MPI_Aint)
F_ALIASES(mpi_comm_dup_fn, MPI_COMM_DUP_FN)
F_NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
F_ALIASES(mpi_comm_null_delete_fn, MPI_COMM_NULL_DELETE_FN)
F_NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
F_ALIASES(mpi_type_null_copy_fn, MPI_TYPE_NULL_COPY_FN)
F_DUP(mpi_type_dup_fn_, MPI_Aint)
F_ALIASES(mpi_type_dup_fn, MPI_TYPE_DUP_FN)
F_NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
F_ALIASES(mpi_type_null_delete_fn, MPI_TYPE_NULL_DELETE_FN)
F_NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
F_ALIASES(mpi_win_null_copy_fn, MPI_WIN_NULL_COPY_FN)
F_DUP(mpi_win_dup_fn_, MPI_Aint)
F_ALIASES(mpi_win_dup_fn, MPI_WIN_DUP_FN)
F_NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
F_ALIASES(mpi_win_null_delete_fn, MPI_WIN_NULL_DELETE_FN)

typedef int (*c_keyval_create_t)(void *, void *, int *, void *);

/* The record lives as long as the keyval may be used; a keyval is freed only
 * once its last attribute is gone, which the library does not report, so
 * the record (a few words per keyval) is kept, on a list. */
static void f_keyval_create(c_keyval_create_t create, void (*copy)(void), void (*del)(void),
                            MPI_Fint *keyval, MPI_Aint extra, int mpi1, MPI_Fint *ierr)
{
    struct f_keyval *k = malloc(sizeof *k);
    if (!k) { if (ierr) *ierr = MPI_ERR_NO_MEM; return; }
    k->copy = (f_copy_t)copy;
    k->del = (f_delete_t)del;
    k->mpi1 = mpi1;
    k->extra = extra;
    /* null callbacks stay null in C: no call per duplicate */
    int null_copy = copy == (void (*)(void))mpi_null_copy_fn_ ||
                    copy == (void (*)(void))mpi_comm_null_copy_fn_ ||
                    copy == (void (*)(void))mpi_type_null_copy_fn_ ||
                    copy == (void (*)(void))mpi_win_null_copy_fn_;
    int null_del = del == (void (*)(void))mpi_null_delete_fn_ ||
                   del == (void (*)(void))mpi_comm_null_delete_fn_ ||
                   del == (void (*)(void))mpi_type_null_delete_fn_ ||
                   del == (void (*)(void))mpi_win_null_delete_fn_;
    int rc = create(null_copy ? NULL : (void *)f_copy_tramp, null_del ? NULL : (void *)f_delete_tramp,
                    (int *)keyval, k);
    if (rc != MPI_SUCCESS) {
        free(k);
    } else {
        k->next = __atomic_load_n(&f_keyvals, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(&f_keyvals, &k->next, k, 1, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED))
            ;
    }
    if (ierr) *ierr = rc; /* optional in mpi_f08 */
}

#define F_KEYVAL(lower, UP, C, ET, MPI1)                                                  \
    RM_FEXPORT void p##lower##_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval,  \
                                void *extra, MPI_Fint *ierr)                              \
    {                                                                                     \
        f_keyval_create((c_keyval_create_t)C, copy, del, keyval, (MPI_Aint)*(ET *)extra, \
                        MPI1, ierr);                                                      \
    }                                                                                     \
    RM_FALIAS(p##lower##_, lower##_) RM_FALIAS(p##lower##_, lower)                        \
    RM_FALIAS(p##lower##_, lower##__) RM_FALIAS(p##lower##_, UP)                          \
    RM_FALIAS(p##lower##_, p##lower) RM_FALIAS(p##lower##_, p##lower##__)                 \
    RM_FALIAS(p##lower##_, P##UP)

F_KEYVAL(mpi_comm_create_keyval, MPI_COMM_CREATE_KEYVAL, MPI_Comm_create_keyval, MPI_Aint, 0)
F_KEYVAL(mpi_type_create_keyval, MPI_TYPE_CREATE_KEYVAL, MPI_Type_create_keyval, MPI_Aint, 0)
F_KEYVAL(mpi_win_create_keyval, MPI_WIN_CREATE_KEYVAL, MPI_Win_create_keyval, MPI_Aint, 0)
F_KEYVAL(mpi_keyval_create, MPI_KEYVAL_CREATE, MPI_Keyval_create, MPI_Fint, 1)

/* ------------------------------------------------------------------------
 * Generalized requests with Fortran callbacks. */
struct f_greq {
    void (*query)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    void (*free)(MPI_Aint *, MPI_Fint *);
    void (*cancel)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    MPI_Aint extra;
};

static int f_greq_query(void *extra, MPI_Status *status)
{
    struct f_greq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)status, &ierr);
    return ierr;
}

static int f_greq_free(void *extra)
{
    struct f_greq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(&g->extra, &ierr);
    free(g);
    return ierr;
}

static int f_greq_cancel(void *extra, int complete)
{
    struct f_greq *g = extra;
    MPI_Fint ierr = MPI_SUCCESS, fc = complete ? 1 : 0;
    g->cancel(&g->extra, &fc, &ierr);
    return ierr;
}

RM_FEXPORT void pmpi_grequest_start_(void (*query)(void), void (*fre)(void), void (*cancel)(void),
                                     void *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_greq *g = malloc(sizeof *g);
    if (!g) { if (ierr) *ierr = MPI_ERR_NO_MEM; return; }
    g->query = (void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))query;
    g->free = (void (*)(MPI_Aint *, MPI_Fint *))fre;
    g->cancel = (void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))cancel;
    g->extra = *(MPI_Aint *)extra;
    int rc = MPI_Grequest_start(f_greq_query, f_greq_free, f_greq_cancel, g, (MPI_Request *)request);
    if (rc != MPI_SUCCESS) free(g);
    if (ierr) *ierr = rc;
}
RM_FALIAS(pmpi_grequest_start_, mpi_grequest_start_)
RM_FALIAS(pmpi_grequest_start_, mpi_grequest_start)
RM_FALIAS(pmpi_grequest_start_, mpi_grequest_start__)
RM_FALIAS(pmpi_grequest_start_, MPI_GREQUEST_START)
RM_FALIAS(pmpi_grequest_start_, pmpi_grequest_start)
RM_FALIAS(pmpi_grequest_start_, pmpi_grequest_start__)
RM_FALIAS(pmpi_grequest_start_, PMPI_GREQUEST_START)

/* MPI_F_SYNC_REG: an external call the compiler cannot see through, so a
 * buffer a nonblocking operation writes is reread from memory after it. */
RM_FEXPORT void pmpi_f_sync_reg_(void *buf)
{
    __asm__ __volatile__("" : : "r"(buf) : "memory");
}
RM_FALIAS(pmpi_f_sync_reg_, mpi_f_sync_reg_)
RM_FALIAS(pmpi_f_sync_reg_, mpi_f_sync_reg)
RM_FALIAS(pmpi_f_sync_reg_, mpi_f_sync_reg__)
RM_FALIAS(pmpi_f_sync_reg_, MPI_F_SYNC_REG)
RM_FALIAS(pmpi_f_sync_reg_, pmpi_f_sync_reg)
RM_FALIAS(pmpi_f_sync_reg_, pmpi_f_sync_reg__)
RM_FALIAS(pmpi_f_sync_reg_, PMPI_F_SYNC_REG)
