/* Process topologies: the shape kept with a communicator, Cartesian
 * arithmetic, MPI_Dims_create's factorisation and host-aware placement of
 * a reordered grid. */
#include "comm/topo.h"

#include <stdlib.h>
#include <string.h>

static int *topo_copy_ints(const int *src, int n)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (p && n > 0 && src)
        memcpy(p, src, sizeof(int) * (size_t)n);
    return p;
}

void topo_free(topo_t *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sourceweights);
    free(t->destinations);
    free(t->destweights);
    free(t);
}

topo_t *topo_cart_new(int ndims, const int *dims, const int *periods)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = topo_copy_ints(dims, ndims);
    t->periods = topo_copy_ints(NULL, ndims);
    if (!t->dims || !t->periods) {
        topo_free(t);
        return NULL;
    }
    /* any non-zero value is "true"; store 0/1 so MPI_Cart_get answers cleanly */
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods && periods[i] != 0;
    return t;
}

topo_t *topo_graph_new(int nnodes, const int *index, const int *edges)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    t->index = topo_copy_ints(index, nnodes);
    t->edges = topo_copy_ints(edges, t->nedges);
    if (!t->index || !t->edges) {
        topo_free(t);
        return NULL;
    }
    return t;
}

topo_t *topo_dist_new(int indegree, const int *sources, const int *sourceweights, int outdegree,
                      const int *destinations, const int *destweights, int weighted)
{
    topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted;
    t->sources = topo_copy_ints(sources, indegree);
    t->destinations = topo_copy_ints(destinations, outdegree);
    t->sourceweights = topo_copy_ints(weighted ? sourceweights : NULL, indegree);
    t->destweights = topo_copy_ints(weighted ? destweights : NULL, outdegree);
    if (!t->sources || !t->destinations || !t->sourceweights || !t->destweights) {
        topo_free(t);
        return NULL;
    }
    if (!weighted) {
        /* weights read back from an unweighted graph are all 1 */
        for (int i = 0; i < indegree; i++)
            t->sourceweights[i] = 1;
        for (int i = 0; i < outdegree; i++)
            t->destweights[i] = 1;
    }
    return t;
}

topo_t *topo_dup(const topo_t *t)
{
    if (!t)
        return NULL;
    switch (t->kind) {
    case MPI_CART:
        return topo_cart_new(t->ndims, t->dims, t->periods);
    case MPI_GRAPH:
        return topo_graph_new(t->nnodes, t->index, t->edges);
    default:
        return topo_dist_new(t->indegree, t->sources, t->sourceweights, t->outdegree,
                             t->destinations, t->destweights, t->weighted);
    }
}

/* ---- Cartesian arithmetic ---------------------------------------------- */

static void topo_rowmajor_coords(int ndims, const int *dims, int rank, int *coords)
{
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = dims[i] > 0 ? rank % dims[i] : 0;
        rank = dims[i] > 0 ? rank / dims[i] : 0;
    }
}

static int topo_rowmajor_rank(int ndims, const int *dims, const int *coords)
{
    int r = 0;
    for (int i = 0; i < ndims; i++)
        r = r * dims[i] + coords[i];
    return r;
}

void topo_cart_coords(const topo_t *t, int rank, int *coords)
{
    topo_rowmajor_coords(t->ndims, t->dims, rank, coords);
}

int topo_cart_rank(const topo_t *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i]) {
            c %= d;
            if (c < 0)
                c += d;
        } else if (c < 0 || c >= d) {
            return MPI_PROC_NULL;
        }
        r = r * d + c;
    }
    return r;
}

void topo_cart_shift(const topo_t *t, int rank, int dir, int disp, int *src, int *dst)
{
    int stack[16];
    int *c = t->ndims <= 16 ? stack : malloc(sizeof(int) * (size_t)t->ndims);
    if (!c) {
        *src = *dst = MPI_PROC_NULL;
        return;
    }
    topo_cart_coords(t, rank, c);
    int mine = c[dir];
    /* widen before adding so a huge displacement cannot overflow */
    long long up = (long long)mine + disp, down = (long long)mine - disp, d = t->dims[dir];
    if (t->periods[dir]) {
        up = ((up % d) + d) % d;
        down = ((down % d) + d) % d;
    }
    c[dir] = (int)up;
    *dst = up < 0 || up >= d ? MPI_PROC_NULL : topo_cart_rank(t, c);
    c[dir] = (int)down;
    *src = down < 0 || down >= d ? MPI_PROC_NULL : topo_cart_rank(t, c);
    if (c != stack)
        free(c);
}

