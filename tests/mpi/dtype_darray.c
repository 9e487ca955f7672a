/* ranks: 1 2 3 4 */
/* MPI_Type_create_darray (MPI-3.1 §4.1.4) for block, cyclic(k) (and the
 * default arguments), none, in C and Fortran order, on 2-d and 3-d arrays
 * whose sizes the process grid does not divide:
 *  - every rank's type, built here for each rank of the grid, packs exactly
 *    the elements that the distribution's definition gives that rank, in
 *    increasing order of their place in the array (hand-computed owners);
 *  - lb 0 and the whole array's extent;
 *  - across the real ranks the pieces cover the array exactly once (each
 *    rank unpacks ones through its type, a sum over ranks is one
 *    everywhere), and every rank's piece sent with its type to rank 0 and
 *    received there with the same type rebuilds the array;
 * plus MPICH's figures for one case, envelope/contents, and bad arguments. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

#define MAXD 3

typedef struct cfg {
    int ndims, gsizes[MAXD], distribs[MAXD], dargs[MAXD];
} cfg_t;

/* The process coordinate owning global index x of a dimension. */
static int owner(int x, int g, int d, int darg, int p)
{
    if (d == MPI_DISTRIBUTE_NONE)
        return 0;
    if (d == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return x / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return x / b % p;
}

/* Linear index -> per-dimension index for the order. */
static void decode(const cfg_t *c, int order, int lin, int *x)
{
    if (order == MPI_ORDER_C)
        for (int i = c->ndims - 1; i >= 0; i--) {
            x[i] = lin % c->gsizes[i];
            lin /= c->gsizes[i];
        }
    else
        for (int i = 0; i < c->ndims; i++) {
            x[i] = lin % c->gsizes[i];
            lin /= c->gsizes[i];
        }
}

/* Split `size` processes over the distributed dimensions. */
static void grid(const cfg_t *c, int *psizes)
{
    int left = size, nd = 0;
    for (int i = 0; i < c->ndims; i++)
        psizes[i] = 1;
    for (int i = 0; i < c->ndims; i++)
        if (c->distribs[i] != MPI_DISTRIBUTE_NONE)
            nd++;
    for (int i = 0; i < c->ndims && nd; i++) {
        if (c->distribs[i] == MPI_DISTRIBUTE_NONE)
            continue;
        int p = left;
        if (--nd) /* leave the rest to the later dimensions: the largest divisor <= sqrt */
            for (p = 1; (p + 1) * (p + 1) <= left; p++)
                ;
        while (left % p)
            p--;
        psizes[i] = p;
        left /= p;
    }
}

static void check_cfg(const cfg_t *c, int order)
{
    int psizes[MAXD], total = 1;
    grid(c, psizes);
    for (int i = 0; i < c->ndims; i++)
        total *= c->gsizes[i];
    int *a = malloc(sizeof(int) * (size_t)total), *want = malloc(sizeof(int) * (size_t)total);
    int *out = malloc(sizeof(int) * (size_t)total), *cover = calloc((size_t)total, sizeof(int));
    for (int i = 0; i < total; i++)
        a[i] = i;
    MPI_Datatype mine = MPI_DATATYPE_NULL;
    for (int r = 0; r < size; r++) {
        int coords[MAXD], rr = r;
        for (int i = c->ndims - 1; i >= 0; i--) { /* the grid is row-major */
            coords[i] = rr % psizes[i];
            rr /= psizes[i];
        }
        int n = 0, x[MAXD];
        for (int lin = 0; lin < total; lin++) {
            decode(c, order, lin, x);
            int ok = 1;
            for (int i = 0; i < c->ndims; i++)
                ok &= owner(x[i], c->gsizes[i], c->distribs[i], c->dargs[i], psizes[i]) == coords[i];
            if (ok)
                want[n++] = lin;
        }
        MPI_Datatype t;
        int rc = MPI_Type_create_darray(size, r, c->ndims, c->gsizes, c->distribs, c->dargs,
                                        psizes, order, MPI_INT, &t);
        CHECK(rc == MPI_SUCCESS, "darray for rank %d: %d", r, rc);
        MPI_Type_commit(&t);
        MPI_Count lb, ext, sz;
        MPI_Type_get_extent_x(t, &lb, &ext);
        MPI_Type_size_x(t, &sz);
        CHECK(lb == 0 && ext == (MPI_Count)total * 4, "rank %d: lb %lld extent %lld", r,
              (long long)lb, (long long)ext);
        CHECK(sz == (MPI_Count)n * 4, "rank %d: size %lld, want %d elements", r, (long long)sz, n);
        int pos = 0;
        MPI_Pack(a, 1, t, out, total * 4, &pos, MPI_COMM_WORLD);
        CHECK(pos == n * 4, "rank %d packed %d bytes", r, pos);
        for (int i = 0; i < n; i++)
            CHECK(out[i] == want[i], "order %d rank %d: element %d is %d, want %d", order, r, i,
                  out[i], want[i]);
        if (r == rank)
            mine = t;
        else
            MPI_Type_free(&t);
    }

    /* the real ranks' pieces cover the array exactly once */
    MPI_Count sz;
    MPI_Type_size_x(mine, &sz);
    int *ones = malloc(sizeof(int) * (size_t)(sz / 4 + 1));
    for (int i = 0; i < sz / 4; i++)
        ones[i] = 1;
    int pos = 0;
    MPI_Unpack(ones, (int)sz, &pos, cover, 1, mine, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, cover, total, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < total; i++)
        CHECK(cover[i] == 1, "element %d is held by %d ranks", i, cover[i]);

    /* and travel: rank 0 receives every piece with its owner's type */
    MPI_Request req;
    MPI_Isend(a, 1, mine, 0, 7, MPI_COMM_WORLD, &req);
    if (rank == 0) {
        memset(out, 0xff, sizeof(int) * (size_t)total);
        for (int r = 0; r < size; r++) {
            MPI_Datatype t;
            MPI_Type_create_darray(size, r, c->ndims, c->gsizes, c->distribs, c->dargs, psizes,
                                   order, MPI_INT, &t);
            MPI_Type_commit(&t);
            MPI_Recv(out, 1, t, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Type_free(&t);
        }
        for (int i = 0; i < total; i++)
            CHECK(out[i] == i, "rebuilt element %d is %d", i, out[i]);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&mine);
    free(ones);
    free(a);
    free(want);
    free(out);
    free(cover);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */

    const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE;
    const int D = MPI_DISTRIBUTE_DFLT_DARG;
    cfg_t cfgs[] = {
        {2, {7, 10}, {B, B}, {D, D}},
        {2, {7, 10}, {C, C}, {2, 2}},
        {2, {9, 5}, {C, B}, {D, D}},
        {2, {7, 10}, {N, B}, {D, D}},
        {2, {11, 6}, {C, N}, {2, 0}},
        {2, {10, 7}, {B, C}, {D, 2}},
        {2, {5, 9}, {B, C}, {5, 3}},
        {3, {5, 4, 7}, {C, N, B}, {2, D, D}},
        {3, {6, 5, 4}, {B, C, C}, {D, 1, 3}},
    };
    for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
        check_cfg(&cfgs[i], MPI_ORDER_C);
        check_cfg(&cfgs[i], MPI_ORDER_FORTRAN);
    }

    /* MPICH 4.0.2's figures for rank 3 of a 2x2 grid, block x cyclic(2) */
    int gs[2] = {10, 7}, ds[2] = {B, C}, da[2] = {D, 2}, ps[2] = {2, 2};
    MPI_Datatype t;
    MPI_Count lb, ext;
    MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_get_true_extent_x(t, &lb, &ext);
    CHECK(lb == 148 && ext == 132, "C true bounds %lld %lld", (long long)lb, (long long)ext);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 12 && na == 0 && nd == 1, "envelope %d %d %d %d",
          comb, ni, na, nd);
    int ints[12], wints[12] = {4, 3, 2, 10, 7, B, C, D, 2, 2, 2, MPI_ORDER_C};
    MPI_Aint ai[1];
    MPI_Datatype dt[1];
    MPI_Type_get_contents(t, 12, 0, 1, ints, ai, dt);
    for (int i = 0; i < 12; i++)
        CHECK(ints[i] == wints[i], "contents int %d is %d, want %d", i, ints[i], wints[i]);
    CHECK(dt[0] == MPI_INT, "contents type");
    /* element counts of partial and whole receives: 15 ints per item */
    MPI_Type_commit(&t);
    int src[40], dst[140]; /* two items of the 10 x 7 array */
    for (int i = 0; i < 40; i++)
        src[i] = i;
    int counts[3] = {7, 15, 22}, wel[3] = {7, 15, 22}, wcnt[3] = {MPI_UNDEFINED, 1, MPI_UNDEFINED};
    for (int k = 0; k < 3; k++) {
        MPI_Status st;
        MPI_Sendrecv(src, counts[k], MPI_INT, rank, 9, dst, 2, t, rank, 9, MPI_COMM_WORLD, &st);
        int el, cnt;
        MPI_Count elx;
        MPI_Get_elements(&st, t, &el);
        MPI_Get_elements_x(&st, t, &elx);
        MPI_Get_count(&st, t, &cnt);
        CHECK(el == wel[k] && elx == wel[k] && cnt == wcnt[k], "%d ints: elements %d %lld count %d",
              counts[k], el, (long long)elx, cnt);
    }
    /* external32: the same elements, big-endian */
    MPI_Aint xs, xpos = 0;
    unsigned char x[60];
    MPI_Pack_external_size("external32", 1, t, &xs);
    CHECK(xs == 60, "external32 size %ld", (long)xs);
    int a70[70];
    for (int i = 0; i < 70; i++)
        a70[i] = i;
    MPI_Pack_external("external32", a70, 1, t, x, 60, &xpos);
    /* rank 3 = (1, 1): rows 5..9, columns 2, 3 and 6 */
    CHECK(xpos == 60 && x[3] == 37 && x[7] == 38 && x[11] == 41 && x[15] == 44 && x[56] == 0 &&
              x[59] == 69, "external32 darray bytes %d %d %d %d", x[3], x[7], x[11], x[15]);
    MPI_Type_free(&t);
    MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_get_true_extent_x(t, &lb, &ext);
    CHECK(lb == 100 && ext == 180, "Fortran true bounds %lld %lld", (long long)lb, (long long)ext);
    MPI_Type_free(&t);

    /* bad arguments */
    int bad[2];
    CHECK(MPI_Type_create_darray(3, 0, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "grid of 4 for 3 processes");
    CHECK(MPI_Type_create_darray(4, 4, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_RANK,
          "rank 4 of 4");
    CHECK(MPI_Type_create_darray(0, 0, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "size 0");
    CHECK(MPI_Type_create_darray(4, 0, 0, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_DIMS,
          "ndims 0");
    bad[0] = N;
    bad[1] = B;
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, bad, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "none over 2 processes");
    bad[0] = 77;
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, bad, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "unknown distribution");
    bad[0] = 4;
    bad[1] = 2;
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, ds, bad, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "blocks of 4 for 10 elements over 2");
    bad[0] = D;
    bad[1] = 0;
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, ds, bad, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "cyclic(0)");
    bad[0] = 0;
    bad[1] = 7;
    CHECK(MPI_Type_create_darray(4, 0, 2, bad, ds, da, ps, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "gsize 0");
    bad[0] = 0;
    bad[1] = 4;
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, ds, da, bad, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG,
          "psize 0");
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, ds, da, ps, 3, MPI_INT, &t) == MPI_ERR_ARG,
          "bad order");
    CHECK(MPI_Type_create_darray(4, 0, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_DATATYPE_NULL, &t) ==
              MPI_ERR_TYPE, "null type");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_darray: OK\n");
    MPI_Finalize();
    return 0;
}
