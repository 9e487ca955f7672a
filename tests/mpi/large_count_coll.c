/* ranks: 1 2 3 4 */
/* The large-count (_c) forms of the collectives, small counts: every one
 * runs blocking, nonblocking and persistent (the neighbourhood ones on a
 * periodic ring), with MPI_Count counts and MPI_Aint displacements, and its
 * result is checked; then the argument checks (negative counts, NULL
 * arrays, invalid types, no topology) answer the standard's error classes. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* One collective in its three forms: f 0 blocking, 1 nonblocking then
 * MPI_Wait, 2 persistent (MPI_Start, MPI_Wait, MPI_Request_free). I and P
 * pass &r_ as their request. */
#define RUN3(f, B, I, P)                                                             \
    do {                                                                             \
        MPI_Request r_ = MPI_REQUEST_NULL;                                           \
        if ((f) == 0) {                                                              \
            CHECK((B) == MPI_SUCCESS, "blocking form failed");                       \
        } else if ((f) == 1) {                                                       \
            CHECK((I) == MPI_SUCCESS, "nonblocking form failed");                    \
            MPI_Wait(&r_, MPI_STATUS_IGNORE);                                        \
        } else {                                                                     \
            CHECK((P) == MPI_SUCCESS, "persistent form failed");                     \
            MPI_Start(&r_);                                                          \
            MPI_Wait(&r_, MPI_STATUS_IGNORE);                                        \
            MPI_Request_free(&r_);                                                   \
        }                                                                            \
    } while (0)

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void rooted(int f)
{
    int n = size, root = size - 1;
    int buf[3], all[256], part[16];
    MPI_Count cnt[16];
    MPI_Aint dsp[16];
    CHECK(n <= 12, "at most 12 ranks (the arrays below)");
    /* bcast */
    for (int i = 0; i < 3; i++)
        buf[i] = rank == root ? 7 + i : -1;
    RUN3(f, MPI_Bcast_c(buf, 3, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Ibcast_c(buf, 3, MPI_INT, root, MPI_COMM_WORLD, &r_),
         MPI_Bcast_init_c(buf, 3, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    for (int i = 0; i < 3; i++)
        CHECK(buf[i] == 7 + i, "bcast form %d [%d] = %d", f, i, buf[i]);
    /* gather: two items from each rank */
    int mine[2] = {rank * 10, rank * 10 + 1};
    memset(all, -1, sizeof all);
    RUN3(f, MPI_Gather_c(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Igather_c(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD, &r_),
         MPI_Gather_init_c(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &r_));
    if (rank == root)
        for (int i = 0; i < 2 * n; i++)
            CHECK(all[i] == (i / 2) * 10 + i % 2, "gather form %d [%d] = %d", f, i, all[i]);
    /* gatherv: rank r sends r + 1 items, placed with a gap of one */
    int vs[16];
    for (int i = 0; i < rank + 1; i++)
        vs[i] = rank * 100 + i;
    MPI_Aint at = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = i + 1;
        dsp[i] = at;
        at += i + 2;
    }
    memset(all, -1, sizeof all);
    RUN3(f, MPI_Gatherv_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Igatherv_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &r_),
         MPI_Gatherv_init_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r_));
    if (rank == root)
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < r + 1; i++)
                CHECK(all[dsp[r] + i] == r * 100 + i, "gatherv form %d from %d", f, r);
            CHECK(all[dsp[r] + r + 1] == -1, "gatherv form %d wrote the gap after %d", f, r);
        }
    /* scatter: the root's 2n items, two to each */
    for (int i = 0; i < 2 * n; i++)
        all[i] = rank == root ? 1000 + i : -1;
    part[0] = part[1] = -1;
    RUN3(f, MPI_Scatter_c(all, 2, MPI_INT, part, 2, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Iscatter_c(all, 2, MPI_INT, part, 2, MPI_INT, root, MPI_COMM_WORLD, &r_),
         MPI_Scatter_init_c(all, 2, MPI_INT, part, 2, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &r_));
    CHECK(part[0] == 1000 + 2 * rank && part[1] == 1001 + 2 * rank, "scatter form %d: %d %d", f,
          part[0], part[1]);
    /* scatterv: r + 1 items to rank r, from the gapped layout */
    for (int r = 0; r < n; r++)
        for (int i = 0; i < r + 1; i++)
            all[dsp[r] + i] = rank == root ? 2000 + r * 10 + i : -1;
    memset(part, -1, sizeof part);
    RUN3(f, MPI_Scatterv_c(all, cnt, dsp, MPI_INT, part, rank + 1, MPI_INT, root, MPI_COMM_WORLD),
         MPI_Iscatterv_c(all, cnt, dsp, MPI_INT, part, rank + 1, MPI_INT, root, MPI_COMM_WORLD, &r_),
         MPI_Scatterv_init_c(all, cnt, dsp, MPI_INT, part, rank + 1, MPI_INT, root, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r_));
    for (int i = 0; i < rank + 1; i++)
        CHECK(part[i] == 2000 + rank * 10 + i, "scatterv form %d [%d] = %d", f, i, part[i]);
}

