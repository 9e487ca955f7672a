/* ranks: 1 2 */
/* MPI_Type_create_subarray (MPI-3.1 §4.1.3): layouts against hand-computed
 * index lists in C and Fortran order, bounds (lb 0, the whole array's
 * extent, true bounds as MPICH 4.0.2 gives them), envelope and contents,
 * a transfer and a partial receive (MPI_Get_elements), an array too big to
 * expand (the type is O(ndims)), and the error classes of bad arguments. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

/* Pack count items of t from a[] (a[i] = i) and compare with want[]. */
static void check_pack(MPI_Datatype t, int count, const int *a, const int *want, int n)
{
    int bytes = 0, pos = 0;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &bytes);
    CHECK(bytes == n * 4, "pack size %d, want %d", bytes, n * 4);
    int *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
    MPI_Pack(a, count, t, out, bytes, &pos, MPI_COMM_WORLD);
    CHECK(pos == bytes, "position %d", pos);
    for (int i = 0; i < n; i++)
        CHECK(out[i] == want[i], "element %d is %d, want %d", i, out[i], want[i]);
    free(out);
}

static void check_bounds(MPI_Datatype t, MPI_Count lb, MPI_Count ext, MPI_Count tlb,
                         MPI_Count text, MPI_Count sz)
{
    MPI_Count l, e, s;
    MPI_Type_get_extent_x(t, &l, &e);
    CHECK(l == lb && e == ext, "lb %lld extent %lld, want %lld %lld", (long long)l, (long long)e,
          (long long)lb, (long long)ext);
    MPI_Type_get_true_extent_x(t, &l, &e);
    CHECK(l == tlb && e == text, "true lb %lld extent %lld, want %lld %lld", (long long)l,
          (long long)e, (long long)tlb, (long long)text);
    MPI_Type_size_x(t, &s);
    CHECK(s == sz, "size %lld, want %lld", (long long)s, (long long)sz);
    MPI_Aint al, ae;
    MPI_Type_get_extent(t, &al, &ae);
    CHECK(al == lb && ae == ext, "MPI_Type_get_extent %ld %ld", (long)al, (long)ae);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */

    int a[2 * 120];
    for (int i = 0; i < 240; i++)
        a[i] = i;
    int sizes[3] = {4, 5, 6}, subs[3] = {2, 3, 4}, starts[3] = {1, 1, 2};
    int want[2 * 24], n = 0;

    /* C order: the last dimension varies fastest */
    MPI_Datatype c;
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &c) ==
              MPI_SUCCESS, "C subarray");
    MPI_Type_commit(&c);
    for (int rep = 0; rep < 2; rep++)
        for (int i = 1; i < 3; i++)
            for (int j = 1; j < 4; j++)
                for (int k = 2; k < 6; k++)
                    want[n++] = rep * 120 + i * 30 + j * 6 + k;
    check_pack(c, 1, a, want, 24);
    check_pack(c, 2, a, want, 48); /* the second item is the next whole array */
    check_bounds(c, 0, 480, 152, 184, 96);

    /* Fortran order: the first dimension varies fastest */
    MPI_Datatype f;
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &f) ==
              MPI_SUCCESS, "Fortran subarray");
    MPI_Type_commit(&f);
    n = 0;
    for (int k = 2; k < 6; k++)
        for (int j = 1; j < 4; j++)
            for (int i = 1; i < 3; i++)
                want[n++] = i + j * 4 + k * 20;
    check_pack(f, 1, a, want, 24);
    check_bounds(f, 0, 480, 180, 280, 96);

    /* envelope and contents give the arguments back */
    int ni, na, nd, comb;
    MPI_Type_get_envelope(c, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 11 && na == 0 && nd == 1,
          "envelope %d %d %d %d", comb, ni, na, nd);
    int ints[11];
    MPI_Aint aints[1];
    MPI_Datatype dts[1];
    MPI_Type_get_contents(c, 11, 0, 1, ints, aints, dts);
    int wints[11] = {3, 4, 5, 6, 2, 3, 4, 1, 1, 2, MPI_ORDER_C};
    for (int i = 0; i < 11; i++)
        CHECK(ints[i] == wints[i], "contents int %d is %d, want %d", i, ints[i], wints[i]);
    CHECK(dts[0] == MPI_INT, "contents type 0x%x", (unsigned)dts[0]);
    MPI_Type_get_contents(f, 11, 0, 1, ints, aints, dts);
    CHECK(ints[10] == MPI_ORDER_FORTRAN, "order %d", ints[10]);

    /* over a resized element (extent 12, data at 0): MPICH's figures */
    MPI_Datatype rs, cr;
    MPI_Type_create_resized(MPI_INT, -4, 12, &rs);
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, rs, &cr);
    check_bounds(cr, 0, 1440, 456, 544, 96);
    MPI_Type_free(&cr);
    MPI_Type_free(&rs);

    /* a 2-d subarray over a vector element type, counted in elements */
    MPI_Datatype v, sv;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints 0 and 2, extent 12 */
    int s2[2] = {3, 4}, ss2[2] = {2, 2}, st2[2] = {1, 2};
    MPI_Type_create_subarray(2, s2, ss2, st2, MPI_ORDER_C, v, &sv);
    MPI_Type_commit(&sv);
    n = 0;
    for (int i = 1; i < 3; i++)
        for (int j = 2; j < 4; j++) {
            want[n++] = (i * 4 + j) * 3;
            want[n++] = (i * 4 + j) * 3 + 2;
        }
    check_pack(sv, 1, a, want, 8);
    check_bounds(sv, 0, 144, 72, 72, 32);

    /* a transfer: the subarray of a travels into zeros at the same places */
    int b[120];
    memset(b, 0, sizeof b);
    MPI_Status st;
    int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Sendrecv(a, 1, c, peer, 1, b, 1, c, from, 1, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 120; i++) {
        int x = i / 30, y = i / 6 % 5, z = i % 6;
        int in = x >= 1 && x < 3 && y >= 1 && y < 4 && z >= 2 && z < 6;
        CHECK(b[i] == (in ? i : 0), "b[%d] = %d", i, b[i]);
    }
    /* a partial receive: 10 ints into one subarray */
    MPI_Sendrecv(a, 10, MPI_INT, peer, 2, b, 1, c, from, 2, MPI_COMM_WORLD, &st);
    int el, cnt;
    MPI_Count elx;
    MPI_Get_elements(&st, c, &el);
    MPI_Get_elements_x(&st, c, &elx);
    MPI_Get_count(&st, c, &cnt);
    CHECK(el == 10 && elx == 10 && cnt == MPI_UNDEFINED, "elements %d %lld count %d", el,
          (long long)elx, cnt);
    CHECK(b[30 + 6 + 2] == 0 && b[30 + 12 + 5] == 7 && b[30 + 18 + 3] == 9 && b[30 + 18 + 4] == 52,
          "partial placement %d %d %d %d", b[38], b[47], b[51], b[52]);

    /* 2^36 x 2^10 doubles: nothing like that could be expanded */
    MPI_Datatype big;
    int bs[3] = {65536, 65536, 1024}, bsub[3] = {65535, 65535, 1023}, bst[3] = {1, 0, 1};
    CHECK(MPI_Type_create_subarray(3, bs, bsub, bst, MPI_ORDER_C, MPI_DOUBLE, &big) == MPI_SUCCESS,
          "big subarray");
    MPI_Type_commit(&big);
    MPI_Count bsz = 65535LL * 65535 * 1023 * 8, bext = 65536LL * 65536 * 1024 * 8;
    MPI_Count btlb = (65536LL * 1024 + 1) * 8;
    MPI_Count btub = (65536LL * 65536 * 1024 - 1024) * 8; /* element (65535, 65534, 1023) ends it */
    check_bounds(big, 0, bext, btlb, btub - btlb, bsz);
    int isz;
    MPI_Type_size(big, &isz);
    CHECK(isz == MPI_UNDEFINED, "MPI_Type_size %d", isz);
    MPI_Type_free(&big);

    /* bad arguments */
    MPI_Datatype t;
    int bad[3];
    CHECK(MPI_Type_create_subarray(0, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t) ==
              MPI_ERR_DIMS, "ndims 0");
    CHECK(MPI_Type_create_subarray(-2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t) ==
              MPI_ERR_DIMS, "ndims -2");
    memcpy(bad, sizes, sizeof bad);
    bad[1] = 0;
    CHECK(MPI_Type_create_subarray(3, bad, subs, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "size 0");
    memcpy(bad, subs, sizeof bad);
    bad[0] = 5;
    CHECK(MPI_Type_create_subarray(3, sizes, bad, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "subsize > size");
    bad[0] = 0;
    CHECK(MPI_Type_create_subarray(3, sizes, bad, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "subsize 0");
    memcpy(bad, starts, sizeof bad);
    bad[2] = 3;
    CHECK(MPI_Type_create_subarray(3, sizes, subs, bad, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "start past the end");
    bad[2] = -1;
    CHECK(MPI_Type_create_subarray(3, sizes, subs, bad, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "negative start");
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, 99, MPI_INT, &t) == MPI_ERR_ARG,
          "bad order");
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DATATYPE_NULL, &t) ==
              MPI_ERR_TYPE, "null type");
    CHECK(MPI_Type_create_subarray(3, NULL, subs, starts, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "NULL sizes");
    CHECK(MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, NULL) ==
              MPI_ERR_ARG, "NULL newtype");

    MPI_Type_free(&c);
    MPI_Type_free(&f);
    MPI_Type_free(&sv);
    MPI_Type_free(&v);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_subarray: OK\n");
    MPI_Finalize();
    return 0;
}
