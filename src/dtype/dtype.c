/* Datatypes: the predefined table (MPICH ABI handles) and the one
 * constructor every derived type goes through, which flattens a type into
 * merged contiguous blocks so pack/unpack are a walk over (offset, length). */
#include "dtype/dtype.h"
#include "comm/attr.h"
#include "util/handle.h"

#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dtype_t dtype_builtin[256];   /* by the handle's low byte */
static dtype_t dtype_pairs[5];       /* MPICH's direct-handle pair types */
static rm_htable_t dtype_table = RM_HTABLE_INIT(RM_HOBJ_DATATYPE, 5);

typedef struct { float f; int i; } dtype_float_int_t;
typedef struct { double d; int i; } dtype_double_int_t;
typedef struct { long l; int i; } dtype_long_int_t;
typedef struct { short s; int i; } dtype_short_int_t;
typedef struct { long double ld; int i; } dtype_long_double_int_t;

static void dtype_set_basic(MPI_Datatype h, const char *name, size_t size, size_t align)
{
    dtype_t *t = &dtype_builtin[h & 0xff];
    memset(t, 0, sizeof *t);
    t->handle = h;
    t->refcount = 1;
    t->builtin = 1;
    t->committed = 1;
    t->combiner = MPI_COMBINER_NAMED;
    t->size = (MPI_Count)size;
    t->ub = t->extent = t->true_ub = (MPI_Aint)size;
    t->contig = 1;
    t->basic = size ? h : MPI_DATATYPE_NULL;
    t->nbasic = size ? 1 : 0;
    t->align = (int)(align ? align : 1);
    snprintf(t->name, sizeof t->name, "%s", name);
    static dtype_block_t one_block[256];
    static MPI_Aint one_sum[256][2];
    one_block[h & 0xff] = (dtype_block_t){0, (MPI_Aint)size};
    one_sum[h & 0xff][0] = 0;
    one_sum[h & 0xff][1] = (MPI_Aint)size;
    t->nblocks = size ? 1 : 0;
    t->blocks = one_block + (h & 0xff);
    t->bsum = one_sum[h & 0xff];
}

#define DT(h, type) dtype_set_basic(h, #h, sizeof(type), _Alignof(type))

static void dtype_make_pair(int idx, MPI_Datatype h, const char *name, MPI_Datatype first,
                            MPI_Aint second_off)
{
    dtype_t *kids[2] = {dtype_get(first), dtype_get(MPI_INT)};
    int blens[2] = {1, 1};
    MPI_Aint displs[2] = {0, second_off};
    dtype_t *t = dtype_create(MPI_COMBINER_STRUCT, 2, blens, displs, kids, 0, NULL, 0, NULL, 0, NULL);
    dtype_pairs[idx] = *t;
    free(t);
    t = &dtype_pairs[idx];
    t->handle = h;
    t->builtin = 1;
    t->committed = 1;
    t->combiner = MPI_COMBINER_NAMED;
    t->basic = h; /* reductions treat the pair as one element */
    t->nbasic = 1;
    snprintf(t->name, sizeof t->name, "%s", name);
    rm_htable_set(&dtype_table, idx, t);
}

