/* Reduction-operation bindings. */
#include "coll/op.h"
#include "mpi/mpiimpl.h"

static int op_create_any(const char *fn_name_, MPI_User_function *fn, MPI_User_function_c *fn_c,
                         int commute, MPI_Op *op)
{
    MPI_BEGIN_SHARED();
    CHECK_ARG(NULL, fn || fn_c, "user_fn is NULL");
    CHECK_ARG(NULL, op, "op is NULL");
    op_t *o = op_create(fn, fn_c, commute);
    if (!o)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    *op = o->handle;
    MPI_END();
}

RM_ALIAS(Op_create)
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create_any("MPI_Op_create", user_fn, NULL, commute, op);
}

RM_ALIAS(Op_create_c)
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create_any("MPI_Op_create_c", NULL, user_fn, commute, op);
}

RM_ALIAS(Op_free)
int PMPI_Op_free(MPI_Op *op)
{
    MPI_BEGIN("MPI_Op_free");
    op_t *o;
    CHECK_ARG(NULL, op, "op is NULL");
    if (!(o = op_get(*op)))
        MPI_FAIL(NULL, MPI_ERR_OP, "invalid op 0x%x", (unsigned)*op);
    if (o->builtin)
        MPI_FAIL(NULL, MPI_ERR_OP, "cannot free a predefined op");
    op_release(o);
    *op = MPI_OP_NULL;
    MPI_END();
}

RM_ALIAS(Op_commutative)
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    MPI_BEGIN("MPI_Op_commutative");
    op_t *o;
    if (!(o = op_get(op)))
        MPI_FAIL(NULL, MPI_ERR_OP, "invalid op 0x%x", (unsigned)op);
    CHECK_ARG(NULL, commute, "commute is NULL");
    *commute = o->commute;
    MPI_END();
}

static int op_reduce_local(const char *fn_name_, const void *inbuf, void *inoutbuf,
                           MPI_Count count, MPI_Datatype datatype, MPI_Op op)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    op_t *o;
    CHECK_COUNT(NULL, count);
    CHECK_DTYPE(NULL, dt, datatype);
    if (!(o = op_get(op)))
        MPI_FAIL(NULL, MPI_ERR_OP, "invalid op 0x%x", (unsigned)op);
    if ((err = op_check(o, dt)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "op 0x%x is not defined for datatype %s", (unsigned)op, dt->name);
    CHECK_BUF(NULL, inbuf, count, dt);
    CHECK_BUF(NULL, inoutbuf, count, dt);
    if ((err = op_apply(o, inbuf, inoutbuf, count, dt)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "reduction failed");
    MPI_END();
}

RM_ALIAS(Reduce_local)
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    return op_reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

RM_ALIAS(Reduce_local_c)
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    return op_reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

RM_ALIAS(Op_c2f)
MPI_Fint PMPI_Op_c2f(MPI_Op op)
{
    return (MPI_Fint)op;
}

RM_ALIAS(Op_f2c)
MPI_Op PMPI_Op_f2c(MPI_Fint op)
{
    return (MPI_Op)op;
}
