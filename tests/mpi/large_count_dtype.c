/* ranks: 1 */
/* The large-count (_c) datatype and pack functions of MPI-4.1: every _c
 * constructor gives the type its int twin gives (size, bounds, packed
 * bytes) and records its arguments as large counts, which the int
 * MPI_Type_get_envelope/get_contents give back as the int constructor's
 * arguments when they fit and refuse with MPI_ERR_VALUE_TOO_LARGE when they
 * do not; a type of 3e9 bytes answers MPI_Type_size with MPI_UNDEFINED and
 * MPI_Type_size_c with the size; pack/unpack round trips with MPI_Count
 * positions; the error classes of bad arguments. */
#include "check.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int rank;

static int errclass(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* a and b describe the same layout: bounds, size, and the bytes they pack
 * from one buffer */
static void same_layout(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    MPI_Count sa, sb, lba, lbb, exa, exb, tla, tlb, tea, teb;
    MPI_Type_size_c(a, &sa);
    MPI_Type_size_c(b, &sb);
    MPI_Type_get_extent_c(a, &lba, &exa);
    MPI_Type_get_extent_c(b, &lbb, &exb);
    MPI_Type_get_true_extent_c(a, &tla, &tea);
    MPI_Type_get_true_extent_c(b, &tlb, &teb);
    CHECK(sa == sb && lba == lbb && exa == exb && tla == tlb && tea == teb,
          "%s: size %lld/%lld lb %lld/%lld extent %lld/%lld true %lld+%lld/%lld+%lld", what,
          (long long)sa, (long long)sb, (long long)lba, (long long)lbb, (long long)exa,
          (long long)exb, (long long)tla, (long long)tea, (long long)tlb, (long long)teb);
    int isz;
    MPI_Type_size(a, &isz);
    CHECK(isz == (int)sa, "%s: MPI_Type_size %d, _c %lld", what, isz, (long long)sa);
    MPI_Aint lb, ex;
    MPI_Type_get_extent(a, &lb, &ex);
    CHECK(lb == lba && ex == exa, "%s: MPI_Type_get_extent", what);

    static unsigned char src[4096], pa[4096], pb[4096];
    for (int i = 0; i < (int)sizeof src; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    MPI_Count pos_a = 0, pos_b = 0;
    CHECK(MPI_Pack_c(src + 512, 2, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD) == MPI_SUCCESS,
          "%s: MPI_Pack_c", what);
    int ipos = 0;
    CHECK(MPI_Pack(src + 512, 2, b, pb, sizeof pb, &ipos, MPI_COMM_WORLD) == MPI_SUCCESS,
          "%s: MPI_Pack", what);
    pos_b = ipos;
    CHECK(pos_a == 2 * sa && pos_b == pos_a && !memcmp(pa, pb, (size_t)pos_a),
          "%s: packed %lld and %lld bytes, or they differ", what, (long long)pos_a,
          (long long)pos_b);
}

/* The int envelope of the type built by the _c constructor equals that of
 * the int one; its _c envelope has no integers or addresses beyond want_ni
 * and want_nc large counts equal to want[]. */
static void same_envelope(MPI_Datatype c, MPI_Datatype i, int want_ni, MPI_Count want_nc,
                          const MPI_Count *want, const char *what)
{
    int ni1, na1, nd1, co1, ni2, na2, nd2, co2;
    CHECK(MPI_Type_get_envelope(c, &ni1, &na1, &nd1, &co1) == MPI_SUCCESS,
          "%s: int envelope of the _c type", what);
    MPI_Type_get_envelope(i, &ni2, &na2, &nd2, &co2);
    CHECK(ni1 == ni2 && na1 == na2 && nd1 == nd2 && co1 == co2,
          "%s: envelope (%d %d %d %d) vs int constructor's (%d %d %d %d)", what, ni1, na1, nd1,
          co1, ni2, na2, nd2, co2);
    int ints1[64], ints2[64];
    MPI_Aint ad1[64], ad2[64];
    MPI_Datatype t1[16], t2[16];
    CHECK(MPI_Type_get_contents(c, 64, 64, 16, ints1, ad1, t1) == MPI_SUCCESS,
          "%s: int contents of the _c type", what);
    MPI_Type_get_contents(i, 64, 64, 16, ints2, ad2, t2);
    CHECK(!memcmp(ints1, ints2, sizeof(int) * (size_t)ni1) &&
              !memcmp(ad1, ad2, sizeof(MPI_Aint) * (size_t)na1) &&
              !memcmp(t1, t2, sizeof(MPI_Datatype) * (size_t)nd1),
          "%s: int contents differ", what);

    MPI_Count n_i, n_a, n_c, n_d;
    int comb;
    MPI_Type_get_envelope_c(c, &n_i, &n_a, &n_c, &n_d, &comb);
    CHECK(n_i == want_ni && n_a == 0 && n_c == want_nc && n_d == nd1 && comb == co1,
          "%s: _c envelope (%lld %lld %lld %lld)", what, (long long)n_i, (long long)n_a,
          (long long)n_c, (long long)n_d);
    MPI_Count lc[64];
    int ci[64];
    MPI_Aint ca[1];
    MPI_Datatype ct[16];
    CHECK(MPI_Type_get_contents_c(c, 64, 0, 64, 16, ci, ca, lc, ct) == MPI_SUCCESS,
          "%s: MPI_Type_get_contents_c", what);
    for (MPI_Count k = 0; k < want_nc; k++)
        CHECK(lc[k] == want[k], "%s: large count %lld is %lld, not %lld", what, (long long)k,
              (long long)lc[k], (long long)want[k]);
    /* the int constructor's type has no large counts */
    MPI_Type_get_envelope_c(i, &n_i, &n_a, &n_c, &n_d, &comb);
    CHECK(n_i == ni2 && n_a == na2 && n_c == 0 && n_d == nd2,
          "%s: _c envelope of the int type", what);
    for (int k = 0; k < nd1; k++) {
        MPI_Datatype t[] = {t1[k], t2[k], ct[k]};
        for (int j = 0; j < 3; j++) {
            int ni, na, nd, co;
            MPI_Type_get_envelope(t[j], &ni, &na, &nd, &co);
            if (co != MPI_COMBINER_NAMED)
                MPI_Type_free(&t[j]);
        }
    }
}

static void pair(MPI_Datatype c, MPI_Datatype i, int want_ni, MPI_Count want_nc,
                 const MPI_Count *want, const char *what)
{
    same_layout(c, i, what);
    same_envelope(c, i, want_ni, want_nc, want, what);
    MPI_Type_free(&c);
    MPI_Type_free(&i);
}

static void constructors(void)
{
    MPI_Datatype c, i;
    MPI_Count w[32];

    MPI_Type_contiguous_c(5, MPI_INT, &c);
    MPI_Type_contiguous(5, MPI_INT, &i);
    w[0] = 5;
    pair(c, i, 0, 1, w, "contiguous");

    MPI_Type_vector_c(3, 2, 4, MPI_SHORT, &c);
    MPI_Type_vector(3, 2, 4, MPI_SHORT, &i);
    w[0] = 3, w[1] = 2, w[2] = 4;
    pair(c, i, 0, 3, w, "vector");

    MPI_Type_create_hvector_c(3, 2, 20, MPI_INT, &c);
    MPI_Type_create_hvector(3, 2, 20, MPI_INT, &i);
    w[0] = 3, w[1] = 2, w[2] = 20;
    pair(c, i, 0, 3, w, "hvector");

    {
        MPI_Count bl[3] = {1, 3, 2}, dp[3] = {5, 0, 9};
        int ibl[3] = {1, 3, 2}, idp[3] = {5, 0, 9};
        MPI_Type_indexed_c(3, bl, dp, MPI_DOUBLE, &c);
        MPI_Type_indexed(3, ibl, idp, MPI_DOUBLE, &i);
        MPI_Count e[] = {3, 1, 3, 2, 5, 0, 9};
        pair(c, i, 0, 7, e, "indexed");

        MPI_Count hd[3] = {40, 0, 72};
        MPI_Aint ihd[3] = {40, 0, 72};
        MPI_Type_create_hindexed_c(3, bl, hd, MPI_DOUBLE, &c);
        MPI_Type_create_hindexed(3, ibl, ihd, MPI_DOUBLE, &i);
        MPI_Count e2[] = {3, 1, 3, 2, 40, 0, 72};
        pair(c, i, 0, 7, e2, "hindexed");

        MPI_Type_create_indexed_block_c(3, 2, dp, MPI_INT, &c);
        MPI_Type_create_indexed_block(3, 2, idp, MPI_INT, &i);
        MPI_Count e3[] = {3, 2, 5, 0, 9};
        pair(c, i, 0, 5, e3, "indexed_block");

        MPI_Type_create_hindexed_block_c(3, 2, hd, MPI_INT, &c);
        MPI_Type_create_hindexed_block(3, 2, ihd, MPI_INT, &i);
        MPI_Count e4[] = {3, 2, 40, 0, 72};
        pair(c, i, 0, 5, e4, "hindexed_block");

        MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        MPI_Count sd[3] = {0, 8, 40};
        MPI_Aint isd[3] = {0, 8, 40};
        MPI_Type_create_struct_c(3, bl, sd, ty, &c);
        MPI_Type_create_struct(3, ibl, isd, ty, &i);
        MPI_Count e5[] = {3, 1, 3, 2, 0, 8, 40};
        pair(c, i, 0, 7, e5, "struct");
    }

    MPI_Type_create_resized_c(MPI_INT, -4, 16, &c);
    MPI_Type_create_resized(MPI_INT, -4, 16, &i);
    w[0] = -4, w[1] = 16;
    pair(c, i, 0, 2, w, "resized");

    {
        MPI_Count sz[2] = {6, 8}, sub[2] = {3, 4}, st[2] = {1, 2};
        int isz[2] = {6, 8}, isub[2] = {3, 4}, ist[2] = {1, 2};
        MPI_Type_create_subarray_c(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &c);
        MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_INT, &i);
        MPI_Count e[] = {6, 8, 3, 4, 1, 2};
        pair(c, i, 2, 6, e, "subarray");

        MPI_Count g[2] = {10, 7};
        int ig[2] = {10, 7}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
        int darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
        MPI_Type_create_darray_c(4, 3, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_FLOAT, &c);
        MPI_Type_create_darray(4, 3, 2, ig, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_FLOAT, &i);
        MPI_Count e2[] = {10, 7};
        pair(c, i, 10, 2, e2, "darray");
    }
}

/* Counts no int holds. */
static void beyond_int(void)
{
    MPI_Datatype big;
    CHECK(MPI_Type_contiguous_c(3000000000LL, MPI_BYTE, &big) == MPI_SUCCESS,
          "MPI_Type_contiguous_c of 3e9 bytes");
    int isz;
    MPI_Count sz, lb, ex;
    MPI_Type_size(big, &isz);
    MPI_Type_size_c(big, &sz);
    CHECK(isz == MPI_UNDEFINED, "MPI_Type_size gave %d", isz);
    CHECK(sz == 3000000000LL, "MPI_Type_size_c gave %lld", (long long)sz);
    MPI_Type_get_extent_c(big, &lb, &ex);
    CHECK(lb == 0 && ex == 3000000000LL, "extent_c %lld %lld", (long long)lb, (long long)ex);
    MPI_Type_get_true_extent_c(big, &lb, &ex);
    CHECK(lb == 0 && ex == 3000000000LL, "true extent_c %lld %lld", (long long)lb,
          (long long)ex);

    int ni, na, nd, co, ints[4];
    MPI_Aint ad[4];
    MPI_Datatype ty[2];
    int rc = MPI_Type_get_envelope(big, &ni, &na, &nd, &co);
    CHECK(errclass(rc) == MPI_ERR_VALUE_TOO_LARGE, "int envelope of 3e9: class %d", errclass(rc));
    rc = MPI_Type_get_contents(big, 4, 4, 2, ints, ad, ty);
    CHECK(errclass(rc) == MPI_ERR_VALUE_TOO_LARGE, "int contents of 3e9: class %d", errclass(rc));
    MPI_Count n_i, n_a, n_c, n_d, lc[2];
    MPI_Type_get_envelope_c(big, &n_i, &n_a, &n_c, &n_d, &co);
    CHECK(n_i == 0 && n_a == 0 && n_c == 1 && n_d == 1 && co == MPI_COMBINER_CONTIGUOUS,
          "envelope_c of 3e9");
    MPI_Type_get_contents_c(big, 0, 0, 1, 1, ints, ad, lc, ty);
    CHECK(lc[0] == 3000000000LL && ty[0] == MPI_BYTE, "contents_c of 3e9: %lld",
          (long long)lc[0]);
    /* arrays too small */
    rc = MPI_Type_get_contents_c(big, 0, 0, 0, 1, ints, ad, lc, ty);
    CHECK(errclass(rc) == MPI_ERR_ARG, "contents_c without room: class %d", errclass(rc));

    MPI_Type_commit(&big);
    int ps;
    MPI_Count psc;
    rc = MPI_Pack_size(1, big, MPI_COMM_WORLD, &ps);
    CHECK(errclass(rc) == MPI_ERR_VALUE_TOO_LARGE, "MPI_Pack_size of 3e9: class %d",
          errclass(rc));
    CHECK(MPI_Pack_size_c(1, big, MPI_COMM_WORLD, &psc) == MPI_SUCCESS && psc == 3000000000LL,
          "MPI_Pack_size_c of 3e9: %lld", (long long)psc);
    MPI_Type_free(&big);

    /* a vector of 2^31 + 5 blocks: no int holds the count */
    MPI_Datatype v;
    MPI_Type_vector_c(((MPI_Count)1 << 31) + 5, 1, 2, MPI_CHAR, &v);
    MPI_Type_size_c(v, &sz);
    CHECK(sz == ((MPI_Count)1 << 31) + 5, "vector_c size %lld", (long long)sz);
    rc = MPI_Type_get_envelope(v, &ni, &na, &nd, &co);
    CHECK(errclass(rc) == MPI_ERR_VALUE_TOO_LARGE, "int envelope of the vector: class %d",
          errclass(rc));
    MPI_Type_free(&v);

    /* a stride of 5e9 bytes is an address in the int form: representable */
    MPI_Type_create_hvector_c(2, 1, 5000000000LL, MPI_INT, &v);
    CHECK(MPI_Type_get_envelope(v, &ni, &na, &nd, &co) == MPI_SUCCESS && ni == 2 && na == 1 &&
              nd == 1 && co == MPI_COMBINER_HVECTOR,
          "int envelope of hvector_c with a 5e9 stride: %d %d %d %d", ni, na, nd, co);
    MPI_Type_get_contents(v, 2, 1, 1, ints, ad, ty);
    CHECK(ints[0] == 2 && ints[1] == 1 && ad[0] == 5000000000LL, "its contents");
    MPI_Type_get_extent_c(v, &lb, &ex);
    CHECK(ex == 5000000004LL, "hvector_c extent %lld", (long long)ex);
    MPI_Type_free(&v);
}

static void pack_round_trips(void)
{
    /* every other int of 1000 through MPI_Pack_c / MPI_Unpack_c */
    int src[2000], dst[2000];
    for (int k = 0; k < 2000; k++)
        src[k] = k * 3 + 1, dst[k] = -1;
    MPI_Datatype v;
    MPI_Type_vector_c(1000, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_Count need, pos = 0;
    MPI_Pack_size_c(1, v, MPI_COMM_WORLD, &need);
    CHECK(need == 4000, "MPI_Pack_size_c %lld", (long long)need);
    char *buf = malloc((size_t)need + 16);
    pos = 16; /* after something else */
    CHECK(MPI_Pack_c(src, 1, v, buf, need + 16, &pos, MPI_COMM_WORLD) == MPI_SUCCESS &&
              pos == need + 16,
          "MPI_Pack_c position %lld", (long long)pos);
    for (int k = 0; k < 1000; k++)
        CHECK(((int *)(buf + 16))[k] == src[2 * k], "packed int %d", k);
    pos = 16;
    CHECK(MPI_Unpack_c(buf, need + 16, &pos, dst, 1, v, MPI_COMM_WORLD) == MPI_SUCCESS &&
              pos == need + 16,
          "MPI_Unpack_c position %lld", (long long)pos);
    for (int k = 0; k < 2000; k++)
        CHECK(dst[k] == (k % 2 ? -1 : src[k]), "unpacked int %d: %d", k, dst[k]);
    /* no room: MPI_ERR_TRUNCATE, position unchanged */
    pos = 17;
    int rc = MPI_Pack_c(src, 1, v, buf, need + 16, &pos, MPI_COMM_WORLD);
    CHECK(errclass(rc) == MPI_ERR_TRUNCATE && pos == 17, "MPI_Pack_c past the end: class %d",
          errclass(rc));
    rc = MPI_Unpack_c(buf, need + 16, &pos, dst, 1, v, MPI_COMM_WORLD);
    CHECK(errclass(rc) == MPI_ERR_TRUNCATE, "MPI_Unpack_c past the end: class %d", errclass(rc));
    free(buf);
    MPI_Type_free(&v);

    /* external32: big-endian ints */
    int vals[3] = {1, 0x01020304, -2}, back[3] = {0, 0, 0};
    MPI_Count esz, epos = 0;
    unsigned char ext[12];
    CHECK(MPI_Pack_external_size_c("external32", 3, MPI_INT, &esz) == MPI_SUCCESS && esz == 12,
          "MPI_Pack_external_size_c %lld", (long long)esz);
    CHECK(MPI_Pack_external_c("external32", vals, 3, MPI_INT, ext, 12, &epos) == MPI_SUCCESS &&
              epos == 12,
          "MPI_Pack_external_c");
    CHECK(ext[4] == 1 && ext[5] == 2 && ext[6] == 3 && ext[7] == 4 && ext[3] == 1,
          "external32 bytes are not big-endian");
    epos = 0;
    CHECK(MPI_Unpack_external_c("external32", ext, 12, &epos, back, 3, MPI_INT) == MPI_SUCCESS &&
              epos == 12 && !memcmp(vals, back, sizeof vals),
          "MPI_Unpack_external_c");
    epos = 4;
    rc = MPI_Pack_external_c("external32", vals, 3, MPI_INT, ext, 12, &epos);
    CHECK(errclass(rc) == MPI_ERR_TRUNCATE, "MPI_Pack_external_c past the end: class %d",
          errclass(rc));
    rc = MPI_Pack_external_size_c("native", 3, MPI_INT, &esz);
    CHECK(errclass(rc) == MPI_ERR_ARG, "MPI_Pack_external_size_c of \"native\": class %d",
          errclass(rc));
}

static void bad_arguments(void)
{
    MPI_Datatype t;
    MPI_Count one = 1, zero = 0, neg = -1;
    MPI_Datatype ty = MPI_INT;
    int rc;
#define EXPECT(call, cls)                                                                    \
    do {                                                                                     \
        rc = (call);                                                                         \
        CHECK(errclass(rc) == (cls), "%s: class %d, not %d", #call, errclass(rc), (cls));    \
    } while (0)
    EXPECT(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector_c(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_vector_c(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_hvector_c(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_indexed_c(-1, &one, &zero, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_indexed_c(1, &neg, &zero, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_indexed_c(1, &one, NULL, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_hindexed_c(-1, &one, &zero, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_indexed_block_c(-1, 1, &zero, MPI_INT, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_hindexed_block_c(1, -1, &zero, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_struct_c(-1, &one, &zero, &ty, &t), MPI_ERR_COUNT);
    EXPECT(MPI_Type_create_struct_c(1, &neg, &zero, &ty, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_contiguous_c(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_resized_c(MPI_DATATYPE_NULL, 0, 4, &t), MPI_ERR_TYPE);
    EXPECT(MPI_Type_create_resized_c(MPI_INT, 0, 4, NULL), MPI_ERR_ARG);
    MPI_Count sz[1] = {4}, sub[1] = {5}, st[1] = {0};
    EXPECT(MPI_Type_create_subarray_c(1, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG);
    EXPECT(MPI_Type_create_subarray_c(0, sz, sub, st, MPI_ORDER_C, MPI_INT, &t), MPI_ERR_DIMS);
    int d = MPI_DISTRIBUTE_BLOCK, a = MPI_DISTRIBUTE_DFLT_DARG, p = 2;
    EXPECT(MPI_Type_create_darray_c(2, 2, 1, sz, &d, &a, &p, MPI_ORDER_C, MPI_INT, &t),
           MPI_ERR_RANK);
    MPI_Count c;
    EXPECT(MPI_Type_size_c(MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE);
    EXPECT(MPI_Type_size_c(MPI_INT, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_get_extent_c(MPI_INT, &c, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Type_get_true_extent_c(MPI_DATATYPE_NULL, &c, &c), MPI_ERR_TYPE);
    EXPECT(MPI_Type_get_envelope_c(MPI_INT, &c, &c, NULL, &c, &p), MPI_ERR_ARG);
    int ints[1];
    MPI_Aint ad[1];
    EXPECT(MPI_Type_get_contents_c(MPI_INT, 1, 1, 1, 1, ints, ad, &c, &ty), MPI_ERR_TYPE);
    EXPECT(MPI_Pack_size_c(-1, MPI_INT, MPI_COMM_WORLD, &c), MPI_ERR_COUNT);
    EXPECT(MPI_Pack_size_c(1, MPI_INT, MPI_COMM_NULL, &c), MPI_ERR_COMM);
    char buf[8];
    MPI_Count pos = 0;
    EXPECT(MPI_Pack_c(ints, -1, MPI_INT, buf, 8, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Pack_c(ints, 1, MPI_INT, buf, 8, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT(MPI_Unpack_c(buf, 8, &pos, ints, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Pack_external_size_c("external32", -1, MPI_INT, &c), MPI_ERR_COUNT);
    EXPECT(MPI_Unpack_external_c("external32", buf, 8, &pos, ints, -1, MPI_INT), MPI_ERR_COUNT);
#undef EXPECT
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1) */
    constructors();
    beyond_int();
    pack_round_trips();
    bad_arguments();
    MPI_Finalize();
    if (rank == 0)
        printf("large_count_dtype: OK\n");
    return 0;
}
