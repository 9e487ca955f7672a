/* Process topology bindings (MPI-3.1 chapter 7): Cartesian, graph and
 * distributed graph communicators, MPI_Dims_create, MPI_Topo_test. Error
 * classes follow MPICH where the standard names none (docs/topology.md). */
#include "coll/coll.h"
#include "comm/topo.h"
#include "mpi/mpiimpl.h"

#include <stdlib.h>
#include <string.h>

/* Intercommunicators carry no topology: CHECK_INTRA (mpiimpl.h) refuses them. */

#define CHECK_TOPO(c, kind_, what)                                                    \
    do {                                                                              \
        if (!(c)->topo || (c)->topo->kind != (kind_))                                 \
            MPI_FAIL((c), MPI_ERR_TOPOLOGY, "communicator has no %s topology", what); \
    } while (0)

/* World ranks of the first n processes of parent placed as `newrank` says
 * (NULL: in order); the caller is a member when its rank is below n. */
static group_t *topo_group(comm_t *parent, int n, const int *newrank)
{
    if (parent->rank >= n)
        return NULL;
    group_t *g = group_new(n, 0);
    if (!g)
        return NULL;
    for (int i = 0; i < n; i++)
        g->world[newrank ? newrank[i] : i] = comm_world_rank(parent, i);
    return g;
}

/* Build the communicator (collective over parent) and give it t, which it
 * owns from then on. Non-members get MPI_COMM_NULL and t is freed. */
static rm_status_t topo_comm_create(comm_t *parent, int n, const int *newrank, topo_t *t,
                                    MPI_Comm *out)
{
    int member = parent->rank < n;
    group_t *g = member ? topo_group(parent, n, newrank) : NULL;
    comm_t *nc = NULL;
    /* a member that cannot allocate still takes part in the agreement */
    rm_status_t st = comm_create_from(parent, g, &nc);
    if (st < 0 || (member && (!g || !t))) {
        if (nc)
            comm_release(nc);
        else
            group_release(g);
        topo_free(t);
        *out = MPI_COMM_NULL;
        return st < 0 ? st : RM_ERR_NOMEM;
    }
    if (!nc) {
        topo_free(t);
        *out = MPI_COMM_NULL;
        return RM_OK;
    }
    nc->topo = t;
    *out = nc->handle;
    return RM_OK;
}

/* ---- Cartesian ---------------------------------------------------------- */

static int topo_grid_size(const int *dims, int ndims, long long *n)
{
    *n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return 0;
        *n *= dims[i];
        if (*n > 0x7fffffff)
            *n = 0x7fffffff + 1LL; /* larger than any group */
    }
    return 1;
}

/* The grid rank of each of the first n processes of c when reordering:
 * processes that share a host get neighbouring grid positions. */
static int *topo_cart_order(comm_t *c, int ndims, const int *dims, int n)
{
    int *host = malloc(sizeof(int) * (size_t)n), *nr = malloc(sizeof(int) * (size_t)n);
    if (!host || !nr) {
        free(host);
        free(nr);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        host[i] = proto_proc.node_of ? proto_proc.node_of[comm_world_rank(c, i)] : 0;
    topo_cart_place(ndims, dims, n, host, nr);
    free(host);
    return nr;
}

/* Shared checks of Cart_create and Cart_map. */
#define CHECK_CART_ARGS(c, ndims, dims, n)                                             \
    do {                                                                               \
        if ((ndims) < 0)                                                               \
            MPI_FAIL((c), MPI_ERR_ARG, "ndims %d is negative", (ndims));               \
        CHECK_ARG((c), (ndims) == 0 || (dims), "dims is NULL");                        \
        if (!topo_grid_size((dims), (ndims), &(n)))                                    \
            MPI_FAIL((c), MPI_ERR_DIMS, "a dimension is not positive");                \
        if ((n) > (c)->size)                                                           \
            MPI_FAIL((c), MPI_ERR_ARG, "the grid has %lld processes, the communicator %d", \
                     (n), (c)->size);                                                  \
    } while (0)

RM_ALIAS(Cart_create)
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    MPI_BEGIN("MPI_Cart_create");
    comm_t *c;
    long long n;
    CHECK_COMM(c, comm_old);
    CHECK_INTRA(c);
    CHECK_ARG(c, comm_cart, "comm_cart is NULL");
    CHECK_CART_ARGS(c, ndims, dims, n);
    CHECK_ARG(c, ndims == 0 || periods, "periods is NULL");
    int *order = NULL;
    if (reorder && n > 1 && !(order = topo_cart_order(c, ndims, dims, (int)n)))
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    topo_t *t = c->rank < n ? topo_cart_new(ndims, dims, periods) : NULL;
    rm_status_t st = topo_comm_create(c, (int)n, order, t, comm_cart);
    free(order);
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

RM_ALIAS(Cart_map)
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    MPI_BEGIN("MPI_Cart_map");
    comm_t *c;
    long long n;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newrank, "newrank is NULL");
    CHECK_CART_ARGS(c, ndims, dims, n);
    (void)periods;
    if (c->rank >= n) {
        *newrank = MPI_UNDEFINED;
    } else if (n == 1) {
        *newrank = 0;
    } else {
        int *order = topo_cart_order(c, ndims, dims, (int)n);
        if (!order)
            MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
        *newrank = order[c->rank];
        free(order);
    }
    MPI_END();
}

