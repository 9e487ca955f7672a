/* A target datatype travels with the operation as its description (the
 * datatype engine's tree of leaves, vectors and blocks), never expanded:
 * a vector of 10^6 blocks costs a few dozen bytes. The target rebuilds it
 * and places the data with the engine's unpack, any piece on its own.
 *
 * Encoding, native byte order (one job, one architecture), per node:
 *   int64 kind; LEAF: int64 handle;
 *   VECTOR: int64 vcount, vblen, vstride, then the child;
 *   BLOCKS: int64 n, then n x (int64 blen, int64 displ), then the n children;
 *   non-leaves end with int64 lb, extent (resized bounds are restored). */
#include "rma/rma.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define RMA_DT_MAX_DEPTH 64

size_t rma_dtype_enc_len(const dtype_t *dt)
{
    if (dt->builtin)
        return 0;
    size_t n;
    switch (dt->kind) {
    case DTYPE_LEAF:
        return 16;
    case DTYPE_VECTOR:
        n = 8 * 4 + 16;
        return n + (dt->child->builtin ? 16 : rma_dtype_enc_len(dt->child));
    default:
        n = 8 * 2 + 16 * (size_t)dt->n + 16;
        for (int i = 0; i < dt->n; i++)
            n += dt->kids[i]->builtin ? 16 : rma_dtype_enc_len(dt->kids[i]);
        return n;
    }
}

static unsigned char *rma_put64(unsigned char *p, int64_t v)
{
    memcpy(p, &v, 8);
    return p + 8;
}

static unsigned char *rma_dtype_enc(const dtype_t *dt, unsigned char *p)
{
    if (dt->builtin || dt->kind == DTYPE_LEAF) {
        p = rma_put64(p, DTYPE_LEAF);
        return rma_put64(p, dt->builtin ? dt->handle : (int64_t)dt->basic);
    }
    if (dt->kind == DTYPE_VECTOR) {
        p = rma_put64(p, DTYPE_VECTOR);
        p = rma_put64(p, dt->vcount);
        p = rma_put64(p, dt->vblen);
        p = rma_put64(p, dt->vstride);
        p = rma_dtype_enc(dt->child, p);
    } else {
        p = rma_put64(p, DTYPE_BLOCKS);
        p = rma_put64(p, dt->n);
        for (int i = 0; i < dt->n; i++) {
            p = rma_put64(p, dt->blens[i]);
            p = rma_put64(p, dt->displs[i]);
        }
        for (int i = 0; i < dt->n; i++)
            p = rma_dtype_enc(dt->kids[i], p);
    }
    p = rma_put64(p, dt->lb);
    return rma_put64(p, dt->extent);
}

void rma_dtype_encode(const dtype_t *dt, unsigned char *out)
{
    rma_dtype_enc(dt, out);
}

typedef struct rma_rd {
    const unsigned char *p, *end;
} rma_rd_t;

static int rma_get64(rma_rd_t *r, int64_t *v)
{
    if (r->end - r->p < 8)
        return 0;
    memcpy(v, r->p, 8);
    r->p += 8;
    return 1;
}

static dtype_t *rma_dtype_dec(rma_rd_t *r, int depth);

/* The bounds the origin's type had (a resized type keeps its own). */
static dtype_t *rma_dtype_bounds(rma_rd_t *r, dtype_t *t)
{
    int64_t lb, extent;
    if (!t || !rma_get64(r, &lb) || !rma_get64(r, &extent)) {
        if (t)
            dtype_release(t);
        return NULL;
    }
    if (t->lb == lb && t->extent == extent)
        return t;
    dtype_t *x = dtype_resized(t, lb, extent);
    dtype_release(t);
    return x;
}

static dtype_t *rma_dtype_dec(rma_rd_t *r, int depth)
{
    int64_t kind, a, b, c;
    if (depth > RMA_DT_MAX_DEPTH || !rma_get64(r, &kind))
        return NULL;
    if (kind == DTYPE_LEAF) {
        if (!rma_get64(r, &a) || a < INT_MIN || a > INT_MAX)
            return NULL;
        dtype_t *t = dtype_get((MPI_Datatype)a);
        if (!t || !t->builtin)
            return NULL;
        dtype_addref(t);
        return t;
    }
    if (kind == DTYPE_VECTOR) {
        if (!rma_get64(r, &a) || !rma_get64(r, &b) || !rma_get64(r, &c) || a < 0 || b < 0)
            return NULL;
        dtype_t *child = rma_dtype_dec(r, depth + 1);
        if (!child)
            return NULL;
        dtype_t *t = dtype_vector(MPI_COMBINER_HVECTOR, a, b, c, child, 0, NULL, 0, NULL, 0, NULL);
        dtype_release(child);
        return rma_dtype_bounds(r, t);
    }
    if (kind != DTYPE_BLOCKS || !rma_get64(r, &a) || a < 0 || a > (r->end - r->p) / 16)
        return NULL;
    int n = (int)a;
    MPI_Count *blens = calloc((size_t)(n ? n : 1), sizeof *blens);
    MPI_Aint *displs = calloc((size_t)(n ? n : 1), sizeof *displs);
    dtype_t **kids = calloc((size_t)(n ? n : 1), sizeof *kids);
    dtype_t *t = NULL;
    int ok = blens && displs && kids;
    for (int i = 0; ok && i < n; i++) {
        ok = rma_get64(r, &b) && rma_get64(r, &c) && b >= 0;
        if (ok) {
            blens[i] = (MPI_Count)b;
            displs[i] = (MPI_Aint)c;
        }
    }
    for (int i = 0; ok && i < n; i++)
        ok = (kids[i] = rma_dtype_dec(r, depth + 1)) != NULL;
    if (ok)
        t = dtype_create(MPI_COMBINER_STRUCT, n, blens, displs, kids, 0, NULL, 0, NULL, 0, NULL);
    for (int i = 0; kids && i < n; i++)
        if (kids[i])
            dtype_release(kids[i]);
    free(blens);
    free(displs);
    free(kids);
    return t ? rma_dtype_bounds(r, t) : NULL;
}

dtype_t *rma_dtype_decode(const unsigned char *in, size_t len)
{
    rma_rd_t r = {in, in + len};
    dtype_t *t = rma_dtype_dec(&r, 0);
    if (t && r.p != r.end) {
        dtype_release(t);
        return NULL;
    }
    return t;
}
