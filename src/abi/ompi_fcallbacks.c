/* libmpi_mpifh.so.40: the calls that register procedures written in Fortran
 * (docs/abi.md, "Fortran through Open MPI's ABI"). libmpi.so.40 calls C
 * functions with Open MPI's C handles (pointers); a Fortran procedure wants
 * its Fortran integers, by reference. So C trampolines stand between:
 *  - attribute copy and delete procedures: the keyval's extra_state is a
 *    record holding the Fortran procedures and the program's extra_state
 *    (kept until MPI_Finalize, which frees them through an attribute of
 *    MPI_COMM_SELF: a keyval lives as long as an attribute of it, which C
 *    does not report; 40 bytes a keyval);
 *  - generalized requests: the same, the record freed with the request;
 *  - user reductions and error handlers, which have no extra_state: a fixed
 *    set of trampolines per kind, one per distinct Fortran procedure (the
 *    same procedure registered again shares its trampoline), F_SLOTS each. */
#include "ompi_fortran.h"

#include <pthread.h>

/* the names: mpif.h's manglings, or with OMPI_F08 (libmpi_usempif08.so.40)
 * the mpi_f08 module's, whose procedures take the same arguments */
#ifdef OMPI_F08
#define F_BODY
#define F_NAMES(lower, upper) RM_FALIAS(p##lower##_, lower##_f08_) RM_FALIAS(p##lower##_, p##lower##_f08_)
#else
#define F_BODY RM_FEXPORT
#define F_NAMES(lower, upper)                                                                   \
    RM_FALIAS(p##lower##_, lower##_) RM_FALIAS(p##lower##_, lower)                              \
    RM_FALIAS(p##lower##_, lower##__) RM_FALIAS(p##lower##_, upper)                             \
    RM_FALIAS(p##lower##_, p##lower) RM_FALIAS(p##lower##_, p##lower##__)                       \
    RM_FALIAS(p##lower##_, P##upper)
#endif

#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define F_SLOTS 32

typedef int c_copy_fn(void *, int, void *, void *, void *, int *);
typedef int c_delete_fn(void *, int, void *, void *);
typedef void c_user_fn(void *, void *, int *, MPI_Datatype *);
typedef void c_errh_fn(void *, int *, ...);

int PMPI_Comm_create_keyval(c_copy_fn *, c_delete_fn *, int *, void *);
int PMPI_Type_create_keyval(c_copy_fn *, c_delete_fn *, int *, void *);
int PMPI_Win_create_keyval(c_copy_fn *, c_delete_fn *, int *, void *);
int PMPI_Keyval_create(c_copy_fn *, c_delete_fn *, int *, void *);
int PMPI_Comm_set_attr(MPI_Comm, int, void *);
extern struct ompi_communicator_t ompi_mpi_comm_self; /* MPI_COMM_SELF */
c_copy_fn MPI_COMM_NULL_COPY_FN; /* Open MPI's C copy function that copies nothing */
int PMPI_Op_create(c_user_fn *, int, MPI_Op *);
int PMPI_Comm_create_errhandler(c_errh_fn *, MPI_Errhandler *);
int PMPI_Win_create_errhandler(c_errh_fn *, MPI_Errhandler *);
int PMPI_File_create_errhandler(c_errh_fn *, MPI_Errhandler *);
int PMPI_Errhandler_create(c_errh_fn *, MPI_Errhandler *);
MPI_Fint PMPI_Comm_c2f(MPI_Comm);
MPI_Fint PMPI_Type_c2f(MPI_Datatype);
MPI_Fint PMPI_Win_c2f(MPI_Win);
MPI_Fint PMPI_File_c2f(MPI_File);
MPI_Fint PMPI_Op_c2f(MPI_Op);
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler);

/* ------------------------------------------------------------ keyvals */
typedef void f_copy_t(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void f_delete_t(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);
enum { K_COMM, K_TYPE, K_WIN, K_MPI1 };
struct f_keyval {
    f_copy_t *copy;
    f_delete_t *del;
    int kind;
    MPI_Aint extra; /* the program's extra_state (INTEGER for MPI_KEYVAL_CREATE) */
    struct f_keyval *next; /* every record, freed at MPI_Finalize */
};
static pthread_mutex_t f_keyvals_mu = PTHREAD_MUTEX_INITIALIZER;
static struct f_keyval *f_keyvals;

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI-4.1 11.2.4) */
static int f_keyvals_free(void *comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    pthread_mutex_lock(&f_keyvals_mu);
    while (f_keyvals) {
        struct f_keyval *k = f_keyvals;
        f_keyvals = k->next;
        free(k);
    }
    pthread_mutex_unlock(&f_keyvals_mu);
    return MPI_SUCCESS;
}

/* under f_keyvals_mu: the first record sets the attribute that frees them */
static void f_keyvals_watch(void)
{
    static int watched;
    int kv;
    if (!watched && PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, f_keyvals_free, &kv, NULL) == MPI_SUCCESS &&
        PMPI_Comm_set_attr(&ompi_mpi_comm_self, kv, NULL) == MPI_SUCCESS)
        watched = 1;
}

static MPI_Fint obj_c2f(int kind, void *h)
{
    switch (kind) {
    case K_TYPE: return PMPI_Type_c2f(h);
    case K_WIN: return PMPI_Win_c2f(h);
    default: return PMPI_Comm_c2f(h);
    }
}

static int copy_tramp(void *obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    struct f_keyval *k = extra;
    MPI_Fint o = obj_c2f(k->kind, obj), kv = keyval, fl = 0, err = MPI_SUCCESS;
    if (k->kind == K_MPI1) {
        MPI_Fint ex = (MPI_Fint)k->extra, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
        k->copy(&o, &kv, &ex, &vin, &vout, &fl, &err);
        *(void **)out = (void *)(MPI_Aint)vout;
    } else {
        MPI_Aint ex = k->extra, vin = (MPI_Aint)in, vout = 0;
        k->copy(&o, &kv, &ex, &vin, &vout, &fl, &err);
        *(void **)out = (void *)vout;
    }
    *flag = fl != 0;
    return err;
}

static int delete_tramp(void *obj, int keyval, void *val, void *extra)
{
    struct f_keyval *k = extra;
    MPI_Fint o = obj_c2f(k->kind, obj), kv = keyval, err = MPI_SUCCESS;
    if (k->kind == K_MPI1) {
        MPI_Fint ex = (MPI_Fint)k->extra, v = (MPI_Fint)(MPI_Aint)val;
        k->del(&o, &kv, &v, &ex, &err);
    } else {
        MPI_Aint ex = k->extra, v = (MPI_Aint)val;
        k->del(&o, &kv, &v, &ex, &err);
    }
    return err;
}

static void create_keyval(int kind, void (*copy)(void), void (*del)(void), MPI_Fint *keyval,
                          void *extra, MPI_Fint *ierr)
{
    struct f_keyval *k = malloc(sizeof *k);
    if (!k) {
        if (ierr)
            *ierr = MPI_ERR_OTHER;
        return;
    }
    k->copy = (f_copy_t *)copy;
    k->del = (f_delete_t *)del;
    k->kind = kind;
    k->extra = kind == K_MPI1 ? *(MPI_Fint *)extra : *(MPI_Aint *)extra;
    int (*create)(c_copy_fn *, c_delete_fn *, int *, void *) =
        kind == K_COMM ? PMPI_Comm_create_keyval : kind == K_TYPE ? PMPI_Type_create_keyval
        : kind == K_WIN ? PMPI_Win_create_keyval : PMPI_Keyval_create;
    int kv = 0;
    int rc = create(copy_tramp, delete_tramp, &kv, k);
    if (rc == MPI_SUCCESS) {
        *keyval = kv;
        pthread_mutex_lock(&f_keyvals_mu);
        f_keyvals_watch();
        k->next = f_keyvals;
        f_keyvals = k;
        pthread_mutex_unlock(&f_keyvals_mu);
    } else {
        free(k);
    }
    if (ierr) /* optional in mpi_f08 */
        *ierr = rc;
}

#define KEYVAL_CREATOR(lower, upper, kind)                                                      \
    F_BODY void p##lower##_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval,         \
                                void *extra, MPI_Fint *ierr)                                    \
    {                                                                                           \
        create_keyval(kind, copy, del, keyval, extra, ierr);                                    \
    }                                                                                           \
    F_NAMES(lower, upper)

KEYVAL_CREATOR(mpi_comm_create_keyval, MPI_COMM_CREATE_KEYVAL, K_COMM)
KEYVAL_CREATOR(mpi_type_create_keyval, MPI_TYPE_CREATE_KEYVAL, K_TYPE)
KEYVAL_CREATOR(mpi_win_create_keyval, MPI_WIN_CREATE_KEYVAL, K_WIN)
#ifndef OMPI_F08 /* MPI-1's, which mpi_f08 has not */
KEYVAL_CREATOR(mpi_keyval_create, MPI_KEYVAL_CREATE, K_MPI1)
#endif

/* ------------------------------------ user reductions, error handlers */
typedef void f_user_t(void *, void *, MPI_Fint *, MPI_Fint *);
typedef void f_errh_t(MPI_Fint *, MPI_Fint *);
enum { P_OP, P_COMM, P_WIN, P_FILE, P_NKINDS };
static pthread_mutex_t slot_mu = PTHREAD_MUTEX_INITIALIZER;
static void (*slots[P_NKINDS][F_SLOTS])(void);

/* the slot of procedure fn of a kind, -1 when all are taken */
static int slot_of(int kind, void (*fn)(void))
{
    int r = -1;
    pthread_mutex_lock(&slot_mu);
    for (int i = 0; i < F_SLOTS && r < 0; i++) {
        if (slots[kind][i] == fn || !slots[kind][i]) {
            slots[kind][i] = fn;
            r = i;
        }
    }
    pthread_mutex_unlock(&slot_mu);
    return r;
}

static void op_call(int i, void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Fint n = *len, t = PMPI_Type_c2f(*type);
    ((f_user_t *)slots[P_OP][i])(in, inout, &n, &t);
}

static void errh_call(int kind, int i, void *h, int *code)
{
    MPI_Fint f = kind == P_WIN ? PMPI_Win_c2f(h) : kind == P_FILE ? PMPI_File_c2f(h) : PMPI_Comm_c2f(h);
    MPI_Fint c = *code;
    ((f_errh_t *)slots[kind][i])(&f, &c);
}

/* trampoline s (a token) serves slot i */
#define TRAMPS(s, i)                                                                            \
    static void op_t##s(void *a, void *b, int *n, MPI_Datatype *t) { op_call(i, a, b, n, t); }  \
    static void comm_t##s(void *h, int *c, ...) { errh_call(P_COMM, i, *(MPI_Comm *)h, c); }    \
    static void win_t##s(void *h, int *c, ...) { errh_call(P_WIN, i, *(MPI_Win *)h, c); }       \
    static void file_t##s(void *h, int *c, ...) { errh_call(P_FILE, i, *(MPI_File *)h, c); }
#define TRAMPS4(r) TRAMPS(r##a, 4 * r) TRAMPS(r##b, 4 * r + 1) TRAMPS(r##c, 4 * r + 2) TRAMPS(r##d, 4 * r + 3)
TRAMPS4(0) TRAMPS4(1) TRAMPS4(2) TRAMPS4(3) TRAMPS4(4) TRAMPS4(5) TRAMPS4(6) TRAMPS4(7)
#define ROW(p, r) p##_t##r##a, p##_t##r##b, p##_t##r##c, p##_t##r##d
#define ALL(p) ROW(p, 0), ROW(p, 1), ROW(p, 2), ROW(p, 3), ROW(p, 4), ROW(p, 5), ROW(p, 6), ROW(p, 7)
static c_user_fn *const op_tramps[F_SLOTS] = {ALL(op)};
static c_errh_fn *const errh_tramps[P_NKINDS][F_SLOTS] = {
    [P_COMM] = {ALL(comm)}, [P_WIN] = {ALL(win)}, [P_FILE] = {ALL(file)}};

F_BODY void pmpi_op_create_(void (*fn)(void), MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    int i = slot_of(P_OP, fn);
    MPI_Op c = NULL;
    int rc = i < 0 ? MPI_ERR_INTERN : PMPI_Op_create(op_tramps[i], *commute != 0, &c);
    if (rc == MPI_SUCCESS)
        *op = PMPI_Op_c2f(c);
    if (ierr) /* optional in mpi_f08 */
        *ierr = rc;
}
F_NAMES(mpi_op_create, MPI_OP_CREATE)

static void create_errh(int kind, int (*create)(c_errh_fn *, MPI_Errhandler *), void (*fn)(void),
                        MPI_Fint *errh, MPI_Fint *ierr)
{
    int i = slot_of(kind, fn);
    MPI_Errhandler c = NULL;
    int rc = i < 0 ? MPI_ERR_INTERN : create(errh_tramps[kind][i], &c);
    if (rc == MPI_SUCCESS)
        *errh = PMPI_Errhandler_c2f(c);
    if (ierr) /* optional in mpi_f08 */
        *ierr = rc;
}

#define ERRH_CREATOR(lower, upper, kind, create)                                                \
    F_BODY void p##lower##_(void (*fn)(void), MPI_Fint *errh, MPI_Fint *ierr)               \
    {                                                                                           \
        create_errh(kind, create, fn, errh, ierr);                                              \
    }                                                                                           \
    F_NAMES(lower, upper)

ERRH_CREATOR(mpi_comm_create_errhandler, MPI_COMM_CREATE_ERRHANDLER, P_COMM, PMPI_Comm_create_errhandler)
#ifndef OMPI_F08
ERRH_CREATOR(mpi_errhandler_create, MPI_ERRHANDLER_CREATE, P_COMM, PMPI_Errhandler_create)
#endif
ERRH_CREATOR(mpi_win_create_errhandler, MPI_WIN_CREATE_ERRHANDLER, P_WIN, PMPI_Win_create_errhandler)
ERRH_CREATOR(mpi_file_create_errhandler, MPI_FILE_CREATE_ERRHANDLER, P_FILE, PMPI_File_create_errhandler)

/* --------------------------------------------- generalized requests */
typedef void f_query_t(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_free_t(MPI_Aint *, MPI_Fint *);
typedef void f_cancel_t(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef int c_query_fn(void *, MPI_Status *);
typedef int c_free_fn(void *);
typedef int c_cancel_fn(void *, int);
int PMPI_Grequest_start(c_query_fn *, c_free_fn *, c_cancel_fn *, void *, MPI_Request *);
MPI_Fint PMPI_Request_c2f(MPI_Request);

/* the request's extra_state: freed with the request */
struct f_greq {
    f_query_t *query;
    f_free_t *free;
    f_cancel_t *cancel;
    MPI_Aint extra;
};

/* a Fortran status is Open MPI's C status */
static int greq_query(void *e, MPI_Status *st)
{
    struct f_greq *g = e;
    MPI_Fint err = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)(void *)st, &err);
    return err;
}

static int greq_free(void *e)
{
    struct f_greq *g = e;
    MPI_Fint err = MPI_SUCCESS;
    g->free(&g->extra, &err);
    free(g);
    return err;
}

static int greq_cancel(void *e, int complete)
{
    struct f_greq *g = e;
    MPI_Fint c = complete != 0, err = MPI_SUCCESS;
    g->cancel(&g->extra, &c, &err);
    return err;
}

F_BODY void pmpi_grequest_start_(void (*query)(void), void (*fre)(void), void (*cancel)(void),
                                     MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_greq *g = malloc(sizeof *g);
    if (!g) {
        if (ierr)
            *ierr = MPI_ERR_OTHER;
        return;
    }
    g->query = (f_query_t *)query;
    g->free = (f_free_t *)fre;
    g->cancel = (f_cancel_t *)cancel;
    g->extra = *extra;
    MPI_Request c = NULL;
    int rc = PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &c);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    else
        free(g);
    if (ierr) /* optional in mpi_f08 */
        *ierr = rc;
}
F_NAMES(mpi_grequest_start, MPI_GREQUEST_START)

