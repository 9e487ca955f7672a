/* Datatype bindings: constructors, queries, pack/unpack, element counts.
 * Each constructor and pack call has one implementation taking MPI_Count
 * (src/mpi/dtype_impl.h) that the int bindings here and the large-count
 * ones in dtype_c_api.c share. */
#include "comm/attr.h"
#include "mpi/dtype_impl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dtype_publish(const char *fn_name_, dtype_t *t, MPI_Datatype *newtype, MPI_Count nc,
                  const MPI_Count *counts)
{
    if (!t && dtype_build_error() == RM_ERR_INVALID)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name_,
                             "the type's size or extent does not fit 64 bits");
    if (!t)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory building the type");
    if ((nc && dtype_set_counts(t, nc, counts) < 0) || dtype_register(t) < 0) {
        dtype_release(t);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory (datatype handles)");
    }
    *newtype = t->handle;
    return MPI_SUCCESS;
}

int dtype_blocks(const char *fn_name_, int combiner, MPI_Count count, dtype_arr_t blens,
                 MPI_Count blen, dtype_arr_t displs, int displs_in_items, MPI_Datatype oldtype,
                 MPI_Datatype *newtype, const dtype_env_t *env)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_COUNT(NULL, count);
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    if (count > 0)
        CHECK_ARG(NULL, !dtype_arr_null(displs), "array_of_displacements is NULL");
    if (dtype_arr_null(blens) && blen < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %lld", (long long)blen);
    if (count > INT_MAX)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "%lld blocks would take over 64 GiB to describe",
                 (long long)count);
    size_t n = (size_t)(count ? count : 1);
    MPI_Count *bl = malloc(sizeof(MPI_Count) * n);
    MPI_Aint *dp = malloc(sizeof(MPI_Aint) * n);
    dtype_t **ts = malloc(sizeof(dtype_t *) * n);
    if (!bl || !dp || !ts) {
        free(bl);
        free(dp);
        free(ts);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    MPI_Count bad = -1, overflow = -1;
    for (MPI_Count i = 0; i < count && bad < 0 && overflow < 0; i++) {
        bl[i] = dtype_arr_null(blens) ? blen : dtype_arr_at(blens, i);
        if (bl[i] < 0)
            bad = i;
        dp[i] = (MPI_Aint)dtype_arr_at(displs, i);
        if (displs_in_items && __builtin_mul_overflow(dp[i], old->extent, &dp[i]))
            overflow = i;
        ts[i] = old;
    }
    if (bad >= 0 || overflow >= 0) {
        MPI_Count b = bad >= 0 ? bl[bad] : 0;
        free(bl);
        free(dp);
        free(ts);
        if (bad >= 0)
            MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %lld at %lld", (long long)b,
                     (long long)bad);
        MPI_FAIL(NULL, MPI_ERR_ARG, "displacement %lld overflows in bytes",
                 (long long)overflow);
    }
    MPI_Datatype oh = oldtype;
    dtype_t *t = dtype_create(combiner, count, bl, dp, ts, env->ni, env->ints, env->na, env->aints,
                              1, &oh);
    free(bl);
    free(dp);
    free(ts);
    err = dtype_publish(fn_name_, t, newtype, env->nc, env->counts);
    MPI_END();
}

int dtype_strided(const char *fn_name_, int combiner, MPI_Count count, MPI_Count blocklength,
                  MPI_Count stride, int stride_in_items, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, const dtype_env_t *env)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_COUNT(NULL, count);
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    if (blocklength < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %lld", (long long)blocklength);
    MPI_Aint bytes = (MPI_Aint)stride;
    if (stride_in_items && __builtin_mul_overflow((MPI_Aint)stride, old->extent, &bytes))
        MPI_FAIL(NULL, MPI_ERR_ARG, "stride %lld items of extent %ld overflows", (long long)stride,
                 (long)old->extent);
    MPI_Datatype oh = oldtype;
    dtype_t *t = dtype_vector(combiner, count, blocklength, bytes, old, env->ni, env->ints, env->na,
                              env->aints, 1, &oh);
    err = dtype_publish(fn_name_, t, newtype, env->nc, env->counts);
    MPI_END();
}