rm_status_t dtype_init(void)
{
    DT(MPI_CHAR, char);
    DT(MPI_SIGNED_CHAR, signed char);
    DT(MPI_UNSIGNED_CHAR, unsigned char);
    DT(MPI_BYTE, char);
    DT(MPI_WCHAR, wchar_t);
    DT(MPI_SHORT, short);
    DT(MPI_UNSIGNED_SHORT, unsigned short);
    DT(MPI_INT, int);
    DT(MPI_UNSIGNED, unsigned);
    DT(MPI_LONG, long);
    DT(MPI_UNSIGNED_LONG, unsigned long);
    DT(MPI_LONG_LONG_INT, long long);
    DT(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    DT(MPI_FLOAT, float);
    DT(MPI_DOUBLE, double);
    DT(MPI_LONG_DOUBLE, long double);
    DT(MPI_PACKED, char);
    DT(MPI_INT8_T, int8_t);
    DT(MPI_INT16_T, int16_t);
    DT(MPI_INT32_T, int32_t);
    DT(MPI_INT64_T, int64_t);
    DT(MPI_UINT8_T, uint8_t);
    DT(MPI_UINT16_T, uint16_t);
    DT(MPI_UINT32_T, uint32_t);
    DT(MPI_UINT64_T, uint64_t);
    DT(MPI_C_BOOL, _Bool);
    DT(MPI_C_FLOAT_COMPLEX, float _Complex);
    DT(MPI_C_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    DT(MPI_AINT, MPI_Aint);
    DT(MPI_OFFSET, MPI_Offset);
    DT(MPI_COUNT, MPI_Count);
    DT(MPI_CXX_BOOL, _Bool);
    DT(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    DT(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    /* Fortran types: valid handles with their C layouts */
    DT(MPI_CHARACTER, char);
    DT(MPI_LOGICAL, int);
    DT(MPI_INTEGER, int);
    DT(MPI_REAL, float);
    DT(MPI_DOUBLE_PRECISION, double);
    DT(MPI_COMPLEX, float _Complex);
    DT(MPI_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_INTEGER1, int8_t);
    DT(MPI_INTEGER2, int16_t);
    DT(MPI_INTEGER4, int32_t);
    DT(MPI_INTEGER8, int64_t);
    DT(MPI_REAL4, float);
    DT(MPI_REAL8, double);
    DT(MPI_REAL16, long double);
    DT(MPI_COMPLEX8, float _Complex);
    DT(MPI_COMPLEX16, double _Complex);
    DT(MPI_COMPLEX32, long double _Complex);
    /* two-element types used by MINLOC/MAXLOC */
    dtype_set_basic(MPI_2INT, "MPI_2INT", 2 * sizeof(int), _Alignof(int));
    dtype_set_basic(MPI_2INTEGER, "MPI_2INTEGER", 2 * sizeof(int), _Alignof(int));
    dtype_set_basic(MPI_2REAL, "MPI_2REAL", 2 * sizeof(float), _Alignof(float));
    dtype_set_basic(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double), _Alignof(double));
    /* bound markers: no data, they only move lb/ub */
    dtype_set_basic(MPI_LB, "MPI_LB", 0, 1);
    dtype_set_basic(MPI_UB, "MPI_UB", 0, 1);
    dtype_builtin[MPI_LB & 0xff].lb_marked = 1;
    dtype_builtin[MPI_UB & 0xff].ub_marked = 1;

    dtype_make_pair(0, MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, offsetof(dtype_float_int_t, i));
    dtype_make_pair(1, MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, offsetof(dtype_double_int_t, i));
    dtype_make_pair(2, MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, offsetof(dtype_long_int_t, i));
    dtype_make_pair(3, MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, offsetof(dtype_short_int_t, i));
    dtype_make_pair(4, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE,
                    offsetof(dtype_long_double_int_t, i));
    return RM_OK;
}

void dtype_finalize(void)
{
    for (int i = 0; i < 5; i++) {
        free(dtype_pairs[i].blocks);
        free(dtype_pairs[i].bsum);
        dtype_pairs[i].blocks = NULL;
        dtype_pairs[i].bsum = NULL;
    }
    for (int i = 5; i < dtype_table.used; i++) {
        dtype_t *t = dtype_table.slots[i];
        if (!t)
            continue;
        free(t->blocks);
        free(t->bsum);
        free(t->ints);
        free(t->aints);
        free(t->types);
        free(t);
    }
    rm_htable_destroy(&dtype_table);
}

dtype_t *dtype_get(MPI_Datatype h)
{
    if (RM_HANDLE_KIND(h) == RM_HKIND_BUILTIN && RM_HANDLE_OBJ(h) == RM_HOBJ_DATATYPE) {
        dtype_t *t = &dtype_builtin[h & 0xff];
        return t->handle == h ? t : NULL;
    }
    return rm_htable_get(&dtype_table, h);
}

void dtype_addref(dtype_t *dt)
{
    if (!dt->builtin)
        dt->refcount++;
}

void dtype_release(dtype_t *dt)
{
    if (dt->builtin || --dt->refcount > 0)
        return;
    if (dt->attrs)
        attr_delete_all(&dt->attrs, ATTR_TYPE, dt->handle);
    if (dt->handle)
        rm_htable_free(&dtype_table, dt->handle);
    free(dt->blocks);
    free(dt->bsum);
    free(dt->ints);
    free(dt->aints);
    free(dt->types);
    free(dt);
}

rm_status_t dtype_register(dtype_t *dt)
{
    dt->handle = rm_htable_alloc(&dtype_table, dt);
    return dt->handle ? RM_OK : RM_ERR_NOMEM;
}

/* ---- construction ------------------------------------------------------ */

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
        int cap = bd->cap ? bd->cap * 2 : 16;
        dtype_block_t *nb = realloc(bd->b, sizeof *nb * (size_t)cap);
        if (!nb)
            return -1;
        bd->b = nb;
        bd->cap = cap;
    }
    bd->b[bd->n++] = (dtype_block_t){off, len};
    return 0;
}

static void *dtype_dup_array(const void *src, size_t n, size_t elem)
{
    if (!n)
        return NULL;
    void *p = malloc(n * elem);
    if (p)
        memcpy(p, src, n * elem);
    return p;
}

dtype_t *dtype_create(int combiner, int count, const int *blens, const MPI_Aint *displs,
                      dtype_t *const *types, int ni, const int *ints, int na,
                      const MPI_Aint *aints, int nd, const MPI_Datatype *dts)
{
    dtype_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    dtype_builder_t bd = {0};
    MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0, mlb = 0, mub = 0;
    int have = 0, thave = 0, hlb = 0, hub = 0, align = 1, same_basic = 1;
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    for (int i = 0; i < count; i++) {
        const dtype_t *c = types[i];
        if (blens[i] <= 0)
            continue;
        if (c->align > align)
            align = c->align;
        if (c->size) {
            if (basic == MPI_DATATYPE_NULL)
                basic = c->basic;
            if (c->basic != basic || c->basic == MPI_DATATYPE_NULL)
                same_basic = 0;
        }
        t->size += (MPI_Count)blens[i] * c->size;
        t->nbasic += (MPI_Count)blens[i] * c->nbasic;
        MPI_Aint first = displs[i], last = displs[i] + (MPI_Aint)(blens[i] - 1) * c->extent;
        MPI_Aint lo = (first < last ? first : last) + c->lb, hi = (first < last ? last : first) + c->ub;
        if (!have || lo < lb)
            lb = lo;
        if (!have || hi > ub)
            ub = hi;
        have = 1;
        if (c->lb_marked && (!hlb || lo < mlb)) {
            mlb = lo;
            hlb = 1;
        }
        if (c->ub_marked && (!hub || hi > mub)) {
            mub = hi;
            hub = 1;
        }
        if (c->size) {
            MPI_Aint tlo = (first < last ? first : last) + c->true_lb,
                     thi = (first < last ? last : first) + c->true_ub;
            if (!thave || tlo < tlb)
                tlb = tlo;
            if (!thave || thi > tub)
                tub = thi;
            thave = 1;
        }
        for (int j = 0; j < blens[i]; j++) {
            MPI_Aint base = displs[i] + (MPI_Aint)j * c->extent;
            for (int k = 0; k < c->nblocks; k++)
                if (dtype_builder_add(&bd, base + c->blocks[k].off, c->blocks[k].len) < 0)
                    goto nomem;
        }
    }
    if (hlb)
        lb = mlb;
    if (hub)
        ub = mub;
    t->lb_marked = hlb;
    t->ub_marked = hub;
    /* like a C struct, a struct type's extent is padded to its alignment */
    if (combiner == MPI_COMBINER_STRUCT && !hub && align > 1) {
        MPI_Aint ext = ub - lb, pad = ext % align;
        if (pad)
            ub += align - pad;
    }
    t->refcount = 1;
    t->combiner = combiner;
    t->lb = lb;
    t->ub = ub;
    t->extent = ub - lb;
    t->true_lb = thave ? tlb : 0;
    t->true_ub = thave ? tub : 0;
    t->align = align;
    t->basic = same_basic ? basic : MPI_DATATYPE_NULL;
    t->nblocks = bd.n;
    t->blocks = bd.b;
    t->bsum = malloc(sizeof *t->bsum * (size_t)(bd.n + 1));
    if (!t->bsum)
        goto nomem;
    t->bsum[0] = 0;
    for (int i = 0; i < bd.n; i++)
        t->bsum[i + 1] = t->bsum[i] + bd.b[i].len;
    t->contig = t->size == 0 || (bd.n == 1 && bd.b[0].off == t->true_lb && t->extent == (MPI_Aint)t->size &&
                                 t->lb == t->true_lb);
    t->ni = ni;
    t->na = na;
    t->nd = nd;
    t->ints = dtype_dup_array(ints, (size_t)ni, sizeof *ints);
    t->aints = dtype_dup_array(aints, (size_t)na, sizeof *aints);
    t->types = dtype_dup_array(dts, (size_t)nd, sizeof *dts);
    if ((ni && !t->ints) || (na && !t->aints) || (nd && !t->types))
        goto nomem;
    return t;
nomem:
    free(bd.b);
    free(t->bsum);
    free(t->ints);
    free(t->aints);
    free(t->types);
    free(t);
    return NULL;
}

dtype_t *dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent)
{
    int one = 1;
    MPI_Aint zero = 0, aints[2] = {lb, extent};
    MPI_Datatype oh = old->handle;
    dtype_t *t = dtype_create(MPI_COMBINER_RESIZED, 1, &one, &zero, &old, 0, NULL, 2, aints, 1, &oh);
    if (!t)
        return NULL;
    t->lb = lb;
    t->ub = lb + extent;
    t->extent = extent;
    t->lb_marked = t->ub_marked = 1;
    t->contig = t->size == 0 || (t->nblocks == 1 && t->blocks[0].off == t->true_lb &&
                                 t->extent == (MPI_Aint)t->size && t->lb == t->true_lb);
    return t;
}

