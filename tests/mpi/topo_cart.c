/* ranks: 1 2 4 6 */
/* Cartesian topologies and MPI_Dims_create: the factor table is MPICH
 * 4.0's output (Open MPI 4.1 differs where noted), shifts and coordinates
 * against hand computation, sub-grids, reordering, topology through
 * MPI_Comm_dup and dropped by MPI_Comm_split, and the error classes. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s gave class %d, expected %d", what, cls, want);
}

/* nnodes, ndims, dims given (0 = free), dims MPICH returns */
static const struct {
    int nnodes, ndims, in[5], out[5];
} dims_table[] = {
    {1, 1, {0}, {1}},
    {1, 3, {0}, {1, 1, 1}},
    {2, 2, {0}, {2, 1}},
    {6, 2, {0}, {3, 2}},
    {7, 2, {0}, {7, 1}},
    {12, 2, {0}, {4, 3}},
    {12, 3, {0}, {3, 2, 2}},
    {16, 3, {0}, {4, 2, 2}},
    {16, 4, {0}, {2, 2, 2, 2}},
    {24, 3, {0}, {4, 3, 2}},
    {30, 3, {0}, {5, 3, 2}},
    {36, 3, {0}, {4, 3, 3}},
    {64, 3, {0}, {4, 4, 4}},
    {90, 5, {0}, {5, 3, 3, 2, 1}},
    {100, 3, {0}, {5, 5, 4}},
    {128, 3, {0}, {8, 4, 4}},
    {210, 4, {0}, {7, 5, 3, 2}},
    {360, 3, {0}, {10, 6, 6}},
    {1000, 3, {0}, {10, 10, 10}},
    {1024, 3, {0}, {16, 8, 8}},
    {2310, 5, {0}, {11, 7, 5, 3, 2}},
    /* here Open MPI's greedy split gives 12x6, 18x10, 12x6x6, 17x12x6 and
     * 10x6x6x5 */
    {72, 2, {0}, {9, 8}},
    {180, 2, {0}, {15, 12}},
    {432, 3, {0}, {9, 8, 6}},
    {1224, 3, {0}, {17, 9, 8}},
    {1800, 4, {0}, {9, 8, 5, 5}},
    /* fixed dimensions */
    {24, 3, {0, 3, 0}, {4, 3, 2}},
    {36, 3, {2, 0, 0}, {2, 6, 3}},
    {12, 2, {0, 4}, {3, 4}},
    {12, 2, {3, 4}, {3, 4}},
};

static void test_dims(void)
{
    for (size_t i = 0; i < sizeof dims_table / sizeof dims_table[0]; i++) {
        int d[5];
        memcpy(d, dims_table[i].in, sizeof d);
        int rc = MPI_Dims_create(dims_table[i].nnodes, dims_table[i].ndims, d);
        CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) failed", dims_table[i].nnodes, dims_table[i].ndims);
        for (int k = 0; k < dims_table[i].ndims; k++)
            CHECK(d[k] == dims_table[i].out[k], "Dims_create(%d, %d): dims[%d] = %d, MPICH gives %d",
                  dims_table[i].nnodes, dims_table[i].ndims, k, d[k], dims_table[i].out[k]);
    }
    int d[3] = {5, 0, 0};
    expect(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS, "Dims_create 12 with a fixed 5");
    d[0] = 3, d[1] = 3;
    expect(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS, "Dims_create 12 fixed 3x3");
    d[0] = -2, d[1] = 0;
    expect(MPI_Dims_create(12, 2, d), MPI_ERR_DIMS, "Dims_create negative dims");
    expect(MPI_Dims_create(12, -1, d), MPI_ERR_DIMS, "Dims_create ndims -1");
    expect(MPI_Dims_create(-4, 2, d), MPI_ERR_DIMS, "Dims_create nnodes -4");
    expect(MPI_Dims_create(12, 0, NULL), MPI_SUCCESS, "Dims_create ndims 0");
}