RM_ALIAS(Type_contiguous)
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int ints[1] = {count};
    dtype_env_t env = {.ni = 1, .ints = ints};
    /* one block of `count` items */
    return dtype_strided("MPI_Type_contiguous", MPI_COMBINER_CONTIGUOUS, count < 0 ? count : 1,
                         count, 0, 0, oldtype, newtype, &env);
}

RM_ALIAS(Type_vector)
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    int ints[3] = {count, blocklength, stride};
    dtype_env_t env = {.ni = 3, .ints = ints};
    return dtype_strided("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength, stride, 1,
                         oldtype, newtype, &env);
}

static int dtype_hvector(const char *fn, int combiner, int count, int blocklength, MPI_Aint stride,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int ints[2] = {count, blocklength};
    dtype_env_t env = {.ni = 2, .ints = ints, .na = 1, .aints = &stride};
    return dtype_strided(fn, combiner, count, blocklength, stride, 0, oldtype, newtype, &env);
}

RM_ALIAS(Type_create_hvector)
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return dtype_hvector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                         oldtype, newtype);
}

RM_ALIAS(Type_hvector)
int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return dtype_hvector("MPI_Type_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride,
                         oldtype, newtype);
}

int *dtype_env_ints(MPI_Count count, dtype_arr_t a, dtype_arr_t b, int *n)
{
    MPI_Count m = count > 0 ? count : 0;
    int *v = malloc(sizeof(int) * (size_t)(1 + 2 * m));
    if (!v)
        return NULL;
    v[0] = (int)count;
    *n = 1;
    for (MPI_Count i = 0; !dtype_arr_null(a) && i < m; i++)
        v[(*n)++] = (int)dtype_arr_at(a, i);
    for (MPI_Count i = 0; !dtype_arr_null(b) && i < m; i++)
        v[(*n)++] = (int)dtype_arr_at(b, i);
    return v;
}

MPI_Count *dtype_env_counts(MPI_Count count, dtype_arr_t a, dtype_arr_t b, MPI_Count *n)
{
    MPI_Count m = count > 0 ? count : 0;
    MPI_Count *v = malloc(sizeof(MPI_Count) * (size_t)(1 + 2 * m));
    if (!v)
        return NULL;
    v[0] = count;
    *n = 1;
    for (MPI_Count i = 0; !dtype_arr_null(a) && i < m; i++)
        v[(*n)++] = dtype_arr_at(a, i);
    for (MPI_Count i = 0; !dtype_arr_null(b) && i < m; i++)
        v[(*n)++] = dtype_arr_at(b, i);
    return v;
}

/* The int indexed family: envelope integers count, lengths, then the
 * displacements given in items; byte displacements are addresses. */
static int dtype_indexed_int(const char *fn, int combiner, int count, const int *blens, int blen,
                             const int *idispls, const MPI_Aint *bdispls, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    if (count > 0 && !blens && combiner != MPI_COMBINER_INDEXED_BLOCK &&
        combiner != MPI_COMBINER_HINDEXED_BLOCK)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_blocklengths is NULL");
    if (count > 0 && !idispls && !bdispls)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    dtype_arr_t bl = {.i = blens}, di = {.i = idispls}, none = {0};
    int n = 0, *ints;
    if (combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK) {
        ints = malloc(sizeof(int) * (size_t)(2 + (count > 0 && idispls ? count : 0)));
        if (ints) {
            ints[0] = count;
            ints[1] = blen;
            n = 2;
            for (int i = 0; idispls && i < count; i++)
                ints[n++] = idispls[i];
        }
    } else {
        ints = dtype_env_ints(count, bl, idispls ? di : none, &n);
    }
    if (!ints)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    dtype_env_t env = {.ni = n, .ints = ints, .na = bdispls ? count : 0, .aints = bdispls};
    dtype_arr_t displs = idispls ? di : (dtype_arr_t){.a = bdispls};
    int rc = dtype_blocks(fn, combiner, count, blens ? bl : none, blen, displs, idispls != NULL,
                          oldtype, newtype, &env);
    free(ints);
    return rc;
}

