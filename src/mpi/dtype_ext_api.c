/* Datatype bindings, continued: array constructors (subarray, darray), the
 * "external32" representation (Pack_external, Unpack_external,
 * Pack_external_size), and the Fortran size-specific types
 * (Type_create_f90_real/complex/integer, Type_match_size), MPI_Type_get_value_index. */
#include "mpi/mpiimpl.h"

#include <float.h>
#include <string.h>

#define CHECK_DTYPE_ANY(dt, h)                                                       \
    do {                                                                             \
        if (!((dt) = dtype_get(h)))                                                  \
            MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)(h));    \
    } while (0)

static int dtype_ext_publish(const char *fn_name_, dtype_t *t, MPI_Datatype *newtype)
{
    if (!t && dtype_build_error() == RM_ERR_INVALID)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name_,
                             "the type's size or extent does not fit 64 bits");
    if (!t)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory building the type");
    if (dtype_register(t) < 0) {
        dtype_release(t);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of datatype handles");
    }
    *newtype = t->handle;
    return MPI_SUCCESS;
}

RM_ALIAS(Type_create_subarray)
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    MPI_BEGIN("MPI_Type_create_subarray");
    dtype_t *old;
    if (ndims <= 0)
        MPI_FAIL(NULL, MPI_ERR_DIMS, "ndims %d is not positive", ndims);
    CHECK_ARG(NULL, array_of_sizes && array_of_subsizes && array_of_starts, "array argument is NULL");
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    CHECK_ARG(NULL, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, "invalid order %d", order);
    CHECK_DTYPE_ANY(old, oldtype);
    for (int i = 0; i < ndims; i++) {
        int n = array_of_sizes[i], sub = array_of_subsizes[i], st = array_of_starts[i];
        CHECK_ARG(NULL, n > 0, "array_of_sizes[%d] = %d is not positive", i, n);
        CHECK_ARG(NULL, sub > 0 && sub <= n, "array_of_subsizes[%d] = %d is not in 1..%d", i, sub, n);
        CHECK_ARG(NULL, st >= 0 && st <= n - sub, "array_of_starts[%d] = %d is not in 0..%d", i, st,
                  n - sub);
    }
    err = dtype_ext_publish(fn_name_,
                            dtype_subarray(ndims, array_of_sizes, array_of_subsizes,
                                           array_of_starts, order, old),
                            newtype);
    MPI_END();
}

RM_ALIAS(Type_create_darray)
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPI_BEGIN("MPI_Type_create_darray");
    dtype_t *old;
    CHECK_ARG(NULL, size > 0, "size %d is not positive", size);
    if (rank < 0 || rank >= size)
        MPI_FAIL(NULL, MPI_ERR_RANK, "rank %d is not in 0..%d", rank, size - 1);
    if (ndims <= 0)
        MPI_FAIL(NULL, MPI_ERR_DIMS, "ndims %d is not positive", ndims);
    CHECK_ARG(NULL, array_of_gsizes && array_of_distribs && array_of_dargs && array_of_psizes,
              "array argument is NULL");
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    CHECK_ARG(NULL, order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN, "invalid order %d", order);
    CHECK_DTYPE_ANY(old, oldtype);
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        int g = array_of_gsizes[i], d = array_of_distribs[i], a = array_of_dargs[i];
        int p = array_of_psizes[i];
        CHECK_ARG(NULL, g > 0, "array_of_gsizes[%d] = %d is not positive", i, g);
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
                      "blocks of %d in dimension %d leave part of its %d elements to no process "
                      "of %d", a, i, g, p);
        if (procs <= size)
            procs *= p;
    }
    CHECK_ARG(NULL, procs == size, "the process grid does not have %d processes", size);
    err = dtype_ext_publish(fn_name_,
                            dtype_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                         array_of_dargs, array_of_psizes, order, old),
                            newtype);
    MPI_END();
}

/* ---- external32 ---------------------------------------------------------- */

#define CHECK_DATAREP(rep)                                                               \
    do {                                                                                 \
        CHECK_ARG(NULL, rep, "datarep is NULL");                                         \
        CHECK_ARG(NULL, !strcmp(rep, "external32"),                                     \
                  "data representation \"%.64s\" is not \"external32\"", rep);           \
    } while (0)

RM_ALIAS(Pack_external_size)
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    MPI_BEGIN("MPI_Pack_external_size");
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, incount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, size, "size is NULL");
    MPI_Aint bytes;
    if (__builtin_mul_overflow((MPI_Aint)incount, (MPI_Aint)dt->xsize, &bytes))
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d items do not fit an MPI_Aint", incount);
    *size = bytes;
    MPI_END();
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

RM_ALIAS(Pack_external)
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_BEGIN("MPI_Pack_external");
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, incount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, position, "position is NULL");
    MPI_Count bytes = (MPI_Count)incount * dt->xsize;
    if (*position < 0 || outsize < 0 || bytes > outsize - *position)
        MPI_FAIL(NULL, MPI_ERR_TRUNCATE, "%lld bytes do not fit at position %ld of %ld",
                 (long long)bytes, (long)*position, (long)outsize);
    CHECK_ARG(NULL, outbuf || !bytes, "outbuf is NULL");
    CHECK_BUF(NULL, inbuf, incount, dt);
    rm_status_t st = dtype_ext32_pack(inbuf, incount, dt, (char *)outbuf + *position);
    if (st < 0) {
        err = dtype_ext_status(fn_name_, st);
        goto fn_exit;
    }
    *position += (MPI_Aint)bytes;
    MPI_END();
}

RM_ALIAS(Unpack_external)
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_BEGIN("MPI_Unpack_external");
    dtype_t *dt;
    CHECK_DATAREP(datarep);
    CHECK_COUNT(NULL, outcount);
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_ARG(NULL, position, "position is NULL");
    MPI_Count bytes = (MPI_Count)outcount * dt->xsize;
    if (*position < 0 || insize < 0 || bytes > insize - *position)
        MPI_FAIL(NULL, MPI_ERR_TRUNCATE, "%lld bytes requested at position %ld of %ld",
                 (long long)bytes, (long)*position, (long)insize);
    CHECK_ARG(NULL, inbuf || !bytes, "inbuf is NULL");
    CHECK_BUF(NULL, outbuf, outcount, dt);
    rm_status_t st = dtype_ext32_unpack(outbuf, outcount, dt, (const char *)inbuf + *position);
    if (st < 0) {
        err = dtype_ext_status(fn_name_, st);
        goto fn_exit;
    }
    *position += (MPI_Aint)bytes;
    MPI_END();
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