static void everyone(int f)
{
    int n = size;
    int all[256], snd[256], rcv[256];
    MPI_Count cnt[16], scnt[16], rcnt[16];
    MPI_Aint dsp[16], sdsp[16], rdsp[16];
    int mine[2] = {rank * 10, rank * 10 + 1};
    memset(all, -1, sizeof all);
    RUN3(f, MPI_Allgather_c(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgather_c(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, &r_),
         MPI_Allgather_init_c(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    for (int i = 0; i < 2 * n; i++)
        CHECK(all[i] == (i / 2) * 10 + i % 2, "allgather form %d [%d] = %d", f, i, all[i]);
    /* allgatherv: rank r gives r + 1 items, gapped */
    int vs[16];
    for (int i = 0; i < rank + 1; i++)
        vs[i] = rank * 100 + i;
    MPI_Aint at = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = i + 1;
        dsp[i] = at;
        at += i + 2;
    }
    memset(all, -1, sizeof all);
    RUN3(f, MPI_Allgatherv_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
         MPI_Iallgatherv_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r_),
         MPI_Allgatherv_init_c(vs, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &r_));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < r + 1; i++)
            CHECK(all[dsp[r] + i] == r * 100 + i, "allgatherv form %d from %d", f, r);
    /* alltoall: block j (two items) to rank j */
    for (int j = 0; j < n; j++)
        for (int t = 0; t < 2; t++)
            snd[2 * j + t] = rank * 100 + j * 10 + t;
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Alltoall_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, MPI_COMM_WORLD),
         MPI_Ialltoall_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, MPI_COMM_WORLD, &r_),
         MPI_Alltoall_init_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    for (int j = 0; j < n; j++)
        for (int t = 0; t < 2; t++)
            CHECK(rcv[2 * j + t] == j * 100 + rank * 10 + t, "alltoall form %d", f);
    /* alltoallv: j + 1 items to rank j, so rank + 1 from each */
    MPI_Aint sa = 0, ra = 0;
    for (int j = 0; j < n; j++) {
        scnt[j] = j + 1;
        sdsp[j] = sa;
        rcnt[j] = rank + 1;
        rdsp[j] = ra;
        for (int t = 0; t < j + 1; t++)
            snd[sa + t] = rank * 100 + j * 10 + t;
        sa += j + 1;
        ra += rank + 2;
    }
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Alltoallv_c(snd, scnt, sdsp, MPI_INT, rcv, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD),
         MPI_Ialltoallv_c(snd, scnt, sdsp, MPI_INT, rcv, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD, &r_),
         MPI_Alltoallv_init_c(snd, scnt, sdsp, MPI_INT, rcv, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &r_));
    for (int j = 0; j < n; j++) {
        for (int t = 0; t < rank + 1; t++)
            CHECK(rcv[rdsp[j] + t] == j * 100 + rank * 10 + t, "alltoallv form %d from %d", f, j);
        CHECK(rcv[rdsp[j] + rank + 1] == -1, "alltoallv form %d wrote a gap", f);
    }
    /* alltoallw: the same in bytes, one type per block */
    MPI_Datatype ty[16];
    MPI_Aint sb[16], rb[16];
    for (int j = 0; j < n; j++) {
        ty[j] = MPI_INT;
        sb[j] = sdsp[j] * (MPI_Aint)sizeof(int);
        rb[j] = rdsp[j] * (MPI_Aint)sizeof(int);
    }
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Alltoallw_c(snd, scnt, sb, ty, rcv, rcnt, rb, ty, MPI_COMM_WORLD),
         MPI_Ialltoallw_c(snd, scnt, sb, ty, rcv, rcnt, rb, ty, MPI_COMM_WORLD, &r_),
         MPI_Alltoallw_init_c(snd, scnt, sb, ty, rcv, rcnt, rb, ty, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &r_));
    for (int j = 0; j < n; j++)
        for (int t = 0; t < rank + 1; t++)
            CHECK(rcv[rdsp[j] + t] == j * 100 + rank * 10 + t, "alltoallw form %d from %d", f, j);
}

