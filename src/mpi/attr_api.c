/* Attribute, error-handler, error-string and info bindings. */
#include "comm/attr.h"
#include "mpi/mpiimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- predefined attributes ----------------------------------------------
 * Read-only, on every communicator (as MPICH and Open MPI answer them; MPI
 * names MPI_COMM_WORLD, and libraries ask their own communicators for
 * MPI_TAG_UB). The caller gets the address of a copy, refreshed at each
 * query, so a program writing through it changes nothing for the next one. */
static int attr_pre_copy[7];

static int attr_predefined_index(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return 0;
    case MPI_HOST: return 1;
    case MPI_IO: return 2;
    case MPI_WTIME_IS_GLOBAL: return 3;
    case MPI_UNIVERSE_SIZE: return 4;
    case MPI_APPNUM: return 5;
    case MPI_LASTUSEDCODE: return 6;
    }
    return -1;
}

static int *attr_predefined(int keyval)
{
    int i = attr_predefined_index(keyval);
    if (i < 0)
        return NULL;
    const int values[7] = {RM_TAG_UB, MPI_PROC_NULL, MPI_ANY_SOURCE, 0, mpi_state.universe, mpi_state.appnum,
                           mpi_err_lastused()};
    attr_pre_copy[i] = values[i];
    return &attr_pre_copy[i];
}

RM_ALIAS(Comm_create_keyval)
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    MPI_BEGIN("MPI_Comm_create_keyval");
    CHECK_ARG(NULL, comm_keyval, "comm_keyval is NULL");
    if ((err = attr_keyval_create(ATTR_COMM, (void *)comm_copy_attr_fn, (void *)comm_delete_attr_fn,
                                  extra_state, comm_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "cannot create a keyval");
    MPI_END();
}

RM_ALIAS(Comm_free_keyval)
int PMPI_Comm_free_keyval(int *comm_keyval)
{
    MPI_BEGIN("MPI_Comm_free_keyval");
    CHECK_ARG(NULL, comm_keyval, "comm_keyval is NULL");
    if (attr_predefined_index(*comm_keyval) >= 0)
        MPI_FAIL(NULL, MPI_ERR_KEYVAL, "cannot free a predefined keyval");
    if ((err = attr_keyval_free(ATTR_COMM, comm_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "invalid keyval %d", *comm_keyval);
    MPI_END();
}

RM_ALIAS(Comm_set_attr)
int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    MPI_BEGIN("MPI_Comm_set_attr");
    comm_t *c;
    CHECK_COMM(c, comm);
    if (attr_predefined_index(comm_keyval) >= 0)
        MPI_FAIL(c, MPI_ERR_KEYVAL, "predefined attributes are read-only");
    if ((err = attr_set(&c->attrs, ATTR_COMM, comm, comm_keyval, attribute_val)) != MPI_SUCCESS)
        MPI_FAIL(c, err, "cannot set attribute %d", comm_keyval);
    MPI_END();
}

RM_ALIAS(Comm_get_attr)
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    MPI_BEGIN("MPI_Comm_get_attr");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, attribute_val && flag, "attribute_val or flag is NULL");
    int *pre = attr_predefined(comm_keyval);
    if (pre) {
        *flag = 1;
        *(void **)attribute_val = pre;
        goto fn_exit;
    }
    if ((err = attr_get(c->attrs, ATTR_COMM, comm_keyval, (void **)attribute_val, flag)) != MPI_SUCCESS)
        MPI_FAIL(c, err, "invalid keyval %d", comm_keyval);
    MPI_END();
}

RM_ALIAS(Comm_delete_attr)
int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    MPI_BEGIN("MPI_Comm_delete_attr");
    comm_t *c;
    CHECK_COMM(c, comm);
    if (attr_predefined_index(comm_keyval) >= 0)
        MPI_FAIL(c, MPI_ERR_KEYVAL, "predefined attributes are read-only");
    if ((err = attr_delete(&c->attrs, ATTR_COMM, comm, comm_keyval)) != MPI_SUCCESS)
        MPI_FAIL(c, err, "cannot delete attribute %d", comm_keyval);
    MPI_END();
}

/* MPI-1 names */
RM_ALIAS(Keyval_create)
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra_state)
{
    return PMPI_Comm_create_keyval((MPI_Comm_copy_attr_function *)copy_fn,
                                   (MPI_Comm_delete_attr_function *)delete_fn, keyval, extra_state);
}

RM_ALIAS(Keyval_free)
int PMPI_Keyval_free(int *keyval)
{
    return PMPI_Comm_free_keyval(keyval);
}

RM_ALIAS(Attr_put)
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}

RM_ALIAS(Attr_get)
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}

RM_ALIAS(Attr_delete)
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return PMPI_Comm_delete_attr(comm, keyval);
}

