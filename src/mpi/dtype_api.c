/* Datatype bindings: constructors, queries, pack/unpack, element counts. */
#include "comm/attr.h"
#include "mpi/mpiimpl.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Any valid type, committed or not (constructors and queries). */
#define CHECK_DTYPE_ANY(dt, h)                                                       \
    do {                                                                             \
        if (!((dt) = dtype_get(h)))                                                  \
            MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)(h));    \
    } while (0)

static int dtype_publish(const char *fn_name_, dtype_t *t, MPI_Datatype *newtype)
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

/* Shared by the indexed family: count blocks of one old type. */
static int dtype_blocks(const char *fn_name_, int combiner, int count, const int *blens, int blen,
                        const MPI_Aint *byte_displs, const int *elem_displs, MPI_Datatype oldtype,
                        MPI_Datatype *newtype, int ni, const int *ints, int na, const MPI_Aint *aints)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_COUNT(NULL, count);
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    if (count > 0)
        CHECK_ARG(NULL, byte_displs || elem_displs, "displacements are NULL");
    if (!blens && blen < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %d", blen);
    int *bl = malloc(sizeof(int) * (size_t)(count ? count : 1));
    MPI_Aint *dp = malloc(sizeof(MPI_Aint) * (size_t)(count ? count : 1));
    dtype_t **ts = malloc(sizeof(dtype_t *) * (size_t)(count ? count : 1));
    if (!bl || !dp || !ts) {
        free(bl);
        free(dp);
        free(ts);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < count; i++) {
        bl[i] = blens ? blens[i] : blen;
        if (bl[i] < 0) {
            int neg = bl[i];
            free(bl);
            free(dp);
            free(ts);
            MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %d at %d", neg, i);
        }
        dp[i] = byte_displs ? byte_displs[i] : (MPI_Aint)elem_displs[i] * old->extent;
        ts[i] = old;
    }
    MPI_Datatype oh = oldtype;
    dtype_t *t = dtype_create(combiner, count, bl, dp, ts, ni, ints, na, aints, 1, &oh);
    free(bl);
    free(dp);
    free(ts);
    err = dtype_publish(fn_name_, t, newtype);
    MPI_END();
}

/* contiguous, vector, hvector: one loop of count blocks, built in O(1). */
static int dtype_strided(const char *fn_name_, int combiner, int count, int blocklength,
                         MPI_Aint stride, int stride_in_items, MPI_Datatype oldtype,
                         MPI_Datatype *newtype, int ni, const int *ints, int na, const MPI_Aint *aints)
{
    MPI_BEGIN_SHARED();
    dtype_t *old;
    CHECK_COUNT(NULL, count);
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    if (blocklength < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %d", blocklength);
    MPI_Aint bytes = stride;
    if (stride_in_items && __builtin_mul_overflow(stride, old->extent, &bytes))
        MPI_FAIL(NULL, MPI_ERR_ARG, "stride %ld items of extent %ld overflows", (long)stride,
                 (long)old->extent);
    MPI_Datatype oh = oldtype;
    dtype_t *t = dtype_vector(combiner, count, blocklength, bytes, old, ni, ints, na, aints, 1, &oh);
    err = dtype_publish(fn_name_, t, newtype);
    MPI_END();
}

RM_ALIAS(Type_contiguous)
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int ints[1] = {count};
    /* one block of `count` items */
    return dtype_strided("MPI_Type_contiguous", MPI_COMBINER_CONTIGUOUS, count < 0 ? count : 1,
                         count, 0, 0, oldtype, newtype, 1, ints, 0, NULL);
}

RM_ALIAS(Type_vector)
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    int ints[3] = {count, blocklength, stride};
    return dtype_strided("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength, stride, 1,
                         oldtype, newtype, 3, ints, 0, NULL);
}

static int dtype_hvector(const char *fn, int combiner, int count, int blocklength, MPI_Aint stride,
                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int ints[2] = {count, blocklength};
    return dtype_strided(fn, combiner, count, blocklength, stride, 0, oldtype, newtype, 2, ints, 1,
                         &stride);
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

/* Envelope integers for the indexed family: count, then lengths, then displacements. */
static int *dtype_ints(int count, const int *a, const int *b, int *n)
{
    int *v = malloc(sizeof(int) * (size_t)(1 + 2 * (count > 0 ? count : 0)));
    if (!v)
        return NULL;
    v[0] = count;
    *n = 1;
    for (int i = 0; a && i < count; i++)
        v[(*n)++] = a[i];
    for (int i = 0; b && i < count; i++)
        v[(*n)++] = b[i];
    return v;
}

RM_ALIAS(Type_indexed)
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_indexed";
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
    int n, *ints = dtype_ints(count, array_of_blocklengths, array_of_displacements, &n);
    if (!ints)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = dtype_blocks(fn, MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0, NULL,
                          array_of_displacements, oldtype, newtype, n, ints, 0, NULL);
    free(ints);
    return rc;
}

static int dtype_hindexed(const char *fn, int count, const int *blens, const MPI_Aint *displs,
                          MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && (!blens || !displs))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array argument is NULL");
    int n, *ints = dtype_ints(count, blens, NULL, &n);
    if (!ints)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = dtype_blocks(fn, MPI_COMBINER_HINDEXED, count, blens, 0, displs, NULL, oldtype, newtype,
                          n, ints, count, displs);
    free(ints);
    return rc;
}

RM_ALIAS(Type_create_hindexed)
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return dtype_hindexed("MPI_Type_create_hindexed", count, array_of_blocklengths,
                          array_of_displacements, oldtype, newtype);
}

RM_ALIAS(Type_hindexed)
int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_hindexed("MPI_Type_hindexed", count, array_of_blocklengths, array_of_displacements,
                          oldtype, newtype);
}