static void reductions(int f)
{
    int n = size, root = 0;
    long in[256], out[256];
    for (int i = 0; i < 256; i++)
        in[i] = rank + i;
    long tri = (long)n * (n - 1) / 2;
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Reduce_c(in, out, 3, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD),
         MPI_Ireduce_c(in, out, 3, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, &r_),
         MPI_Reduce_init_c(in, out, 3, MPI_LONG, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    if (rank == root)
        for (int i = 0; i < 3; i++)
            CHECK(out[i] == tri + (long)n * i, "reduce form %d [%d] = %ld", f, i, out[i]);
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Allreduce_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iallreduce_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r_),
         MPI_Allreduce_init_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    for (int i = 0; i < 3; i++)
        CHECK(out[i] == tri + (long)n * i, "allreduce form %d [%d] = %ld", f, i, out[i]);
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Scan_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iscan_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r_),
         MPI_Scan_init_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    for (int i = 0; i < 3; i++)
        CHECK(out[i] == (long)rank * (rank + 1) / 2 + (long)(rank + 1) * i, "scan form %d", f);
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Exscan_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
         MPI_Iexscan_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r_),
         MPI_Exscan_init_c(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r_));
    if (rank > 0)
        for (int i = 0; i < 3; i++)
            CHECK(out[i] == (long)(rank - 1) * rank / 2 + (long)rank * i, "exscan form %d", f);
    /* reduce_scatter_block: block b (two items) to rank b */
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Reduce_scatter_block_c(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter_block_c(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r_),
         MPI_Reduce_scatter_block_init_c(in, out, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &r_));
    for (int t = 0; t < 2; t++)
        CHECK(out[t] == tri + (long)n * (2 * rank + t), "reduce_scatter_block form %d", f);
    /* reduce_scatter: i + 1 items to rank i */
    MPI_Count cnt[16];
    long off = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = i + 1;
        if (i < rank)
            off += i + 1;
    }
    memset(out, -1, sizeof out);
    RUN3(f, MPI_Reduce_scatter_c(in, out, cnt, MPI_LONG, MPI_SUM, MPI_COMM_WORLD),
         MPI_Ireduce_scatter_c(in, out, cnt, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r_),
         MPI_Reduce_scatter_init_c(in, out, cnt, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   &r_));
    for (int t = 0; t < rank + 1; t++)
        CHECK(out[t] == tri + (long)n * (off + t), "reduce_scatter form %d [%d] = %ld", f, t,
              out[t]);
}