RM_ALIAS(Cartdim_get)
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    MPI_BEGIN("MPI_Cartdim_get");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, ndims, "ndims is NULL");
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    *ndims = c->topo->ndims;
    MPI_END();
}

RM_ALIAS(Cart_get)
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    MPI_BEGIN("MPI_Cart_get");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    if (maxdims < 0)
        MPI_FAIL(c, MPI_ERR_ARG, "maxdims %d is negative", maxdims);
    topo_t *t = c->topo;
    int n = maxdims < t->ndims ? maxdims : t->ndims;
    CHECK_ARG(c, n == 0 || (dims && periods && coords), "an output array is NULL");
    int stack[16];
    int *my = t->ndims <= 16 ? stack : malloc(sizeof(int) * (size_t)t->ndims);
    if (!my)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    topo_cart_coords(t, c->rank, my);
    for (int i = 0; i < n; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = my[i];
    }
    if (my != stack)
        free(my);
    MPI_END();
}

RM_ALIAS(Cart_rank)
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    MPI_BEGIN("MPI_Cart_rank");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    topo_t *t = c->topo;
    CHECK_ARG(c, rank && (t->ndims == 0 || coords), "coords or rank is NULL");
    for (int i = 0; i < t->ndims; i++)
        if (!t->periods[i] && (coords[i] < 0 || coords[i] >= t->dims[i]))
            MPI_FAIL(c, MPI_ERR_ARG, "coordinate %d of dimension %d is outside 0..%d", coords[i],
                     i, t->dims[i] - 1);
    *rank = topo_cart_rank(t, coords);
    MPI_END();
}

RM_ALIAS(Cart_coords)
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    MPI_BEGIN("MPI_Cart_coords");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    topo_t *t = c->topo;
    if (rank < 0 || rank >= c->size)
        MPI_FAIL(c, MPI_ERR_RANK, "invalid rank %d (communicator size %d)", rank, c->size);
    if (maxdims < t->ndims)
        MPI_FAIL(c, MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims, t->ndims);
    CHECK_ARG(c, t->ndims == 0 || coords, "coords is NULL");
    topo_cart_coords(t, rank, coords);
    MPI_END();
}

RM_ALIAS(Cart_shift)
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    MPI_BEGIN("MPI_Cart_shift");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    CHECK_ARG(c, rank_source && rank_dest, "rank_source or rank_dest is NULL");
    if (direction < 0 || direction >= c->topo->ndims)
        MPI_FAIL(c, MPI_ERR_ARG, "direction %d is not a dimension (0..%d)", direction,
                 c->topo->ndims - 1);
    topo_cart_shift(c->topo, c->rank, direction, disp, rank_source, rank_dest);
    MPI_END();
}

