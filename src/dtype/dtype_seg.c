/* Processing a message in pieces: the packed byte range [pos, pos + bytes) of
 * (buf, count, type) is found by descending the description (each level
 * divides the offset by the data bytes of a block or, for BLOCKS, looks it up
 * in the entries' prefix sums) and then copied run by run. No state survives
 * a call, so a protocol may pack or unpack any piece in any order; the cost of
 * finding the start is O(depth * log(entries)), the copy is linear in the
 * bytes. Element counts (MPI_Get_elements, MPI_Status_set_elements) descend
 * the same way. */
#include "dtype/dtype.h"

#include <string.h>

typedef struct dtype_seg {
    char *io;        /* packed side */
    MPI_Count left;  /* bytes still to copy */
    int pack;
} dtype_seg_t;

static inline void dtype_seg_copy(dtype_seg_t *s, char *mem, MPI_Count n)
{
    if (n > s->left)
        n = s->left;
    switch (n) { /* the common element sizes without a call */
    case 4:
        if (s->pack)
            memcpy(s->io, mem, 4);
        else
            memcpy(mem, s->io, 4);
        break;
    case 8:
        if (s->pack)
            memcpy(s->io, mem, 8);
        else
            memcpy(mem, s->io, 8);
        break;
    case 16:
        if (s->pack)
            memcpy(s->io, mem, 16);
        else
            memcpy(mem, s->io, 16);
        break;
    default:
        if (s->pack)
            memcpy(s->io, mem, (size_t)n);
        else
            memcpy(mem, s->io, (size_t)n);
    }
    s->io += n;
    s->left -= n;
}

static void dtype_seg_item(const dtype_t *t, char *base, MPI_Count skip, dtype_seg_t *s);

/* n runs of `len` (4 or 8) bytes, `stride` apart from p. */
static void dtype_seg_strided(dtype_seg_t *s, char *p, MPI_Aint stride, MPI_Count n, int len)
{
    char *io = s->io;
    if (len == 8) {
        if (s->pack)
            for (MPI_Count k = 0; k < n; k++, p += stride, io += 8)
                memcpy(io, p, 8);
        else
            for (MPI_Count k = 0; k < n; k++, p += stride, io += 8)
                memcpy(p, io, 8);
    } else {
        if (s->pack)
            for (MPI_Count k = 0; k < n; k++, p += stride, io += 4)
                memcpy(io, p, 4);
        else
            for (MPI_Count k = 0; k < n; k++, p += stride, io += 4)
                memcpy(p, io, 4);
    }
    s->io = io;
    s->left -= n * len;
}

/* blen items of c, the first at p, from packed byte `skip` of the block. */
static void dtype_seg_block(const dtype_t *c, MPI_Count blen, char *p, MPI_Count skip,
                            dtype_seg_t *s)
{
    if (!c->size)
        return;
    if (c->contig && (blen == 1 || c->extent == (MPI_Aint)c->size)) {
        dtype_seg_copy(s, p + c->true_lb + skip, blen * c->size - skip);
        return;
    }
    MPI_Count j = skip / c->size;
    skip %= c->size;
    if (c->contig) { /* one run per item, items apart by the extent */
        char *at = p + c->true_lb + (MPI_Aint)j * c->extent;
        for (; j < blen && s->left; j++, at += c->extent) {
            dtype_seg_copy(s, at + skip, c->size - skip);
            skip = 0;
        }
        return;
    }
    if (skip && j < blen) {
        dtype_seg_item(c, p + (MPI_Aint)j * c->extent, skip, s);
        j++;
    }
    if (c->nblocks) { /* whole flattened items: the runs without a call per item */
        MPI_Count whole = (s->left / c->size < blen - j) ? s->left / c->size : blen - j;
        const dtype_block_t *bl = c->blocks;
        int nb = c->nblocks;
        char *io = s->io, *base = p + (MPI_Aint)j * c->extent;
        if (s->pack)
            for (MPI_Count k = 0; k < whole; k++, base += c->extent)
                for (int b = 0; b < nb; b++) {
                    memcpy(io, base + bl[b].off, (size_t)bl[b].len);
                    io += bl[b].len;
                }
        else
            for (MPI_Count k = 0; k < whole; k++, base += c->extent)
                for (int b = 0; b < nb; b++) {
                    memcpy(base + bl[b].off, io, (size_t)bl[b].len);
                    io += bl[b].len;
                }
        s->io = io;
        s->left -= whole * c->size;
        j += whole;
        if (j < blen && s->left) /* the last, partial item */
            dtype_seg_item(c, base, 0, s);
        return;
    }
    for (; j < blen && s->left; j++)
        dtype_seg_item(c, p + (MPI_Aint)j * c->extent, 0, s);
}

