/* Building derived types: a new type records its constructor's loop (VECTOR:
 * count, blocklength, stride; BLOCKS: one entry per block) over references to
 * its children, plus the summary every user needs (size, bounds, elements,
 * whether the data is one contiguous run). Nothing is expanded, so building
 * costs O(entries), whatever count the loops describe; all sizes and bounds
 * are 64-bit and a type whose size or span overflows them is refused. */
#include "dtype/dtype.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A type is also flattened into (offset, length) runs when it has at most
 * this many: small nested types are then packed by one loop over the runs. */
#define DTYPE_FLAT_MAX 256
#define DTYPE_RUNS_CAP ((MPI_Count)1 << 62)

static MPI_Count dtype_sat_mul(MPI_Count a, MPI_Count b)
{
    MPI_Count r;
    if (__builtin_mul_overflow(a, b, &r) || r > DTYPE_RUNS_CAP)
        return DTYPE_RUNS_CAP;
    return r;
}

/* What the entries of a new type add up to. */
typedef struct dtype_acc {
    MPI_Count size, nelems, nbasic, nruns, xsize;
    MPI_Aint nlb, nub, tlb, tub, mlb, mub; /* natural, true and marker bounds */
    bool have_nlb, have_nub, have_t, hlb, hub;
    bool overflow;
    bool dense;      /* every data run so far follows the previous one */
    bool any_run;
    MPI_Aint run_end;
    int align;
    bool same_basic;
    MPI_Datatype basic;
} dtype_acc_t;

static void dtype_acc_init(dtype_acc_t *a)
{
    memset(a, 0, sizeof *a);
    a->dense = true;
    a->align = 1;
    a->same_basic = true;
    a->basic = MPI_DATATYPE_NULL;
}

/* Bounds of blen items of c starting at disp (item j at disp + j * extent). */
static void dtype_acc_bounds(dtype_acc_t *a, MPI_Aint disp, MPI_Count blen, const dtype_t *c)
{
    MPI_Aint span, last;
    if (__builtin_mul_overflow((MPI_Aint)(blen - 1), c->extent, &span) ||
        __builtin_add_overflow(disp, span, &last)) {
        a->overflow = true;
        return;
    }
    MPI_Aint lo = disp < last ? disp : last, hi = disp < last ? last : disp;
    MPI_Aint l, u, tl, tu;
    if (__builtin_add_overflow(lo, c->lb, &l) || __builtin_add_overflow(hi, c->ub, &u) ||
        __builtin_add_overflow(lo, c->true_lb, &tl) || __builtin_add_overflow(hi, c->true_ub, &tu)) {
        a->overflow = true;
        return;
    }
    /* a type that only holds markers moves only the bounds it marks (MPICH:
     * a struct of just (MPI_LB, 10) has lb 10, ub 0, extent -10) */
    bool marker_only = c->size == 0 && (c->lb_marked || c->ub_marked);
    if (c->lb_marked) {
        if (!a->hlb || l < a->mlb)
            a->mlb = l;
        a->hlb = true;
    } else if (!marker_only && (!a->have_nlb || l < a->nlb)) {
        a->nlb = l;
        a->have_nlb = true;
    }
    if (c->ub_marked) {
        if (!a->hub || u > a->mub)
            a->mub = u;
        a->hub = true;
    } else if (!marker_only && (!a->have_nub || u > a->nub)) {
        a->nub = u;
        a->have_nub = true;
    }
    if (c->size) {
        if (!a->have_t || tl < a->tlb)
            a->tlb = tl;
        if (!a->have_t || tu > a->tub)
            a->tub = tu;
        a->have_t = true;
    }
}

/* blocks blocks of blen items of c; the blocks' data runs start at first_run
 * and follow each other `step` bytes apart. */
