/* Procedures of standard-ABI programs that the engine calls: user reduction
 * operations, error handlers, attribute copy and delete functions,
 * generalized requests, data representations. The engine keeps the program's
 * procedure beside a trampoline (op_t.call, errhandler_t.call); the trampoline hands the procedure
 * the ABI's handles and error classes (docs/abi.md). */
#include "abi_conv.h"
#include "abi_tables.h"
#include "coll/op.h"
#include "comm/attr.h"
#include "comm/comm.h"
#include "util/lock.h"

typedef void(abi_User_function)(void *invec, void *inoutvec, int *len, abi_Datatype *datatype);
typedef void(abi_User_function_c)(void *invec, void *inoutvec, MPI_Count *len,
                                  abi_Datatype *datatype);
typedef void(abi_handle_errhandler)(void *handle, int *error_code, ...);

static void op_call(void (*fn)(void), void *in, void *inout, int *len, MPI_Datatype dt)
{
    abi_Datatype h = h_out_Datatype(dt);
    ((abi_User_function *)fn)(in, inout, len, &h);
}

static void op_call_c(void (*fn)(void), void *in, void *inout, MPI_Count *len, MPI_Datatype dt)
{
    abi_Datatype h = h_out_Datatype(dt);
    ((abi_User_function_c *)fn)(in, inout, len, &h);
}

/* what the engine holds as the op's C function: never called, op->call is */
static void op_unused(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    abort();
}

static void op_unused_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    abort();
}

/* the engine made op m: it calls the program's fn through a trampoline */
static int op_made(int rc, int m, void (*fn)(void), int large, abi_Op *op)
{
    if (rc != MPI_SUCCESS)
        return abi_err_out(rc);
    rm_lock();
    op_t *o = op_get(m);
    o->abi_fn = fn;
    if (large)
        o->call_c = op_call_c;
    else
        o->call = op_call;
    rm_unlock();
    *op = h_out_Op(m);
    return MPI_SUCCESS;
}