RM_ALIAS(Type_create_keyval)
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    MPI_BEGIN("MPI_Type_create_keyval");
    CHECK_ARG(NULL, type_keyval, "type_keyval is NULL");
    if ((err = attr_keyval_create(ATTR_TYPE, (void *)type_copy_attr_fn, (void *)type_delete_attr_fn,
                                  extra_state, type_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "cannot create a keyval");
    MPI_END();
}

RM_ALIAS(Type_free_keyval)
int PMPI_Type_free_keyval(int *type_keyval)
{
    MPI_BEGIN("MPI_Type_free_keyval");
    CHECK_ARG(NULL, type_keyval, "type_keyval is NULL");
    if ((err = attr_keyval_free(ATTR_TYPE, type_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "invalid keyval %d", *type_keyval);
    MPI_END();
}

RM_ALIAS(Type_set_attr)
int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    MPI_BEGIN("MPI_Type_set_attr");
    dtype_t *dt = dtype_get(datatype);
    if (!dt)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    if ((err = attr_set(&dt->attrs, ATTR_TYPE, datatype, type_keyval, attribute_val)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "cannot set attribute %d", type_keyval);
    MPI_END();
}

RM_ALIAS(Type_get_attr)
int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    MPI_BEGIN("MPI_Type_get_attr");
    dtype_t *dt = dtype_get(datatype);
    if (!dt)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    CHECK_ARG(NULL, attribute_val && flag, "attribute_val or flag is NULL");
    if ((err = attr_get(dt->attrs, ATTR_TYPE, type_keyval, (void **)attribute_val, flag)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "invalid keyval %d", type_keyval);
    MPI_END();
}

RM_ALIAS(Type_delete_attr)
int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    MPI_BEGIN("MPI_Type_delete_attr");
    dtype_t *dt = dtype_get(datatype);
    if (!dt)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    if ((err = attr_delete(&dt->attrs, ATTR_TYPE, datatype, type_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "cannot delete attribute %d", type_keyval);
    MPI_END();
}

/* Window keyvals exist before windows do: a program may create and free
 * them (MPI_WIN_DUP_FN and friends are in mpi.h). */
RM_ALIAS(Win_create_keyval)
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    MPI_BEGIN("MPI_Win_create_keyval");
    CHECK_ARG(NULL, win_keyval, "win_keyval is NULL");
    if ((err = attr_keyval_create(ATTR_WIN, (void *)win_copy_attr_fn, (void *)win_delete_attr_fn,
                                  extra_state, win_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "cannot create a keyval");
    MPI_END();
}

RM_ALIAS(Win_free_keyval)
int PMPI_Win_free_keyval(int *win_keyval)
{
    MPI_BEGIN("MPI_Win_free_keyval");
    CHECK_ARG(NULL, win_keyval, "win_keyval is NULL");
    if ((err = attr_keyval_free(ATTR_WIN, win_keyval)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "invalid keyval %d", *win_keyval);
    MPI_END();
}

/* ---- error handlers ---------------------------------------------------- */

RM_ALIAS(Comm_create_errhandler)
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    MPI_BEGIN("MPI_Comm_create_errhandler");
    CHECK_ARG(NULL, fn && errhandler, "function or errhandler is NULL");
    errhandler_t *e = errhandler_create(fn);
    if (!e)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    *errhandler = e->handle;
    MPI_END();
}

RM_ALIAS(Errhandler_create)
int PMPI_Errhandler_create(MPI_Handler_function *fn, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}

RM_ALIAS(Comm_set_errhandler)
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPI_BEGIN("MPI_Comm_set_errhandler");
    comm_t *c;
    errhandler_t *e;
    CHECK_COMM(c, comm);
    if (!(e = errhandler_get(errhandler)))
        MPI_FAIL(c, MPI_ERR_ERRHANDLER, "invalid error handler 0x%x", (unsigned)errhandler);
    comm_set_errhandler(c, e);
    if (c == comm_self) /* MPI_COMM_SELF's handler is the initial one too (MPI-4.1 9.3) */
        errhandler_set_initial(e);
    MPI_END();
}

RM_ALIAS(Errhandler_set)
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

RM_ALIAS(Comm_get_errhandler)
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPI_BEGIN("MPI_Comm_get_errhandler");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, errhandler, "errhandler is NULL");
    if (!c->errh->builtin)
        c->errh->refcount++; /* the caller frees its reference */
    *errhandler = c->errh->handle;
    MPI_END();
}

RM_ALIAS(Errhandler_get)
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

RM_ALIAS(Errhandler_free)
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPI_BEGIN("MPI_Errhandler_free");
    errhandler_t *e;
    CHECK_ARG(NULL, errhandler, "errhandler is NULL");
    if (!(e = errhandler_get(*errhandler)))
        MPI_FAIL(NULL, MPI_ERR_ERRHANDLER, "invalid error handler 0x%x", (unsigned)*errhandler);
    errhandler_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    MPI_END();
}

RM_ALIAS(Comm_call_errhandler)
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_BEGIN("MPI_Comm_call_errhandler");
    comm_t *c;
    CHECK_COMM(c, comm);
    mpi_err_raise(c, errorcode, fn_name_, "invoked by the application");
    MPI_END();
}

RM_ALIAS(Error_class)
int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass)
        return MPI_ERR_ARG;
    if (mpi_err_user_class(errorcode, errorclass))
        return MPI_SUCCESS;
    if (!mpi_err_class_name(errorcode))
        return MPI_ERR_ARG;
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

RM_ALIAS(Error_string)
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return MPI_ERR_ARG;
    const char *s = mpi_err_user_string(errorcode);
    if (!s)
        s = mpi_err_class_name(errorcode);
    if (!s)
        return MPI_ERR_ARG;
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

RM_ALIAS(Errhandler_c2f)
MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler)
{
    return (MPI_Fint)errhandler;
}

RM_ALIAS(Errhandler_f2c)
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler)
{
    return (MPI_Errhandler)errhandler;
}