/* ---- pack / unpack ----------------------------------------------------- */

/* First block of an item that holds packed byte `off` (0 <= off < size). */
static int dtype_find_block(const dtype_t *dt, MPI_Aint off)
{
    int lo = 0, hi = dt->nblocks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (dt->bsum[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void dtype_copy(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *io,
                       size_t bytes, int pack)
{
    if (!bytes || !dt->size)
        return;
    if (dtype_is_contig(dt, count)) {
        char *mem = (char *)buf + dt->true_lb + pos;
        if (pack)
            memcpy(io, mem, bytes);
        else
            memcpy(mem, io, bytes);
        return;
    }
    MPI_Count item = (MPI_Count)(pos / (size_t)dt->size);
    MPI_Aint in = (MPI_Aint)(pos % (size_t)dt->size);
    int b = dtype_find_block(dt, in);
    MPI_Aint skip = in - dt->bsum[b];
    char *p = io;
    while (bytes && item < count) {
        char *base = (char *)buf + item * dt->extent;
        for (; b < dt->nblocks && bytes; b++) {
            size_t n = (size_t)(dt->blocks[b].len - skip);
            if (n > bytes)
                n = bytes;
            char *mem = base + dt->blocks[b].off + skip;
            if (pack)
                memcpy(p, mem, n);
            else
                memcpy(mem, p, n);
            p += n;
            bytes -= n;
            skip = 0;
        }
        b = 0;
        item++;
    }
}

void dtype_pack(const void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *out,
                size_t bytes)
{
    dtype_copy((void *)buf, count, dt, pos, out, bytes, 1);
}

void dtype_unpack(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, const void *in,
                  size_t bytes)
{
    dtype_copy(buf, count, dt, pos, (void *)in, bytes, 0);
}

MPI_Count dtype_elements(const dtype_t *dt, MPI_Count bytes)
{
    if (!dt->size)
        return 0;
    MPI_Count whole = bytes / dt->size, rest = bytes % dt->size;
    MPI_Count n = whole * dt->nbasic;
    if (!rest)
        return n;
    if (dt->basic != MPI_DATATYPE_NULL && dt->nbasic) {
        MPI_Count esize = dt->size / dt->nbasic;
        return rest % esize ? MPI_UNDEFINED : n + rest / esize;
    }
    /* mixed types: count whole elements by walking the blocks' basic sizes is
     * not recorded; a partial item of a mixed type is reported undefined */
    return MPI_UNDEFINED;
}
