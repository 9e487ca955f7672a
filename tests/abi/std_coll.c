/* Collectives through the standard ABI: predefined operations and types by
 * the ABI's values, MPI_IN_PLACE (1 in the ABI), alltoallv and alltoallw
 * and neighbourhood alltoallw (arrays of datatypes), a user operation, a
 * nonblocking collective. 2 ranks. */
#include <mpi.h>
#include "std_check.h"

static int op_calls;

#if MPI_VERSION >= 4
/* a large-count user operation */
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    CHECK(*dt == MPI_DOUBLE, "user op _c: datatype is not MPI_DOUBLE");
    for (MPI_Count i = 0; i < *len; i++)
        ((double *)inout)[i] += ((double *)in)[i];
}
#endif

/* a user operation: it sees the ABI's datatype handle */
static void absmax(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    op_calls++;
    CHECK(*dt == MPI_INT, "user op: datatype is not MPI_INT");
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

int main(int argc, char **argv)
{
    int size;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int r = std_rank;

    int b[4] = {0, 0, 0, 0};
    if (r == 1)
        b[0] = 42, b[3] = 7;
    OK(MPI_Bcast(b, 4, MPI_INT, 1, MPI_COMM_WORLD));
    CHECK(b[0] == 42 && b[3] == 7, "Bcast %d %d", b[0], b[3]);

    int x = r + 1, s = 0;
    OK(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s == size * (size + 1) / 2, "Allreduce SUM int %d", s);
    double d = 1.5 * r, dm = -1;
    OK(MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    CHECK(dm == 1.5 * (size - 1), "Allreduce MAX double %g", dm);
    double dv[2] = {r + 0.5, 2.0 * r};
    OK(MPI_Allreduce(MPI_IN_PLACE, dv, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dv[0] == size * (size - 1) / 2.0 + 0.5 * size && dv[1] == size * (size - 1), "IN_PLACE %g %g", dv[0], dv[1]);
    int mx[2] = {10 - r, r}, res[2];
    OK(MPI_Allreduce(mx, res, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
    CHECK(res[0] == 10 - (size - 1) && res[1] == size - 1, "MINLOC %d %d", res[0], res[1]);
    int red = -1;
    OK(MPI_Reduce(&x, &red, 1, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD));
    CHECK(r != 0 || red == 2, "Reduce PROD %d", red);
    OK(MPI_Scan(&x, &red, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(red == (r + 1) * (r + 2) / 2, "Scan %d", red);
    int all[8];
    OK(MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK(all[0] == 1 && all[size - 1] == size, "Allgather %d %d", all[0], all[size - 1]);
    if (r == 0) {
        all[0] = 5;
        OK(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK(all[0] == 5 && all[1] == 2, "Gather IN_PLACE %d %d", all[0], all[1]);
    } else {
        OK(MPI_Gather(&x, 1, MPI_INT, NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));
    }

    /* alltoallv: rank r sends r+1 ints to each */
    int sb[8], rb[8], sc[2], sd[2], rc[2], rd[2];
    for (int i = 0; i < 8; i++)
        sb[i] = 10 * r + i, rb[i] = -1;
    for (int p = 0; p < 2; p++) {
        sc[p] = r + 1;
        sd[p] = p * (r + 1);
        rc[p] = p + 1;
        rd[p] = p == 0 ? 0 : 1;
    }
    OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD));
    CHECK(rb[0] == r * 1 && rb[1] == 10 + r * 2 && rb[2] == 10 + r * 2 + 1, "Alltoallv %d %d %d", rb[0], rb[1], rb[2]);
    /* alltoallw: a different datatype per peer */
    MPI_Datatype ts[2] = {MPI_INT, MPI_INT}, tr[2] = {MPI_INT, MPI_INT};
    int wc[2] = {1, 1}, wd[2] = {0, (int)sizeof(int)};
    OK(MPI_Alltoallw(sb, wc, wd, ts, rb, wc, wd, tr, MPI_COMM_WORLD));
    CHECK(rb[0] == 10 * 0 + r && rb[1] == 10 + r, "Alltoallw %d %d", rb[0], rb[1]);

    /* neighbourhood alltoallw on a periodic ring of 2: both neighbours are the peer */
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_Aint nd[2] = {0, sizeof(int)};
    int nsb[2] = {100 + r, 200 + r}, nrb[2] = {-1, -1};
    OK(MPI_Neighbor_alltoallw(nsb, wc, nd, ts, nrb, wc, nd, tr, ring));
    CHECK(nrb[0] == 200 + (1 - r) && nrb[1] == 100 + (1 - r), "Neighbor_alltoallw %d %d", nrb[0], nrb[1]);
    OK(MPI_Comm_free(&ring));

    MPI_Request rq;
    double in = r, out = -1;
    OK(MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq));
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(rq == MPI_REQUEST_NULL && out == 1.0, "Iallreduce %g", out);
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq));
    int flag = 0;
    while (!flag)
        OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
    long long ll = r, lls = 0;
    OK(MPI_Allreduce(&ll, &lls, 1, MPI_LONG_LONG, MPI_BOR, MPI_COMM_WORLD));
    CHECK(lls == 1, "BOR long long %lld", lls);
    OK(MPI_Reduce_local(&x, &s, 1, MPI_INT, MPI_SUM));

    MPI_Op op;
    OK(MPI_Op_create(absmax, 1, &op));
    int commute = 0;
    OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 1, "Op_commutative %d", commute);
    int v[2] = {r == 0 ? -9 : 4, r == 0 ? 1 : -3}, m[2];
    OK(MPI_Allreduce(v, m, 2, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(m[0] == 9 && m[1] == 3 && op_calls > 0, "user op %d %d (%d calls)", m[0], m[1], op_calls);
    OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "Op_free left the handle");
#if MPI_VERSION >= 4
    OK(MPI_Op_create_c(sum_c, 1, &op));
    double dc[2] = {1.0 + r, 2.0}, dr[2];
    OK(MPI_Allreduce(dc, dr, 2, MPI_DOUBLE, op, MPI_COMM_WORLD));
    CHECK(dr[0] == 3.0 && dr[1] == 4.0, "user op _c %g %g", dr[0], dr[1]);
    OK(MPI_Op_free(&op));
#endif
    if (r == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
