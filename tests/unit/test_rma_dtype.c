/* Target datatypes on the wire (src/rma/rma_dtype.c) without processes: a
 * type rebuilt from its description has the same size, bounds, extent and
 * basic type and packs the same bytes from the same memory, for nested
 * vectors, structs, resized types and negative strides; a vector of 10^8
 * blocks is described in a few dozen bytes; truncated, trailing and
 * malformed descriptions are refused, not trusted. */
#include "rma/rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                                                    \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL line %d: ", __LINE__);                              \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
            failures++;                                                      \
        }                                                                    \
    } while (0)

static dtype_t *vec(MPI_Count count, MPI_Count blen, MPI_Aint stride, dtype_t *old)
{
    return dtype_vector(MPI_COMBINER_HVECTOR, count, blen, stride, old, 0, NULL, 0, NULL, 0, NULL);
}

static dtype_t *strct(int n, const MPI_Count *blens, const MPI_Aint *displs, dtype_t **kids)
{
    return dtype_create(MPI_COMBINER_STRUCT, n, blens, displs, kids, 0, NULL, 0, NULL, 0, NULL);
}

/* Encode, decode, compare the summaries and the packed bytes of `count`. */
static void roundtrip(const char *what, dtype_t *t, MPI_Count count)
{
    size_t len = rma_dtype_enc_len(t);
    unsigned char *enc = malloc(len + 8);
    rma_dtype_encode(t, enc);
    dtype_t *d = rma_dtype_decode(enc, len);
    EXPECT(d, "%s: not decoded", what);
    if (!d) {
        free(enc);
        return;
    }
    EXPECT(d->size == t->size && d->lb == t->lb && d->extent == t->extent &&
               d->true_lb == t->true_lb && d->true_ub == t->true_ub && d->basic == t->basic,
           "%s: summary differs (size %lld/%lld, lb %ld/%ld, extent %ld/%ld)", what,
           (long long)d->size, (long long)t->size, (long)d->lb, (long)t->lb, (long)d->extent,
           (long)t->extent);
    MPI_Aint ext = t->extent > 0 ? t->extent : -t->extent;
    MPI_Aint span = t->true_ub - t->true_lb + (count - 1) * ext;
    size_t memsz = (size_t)span + 2 * (size_t)ext + 64;
    char *mem = malloc(memsz);
    for (size_t i = 0; i < memsz; i++)
        mem[i] = (char)(i * 31 + 7);
    char *buf = mem + 32 - t->true_lb + (t->extent < 0 ? (count - 1) * ext : 0);
    size_t bytes = (size_t)(count * t->size);
    char *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    dtype_pack(buf, count, t, 0, a, bytes);
    dtype_pack(buf, count, d, 0, b, bytes);
    EXPECT(!memcmp(a, b, bytes), "%s: packs differently", what);
    /* and a piece from the middle, as the target applies one frame */
    if (bytes > 8) {
        dtype_pack(buf, count, t, bytes / 3, a, bytes / 2);
        dtype_pack(buf, count, d, bytes / 3, b, bytes / 2);
        EXPECT(!memcmp(a, b, bytes / 2), "%s: a piece packs differently", what);
    }
    /* every truncation is refused */
    for (size_t cut = 0; cut < len; cut += 1 + len / 16) {
        dtype_t *x = rma_dtype_decode(enc, cut);
        EXPECT(!x, "%s: truncated at %zu of %zu decoded", what, cut, len);
        if (x)
            dtype_release(x);
    }
    memset(enc + len, 0, 8);
    dtype_t *x = rma_dtype_decode(enc, len + 8);
    EXPECT(!x, "%s: trailing bytes accepted", what);
    if (x)
        dtype_release(x);
    dtype_release(d);
    free(a);
    free(b);
    free(mem);
    free(enc);
}

int main(void)
{
    if (dtype_init() < 0)
        return 1;
    dtype_t *i4 = dtype_get(MPI_INT), *d8 = dtype_get(MPI_DOUBLE), *c1 = dtype_get(MPI_CHAR);
    EXPECT(rma_dtype_enc_len(d8) == 0, "a predefined type travels as its handle");

    dtype_t *v = vec(10, 2, 24, d8);
    roundtrip("vector of doubles", v, 3);
    dtype_t *vv = vec(4, 1, 1000, v);
    roundtrip("vector of vectors", vv, 2);
    dtype_t *neg = vec(5, 1, -16, i4);
    roundtrip("negative stride", neg, 2);

    MPI_Count blens[3] = {2, 1, 3};
    MPI_Aint displs[3] = {0, 24, 40};
    dtype_t *kids[3] = {i4, d8, c1};
    dtype_t *s = strct(3, blens, displs, kids);
    EXPECT(s->basic == MPI_DATATYPE_NULL, "a mixed struct has no basic type");
    roundtrip("struct", s, 4);
    dtype_t *r = dtype_resized(s, -8, 80);
    roundtrip("resized struct", r, 3);
    dtype_t *kids2[2] = {v, r};
    MPI_Count blens2[2] = {1, 2};
    MPI_Aint displs2[2] = {8, 400};
    dtype_t *nest = strct(2, blens2, displs2, kids2);
    roundtrip("struct of a vector and a resized struct", nest, 2);

    /* described, never expanded */
    dtype_t *huge = vec(100000000, 1, 12, i4);
    EXPECT(rma_dtype_enc_len(huge) < 100, "a vector of 10^8 blocks takes %zu bytes", rma_dtype_enc_len(huge));
    size_t hl = rma_dtype_enc_len(huge);
    unsigned char *he = malloc(hl);
    rma_dtype_encode(huge, he);
    dtype_t *hd = rma_dtype_decode(he, hl);
    EXPECT(hd && hd->size == huge->size && hd->extent == huge->extent, "huge vector rebuilt");
    if (hd)
        dtype_release(hd);

    /* malformed: an unknown kind, a leaf that is not a predefined type, a
     * negative count */
    int64_t bad[4][8] = {{7, 0}, {DTYPE_LEAF, 0x12345678}, {DTYPE_VECTOR, -1, 1, 4, DTYPE_LEAF, MPI_INT, 0, 4},
                         {DTYPE_BLOCKS, 1000000, 1, 0}};
    size_t badlen[4] = {16, 16, 64, 32};
    for (int i = 0; i < 4; i++) {
        dtype_t *x = rma_dtype_decode((unsigned char *)bad[i], badlen[i]);
        EXPECT(!x, "malformed description %d accepted", i);
        if (x)
            dtype_release(x);
    }
    free(he);
    dtype_release(huge);
    dtype_release(nest);
    dtype_release(r);
    dtype_release(s);
    dtype_release(neg);
    dtype_release(vv);
    dtype_release(v);
    dtype_finalize();
    if (failures)
        return 1;
    printf("OK\n");
    return 0;
}