RM_ALIAS(Type_indexed)
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_indexed_int("MPI_Type_indexed", MPI_COMBINER_INDEXED, count, array_of_blocklengths,
                             0, array_of_displacements, NULL, oldtype, newtype);
}

RM_ALIAS(Type_create_hindexed)
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return dtype_indexed_int("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                             array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                             newtype);
}

RM_ALIAS(Type_hindexed)
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_indexed_int("MPI_Type_hindexed", MPI_COMBINER_HINDEXED, count,
                             array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                             newtype);
}

RM_ALIAS(Type_create_indexed_block)
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_indexed_int("MPI_Type_create_indexed_block", MPI_COMBINER_INDEXED_BLOCK, count,
                             NULL, blocklength, array_of_displacements, NULL, oldtype, newtype);
}

RM_ALIAS(Type_create_hindexed_block)
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return dtype_indexed_int("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count,
                             NULL, blocklength, NULL, array_of_displacements, oldtype, newtype);
}

int dtype_struct(const char *fn_name_, MPI_Count count, dtype_arr_t blens, dtype_arr_t displs,
                 const MPI_Datatype *types, MPI_Datatype *newtype, const dtype_env_t *env)
{
    MPI_BEGIN_SHARED();
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    if (count > 0) {
        CHECK_ARG(NULL, !dtype_arr_null(blens), "array_of_blocklengths is NULL");
        CHECK_ARG(NULL, !dtype_arr_null(displs), "array_of_displacements is NULL");
        CHECK_ARG(NULL, types, "array_of_types is NULL");
    }
    if (count > INT_MAX)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "%lld blocks would take over 64 GiB to describe",
                 (long long)count);
    size_t n = (size_t)(count ? count : 1);
    dtype_t **ts = malloc(sizeof(dtype_t *) * n);
    MPI_Count *bl = malloc(sizeof(MPI_Count) * n);
    MPI_Aint *dp = malloc(sizeof(MPI_Aint) * n);
    if (!ts || !bl || !dp) {
        free(ts);
        free(bl);
        free(dp);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    MPI_Count bad = -1;
    for (MPI_Count i = 0; i < count && bad < 0; i++) {
        bl[i] = dtype_arr_at(blens, i);
        dp[i] = (MPI_Aint)dtype_arr_at(displs, i);
        if (!(ts[i] = dtype_get(types[i])) || bl[i] < 0)
            bad = i;
    }
    if (bad >= 0) {
        MPI_Count b = bl[bad];
        free(ts);
        free(bl);
        free(dp);
        if (b < 0)
            MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %lld at %lld", (long long)b,
                     (long long)bad);
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x at %lld", (unsigned)types[bad],
                 (long long)bad);
    }
    dtype_t *t = dtype_create(MPI_COMBINER_STRUCT, count, bl, dp, ts, env->ni, env->ints, env->na,
                              env->aints, (int)count, types);
    free(ts);
    free(bl);
    free(dp);
    err = dtype_publish(fn_name_, t, newtype, env->nc, env->counts);
    MPI_END();
}

static int dtype_struct_int(const char *fn, int count, const int *blens, const MPI_Aint *displs,
                            const MPI_Datatype *types, MPI_Datatype *newtype)
{
    dtype_arr_t bl = {.i = blens}, none = {0};
    int n = 0, *ints = dtype_env_ints(count, count > 0 && blens ? bl : none, none, &n);
    if (!ints)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    dtype_env_t env = {.ni = n, .ints = ints, .na = count > 0 ? count : 0, .aints = displs};
    int rc = dtype_struct(fn, count, bl, (dtype_arr_t){.a = displs}, types, newtype, &env);
    free(ints);
    return rc;
}

RM_ALIAS(Type_create_struct)
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return dtype_struct_int("MPI_Type_create_struct", count, array_of_blocklengths,
                            array_of_displacements, array_of_types, newtype);
}

