/* Shared by the datatype binding files (dtype_api.c, dtype_c_api.c,
 * dtype_ext_api.c): one implementation per constructor and per pack call,
 * taking MPI_Count, which the int and the large-count (_c) bindings both
 * call with their own arguments. */
#ifndef RM_MPI_DTYPE_IMPL_H
#define RM_MPI_DTYPE_IMPL_H

#include "mpi/mpiimpl.h"

/* Any valid type, committed or not (constructors and queries). */
#define CHECK_DTYPE_ANY(dt, h)                                                       \
    do {                                                                             \
        if (!((dt) = dtype_get(h)))                                                  \
            MPI_FAIL(NULL, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)(h));    \
    } while (0)

/* An array argument as the int or the _c binding passes it: at most one
 * of i, a, c is set (none: the argument is NULL). */
typedef struct dtype_arr {
    const int *i;
    const MPI_Aint *a;
    const MPI_Count *c;
} dtype_arr_t;

static inline MPI_Count dtype_arr_at(dtype_arr_t v, MPI_Count k)
{
    return v.c ? v.c[k] : v.a ? (MPI_Count)v.a[k] : (MPI_Count)v.i[k];
}

static inline int dtype_arr_null(dtype_arr_t v)
{
    return !v.i && !v.a && !v.c;
}

/* What a constructor records for MPI_Type_get_envelope/get_contents: the
 * int constructors fill ints and aints, the _c ones counts (nc > 0). */
typedef struct dtype_env {
    int ni;
    const int *ints;
    int na;
    const MPI_Aint *aints;
    MPI_Count nc;
    const MPI_Count *counts;
} dtype_env_t;

/* Registers t (NULL: the constructor failed) and stores its handle. */
int dtype_publish(const char *fn_name_, dtype_t *t, MPI_Datatype *newtype, MPI_Count nc,
                  const MPI_Count *counts);
/* contiguous, vector, hvector: count blocks of blocklength items, stride
 * in items of oldtype (stride_in_items) or in bytes. */
int dtype_strided(const char *fn_name_, int combiner, MPI_Count count, MPI_Count blocklength,
                  MPI_Count stride, int stride_in_items, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, const dtype_env_t *env);
/* The indexed family: count blocks of oldtype, lengths blens (or blen for
 * all when blens is null), displacements in items (displs_in_items) or bytes. */
int dtype_blocks(const char *fn_name_, int combiner, MPI_Count count, dtype_arr_t blens,
                 MPI_Count blen, dtype_arr_t displs, int displs_in_items, MPI_Datatype oldtype,
                 MPI_Datatype *newtype, const dtype_env_t *env);
int dtype_struct(const char *fn_name_, MPI_Count count, dtype_arr_t blens, dtype_arr_t displs,
                 const MPI_Datatype *types, MPI_Datatype *newtype, const dtype_env_t *env);
int dtype_resized_common(const char *fn_name_, MPI_Datatype oldtype, MPI_Count lb,
                         MPI_Count extent, MPI_Datatype *newtype, int large);
/* Envelope arrays {count, a[0..count), b[0..count)} (a or b may be null). */
int *dtype_env_ints(MPI_Count count, dtype_arr_t a, dtype_arr_t b, int *n);
MPI_Count *dtype_env_counts(MPI_Count count, dtype_arr_t a, dtype_arr_t b, MPI_Count *n);

int dtype_pack_common(const char *fn_name_, const void *inbuf, MPI_Count incount,
                      MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position,
                      MPI_Comm comm);
int dtype_unpack_common(const char *fn_name_, const void *inbuf, MPI_Count insize,
                        MPI_Count *position, void *outbuf, MPI_Count outcount,
                        MPI_Datatype datatype, MPI_Comm comm);
int dtype_pack_size_common(const char *fn_name_, MPI_Count incount, MPI_Datatype datatype,
                           MPI_Comm comm, MPI_Count *size);

#endif
