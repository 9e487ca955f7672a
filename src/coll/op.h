/* Reduction operations: every predefined op on every valid predefined type,
 * plus user ops. */
#ifndef RM_COLL_OP_H
#define RM_COLL_OP_H

#include "mpi.h"
#include <stdint.h>
#include "dtype/dtype.h"

typedef struct op {
    int handle;
    int refcount;
    unsigned builtin : 1;
    unsigned commute : 1;
    MPI_User_function *fn;     /* user ops: MPI_Op_create's */
    MPI_User_function_c *fn_c; /* or MPI_Op_create_c's (large counts) */
    /* a user op of another ABI's library (src/abi): call converts the
     * datatype handle and calls abi_fn in that ABI's terms instead of fn */
    void (*call)(void (*abi_fn)(void), void *in, void *inout, int *len, MPI_Datatype dt);
    void (*call_c)(void (*abi_fn)(void), void *in, void *inout, MPI_Count *len, MPI_Datatype dt);
    void (*abi_fn)(void);
} op_t;

rm_status_t op_init(void);
void op_finalize(void);
op_t *op_get(MPI_Op h); /* NULL if invalid */
/* With a handle, or NULL; one of fn (int counts) and fn_c (MPI_Count) is set. */
op_t *op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute);
void op_release(op_t *op);
/* MPI_SUCCESS, or MPI_ERR_OP when the predefined op is not defined on dt. */
int op_check(const op_t *op, const dtype_t *dt);
/* inout[i] = in[i] op inout[i] for count items of dt (dt may be derived when
 * its elements are all one predefined type, e.g. contiguous/vector of it). */
int op_apply(const op_t *op, const void *in, void *inout, MPI_Count count, const dtype_t *dt);
/* The .TRUE./.FALSE. values of Fortran LOGICALs of size bytes (1, 2, 4, 8,
 * 16) that LAND/LOR/LXOR on MPI_LOGICAL read and write. set: -1 for another
 * size; get: -1 for another size, else whether they were set. */
int op_logical_set(int size, int64_t t, int64_t f);
int op_logical_get(int size, int64_t *t, int64_t *f);

#endif