RM_ALIAS(Type_struct)
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return dtype_struct_int("MPI_Type_struct", count, array_of_blocklengths,
                            array_of_displacements, array_of_types, newtype);
}

int dtype_resized_common(const char *fn_name_, MPI_Datatype oldtype, MPI_Count lb,
                         MPI_Count extent, MPI_Datatype *newtype, int large)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    MPI_Count counts[2] = {lb, extent};
    err = dtype_publish(fn_name_, dtype_resized(old, (MPI_Aint)lb, (MPI_Aint)extent), newtype,
                        large ? 2 : 0, counts);
    MPI_END();
}

RM_ALIAS(Type_create_resized)
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return dtype_resized_common("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

RM_ALIAS(Type_dup)
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_BEGIN("MPI_Type_dup");
    dtype_t *old;
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    dtype_t *t = dtype_dup(old);
    if ((err = dtype_publish(fn_name_, t, newtype, 0, NULL)) != MPI_SUCCESS)
        goto fn_exit;
    if ((err = attr_copy_all(&old->attrs, &t->attrs, ATTR_TYPE, oldtype)) != MPI_SUCCESS) {
        dtype_release(t); /* runs the delete callbacks of what was copied */
        *newtype = MPI_DATATYPE_NULL;
        MPI_FAIL(NULL, err, "an attribute copy callback returned %d", err);
    }
    MPI_END();
}

RM_ALIAS(Type_commit)
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    MPI_BEGIN("MPI_Type_commit");
    dtype_t *dt;
    CHECK_ARG(NULL, datatype, "datatype is NULL");
    CHECK_DTYPE_ANY(dt, *datatype);
    dt->committed = 1;
    MPI_END();
}

RM_ALIAS(Type_free)
int PMPI_Type_free(MPI_Datatype *datatype)
{
    MPI_BEGIN("MPI_Type_free");
    dtype_t *dt;
    CHECK_ARG(NULL, datatype, "datatype is NULL");
    CHECK_DTYPE_ANY(dt, *datatype);
    if (dt->builtin)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "cannot free the predefined datatype %s", dt->name);
    if (dt->attrs) {
        /* the delete callbacks run now, even while operations in flight
         * hold the type; a failing one fails the call, the type stays */
        if ((err = attr_delete_all(&dt->attrs, ATTR_TYPE, *datatype)) != MPI_SUCCESS)
            MPI_FAIL(NULL, err, "an attribute delete callback returned %d", err);
    }
    dtype_release(dt); /* operations in flight keep their own references */
    *datatype = MPI_DATATYPE_NULL;
    MPI_END();
}

RM_ALIAS(Type_size)
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_BEGIN("MPI_Type_size");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, size, "size is NULL");
    *size = dt->size > 0x7fffffff ? MPI_UNDEFINED : (int)dt->size;
    MPI_END();
}

RM_ALIAS(Type_size_x)
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_BEGIN("MPI_Type_size_x");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, size, "size is NULL");
    *size = dt->size;
    MPI_END();
}

RM_ALIAS(Type_get_extent)
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    MPI_BEGIN("MPI_Type_get_extent");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, lb && extent, "lb or extent is NULL");
    *lb = dt->lb;
    *extent = dt->extent;
    MPI_END();
}

RM_ALIAS(Type_get_extent_x)
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_BEGIN("MPI_Type_get_extent_x");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, lb && extent, "lb or extent is NULL");
    *lb = dt->lb;
    *extent = dt->extent;
    MPI_END();
}

RM_ALIAS(Type_get_true_extent)
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    MPI_BEGIN("MPI_Type_get_true_extent");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, true_lb && true_extent, "true_lb or true_extent is NULL");
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    MPI_END();
}

RM_ALIAS(Type_get_true_extent_x)
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_BEGIN("MPI_Type_get_true_extent_x");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, true_lb && true_extent, "true_lb or true_extent is NULL");
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    MPI_END();
}

RM_ALIAS(Type_extent)
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_BEGIN("MPI_Type_extent");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, extent, "extent is NULL");
    *extent = dt->extent;
    MPI_END();
}

