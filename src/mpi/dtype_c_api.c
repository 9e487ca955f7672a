/* The large-count (_c) datatype bindings of MPI-4.1: constructors whose
 * counts, blocklengths, strides and displacements are MPI_Count, the
 * queries answering in MPI_Count, and pack/unpack with MPI_Count positions.
 * They call the implementations the int bindings call (dtype_impl.h); a
 * type built here keeps its MPI_Count arguments as the envelope's large
 * counts (MPI_Type_get_envelope_c / get_contents_c, docs/large-counts.md). */
#include "mpi/dtype_impl.h"

#include <stdlib.h>

RM_ALIAS(Type_contiguous_c)
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    dtype_env_t env = {.nc = 1, .counts = &count};
    return dtype_strided("MPI_Type_contiguous_c", MPI_COMBINER_CONTIGUOUS, count < 0 ? count : 1,
                         count, 0, 0, oldtype, newtype, &env);
}

RM_ALIAS(Type_vector_c)
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Count counts[3] = {count, blocklength, stride};
    dtype_env_t env = {.nc = 3, .counts = counts};
    return dtype_strided("MPI_Type_vector_c", MPI_COMBINER_VECTOR, count, blocklength, stride, 1,
                         oldtype, newtype, &env);
}

RM_ALIAS(Type_create_hvector_c)
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPI_Count counts[3] = {count, blocklength, stride};
    dtype_env_t env = {.nc = 3, .counts = counts};
    return dtype_strided("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, count, blocklength,
                         stride, 0, oldtype, newtype, &env);
}

/* indexed_c, hindexed_c (blens given) and indexed_block_c,
 * hindexed_block_c (one blen): the envelope's large counts are count, the
 * lengths (or the one length), then the displacements. */
static int dtype_indexed_c(const char *fn, int combiner, MPI_Count count, const MPI_Count *blens,
                           MPI_Count blen, const MPI_Count *displs, int in_items,
                           MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int block = combiner == MPI_COMBINER_INDEXED_BLOCK || combiner == MPI_COMBINER_HINDEXED_BLOCK;
    if (count > 0 && ((!block && !blens) || !displs))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn, "%s is NULL",
                             displs ? "array_of_blocklengths" : "array_of_displacements");
    dtype_arr_t bl = {.c = blens}, dp = {.c = displs}, none = {0};
    MPI_Count nc = 0, *counts;
    if (block) {
        MPI_Count m = count > 0 ? count : 0;
        if ((counts = malloc(sizeof(MPI_Count) * (size_t)(m + 2)))) {
            counts[0] = count;
            counts[1] = blen;
            for (MPI_Count i = 0; i < m; i++)
                counts[2 + i] = displs[i];
            nc = m + 2;
        }
    } else {
        counts = dtype_env_counts(count, bl, dp, &nc);
    }
    if (!counts)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    dtype_env_t env = {.nc = nc, .counts = counts};
    int rc = dtype_blocks(fn, combiner, count, block ? none : bl, blen, dp, in_items, oldtype,
                          newtype, &env);
    free(counts);
    return rc;
}

RM_ALIAS(Type_indexed_c)
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    return dtype_indexed_c("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count,
                           array_of_blocklengths, 0, array_of_displacements, 1, oldtype, newtype);
}

RM_ALIAS(Type_create_hindexed_c)
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return dtype_indexed_c("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                           array_of_blocklengths, 0, array_of_displacements, 0, oldtype, newtype);
}

RM_ALIAS(Type_create_indexed_block_c)
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[],
                                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_indexed_c("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count,
                           NULL, blocklength, array_of_displacements, 1, oldtype, newtype);
}

RM_ALIAS(Type_create_hindexed_block_c)
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return dtype_indexed_c("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, count,
                           NULL, blocklength, array_of_displacements, 0, oldtype, newtype);
}

RM_ALIAS(Type_create_struct_c)
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    static const char *fn = "MPI_Type_create_struct_c";
    dtype_arr_t bl = {.c = array_of_blocklengths}, dp = {.c = array_of_displacements};
    MPI_Count nc = 0, *counts = dtype_env_counts(count, bl, dp, &nc);
    if (!counts)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn, "out of memory");
    dtype_env_t env = {.nc = nc, .counts = counts};
    int rc = dtype_struct(fn, count, bl, dp, array_of_types, newtype, &env);
    free(counts);
    return rc;
}

RM_ALIAS(Type_create_resized_c)
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return dtype_resized_common("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, 1);
}

RM_ALIAS(Type_size_c)
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    MPI_BEGIN("MPI_Type_size_c");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, size, "size is NULL");
    *size = dt->size;
    MPI_END();
}

RM_ALIAS(Type_get_extent_c)
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPI_BEGIN("MPI_Type_get_extent_c");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, lb, "lb is NULL");
    CHECK_ARG(NULL, extent, "extent is NULL");
    *lb = dt->lb;
    *extent = dt->extent;
    MPI_END();
}

RM_ALIAS(Type_get_true_extent_c)
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPI_BEGIN("MPI_Type_get_true_extent_c");
    dtype_t *dt;
    CHECK_DTYPE_ANY(dt, datatype);
    CHECK_ARG(NULL, true_lb, "true_lb is NULL");
    CHECK_ARG(NULL, true_extent, "true_extent is NULL");
    *true_lb = dt->true_lb;
    *true_extent = dt->true_ub - dt->true_lb;
    MPI_END();
}

RM_ALIAS(Pack_c)
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return dtype_pack_common("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position,
                             comm);
}

RM_ALIAS(Unpack_c)
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return dtype_unpack_common("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype,
                               comm);
}

RM_ALIAS(Pack_size_c)
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return dtype_pack_size_common("MPI_Pack_size_c", incount, datatype, comm, size);
}
