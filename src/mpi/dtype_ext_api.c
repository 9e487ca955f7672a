/* Datatype bindings, continued: array constructors (subarray, darray), the
 * "external32" representation (Pack_external, Unpack_external,
 * Pack_external_size), and the Fortran size-specific types
 * (Type_create_f90_real/complex/integer, Type_match_size), MPI_Type_get_value_index. */
#include "mpi/dtype_impl.h"

#include <float.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int dtype_ext_publish(const char *fn_name_, dtype_t *t, MPI_Datatype *newtype)
{
    return dtype_publish(fn_name_, t, newtype, 0, NULL); /* the array types set their own */
}

/* One implementation for MPI_Type_create_subarray and its _c form: the
 * arrays as MPI_Count, `large` for the envelope. */
static int dtype_subarray_common(const char *fn_name_, int ndims, const MPI_Count *sizes,
                                 const MPI_Count *subsizes, const MPI_Count *starts, int order,
                                 MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    CHECK_ARG(NULL, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, "invalid order %d", order);
    CHECK_DTYPE_ANY(old, oldtype);
    for (int i = 0; i < ndims; i++) {
        MPI_Count n = sizes[i], sub = subsizes[i], st = starts[i];
        CHECK_ARG(NULL, n > 0, "array_of_sizes[%d] = %lld is not positive", i, (long long)n);
        CHECK_ARG(NULL, sub > 0 && sub <= n, "array_of_subsizes[%d] = %lld is not in 1..%lld", i,
                  (long long)sub, (long long)n);
        CHECK_ARG(NULL, st >= 0 && st <= n - sub, "array_of_starts[%d] = %lld is not in 0..%lld",
                  i, (long long)st, (long long)(n - sub));
    }
    err = dtype_ext_publish(fn_name_,
                            dtype_subarray(ndims, sizes, subsizes, starts, order, old, large),
                            newtype);
    MPI_END();
}

/* The int arrays of the int constructors as MPI_Count (ndims of each of k). */
static MPI_Count *dtype_widen(int ndims, int k, const int *const *arrs)
{
    MPI_Count *w = malloc(sizeof(MPI_Count) * (size_t)ndims * (size_t)k);
    for (int j = 0; w && j < k; j++)
        for (int i = 0; i < ndims; i++)
            w[j * ndims + i] = arrs[j][i];
    return w;
}

RM_ALIAS(Type_create_subarray)
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_subarray";
    if (ndims <= 0)
        return mpi_err_raise(NULL, MPI_ERR_DIMS, fn, "ndims %d is not positive", ndims);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             !array_of_sizes      ? "array_of_sizes"
                             : !array_of_subsizes ? "array_of_subsizes"
                                                  : "array_of_starts");
    const int *arrs[3] = {array_of_sizes, array_of_subsizes, array_of_starts};
    MPI_Count *w = dtype_widen(ndims, 3, arrs);
    if (!w)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = dtype_subarray_common(fn, ndims, w, w + ndims, w + 2 * ndims, order, oldtype, newtype, 0);
    free(w);
    return rc;
}

RM_ALIAS(Type_create_subarray_c)
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_subarray_c";
    if (ndims <= 0)
        return mpi_err_raise(NULL, MPI_ERR_DIMS, fn, "ndims %d is not positive", ndims);
    if (!array_of_sizes || !array_of_subsizes || !array_of_starts)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             !array_of_sizes      ? "array_of_sizes"
                             : !array_of_subsizes ? "array_of_subsizes"
                                                  : "array_of_starts");
    return dtype_subarray_common(fn, ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                 order, oldtype, newtype, 1);
}