RM_ALIAS(Type_create_indexed_block)
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_indexed_block";
    if (count > 0 && !array_of_displacements)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    int n, *ints = dtype_ints(count, NULL, array_of_displacements, &n);
    if (!ints)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    int rc = dtype_blocks(fn, MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, NULL,
                          array_of_displacements, oldtype, newtype, n, ints, 0, NULL);
    free(ints);
    return rc;
}

RM_ALIAS(Type_create_hindexed_block)
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_hindexed_block";
    if (count > 0 && !array_of_displacements)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "array_of_displacements is NULL");
    int ints[2] = {count, blocklength};
    return dtype_blocks(fn, MPI_COMBINER_HINDEXED_BLOCK, count, NULL, blocklength,
                        array_of_displacements, NULL, oldtype, newtype, 2, ints, count,
                        array_of_displacements);
}

static int dtype_struct(const char *fn_name_, int count, const int *blens, const MPI_Aint *displs,
                        const MPI_Datatype *types, MPI_Datatype *newtype)
{
    MPI_BEGIN_SHARED();
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    CHECK_ARG(NULL, count == 0 || (blens && displs && types), "array argument is NULL");
    dtype_t **ts = malloc(sizeof(dtype_t *) * (size_t)(count ? count : 1));
    int n, *ints = dtype_ints(count, blens, NULL, &n);
    if (!ts || !ints) {
        free(ts);
        free(ints);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    int bad = -1;
    for (int i = 0; i < count && bad < 0; i++)
        if (!(ts[i] = dtype_get(types[i])) || blens[i] < 0)
            bad = i;
    if (bad >= 0) {
        free(ts);
        free(ints);
        if (blens[bad] < 0)
            MPI_FAIL(NULL, MPI_ERR_ARG, "negative blocklength %d at %d", blens[bad], bad);
        MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x at %d", (unsigned)types[bad], bad);
    }
    dtype_t *t = dtype_create(MPI_COMBINER_STRUCT, count, blens, displs, ts, n, ints, count, displs,
                              count, types);
    free(ts);
    free(ints);
    err = dtype_publish(fn_name_, t, newtype);
    MPI_END();
}

RM_ALIAS(Type_create_struct)
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return dtype_struct("MPI_Type_create_struct", count, array_of_blocklengths,
                        array_of_displacements, array_of_types, newtype);
}

RM_ALIAS(Type_struct)
int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return dtype_struct("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements,
                        array_of_types, newtype);
}

RM_ALIAS(Type_create_resized)
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    MPI_BEGIN("MPI_Type_create_resized");
    dtype_t *old;
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    err = dtype_publish(fn_name_, dtype_resized(old, lb, extent), newtype);
    MPI_END();
}

RM_ALIAS(Type_dup)
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_BEGIN("MPI_Type_dup");
    dtype_t *old;
    CHECK_DTYPE_ANY(old, oldtype);
    CHECK_ARG(NULL, newtype, "newtype is NULL");
    dtype_t *t = dtype_dup(old);
    if ((err = dtype_publish(fn_name_, t, newtype)) != MPI_SUCCESS)
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

RM_ALIAS(Type_get_envelope)
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_BEGIN("MPI_Type_get_envelope");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, num_integers && num_addresses && num_datatypes && combiner, "NULL argument");
    *num_integers = dt->ni;
    *num_addresses = dt->na;
    *num_datatypes = dt->nd;
    *combiner = dt->combiner;
    MPI_END();
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
    if (max_integers < dt->ni || max_addresses < dt->na || max_datatypes < dt->nd)
        MPI_FAIL(NULL, MPI_ERR_ARG, "arrays too small (need %d, %d, %d)", dt->ni, dt->na, dt->nd);
    if (dt->ni)
        memcpy(array_of_integers, dt->ints, sizeof(int) * (size_t)dt->ni);
    if (dt->na)
        memcpy(array_of_addresses, dt->aints, sizeof(MPI_Aint) * (size_t)dt->na);
    for (int i = 0; i < dt->nd; i++) {
        array_of_datatypes[i] = dt->types[i];
        dtype_t *c = dtype_get(dt->types[i]);
        if (c)
            dtype_addref(c); /* the caller frees derived types it receives */
    }
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

RM_ALIAS(Pack)
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Pack");
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, incount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, position && (outbuf || outsize == 0), "position or outbuf is NULL");
    size_t bytes = (size_t)incount * (size_t)dt->size;
    if (*position < 0 || (size_t)*position + bytes > (size_t)outsize)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "%zu bytes do not fit at position %d of %d", bytes, *position,
                 outsize);
    dtype_pack(inbuf, incount, dt, 0, (char *)outbuf + *position, bytes);
    *position += (int)bytes;
    MPI_END();
}

RM_ALIAS(Unpack)
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Unpack");
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, outcount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, position && (inbuf || insize == 0), "position or inbuf is NULL");
    size_t bytes = (size_t)outcount * (size_t)dt->size;
    if (*position < 0 || (size_t)*position + bytes > (size_t)insize)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "%zu bytes requested at position %d of %d", bytes, *position,
                 insize);
    dtype_unpack(outbuf, outcount, dt, 0, (const char *)inbuf + *position, bytes);
    *position += (int)bytes;
    MPI_END();
}

RM_ALIAS(Pack_size)
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_BEGIN("MPI_Pack_size");
    comm_t *c;
    dtype_t *dt;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, incount);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ARG(c, size, "size is NULL");
    MPI_Count bytes = (MPI_Count)incount * dt->size;
    if (bytes > INT_MAX)
        MPI_FAIL(c, MPI_ERR_ARG, "%lld bytes do not fit an int",
                 (long long)bytes);
    *size = (int)bytes;
    MPI_END();
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