/* the grid over all ranks, 2-D, periodic in dimension 0 only */
static void test_grid(int reorder)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, reorder, &cart) == MPI_SUCCESS,
          "Cart_create");
    CHECK(cart != MPI_COMM_NULL, "every rank is in a full grid");
    int me, n, t, nd;
    MPI_Comm_rank(cart, &me);
    MPI_Comm_size(cart, &n);
    CHECK(n == size, "grid size %d", n);
    if (!reorder)
        CHECK(me == rank, "without reorder rank %d became %d", rank, me);
    int mapped;
    MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &mapped);
    if (reorder)
        CHECK(mapped == me, "Cart_map says %d, Cart_create gave %d", mapped, me);
    MPI_Topo_test(cart, &t);
    CHECK(t == MPI_CART, "Topo_test %d", t);
    MPI_Cartdim_get(cart, &nd);
    CHECK(nd == 2, "Cartdim_get %d", nd);
    int gd[2], gp[2], gc[2], c[2];
    MPI_Cart_get(cart, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0, "Cart_get dims/periods");
    MPI_Cart_coords(cart, me, 2, c);
    CHECK(c[0] == gc[0] && c[1] == gc[1], "Cart_get coords");
    CHECK(c[0] == me / dims[1] && c[1] == me % dims[1], "row-major coords (%d,%d) of %d", c[0], c[1], me);
    for (int r = 0; r < n; r++) {
        int rc[2], back;
        MPI_Cart_coords(cart, r, 2, rc);
        MPI_Cart_rank(cart, rc, &back);
        CHECK(back == r, "coords/rank round trip %d -> %d", r, back);
    }
    /* periodic dimension wraps, the other does not */
    int wrap[2] = {c[0] - dims[0], c[1]}, wr;
    MPI_Cart_rank(cart, wrap, &wr);
    CHECK(wr == me, "periodic coordinate wraps to %d", wr);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK(dst == ((c[0] + 1) % dims[0]) * dims[1] + c[1], "shift dim 0 dest %d", dst);
    CHECK(src == ((c[0] - 1 + dims[0]) % dims[0]) * dims[1] + c[1], "shift dim 0 source %d", src);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK(dst == (c[1] + 1 < dims[1] ? me + 1 : MPI_PROC_NULL), "shift dim 1 dest %d", dst);
    CHECK(src == (c[1] > 0 ? me - 1 : MPI_PROC_NULL), "shift dim 1 source %d", src);
    MPI_Cart_shift(cart, 1, -dims[1], &src, &dst);
    CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL, "shift past both ends");
    /* the neighbours are real: pass my rank along dimension 0 */
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    int got = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, cart, MPI_STATUS_IGNORE);
    CHECK(got == src, "received %d from source %d", got, src);

    /* rows: keep dimension 1 */
    int keep[2] = {0, 1};
    MPI_Comm row;
    MPI_Cart_sub(cart, keep, &row);
    int rn, rme, rd, rdims[1], rper[1], rco[1];
    MPI_Comm_size(row, &rn);
    MPI_Comm_rank(row, &rme);
    CHECK(rn == dims[1] && rme == c[1], "row size %d rank %d", rn, rme);
    MPI_Cartdim_get(row, &rd);
    MPI_Cart_get(row, 1, rdims, rper, rco);
    CHECK(rd == 1 && rdims[0] == dims[1] && rper[0] == 0 && rco[0] == c[1], "row topology");
    int rowsum = 0;
    MPI_Allreduce(&me, &rowsum, 1, MPI_INT, MPI_SUM, row);
    int want = 0;
    for (int k = 0; k < dims[1]; k++)
        want += c[0] * dims[1] + k;
    CHECK(rowsum == want, "row sum %d, expected %d", rowsum, want);
    MPI_Comm_free(&row);
    int none[2] = {0, 0};
    MPI_Comm pt;
    MPI_Cart_sub(cart, none, &pt);
    MPI_Comm_size(pt, &rn);
    MPI_Cartdim_get(pt, &rd);
    CHECK(rn == 1 && rd == 0, "sub-grid of no dimensions: size %d ndims %d", rn, rd);
    MPI_Comm_free(&pt);

    /* dup keeps the topology, split and create drop it */
    MPI_Comm dup, split, created;
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &t);
    CHECK(t == MPI_CART, "dup lost the topology");
    MPI_Cart_get(dup, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gc[0] == c[0], "dup's grid");
    MPI_Comm_free(&dup);
    MPI_Comm_split(cart, 0, me, &split);
    MPI_Topo_test(split, &t);
    CHECK(t == MPI_UNDEFINED, "split kept a topology (%d)", t);
    MPI_Comm_free(&split);
    MPI_Group g;
    MPI_Comm_group(cart, &g);
    MPI_Comm_create(cart, g, &created);
    MPI_Group_free(&g);
    MPI_Topo_test(created, &t);
    CHECK(t == MPI_UNDEFINED, "create kept a topology (%d)", t);
    MPI_Comm_free(&created);
    MPI_Comm_free(&cart);
}