/* ---- MPI_Dims_create ----------------------------------------------------- */

typedef struct dims_search {
    const int *divs; /* divisors of the product, increasing */
    int ndivs, k;
    int *cur, *best;
    int best_diff;
} dims_search_t;

/* s->cur (non-increasing) is better than s->best at equal spread: larger
 * smallest dimension, then larger next smallest, and so on. */
static int dims_better(const dims_search_t *s)
{
    for (int i = s->k - 1; i >= 0; i--)
        if (s->cur[i] != s->best[i])
            return s->cur[i] > s->best[i];
    return 0;
}

/* Non-increasing factorisations of rem into the positions at..k-1, each
 * factor at most cur[at-1]; one replaces the best when its spread (largest -
 * smallest) is less, or equal and dims_better says so. */
static void dims_visit(dims_search_t *s, int at, int rem)
{
    if (at == s->k) {
        int diff = s->cur[0] - s->cur[s->k - 1];
        if (rem == 1 && (diff < s->best_diff || (diff == s->best_diff && dims_better(s)))) {
            s->best_diff = diff;
            memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
        }
        return;
    }
    int left = s->k - at;
    for (int i = 0; i < s->ndivs; i++) {
        int f = s->divs[i];
        if ((at && f > s->cur[at - 1]) || f > rem)
            break;
        if (rem % f || (at && s->cur[0] - f > s->best_diff))
            continue;
        /* the remaining factors are at most f each */
        long long cap = 1;
        for (int j = 0; j < left && cap < rem; j++)
            cap *= f;
        if (cap < rem)
            continue;
        s->cur[at] = f;
        dims_visit(s, at + 1, rem / f);
    }
}

rm_status_t topo_dims_create(int nnodes, int ndims, int *dims)
{
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            nfree++;
    }
    if (fixed == 0 || nnodes % fixed != 0)
        return RM_ERR_INVALID;
    int rest = (int)(nnodes / fixed);
    if (nfree == 0)
        return rest == 1 ? RM_OK : RM_ERR_INVALID;
    /* MPICH's answer (checked against MPICH 4.0 for every product up to
     * 20000 in 2 to 6 dimensions, docs/topology.md): of the factorisations
     * with the least spread between the largest and smallest dimension, the
     * one whose smallest dimension is largest, then the next smallest, and
     * so on (5040 in 3-D: 21x16x15, not 20x18x14). The greedy split (prime
     * factors, largest first, each to the smallest dimension so far; Open
     * MPI's answer) starts the search as the best so far. */
    int *prod = malloc(sizeof(int) * 2 * (size_t)nfree);
    int ndivs = 0, cap = 64, *divs = malloc(sizeof(int) * (size_t)cap);
    int primes[32], np = 0; /* 2^31 has at most 31 prime factors */
    if (!prod || !divs) {
        free(prod);
        free(divs);
        return RM_ERR_NOMEM;
    }
    for (int i = 0; i < nfree; i++)
        prod[i] = 1;
    for (int p = 2, r = rest; r > 1;) {
        if ((long long)p * p > r) {
            primes[np++] = r;
            break;
        }
        if (r % p == 0) {
            primes[np++] = p;
            r /= p;
        } else {
            p += p == 2 ? 1 : 2;
        }
    }
    for (int k = np - 1; k >= 0; k--) { /* found in increasing order */
        int best = 0;
        for (int i = 1; i < nfree; i++)
            if (prod[i] < prod[best])
                best = i;
        prod[best] *= primes[k];
    }
    for (int i = 1; i < nfree; i++) { /* insertion sort, decreasing */
        int v = prod[i], j = i - 1;
        while (j >= 0 && prod[j] < v) {
            prod[j + 1] = prod[j];
            j--;
        }
        prod[j + 1] = v;
    }
    /* divisors of rest in increasing order: the small ones, then their cofactors */
    int nsmall = 0;
    for (long long d = 1; d * d <= rest; d++) {
        if (rest % d)
            continue;
        if (2 * (ndivs + 1) > cap) {
            int *nd = realloc(divs, sizeof(int) * (size_t)(cap *= 2));
            if (!nd) {
                free(prod);
                free(divs);
                return RM_ERR_NOMEM;
            }
            divs = nd;
        }
        divs[ndivs++] = (int)d;
        nsmall++;
    }
    for (int i = nsmall - 1; i >= 0; i--)
        if ((long long)divs[i] * divs[i] != rest)
            divs[ndivs++] = rest / divs[i];
    dims_search_t s = {.divs = divs, .ndivs = ndivs, .k = nfree, .cur = prod + nfree,
                       .best = prod, .best_diff = prod[0] - prod[nfree - 1]};
    if (s.best_diff > 0)
        dims_visit(&s, 0, rest);
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] <= 0)
            dims[i] = prod[k++];
    free(prod);
    free(divs);
    return RM_OK;
}

