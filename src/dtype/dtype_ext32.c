/* The "external32" data representation (MPI-3.1 13.5.2), for
 * MPI_Pack_external and MPI_Unpack_external: every basic element big-endian,
 * with the sizes of the standard's table (MPI_LONG and MPI_UNSIGNED_LONG are
 * 4 bytes, MPI_WCHAR 2, long double IEEE binary128 in 16), no padding.
 * A message is converted in slices: the engine packs (or unpacks) the native
 * bytes of a run of elements of one predefined type through a small buffer,
 * found by walking the type signature, and each element is converted on the
 * way; a homogeneous type is a single run. */
#include "dtype/dtype.h"

#include <float.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

typedef enum dtype_x32_kind {
    X32_COPY,    /* bytes as they are */
    X32_BOOL,    /* one byte, nonzero is true */
    X32_INT,     /* two's complement, any native and external width */
    X32_UINT,
    X32_LOGICAL, /* a Fortran LOGICAL: an integer, nonzero is true */
    X32_FLOAT,   /* IEEE, same width on both sides: byte order only */
    X32_LDOUBLE, /* long double <-> IEEE binary128 */
} dtype_x32_kind_t;

/* One element of a predefined type: `parts` values (2 for complex and the
 * two-int types) of `nat` native and `ext` external bytes each. */
typedef struct dtype_x32 {
    dtype_x32_kind_t kind;
    int nat, ext, parts;
} dtype_x32_t;

static bool dtype_x32_desc(MPI_Datatype h, dtype_x32_t *d)
{
#define X32(k, n, e, p) (*d = (dtype_x32_t){k, (int)(n), e, p}, true)
    switch (h) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED:
    case MPI_INT8_T: case MPI_UINT8_T: case MPI_CHARACTER: case MPI_INTEGER1:
        return X32(X32_COPY, 1, 1, 1);
    case MPI_C_BOOL: case MPI_CXX_BOOL:
        return X32(X32_BOOL, sizeof(_Bool), 1, 1);
    case MPI_WCHAR: /* Unicode, 2 bytes */
        return X32(X32_UINT, sizeof(wchar_t), 2, 1);
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2:
        return X32(X32_INT, sizeof(short), 2, 1);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T:
        return X32(X32_UINT, sizeof(unsigned short), 2, 1);
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4:
        return X32(X32_INT, sizeof(int), 4, 1);
    case MPI_UNSIGNED: case MPI_UINT32_T:
        return X32(X32_UINT, sizeof(unsigned), 4, 1);
    case MPI_LOGICAL: case MPI_LOGICAL4:
        return X32(X32_LOGICAL, sizeof(int), 4, 1);
    case MPI_LOGICAL1:
        return X32(X32_LOGICAL, 1, 1, 1);
    case MPI_LOGICAL2:
        return X32(X32_LOGICAL, 2, 2, 1);
    case MPI_LOGICAL8:
        return X32(X32_LOGICAL, 8, 8, 1);
    case MPI_LONG:
        return X32(X32_INT, sizeof(long), 4, 1);
    case MPI_UNSIGNED_LONG:
        return X32(X32_UINT, sizeof(unsigned long), 4, 1);
    case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_INTEGER8:
        return X32(X32_INT, sizeof(long long), 8, 1);
    case MPI_AINT:
        return X32(X32_INT, sizeof(MPI_Aint), 8, 1);
    case MPI_OFFSET:
        return X32(X32_INT, sizeof(MPI_Offset), 8, 1);
    case MPI_COUNT:
        return X32(X32_INT, sizeof(MPI_Count), 8, 1);
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T:
        return X32(X32_UINT, sizeof(unsigned long long), 8, 1);
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4:
        return X32(X32_FLOAT, sizeof(float), 4, 1);
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8:
        return X32(X32_FLOAT, sizeof(double), 8, 1);
    case MPI_LONG_DOUBLE: case MPI_REAL16:
        return X32(X32_LDOUBLE, sizeof(long double), 16, 1);
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8:
        return X32(X32_FLOAT, sizeof(float), 4, 2);
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
        return X32(X32_FLOAT, sizeof(double), 8, 2);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: case MPI_COMPLEX32:
        return X32(X32_LDOUBLE, sizeof(long double), 16, 2);
    case MPI_2INT: case MPI_2INTEGER:
        return X32(X32_INT, sizeof(int), 4, 2);
    case MPI_2REAL:
        return X32(X32_FLOAT, sizeof(float), 4, 2);
    case MPI_2DOUBLE_PRECISION:
        return X32(X32_FLOAT, sizeof(double), 8, 2);
    default: /* MPI_LB, MPI_UB; pair types are structs of the above */
        return false;
    }
#undef X32
}

MPI_Count dtype_ext32_leaf_size(MPI_Datatype h)
{
    dtype_x32_t d;
    return dtype_x32_desc(h, &d) ? (MPI_Count)d.ext * d.parts : 0;
}

