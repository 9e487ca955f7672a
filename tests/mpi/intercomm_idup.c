/* ranks: 2 3 5 8 */
/* MPI_Comm_idup of an intercommunicator (MPI-3.1 §6.4.2): the duplicate
 * has the same local and remote groups and a context of its own agreed by
 * both groups; it completes from progress (one leader starts it and then
 * blocks on a message the other leader sends before starting its own),
 * several can be outstanding, attributes and the name rules follow
 * MPI_Comm_dup, point-to-point, collectives and Intercomm_merge work on
 * the result, and the agreement holds when the groups' free ids differ. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int copied_calls;

static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copied_calls++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

/* Traffic on d between the groups: every local rank sends its world rank
 * to every remote rank; an intercommunicator allreduce sums the remote
 * group's world ranks; the merge orders the groups by the high flag. */
static void check_works(MPI_Comm d, int color, int nloc, int nrem, int half)
{
    int flag, n, lr;
    MPI_Comm_test_inter(d, &flag);
    CHECK(flag, "the duplicate is not an intercommunicator");
    MPI_Comm_size(d, &n);
    CHECK(n == nloc, "duplicate size %d, want %d", n, nloc);
    MPI_Comm_remote_size(d, &n);
    CHECK(n == nrem, "duplicate remote size %d, want %d", n, nrem);
    MPI_Comm_rank(d, &lr);
    CHECK(lr == (color ? rank - half : rank), "duplicate rank %d", lr);

    int *got = malloc(sizeof(int) * (size_t)nrem);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)nrem);
    for (int j = 0; j < nrem; j++) {
        got[j] = -1;
        MPI_Irecv(&got[j], 1, MPI_INT, j, 5, d, &rq[j]);
    }
    for (int j = 0; j < nrem; j++)
        MPI_Isend(&rank, 1, MPI_INT, j, 5, d, &rq[nrem + j]);
    MPI_Waitall(2 * nrem, rq, MPI_STATUSES_IGNORE);
    for (int j = 0; j < nrem; j++)
        CHECK(got[j] == (color ? j : half + j), "from remote %d got %d", j, got[j]);
    free(got);
    free(rq);

    int sum = 0, want = 0;
    for (int j = 0; j < nrem; j++)
        want += color ? j : half + j;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK(sum == want, "intercommunicator allreduce %d, want %d", sum, want);

    MPI_Comm m;
    MPI_Intercomm_merge(d, color, &m);
    MPI_Comm_rank(m, &n);
    CHECK(n == rank, "merged rank %d, want %d", n, rank);
    MPI_Comm_size(m, &n);
    CHECK(n == size, "merged size %d", n);
    MPI_Comm_free(&m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int half = size / 2, color = rank >= half;
    int nloc = color ? size - half : half, nrem = size - nloc;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    int lrank;
    MPI_Comm_rank(local, &lrank);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : half, 7, &ic);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);

    int key;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    static char base[4];
    MPI_Comm_set_attr(ic, key, base);
    MPI_Comm_set_name(ic, "parent");

    /* two outstanding at once, with traffic on the parent in between */
    MPI_Comm d1 = MPI_COMM_NULL, d2 = MPI_COMM_NULL;
    MPI_Request r[2];
    CHECK(MPI_Comm_idup(ic, &d1, &r[0]) == MPI_SUCCESS, "Comm_idup of an intercommunicator");
    CHECK(MPI_Comm_idup(ic, &d2, &r[1]) == MPI_SUCCESS, "second Comm_idup");
    int v = rank, w = -1;
    MPI_Request sr;
    MPI_Isend(&v, 1, MPI_INT, lrank % nrem, 1, ic, &sr);
    for (int j = lrank; j < nrem; j += nloc) /* remote j sends to our rank j % nloc */
        MPI_Recv(&w, 1, MPI_INT, j, 1, ic, MPI_STATUS_IGNORE);
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall on the idups");
    CHECK(d1 != MPI_COMM_NULL && d2 != MPI_COMM_NULL && d1 != d2, "idup results");
    int cmp;
    MPI_Comm_compare(d1, ic, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "idup compares %d with its parent", cmp);
    MPI_Comm_compare(d1, d2, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "two idups compare %d", cmp);
    void *val;
    int flag;
    MPI_Comm_get_attr(d1, key, &val, &flag);
    CHECK(flag && val == base + 1, "attribute not copied (flag %d)", flag);
    CHECK(copied_calls == 2, "copy callback ran %d times", copied_calls);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(d1, name, &len);
    CHECK(strcmp(name, "parent") != 0, "the name was copied");
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(d1, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the error handler was not copied");
    MPI_Errhandler_free(&eh);
    check_works(d1, color, nloc, nrem, half);
    check_works(d2, color, nloc, nrem, half);

    /* the three contexts are distinct: same tag, no cross-matching */
    int peer = lrank % nrem;
    if (lrank < nrem) {
        int a[3] = {-1, -1, -1};
        MPI_Request s[3];
        MPI_Irecv(&a[2], 1, MPI_INT, peer, 9, d2, &s[0]);
        MPI_Irecv(&a[1], 1, MPI_INT, peer, 9, d1, &s[1]);
        MPI_Irecv(&a[0], 1, MPI_INT, peer, 9, ic, &s[2]);
        int x[3] = {10, 11, 12};
        MPI_Send(&x[0], 1, MPI_INT, peer, 9, ic);
        MPI_Send(&x[1], 1, MPI_INT, peer, 9, d1);
        MPI_Send(&x[2], 1, MPI_INT, peer, 9, d2);
        MPI_Waitall(3, s, MPI_STATUSES_IGNORE);
        CHECK(a[0] == 10 && a[1] == 11 && a[2] == 12, "contexts mixed: %d %d %d", a[0], a[1], a[2]);
    }
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);

    /* completes while the caller blocks elsewhere: group 0's leader starts
     * the idup, then waits for a message group 1's leader sends only
     * before starting its own */
    MPI_Request q;
    MPI_Comm d;
    if (color == 0 && lrank == 0) {
        MPI_Comm_idup(ic, &d, &q);
        MPI_Recv(&w, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else if (color == 1 && lrank == 0) {
        MPI_Send(&v, 1, MPI_INT, 0, 3, ic);
        MPI_Comm_idup(ic, &d, &q);
        flag = 0;
        for (long i = 0; !flag && i < 100000000L; i++)
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        CHECK(flag && q == MPI_REQUEST_NULL, "idup never completed under MPI_Test");
    } else {
        MPI_Comm_idup(ic, &d, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    check_works(d, color, nloc, nrem, half);

    /* an idup of the idup, and ids recycled over many rounds */
    for (int i = 0; i < 20; i++) {
        MPI_Comm e;
        MPI_Comm_idup(d, &e, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Comm_free(&d);
        d = e;
    }
    check_works(d, color, nloc, nrem, half);
    MPI_Comm_free(&d);

    /* group 1's leader alone holds 70 more communicators: the lowest free
     * ids differ by more than the first round's candidates, and the
     * second round must still agree */
    MPI_Comm selfs[70];
    int hog = color == 1 && lrank == 0;
    if (hog)
        for (int i = 0; i < 70; i++)
            MPI_Comm_dup(MPI_COMM_SELF, &selfs[i]);
    MPI_Comm_idup(ic, &d, &q);
    CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS, "idup with a second round");
    check_works(d, color, nloc, nrem, half);
    MPI_Comm e;
    MPI_Comm_dup(d, &e); /* the ids taken and given back stay consistent */
    check_works(e, color, nloc, nrem, half);
    MPI_Comm_free(&e);
    MPI_Comm_free(&d);
    if (hog)
        for (int i = 0; i < 70; i++)
            MPI_Comm_free(&selfs[i]);

    MPI_Comm_free_keyval(&key);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercomm_idup ok\n");
    MPI_Finalize();
    return 0;
}
