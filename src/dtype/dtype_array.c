/* Array types: MPI_Type_create_subarray and MPI_Type_create_darray as the
 * standard defines them (MPI-3.1 4.1.3, 4.1.4): a chain of one-dimensional
 * types, each over the previous one, from the fastest-varying dimension
 * (the last in C order, the first in Fortran order) outward. Dimension i
 * places some blocks of the previous type and spans gsizes[i] of its items
 * (its typemap starts with (MPI_LB, 0) and ends with (MPI_UB, span)), so
 * the result has lb 0 and the whole array's extent. Each dimension is two
 * small descriptions (a vector and a one- or two-entry block list): the type
 * is O(ndims) in memory and in build time, whatever the array's size. */
#include "dtype/dtype.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One dimension over prev: nblk blocks of blen items, block b at b * stride
 * bytes, then rem more items at nblk * stride, everything displaced by disp
 * bytes; lb 0 and extent span. The last dimension carries the envelope. */
static dtype_t *dtype_array_dim(dtype_t *prev, MPI_Count nblk, MPI_Count blen, MPI_Aint stride,
                                MPI_Count rem, MPI_Aint disp, MPI_Aint span, int combiner, int ni,
                                const int *ints, const MPI_Datatype *oldh)
{
    MPI_Aint tail;
    if (__builtin_mul_overflow((MPI_Aint)nblk, stride, &tail) ||
        __builtin_add_overflow(tail, disp, &tail)) {
        dtype_build_set_error(RM_ERR_INVALID);
        return NULL;
    }
    dtype_t *v = dtype_vector(MPI_COMBINER_HVECTOR, nblk, blen, stride, prev, 0, NULL, 0, NULL, 0,
                              NULL);
    if (!v)
        return NULL;
    dtype_t *kids[2] = {v, prev};
    MPI_Count blens[2] = {1, rem};
    MPI_Aint displs[2] = {disp, tail};
    dtype_t *t = dtype_create(combiner, rem ? 2 : 1, blens, displs, kids, ni, ints, 0, NULL,
                              oldh ? 1 : 0, oldh);
    dtype_release(v); /* t holds its own reference */
    if (!t)
        return NULL;
    t->lb = 0;
    t->ub = t->extent = span;
    t->lb_marked = t->ub_marked = 1;
    return t;
}

/* Chains the dimensions: dim(i, prev) builds dimension i over prev. */
typedef struct dtype_array_spec {
    int ndims, order, combiner, ni;
    const int *ints;
    MPI_Datatype oldh;
    /* per dimension: blocks, block length, distance between blocks (in
     * items of the previous dimension), remainder, first item, span */
    MPI_Count *nblk, *blen, *step, *first, *rem;
    const MPI_Count *span;
} dtype_array_spec_t;

static dtype_t *dtype_array_build(const dtype_array_spec_t *s, dtype_t *old)
{
    dtype_t *prev = old;
    dtype_addref(prev);
    for (int k = 0; k < s->ndims; k++) {
        int i = s->order == MPI_ORDER_C ? s->ndims - 1 - k : k;
        int last = k == s->ndims - 1;
        MPI_Aint ext = prev->extent, stride, disp, span;
        if (__builtin_mul_overflow((MPI_Aint)s->step[i], ext, &stride) ||
            __builtin_mul_overflow((MPI_Aint)s->first[i], ext, &disp) ||
            __builtin_mul_overflow((MPI_Aint)s->span[i], ext, &span)) {
            dtype_release(prev);
            dtype_build_set_error(RM_ERR_INVALID);
            return NULL;
        }
        dtype_t *t = dtype_array_dim(prev, s->nblk[i], s->blen[i], stride, s->rem[i], disp, span,
                                     last ? s->combiner : MPI_COMBINER_HINDEXED,
                                     last ? s->ni : 0, last ? s->ints : NULL,
                                     last ? &s->oldh : NULL);
        dtype_release(prev);
        if (!t)
            return NULL;
        prev = t;
    }
    return prev;
}

static bool dtype_array_alloc(dtype_array_spec_t *s)
{
    size_t n = (size_t)s->ndims;
    s->nblk = malloc(sizeof(MPI_Count) * 5 * n);
    if (!s->nblk) {
        dtype_build_set_error(RM_ERR_NOMEM);
        return false;
    }
    s->blen = s->nblk + n;
    s->step = s->blen + n;
    s->first = s->step + n;
    s->rem = s->first + n;
    return true;
}

/* The envelope's last word: the large-count arguments of a _c constructor. */
static dtype_t *dtype_array_counts(dtype_t *t, MPI_Count nc, const MPI_Count *counts)
{
    if (t && nc && dtype_set_counts(t, nc, counts) < 0) {
        dtype_release(t);
        dtype_build_set_error(RM_ERR_NOMEM);
        return NULL;
    }
    return t;
}

