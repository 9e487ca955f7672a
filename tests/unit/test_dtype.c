/* The datatype engine without processes: packing any piece [pos, pos + n) of
 * nested types gives the same bytes as one whole pack (and unpacking pieces
 * the same memory), a hand-checked layout, a type of 2^32 elements packed at
 * a far offset, and element counts of partial items. */
#include "dtype/dtype.h"

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

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static dtype_t *vec(MPI_Count count, MPI_Count blen, MPI_Aint stride, dtype_t *old)
{
    return dtype_vector(MPI_COMBINER_HVECTOR, count, blen, stride, old, 0, NULL, 0, NULL, 0, NULL);
}

/* Pack (buf, count, t) whole and in random pieces, unpack likewise, compare. */
static void check_pieces(const char *what, dtype_t *t, MPI_Count count)
{
    MPI_Aint span = t->true_ub - t->true_lb + (count - 1) * (t->extent > 0 ? t->extent : -t->extent);
    size_t memsz = (size_t)span + 2 * (size_t)(t->extent > 0 ? t->extent : -t->extent) + 64;
    char *mem = malloc(memsz), *m1 = calloc(1, memsz), *m2 = calloc(1, memsz);
    /* the buffer pointer sits so that every byte the type touches is inside mem */
    MPI_Aint shift = -t->true_lb + (t->extent < 0 ? -(count - 1) * t->extent : 0) + 32;
    for (size_t i = 0; i < memsz; i++)
        mem[i] = (char)(i * 7 + 3);
    size_t bytes = (size_t)(count * t->size);
    char *whole = malloc(bytes + 1), *piece = malloc(bytes + 1);
    dtype_pack(mem + shift, count, t, 0, whole, bytes);
    for (int round = 0; round < 20; round++) {
        memset(piece, 0, bytes);
        for (size_t pos = 0; pos < bytes;) {
            size_t n = 1 + rnd() % (round < 10 ? 13 : 997);
            if (n > bytes - pos)
                n = bytes - pos;
            dtype_pack(mem + shift, count, t, pos, piece + pos, n);
            pos += n;
        }
        EXPECT(!memcmp(whole, piece, bytes), "%s: pack in pieces differs (round %d)", what, round);
    }
    dtype_unpack(m1 + shift, count, t, 0, whole, bytes);
    for (size_t pos = 0; pos < bytes;) {
        size_t n = 1 + rnd() % 61;
        if (n > bytes - pos)
            n = bytes - pos;
        dtype_unpack(m2 + shift, count, t, pos, whole + pos, n);
        pos += n;
    }
    EXPECT(!memcmp(m1, m2, memsz), "%s: unpack in pieces differs", what);
    /* unpacking what was packed restores exactly the bytes the type covers */
    for (size_t i = 0; i < memsz; i++)
        if (m1[i] && m1[i] != mem[i]) {
            EXPECT(0, "%s: byte %zu unpacked wrong", what, i);
            break;
        }
    free(mem);
    free(m1);
    free(m2);
    free(whole);
    free(piece);
}

