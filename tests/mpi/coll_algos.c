/* ranks: 1 2 3 4 5 6 7 8 */
/* Every reduction and gathering algorithm, each forced in turn by moving
 * the switch points through MPI_T while the job runs (all ranks alike):
 * allreduce by recursive doubling (with the fold for sizes that are not a
 * power of two), Rabenseifner and ring; reduce binomially and as ring
 * reduce-scatter + gather; reduce_scatter(_block) by recursive halving,
 * pairwise and ring; allgather(v) by Bruck and ring; alltoall by Bruck, all
 * at once and pairwise (in place, and into a strided type), alltoallv/w
 * all at once and pairwise; on communicators spanning hosts the two-level
 * allgather(v), reduce_scatter(_block) and alltoall (small mode) and the
 * flat ones (large mode). Sums of ints and a non-commutative user op (products of
 * 2x2 matrices, whose order shows), in place or not, nonblocking too, with
 * counts from 0 up to not a multiple of the ranks, uneven and empty
 * reduce_scatter and allgatherv blocks; every result checked exactly.
 * And that a barrier waits for the last rank. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static void setting(const char *name, unsigned long long v)
{
    int i, count;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_get_index(name, &i) == MPI_SUCCESS, "no cvar %s", name);
    CHECK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count) == MPI_SUCCESS, "handle %s", name);
    CHECK(MPI_T_cvar_write(h, &v) == MPI_SUCCESS, "write %s", name);
    MPI_T_cvar_handle_free(&h);
}

/* 2x2 matrices of unsigned ints (wrapping), inout = in x inout */
typedef struct { unsigned a, b, c, d; } mat_t;
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        mat_t r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                   x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}
static mat_t mval(int r, int i)
{
    return (mat_t){1u + (unsigned)r, (unsigned)(i + 2 * r + 1), (unsigned)(3 * r + i % 5), 1u};
}
static mat_t mwant(int i, int lo, int hi)
{
    mat_t acc = mval(hi - 1, i);
    for (int r = hi - 2; r >= lo; r--) {
        mat_t x = mval(r, i);
        int one = 1;
        matmul(&x, &acc, &one, NULL);
    }
    return acc;
}
static int ival(int r, int i)
{
    return (r + 1) * (i % 101) - 7 * r + i / 3;
}
static long iwant(int i)
{
    long s = 0;
    for (int r = 0; r < size; r++)
        s += ival(r, i);
    return s;
}
static int meq(mat_t x, mat_t y)
{
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

static MPI_Datatype mat;
static MPI_Op mop;
static const char *mode;

static void allreduce(int count, int inplace, int nb)
{
    int *x = malloc(sizeof(int) * (size_t)count + 4), *y = malloc(sizeof(int) * (size_t)count + 4);
    mat_t *mx = malloc(sizeof(mat_t) * (size_t)count + 4), *my = malloc(sizeof(mat_t) * (size_t)count + 4);
    for (int i = 0; i < count; i++) {
        x[i] = y[i] = ival(rank, i);
        mx[i] = my[i] = mval(rank, i);
    }
    MPI_Request rq[2];
    if (nb) {
        MPI_Iallreduce(inplace ? MPI_IN_PLACE : x, y, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
        MPI_Iallreduce(inplace ? MPI_IN_PLACE : mx, my, count, mat, mop, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
        MPI_Allreduce(inplace ? MPI_IN_PLACE : x, y, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(inplace ? MPI_IN_PLACE : mx, my, count, mat, mop, MPI_COMM_WORLD);
    }
    for (int i = 0; i < count; i++) {
        CHECK(y[i] == iwant(i), "%s allreduce count %d%s%s: [%d] = %d, want %ld", mode, count,
              inplace ? " in place" : "", nb ? " nb" : "", i, y[i], iwant(i));
        CHECK(meq(my[i], mwant(i, 0, size)), "%s allreduce matrices count %d%s%s: [%d] out of order",
              mode, count, inplace ? " in place" : "", nb ? " nb" : "", i);
    }
    free(x), free(y), free(mx), free(my);
}

static void reduce(int count, int root, int inplace)
{
    int *x = malloc(sizeof(int) * (size_t)count + 4), *y = malloc(sizeof(int) * (size_t)count + 4);
    for (int i = 0; i < count; i++)
        x[i] = y[i] = ival(rank, i);
    MPI_Reduce(inplace && rank == root ? MPI_IN_PLACE : x, y, count, MPI_INT, MPI_SUM, root,
               MPI_COMM_WORLD);
    if (rank == root)
        for (int i = 0; i < count; i++)
            CHECK(y[i] == iwant(i), "%s reduce count %d root %d: [%d] = %d, want %ld", mode, count, root,
                  i, y[i], iwant(i));
    free(x), free(y);
}

static void rscatter(int block, int inplace, int nb, int scale)
{
    int *cnt = malloc(sizeof(int) * (size_t)size), total = 0, off = 0;
    for (int r = 0; r < size; r++)
        total += cnt[r] = block ? scale : (r * 5 + scale) % 4 * scale; /* some blocks empty */
    for (int r = 0; r < rank; r++)
        off += cnt[r];
    int *x = malloc(sizeof(int) * (size_t)total + 4), *y = malloc(sizeof(int) * (size_t)total + 4);
    mat_t *mx = malloc(sizeof(mat_t) * (size_t)total + 4), *my = malloc(sizeof(mat_t) * (size_t)total + 4);
    for (int i = 0; i < total; i++) {
        x[i] = y[i] = ival(rank, i);
        mx[i] = my[i] = mval(rank, i);
    }
    MPI_Request rq[2];
    const void *si = inplace ? MPI_IN_PLACE : x, *sm = inplace ? MPI_IN_PLACE : mx;
    if (block && nb) {
        MPI_Ireduce_scatter_block(si, y, scale, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
        MPI_Ireduce_scatter_block(sm, my, scale, mat, mop, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else if (block) {
        MPI_Reduce_scatter_block(si, y, scale, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce_scatter_block(sm, my, scale, mat, mop, MPI_COMM_WORLD);
    } else if (nb) {
        MPI_Ireduce_scatter(si, y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
        MPI_Ireduce_scatter(sm, my, cnt, mat, mop, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    } else {
        MPI_Reduce_scatter(si, y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce_scatter(sm, my, cnt, mat, mop, MPI_COMM_WORLD);
    }
    for (int i = 0; i < cnt[rank]; i++) {
        CHECK(y[i] == iwant(off + i), "%s reduce_scatter%s x%d%s%s: [%d] = %d, want %ld", mode,
              block ? "_block" : "", scale, inplace ? " in place" : "", nb ? " nb" : "", i, y[i],
              iwant(off + i));
        CHECK(meq(my[i], mwant(off + i, 0, size)), "%s reduce_scatter%s x%d matrices: [%d] out of order",
              mode, block ? "_block" : "", scale, i);
    }
    free(cnt), free(x), free(y), free(mx), free(my);
}

static void allgather(int each, int v, int inplace, int nb)
{
    int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size), total = 0;
    for (int r = 0; r < size; r++) {
        cnt[r] = v ? (r * 3 + 1) % 4 * each : each;
        dsp[r] = total + (v ? 2 : 0); /* gaps between blocks when v */
        total = dsp[r] + cnt[r];
    }
    int *x = malloc(sizeof(int) * (size_t)each * 4 + 4), *y = malloc(sizeof(int) * (size_t)total + 4);
    for (int i = 0; i < total; i++)
        y[i] = -1;
    for (int i = 0; i < cnt[rank]; i++) {
        x[i] = ival(rank, i) + 1000 * rank;
        if (inplace) /* else the collective must put it there */
            y[dsp[rank] + i] = x[i];
    }
    const void *s = inplace ? MPI_IN_PLACE : x;
    MPI_Request rq;
    if (v && nb)
        MPI_Iallgatherv(s, cnt[rank], MPI_INT, y, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq);
    else if (v)
        MPI_Allgatherv(s, cnt[rank], MPI_INT, y, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
    else if (nb)
        MPI_Iallgather(s, each, MPI_INT, y, each, MPI_INT, MPI_COMM_WORLD, &rq);
    else
        MPI_Allgather(s, each, MPI_INT, y, each, MPI_INT, MPI_COMM_WORLD);
    if (nb)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int r = 0, at = 0; r < size; r++) {
        for (; at < dsp[r]; at++)
            CHECK(y[at] == -1, "%s allgather%s gap [%d] overwritten", mode, v ? "v" : "", at);
        for (int i = 0; i < cnt[r]; i++, at++)
            CHECK(y[at] == ival(r, i) + 1000 * r, "%s allgather%s each %d%s%s: rank %d [%d] = %d", mode,
                  v ? "v" : "", each, inplace ? " in place" : "", nb ? " nb" : "", r, i, y[at]);
    }
    free(cnt), free(dsp), free(x), free(y);
}

/* alltoall: plain ints, or received as every other int (a resized type)
 * with the gaps checked, or in place */
static void alltoall(int each, int nb, int strided, int inplace)
{
    MPI_Datatype every2;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2);
    MPI_Type_commit(&every2);
    int st = strided ? 2 : 1;
    int *x = malloc(sizeof(int) * (size_t)each * size + 4), *y = malloc(sizeof(int) * (size_t)(st * each * size) + 4);
    for (int t = 0; t < size; t++)
        for (int i = 0; i < each; i++)
            x[t * each + i] = (rank * 16 + t) * 100000 + i;
    for (int i = 0; i < st * each * size; i++)
        y[i] = inplace ? x[i] : -1;
    const void *sx = inplace ? MPI_IN_PLACE : x;
    MPI_Datatype rt = strided ? every2 : MPI_INT;
    MPI_Request rq;
    if (nb) {
        MPI_Ialltoall(sx, each, MPI_INT, y, each, rt, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Alltoall(sx, each, MPI_INT, y, each, rt, MPI_COMM_WORLD);
    }
    for (int f = 0; f < size; f++)
        for (int i = 0; i < each; i++) {
            int at = st * (f * each + i);
            CHECK(y[at] == (f * 16 + rank) * 100000 + i, "%s alltoall each %d%s%s%s: from %d [%d] = %d",
                  mode, each, nb ? " nb" : "", strided ? " strided" : "", inplace ? " in place" : "", f,
                  i, y[at]);
            CHECK(st == 1 || y[at + 1] == -1, "%s alltoall: gap overwritten", mode);
        }
    free(x), free(y);
    MPI_Type_free(&every2);
}

/* alltoallv with uneven blocks (some empty) and gaps between them, or
 * alltoallw whose odd blocks are received as every other int; block
 * r -> t holds ((r + t) % 3) * each ints */
static void alltoallv(int each, int w, int nb)
{
    MPI_Datatype every2;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2);
    MPI_Type_commit(&every2);
    int n = size, *sc = malloc(sizeof(int) * 6 * (size_t)n), *sd = sc + n, *rc = sc + 2 * n, *rd = sc + 3 * n;
    int *swd = sc + 4 * n, *rwd = sc + 5 * n, stot = 0, rtot = 0;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)n), *rt = st + n;
    for (int t = 0; t < n; t++) {
        sc[t] = (rank + t) % 3 * each, rc[t] = (t + rank) % 3 * each;
        sd[t] = stot + 1, rd[t] = rtot + 3;
        stot = sd[t] + sc[t];
        /* alltoallw: odd blocks strided, so they take twice the room */
        rtot = rd[t] + (w && t % 2 ? 2 : 1) * rc[t];
        st[t] = MPI_INT, rt[t] = w && t % 2 ? every2 : MPI_INT;
        swd[t] = sd[t] * (int)sizeof(int), rwd[t] = rd[t] * (int)sizeof(int);
    }
    int *x = malloc(sizeof(int) * (size_t)stot + 4), *y = malloc(sizeof(int) * (size_t)rtot + 4);
    for (int t = 0; t < n; t++)
        for (int i = 0; i < sc[t]; i++)
            x[sd[t] + i] = (rank * 16 + t) * 100000 + i;
    for (int i = 0; i < rtot; i++)
        y[i] = -1;
    MPI_Request rq;
    if (w && nb)
        MPI_Ialltoallw(x, sc, swd, st, y, rc, rwd, rt, MPI_COMM_WORLD, &rq);
    else if (w)
        MPI_Alltoallw(x, sc, swd, st, y, rc, rwd, rt, MPI_COMM_WORLD);
    else if (nb)
        MPI_Ialltoallv(x, sc, sd, MPI_INT, y, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq);
    else
        MPI_Alltoallv(x, sc, sd, MPI_INT, y, rc, rd, MPI_INT, MPI_COMM_WORLD);
    if (nb)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int *want = malloc(sizeof(int) * (size_t)rtot + 4);
    for (int i = 0; i < rtot; i++)
        want[i] = -1;
    for (int f = 0; f < n; f++)
        for (int i = 0; i < rc[f]; i++)
            want[rd[f] + (w && f % 2 ? 2 : 1) * i] = (f * 16 + rank) * 100000 + i;
    for (int i = 0; i < rtot; i++)
        CHECK(y[i] == want[i], "%s alltoall%s each %d%s: [%d] = %d, not %d", mode, w ? "w" : "v", each,
              nb ? " nb" : "", i, y[i], want[i]);
    free(sc), free(st), free(x), free(y), free(want);
    MPI_Type_free(&every2);
}

/* gather and scatter: blocks of `each` ints, or of every other int
 * (a resized type) at the root, in place at the root or not */
static void gather_scatter(int each, int root, int strided, int inplace)
{
    MPI_Datatype every2;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &every2);
    MPI_Type_commit(&every2);
    MPI_Datatype rt = strided ? every2 : MPI_INT;
    int st = strided ? 2 : 1, *x = malloc(sizeof(int) * (size_t)each + 4);
    int *big = malloc(sizeof(int) * (size_t)(st * each * size) + 4);
    for (int i = 0; i < each; i++)
        x[i] = rank * 1000 + i;
    for (int i = 0; i < st * each * size; i++)
        big[i] = rank == root && inplace && i / (st * each) == root && i % st == 0
                     ? root * 1000 + i / st % (each ? each : 1)
                     : -1;
    const void *sx = rank == root && inplace ? MPI_IN_PLACE : x;
    MPI_Gather(sx, each, MPI_INT, big, each, rt, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < each; i++) {
                int at = st * (r * each + i);
                CHECK(big[at] == r * 1000 + i, "%s gather each %d root %d: rank %d [%d] = %d", mode, each,
                      root, r, i, big[at]);
                CHECK(st == 1 || big[at + 1] == -1, "%s gather: gap overwritten", mode);
            }
    /* and back: rank r gets its block + 7 */
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < each; i++)
                big[st * (r * each + i)] = r * 1000 + i + 7;
    for (int i = 0; i < each; i++)
        x[i] = -1;
    void *rx = rank == root && inplace ? MPI_IN_PLACE : x;
    MPI_Scatter(big, each, rt, rx, each, MPI_INT, root, MPI_COMM_WORLD);
    if (!(rank == root && inplace))
        for (int i = 0; i < each; i++)
            CHECK(x[i] == rank * 1000 + i + 7, "%s scatter each %d root %d: [%d] = %d", mode, each, root,
                  i, x[i]);
    free(x), free(big);
    MPI_Type_free(&every2);
}

static void all(void)
{
    int ge[] = {0, 1, 3, 5000};
    for (int k = 0; k < 4; k++)
        for (int root = 0; root < size; root += 2)
            for (int v = 0; v < 4; v++)
                gather_scatter(ge[k], root, v & 1, v >> 1);
    int counts[] = {0, 1, size - 1, size, size + 1, 2 * size + 3, 1000, 20011};
    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int v = 0; v < 4; v++)
            allreduce(counts[k], v & 1, v >> 1);
    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k += 2)
        for (int root = 0; root < size; root += 3)
            reduce(counts[k], root, root % 2);
    for (int v = 0; v < 8; v++)
        rscatter(v & 1, (v >> 1) & 1, (v >> 2) & 1, v < 4 ? 1 : 3000);
    int eachs[] = {0, 1, 5, 3000};
    for (unsigned k = 0; k < 4; k++)
        for (int v = 0; v < 8; v++)
            allgather(eachs[k], v & 1, (v >> 1) & 1, v >> 2);
    for (unsigned k = 0; k < 4; k++)
        for (int v = 0; v < 6; v++)
            alltoall(eachs[k], v & 1, (v >> 1) & 1, v >> 2);
    for (unsigned k = 0; k < 4; k++)
        for (int v = 0; v < 4; v++)
            alltoallv(eachs[k], v & 1, v >> 1);
}

/* A barrier holds everyone until the last arrives: each rank in turn
 * comes 250 ms late, and every other rank must have waited at least 100 ms
 * of that (the margin covers ranks leaving the previous barrier at
 * different times on a loaded machine). */
static void barrier_waits(void)
{
    for (int k = 0; k < size; k++) {
        double t0 = MPI_Wtime();
        if (rank == k) {
            struct timespec ts = {0, 250 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (k % 2) {
            MPI_Request rq;
            MPI_Ibarrier(MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double dt = MPI_Wtime() - t0;
        CHECK(rank == k || dt >= 0.1, "%sbarrier left after %.3f s while rank %d came 0.25 s late",
              k % 2 ? "i" : "", dt, k);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &mop);
    barrier_waits();
    const unsigned long long never = 1ull << 40;
    /* small: recursive doubling, recursive halving / pairwise, binomial,
     * Bruck; across hosts two levels wherever they apply */
    mode = "small";
    setting("RAILMPI_COLL_RING_MIN", never);
    setting("RAILMPI_COLL_RSAG_MIN", never);
    setting("RAILMPI_COLL_REDUCE_RSG_MIN", never);
    setting("RAILMPI_COLL_ALLGATHER_RING_MIN", never);
    setting("RAILMPI_COLL_ALLTOALL_PAIRWISE_MIN", never);
    setting("RAILMPI_COLL_BINOMIAL_GATHER_MAX", never);
    setting("RAILMPI_COLL_ALLTOALL_BRUCK_MAX", never);
    setting("RAILMPI_COLL_ALLTOALL_HIER_MAX", never);
    all();
    /* mid: Rabenseifner, alltoall all at once */
    mode = "mid";
    setting("RAILMPI_COLL_RSAG_MIN", 1);
    setting("RAILMPI_COLL_ALLTOALL_BRUCK_MAX", 1);
    all();
    /* large: rings, reduce-scatter + gather, pairwise */
    mode = "large";
    setting("RAILMPI_COLL_RING_MIN", 1);
    setting("RAILMPI_COLL_REDUCE_RSG_MIN", 1);
    setting("RAILMPI_COLL_ALLGATHER_RING_MIN", 1);
    setting("RAILMPI_COLL_ALLTOALL_PAIRWISE_MIN", 1);
    setting("RAILMPI_COLL_BINOMIAL_GATHER_MAX", 1);
    setting("RAILMPI_COLL_ALLTOALL_HIER_MAX", 1);
    all();
    MPI_Op_free(&mop);
    MPI_Type_free(&mat);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_algos: OK (%d ranks)\n", size);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