static void dtype_acc_data(dtype_acc_t *a, MPI_Count blocks, MPI_Count blen, const dtype_t *c,
                           MPI_Aint first_run, MPI_Aint step)
{
    if (blocks <= 0 || blen <= 0)
        return;
    if (c->align > a->align)
        a->align = c->align;
    if (!c->size)
        return;
    MPI_Count items, bytes, el, nb, xb;
    if (__builtin_mul_overflow(blocks, blen, &items) ||
        __builtin_mul_overflow(items, c->size, &bytes) ||
        __builtin_add_overflow(a->size, bytes, &a->size) ||
        __builtin_mul_overflow(items, c->xsize, &xb) ||
        __builtin_add_overflow(a->xsize, xb, &a->xsize) ||
        __builtin_mul_overflow(items, c->nelems, &el) ||
        __builtin_add_overflow(a->nelems, el, &a->nelems) ||
        __builtin_mul_overflow(items, c->nbasic, &nb) ||
        __builtin_add_overflow(a->nbasic, nb, &a->nbasic)) {
        a->overflow = true;
        return;
    }
    if (a->basic == MPI_DATATYPE_NULL)
        a->basic = c->basic;
    if (c->basic != a->basic || c->basic == MPI_DATATYPE_NULL)
        a->same_basic = false;
    /* one block is one run when the child is and its items abut */
    bool block_run = c->contig && (blen == 1 || c->extent == (MPI_Aint)c->size);
    MPI_Count per = block_run ? 1 : dtype_sat_mul(blen, c->nruns);
    MPI_Count runs = dtype_sat_mul(blocks, per); /* both terms <= 2^62: the sum fits */
    a->nruns = runs + a->nruns > DTYPE_RUNS_CAP ? DTYPE_RUNS_CAP : runs + a->nruns;
    MPI_Aint run_len = (MPI_Aint)(blen * c->size);
    if (!block_run || (blocks > 1 && step != run_len) || (a->any_run && first_run != a->run_end))
        a->dense = false;
    a->any_run = true;
    a->run_end = first_run + (MPI_Aint)(blocks - 1) * step + run_len;
}

/* Fill the summary fields of t from the accumulated entries. */
static bool dtype_acc_finish(dtype_t *t, const dtype_acc_t *a, int combiner)
{
    if (a->overflow)
        return false;
    MPI_Aint lb = a->hlb ? a->mlb : (a->have_nlb ? a->nlb : 0);
    MPI_Aint ub = a->hub ? a->mub : (a->have_nub ? a->nub : 0);
    /* like a C struct, a struct type's extent is padded to its alignment */
    if (combiner == MPI_COMBINER_STRUCT && !a->hub && a->align > 1 && ub > lb) {
        MPI_Aint pad = (ub - lb) % a->align;
        if (pad)
            ub += a->align - pad;
    }
    MPI_Aint extent;
    if (__builtin_sub_overflow(ub, lb, &extent))
        return false;
    t->refcount = 1;
    t->combiner = combiner;
    t->size = a->size;
    t->xsize = a->xsize;
    t->nelems = a->nelems;
    t->nbasic = a->nbasic;
    t->nruns = a->nruns;
    t->lb = lb;
    t->ub = ub;
    t->extent = extent;
    t->lb_marked = a->hlb;
    t->ub_marked = a->hub;
    t->true_lb = a->have_t ? a->tlb : 0;
    t->true_ub = a->have_t ? a->tub : 0;
    t->align = a->align;
    t->basic = a->same_basic ? a->basic : MPI_DATATYPE_NULL;
    t->contig = a->size == 0 || a->dense;
    return true;
}

/* ---- optional flattening of small types -------------------------------- */

typedef struct dtype_builder {
    dtype_block_t *b;
    int n, cap;
} dtype_builder_t;

static int dtype_builder_add(dtype_builder_t *bd, MPI_Aint off, MPI_Aint len)
{
    if (!len)
        return 0;
    if (bd->n && bd->b[bd->n - 1].off + bd->b[bd->n - 1].len == off) {
        bd->b[bd->n - 1].len += len; /* adjacent: one block */
        return 0;
    }
    if (bd->n == bd->cap) {
        int cap = bd->cap ? bd->cap * 2 : 8;
        dtype_block_t *nb = realloc(bd->b, sizeof *nb * (size_t)cap);
        if (!nb)
            return -1;
        bd->b = nb;
        bd->cap = cap;
    }
    bd->b[bd->n++] = (dtype_block_t){off, len};
    return 0;
}

static int dtype_flat_item(const dtype_t *t, MPI_Aint base, dtype_builder_t *bd);

static int dtype_flat_block(const dtype_t *c, MPI_Count blen, MPI_Aint at, dtype_builder_t *bd)
{
    if (!c->size)
        return 0;
    if (c->contig && (blen == 1 || c->extent == (MPI_Aint)c->size))
        return dtype_builder_add(bd, at + c->true_lb, (MPI_Aint)(blen * c->size));
    for (MPI_Count j = 0; j < blen; j++)
        if (dtype_flat_item(c, at + (MPI_Aint)j * c->extent, bd) < 0)
            return -1;
    return 0;
}

