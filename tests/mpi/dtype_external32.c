/* ranks: 1 */
/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size in
 * "external32" (MPI-3.1 §13.5.2): sizes from the standard's table (MPI_LONG
 * and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE 16, pair
 * types as their two members without padding), values against byte strings
 * written by hand (big-endian, IEEE; long double as binary128), derived
 * types (struct, vector, subarray) element by element, round trips, a
 * message longer than the conversion slice, and the error classes. */
#include "check.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int rank;

static void hex(char *s, const unsigned char *b, int n)
{
    for (int i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", b[i]);
}

/* Pack count items of t from buf and compare with the hex string want. */
static void pack_is(const void *buf, int count, MPI_Datatype t, const char *want, int line)
{
    unsigned char out[256];
    char got[600];
    MPI_Aint pos = 0, sz = -1;
    int n = (int)strlen(want) / 2;
    MPI_Pack_external_size("external32", count, t, &sz);
    CHECK(sz == n, "line %d: external size %ld, want %d", line, (long)sz, n);
    int rc = MPI_Pack_external("external32", buf, count, t, out, sizeof out, &pos);
    CHECK(rc == MPI_SUCCESS && pos == n, "line %d: rc %d position %ld", line, rc, (long)pos);
    hex(got, out, n);
    CHECK(!strcmp(got, want), "line %d: packed %s, want %s", line, got, want);
}

/* Unpack the hex string into count items of t at buf. */
static void unpack_from(const char *hexs, void *buf, int count, MPI_Datatype t, int line)
{
    unsigned char in[256];
    int n = (int)strlen(hexs) / 2;
    for (int i = 0; i < n; i++) {
        unsigned v;
        sscanf(hexs + 2 * i, "%2x", &v);
        in[i] = (unsigned char)v;
    }
    MPI_Aint pos = 0;
    int rc = MPI_Unpack_external("external32", in, n, &pos, buf, count, t);
    CHECK(rc == MPI_SUCCESS && pos == n, "line %d: rc %d position %ld", line, rc, (long)pos);
}

#define PACK_IS(buf, count, t, want) pack_is(buf, count, t, want, __LINE__)
#define UNPACK_FROM(h, buf, count, t) unpack_from(h, buf, count, t, __LINE__)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */

    /* the table's sizes */
    struct {
        MPI_Datatype t;
        int size;
    } sizes[] = {
        {MPI_PACKED, 1}, {MPI_BYTE, 1}, {MPI_CHAR, 1}, {MPI_UNSIGNED_CHAR, 1},
        {MPI_SIGNED_CHAR, 1}, {MPI_WCHAR, 2}, {MPI_SHORT, 2}, {MPI_UNSIGNED_SHORT, 2},
        {MPI_INT, 4}, {MPI_UNSIGNED, 4}, {MPI_LONG, 4}, {MPI_UNSIGNED_LONG, 4},
        {MPI_LONG_LONG_INT, 8}, {MPI_UNSIGNED_LONG_LONG, 8}, {MPI_FLOAT, 4}, {MPI_DOUBLE, 8},
        {MPI_LONG_DOUBLE, 16}, {MPI_C_BOOL, 1}, {MPI_INT8_T, 1}, {MPI_INT16_T, 2},
        {MPI_INT32_T, 4}, {MPI_INT64_T, 8}, {MPI_UINT8_T, 1}, {MPI_UINT16_T, 2},
        {MPI_UINT32_T, 4}, {MPI_UINT64_T, 8}, {MPI_AINT, 8}, {MPI_COUNT, 8}, {MPI_OFFSET, 8},
        {MPI_C_COMPLEX, 8}, {MPI_C_FLOAT_COMPLEX, 8}, {MPI_C_DOUBLE_COMPLEX, 16},
        {MPI_C_LONG_DOUBLE_COMPLEX, 32}, {MPI_CXX_BOOL, 1}, {MPI_CXX_FLOAT_COMPLEX, 8},
        {MPI_CXX_DOUBLE_COMPLEX, 16}, {MPI_CXX_LONG_DOUBLE_COMPLEX, 32}, {MPI_CHARACTER, 1},
        {MPI_LOGICAL, 4}, {MPI_INTEGER, 4}, {MPI_REAL, 4}, {MPI_DOUBLE_PRECISION, 8},
        {MPI_COMPLEX, 8}, {MPI_DOUBLE_COMPLEX, 16}, {MPI_INTEGER1, 1}, {MPI_INTEGER2, 2},
        {MPI_INTEGER4, 4}, {MPI_INTEGER8, 8}, {MPI_REAL4, 4}, {MPI_REAL8, 8}, {MPI_REAL16, 16},
        {MPI_COMPLEX8, 8}, {MPI_COMPLEX16, 16}, {MPI_COMPLEX32, 32}, {MPI_FLOAT_INT, 8},
        {MPI_DOUBLE_INT, 12}, {MPI_LONG_INT, 8}, {MPI_SHORT_INT, 6}, {MPI_LONG_DOUBLE_INT, 20},
        {MPI_2INT, 8}, {MPI_2INTEGER, 8}, {MPI_2REAL, 8}, {MPI_2DOUBLE_PRECISION, 16},
        {MPI_LOGICAL1, 1}, {MPI_LOGICAL2, 2}, {MPI_LOGICAL4, 4}, {MPI_LOGICAL8, 8},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        MPI_Aint sz = -1;
        int rc = MPI_Pack_external_size("external32", 3, sizes[i].t, &sz);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_get_name(sizes[i].t, name, &len);
        CHECK(rc == MPI_SUCCESS && sz == 3 * sizes[i].size, "%s: external32 size %ld, want 3 x %d",
              name, (long)sz, sizes[i].size);
    }

    /* values against byte strings */
    int iv[2] = {0x01020304, -2};
    PACK_IS(iv, 2, MPI_INT, "01020304fffffffe");
    int64_t l8[2] = {1, 0};
    PACK_IS(l8, 2, MPI_LOGICAL8, "00000000000000010000000000000000");
    int16_t l2[2] = {0, 1};
    PACK_IS(l2, 2, MPI_LOGICAL2, "00000001");
    int8_t l1[2] = {5, 5};
    UNPACK_FROM("0300", l1, 2, MPI_LOGICAL1);
    CHECK(l1[0] == 1 && l1[1] == 0, "LOGICAL1 from external32: %d %d", l1[0], l1[1]);
    short sv = 0x1234;
    PACK_IS(&sv, 1, MPI_SHORT, "1234");
    long lv[2] = {-2, 0x7fffffff};
    PACK_IS(lv, 2, MPI_LONG, "fffffffe7fffffff");
    unsigned long ulv = 0xdeadbeefUL;
    PACK_IS(&ulv, 1, MPI_UNSIGNED_LONG, "deadbeef");
    long long llv = 0x0102030405060708LL;
    PACK_IS(&llv, 1, MPI_LONG_LONG_INT, "0102030405060708");
    float fv[2] = {1.0f, -0.5f};
    PACK_IS(fv, 2, MPI_FLOAT, "3f800000bf000000");
    double dv = -2.5;
    PACK_IS(&dv, 1, MPI_DOUBLE, "c004000000000000");
    long double ldv[2] = {1.5L, -3.0L};
    PACK_IS(ldv, 2, MPI_LONG_DOUBLE,
            "3fff8000000000000000000000000000c0008000000000000000000000000000");
    float fc[2] = {1.0f, -1.0f}; /* one float _Complex */
    PACK_IS(fc, 1, MPI_C_FLOAT_COMPLEX, "3f800000bf800000");
    bool bv[3] = {true, false, true};
    PACK_IS(bv, 3, MPI_C_BOOL, "010001");
    wchar_t wv[2] = {L'A', 0x20ac};
    PACK_IS(wv, 2, MPI_WCHAR, "004120ac");
    MPI_Aint av = -16;
    PACK_IS(&av, 1, MPI_AINT, "fffffffffffffff0");
    struct {
        double d;
        int i;
    } di = {1.0, 7};
    PACK_IS(&di, 1, MPI_DOUBLE_INT, "3ff000000000000000000007");
    struct {
        short s;
        int i;
    } si = {-1, 258};
    PACK_IS(&si, 1, MPI_SHORT_INT, "ffff00000102");
    int i2[2] = {5, 6};
    PACK_IS(i2, 1, MPI_2INT, "0000000500000006");
    char cv[3] = "ab";
    PACK_IS(cv, 3, MPI_CHAR, "616200");

    /* derived: struct {int; double; char[3]} is 15 bytes per item, no padding */
    struct rec {
        int a;
        double d;
        char c[3];
    } recs[2] = {{1, 2.0, "xy"}, {-1, -0.0, "zz"}};
    MPI_Datatype rt;
    int bl[3] = {1, 1, 3};
    MPI_Aint dp[3] = {offsetof(struct rec, a), offsetof(struct rec, d), offsetof(struct rec, c)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, dp, ty, &rt);
    MPI_Type_commit(&rt);
    PACK_IS(recs, 2, rt, "00000001" "4000000000000000" "787900"
                         "ffffffff" "8000000000000000" "7a7a00");
    struct rec back[2];
    memset(back, 0x55, sizeof back);
    UNPACK_FROM("00000001" "4000000000000000" "787900"
                "ffffffff" "8000000000000000" "7a7a00", back, 2, rt);
    CHECK(back[0].a == 1 && back[0].d == 2.0 && !strcmp(back[0].c, "xy") && back[1].a == -1 &&
              back[1].d == 0.0 && !strcmp(back[1].c, "zz"),
          "struct round trip");

    /* derived: every other short */
    short shorts[6] = {1, 2, 3, 4, 5, 6};
    MPI_Datatype vt;
    MPI_Type_vector(3, 1, 2, MPI_SHORT, &vt);
    MPI_Type_commit(&vt);
    PACK_IS(shorts, 1, vt, "000100030005");

    /* derived: a subarray of longs (each narrowed to 4 bytes) */
    long grid[3][4];
    for (int i = 0; i < 12; i++)
        grid[i / 4][i % 4] = i - 6;
    int gs[2] = {3, 4}, ss[2] = {2, 2}, st[2] = {1, 1};
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_C, MPI_LONG, &sub);
    MPI_Type_commit(&sub);
    PACK_IS(grid, 1, sub, "ffffffff" "00000000" "00000003" "00000004");

    /* round trips from byte strings */
    long lb[2];
    UNPACK_FROM("fffffffe80000000", lb, 2, MPI_LONG);
    CHECK(lb[0] == -2 && lb[1] == -2147483648L, "long unpack %ld %ld", lb[0], lb[1]);
    unsigned long ulb;
    UNPACK_FROM("ffffffff", &ulb, 1, MPI_UNSIGNED_LONG);
    CHECK(ulb == 0xffffffffUL, "unsigned long unpack %lx", ulb);
    long double ldb[2];
    UNPACK_FROM("3fff8000000000000000000000000000c0008000000000000000000000000000", ldb, 2,
                MPI_LONG_DOUBLE);
    CHECK(ldb[0] == 1.5L && ldb[1] == -3.0L, "long double unpack %Lg %Lg", ldb[0], ldb[1]);
    bool bb[2];
    UNPACK_FROM("0500", bb, 2, MPI_C_BOOL); /* nonzero is true */
    CHECK(bb[0] == true && bb[1] == false, "bool unpack");
    wchar_t wb;
    UNPACK_FROM("20ac", &wb, 1, MPI_WCHAR);
    CHECK(wb == 0x20ac, "wchar unpack %x", (unsigned)wb);
    double db;
    UNPACK_FROM("c004000000000000", &db, 1, MPI_DOUBLE);
    CHECK(db == -2.5, "double unpack %g", db);

    /* longer than one conversion slice, two calls advancing the position */
    enum { N = 20000 }; /* 160 KB: more than one 64 KiB conversion slice */
    double *big = malloc(sizeof(double) * N), *big2 = malloc(sizeof(double) * N);
    unsigned char *ext = malloc(8 * N + 8);
    for (int i = 0; i < N; i++)
        big[i] = i * 0.25 - 7;
    MPI_Aint pos = 0;
    CHECK(MPI_Pack_external("external32", big, 3000, MPI_DOUBLE, ext, 8 * N, &pos) == MPI_SUCCESS &&
              pos == 24000, "first pack");
    CHECK(MPI_Pack_external("external32", big + 3000, N - 3000, MPI_DOUBLE, ext, 8 * N, &pos) ==
              MPI_SUCCESS && pos == 8 * N, "second pack");
    CHECK(ext[8 * 4999] == 0x40 && ext[8 * 4999 + 1] == 0x93, "big-endian 1242.75: %02x %02x",
          ext[8 * 4999], ext[8 * 4999 + 1]);
    pos = 0;
    CHECK(MPI_Unpack_external("external32", ext, 8 * N, &pos, big2, N, MPI_DOUBLE) == MPI_SUCCESS &&
              pos == 8 * N, "unpack all");
    for (int i = 0; i < N; i++)
        CHECK(big2[i] == big[i], "double %d: %g", i, big2[i]);

    /* errors */
    unsigned char out[64];
    MPI_Aint sz;
    pos = 0;
    CHECK(MPI_Pack_external("native", iv, 1, MPI_INT, out, 64, &pos) == MPI_ERR_ARG, "native");
    CHECK(MPI_Pack_external_size("External32", 1, MPI_INT, &sz) == MPI_ERR_ARG, "case matters");
    CHECK(MPI_Unpack_external("xdr", out, 4, &pos, iv, 1, MPI_INT) == MPI_ERR_ARG, "xdr");
    CHECK(MPI_Pack_external("external32", iv, 2, MPI_INT, out, 7, &pos) == MPI_ERR_TRUNCATE,
          "no room");
    CHECK(pos == 0, "position moved on error");
    CHECK(MPI_Unpack_external("external32", out, 3, &pos, iv, 1, MPI_INT) == MPI_ERR_TRUNCATE,
          "short input");
    CHECK(MPI_Pack_external("external32", iv, -1, MPI_INT, out, 64, &pos) == MPI_ERR_COUNT,
          "negative count");
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    CHECK(MPI_Pack_external("external32", iv, 1, unc, out, 64, &pos) == MPI_ERR_TYPE,
          "uncommitted");
    CHECK(MPI_Pack_external_size("external32", 1, MPI_DATATYPE_NULL, &sz) == MPI_ERR_TYPE,
          "null type");
    long huge = 1L << 40;
    CHECK(MPI_Pack_external("external32", &huge, 1, MPI_LONG, out, 64, &pos) == MPI_ERR_CONVERSION,
          "a long beyond 32 bits");
    CHECK(pos == 0, "position moved on a conversion error");

    MPI_Type_free(&unc);
    MPI_Type_free(&rt);
    MPI_Type_free(&vt);
    MPI_Type_free(&sub);
    free(big);
    free(big2);
    free(ext);
    printf("dtype_external32: OK\n");
    MPI_Finalize();
    return 0;
}