/* Last index i in [0, n) with sum[i] <= off (sum nondecreasing, sum[0] = 0). */
static int dtype_seg_find(const MPI_Count *sum, int n, MPI_Count off)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (sum[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static int dtype_seg_find_aint(const MPI_Aint *sum, int n, MPI_Aint off)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (sum[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* One item at base, from packed byte `skip` of the item (skip < size). */
static void dtype_seg_item(const dtype_t *t, char *base, MPI_Count skip, dtype_seg_t *s)
{
    if (t->contig) {
        dtype_seg_copy(s, base + t->true_lb + skip, t->size - skip);
        return;
    }
    if (t->nblocks) {
        int b = skip ? dtype_seg_find_aint(t->bsum, t->nblocks, (MPI_Aint)skip) : 0;
        MPI_Aint in = (MPI_Aint)skip - t->bsum[b];
        for (; b < t->nblocks && s->left; b++) {
            dtype_seg_copy(s, base + t->blocks[b].off + in, t->blocks[b].len - in);
            in = 0;
        }
        return;
    }
    if (t->kind == DTYPE_VECTOR) {
        const dtype_t *c = t->child;
        MPI_Count bsz = t->vblen * c->size;
        MPI_Count b = skip / bsz;
        skip %= bsz;
        if (c->contig && (t->vblen == 1 || c->extent == (MPI_Aint)c->size)) {
            /* every block is one run: a strided copy */
            char *p = base + c->true_lb + (MPI_Aint)b * t->vstride;
            if (skip && b < t->vcount && s->left) {
                dtype_seg_copy(s, p + skip, bsz - skip);
                b++;
                p += t->vstride;
            }
            MPI_Count whole = t->vcount - b;
            if (s->left / bsz < whole)
                whole = s->left / bsz;
            if (whole > 1 && (bsz == 4 || bsz == 8)) {
                /* one element per block (a cyclic distribution, a matrix
                 * column): fixed-size copies without a call each */
                dtype_seg_strided(s, p, t->vstride, whole, (int)bsz);
                b += whole;
                p += (MPI_Aint)whole * t->vstride;
            }
            for (; b < t->vcount && s->left; b++, p += t->vstride)
                dtype_seg_copy(s, p, bsz);
            return;
        }
        if (c->contig && !skip) { /* runs of one item each, items apart by the child's extent */
            char *p = base + c->true_lb + (MPI_Aint)b * t->vstride;
            for (; b < t->vcount && s->left; b++, p += t->vstride) {
                char *at = p;
                for (MPI_Count j = 0; j < t->vblen && s->left; j++, at += c->extent)
                    dtype_seg_copy(s, at, c->size);
            }
            return;
        }
        for (; b < t->vcount && s->left; b++) {
            dtype_seg_block(t->child, t->vblen, base + (MPI_Aint)b * t->vstride, skip, s);
            skip = 0;
        }
        return;
    }
    int i = skip ? dtype_seg_find(t->psum, t->n, skip) : 0;
    skip -= t->psum[i];
    for (; i < t->n && s->left; i++) {
        dtype_seg_block(t->kids[i], t->blens[i], base + t->displs[i], skip, s);
        skip = 0;
    }
}

static void dtype_seg_run(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *io,
                          size_t bytes, int pack)
{
    if (!bytes || !dt->size)
        return;
    dtype_seg_t s = {io, (MPI_Count)bytes, pack};
    dtype_seg_block(dt, count, buf, (MPI_Count)pos, &s);
}

void dtype_pack(const void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *out,
                size_t bytes)
{
    dtype_seg_run((void *)buf, count, dt, pos, out, bytes, 1);
}

void dtype_unpack(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, const void *in,
                  size_t bytes)
{
    dtype_seg_run(buf, count, dt, pos, (void *)in, bytes, 0);
}

/* ---- element counts ---------------------------------------------------- */

/* Basic elements wholly inside the first `bytes` data bytes of one item of t
 * (bytes < size); *partial when the bytes end inside an element. */
static MPI_Count dtype_elem_prefix(const dtype_t *t, MPI_Count bytes, int *partial);

static MPI_Count dtype_elem_block(const dtype_t *c, MPI_Count bytes, int *partial)
{
    MPI_Count j = bytes / c->size;
    return j * c->nelems + dtype_elem_prefix(c, bytes % c->size, partial);
}

static MPI_Count dtype_elem_prefix(const dtype_t *t, MPI_Count bytes, int *partial)
{
    if (!bytes)
        return 0;
    if (t->kind == DTYPE_LEAF) {
        MPI_Count esize = t->size / t->nelems;
        if (bytes % esize)
            *partial = 1;
        return bytes / esize;
    }
    if (t->kind == DTYPE_VECTOR) {
        const dtype_t *c = t->child;
        MPI_Count bsz = t->vblen * c->size;
        return bytes / bsz * t->vblen * c->nelems + dtype_elem_block(c, bytes % bsz, partial);
    }
    int i = dtype_seg_find(t->psum, t->n, bytes);
    MPI_Count n = 0;
    for (int k = 0; k < i; k++)
        n += t->blens[k] * t->kids[k]->nelems;
    return n + dtype_elem_block(t->kids[i], bytes - t->psum[i], partial);
}

MPI_Count dtype_elements(const dtype_t *dt, MPI_Count bytes)
{
    if (!dt->size || bytes < 0)
        return 0;
    int partial = 0;
    MPI_Count n = bytes / dt->size * dt->nelems + dtype_elem_prefix(dt, bytes % dt->size, &partial);
    return partial ? MPI_UNDEFINED : n;
}

/* Data bytes of the first `e` basic elements of one item (e < nelems). */
static MPI_Count dtype_elem_bytes(const dtype_t *t, MPI_Count e);

static MPI_Count dtype_elem_block_bytes(const dtype_t *c, MPI_Count e)
{
    return e / c->nelems * c->size + dtype_elem_bytes(c, e % c->nelems);
}

static MPI_Count dtype_elem_bytes(const dtype_t *t, MPI_Count e)
{
    if (!e)
        return 0;
    if (t->kind == DTYPE_LEAF)
        return e * (t->size / t->nelems);
    if (t->kind == DTYPE_VECTOR) {
        const dtype_t *c = t->child;
        MPI_Count be = t->vblen * c->nelems;
        return e / be * t->vblen * c->size + dtype_elem_block_bytes(c, e % be);
    }
    MPI_Count bytes = 0;
    for (int i = 0; i < t->n; i++) {
        MPI_Count here = t->blens[i] * t->kids[i]->nelems;
        if (e < here)
            return bytes + dtype_elem_block_bytes(t->kids[i], e);
        e -= here;
        bytes += t->blens[i] * t->kids[i]->size;
    }
    return bytes;
}

MPI_Count dtype_elements_bytes(const dtype_t *dt, MPI_Count elems)
{
    if (!dt->nelems || elems <= 0)
        return 0;
    MPI_Count whole;
    if (__builtin_mul_overflow(elems / dt->nelems, dt->size, &whole))
        return -1;
    MPI_Count rest = dtype_elem_bytes(dt, elems % dt->nelems);
    if (__builtin_add_overflow(whole, rest, &whole))
        return -1;
    return whole;
}