/* On a periodic ring: block 0 is the left neighbour's, block 1 the right's. */
static void neighbours(MPI_Comm ring, int f)
{
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int rcv[16], snd[16];
    int mine[2] = {rank * 10, rank * 10 + 1};
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Neighbor_allgather_c(mine, 2, MPI_INT, rcv, 2, MPI_INT, ring),
         MPI_Ineighbor_allgather_c(mine, 2, MPI_INT, rcv, 2, MPI_INT, ring, &r_),
         MPI_Neighbor_allgather_init_c(mine, 2, MPI_INT, rcv, 2, MPI_INT, ring, MPI_INFO_NULL, &r_));
    CHECK(rcv[0] == left * 10 && rcv[1] == left * 10 + 1 && rcv[2] == right * 10 &&
              rcv[3] == right * 10 + 1, "neighbor_allgather form %d", f);
    MPI_Count cnt[2] = {2, 2};
    MPI_Aint dsp[2] = {0, 3};
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Neighbor_allgatherv_c(mine, 2, MPI_INT, rcv, cnt, dsp, MPI_INT, ring),
         MPI_Ineighbor_allgatherv_c(mine, 2, MPI_INT, rcv, cnt, dsp, MPI_INT, ring, &r_),
         MPI_Neighbor_allgatherv_init_c(mine, 2, MPI_INT, rcv, cnt, dsp, MPI_INT, ring,
                                        MPI_INFO_NULL, &r_));
    CHECK(rcv[0] == left * 10 && rcv[1] == left * 10 + 1 && rcv[2] == -1 &&
              rcv[3] == right * 10 && rcv[4] == right * 10 + 1, "neighbor_allgatherv form %d", f);
    /* alltoall: block 0 goes left, block 1 right */
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 2; t++)
            snd[2 * b + t] = rank * 100 + b * 10 + t;
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Neighbor_alltoall_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, ring),
         MPI_Ineighbor_alltoall_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, ring, &r_),
         MPI_Neighbor_alltoall_init_c(snd, 2, MPI_INT, rcv, 2, MPI_INT, ring, MPI_INFO_NULL, &r_));
    for (int t = 0; t < 2; t++)
        CHECK(rcv[t] == left * 100 + 10 + t && rcv[2 + t] == right * 100 + t,
              "neighbor_alltoall form %d", f);
    /* the v and w forms, from and into gapped layouts */
    int gs[8];
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < 2; t++)
            gs[3 * b + t] = rank * 100 + b * 10 + t;
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Neighbor_alltoallv_c(gs, cnt, dsp, MPI_INT, rcv, cnt, dsp, MPI_INT, ring),
         MPI_Ineighbor_alltoallv_c(gs, cnt, dsp, MPI_INT, rcv, cnt, dsp, MPI_INT, ring, &r_),
         MPI_Neighbor_alltoallv_init_c(gs, cnt, dsp, MPI_INT, rcv, cnt, dsp, MPI_INT, ring,
                                       MPI_INFO_NULL, &r_));
    for (int t = 0; t < 2; t++)
        CHECK(rcv[t] == left * 100 + 10 + t && rcv[3 + t] == right * 100 + t,
              "neighbor_alltoallv form %d", f);
    MPI_Aint bd[2] = {0, 3 * (MPI_Aint)sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    memset(rcv, -1, sizeof rcv);
    RUN3(f, MPI_Neighbor_alltoallw_c(gs, cnt, bd, ty, rcv, cnt, bd, ty, ring),
         MPI_Ineighbor_alltoallw_c(gs, cnt, bd, ty, rcv, cnt, bd, ty, ring, &r_),
         MPI_Neighbor_alltoallw_init_c(gs, cnt, bd, ty, rcv, cnt, bd, ty, ring, MPI_INFO_NULL, &r_));
    for (int t = 0; t < 2; t++)
        CHECK(rcv[t] == left * 100 + 10 + t && rcv[3 + t] == right * 100 + t,
              "neighbor_alltoallw form %d", f);
}