RM_ALIAS(Cart_sub)
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Cart_sub");
    comm_t *c, *nc = NULL;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_CART, "Cartesian");
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    topo_t *t = c->topo;
    CHECK_ARG(c, t->ndims == 0 || remain_dims, "remain_dims is NULL");
    int stack[32];
    int *my = t->ndims <= 16 ? stack : malloc(sizeof(int) * 2 * (size_t)t->ndims);
    if (!my)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    int *subdims = my + t->ndims, nsub = 0;
    topo_cart_coords(t, c->rank, my);
    /* color: position among the slices (dropped dimensions); key: position
     * inside the slice (kept dimensions), both row-major */
    int color = 0, key = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + my[i];
            subdims[nsub++] = t->dims[i];
        } else {
            color = color * t->dims[i] + my[i];
        }
    }
    int *per = malloc(sizeof(int) * (size_t)(nsub ? nsub : 1));
    if (per)
        for (int i = 0, k = 0; i < t->ndims; i++)
            if (remain_dims[i])
                per[k++] = t->periods[i];
    rm_status_t st = comm_split(c, color, key, &nc);
    if (st >= 0 && nc) {
        nc->topo = per ? topo_cart_new(nsub, subdims, per) : NULL;
        if (!nc->topo) {
            comm_release(nc);
            nc = NULL;
            st = RM_ERR_NOMEM;
        }
    }
    free(per);
    if (my != stack)
        free(my);
    MPI_CHECK_STATUS(c, st);
    *newcomm = nc->handle;
    MPI_END();
}

/* ---- graphs -------------------------------------------------------------- */

/* Checks shared by Graph_create and Graph_map; the edge count is index[nnodes-1]. */
static int topo_graph_check(const char *fn_name_, comm_t *c, int nnodes, const int *index,
                            const int *edges)
{
    if (nnodes < 0 || nnodes > c->size)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "nnodes %d is outside 0..%d", nnodes,
                             c->size);
    if (nnodes == 0)
        return MPI_SUCCESS;
    if (!index)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "index is NULL");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "index[%d] = %d decreases", i, index[i]);
    int nedges = index[nnodes - 1];
    if (nedges > 0 && !edges)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "edges is NULL");
    for (int i = 0; i < nedges; i++)
        if (edges[i] < 0 || edges[i] >= nnodes)
            return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "edges[%d] = %d is not a node (0..%d)",
                                 i, edges[i], nnodes - 1);
    return MPI_SUCCESS;
}

RM_ALIAS(Graph_create)
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    MPI_BEGIN("MPI_Graph_create");
    comm_t *c;
    CHECK_COMM(c, comm_old);
    CHECK_INTRA(c);
    CHECK_ARG(c, comm_graph, "comm_graph is NULL");
    if ((err = topo_graph_check(fn_name_, c, nnodes, index, edges)) != MPI_SUCCESS)
        goto fn_exit;
    (void)reorder; /* graph ranks keep their order (docs/topology.md) */
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        goto fn_exit;
    }
    topo_t *t = c->rank < nnodes ? topo_graph_new(nnodes, index, edges) : NULL;
    MPI_CHECK_STATUS(c, topo_comm_create(c, nnodes, NULL, t, comm_graph));
    MPI_END();
}

RM_ALIAS(Graph_map)
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    MPI_BEGIN("MPI_Graph_map");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newrank, "newrank is NULL");
    if ((err = topo_graph_check(fn_name_, c, nnodes, index, edges)) != MPI_SUCCESS)
        goto fn_exit;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    MPI_END();
}

RM_ALIAS(Graphdims_get)
int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    MPI_BEGIN("MPI_Graphdims_get");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_GRAPH, "graph");
    CHECK_ARG(c, nnodes && nedges, "nnodes or nedges is NULL");
    *nnodes = c->topo->nnodes;
    *nedges = c->topo->nedges;
    MPI_END();
}