static void test_errors(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    int dims[2] = {size + 1, 1}, periods[2] = {0, 0}, r, s, d, co[2];
    expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_ARG, "grid larger than comm");
    dims[0] = 0;
    expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS, "zero dimension");
    dims[0] = -1;
    expect(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), MPI_ERR_DIMS, "negative dimension");
    expect(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_ARG, "ndims -1");
    expect(MPI_Cart_create(MPI_COMM_NULL, 1, dims, periods, 0, &c), MPI_ERR_COMM, "COMM_NULL");
    expect(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &s, &d), MPI_ERR_TOPOLOGY, "shift on a plain comm");
    expect(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY, "Cartdim_get on a plain comm");
    expect(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, co), MPI_ERR_TOPOLOGY, "Cart_get on a plain comm");
    expect(MPI_Cart_sub(MPI_COMM_WORLD, periods, &c), MPI_ERR_TOPOLOGY, "Cart_sub on a plain comm");
    expect(MPI_Topo_test(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Topo_test on COMM_NULL");
    MPI_Topo_test(MPI_COMM_WORLD, &r);
    CHECK(r == MPI_UNDEFINED, "MPI_COMM_WORLD has topology %d", r);
    dims[0] = size, dims[1] = 1;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    co[0] = size, co[1] = 0;
    expect(MPI_Cart_rank(cart, co, &r), MPI_ERR_ARG, "coordinate outside a non-periodic dimension");
    co[0] = -1;
    expect(MPI_Cart_rank(cart, co, &r), MPI_ERR_ARG, "negative coordinate");
    expect(MPI_Cart_coords(cart, size, 2, co), MPI_ERR_RANK, "Cart_coords of rank size");
    expect(MPI_Cart_coords(cart, 0, 1, co), MPI_ERR_ARG, "Cart_coords with maxdims 1");
    expect(MPI_Cart_shift(cart, 2, 1, &s, &d), MPI_ERR_ARG, "shift along dimension 2");
    expect(MPI_Cart_shift(cart, -1, 1, &s, &d), MPI_ERR_ARG, "shift along dimension -1");
    int big[3] = {size, 2, 2};
    expect(MPI_Cart_map(MPI_COMM_WORLD, 3, big, periods, &r), MPI_ERR_ARG, "Cart_map larger than comm");
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    test_dims();
    test_grid(0);
    test_grid(1);

    /* a grid smaller than the communicator leaves the last ranks out */
    int dims[1] = {(size + 1) / 2}, periods[1] = {0};
    MPI_Comm half;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &half);
    CHECK((half != MPI_COMM_NULL) == (rank < dims[0]), "rank %d in a grid of %d: %s", rank, dims[0],
          half == MPI_COMM_NULL ? "left out" : "member");
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    /* zero dimensions: one process */
    MPI_Comm zero;
    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &zero);
    CHECK((zero != MPI_COMM_NULL) == (rank == 0), "zero-dimensional grid membership");
    if (zero != MPI_COMM_NULL) {
        int n, nd, r;
        MPI_Comm_size(zero, &n);
        MPI_Cartdim_get(zero, &nd);
        MPI_Cart_rank(zero, NULL, &r);
        CHECK(n == 1 && nd == 0 && r == 0, "zero-dimensional grid: size %d ndims %d rank %d", n, nd, r);
        MPI_Comm_free(&zero);
    }
    test_errors();

    int ok = 1, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK topo_cart %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