/* --------------------------------------------------- MPI_COMM_IDUP */
/* libmpi.so.40 writes the new communicator into the handle it was given when
 * the request completes: here a cell of libmpi.so.40's, whose Fortran integer
 * (given now) stands for what the cell will hold (src/abi/ompi_fhandle.c) */
int railmpi_ompi_f_pending(int cls, void *cell);
int PMPI_Comm_idup(MPI_Comm, MPI_Comm *, MPI_Request *);
MPI_Comm PMPI_Comm_f2c(MPI_Fint);
#define OMPI_F_COMM 0 /* src/abi/ompi_conv.h */

F_BODY void pmpi_comm_idup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm *cell = calloc(1, sizeof *cell);
    MPI_Request req = NULL;
    int rc = !cell ? MPI_ERR_OTHER : PMPI_Comm_idup(PMPI_Comm_f2c(*comm), cell, &req);
    if (rc == MPI_SUCCESS) {
        int f = railmpi_ompi_f_pending(OMPI_F_COMM, cell);
        if (f < 0)
            rc = MPI_ERR_OTHER; /* the request goes on; the cell is the engine's */
        else
            *newcomm = f;
        *request = PMPI_Request_c2f(req);
    } else {
        free(cell);
    }
    if (ierr)
        *ierr = rc;
}
F_NAMES(mpi_comm_idup, MPI_COMM_IDUP)