RM_ALIAS(Graph_get)
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    MPI_BEGIN("MPI_Graph_get");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_GRAPH, "graph");
    topo_t *t = c->topo;
    if (maxindex < t->nnodes || maxedges < t->nedges)
        MPI_FAIL(c, MPI_ERR_ARG, "room for %d nodes and %d edges, the graph has %d and %d",
                 maxindex, maxedges, t->nnodes, t->nedges);
    CHECK_ARG(c, (t->nnodes == 0 || index) && (t->nedges == 0 || edges), "index or edges is NULL");
    memcpy(index, t->index, sizeof(int) * (size_t)t->nnodes);
    if (t->nedges)
        memcpy(edges, t->edges, sizeof(int) * (size_t)t->nedges);
    MPI_END();
}

RM_ALIAS(Graph_neighbors_count)
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    MPI_BEGIN("MPI_Graph_neighbors_count");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_GRAPH, "graph");
    CHECK_ARG(c, nneighbors, "nneighbors is NULL");
    topo_t *t = c->topo;
    if (rank < 0 || rank >= t->nnodes)
        MPI_FAIL(c, MPI_ERR_RANK, "invalid rank %d (graph of %d nodes)", rank, t->nnodes);
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    MPI_END();
}

RM_ALIAS(Graph_neighbors)
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    MPI_BEGIN("MPI_Graph_neighbors");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_GRAPH, "graph");
    topo_t *t = c->topo;
    if (rank < 0 || rank >= t->nnodes)
        MPI_FAIL(c, MPI_ERR_RANK, "invalid rank %d (graph of %d nodes)", rank, t->nnodes);
    if (maxneighbors < 0)
        MPI_FAIL(c, MPI_ERR_ARG, "maxneighbors %d is negative", maxneighbors);
    int from = rank ? t->index[rank - 1] : 0, n = t->index[rank] - from;
    if (n > maxneighbors)
        n = maxneighbors; /* as MPICH: the first maxneighbors */
    CHECK_ARG(c, n == 0 || neighbors, "neighbors is NULL");
    for (int i = 0; i < n; i++)
        neighbors[i] = t->edges[from + i];
    MPI_END();
}

/* ---- distributed graphs ------------------------------------------------- */

/* Validate one side of an adjacency list: ranks in comm, weights
 * non-negative. Weight arrays may be MPI_UNWEIGHTED, or MPI_WEIGHTS_EMPTY
 * (and NULL) only for degree 0. */
static int topo_dist_check(const char *fn_name_, comm_t *c, const char *what, int degree,
                           const int *ranks, const int *weights)
{
    if (degree < 0)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "%s degree %d is negative", what, degree);
    if (degree == 0)
        return MPI_SUCCESS;
    if (!ranks)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "%s ranks are NULL", what);
    if (!weights || weights == MPI_WEIGHTS_EMPTY)
        return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "%s weights missing for degree %d", what,
                             degree);
    for (int i = 0; i < degree; i++) {
        if (ranks[i] < 0 || ranks[i] >= c->size)
            return mpi_err_raise(c, MPI_ERR_RANK, fn_name_, "%s rank %d is not in 0..%d", what,
                                 ranks[i], c->size - 1);
        if (weights != MPI_UNWEIGHTED && weights[i] < 0)
            return mpi_err_raise(c, MPI_ERR_ARG, fn_name_, "%s weight %d is negative", what,
                                 weights[i]);
    }
    return MPI_SUCCESS;
}

/* A duplicate of c's group carrying t: the distributed graph keeps the
 * ranks of comm_old (reordering is allowed to be a no-op). */
static rm_status_t topo_dist_comm(comm_t *c, topo_t *t, MPI_Comm *out)
{
    return topo_comm_create(c, c->size, NULL, t, out);
}

RM_ALIAS(Dist_graph_create_adjacent)
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_BEGIN("MPI_Dist_graph_create_adjacent");
    comm_t *c;
    CHECK_COMM(c, comm_old);
    CHECK_INTRA(c);
    CHECK_ARG(c, comm_dist_graph, "comm_dist_graph is NULL");
    (void)info;
    (void)reorder;
    if ((err = topo_dist_check(fn_name_, c, "source", indegree, sources, sourceweights)) ||
        (err = topo_dist_check(fn_name_, c, "destination", outdegree, destinations, destweights)))
        goto fn_exit;
    int weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
    topo_t *t = topo_dist_new(indegree, sources, sourceweights, outdegree, destinations,
                              destweights, weighted);
    MPI_CHECK_STATUS(c, topo_dist_comm(c, t, comm_dist_graph));
    MPI_END();
}

