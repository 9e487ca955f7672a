/* ranks: 1 2 3 4 */
/* MPI_Comm_create_group involves only the group, MPI_Comm_idup completes
 * from progress (even while the caller blocks elsewhere), keeps the
 * topology, and the calls taking info hints take them. */
#include "check.h"

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s gave class %d, expected %d", what, cls, want);
}

static void check_works(MPI_Comm c, int n)
{
    int me, sz, v, sum = -1;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &sz);
    CHECK(sz == n, "size %d, expected %d", sz, n);
    v = me + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == n * (n + 1) / 2, "allreduce %d", sum);
}

static void test_create_group(void)
{
    /* evens and odds each build their own communicator; the odds first
     * wait for a message that the evens send only after theirs is made:
     * creation among the evens must not need the odds */
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ne = (size + 1) / 2, no = size / 2, r[8];
    for (int i = 0; i < ne; i++)
        r[i] = 2 * i;
    MPI_Group_incl(world, ne, r, &evens);
    for (int i = 0; i < no; i++)
        r[i] = 2 * i + 1;
    MPI_Group_incl(world, no, r, &odds);
    MPI_Comm c = MPI_COMM_NULL;
    int token = 0;
    if (rank % 2 == 0) {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &c) == MPI_SUCCESS, "create_group evens");
        check_works(c, ne);
        if (rank + 1 < size)
            MPI_Send(&token, 1, MPI_INT, rank + 1, 9, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 5, &c) == MPI_SUCCESS, "create_group odds");
        check_works(c, no);
    }
    int me;
    MPI_Comm_rank(c, &me);
    CHECK(me == rank / 2, "rank %d in its group communicator", me);
    MPI_Comm_free(&c);
    /* a process outside the group gets MPI_COMM_NULL; the group in reverse order */
    if (rank == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, odds, 6, &c);
        CHECK(c == MPI_COMM_NULL, "non-member got a communicator");
    }
    MPI_Group rev;
    for (int i = 0; i < size; i++)
        r[i] = size - 1 - i;
    MPI_Group_incl(world, size, r, &rev);
    MPI_Comm_create_group(MPI_COMM_WORLD, rev, 0, &c);
    MPI_Comm_rank(c, &me);
    CHECK(me == size - 1 - rank, "reversed group: rank %d", me);
    check_works(c, size);
    MPI_Comm_free(&c);
    expect(MPI_Comm_create_group(MPI_COMM_WORLD, evens, -1, &c), MPI_ERR_TAG, "negative tag");
    expect(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &c), MPI_ERR_GROUP, "MPI_GROUP_NULL");
    expect(MPI_Comm_create_group(MPI_COMM_NULL, evens, 0, &c), MPI_ERR_COMM, "MPI_COMM_NULL");
    MPI_Group_free(&rev);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&world);
}

static void test_idup(void)
{
    /* overlap: start, do point-to-point, then wait */
    MPI_Comm d1 = MPI_COMM_NULL, d2 = MPI_COMM_NULL;
    MPI_Request rq[2];
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &rq[0]) == MPI_SUCCESS, "Comm_idup");
    CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &d2, &rq[1]) == MPI_SUCCESS, "second Comm_idup");
    int v = rank, got = -1;
    MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT, (rank - 1 + size) % size, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(d1 != MPI_COMM_NULL && d2 != MPI_COMM_NULL && d1 != d2, "idup results");
    int cmp;
    MPI_Comm_compare(d1, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "idup compares %d", cmp);
    check_works(d1, size);
    check_works(d2, size);
    /* the two are distinct contexts: same tag, no cross-matching */
    int a = 1, b = 2, ra = 0, rb = 0;
    MPI_Request s[4];
    MPI_Irecv(&rb, 1, MPI_INT, rank, 0, d2, &s[0]);
    MPI_Irecv(&ra, 1, MPI_INT, rank, 0, d1, &s[1]);
    MPI_Isend(&a, 1, MPI_INT, rank, 0, d1, &s[2]);
    MPI_Isend(&b, 1, MPI_INT, rank, 0, d2, &s[3]);
    MPI_Waitall(4, s, MPI_STATUSES_IGNORE);
    CHECK(ra == 1 && rb == 2, "contexts mixed: %d %d", ra, rb);
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);

    /* completes while the caller blocks in another call: rank 0 starts the
     * idup and then waits for a message rank 1 sends only after its own
     * idup completed */
    MPI_Request r;
    MPI_Comm d;
    MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
    if (size > 1 && rank == 0) {
        MPI_Recv(&got, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (rank == 1)
            MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
    check_works(d, size);
    MPI_Comm_free(&d);

    /* polled with MPI_Test; the topology comes along */
    int dims[1] = {size}, periods[1] = {1}, flag = 0, t;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_idup(cart, &d, &r);
    for (long i = 0; !flag && i < 100000000L; i++)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && r == MPI_REQUEST_NULL, "idup never completed under MPI_Test");
    MPI_Topo_test(d, &t);
    CHECK(t == MPI_CART, "idup of a grid has topology %d", t);
    int src, dst;
    MPI_Cart_shift(d, 0, 1, &src, &dst);
    CHECK(dst == (rank + 1) % size, "idup's grid shift %d", dst);
    MPI_Comm_free(&d);
    MPI_Comm_free(&cart);
    expect(MPI_Comm_idup(MPI_COMM_NULL, &d, &r), MPI_ERR_COMM, "idup of MPI_COMM_NULL");

    /* rank 0 alone holds 70 more communicators, so the lowest free ids
     * differ between the ranks by more than the first round offers: the
     * idup must still agree (its second round) */
    MPI_Comm selfs[70];
    if (rank == 0)
        for (int i = 0; i < 70; i++)
            MPI_Comm_dup(MPI_COMM_SELF, &selfs[i]);
    MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    check_works(d, size);
    MPI_Comm d3;
    MPI_Comm_dup(d, &d3); /* the ids taken and given back stay consistent */
    check_works(d3, size);
    MPI_Comm_free(&d3);
    MPI_Comm_free(&d);
    if (rank == 0)
        for (int i = 0; i < 70; i++)
            MPI_Comm_free(&selfs[i]);
}

/* Hints are taken by every call that takes an info; railmpi acts on none,
 * so none is returned (tests/mpi/info_used.c); a bad info is an error. */
static void test_info(void)
{
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
    MPI_Comm d, dd;
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, in, &d) == MPI_SUCCESS, "dup_with_info");
    CHECK(MPI_Comm_set_info(d, in) == MPI_SUCCESS, "set_info");
    CHECK(MPI_Comm_dup(d, &dd) == MPI_SUCCESS, "dup of a communicator with hints");
    MPI_Comm_free(&dd);
    MPI_Comm_free(&d);
    MPI_Info_free(&in);
    expect(MPI_Comm_set_info(MPI_COMM_WORLD, (MPI_Info)0x7654321), MPI_ERR_INFO, "set_info bad info");
    expect(MPI_Comm_get_info(MPI_COMM_NULL, &in), MPI_ERR_COMM, "get_info of COMM_NULL");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    test_create_group();
    test_idup();
    test_info();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK comm_nb %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