dtype_t *dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                        const MPI_Count *starts, int order, dtype_t *old, int large)
{
    size_t n = (size_t)ndims;
    /* int constructor: ndims, sizes, subsizes, starts, order; the _c one
     * keeps ndims and order as integers, the arrays as large counts */
    int *ints = malloc(sizeof(int) * (3 * n + 2));
    MPI_Count *counts = malloc(sizeof(MPI_Count) * 3 * n);
    dtype_array_spec_t s = {ndims, order, MPI_COMBINER_SUBARRAY, large ? 2 : (int)(3 * n + 2),
                            ints, old->handle, NULL, NULL, NULL, NULL, NULL, sizes};
    if (!ints || !counts) {
        free(ints);
        free(counts);
        dtype_build_set_error(RM_ERR_NOMEM);
        return NULL;
    }
    ints[0] = ndims;
    for (size_t i = 0; i < n; i++) {
        counts[i] = sizes[i];
        counts[n + i] = subsizes[i];
        counts[2 * n + i] = starts[i];
    }
    if (large) {
        ints[1] = order;
    } else {
        for (size_t i = 0; i < 3 * n; i++)
            ints[1 + i] = (int)counts[i];
        ints[1 + 3 * n] = order;
    }
    dtype_t *t = NULL;
    if (dtype_array_alloc(&s)) {
        for (size_t i = 0; i < n; i++) { /* one block of subsizes[i] items at starts[i] */
            s.nblk[i] = 1;
            s.blen[i] = subsizes[i];
            s.step[i] = 0;
            s.first[i] = starts[i];
            s.rem[i] = 0;
        }
        t = dtype_array_counts(dtype_array_build(&s, old), large ? (MPI_Count)(3 * n) : 0, counts);
    }
    free(s.nblk);
    free(ints);
    free(counts);
    return t;
}

dtype_t *dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                      const int *dargs, const int *psizes, int order, dtype_t *old, int large)
{
    size_t n = (size_t)ndims;
    /* int constructor: size, rank, ndims, gsizes, distribs, dargs, psizes,
     * order; the _c one keeps gsizes as large counts */
    int *ints = malloc(sizeof(int) * (4 * n + 4));
    dtype_array_spec_t s = {ndims, order, MPI_COMBINER_DARRAY, (int)((large ? 3 : 4) * n + 4),
                            ints, old->handle, NULL, NULL, NULL, NULL, NULL, gsizes};
    if (!ints) {
        dtype_build_set_error(RM_ERR_NOMEM);
        return NULL;
    }
    int *p = ints;
    *p++ = size;
    *p++ = rank;
    *p++ = ndims;
    for (size_t i = 0; !large && i < n; i++)
        *p++ = (int)gsizes[i];
    memcpy(p, distribs, sizeof(int) * n);
    memcpy(p + n, dargs, sizeof(int) * n);
    memcpy(p + 2 * n, psizes, sizeof(int) * n);
    p[3 * n] = order;
    dtype_t *t = NULL;
    if (dtype_array_alloc(&s)) {
        /* the process grid is row-major whatever the array's order (as in
         * a Cartesian topology) */
        int r = rank;
        for (int i = ndims - 1; i >= 0; i--) {
            MPI_Count coord = r % psizes[i], np = psizes[i], g = gsizes[i], b;
            r /= psizes[i];
            /* a block distribution is a cyclic one whose blocks are big
             * enough that every process has at most one; none is one block */
            if (distribs[i] == MPI_DISTRIBUTE_NONE) {
                b = g;
                np = 1;
                coord = 0;
            } else if (distribs[i] == MPI_DISTRIBUTE_BLOCK) {
                b = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? (g + np - 1) / np : dargs[i];
            } else {
                b = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[i];
            }
            /* blocks of b items: this process has blocks coord, coord + np, ... */
            MPI_Count nb_all = (g + b - 1) / b;
            MPI_Count mine = coord < nb_all ? (nb_all - 1 - coord) / np + 1 : 0;
            MPI_Count last_len = 0;
            if (mine) {
                MPI_Count last_start = (coord + (mine - 1) * np) * b;
                last_len = g - last_start < b ? g - last_start : b;
            }
            int partial = mine && last_len < b;
            s.nblk[i] = partial ? mine - 1 : mine;
            s.blen[i] = b;
            s.step[i] = np * b;
            s.first[i] = mine ? coord * b : 0;
            s.rem[i] = partial ? last_len : 0;
        }
        t = dtype_array_counts(dtype_array_build(&s, old), large ? ndims : 0, gsizes);
    }
    free(s.nblk);
    free(ints);
    return t;
}
