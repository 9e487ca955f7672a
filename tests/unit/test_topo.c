/* Topology arithmetic without processes: host-aware grid placement, the
 * Cartesian rank/shift rules and MPI_Dims_create's factorisation. */
#include "comm/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

/* grid edges (non-periodic) whose ends share a host, under a placement */
static int local_edges(int ndims, const int *dims, int n, const int *host_of, const int *newrank)
{
    int *host_at = malloc(sizeof(int) * (size_t)n), c[4], count = 0;
    topo_t *t = topo_cart_new(ndims, dims, (int[4]){0, 0, 0, 0});
    for (int i = 0; i < n; i++)
        host_at[newrank[i]] = host_of[i];
    for (int r = 0; r < n; r++) {
        topo_cart_coords(t, r, c);
        for (int d = 0; d < ndims; d++) {
            if (c[d] + 1 >= dims[d])
                continue;
            c[d]++;
            count += host_at[topo_cart_rank(t, c)] == host_at[r];
            c[d]--;
        }
    }
    topo_free(t);
    free(host_at);
    return count;
}

static void check_permutation(int n, const int *nr)
{
    char seen[256] = {0};
    for (int i = 0; i < n; i++) {
        if (nr[i] < 0 || nr[i] >= n || seen[nr[i]])
            FAIL("placement is not a permutation (process %d -> %d)", i, nr[i]);
        seen[nr[i]] = 1;
    }
}

static void test_place(void)
{
    int host[64], nr[64];
    /* 16 processes round-robin on 4 hosts, 4x4 grid: each host a 2x2 block
     * (8 local edges of 24), where rows would give 12 and launch order 0 */
    int dims[2] = {4, 4};
    for (int i = 0; i < 16; i++)
        host[i] = i % 4;
    topo_cart_place(2, dims, 16, host, nr);
    check_permutation(16, nr);
    int e = local_edges(2, dims, 16, host, nr);
    if (e != 16)
        FAIL("4x4 on 4 hosts: %d local edges, a 2x2 block per host gives 16", e);
    /* hosts of unequal size: consecutive runs */
    int uneven[6] = {0, 1, 0, 1, 0, 0}, line[1] = {6};
    topo_cart_place(1, line, 6, uneven, nr);
    check_permutation(6, nr);
    int want[6] = {0, 4, 1, 5, 2, 3};
    for (int i = 0; i < 6; i++)
        if (nr[i] != want[i])
            FAIL("uneven hosts: process %d -> %d, expected %d", i, nr[i], want[i]);
    /* one host: the identity */
    int one[12] = {0}, g[2] = {4, 3};
    topo_cart_place(2, g, 12, one, nr);
    for (int i = 0; i < 12; i++)
        if (nr[i] != i)
            FAIL("one host: process %d -> %d", i, nr[i]);
    /* 3-D, 2 hosts of 4 in a 2x2x2 cube: a face each */
    int cube[3] = {2, 2, 2};
    for (int i = 0; i < 8; i++)
        host[i] = i % 2;
    topo_cart_place(3, cube, 8, host, nr);
    check_permutation(8, nr);
    if ((e = local_edges(3, cube, 8, host, nr)) != 8)
        FAIL("2x2x2 on 2 hosts: %d local edges, a face each gives 8", e);
}

static void test_cart(void)
{
    int dims[2] = {3, 4}, periods[2] = {1, 0}, c[2], s, d;
    topo_t *t = topo_cart_new(2, dims, periods);
    topo_cart_coords(t, 7, c);
    if (c[0] != 1 || c[1] != 3)
        FAIL("coords of 7: %d %d", c[0], c[1]);
    c[0] = -1, c[1] = 2;
    if (topo_cart_rank(t, c) != 10)
        FAIL("periodic wrap of row -1: %d", topo_cart_rank(t, c));
    c[0] = 0, c[1] = 4;
    if (topo_cart_rank(t, c) != -1 && topo_cart_rank(t, c) != MPI_PROC_NULL)
        FAIL("column 4 of 4 is outside");
    topo_cart_shift(t, 7, 0, 2, &s, &d); /* row 1 -> dest row 0 (wrap), source row 2 */
    if (d != 3 || s != 11)
        FAIL("shift by 2 along the periodic rows: source %d dest %d", s, d);
    topo_cart_shift(t, 7, 1, 1, &s, &d);
    if (d != MPI_PROC_NULL || s != 6)
        FAIL("shift along the open columns: source %d dest %d", s, d);
    topo_cart_shift(t, 0, 0, 2000000000, &s, &d); /* no overflow */
    if (d != 2 * 4 * 0 + ((2000000000 % 3) * 4))
        FAIL("huge periodic shift: dest %d", d);
    topo_t *u = topo_dup(t);
    if (!u || u->ndims != 2 || u->dims[1] != 4 || u->periods[0] != 1)
        FAIL("topo_dup");
    topo_free(u);
    topo_free(t);
}

static void test_dims(void)
{
    static const struct {
        int n, nd, out[8];
    } tab[] = {
        /* MPICH 4.0 gives these, the last three checked with it */
        {72, 2, {9, 8}}, {360, 3, {10, 6, 6}}, {1024, 3, {16, 8, 8}}, {1800, 4, {9, 8, 5, 5}},
        {97, 2, {97, 1}}, {2147483646, 2, {49981, 42966}}, {1 << 30, 4, {256, 256, 128, 128}},
        /* ties in spread, MPICH 4.0.2's answers: every product up to 20000
         * in 2-6 dimensions where taking the first factorisation of least
         * spread differed from it (5040 in 3-D gave 20x18x14) */
        {5040, 3, {21, 16, 15}}, {6240, 3, {26, 16, 15}}, {10800, 3, {27, 20, 20}},
        {19152, 3, {38, 24, 21}}, {5616, 4, {13, 9, 8, 6}}, {7344, 4, {17, 9, 8, 6}},
        {8208, 4, {19, 9, 8, 6}}, {9936, 4, {23, 9, 8, 6}}, {12528, 4, {29, 9, 8, 6}},
        {13104, 4, {14, 13, 9, 8}}, {13392, 4, {31, 9, 8, 6}}, {15984, 4, {37, 9, 8, 6}},
        {17712, 4, {41, 9, 8, 6}}, {18576, 4, {43, 9, 8, 6}},
        /* larger ones, also MPICH 4.0.2's */
        {735134400, 5, {68, 65, 56, 55, 54}}, {735134400, 6, {34, 33, 30, 30, 28, 26}},
        {735134400, 8, {17, 15, 14, 13, 12, 12, 11, 10}},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        int d[8] = {0};
        if (topo_dims_create(tab[i].n, tab[i].nd, d) != RM_OK)
            FAIL("dims %d/%d failed", tab[i].n, tab[i].nd);
        if (memcmp(d, tab[i].out, sizeof(int) * (size_t)tab[i].nd))
            FAIL("dims %d/%d: %d %d %d %d ...", tab[i].n, tab[i].nd, d[0], d[1], d[2], d[3]);
    }
    int d[2] = {5, 0};
    if (topo_dims_create(12, 2, d) != RM_ERR_INVALID)
        FAIL("12 with a fixed 5 is invalid");
}

int main(void)
{
    test_place();
    test_cart();
    test_dims();
    printf("OK: topology arithmetic\n");
    return 0;
}
