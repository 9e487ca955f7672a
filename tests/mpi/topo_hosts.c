/* ranks: 4 6 */
/* A reordered grid keeps neighbours on one host. Under tests/scripts/
 * topo_hosts.sh each rank is told its host (RAILMPI_HOST_ID, round-robin
 * over two hosts, the worst order for a grid); run plainly, all ranks share
 * one host and the check is that reordering changes nothing. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

/* grid edges (non-periodic) whose two ends are on one host */
static int local_edges(MPI_Comm cart, int ndims, const int *dims, const char *hosts)
{
    int n = 0, me, c[2];
    MPI_Comm_rank(cart, &me);
    for (int r = 0; r < size; r++) {
        MPI_Cart_coords(cart, r, ndims, c);
        for (int d = 0; d < ndims; d++) {
            if (c[d] + 1 >= dims[d])
                continue;
            c[d]++;
            int q;
            MPI_Cart_rank(cart, c, &q);
            c[d]--;
            n += !strcmp(hosts + 64 * r, hosts + 64 * q);
        }
    }
    return n;
}

static int grid(int ndims, const int *dims, int reorder)
{
    int periods[2] = {0, 0}, me, mapped;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &cart);
    MPI_Comm_rank(cart, &me);
    MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &mapped);
    CHECK(!reorder || mapped == me, "Cart_map %d, Cart_create %d", mapped, me);
    char mine[64] = "", *hosts = malloc(64 * (size_t)size);
    const char *h = getenv("RAILMPI_HOST_ID");
    snprintf(mine, sizeof mine, "%s", h ? h : "");
    MPI_Allgather(mine, 64, MPI_CHAR, hosts, 64, MPI_CHAR, cart);
    int n = local_edges(cart, ndims, dims, hosts);
    /* the grid still carries traffic: sum over a shift */
    int src, dst, got = -1;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Sendrecv(&me, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
    CHECK(got == src, "shift received %d from %d", got, src);
    free(hosts);
    MPI_Comm_free(&cart);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int two_hosts = getenv("RAILMPI_HOST_ID") != NULL;
    int line[1] = {size}, plane[2] = {0, 0};
    MPI_Dims_create(size, 2, plane);
    int edges_line = size - 1, edges_plane = plane[0] * (plane[1] - 1) + plane[1] * (plane[0] - 1);
    int l0 = grid(1, line, 0), l1 = grid(1, line, 1);
    int p0 = grid(2, plane, 0), p1 = grid(2, plane, 1);
    if (rank == 0)
        printf("%s: line %d -> %d of %d edges on one host, plane %dx%d %d -> %d of %d\n",
               two_hosts ? "two hosts" : "one host", l0, l1, edges_line, plane[0], plane[1], p0, p1,
               edges_plane);
    if (!two_hosts) {
        CHECK(l1 == edges_line && p1 == edges_plane, "one host: every edge is local");
    } else {
        /* ranks alternate between the hosts: in order, no neighbour along a
         * line shares a host; reordered, only the edge between the two
         * hosts' runs leaves one */
        CHECK(l0 == 0, "line in launch order: %d local edges", l0);
        CHECK(l1 == edges_line - 1, "line reordered: %d local edges of %d", l1, edges_line);
        /* a plane is cut once between two halves: at least as good as a row cut */
        int cut = plane[0] % 2 == 0 ? plane[1] : plane[0];
        CHECK(p1 >= edges_plane - cut && p1 >= p0, "plane reordered: %d local edges of %d (launch order %d)",
              p1, edges_plane, p0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK topo_hosts\n");
    MPI_Finalize();
    return 0;
}