/* ---- placement of a reordered grid -------------------------------------- */

/* Grid edges cut when blocks of shape b tile the grid: along dimension i
 * there are dims[i] / b[i] - 1 cutting planes of n / dims[i] edges each. */
static long long topo_block_cost(int ndims, const int *dims, const int *b)
{
    long long n = 1, cost = 0;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    for (int i = 0; i < ndims; i++)
        cost += (long long)(dims[i] / b[i] - 1) * (n / dims[i]);
    return cost;
}

/* Search the block shapes b (b[i] divides dims[i], product k) for the one
 * that cuts the fewest grid edges; the first found wins a tie. */
static void topo_block_best(int ndims, const int *dims, int i, int k, int *b, int *best,
                            long long *best_cost)
{
    if (i == ndims) {
        if (k != 1)
            return;
        long long c = topo_block_cost(ndims, dims, b);
        if (*best_cost < 0 || c < *best_cost) {
            *best_cost = c;
            memcpy(best, b, sizeof(int) * (size_t)ndims);
        }
        return;
    }
    for (int d = 1; d <= dims[i] && d <= k; d++) {
        if (dims[i] % d || k % d)
            continue;
        b[i] = d;
        topo_block_best(ndims, dims, i + 1, k / d, b, best, best_cost);
    }
}

void topo_cart_place(int ndims, const int *dims, int n, const int *host_of, int *newrank)
{
    /* hosts in order of first appearance; slot[i] = i's index among its host's */
    int *hidx = malloc(sizeof(int) * (size_t)n), *slot = malloc(sizeof(int) * (size_t)n);
    int *first = malloc(sizeof(int) * (size_t)n), *count = calloc((size_t)n, sizeof(int));
    int *b = malloc(sizeof(int) * (size_t)(ndims + 1)), *best = malloc(sizeof(int) * (size_t)(ndims + 1));
    int *c = malloc(sizeof(int) * (size_t)(ndims + 1)), *bc = malloc(sizeof(int) * (size_t)(ndims + 1));
    int nh = 0;
    if (!hidx || !slot || !first || !count || !b || !best || !c || !bc) {
        for (int i = 0; i < n; i++)
            newrank[i] = i;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        int h = -1;
        for (int q = 0; q < nh && h < 0; q++)
            if (host_of[first[q]] == host_of[i])
                h = q;
        if (h < 0) {
            h = nh++;
            first[h] = i;
        }
        hidx[i] = h;
        slot[i] = count[h]++;
    }
    int k = count[0], equal = 1;
    for (int h = 1; h < nh; h++)
        equal &= count[h] == k;
    long long best_cost = -1;
    if (equal && nh > 1 && k > 1)
        topo_block_best(ndims, dims, 0, k, b, best, &best_cost);
    if (best_cost >= 0) {
        /* host h owns block h of the grid of blocks, filled row-major */
        for (int i = 0; i < ndims; i++)
            b[i] = dims[i] / best[i];
        for (int i = 0; i < n; i++) {
            topo_rowmajor_coords(ndims, b, hidx[i], bc);
            topo_rowmajor_coords(ndims, best, slot[i], c);
            for (int d = 0; d < ndims; d++)
                c[d] += bc[d] * best[d];
            newrank[i] = topo_rowmajor_rank(ndims, dims, c);
        }
    } else {
        /* each host's processes on consecutive ranks: neighbours along the
         * last dimension share a host */
        int *base = first; /* reuse: rank where each host's run starts */
        for (int h = 0, at = 0; h < nh; h++) {
            base[h] = at;
            at += count[h];
        }
        for (int i = 0; i < n; i++)
            newrank[i] = base[hidx[i]] + slot[i];
    }
out:
    free(hidx);
    free(slot);
    free(first);
    free(count);
    free(b);
    free(best);
    free(c);
    free(bc);
}
