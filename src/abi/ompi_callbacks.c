/* Procedures of programs built for Open MPI's ABI that the engine calls
 * (user operations, error handlers, attribute copy and delete functions,
 * generalized requests, data representations): the standard ABI's
 * trampolines, compiled over Open MPI's conversions, so the procedures get
 * Open MPI's handles, error classes and status (docs/abi.md). */
#include "ompi_conv.h"
#include "abi_tables.h"
#include "abi_callbacks.c"
#include "mpi/mpiimpl.h"

/* MPI-1's name for MPI_Comm_create_errhandler, which Open MPI 4.1 still has */
int PMPI_Errhandler_create(abi_handle_errhandler *fn, abi_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(fn, errhandler);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

/* Open MPI's C++ bindings (railmpi's lib/openmpi-abi/libmpi_cxx.so.40, inline
 * MPI::Op::Init of Open MPI's header) make a C++ operation in two steps:
 * MPI_Op_create(ompi_mpi_cxx_op_intercept, ...), then
 * ompi_op_set_cxx_callback(op, cxx_fn). From then on the op calls the
 * intercept with the C++ function as a fifth argument:
 *   intercept(invec, inoutvec, len, datatype, cxx_fn)
 * The intercept is the one function of libmpi_cxx.so.40 that
 * MPI_Op_create got, the same for every C++ operation of the process. */
typedef void(ompi_cxx_op_intercept)(void *invec, void *inoutvec, int *len, abi_Datatype *datatype,
                                    abi_User_function *cxx_fn);
static ompi_cxx_op_intercept *cxx_op_intercept;

static void op_call_cxx(void (*fn)(void), void *in, void *inout, int *len, MPI_Datatype dt)
{
    abi_Datatype h = h_out_Datatype(dt);
    cxx_op_intercept(in, inout, len, &h, (abi_User_function *)fn);
}

void ompi_op_set_cxx_callback(abi_Op op, abi_User_function *fn);
void ompi_op_set_cxx_callback(abi_Op op, abi_User_function *fn)
{
    rm_lock();
    op_t *o = op_get(h_in(op));
    /* only an op MPI_Op_create made, not yet turned into a C++ one */
    int ok = o && !o->builtin && o->call == op_call && o->abi_fn && fn;
    if (ok) {
        cxx_op_intercept = (ompi_cxx_op_intercept *)o->abi_fn;
        o->abi_fn = (void (*)(void))fn;
        o->call = op_call_cxx;
    }
    rm_unlock();
    /* no return code: the error goes to the handler, which may throw (out
     * of the lock) */
    if (!fn)
        mpi_err_raise(NULL, MPI_ERR_ARG, "ompi_op_set_cxx_callback", "fn is NULL");
    else if (!ok)
        mpi_err_raise(NULL, MPI_ERR_OP, "ompi_op_set_cxx_callback",
                      "op is not an operation MPI_Op_create made with a C function");
}
