/* ranks: 1 2 3 4 */
/* Neighbourhood collectives, blocking and nonblocking, on Cartesian (a
 * periodic ring, where with 1 or 2 ranks one process is both neighbours,
 * and a non-periodic grid whose MPI_PROC_NULL neighbours leave the buffer
 * alone), graph and distributed graph communicators; values are checked
 * against the layout of MPI-3.1 §7.6. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

#define SENT -99

static void wait1(MPI_Request *rq)
{
    CHECK(MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS && *rq == MPI_REQUEST_NULL, "wait");
}

static void ring(void)
{
    MPI_Comm ring;
    int dims[1] = {size}, per[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int me = 10 * rank, r[2] = {SENT, SENT};
    MPI_Neighbor_allgather(&me, 1, MPI_INT, r, 1, MPI_INT, ring);
    CHECK(r[0] == 10 * left && r[1] == 10 * right, "ring allgather %d %d", r[0], r[1]);
    /* block 0 goes towards -, block 1 towards +: my - slot holds what my
     * left neighbour sent towards + */
    int s[2] = {100 * rank + 0, 100 * rank + 1};
    for (int nb = 0; nb < 2; nb++) {
        r[0] = r[1] = SENT;
        if (nb) {
            MPI_Request rq;
            MPI_Ineighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, ring, &rq);
            wait1(&rq);
        } else {
            MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT, ring);
        }
        CHECK(r[0] == 100 * left + 1 && r[1] == 100 * right + 0, "ring alltoall (%s) %d %d",
              nb ? "nonblocking" : "blocking", r[0], r[1]);
    }
    MPI_Comm_free(&ring);
}

static void grid(void)
{
    MPI_Comm g;
    int dims[2] = {0, 0}, per[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &g);
    int nbr[4];
    MPI_Cart_shift(g, 0, 1, &nbr[0], &nbr[1]);
    MPI_Cart_shift(g, 1, 1, &nbr[2], &nbr[3]);
    /* alltoallv: 2 items per neighbour, at reversed places */
    int s[8], r[8], r2[8], cnt[4] = {2, 2, 2, 2}, sd[4] = {0, 2, 4, 6}, rd[4] = {6, 4, 2, 0};
    for (int i = 0; i < 8; i++)
        s[i] = 1000 * rank + i;
    for (int i = 0; i < 8; i++)
        r[i] = r2[i] = SENT;
    MPI_Neighbor_alltoallv(s, cnt, sd, MPI_INT, r, cnt, rd, MPI_INT, g);
    MPI_Request rq;
    MPI_Ineighbor_alltoallv(s, cnt, sd, MPI_INT, r2, cnt, rd, MPI_INT, g, &rq);
    wait1(&rq);
    CHECK(!memcmp(r, r2, sizeof r), "grid: ineighbor_alltoallv differs");
    for (int k = 0; k < 4; k++) {
        int *at = r + rd[k];
        if (nbr[k] == MPI_PROC_NULL) {
            CHECK(at[0] == SENT && at[1] == SENT, "grid: slot %d of a missing neighbour written", k);
        } else {
            /* neighbour k sent me its block for the opposite direction */
            int opp = k ^ 1;
            CHECK(at[0] == 1000 * nbr[k] + 2 * opp && at[1] == 1000 * nbr[k] + 2 * opp + 1,
                  "grid: slot %d = %d %d", k, at[0], at[1]);
        }
    }
    /* allgatherv with a gap between blocks */
    int ag[12], dsp[4] = {0, 3, 6, 9}, one[4] = {1, 1, 1, 1};
    for (int i = 0; i < 12; i++)
        ag[i] = SENT;
    MPI_Ineighbor_allgatherv(&s[0], 1, MPI_INT, ag, one, dsp, MPI_INT, g, &rq);
    wait1(&rq);
    for (int k = 0; k < 4; k++)
        CHECK(ag[dsp[k]] == (nbr[k] == MPI_PROC_NULL ? SENT : 1000 * nbr[k]) && ag[dsp[k] + 1] == SENT,
              "grid allgatherv slot %d = %d", k, ag[dsp[k]]);
    MPI_Comm_free(&g);
}

static void graphs(void)
{
    /* graph: everyone is connected to its two ring neighbours (a rank
     * appears twice with 2 ranks, once with 1 as a self-loop) */
    int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
    for (int r = 0; r < size; r++) {
        index[r] = 2 * (r + 1);
        edges[2 * r] = (r + 1) % size;
        edges[2 * r + 1] = (r - 1 + size) % size;
    }
    MPI_Comm gr;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &gr);
    int me = 7 * rank + 1, got[2] = {SENT, SENT};
    MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, gr);
    if (size != 2) /* with two, both slots come from the same rank */
        CHECK(got[0] == 7 * ((rank + 1) % size) + 1 && got[1] == 7 * ((rank - 1 + size) % size) + 1,
              "graph allgather %d %d", got[0], got[1]);
    else
        CHECK(got[0] == 7 * (1 - rank) + 1 && got[1] == got[0], "graph allgather %d %d", got[0], got[1]);
    MPI_Comm_free(&gr);
    free(index);
    free(edges);
    /* distributed graph: I receive from rank+1 and rank+2, send to rank-1
     * and rank-2, with one type per block (alltoallw) */
    if (size < 3)
        return;
    int src[2] = {(rank + 1) % size, (rank + 2) % size};
    int dst[2] = {(rank - 1 + size) % size, (rank - 2 + size) % size};
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &dg);
    double sd[2] = {rank + 0.5, rank + 0.25};
    int si = rank;
    struct {
        double d;
        int i;
        int pad;
    } rv;
    memset(&rv, 0, sizeof rv);
    int sc[2] = {1, 1}, rc[2] = {1, 1};
    MPI_Aint sdsp[2] = {0, (MPI_Aint)((char *)&si - (char *)sd)};
    MPI_Aint rdsp[2] = {0, (MPI_Aint)((char *)&rv.i - (char *)&rv.d)};
    MPI_Datatype st[2] = {MPI_DOUBLE, MPI_INT}, rt[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Request rq;
    MPI_Ineighbor_alltoallw(sd, sc, sdsp, st, &rv.d, rc, rdsp, rt, dg, &rq);
    wait1(&rq);
    /* block 0 to rank-1 (which gets it from its source rank+1, slot 0): a
     * double; block 1 to rank-2 (its slot 1): an int */
    CHECK(rv.d == (rank + 1) % size + 0.5 && rv.i == (rank + 2) % size, "dist graph alltoallw %g %d",
          rv.d, rv.i);
    MPI_Comm_free(&dg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring();
    grid();
    graphs();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int x = 0, y[8], cls;
    int e = MPI_Neighbor_allgather(&x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "no topology: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_neighbor: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
