/* Attribute, error-handler, error-string and info bindings. */
#include "comm/attr.h"
#include "mpi/mpiimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- predefined attributes on MPI_COMM_WORLD --------------------------- */
static int attr_tag_ub = RM_TAG_UB, attr_host = MPI_PROC_NULL, attr_io = MPI_ANY_SOURCE,
           attr_wtime_global = 0, attr_universe, attr_appnum = 0, attr_lastused = MPI_ERR_LASTCODE;

static int *attr_predefined(int keyval)
{
    attr_universe = mpi_state.world_size;
    switch (keyval) {
    case MPI_TAG_UB: return &attr_tag_ub;
    case MPI_HOST: return &attr_host;
    case MPI_IO: return &attr_io;
    case MPI_WTIME_IS_GLOBAL: return &attr_wtime_global;
    case MPI_UNIVERSE_SIZE: return &attr_universe;
    case MPI_APPNUM: return &attr_appnum;
    case MPI_LASTUSEDCODE: attr_lastused = mpi_err_lastused(); return &attr_lastused;
    }
    return NULL;
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
    if (attr_predefined(*comm_keyval))
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
    if (attr_predefined(comm_keyval))
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
        *flag = c == comm_world;
        if (*flag)
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
        MPI_FAIL(c, MPI_ERR_ARG, "invalid error handler 0x%x", (unsigned)errhandler);
    comm_set_errhandler(c, e);
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
        MPI_FAIL(NULL, MPI_ERR_ARG, "invalid error handler 0x%x", (unsigned)*errhandler);
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