int main(void)
{
    if (dtype_init() < 0)
        return 1;
    dtype_t *i4 = dtype_get(MPI_INT), *d8 = dtype_get(MPI_DOUBLE), *c1 = dtype_get(MPI_CHAR);

    /* hand-checked: vector(3, 2, 4 ints) packs ints 0 1 4 5 8 9 */
    dtype_t *v = dtype_vector(MPI_COMBINER_VECTOR, 3, 2, 16, i4, 0, NULL, 0, NULL, 0, NULL);
    int src[12], out[6], want[6] = {0, 1, 4, 5, 8, 9};
    for (int i = 0; i < 12; i++)
        src[i] = i;
    dtype_pack(src, 1, v, 0, out, sizeof out);
    EXPECT(!memcmp(out, want, sizeof out), "vector layout");
    EXPECT(v->size == 24 && v->extent == 40 && !v->contig && v->nelems == 6, "vector summary");

    /* struct {2 int @0, double @8, 3 char @20}, the flat path */
    MPI_Count bl[3] = {2, 1, 3};
    MPI_Aint dp[3] = {0, 8, 20};
    dtype_t *kids[3] = {i4, d8, c1};
    dtype_t *st = dtype_create(MPI_COMBINER_STRUCT, 3, bl, dp, kids, 0, NULL, 0, NULL, 0, NULL);
    EXPECT(st->size == 19 && st->extent == 24 && st->nelems == 6, "struct summary %lld %ld",
           (long long)st->size, (long)st->extent);
    check_pieces("struct", st, 7);
    /* vector of structs with a negative stride, then hindexed of those, resized, contiguous */
    dtype_t *vs = vec(5, 2, -60, st);
    check_pieces("vector(struct)", vs, 3);
    MPI_Count bl2[3] = {1, 2, 1};
    MPI_Aint dp2[3] = {1000, 0, 3000};
    dtype_t *k2[3] = {vs, vs, st};
    dtype_t *hi = dtype_create(MPI_COMBINER_HINDEXED, 3, bl2, dp2, k2, 0, NULL, 0, NULL, 0, NULL);
    check_pieces("hindexed(vector(struct))", hi, 2);
    dtype_t *rs = dtype_resized(hi, -8, 5000);
    dtype_t *ct = dtype_vector(MPI_COMBINER_CONTIGUOUS, 1, 3, 0, rs, 0, NULL, 0, NULL, 0, NULL);
    check_pieces("contig(resized(hindexed))", ct, 2);
    /* a struct whose data is one run but whose extent is padded */
    MPI_Aint dpc[3] = {0, 8, 16};
    dtype_t *sc = dtype_create(MPI_COMBINER_STRUCT, 3, bl, dpc, kids, 0, NULL, 0, NULL, 0, NULL);
    EXPECT(sc->contig && sc->size == 19 && sc->extent == 24, "padded struct is one run");
    check_pieces("padded struct", sc, 9);
    dtype_t *vsc = vec(7, 2, 100, sc);
    check_pieces("vector(2 x padded struct)", vsc, 3);
    /* more runs than the flat list keeps: the tree walk at every level */
    dtype_t *big = vec(300, 1, 16, d8);
    EXPECT(big->nblocks == 0, "a 300-run type is not flattened");
    dtype_t *nest = vec(4, 2, 10000, big);
    check_pieces("vector(vector(300 doubles))", nest, 3);
    MPI_Count bl3[2] = {3, 1};
    MPI_Aint dp3[2] = {0, 40000};
    dtype_t *k3[2] = {big, i4};
    dtype_t *mix = dtype_create(MPI_COMBINER_STRUCT, 2, bl3, dp3, k3, 0, NULL, 0, NULL, 0, NULL);
    check_pieces("struct(vector, int)", mix, 2);

    /* 2^32 ints: 2^22 items of a 1024-int vector resized to extent 0, so
     * every item lies on the same 8 KiB; pack near the end and in the middle */
    dtype_t *inner = vec(1024, 1, 8, i4);
    dtype_t *flat0 = dtype_resized(inner, 0, 0);
    dtype_t *huge = dtype_vector(MPI_COMBINER_CONTIGUOUS, 1, (MPI_Count)1 << 22, 0, flat0, 0, NULL,
                                 0, NULL, 0, NULL);
    EXPECT(huge->size == (MPI_Count)1 << 34 && huge->nelems == (MPI_Count)1 << 32,
           "huge size %lld elems %lld", (long long)huge->size, (long long)huge->nelems);
    int *area = malloc(8192);
    for (int i = 0; i < 2048; i++)
        area[i] = i;
    char ref[4096], got[1000];
    dtype_pack(area, 1, inner, 0, ref, 4096);
    dtype_pack(area, 1, huge, ((size_t)1 << 34) - 1000, got, 1000);
    EXPECT(!memcmp(got, ref + 4096 - 1000, 1000), "pack at 2^34 - 1000");
    dtype_pack(area, 3, huge, ((size_t)5 << 34) / 2 + 100, got, 400);
    EXPECT(!memcmp(got, ref + 100, 400), "pack of the third item at 2.5 * 2^34");
    memset(area, 0, 8192);
    dtype_unpack(area, 1, huge, ((size_t)1 << 34) - 8, ref + 4088, 8);
    EXPECT(area[2044] == 2044 && area[2046] == 2046 && area[2045] == 0, "unpack at the far end");
    EXPECT(dtype_elements(huge, (MPI_Count)1 << 34) == (MPI_Count)1 << 32, "elements of 2^32");
    EXPECT(dtype_elements_bytes(huge, ((MPI_Count)1 << 32) + 3) == ((MPI_Count)1 << 34) + 12,
           "bytes of 2^32 + 3 elements");

    /* elements of partial items: struct {2 int, double, 3 char} */
    MPI_Count eb[][2] = {{0, 0}, {4, 1}, {6, MPI_UNDEFINED}, {8, 2}, {16, 3}, {17, 4},
                         {19, 6}, {20, MPI_UNDEFINED}, {23, 7}, {27, 8}, {38, 12}};
    for (size_t i = 0; i < sizeof eb / sizeof eb[0]; i++)
        EXPECT(dtype_elements(st, eb[i][0]) == eb[i][1], "struct: %lld bytes give %lld elements",
               (long long)eb[i][0], (long long)dtype_elements(st, eb[i][0]));
    MPI_Count be[][2] = {{0, 0}, {1, 4}, {2, 8}, {3, 16}, {6, 19}, {7, 23}, {9, 35}};
    for (size_t i = 0; i < sizeof be / sizeof be[0]; i++)
        EXPECT(dtype_elements_bytes(st, be[i][0]) == be[i][1], "struct: %lld elements in %lld bytes",
               (long long)be[i][0], (long long)dtype_elements_bytes(st, be[i][0]));
    /* a pair type is two basic elements */
    dtype_t *fi = dtype_get(MPI_FLOAT_INT);
    EXPECT(dtype_elements(fi, 4) == 1 && dtype_elements(fi, 8) == 2 && dtype_elements(fi, 12) == 3,
           "float_int elements");
    EXPECT(dtype_elements_bytes(fi, 3) == 12, "float_int: 3 elements in 12 bytes");

    dtype_release(vsc);
    dtype_release(sc);
    dtype_release(ct);
    dtype_release(rs);
    dtype_release(hi);
    dtype_release(vs);
    dtype_release(st);
    dtype_release(v);
    dtype_release(mix);
    dtype_release(nest);
    dtype_release(big);
    dtype_release(huge);
    dtype_release(flat0);
    dtype_release(inner);
    free(area);
    dtype_finalize();
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
