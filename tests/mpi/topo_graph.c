/* ranks: 1 2 3 4 */
/* Graph and distributed graph topologies: the stored graph read back,
 * neighbours that really talk, weights (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY),
 * MPI_Dist_graph_create's edges delivered to both ends, topology through
 * MPI_Comm_dup, and the error classes. */
#include "check.h"

#include <stdlib.h>

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s gave class %d, expected %d", what, cls, want);
}

/* a ring over n nodes: node i's neighbours are i+1 and i-1 (once if equal) */
static int ring(int n, int *index, int *edges)
{
    int e = 0;
    for (int i = 0; i < n; i++) {
        if (n > 1)
            edges[e++] = (i + 1) % n;
        if (n > 2)
            edges[e++] = (i - 1 + n) % n;
        index[i] = e;
    }
    return e;
}

static void test_graph(void)
{
    int index[16], edges[32], ne = ring(size, index, edges);
    MPI_Comm g;
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &g) == MPI_SUCCESS, "Graph_create");
    int t, nn, nedges, me;
    MPI_Comm_rank(g, &me);
    MPI_Topo_test(g, &t);
    CHECK(t == MPI_GRAPH, "Topo_test %d", t);
    MPI_Graphdims_get(g, &nn, &nedges);
    CHECK(nn == size && nedges == ne, "Graphdims_get %d %d", nn, nedges);
    int gi[16], ge[32];
    MPI_Graph_get(g, 16, 32, gi, ge);
    for (int i = 0; i < size; i++)
        CHECK(gi[i] == index[i], "index[%d] = %d", i, gi[i]);
    for (int i = 0; i < ne; i++)
        CHECK(ge[i] == edges[i], "edges[%d] = %d", i, ge[i]);
    int cnt, nb[4];
    MPI_Graph_neighbors_count(g, me, &cnt);
    CHECK(cnt == index[me] - (me ? index[me - 1] : 0), "neighbour count %d", cnt);
    MPI_Graph_neighbors(g, me, 4, nb);
    /* every neighbour answers with its rank */
    MPI_Request rq[8];
    int got[4];
    for (int i = 0; i < cnt; i++) {
        MPI_Irecv(&got[i], 1, MPI_INT, nb[i], 3, g, &rq[i]);
        MPI_Isend(&me, 1, MPI_INT, nb[i], 3, g, &rq[cnt + i]);
    }
    MPI_Waitall(2 * cnt, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < cnt; i++)
        CHECK(got[i] == nb[i], "neighbour %d sent %d", nb[i], got[i]);
    int mapped;
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &mapped);
    CHECK(mapped == rank, "Graph_map %d", mapped);
    MPI_Comm dup;
    MPI_Comm_dup(g, &dup);
    MPI_Graphdims_get(dup, &nn, &nedges);
    CHECK(nn == size && nedges == ne, "dup's graph %d %d", nn, nedges);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&g);

    /* fewer nodes than processes: the others are left out; none: no comm */
    int one_index[1] = {0};
    MPI_Graph_create(MPI_COMM_WORLD, 1, one_index, edges, 0, &g);
    CHECK((g != MPI_COMM_NULL) == (rank == 0), "one-node graph membership");
    if (g != MPI_COMM_NULL)
        MPI_Comm_free(&g);
    MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g);
    CHECK(g == MPI_COMM_NULL, "empty graph gives MPI_COMM_NULL");
    MPI_Graph_map(MPI_COMM_WORLD, 1, one_index, edges, &mapped);
    CHECK(mapped == (rank == 0 ? 0 : MPI_UNDEFINED), "Graph_map of one node: %d", mapped);
}

static void test_adjacent(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int sw[1] = {10 + left}, dw[1] = {10 + rank};
    MPI_Comm dg;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hint", "none");
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, sw, 1, &right, dw, info, 1, &dg) ==
              MPI_SUCCESS, "Dist_graph_create_adjacent");
    MPI_Info_free(&info);
    int t, in, out, w, s[2], sws[2], d[2], dws[2];
    MPI_Topo_test(dg, &t);
    CHECK(t == MPI_DIST_GRAPH, "Topo_test %d", t);
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &w);
    CHECK(in == 1 && out == 1 && w == 1, "counts %d %d weighted %d", in, out, w);
    MPI_Dist_graph_neighbors(dg, 2, s, sws, 2, d, dws);
    CHECK(s[0] == left && sws[0] == 10 + left && d[0] == right && dws[0] == 10 + rank,
          "neighbours %d/%d %d/%d", s[0], sws[0], d[0], dws[0]);
    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, d[0], 4, &got, 1, MPI_INT, s[0], 4, dg, MPI_STATUS_IGNORE);
    CHECK(got == left, "got %d from the source", got);
    MPI_Comm dup;
    MPI_Comm_dup(dg, &dup);
    MPI_Dist_graph_neighbors_count(dup, &in, &out, &w);
    CHECK(in == 1 && out == 1 && w == 1, "dup's counts %d %d %d", in, out, w);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&dg);

    /* unweighted: the weighted flag is false and weight arrays are left alone */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &w);
    CHECK(in == 1 && out == 1 && w == 0, "unweighted counts %d %d %d", in, out, w);
    sws[0] = dws[0] = -7;
    MPI_Dist_graph_neighbors(dg, 1, s, sws, 1, d, dws);
    CHECK(s[0] == left && d[0] == right && sws[0] == -7 && dws[0] == -7, "unweighted neighbours");
    MPI_Comm_free(&dg);

    /* no edges, weighted by MPI_WEIGHTS_EMPTY */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                   MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &w);
    CHECK(in == 0 && out == 0 && w == 1, "empty weighted counts %d %d %d", in, out, w);
    MPI_Comm_free(&dg);
}