static int dtype_darray_common(const char *fn_name_, int size, int rank, int ndims,
                               const MPI_Count *array_of_gsizes, const int array_of_distribs[],
                               const int array_of_dargs[], const int array_of_psizes[], int order,
                               MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    CHECK_ARG(NULL, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, "invalid order %d", order);
    CHECK_DTYPE_ANY(old, oldtype);
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        MPI_Count g = array_of_gsizes[i];
        int d = array_of_distribs[i], a = array_of_dargs[i];
        int p = array_of_psizes[i];
        CHECK_ARG(NULL, g > 0, "array_of_gsizes[%d] = %lld is not positive", i, (long long)g);
        CHECK_ARG(NULL, p > 0, "array_of_psizes[%d] = %d is not positive", i, p);
        CHECK_ARG(NULL, d == MPI_DISTRIBUTE_BLOCK || d == MPI_DISTRIBUTE_CYCLIC ||
                            d == MPI_DISTRIBUTE_NONE,
                  "array_of_distribs[%d] = %d is not a distribution", i, d);
        if (d == MPI_DISTRIBUTE_NONE)
            CHECK_ARG(NULL, p == 1, "dimension %d is not distributed but has %d processes", i, p);
        else
            CHECK_ARG(NULL, a == MPI_DISTRIBUTE_DFLT_DARG || a > 0,
                      "array_of_dargs[%d] = %d is not positive", i, a);
        if (d == MPI_DISTRIBUTE_BLOCK && a != MPI_DISTRIBUTE_DFLT_DARG)
            CHECK_ARG(NULL, (long long)a * p >= g,
                      "blocks of %d in dimension %d leave part of its %lld elements to no process "
                      "of %d", a, i, (long long)g, p);
        if (procs <= size)
            procs *= p;
    }
    CHECK_ARG(NULL, procs == size, "the process grid does not have %d processes", size);
    err = dtype_ext_publish(fn_name_,
                            dtype_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                         array_of_dargs, array_of_psizes, order, old, large),
                            newtype);
    MPI_END();
}

/* Checks before the arrays are read (both forms). */
static int dtype_darray_args(const char *fn, int size, int rank, int ndims, const void *gsizes,
                             const int *distribs, const int *dargs, const int *psizes)
{
    if (size <= 0)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "size %d is not positive", size);
    if (rank < 0 || rank >= size)
        return mpi_err_raise(NULL, MPI_ERR_RANK, fn, "rank %d is not in 0..%d", rank, size - 1);
    if (ndims <= 0)
        return mpi_err_raise(NULL, MPI_ERR_DIMS, fn, "ndims %d is not positive", ndims);
    if (!gsizes || !distribs || !dargs || !psizes)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             !gsizes     ? "array_of_gsizes"
                             : !distribs ? "array_of_distribs"
                             : !dargs    ? "array_of_dargs"
                                         : "array_of_psizes");
    return MPI_SUCCESS;
}

RM_ALIAS(Type_create_darray)
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_darray";
    int rc = dtype_darray_args(fn, size, rank, ndims, array_of_gsizes, array_of_distribs,
                               array_of_dargs, array_of_psizes);
    if (rc != MPI_SUCCESS)
        return rc;
    const int *arrs[1] = {array_of_gsizes};
    MPI_Count *g = dtype_widen(ndims, 1, arrs);
    if (!g)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    rc = dtype_darray_common(fn, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                             array_of_psizes, order, oldtype, newtype, 0);
    free(g);
    return rc;
}

RM_ALIAS(Type_create_darray_c)
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_darray_c";
    int rc = dtype_darray_args(fn, size, rank, ndims, array_of_gsizes, array_of_distribs,
                               array_of_dargs, array_of_psizes);
    if (rc != MPI_SUCCESS)
        return rc;
    return dtype_darray_common(fn, size, rank, ndims, array_of_gsizes, array_of_distribs,
                               array_of_dargs, array_of_psizes, order, oldtype, newtype, 1);
}

/* ---- external32 ---------------------------------------------------------- */

#define CHECK_DATAREP(rep)                                                               \
    do {                                                                                 \
        CHECK_ARG(NULL, rep, "datarep is NULL");                                         \
        CHECK_ARG(NULL, !strcmp(rep, "external32"),                                     \
                  "data representation \"%.64s\" is not \"external32\"", rep);           \
    } while (0)

static int dtype_pack_external_size_common(const char *fn_name_, const char *datarep,
                                           MPI_Count incount, MPI_Datatype datatype,
                                           MPI_Count *size)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, incount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, size, "size is NULL");
    if (__builtin_mul_overflow(incount, dt->xsize, size))
        MPI_FAIL(NULL, MPI_ERR_COUNT, "%lld items do not fit an MPI_Count", (long long)incount);
    MPI_END();
}