/* ------------------------------------------------ data representations */
typedef void f_conv_t(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Offset *, MPI_Aint *, MPI_Fint *);
typedef void f_extent_t(MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);
typedef int c_conv_fn(void *, MPI_Datatype, int, void *, MPI_Offset, void *);
typedef int c_extent_fn(MPI_Datatype, MPI_Aint *, void *);
int PMPI_Register_datarep(const char *, c_conv_fn *, c_conv_fn *, c_extent_fn *, void *);

/* MPI_CONVERSION_FN_NULL of Open MPI's mpif.h and modules: Fortran procedures
 * of libmpi.so.40 (src/abi/ompi_fpredef.c), which stand for C's NULL */
#ifdef OMPI_F08
extern void conv_null(void) __asm__("__mpi_f08_callbacks_MOD_mpi_conversion_fn_null");
#else
extern void conv_null(void) __asm__("mpi_conversion_fn_null_");
#endif

/* the data representation's extra_state: kept, as the representation is */
struct f_datarep {
    f_conv_t *read, *write;
    f_extent_t *extent;
    MPI_Aint extra;
};

static int datarep_conv(f_conv_t *fn, void *userbuf, MPI_Datatype type, int count, void *filebuf,
                        MPI_Offset position, struct f_datarep *d)
{
    MPI_Fint t = PMPI_Type_c2f(type), n = count, err = MPI_SUCCESS;
    MPI_Offset pos = position;
    fn(userbuf, &t, &n, filebuf, &pos, &d->extra, &err);
    return err;
}