static void test_dist_create(void)
{
    /* rank 0 names every edge i -> i+1 with weight 100 + i */
    int n = rank == 0 ? size : 0;
    int *src = malloc(sizeof(int) * (size_t)size), *deg = malloc(sizeof(int) * (size_t)size);
    int *dst = malloc(sizeof(int) * (size_t)size), *w = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) {
        src[i] = i;
        deg[i] = 1;
        dst[i] = (i + 1) % size;
        w[i] = 100 + i;
    }
    MPI_Comm dg;
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, src, deg, dst, w, MPI_INFO_NULL, 0, &dg) ==
              MPI_SUCCESS, "Dist_graph_create");
    int in, out, weighted, s[4], sw[4], d[4], dw[4];
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
    CHECK(in == 1 && out == 1 && weighted, "counts %d %d %d", in, out, weighted);
    MPI_Dist_graph_neighbors(dg, 4, s, sw, 4, d, dw);
    CHECK(s[0] == left && sw[0] == 100 + left, "source %d weight %d", s[0], sw[0]);
    CHECK(d[0] == right && dw[0] == 100 + rank, "destination %d weight %d", d[0], dw[0]);
    MPI_Comm_free(&dg);

    /* each rank names its own two out-edges, unweighted */
    int mine[2] = {right, left}, two[1] = {2};
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, two, mine, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &dg);
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
    CHECK(in == 2 && out == 2 && !weighted, "own edges: counts %d %d %d", in, out, weighted);
    MPI_Dist_graph_neighbors(dg, 4, s, MPI_UNWEIGHTED, 4, d, MPI_UNWEIGHTED);
    CHECK(d[0] == right && d[1] == left, "own edges: destinations %d %d", d[0], d[1]);
    CHECK((s[0] == left && s[1] == right) || (s[0] == right && s[1] == left),
          "own edges: sources %d %d", s[0], s[1]);
    MPI_Comm_free(&dg);
    free(src);
    free(deg);
    free(dst);
    free(w);
}

static void test_errors(void)
{
    MPI_Comm c;
    int index[4] = {1, 2, 3, 4}, edges[4] = {0, 0, 0, 0}, r, w1[1] = {1}, neg[1] = {-1};
    int zero[1] = {0}, bad[1] = {size};
    expect(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &c), MPI_ERR_ARG, "more nodes than processes");
    expect(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG, "nnodes -1");
    edges[0] = 1;
    expect(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &c), MPI_ERR_ARG, "edge to node 1 of 1");
    int dec[2] = {1, 0};
    if (size >= 2)
        expect(MPI_Graph_create(MPI_COMM_WORLD, 2, dec, edges, 0, &c), MPI_ERR_ARG, "decreasing index");
    expect(MPI_Graph_create(MPI_COMM_NULL, 1, index, edges, 0, &c), MPI_ERR_COMM, "Graph_create on COMM_NULL");
    expect(MPI_Graphdims_get(MPI_COMM_WORLD, &r, &r), MPI_ERR_TOPOLOGY, "Graphdims_get on a plain comm");
    expect(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &r), MPI_ERR_TOPOLOGY, "neighbours of a plain comm");
    expect(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &r, &r, &r), MPI_ERR_TOPOLOGY,
           "dist neighbours of a plain comm");
    expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad, w1, 0, NULL, MPI_WEIGHTS_EMPTY,
                                          MPI_INFO_NULL, 0, &c), MPI_ERR_RANK, "source outside the comm");
    expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, zero, w1, 0, NULL, w1, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "negative indegree");
    expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, neg, 0, NULL, w1, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "negative weight");
    expect(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, zero, MPI_WEIGHTS_EMPTY, 0, NULL, w1,
                                          MPI_INFO_NULL, 0, &c), MPI_ERR_ARG, "MPI_WEIGHTS_EMPTY for one edge");
    int one[1] = {1};
    expect(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, zero, one, bad, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_RANK, "destination outside the comm");
    expect(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, zero, one, zero, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
           MPI_ERR_ARG, "n -1");

    /* a graph comm is not Cartesian, nor a distributed graph, and v.v. */
    int ri[1] = {0};
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, 1, ri, edges, 0, &g);
    if (g != MPI_COMM_NULL) {
        int nb[1], gi[1], ge[1];
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        expect(MPI_Cartdim_get(g, &r), MPI_ERR_TOPOLOGY, "Cartdim_get on a graph");
        expect(MPI_Dist_graph_neighbors_count(g, &r, &r, &r), MPI_ERR_TOPOLOGY, "dist counts on a graph");
        expect(MPI_Graph_neighbors_count(g, 1, &r), MPI_ERR_RANK, "neighbours of node 1 of 1");
        expect(MPI_Graph_neighbors(g, -1, 1, nb), MPI_ERR_RANK, "neighbours of node -1");
        expect(MPI_Graph_get(g, 0, 0, gi, ge), MPI_ERR_ARG, "Graph_get with no room");
        MPI_Comm_free(&g);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    test_graph();
    test_adjacent();
    test_dist_create();
    test_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK topo_graph %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