RM_ALIAS(Type_lb)
int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_BEGIN("MPI_Type_lb");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, displacement, "displacement is NULL");
    *displacement = dt->lb;
    MPI_END();
}

RM_ALIAS(Type_ub)
int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_BEGIN("MPI_Type_ub");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, displacement, "displacement is NULL");
    *displacement = dt->ub;
    MPI_END();
}

/* The envelope the int MPI_Type_get_envelope/get_contents show for a type
 * built by a _c constructor: what the int constructor with the same
 * arguments records. Its large counts (count, blocklengths, strides,
 * displacements, sizes) go back to integers or addresses, in the int
 * constructor's order; false if one does not fit an int. ints and aints
 * may be NULL (counting only). */
static int dtype_env_int(const dtype_t *dt, int *ni, int *na, int *ints, MPI_Aint *aints)
{
    MPI_Count k = dt->nc; /* counts[0..k) become integers, the rest addresses */
    int at = 0;           /* where they go among the integer arguments */
    switch (dt->combiner) {
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HINDEXED_BLOCK: k = 2; break;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_STRUCT: k = dt->counts[0] + 1; break;
    case MPI_COMBINER_RESIZED: k = 0; break;
    case MPI_COMBINER_SUBARRAY: at = 1; break;
    case MPI_COMBINER_DARRAY: at = 3; break;
    default: break;
    }
    for (MPI_Count i = 0; i < k; i++)
        if (dt->counts[i] < INT_MIN || dt->counts[i] > INT_MAX)
            return 0;
    *ni = dt->ni + (int)k;
    *na = (int)(dt->nc - k);
    if (ints) {
        for (int i = 0; i < at; i++)
            ints[i] = dt->ints[i];
        for (MPI_Count i = 0; i < k; i++)
            ints[at + i] = (int)dt->counts[i];
        for (int i = at; i < dt->ni; i++)
            ints[k + i] = dt->ints[i];
    }
    for (MPI_Count i = k; aints && i < dt->nc; i++)
        aints[i - k] = (MPI_Aint)dt->counts[i];
    return 1;
}

RM_ALIAS(Type_get_envelope)
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_BEGIN("MPI_Type_get_envelope");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, num_integers, "num_integers is NULL");
    CHECK_ARG(NULL, num_addresses, "num_addresses is NULL");
    CHECK_ARG(NULL, num_datatypes, "num_datatypes is NULL");
    CHECK_ARG(NULL, combiner, "combiner is NULL");
    int ni = dt->ni, na = dt->na;
    if (dt->nc && !dtype_env_int(dt, &ni, &na, NULL, NULL))
        MPI_FAIL(NULL, MPI_ERR_VALUE_TOO_LARGE,
                 "the type's large-count arguments do not fit an int: use MPI_Type_get_envelope_c");
    *num_integers = ni;
    *num_addresses = na;
    *num_datatypes = dt->nd;
    *combiner = dt->combiner;
    MPI_END();
}

/* The datatypes of the envelope, one reference each for the caller. */
static void dtype_contents_types(const dtype_t *dt, MPI_Datatype *out)
{
    for (int i = 0; i < dt->nd; i++) {
        out[i] = dt->types[i];
        dtype_t *c = dtype_get(dt->types[i]);
        if (c)
            dtype_addref(c); /* the caller frees derived types it receives */
    }
}