RM_ALIAS(Pack_external_size)
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = dtype_pack_external_size_common("MPI_Pack_external_size", datarep, incount, datatype,
                                             size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = (MPI_Aint)n; /* MPI_Aint and MPI_Count are both 64 bits */
    return rc;
}

RM_ALIAS(Pack_external_size_c)
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype,
                              MPI_Count *size)
{
    return dtype_pack_external_size_common("MPI_Pack_external_size_c", datarep, incount, datatype,
                                           size);
}

static int dtype_ext_status(const char *fn_name_, rm_status_t st)
{
    if (st == RM_ERR_INVALID)
        return mpi_err_raise(NULL, MPI_ERR_CONVERSION, fn_name_,
                             "a value does not fit its size in the other representation "
                             "(external32 MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes, "
                             "MPI_WCHAR 2)");
    return mpi_err_raise(NULL, mpi_err_from_status(st), fn_name_, "%s", rm_status_str(st));
}

static int dtype_pack_external_common(const char *fn_name_, const char *datarep,
                                      const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                                      void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, incount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, position, "position is NULL");
    MPI_Count bytes;
    if (__builtin_mul_overflow(incount, dt->xsize, &bytes) || *position < 0 || outsize < 0 ||
        bytes > outsize - *position)
        MPI_FAIL(NULL, MPI_ERR_TRUNCATE, "%lld items of %lld bytes do not fit at position %lld of %lld",
                 (long long)incount, (long long)dt->xsize, (long long)*position,
                 (long long)outsize);
    CHECK_ARG(NULL, outbuf || !bytes, "outbuf is NULL");
    CHECK_BUF(NULL, inbuf, incount, dt);
    rm_status_t st = dtype_ext32_pack(inbuf, incount, dt, (char *)outbuf + *position);
    if (st < 0) {
        err = dtype_ext_status(fn_name_, st);
        goto fn_exit;
    }
    *position += bytes;
    MPI_END();
}

RM_ALIAS(Pack_external)
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = position ? *position : 0;
    int rc = dtype_pack_external_common("MPI_Pack_external", datarep, inbuf, incount, datatype,
                                        outbuf, outsize, position ? &pos : NULL);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

RM_ALIAS(Pack_external_c)
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                         MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    return dtype_pack_external_common("MPI_Pack_external_c", datarep, inbuf, incount, datatype,
                                      outbuf, outsize, position);
}

static int dtype_unpack_external_common(const char *fn_name_, const char *datarep,
                                        const void *inbuf, MPI_Count insize, MPI_Count *position,
                                        void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, outcount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, position, "position is NULL");
    MPI_Count bytes;
    if (__builtin_mul_overflow(outcount, dt->xsize, &bytes) || *position < 0 || insize < 0 ||
        bytes > insize - *position)
        MPI_FAIL(NULL, MPI_ERR_TRUNCATE, "%lld items of %lld bytes requested at position %lld of %lld",
                 (long long)outcount, (long long)dt->xsize, (long long)*position,
                 (long long)insize);
    CHECK_ARG(NULL, inbuf || !bytes, "inbuf is NULL");
    CHECK_BUF(NULL, outbuf, outcount, dt);
    rm_status_t st = dtype_ext32_unpack(outbuf, outcount, dt, (const char *)inbuf + *position);
    if (st < 0) {
        err = dtype_ext_status(fn_name_, st);
        goto fn_exit;
    }
    *position += bytes;
    MPI_END();
}

RM_ALIAS(Unpack_external)
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = position ? *position : 0;
    int rc = dtype_unpack_external_common("MPI_Unpack_external", datarep, inbuf, insize,
                                          position ? &pos : NULL, outbuf, outcount, datatype);
    if (rc == MPI_SUCCESS)
        *position = (MPI_Aint)pos;
    return rc;
}

RM_ALIAS(Unpack_external_c)
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           MPI_Datatype datatype)
{
    return dtype_unpack_external_common("MPI_Unpack_external_c", datarep, inbuf, insize, position,
                                        outbuf, outcount, datatype);
}