/* ---- one value ---------------------------------------------------------- */

static void dtype_x32_be(unsigned char *dst, const unsigned char *src, int n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (int i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
#else
    memmove(dst, src, (size_t)n);
#endif
}

/* n values of w (2, 4, 8) bytes from src to dst, between native and
 * big-endian order. */
static void dtype_x32_swap(unsigned char *dst, const unsigned char *src, MPI_Count n, int w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (w == 8)
        for (MPI_Count i = 0; i < n; i++, src += 8, dst += 8) {
            uint64_t v;
            memcpy(&v, src, 8);
            v = __builtin_bswap64(v);
            memcpy(dst, &v, 8);
        }
    else if (w == 4)
        for (MPI_Count i = 0; i < n; i++, src += 4, dst += 4) {
            uint32_t v;
            memcpy(&v, src, 4);
            v = __builtin_bswap32(v);
            memcpy(dst, &v, 4);
        }
    else
        for (MPI_Count i = 0; i < n; i++, src += 2, dst += 2) {
            uint16_t v;
            memcpy(&v, src, 2);
            v = __builtin_bswap16(v);
            memcpy(dst, &v, 2);
        }
#else
    memcpy(dst, src, (size_t)(n * w));
#endif
}

/* A native integer of n bytes, widened. */
static long long dtype_x32_get_int(const unsigned char *p, int n, bool sign)
{
    switch (n) {
    case 1: { int8_t v; memcpy(&v, p, 1); return sign ? v : (uint8_t)v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return sign ? v : (uint16_t)v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return sign ? v : (long long)(uint32_t)v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* Does v (signed or, as bits, unsigned) fit n bytes? */
static bool dtype_x32_fits(long long v, int n, bool sign)
{
    if (n >= 8) /* a 64-bit value, signed or not, is 8 bytes of bits */
        return true;
    long long lim = 1LL << (8 * n - 1);
    if (sign)
        return v >= -lim && v < lim;
    return (unsigned long long)v < ((unsigned long long)lim << 1);
}

static void dtype_x32_put_int(unsigned char *p, int n, long long v)
{
    switch (n) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
    }
}

/* External big-endian integer of n bytes, widened. */
static long long dtype_x32_get_be(const unsigned char *p, int n, bool sign)
{
    unsigned long long u = 0;
    for (int i = 0; i < n; i++)
        u = u << 8 | p[i];
    if (sign && n < 8 && (u >> (8 * n - 1)) & 1)
        u |= ~0ULL << (8 * n); /* sign extension */
    return (long long)u;
}

static void dtype_x32_put_be(unsigned char *p, int n, long long v)
{
    unsigned long long u = (unsigned long long)v;
    for (int i = n - 1; i >= 0; i--, u >>= 8)
        p[i] = (unsigned char)u;
}

static rm_status_t dtype_x32_ldouble(unsigned char *dst, const unsigned char *src, int pack)
{
#if LDBL_MANT_DIG == 113
    dtype_x32_be(dst, src, 16); /* long double is binary128 already */
    (void)pack;
    return RM_OK;
#elif defined(__SIZEOF_FLOAT128__)
    if (pack) {
        long double v;
        memcpy(&v, src, sizeof v);
        __float128 q = (__float128)v;
        dtype_x32_be(dst, (const unsigned char *)&q, 16);
    } else {
        __float128 q;
        dtype_x32_be((unsigned char *)&q, src, 16);
        long double v = (long double)q;
        memset(dst, 0, sizeof(long double)); /* x87 padding bytes */
        memcpy(dst, &v, sizeof v);
    }
    return RM_OK;
#else
    (void)dst;
    (void)src;
    (void)pack;
    return RM_ERR_UNSUPPORTED;
#endif
}

/* Convert n elements between native (nat) and external (ext) form. */
static rm_status_t dtype_x32_convert(const dtype_x32_t *d, MPI_Count n, unsigned char *nat,
                                     unsigned char *ext, int pack)
{
    MPI_Count vals = n * d->parts;
    bool sign = d->kind == X32_INT || d->kind == X32_LOGICAL;
    if (d->kind == X32_COPY) {
        memcpy(pack ? ext : nat, pack ? nat : ext, (size_t)vals);
        return RM_OK;
    }
    if ((d->kind == X32_FLOAT || d->kind == X32_INT || d->kind == X32_UINT) && d->nat == d->ext &&
        (d->ext == 2 || d->ext == 4 || d->ext == 8)) {
        /* same width: byte order only, whole slices at a time */
        dtype_x32_swap(pack ? ext : nat, pack ? nat : ext, vals, d->ext);
        return RM_OK;
    }
    for (MPI_Count i = 0; i < vals; i++, nat += d->nat, ext += d->ext) {
        switch (d->kind) {
        case X32_COPY:
            if (pack)
                *ext = *nat;
            else
                *nat = *ext;
            break;
        case X32_BOOL:
            if (pack)
                *ext = *nat ? 1 : 0;
            else
                *nat = *ext ? 1 : 0;
            break;
        case X32_INT:
        case X32_UINT:
        case X32_LOGICAL: {
            long long v;
            if (pack) {
                v = dtype_x32_get_int(nat, d->nat, sign);
                if (!dtype_x32_fits(v, d->ext, sign))
                    return RM_ERR_INVALID;
                dtype_x32_put_be(ext, d->ext, v);
            } else {
                v = dtype_x32_get_be(ext, d->ext, sign);
                if (d->kind == X32_LOGICAL)
                    v = v != 0;
                if (!dtype_x32_fits(v, d->nat, sign))
                    return RM_ERR_INVALID;
                dtype_x32_put_int(nat, d->nat, v);
            }
            break;
        }
        case X32_FLOAT:
            if (pack)
                dtype_x32_be(ext, nat, d->ext);
            else
                dtype_x32_be(nat, ext, d->ext);
            break;
        case X32_LDOUBLE: {
            rm_status_t st = pack ? dtype_x32_ldouble(ext, nat, 1) : dtype_x32_ldouble(nat, ext, 0);
            if (st < 0)
                return st;
            break;
        }
        }
    }
    return RM_OK;
}

/* ---- walking the type signature ----------------------------------------- */

#define DTYPE_X32_SLICE 65536 /* native bytes converted per engine call */

typedef struct dtype_x32_walk {
    char *buf;             /* the user's buffer */
    MPI_Count count;
    const dtype_t *dt;
    size_t pos;            /* native packed offset of the next element */
    unsigned char *x;      /* external side, next byte */
    int pack;
    unsigned char tmp[DTYPE_X32_SLICE];
} dtype_x32_walk_t;

/* n elements of the predefined type leaf, next in the signature. */
static rm_status_t dtype_x32_run(const dtype_t *leaf, MPI_Count n, dtype_x32_walk_t *w)
{
    dtype_x32_t d;
    if (!dtype_x32_desc(leaf->handle, &d))
        return RM_ERR_UNSUPPORTED;
    MPI_Count isz = leaf->size, xsz = (MPI_Count)d.ext * d.parts;
    MPI_Count per = DTYPE_X32_SLICE / isz;
    while (n > 0) {
        MPI_Count k = n < per ? n : per;
        size_t bytes = (size_t)(k * isz);
        rm_status_t st;
        if (w->pack) {
            dtype_pack(w->buf, w->count, w->dt, w->pos, w->tmp, bytes);
            st = dtype_x32_convert(&d, k, w->tmp, w->x, 1);
        } else {
            st = dtype_x32_convert(&d, k, w->tmp, w->x, 0);
            if (st == RM_OK)
                dtype_unpack(w->buf, w->count, w->dt, w->pos, w->tmp, bytes);
        }
        if (st < 0)
            return st;
        w->pos += bytes;
        w->x += k * xsz;
        n -= k;
    }
    return RM_OK;
}

/* n items of t, in typemap order. */
static rm_status_t dtype_x32_walk(const dtype_t *t, MPI_Count n, dtype_x32_walk_t *w)
{
    if (!t->size || n <= 0)
        return RM_OK;
    const dtype_t *leaf = t->basic != MPI_DATATYPE_NULL ? dtype_get(t->basic) : NULL;
    if (leaf && leaf->kind == DTYPE_LEAF) /* homogeneous: one run */
        return dtype_x32_run(leaf, t->size / leaf->size * n, w);
    rm_status_t st = RM_OK;
    for (MPI_Count j = 0; j < n && st == RM_OK; j++) {
        if (t->kind == DTYPE_VECTOR)
            st = dtype_x32_walk(t->child, t->vcount * t->vblen, w);
        else
            for (int i = 0; i < t->n && st == RM_OK; i++)
                st = dtype_x32_walk(t->kids[i], t->blens[i], w);
    }
    return st;
}

static rm_status_t dtype_x32_go(void *buf, MPI_Count count, const dtype_t *dt, void *x, int pack)
{
    dtype_x32_walk_t *w = malloc(sizeof *w);
    if (!w)
        return RM_ERR_NOMEM;
    w->buf = buf;
    w->count = count;
    w->dt = dt;
    w->pos = 0;
    w->x = x;
    w->pack = pack;
    rm_status_t st = dtype_x32_walk(dt, count, w);
    free(w);
    return st;
}

rm_status_t dtype_ext32_pack(const void *buf, MPI_Count count, const dtype_t *dt, void *out)
{
    return dtype_x32_go((void *)buf, count, dt, out, 1);
}

rm_status_t dtype_ext32_unpack(void *buf, MPI_Count count, const dtype_t *dt, const void *in)
{
    return dtype_x32_go(buf, count, dt, (void *)in, 0);
}