RM_ALIAS(Type_get_contents)
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    MPI_BEGIN("MPI_Type_get_contents");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    if (dt->combiner == MPI_COMBINER_NAMED)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "a predefined datatype has no contents");
    int ni = dt->ni, na = dt->na;
    if (dt->nc && !dtype_env_int(dt, &ni, &na, NULL, NULL))
        MPI_FAIL(NULL, MPI_ERR_VALUE_TOO_LARGE,
                 "the type's large-count arguments do not fit an int: use MPI_Type_get_contents_c");
    if (max_integers < ni || max_addresses < na || max_datatypes < dt->nd)
        MPI_FAIL(NULL, MPI_ERR_ARG, "arrays too small (need %d, %d, %d)", ni, na, dt->nd);
    CHECK_ARG(NULL, array_of_integers || !ni, "array_of_integers is NULL");
    CHECK_ARG(NULL, array_of_addresses || !na, "array_of_addresses is NULL");
    CHECK_ARG(NULL, array_of_datatypes || !dt->nd, "array_of_datatypes is NULL");
    if (dt->nc) {
        dtype_env_int(dt, &ni, &na, array_of_integers, array_of_addresses);
    } else {
        if (dt->ni)
            memcpy(array_of_integers, dt->ints, sizeof(int) * (size_t)dt->ni);
        if (dt->na)
            memcpy(array_of_addresses, dt->aints, sizeof(MPI_Aint) * (size_t)dt->na);
    }
    dtype_contents_types(dt, array_of_datatypes);
    MPI_END();
}

RM_ALIAS(Type_get_envelope_c)
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    MPI_BEGIN("MPI_Type_get_envelope_c");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, num_integers, "num_integers is NULL");
    CHECK_ARG(NULL, num_addresses, "num_addresses is NULL");
    CHECK_ARG(NULL, num_large_counts, "num_large_counts is NULL");
    CHECK_ARG(NULL, num_datatypes, "num_datatypes is NULL");
    CHECK_ARG(NULL, combiner, "combiner is NULL");
    *num_integers = dt->ni;
    *num_addresses = dt->na;
    *num_large_counts = dt->nc;
    *num_datatypes = dt->nd;
    *combiner = dt->combiner;
    MPI_END();
}

RM_ALIAS(Type_get_contents_c)
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                             MPI_Count max_addresses, MPI_Count max_large_counts,
                             MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    MPI_BEGIN("MPI_Type_get_contents_c");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    if (dt->combiner == MPI_COMBINER_NAMED)
        MPI_FAIL(NULL, MPI_ERR_TYPE, "a predefined datatype has no contents");
    if (max_integers < dt->ni || max_addresses < dt->na || max_large_counts < dt->nc ||
        max_datatypes < dt->nd)
        MPI_FAIL(NULL, MPI_ERR_ARG, "arrays too small (need %d, %d, %lld, %d)", dt->ni, dt->na,
                 (long long)dt->nc, dt->nd);
    CHECK_ARG(NULL, array_of_integers || !dt->ni, "array_of_integers is NULL");
    CHECK_ARG(NULL, array_of_addresses || !dt->na, "array_of_addresses is NULL");
    CHECK_ARG(NULL, array_of_large_counts || !dt->nc, "array_of_large_counts is NULL");
    CHECK_ARG(NULL, array_of_datatypes || !dt->nd, "array_of_datatypes is NULL");
    if (dt->ni)
        memcpy(array_of_integers, dt->ints, sizeof(int) * (size_t)dt->ni);
    if (dt->na)
        memcpy(array_of_addresses, dt->aints, sizeof(MPI_Aint) * (size_t)dt->na);
    if (dt->nc)
        memcpy(array_of_large_counts, dt->counts, sizeof(MPI_Count) * (size_t)dt->nc);
    dtype_contents_types(dt, array_of_datatypes);
    MPI_END();
}

RM_ALIAS(Type_set_name)
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    MPI_BEGIN("MPI_Type_set_name");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, type_name, "type_name is NULL");
    snprintf(dt->name, sizeof dt->name, "%s", type_name);
    MPI_END();
}

RM_ALIAS(Type_get_name)
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    MPI_BEGIN("MPI_Type_get_name");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, type_name && resultlen, "type_name or resultlen is NULL");
    strcpy(type_name, dt->name);
    *resultlen = (int)strlen(type_name);
    MPI_END();
}

RM_ALIAS(Get_address)
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return mpi_err_raise(NULL, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

RM_ALIAS(Address)
int PMPI_Address(void *location, MPI_Aint *address)
{
    return PMPI_Get_address(location, address);
}

RM_ALIAS(Aint_add)
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

RM_ALIAS(Aint_diff)
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

static int dtype_get_elements(const char *fn_name_, const MPI_Status *status,
                              MPI_Datatype datatype, MPI_Count *out)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE && out, "status or count is NULL");
    CHECK_DTYPE_ANY(dt, datatype);
    *out = dtype_elements(dt, mpi_status_get_count(status));
    MPI_END();
}