/* ---- Fortran size-specific types ----------------------------------------- */

/* The real kinds as Fortran's PRECISION() and RANGE() describe them. */
static MPI_Datatype dtype_f90_real_kind(int p, int r, int cplx)
{
    static const struct { int p, r; MPI_Datatype real, complex; } kinds[] = {
        {FLT_DIG, FLT_MAX_10_EXP - 1, MPI_REAL4, MPI_COMPLEX8},
        {DBL_DIG, DBL_MAX_10_EXP - 1, MPI_REAL8, MPI_COMPLEX16},
        {LDBL_DIG, LDBL_MAX_10_EXP - 1, MPI_REAL16, MPI_COMPLEX32},
    };
    int nk = sizeof(long double) == 16 && LDBL_DIG > DBL_DIG ? 3 : 2;
    for (int k = 0; k < nk; k++)
        if (p <= kinds[k].p && r <= kinds[k].r)
            return cplx ? kinds[k].complex : kinds[k].real;
    return MPI_DATATYPE_NULL;
}

static int dtype_f90_create(const char *fn_name_, int combiner, int p, int r, MPI_Datatype *newtype)
{
    MPI_BEGIN_SHARED();
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    MPI_Datatype base;
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        base = r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 : r <= 9 ? MPI_INTEGER4
             : r <= 18 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
        if (base == MPI_DATATYPE_NULL)
            MPI_FAIL(NULL, MPI_ERR_ARG, "no integer type has %d decimal digits", r);
    } else {
        CHECK_ARG(NULL, p != MPI_UNDEFINED || r != MPI_UNDEFINED,
                  "p and r are both MPI_UNDEFINED");
        base = dtype_f90_real_kind(p == MPI_UNDEFINED ? 0 : p, r == MPI_UNDEFINED ? 0 : r,
                                   combiner == MPI_COMBINER_F90_COMPLEX);
        if (base == MPI_DATATYPE_NULL)
            MPI_FAIL(NULL, MPI_ERR_ARG, "no real type has precision %d and range %d", p, r);
    }
    dtype_t *t = dtype_f90(combiner, p, r, base);
    if (!t)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    *newtype = t->handle;
    MPI_END();
}

RM_ALIAS(Type_create_f90_real)
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return dtype_f90_create("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}

RM_ALIAS(Type_create_f90_complex)
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return dtype_f90_create("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}

RM_ALIAS(Type_create_f90_integer)
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return dtype_f90_create("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, newtype);
}

RM_ALIAS(Type_match_size)
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPI_BEGIN("MPI_Type_match_size");
    CHECK_ARG(NULL, datatype, "datatype is NULL");
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    static const MPI_Datatype cplx[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype *set;
    int n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL: set = reals; n = 3; break;
    case MPI_TYPECLASS_INTEGER: set = ints; n = 4; break;
    case MPI_TYPECLASS_COMPLEX: set = cplx; n = 3; break;
    default: MPI_FAIL(NULL, MPI_ERR_ARG, "invalid typeclass %d", typeclass);
    }
    for (int i = 0; i < n; i++) {
        dtype_t *t = dtype_get(set[i]);
        if (t && t->size == size) {
            *datatype = set[i];
            goto fn_exit;
        }
    }
    MPI_FAIL(NULL, MPI_ERR_ARG, "no predefined type of class %d has %d bytes", typeclass, size);
    MPI_END();
}

/* MPI-4.1: the predefined (value, index) pair type for MPI_MINLOC/MAXLOC, or
 * MPI_DATATYPE_NULL when the standard predefines none for the combination. */
RM_ALIAS(Type_get_value_index)
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    MPI_BEGIN("MPI_Type_get_value_index");
    static const struct {
        MPI_Datatype value, index, pair;
    } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    if (!dtype_get(value_type))
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid value_type 0x%x", (unsigned)value_type);
    if (!dtype_get(index_type))
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid index_type 0x%x", (unsigned)index_type);
    CHECK_ARG(NULL, pair_type, "pair_type is NULL");
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    MPI_END();
}
