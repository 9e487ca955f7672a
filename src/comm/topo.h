/* Process topologies (MPI-3.1 chapter 7): the shape a communicator carries,
 * its rank <-> coordinate arithmetic, and the placement of grid ranks on
 * hosts. Arguments are checked by src/mpi/topo_api.c. */
#ifndef RM_COMM_TOPO_H
#define RM_COMM_TOPO_H

#include "mpi.h"
#include "util/status.h"

typedef struct topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART */
    int ndims;
    int *dims, *periods;
    /* MPI_GRAPH: index[] and edges[] as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this process's own edges, ranks in the new communicator */
    int indegree, outdegree, weighted;
    int *sources, *sourceweights, *destinations, *destweights;
} topo_t;

topo_t *topo_cart_new(int ndims, const int *dims, const int *periods);
topo_t *topo_graph_new(int nnodes, const int *index, const int *edges);
/* weights may be NULL (unweighted: `weighted` = 0) */
topo_t *topo_dist_new(int indegree, const int *sources, const int *sourceweights, int outdegree,
                      const int *destinations, const int *destweights, int weighted);
topo_t *topo_dup(const topo_t *t); /* NULL in, NULL out */
void topo_free(topo_t *t);

/* Cartesian arithmetic (row-major, the last dimension varies fastest). */
void topo_cart_coords(const topo_t *t, int rank, int *coords);
/* MPI_PROC_NULL when a coordinate of a non-periodic dimension is outside. */
int topo_cart_rank(const topo_t *t, const int *coords);
void topo_cart_shift(const topo_t *t, int rank, int dir, int disp, int *src, int *dst);

/* Balanced factorisation of nnodes over the dimensions left 0 in dims
 * (the results MPICH and Open MPI give). RM_ERR_INVALID when the fixed
 * dimensions do not divide nnodes. */
rm_status_t topo_dims_create(int nnodes, int ndims, int *dims);

/* Placement for a reordered grid: host_of[i] is the host of the i-th of the
 * n grid processes (in the old order); newrank[i] receives its grid rank.
 * Processes of one host get a compact block of the grid when the hosts hold
 * equal shares that tile it, else consecutive row-major ranks. */
void topo_cart_place(int ndims, const int *dims, int n, const int *host_of, int *newrank);

#endif
