/* Neighbourhoods of the process topologies (MPI-3.1 §7.6): who a process
 * sends to and receives from, in the order the buffers are laid out. The
 * neighbourhood collectives themselves are block exchanges
 * (coll_build_exchange) over these lists, every message in one round. */
#include "coll/build.h"
#include "comm/topo.h"

#include <stdlib.h>

void coll_nbrs_free(coll_nbrs_t *nb)
{
    free(nb->in);
    nb->in = nb->out = nb->insub = nb->outsub = NULL;
}

rm_status_t coll_nbrs_get(const comm_t *c, coll_nbrs_t *nb)
{
    const topo_t *t = c->topo;
    *nb = (coll_nbrs_t){0};
    if (!t)
        return RM_ERR_INVALID;
    int me = c->rank;
    const int *in = NULL, *out = NULL;
    switch (t->kind) {
    case MPI_CART:
        nb->nin = nb->nout = 2 * t->ndims;
        break;
    case MPI_GRAPH: {
        int lo = me ? t->index[me - 1] : 0;
        nb->nin = nb->nout = t->index[me] - lo;
        in = out = t->edges + lo;
        break;
    }
    case MPI_DIST_GRAPH:
        nb->nin = t->indegree;
        nb->nout = t->outdegree;
        in = t->sources;
        out = t->destinations;
        break;
    default:
        return RM_ERR_INVALID;
    }
    int *a = calloc((size_t)(2 * (nb->nin + nb->nout)) + 1, sizeof(int));
    if (!a)
        return RM_ERR_NOMEM;
    nb->in = a;
    nb->out = a + nb->nin;
    nb->insub = nb->out + nb->nout;
    nb->outsub = nb->insub + nb->nin;
    if (t->kind != MPI_CART) {
        for (int i = 0; i < nb->nin; i++)
            nb->in[i] = in[i];
        for (int i = 0; i < nb->nout; i++)
            nb->out[i] = out[i];
        return RM_OK;
    }
    /* per dimension the negative, then the positive neighbour. A message
     * carries the direction it travels as its sub-tag, so with a periodic
     * dimension of size 1 or 2 (the same rank on both sides) what goes out
     * towards + lands in the receiver's - slot, as the standard's layout
     * asks. */
    for (int d = 0; d < t->ndims; d++) {
        int src, dst;
        topo_cart_shift(t, me, d, 1, &src, &dst);
        nb->in[2 * d] = nb->out[2 * d] = src;
        nb->in[2 * d + 1] = nb->out[2 * d + 1] = dst;
        nb->outsub[2 * d] = 2 * d;         /* sent towards - */
        nb->outsub[2 * d + 1] = 2 * d + 1; /* sent towards + */
        nb->insub[2 * d] = 2 * d + 1;      /* from the - side, it travelled + */
        nb->insub[2 * d + 1] = 2 * d;
    }
    return RM_OK;
}