static int dtype_flat_item(const dtype_t *t, MPI_Aint base, dtype_builder_t *bd)
{
    if (t->contig)
        return dtype_builder_add(bd, base + t->true_lb, (MPI_Aint)t->size);
    if (t->kind == DTYPE_VECTOR) {
        for (MPI_Count b = 0; b < t->vcount; b++)
            if (dtype_flat_block(t->child, t->vblen, base + (MPI_Aint)b * t->vstride, bd) < 0)
                return -1;
        return 0;
    }
    for (int i = 0; i < t->n; i++)
        if (dtype_flat_block(t->kids[i], t->blens[i], base + t->displs[i], bd) < 0)
            return -1;
    return 0;
}

static bool dtype_flatten(dtype_t *t)
{
    if (t->contig || t->nruns > DTYPE_FLAT_MAX)
        return true;
    dtype_builder_t bd = {0};
    if (dtype_flat_item(t, 0, &bd) < 0) {
        free(bd.b);
        return false;
    }
    t->bsum = malloc(sizeof *t->bsum * (size_t)(bd.n + 1));
    if (!t->bsum) {
        free(bd.b);
        return false;
    }
    t->bsum[0] = 0;
    for (int i = 0; i < bd.n; i++)
        t->bsum[i + 1] = t->bsum[i] + bd.b[i].len;
    t->blocks = bd.b;
    t->nblocks = bd.n;
    return true;
}

/* ---- constructors ------------------------------------------------------- */

static void *dtype_dup_array(const void *src, size_t n, size_t elem)
{
    if (!n)
        return NULL;
    void *p = malloc(n * elem);
    if (p)
        memcpy(p, src, n * elem);
    return p;
}

static bool dtype_set_envelope(dtype_t *t, int ni, const int *ints, int na, const MPI_Aint *aints,
                               int nd, const MPI_Datatype *dts)
{
    t->ni = ni;
    t->na = na;
    t->nd = nd;
    t->ints = dtype_dup_array(ints, (size_t)ni, sizeof *ints);
    t->aints = dtype_dup_array(aints, (size_t)na, sizeof *aints);
    t->types = dtype_dup_array(dts, (size_t)nd, sizeof *dts);
    return !((ni && !t->ints) || (na && !t->aints) || (nd && !t->types));
}

rm_status_t dtype_set_counts(dtype_t *t, MPI_Count nc, const MPI_Count *counts)
{
    MPI_Count *c = malloc(sizeof *c * (size_t)(nc > 0 ? nc : 1));
    if (!c)
        return RM_ERR_NOMEM;
    if (nc > 0)
        memcpy(c, counts, sizeof *c * (size_t)nc);
    free(t->counts);
    t->counts = c;
    t->nc = nc;
    free(t->aints); /* a _c constructor's addresses are large counts too */
    t->aints = NULL;
    t->na = 0;
    return RM_OK;
}

/* Why the last constructor on this thread returned NULL. */
static _Thread_local rm_status_t dtype_last_error;

rm_status_t dtype_build_error(void)
{
    return dtype_last_error;
}

void dtype_build_set_error(rm_status_t why)
{
    dtype_last_error = why;
}

static dtype_t *dtype_fail(dtype_t *t, rm_status_t why)
{
    dtype_last_error = why;
    dtype_release(t); /* drops the children it already holds */
    return NULL;
}