static int datarep_read(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                        void *extra)
{
    return datarep_conv(((struct f_datarep *)extra)->read, userbuf, type, count, filebuf, position, extra);
}

static int datarep_write(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                         void *extra)
{
    return datarep_conv(((struct f_datarep *)extra)->write, userbuf, type, count, filebuf, position, extra);
}

static int datarep_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    struct f_datarep *d = extra;
    MPI_Fint t = PMPI_Type_c2f(type), err = MPI_SUCCESS;
    MPI_Aint e = 0;
    d->extent(&t, &e, &d->extra, &err);
    *extent = e;
    return err;
}

F_BODY void pmpi_register_datarep_(const char *datarep, void (*rd)(void), void (*wr)(void),
                                   void (*ext)(void), MPI_Aint *extra, MPI_Fint *ierr, size_t len)
{
    char *name = f_str_in(datarep, len);
    struct f_datarep *d = malloc(sizeof *d);
    int rc = MPI_ERR_OTHER;
    if (name && d) {
        d->read = (f_conv_t *)rd;
        d->write = (f_conv_t *)wr;
        d->extent = (f_extent_t *)ext;
        d->extra = *extra;
        rc = PMPI_Register_datarep(name, rd == conv_null ? NULL : datarep_read,
                                   wr == conv_null ? NULL : datarep_write, datarep_extent, d);
    }
    if (rc != MPI_SUCCESS)
        free(d);
    free(name);
    if (ierr)
        *ierr = rc;
}
F_NAMES(mpi_register_datarep, MPI_REGISTER_DATAREP)