static void errors(MPI_Comm ring)
{
    int buf[256];
    MPI_Count cnt[16], neg[16];
    MPI_Aint dsp[16];
    MPI_Datatype ty[16];
    MPI_Request r;
    for (int i = 0; i < 16; i++) {
        cnt[i] = 1;
        neg[i] = i == size - 1 ? -5 : 1;
        dsp[i] = i;
        ty[i] = MPI_INT;
    }
    expect(MPI_Bcast_c(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count -1");
    expect(MPI_Bcast_c(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "bcast MPI_DATATYPE_NULL");
    expect(MPI_Ibcast_c(buf, -2, MPI_INT, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT, "ibcast count");
    expect(MPI_Allreduce_c(buf, buf + 8, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allreduce count");
    expect(MPI_Allreduce_c(buf, buf + 8, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce MPI_OP_NULL");
    expect(MPI_Allgatherv_c(buf, 1, MPI_INT, buf + 8, neg, dsp, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_COUNT, "allgatherv negative recvcounts");
    expect(MPI_Allgatherv_c(buf, 1, MPI_INT, buf + 8, NULL, dsp, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG, "allgatherv NULL recvcounts");
    expect(MPI_Allgatherv_c(buf, 1, MPI_INT, buf + 8, cnt, NULL, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG, "allgatherv NULL displs");
    if (size == 1) /* elsewhere the other ranks' sends would stay unmatched */
        expect(MPI_Gatherv_c(buf, 1, MPI_INT, buf + 8, neg, dsp, MPI_INT, 0, MPI_COMM_WORLD),
               MPI_ERR_COUNT, "gatherv negative recvcounts at the root");
    expect(MPI_Alltoallv_c(buf, neg, dsp, MPI_INT, buf + 8, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_COUNT, "alltoallv negative sendcounts");
    expect(MPI_Alltoallv_init_c(buf, cnt, dsp, MPI_INT, buf + 8, cnt, NULL, MPI_INT,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &r),
           MPI_ERR_ARG, "alltoallv_init NULL rdispls");
    expect(MPI_Alltoallw_c(buf, cnt, NULL, ty, buf + 8, cnt, dsp, ty, MPI_COMM_WORLD), MPI_ERR_ARG,
           "alltoallw NULL sdispls");
    ty[0] = MPI_DATATYPE_NULL;
    expect(MPI_Ialltoallw_c(buf, cnt, dsp, ty, buf + 8, cnt, dsp, ty, MPI_COMM_WORLD, &r),
           MPI_ERR_TYPE, "ialltoallw MPI_DATATYPE_NULL");
    expect(MPI_Reduce_scatter_c(buf, buf + 8, neg, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_ERR_COUNT, "reduce_scatter negative recvcounts");
    expect(MPI_Scatter_c(buf, 1, MPI_INT, buf + 8, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "scatter root out of range");
    expect(MPI_Neighbor_alltoall_c(buf, 1, MPI_INT, buf + 8, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_TOPOLOGY, "neighbor_alltoall without a topology");
    MPI_Count nneg[2] = {1, -5}; /* two neighbours on the ring */
    expect(MPI_Neighbor_alltoallv_c(buf, nneg, dsp, MPI_INT, buf + 8, cnt, dsp, MPI_INT, ring),
           MPI_ERR_COUNT, "neighbor_alltoallv negative sendcounts");
    expect(MPI_Neighbor_allgather_c(buf, -1, MPI_INT, buf + 8, 1, MPI_INT, ring), MPI_ERR_COUNT,
           "neighbor_allgather count -1");
    /* the int forms report the same, with the widened arrays */
    int ineg[16], iones[16];
    for (int i = 0; i < 16; i++) {
        ineg[i] = i == size - 1 ? -5 : 1;
        iones[i] = i;
    }
    expect(MPI_Allgatherv(buf, 1, MPI_INT, buf + 8, ineg, iones, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_COUNT, "int allgatherv negative recvcounts");
    expect(MPI_Alltoallv(buf, iones, NULL, MPI_INT, buf + 8, iones, iones, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_ARG, "int alltoallv NULL sdispls");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    for (int f = 0; f < 3; f++) {
        rooted(f);
        everyone(f);
        reductions(f);
        neighbours(ring, f);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    errors(ring);
    MPI_Comm_free(&ring);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count_coll: OK\n");
    MPI_Finalize();
    return 0;
}
