/* ranks: 2 6 */
/* Overlapping MPI_Comm_idup on different parents, started in different
 * orders: the order of nonblocking collectives must match per communicator,
 * not across communicators. Each rank dups MPI_COMM_WORLD four times; even
 * ranks start MPI_Comm_idup on parents 0, 1, 2, 3, odd ranks on 3, 2, 1, 0,
 * then make blocking duplicates of MPI_COMM_WORLD and of MPI_COMM_SELF (an
 * agreement that waits for no message) while the requests are pending, then
 * MPI_Waitall. Every idup must succeed, and the new
 * communicators must hold distinct contexts: a message sent on each of them
 * in one order and received in the other lands on its own communicator.
 * Repeated, with the new communicators freed in a shuffled order, so the
 * free sets of the ranks drift apart, and every other time on 20 parents:
 * more creations at once than railmpi's context id segments (16), so some
 * must wait for others (src/comm/ctxid.c). */
#include "check.h"

#include <stdlib.h>

#define NPAR 20
#define ITERS 12

static int rank, size;

static void check_distinct(MPI_Comm *c, int n, int iter)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int got[NPAR + 1], val[NPAR + 1];
    MPI_Request r[2 * (NPAR + 1)];
    /* receives posted last to first, sends first to last: two communicators
     * on one context would swap their values */
    for (int i = n - 1; i >= 0; i--)
        MPI_Irecv(&got[i], 1, MPI_INT, from, 7, c[i], &r[i]);
    for (int i = 0; i < n; i++) {
        val[i] = 1000 * iter + i;
        MPI_Isend(&val[i], 1, MPI_INT, to, 7, c[i], &r[n + i]);
    }
    MPI_Waitall(2 * n, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == 1000 * iter + i, "iteration %d: communicator %d received %d, expected %d", iter,
              i, got[i], 1000 * iter + i);
    for (int i = 0; i < n; i++) {
        int sum = -1, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[i]);
        CHECK(sum == size, "iteration %d: allreduce on communicator %d gave %d", iter, i, sum);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm parent[NPAR];
    for (int i = 0; i < NPAR; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &parent[i]);
        MPI_Comm_set_errhandler(parent[i], MPI_ERRORS_RETURN);
    }
    srand(7 + (unsigned)rank);
    for (int iter = 0; iter < ITERS; iter++) {
        int npar = iter % 2 ? NPAR : 4;
        MPI_Comm nc[NPAR + 1];
        MPI_Request req[NPAR];
        for (int k = 0; k < npar; k++) {
            int p = rank % 2 ? npar - 1 - k : k;
            int rc = MPI_Comm_idup(parent[p], &nc[p], &req[k]);
            CHECK(rc == MPI_SUCCESS, "iteration %d: MPI_Comm_idup on parent %d returned %d", iter, p, rc);
        }
        MPI_Comm_dup(MPI_COMM_WORLD, &nc[npar]);
        MPI_Comm self;
        MPI_Comm_dup(MPI_COMM_SELF, &self);
        MPI_Status st[NPAR];
        int rc = MPI_Waitall(npar, req, st);
        for (int k = 0; k < npar; k++)
            CHECK(rc == MPI_SUCCESS && nc[k] != MPI_COMM_NULL,
                  "iteration %d: MPI_Waitall returned %d, request %d error %d", iter, rc, k,
                  st[k].MPI_ERROR);
        check_distinct(nc, npar + 1, iter);
        /* free in a shuffled order, different on every rank */
        for (int i = npar; i > 0; i--) {
            int j = rand() % (i + 1);
            MPI_Comm t = nc[i];
            nc[i] = nc[j];
            nc[j] = t;
        }
        for (int i = 0; i <= npar; i++)
            MPI_Comm_free(&nc[i]);
        MPI_Comm_free(&self);
    }
    for (int i = 0; i < NPAR; i++)
        MPI_Comm_free(&parent[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_idup_order: %d rounds of 4 or %d crossed idups on %d ranks\n", ITERS, NPAR, size);
    MPI_Finalize();
    return 0;
}