/* One edge as exchanged by MPI_Dist_graph_create: to its source process
 * (out = 1: `other` is the destination) or to its destination (out = 0). */
typedef struct topo_edge {
    int out, other, weight;
} topo_edge_t;

RM_ALIAS(Dist_graph_create)
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    MPI_BEGIN("MPI_Dist_graph_create");
    comm_t *c;
    CHECK_COMM(c, comm_old);
    CHECK_INTRA(c);
    CHECK_ARG(c, comm_dist_graph, "comm_dist_graph is NULL");
    (void)info;
    (void)reorder;
    if (n < 0)
        MPI_FAIL(c, MPI_ERR_ARG, "n %d is negative", n);
    CHECK_ARG(c, n == 0 || (sources && degrees), "sources or degrees is NULL");
    long long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            MPI_FAIL(c, MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
        if (sources[i] < 0 || sources[i] >= c->size)
            MPI_FAIL(c, MPI_ERR_RANK, "sources[%d] = %d is not in 0..%d", i, sources[i], c->size - 1);
        nedges += degrees[i];
    }
    if (nedges > 0x3fffffff)
        MPI_FAIL(c, MPI_ERR_ARG, "too many edges");
    int weighted = weights != MPI_UNWEIGHTED;
    if ((err = topo_dist_check(fn_name_, c, "destination", (int)nedges, destinations, weights)))
        goto fn_exit;

    /* every edge goes to its source and to its destination process */
    int np = c->size;
    MPI_Count *scount = calloc((size_t)np, sizeof(MPI_Count));
    MPI_Count *rcount = malloc(sizeof(MPI_Count) * (size_t)np);
    MPI_Aint *sdispl = malloc(sizeof(MPI_Aint) * (size_t)np);
    MPI_Aint *rdispl = malloc(sizeof(MPI_Aint) * (size_t)np);
    int *fill = calloc((size_t)np, sizeof(int));
    topo_edge_t *sbuf = malloc(sizeof *sbuf * (size_t)(2 * nedges + 1)), *rbuf = NULL;
    topo_t *t = NULL;
    rm_status_t st = RM_ERR_NOMEM;
    if (!scount || !rcount || !sdispl || !rdispl || !fill || !sbuf)
        goto done;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            scount[sources[i]]++;
            scount[destinations[e]]++;
        }
    MPI_Aint at = 0;
    for (int p = 0; p < np; p++) {
        sdispl[p] = at;
        at += scount[p];
    }
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int s = sources[i], d = destinations[e], w = weighted ? weights[e] : 1;
            sbuf[sdispl[s] + fill[s]++] = (topo_edge_t){1, d, w};
            sbuf[sdispl[d] + fill[d]++] = (topo_edge_t){0, s, w};
        }
    dtype_t *it = dtype_get(MPI_INT);
    if ((st = coll_alltoall(scount, 1, dtype_get(MPI_COUNT), rcount, 1, dtype_get(MPI_COUNT), c)) < 0)
        goto done;
    long long total = 0;
    for (int p = 0; p < np; p++) {
        rdispl[p] = (MPI_Aint)total * 3;
        total += rcount[p];
    }
    if (total * 3 > 0x7fffffff || !(rbuf = malloc(sizeof *rbuf * (size_t)(total + 1)))) {
        st = RM_ERR_NOMEM;
        goto done;
    }
    for (int p = 0; p < np; p++) { /* counted in ints from here on */
        scount[p] *= 3;
        sdispl[p] *= 3;
        rcount[p] *= 3;
    }
    if ((st = coll_alltoallv(sbuf, scount, sdispl, it, rbuf, rcount, rdispl, it, c)) < 0)
        goto done;
    int in = 0, out = 0;
    for (long long i = 0; i < total; i++)
        rbuf[i].out ? out++ : in++;
    int *lists = malloc(sizeof(int) * (size_t)(2 * total + 1));
    if (!lists) {
        st = RM_ERR_NOMEM;
        goto done;
    }
    int *src = lists, *srcw = lists + in, *dst = lists + 2 * in, *dstw = lists + 2 * in + out;
    for (long long i = 0, a = 0, b = 0; i < total; i++) {
        if (rbuf[i].out) {
            dst[b] = rbuf[i].other;
            dstw[b++] = rbuf[i].weight;
        } else {
            src[a] = rbuf[i].other;
            srcw[a++] = rbuf[i].weight;
        }
    }
    t = topo_dist_new(in, src, srcw, out, dst, dstw, weighted);
    free(lists);
    st = t ? RM_OK : RM_ERR_NOMEM;
done:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(fill);
    free(sbuf);
    free(rbuf);
    /* the creation itself is collective: everyone takes part, a failed
     * member with t = NULL gets an error afterwards */
    if (st >= 0)
        st = topo_dist_comm(c, t, comm_dist_graph);
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

RM_ALIAS(Dist_graph_neighbors_count)
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    MPI_BEGIN("MPI_Dist_graph_neighbors_count");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_DIST_GRAPH, "distributed graph");
    CHECK_ARG(c, indegree && outdegree && weighted, "an output argument is NULL");
    *indegree = c->topo->indegree;
    *outdegree = c->topo->outdegree;
    *weighted = c->topo->weighted;
    MPI_END();
}

RM_ALIAS(Dist_graph_neighbors)
int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    MPI_BEGIN("MPI_Dist_graph_neighbors");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_TOPO(c, MPI_DIST_GRAPH, "distributed graph");
    topo_t *t = c->topo;
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree)
        MPI_FAIL(c, MPI_ERR_ARG, "room for %d sources and %d destinations, the graph has %d and %d",
                 maxindegree, maxoutdegree, t->indegree, t->outdegree);
    CHECK_ARG(c, (t->indegree == 0 || sources) && (t->outdegree == 0 || destinations),
              "sources or destinations is NULL");
    /* weights are written only for a weighted graph and a real array */
    int wsrc = t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED &&
               sourceweights != MPI_WEIGHTS_EMPTY;
    int wdst = t->weighted && destweights && destweights != MPI_UNWEIGHTED &&
               destweights != MPI_WEIGHTS_EMPTY;
    for (int i = 0; i < t->indegree; i++) {
        sources[i] = t->sources[i];
        if (wsrc)
            sourceweights[i] = t->sourceweights[i];
    }
    for (int i = 0; i < t->outdegree; i++) {
        destinations[i] = t->destinations[i];
        if (wdst)
            destweights[i] = t->destweights[i];
    }
    MPI_END();
}

/* ---- shape-independent ------------------------------------------------- */

RM_ALIAS(Topo_test)
int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    MPI_BEGIN("MPI_Topo_test");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, status, "status is NULL");
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    MPI_END();
}

/* Local, and allowed on no communicator: errors go to MPI_COMM_WORLD's handler. */
RM_ALIAS(Dims_create)
int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    MPI_BEGIN("MPI_Dims_create");
    if (ndims == 0)
        goto fn_exit; /* as MPICH, whatever nnodes is */
    if (ndims < 0)
        MPI_FAIL(NULL, MPI_ERR_DIMS, "ndims %d is negative", ndims);
    if (nnodes <= 0)
        MPI_FAIL(NULL, MPI_ERR_DIMS, "nnodes %d is not positive", nnodes);
    CHECK_ARG(NULL, ndims == 0 || dims, "dims is NULL");
    for (int i = 0; i < ndims; i++)
        if (dims[i] < 0)
            MPI_FAIL(NULL, MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    rm_status_t st = topo_dims_create(nnodes, ndims, dims);
    if (st == RM_ERR_INVALID)
        MPI_FAIL(NULL, MPI_ERR_DIMS, "the given dimensions do not divide %d", nnodes);
    MPI_CHECK_STATUS(NULL, st);
    MPI_END();
}