dtype_t *dtype_create(int combiner, MPI_Count count, const MPI_Count *blens, const MPI_Aint *displs,
                      dtype_t *const *types, int ni, const int *ints, int na,
                      const MPI_Aint *aints, int nd, const MPI_Datatype *dts)
{
    /* the description holds one entry per block: more than INT_MAX of them
     * would take over 64 GiB */
    if (count > INT_MAX) {
        dtype_last_error = RM_ERR_NOMEM;
        return NULL;
    }
    dtype_t *t = calloc(1, sizeof *t);
    if (!t) {
        dtype_last_error = RM_ERR_NOMEM;
        return NULL;
    }
    t->refcount = 1;
    t->kind = DTYPE_BLOCKS;
    size_t n = (size_t)(count > 0 ? count : 0);
    t->blens = malloc(sizeof *t->blens * (n ? n : 1));
    t->displs = malloc(sizeof *t->displs * (n ? n : 1));
    t->kids = malloc(sizeof *t->kids * (n ? n : 1));
    t->psum = malloc(sizeof *t->psum * (n + 1));
    if (!t->blens || !t->displs || !t->kids || !t->psum)
        return dtype_fail(t, RM_ERR_NOMEM);
    dtype_acc_t a;
    dtype_acc_init(&a);
    t->psum[0] = 0;
    for (size_t i = 0; i < n; i++) {
        dtype_t *c = types[i];
        dtype_addref(c);
        t->kids[i] = c;
        t->n = (int)i + 1;
        t->blens[i] = blens[i] > 0 ? blens[i] : 0;
        t->displs[i] = displs[i];
        if (blens[i] > 0) {
            dtype_acc_bounds(&a, displs[i], blens[i], c);
            dtype_acc_data(&a, 1, blens[i], c, displs[i] + c->true_lb, 0);
        }
        t->psum[i + 1] = a.size;
    }
    if (!dtype_acc_finish(t, &a, combiner))
        return dtype_fail(t, RM_ERR_INVALID);
    if (!dtype_flatten(t) || !dtype_set_envelope(t, ni, ints, na, aints, nd, dts))
        return dtype_fail(t, RM_ERR_NOMEM);
    return t;
}

dtype_t *dtype_vector(int combiner, MPI_Count count, MPI_Count blen, MPI_Aint stride, dtype_t *old,
                      int ni, const int *ints, int na, const MPI_Aint *aints, int nd,
                      const MPI_Datatype *dts)
{
    dtype_t *t = calloc(1, sizeof *t);
    if (!t) {
        dtype_last_error = RM_ERR_NOMEM;
        return NULL;
    }
    t->refcount = 1;
    t->kind = DTYPE_VECTOR;
    dtype_addref(old);
    t->child = old;
    t->vcount = count > 0 && blen > 0 ? count : 0;
    t->vblen = blen > 0 ? blen : 0;
    t->vstride = stride;
    dtype_acc_t a;
    dtype_acc_init(&a);
    if (t->vcount) {
        MPI_Aint last;
        if (__builtin_mul_overflow((MPI_Aint)(t->vcount - 1), stride, &last))
            return dtype_fail(t, RM_ERR_INVALID);
        /* the blocks' displacements are linear: the first and the last bound them all */
        dtype_acc_bounds(&a, 0, t->vblen, old);
        dtype_acc_bounds(&a, last, t->vblen, old);
        dtype_acc_data(&a, t->vcount, t->vblen, old, old->true_lb, stride);
    }
    if (!dtype_acc_finish(t, &a, combiner))
        return dtype_fail(t, RM_ERR_INVALID);
    if (!dtype_flatten(t) || !dtype_set_envelope(t, ni, ints, na, aints, nd, dts))
        return dtype_fail(t, RM_ERR_NOMEM);
    return t;
}

dtype_t *dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent)
{
    MPI_Count one = 1;
    MPI_Aint zero = 0, aints[2] = {lb, extent};
    MPI_Datatype oh = old->handle;
    dtype_t *t = dtype_create(MPI_COMBINER_RESIZED, 1, &one, &zero, &old, 0, NULL, 2, aints, 1, &oh);
    if (!t)
        return NULL;
    if (__builtin_add_overflow(lb, extent, &t->ub))
        return dtype_fail(t, RM_ERR_INVALID);
    t->lb = lb;
    t->extent = extent;
    t->lb_marked = t->ub_marked = 1;
    return t;
}

dtype_t *dtype_dup(dtype_t *old)
{
    MPI_Count one = 1;
    MPI_Aint zero = 0;
    MPI_Datatype oh = old->handle;
    dtype_t *t = dtype_create(MPI_COMBINER_DUP, 1, &one, &zero, &old, 0, NULL, 0, NULL, 1, &oh);
    if (!t)
        return NULL;
    /* a duplicate keeps the exact bounds, markers and padding included */
    t->lb = old->lb;
    t->ub = old->ub;
    t->extent = old->extent;
    t->lb_marked = old->lb_marked;
    t->ub_marked = old->ub_marked;
    t->basic = old->basic;
    t->nbasic = old->nbasic;
    t->committed = old->committed;
    return t;
}