int PMPI_Op_create(abi_User_function *user_fn, int commute, abi_Op *op)
{
    int m = 0;
    int rc = RMI_PMPI_Op_create(user_fn ? op_unused : NULL, commute, op ? &m : NULL);
    return op_made(rc, m, (void (*)(void))user_fn, 0, op);
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_create_c(abi_User_function_c *user_fn, int commute, abi_Op *op)
{
    int m = 0;
    int rc = RMI_PMPI_Op_create_c(user_fn ? op_unused_c : NULL, commute, op ? &m : NULL);
    return op_made(rc, m, (void (*)(void))user_fn, 1, op);
}
#pragma weak MPI_Op_create_c = PMPI_Op_create_c

/* communicators, windows and sessions: the object type is in the engine
 * handle's bits 26-29 */
static void *handle_out(int h)
{
    switch (((unsigned)h >> 26) & 0xf) {
    case ((unsigned)MPI_COMM_NULL >> 26) & 0xf:
        return h_out_Comm(h);
    case ((unsigned)MPI_WIN_NULL >> 26) & 0xf:
        return h_out_Win(h);
    default:
        return h_out_Session(h);
    }
}

static void errh_call(void (*fn)(void), void *obj, int *code)
{
    void *h = handle_out(*(int *)obj);
    int c = err_out(*code);
    ((abi_handle_errhandler *)fn)(&h, &c);
}

static void errh_call_file(void (*fn)(void), void *obj, int *code)
{
    abi_File f = f_out(*(MPI_File *)obj);
    int c = err_out(*code);
    ((abi_handle_errhandler *)fn)(&f, &c);
}

static void errh_unused(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    abort();
}

static int errh_create(void (*fn)(void), void (*call)(void (*)(void), void *, int *), int rc, int m,
                       abi_Errhandler *errhandler)
{
    if (rc != MPI_SUCCESS)
        return abi_err_out(rc);
    rm_lock();
    errhandler_t *e = errhandler_get(m);
    e->abi_fn = fn;
    e->call = call;
    rm_unlock();
    *errhandler = h_out_Errhandler(m);
    return MPI_SUCCESS;
}

#define ABI_ERRH_CREATE(Obj, call)                                                                 \
    int PMPI_##Obj##_create_errhandler(abi_handle_errhandler *fn, abi_Errhandler *errhandler)      \
    {                                                                                              \
        int m = 0;                                                                                 \
        MPI_##Obj##_errhandler_function *u =                                                       \
            (MPI_##Obj##_errhandler_function *)(void (*)(void))errh_unused;                        \
        int rc = RMI_PMPI_##Obj##_create_errhandler(fn ? u : NULL, errhandler ? &m : NULL);        \
        return errh_create((void (*)(void))fn, call, rc, m, errhandler);                           \
    }
ABI_ERRH_CREATE(Comm, errh_call)
ABI_ERRH_CREATE(Win, errh_call)
ABI_ERRH_CREATE(Session, errh_call)
ABI_ERRH_CREATE(File, errh_call_file)
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler

/* attribute callbacks: the object's handle by value, pointer-sized */
typedef int(abi_copy_attr_function)(void *handle, int keyval, void *extra_state,
                                    void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int(abi_delete_attr_function)(void *handle, int keyval, void *attribute_val,
                                      void *extra_state);
/* the ABI's MPI_*_DUP_FN; its MPI_*_NULL_COPY_FN and _DELETE_FN are NULL */
#define ABI_DUP_FN ((abi_copy_attr_function *)1)

static void *attr_handle_out(enum attr_obj kind, int h)
{
    return kind == ATTR_TYPE  ? (void *)h_out_Datatype(h)
           : kind == ATTR_WIN ? (void *)h_out_Win(h)
                              : (void *)h_out_Comm(h);
}

static int attr_copy_call(void (*fn)(void), enum attr_obj kind, int handle, int keyval, void *extra,
                          void *in, void *out, int *flag)
{
    int rc = ((abi_copy_attr_function *)fn)(attr_handle_out(kind, handle), keyval_out(keyval),
                                            extra, in, out, flag);
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

static int attr_delete_call(void (*fn)(void), enum attr_obj kind, int handle, int keyval,
                            void *value, void *extra)
{
    int rc = ((abi_delete_attr_function *)fn)(attr_handle_out(kind, handle), keyval_out(keyval),
                                              value, extra);
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

/* what the engine holds as the keyval's C functions when the program's are
 * called through attr_*_call: never called */
static int copy_unused(MPI_Comm c, int k, void *e, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)e, (void)in, (void)out, (void)flag;
    abort();
}

static int delete_unused(MPI_Comm c, int k, void *v, void *e)
{
    (void)c, (void)k, (void)v, (void)e;
    abort();
}

/* the engine's copy function: none, its own duplicating one, or the
 * program's through attr_copy_call */
typedef int(engine_copy_t)(MPI_Comm, int, void *, void *, void *, int *);
static engine_copy_t *engine_copy(abi_copy_attr_function *copy, engine_copy_t *dup)
{
    return !copy ? NULL : copy == ABI_DUP_FN ? dup : copy_unused;
}

static int keyval_made(int rc, int m, abi_copy_attr_function *copy, abi_delete_attr_function *del,
                       int *keyval)
{
    if (rc != MPI_SUCCESS)
        return abi_err_out(rc);
    int user_copy = copy && copy != ABI_DUP_FN;
    rm_lock();
    attr_keyval_set_calls(m, user_copy ? attr_copy_call : NULL,
                          user_copy ? (void (*)(void))copy : NULL, del ? attr_delete_call : NULL,
                          (void (*)(void))del);
    rm_unlock();
    *keyval = keyval_out(m);
    return MPI_SUCCESS;
}

#define ABI_KEYVAL_CREATE(Obj, Type, dup)                                                          \
    int PMPI_##Obj##_create_keyval(abi_copy_attr_function *copy, abi_delete_attr_function *del,    \
                                   int *keyval, void *extra_state)                                 \
    {                                                                                              \
        int m = 0;                                                                                 \
        int rc = RMI_PMPI_##Obj##_create_keyval(                                                   \
            (MPI_##Type##_copy_attr_function *)engine_copy(copy, (engine_copy_t *)(dup)),          \
            del ? (MPI_##Type##_delete_attr_function *)delete_unused : NULL, keyval ? &m : NULL,   \
            extra_state);                                                                          \
        return keyval_made(rc, m, copy, del, keyval);                                              \
    }
ABI_KEYVAL_CREATE(Comm, Comm, MPIX_Comm_dup_fn)
ABI_KEYVAL_CREATE(Type, Type, MPIX_Type_dup_fn)
ABI_KEYVAL_CREATE(Win, Win, MPIX_Win_dup_fn)
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Keyval_create(abi_copy_attr_function *copy, abi_delete_attr_function *del, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval(copy, del, keyval, extra_state);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

/* generalized requests: the engine calls these with the program's three
 * functions and extra state kept together (one allocation per request,
 * released with the request, when the engine calls the free function) */
typedef int(abi_query_function)(void *extra_state, abi_Status *status);
typedef int(abi_free_function)(void *extra_state);
typedef int(abi_cancel_function)(void *extra_state, int complete);
typedef struct {
    abi_query_function *query;
    abi_free_function *free;
    abi_cancel_function *cancel;
    void *extra;
} greq_t;

static int greq_query(void *state, MPI_Status *status)
{
    greq_t *g = state;
    if (!g->query)
        return MPI_SUCCESS;
    abi_Status a;
    abi_status_out(&a, status);
    int rc = g->query(g->extra, &a);
    abi_status_in(status, &a);
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

static int greq_free(void *state)
{
    greq_t *g = state;
    int rc = g->free ? g->free(g->extra) : 0;
    free(g);
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

static int greq_cancel(void *state, int complete)
{
    greq_t *g = state;
    int rc = g->cancel ? g->cancel(g->extra, complete) : 0;
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

int PMPI_Grequest_start(abi_query_function *query_fn, abi_free_function *free_fn,
                        abi_cancel_function *cancel_fn, void *extra_state, abi_Request *request)
{
    greq_t *g = request ? malloc(sizeof *g) : NULL;
    if (request && !g)
        return abi_err_out(MPI_ERR_NO_MEM);
    if (g)
        *g = (greq_t){query_fn, free_fn, cancel_fn, extra_state};
    int m = 0;
    int rc = RMI_PMPI_Grequest_start(greq_query, greq_free, greq_cancel, g, request ? &m : NULL);
    if (rc != MPI_SUCCESS) {
        free(g);
        return abi_err_out(rc);
    }
    *request = h_out_Request(m);
    return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

/* data representations: the conversion and extent functions see the ABI's
 * datatype handles; a representation lives as long as the process, and so
 * does what holds the program's functions. MPI_Register_datarep_c's take an
 * MPI_Count: the engine calls each kind through its own trampolines. */
typedef int(abi_conversion_function)(void *userbuf, abi_Datatype datatype, int count, void *filebuf,
                                     MPI_Offset position, void *extra_state);
typedef int(abi_conversion_function_c)(void *userbuf, abi_Datatype datatype, MPI_Count count, void *filebuf,
                                       MPI_Offset position, void *extra_state);
typedef int(abi_extent_function)(abi_Datatype datatype, MPI_Aint *extent, void *extra_state);
typedef union {
    abi_conversion_function *i;
    abi_conversion_function_c *c;
} datarep_fn_t;
typedef struct {
    datarep_fn_t read, write;
    abi_extent_function *extent;
    void *extra;
} datarep_t;

static int conv_result(int rc)
{
    return rc == 0 ? MPI_SUCCESS : err_in(rc);
}

static int datarep_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                        MPI_Offset position, void *state)
{
    datarep_t *d = state;
    return conv_result(d->read.i(userbuf, h_out_Datatype(dt), count, filebuf, position, d->extra));
}

static int datarep_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                         MPI_Offset position, void *state)
{
    datarep_t *d = state;
    return conv_result(d->write.i(userbuf, h_out_Datatype(dt), count, filebuf, position, d->extra));
}

static int datarep_read_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                          MPI_Offset position, void *state)
{
    datarep_t *d = state;
    return conv_result(d->read.c(userbuf, h_out_Datatype(dt), count, filebuf, position, d->extra));
}

static int datarep_write_c(void *userbuf, MPI_Datatype dt, MPI_Count count, void *filebuf,
                           MPI_Offset position, void *state)
{
    datarep_t *d = state;
    return conv_result(d->write.c(userbuf, h_out_Datatype(dt), count, filebuf, position, d->extra));
}

static int datarep_extent(MPI_Datatype dt, MPI_Aint *extent, void *state)
{
    datarep_t *d = state;
    return conv_result(d->extent(h_out_Datatype(dt), extent, d->extra));
}

/* the record of a representation's functions, registered with the engine
 * (big: MPI_Register_datarep_c's) */
static int datarep_register(const char *datarep, int big, datarep_fn_t read, datarep_fn_t write,
                            abi_extent_function *extent, void *extra_state)
{
    datarep_t *d = malloc(sizeof *d);
    if (!d)
        return abi_err_out(MPI_ERR_NO_MEM);
    *d = (datarep_t){read, write, extent, extra_state};
    int rc = big ? RMI_PMPI_Register_datarep_c(datarep, read.c ? datarep_read_c : NULL,
                                               write.c ? datarep_write_c : NULL,
                                               extent ? datarep_extent : NULL, d)
                 : RMI_PMPI_Register_datarep(datarep, read.i ? datarep_read : NULL, write.i ? datarep_write : NULL,
                                             extent ? datarep_extent : NULL, d);
    if (rc != MPI_SUCCESS) {
        free(d);
        return abi_err_out(rc);
    }
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep, abi_conversion_function *read_conversion_fn,
                          abi_conversion_function *write_conversion_fn,
                          abi_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return datarep_register(datarep, 0, (datarep_fn_t){.i = read_conversion_fn},
                            (datarep_fn_t){.i = write_conversion_fn}, dtype_file_extent_fn, extra_state);
}
#pragma weak MPI_Register_datarep = PMPI_Register_datarep

int PMPI_Register_datarep_c(const char *datarep, abi_conversion_function_c *read_conversion_fn,
                            abi_conversion_function_c *write_conversion_fn,
                            abi_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return datarep_register(datarep, 1, (datarep_fn_t){.c = read_conversion_fn},
                            (datarep_fn_t){.c = write_conversion_fn}, dtype_file_extent_fn, extra_state);
}
#pragma weak MPI_Register_datarep_c = PMPI_Register_datarep_c