RM_ALIAS(Get_elements)
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = dtype_get_elements("MPI_Get_elements", status, datatype, &n);
    if (rc == MPI_SUCCESS && count)
        *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

RM_ALIAS(Get_elements_x)
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return dtype_get_elements("MPI_Get_elements_x", status, datatype, count);
}

RM_ALIAS(Get_elements_c)
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return dtype_get_elements("MPI_Get_elements_c", status, datatype, count);
}

int dtype_pack_common(const char *fn_name_, const void *inbuf, MPI_Count incount,
                      MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position,
                      MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, incount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, position, "position is NULL");
    CHECK_ARG(c, outbuf || outsize == 0, "outbuf is NULL");
    MPI_Count bytes;
    if (__builtin_mul_overflow(incount, dt->size, &bytes) || *position < 0 || outsize < 0 ||
        bytes > outsize - *position)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "%lld items of %lld bytes do not fit at position %lld of %lld",
                 (long long)incount, (long long)dt->size, (long long)*position, (long long)outsize);
    CHECK_BUF(c, inbuf, incount, dt);
    dtype_pack(inbuf, incount, dt, 0, (char *)outbuf + *position, (size_t)bytes);
    *position += bytes;
    MPI_END();
}

int dtype_unpack_common(const char *fn_name_, const void *inbuf, MPI_Count insize,
                        MPI_Count *position, void *outbuf, MPI_Count outcount,
                        MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, outcount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, position, "position is NULL");
    CHECK_ARG(c, inbuf || insize == 0, "inbuf is NULL");
    MPI_Count bytes;
    if (__builtin_mul_overflow(outcount, dt->size, &bytes) || *position < 0 || insize < 0 ||
        bytes > insize - *position)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "%lld items of %lld bytes requested at position %lld of %lld",
                 (long long)outcount, (long long)dt->size, (long long)*position, (long long)insize);
    CHECK_BUF(c, outbuf, outcount, dt);
    dtype_unpack(outbuf, outcount, dt, 0, (const char *)inbuf + *position, (size_t)bytes);
    *position += bytes;
    MPI_END();
}

int dtype_pack_size_common(const char *fn_name_, MPI_Count incount, MPI_Datatype datatype,
                           MPI_Comm comm, MPI_Count *size)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, incount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, size, "size is NULL");
    if (__builtin_mul_overflow(incount, dt->size, size))
        MPI_FAIL(c, MPI_ERR_COUNT, "%lld items of %lld bytes do not fit an MPI_Count",
                 (long long)incount, (long long)dt->size);
    MPI_END();
}

RM_ALIAS(Pack)
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = dtype_pack_common("MPI_Pack", inbuf, incount, datatype, outbuf, outsize,
                               position ? &pos : NULL, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= outsize */
    return rc;
}

RM_ALIAS(Unpack)
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = dtype_unpack_common("MPI_Unpack", inbuf, insize, position ? &pos : NULL, outbuf,
                                 outcount, datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= insize */
    return rc;
}

RM_ALIAS(Pack_size)
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    int rc = dtype_pack_size_common("MPI_Pack_size", incount, datatype, comm, size ? &n : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n > INT_MAX) {
        MPI_BEGIN("MPI_Pack_size");
        MPI_FAIL(comm == MPI_COMM_WORLD ? comm_world : comm_get(comm), MPI_ERR_VALUE_TOO_LARGE,
                 "%lld bytes do not fit an int: use MPI_Pack_size_c", (long long)n);
        MPI_END();
    }
    *size = (int)n;
    return MPI_SUCCESS;
}

RM_ALIAS(Type_c2f)
MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype)
{
    return (MPI_Fint)datatype;
}

RM_ALIAS(Type_f2c)
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype)
{
    return (MPI_Datatype)datatype;
}
