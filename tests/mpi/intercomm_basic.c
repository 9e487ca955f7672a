/* ranks: 2 3 4 5 */
/* Intercommunicators: Intercomm_create over MPI_COMM_WORLD as peer (odd
 * counts give groups of unequal size), local and remote groups, point-to-
 * point with remote ranks (MPI_ANY_SOURCE, status source, probe, cancel),
 * Intercomm_merge and its high flag, Comm_dup with attributes and names,
 * Comm_compare, Comm_split and Comm_create on an intercommunicator, and the
 * error classes for bad input. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* world ranks of a group, in group order */
static void group_world(MPI_Group g, int n, int *out)
{
    MPI_Group wg;
    int *idx = malloc(sizeof(int) * (size_t)n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, n, idx, wg, out);
    MPI_Group_free(&wg);
    free(idx);
}

static int err_class(int code)
{
    int cls;
    MPI_Error_class(code, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* group 0: world ranks 0 .. size/2 - 1; group 1: the rest (never smaller) */
    int half = size / 2, color = rank >= half;
    int nloc = color ? size - half : half, nrem = size - nloc;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    int lrank;
    MPI_Comm_rank(local, &lrank);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : half, 7, &ic);

    int flag, n;
    MPI_Comm_test_inter(ic, &flag);
    CHECK(flag, "Comm_test_inter says intracommunicator");
    MPI_Comm_test_inter(local, &flag);
    CHECK(!flag, "Comm_test_inter on an intracommunicator");
    MPI_Comm_size(ic, &n);
    CHECK(n == nloc, "Comm_size %d, want the local group's %d", n, nloc);
    MPI_Comm_rank(ic, &n);
    CHECK(n == lrank, "Comm_rank %d, want %d", n, lrank);
    MPI_Comm_remote_size(ic, &n);
    CHECK(n == nrem, "Comm_remote_size %d, want %d", n, nrem);

    int *rw = malloc(sizeof(int) * (size_t)size), *lw = malloc(sizeof(int) * (size_t)size);
    MPI_Group rg, lg;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Group_size(rg, &n);
    CHECK(n == nrem, "remote group size %d", n);
    MPI_Group_rank(rg, &n);
    CHECK(n == MPI_UNDEFINED, "member of the remote group");
    group_world(rg, nrem, rw);
    for (int j = 0; j < nrem; j++)
        CHECK(rw[j] == (color ? j : half + j), "remote rank %d is world %d", j, rw[j]);
    MPI_Comm_group(ic, &lg);
    MPI_Group_size(lg, &n);
    CHECK(n == nloc, "Comm_group is not the local group (size %d)", n);
    group_world(lg, nloc, lw);
    for (int j = 0; j < nloc; j++)
        CHECK(lw[j] == (color ? half + j : j), "local rank %d is world %d", j, lw[j]);

    /* point-to-point: every process sends its local rank and world rank to
     * every remote process; ranks name the remote group */
    for (int j = 0; j < nrem; j++) {
        int msg[2] = {lrank, rank};
        MPI_Send(msg, 2, MPI_INT, j, 3, ic);
    }
    int seen[64] = {0};
    for (int j = 0; j < nrem; j++) {
        int msg[2];
        MPI_Status st;
        if (j == 0) { /* probe a specific remote rank first */
            MPI_Probe(nrem - 1, 3, ic, &st);
            CHECK(st.MPI_SOURCE == nrem - 1, "Probe source %d", st.MPI_SOURCE);
            MPI_Recv(msg, 2, MPI_INT, nrem - 1, 3, ic, &st);
        } else {
            MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 3, ic, &st);
        }
        CHECK(st.MPI_SOURCE == msg[0], "status source %d, sender's local rank %d", st.MPI_SOURCE,
              msg[0]);
        CHECK(msg[1] == rw[msg[0]], "message from remote %d came from world %d", msg[0], msg[1]);
        CHECK(!seen[msg[0]], "two messages from remote %d", msg[0]);
        seen[msg[0]] = 1;
    }
    MPI_Iprobe(MPI_ANY_SOURCE, 3, ic, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "Iprobe finds a message nobody sent");
    /* a large message (rendezvous) and Sendrecv over the intercommunicator */
    {
        enum { BIG = 1 << 18 };
        int *big = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
        for (int i = 0; i < BIG; i++)
            big[i] = rank * 7 + i;
        int peer = lrank % nrem;
        if (lrank < nrem) { /* pairs (i, i) across the groups */
            MPI_Sendrecv(big, BIG, MPI_INT, peer, 4, in, BIG, MPI_INT, peer, 4, ic,
                         MPI_STATUS_IGNORE);
            for (int i = 0; i < BIG; i += 4099)
                CHECK(in[i] == rw[peer] * 7 + i, "large message word %d", i);
        }
        free(big);
        free(in);
    }
    /* cancel a receive nobody matches */
    MPI_Request rq;
    MPI_Status cst;
    int dummy;
    MPI_Irecv(&dummy, 1, MPI_INT, 0, 99, ic, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &cst);
    MPI_Test_cancelled(&cst, &flag);
    CHECK(flag, "receive on an intercommunicator not cancelled");
    /* cancel a send nobody receives: the remote process withdraws it */
    MPI_Issend(&rank, 1, MPI_INT, nrem - 1, 98, ic, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &cst);
    MPI_Test_cancelled(&cst, &flag);
    CHECK(flag, "send on an intercommunicator not cancelled");
    MPI_Barrier(ic);
    MPI_Iprobe(MPI_ANY_SOURCE, 98, ic, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a cancelled send is still there to receive");
        /* MPI_PROC_NULL */
    MPI_Send(&dummy, 1, MPI_INT, MPI_PROC_NULL, 0, ic);

    /* merge: the high = false group first, each in local order */
    for (int flip = 0; flip < 2; flip++) {
        MPI_Comm m;
        int high = flip ? !color : color;
        MPI_Intercomm_merge(ic, high, &m);
        MPI_Comm_test_inter(m, &flag);
        CHECK(!flag, "merge gave an intercommunicator");
        MPI_Comm_size(m, &n);
        CHECK(n == size, "merged size %d", n);
        MPI_Comm_rank(m, &n);
        int want = high ? nrem + lrank : lrank;
        CHECK(n == want, "merged rank %d with high=%d, want %d", n, high, want);
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m);
        CHECK(sum == size * (size - 1) / 2, "allreduce on the merged communicator %d", sum);
        MPI_Comm_free(&m);
    }
    {   /* the same high on both sides: some order, the same at everyone */
        MPI_Comm m;
        MPI_Intercomm_merge(ic, 1, &m);
        MPI_Comm_rank(m, &n);
        int *order = malloc(sizeof(int) * (size_t)size);
        MPI_Allgather(&rank, 1, MPI_INT, order, 1, MPI_INT, m);
        int first = order[0] >= half; /* the group that came first */
        for (int i = 0; i < size; i++) {
            int g = i < (first ? size - half : half) ? first : !first;
            CHECK((order[i] >= half) == g, "merged order mixes the groups at %d", i);
        }
        free(order);
        MPI_Comm_free(&m);
    }

    /* dup: attributes copied, name not; compare */
    int key, *got;
    static int value = 17;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(ic, key, &value);
    MPI_Comm_set_name(ic, "bridge");
    MPI_Comm d;
    MPI_Comm_dup(ic, &d);
    MPI_Comm_test_inter(d, &flag);
    CHECK(flag, "dup of an intercommunicator is not one");
    MPI_Comm_get_attr(d, key, &got, &flag);
    CHECK(flag && *got == 17, "attribute not copied to the dup");
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(ic, name, &n);
    CHECK(!strcmp(name, "bridge"), "name '%s'", name);
    MPI_Comm_compare(ic, d, &n);
    CHECK(n == MPI_CONGRUENT, "compare(ic, dup) = %d", n);
    MPI_Comm_compare(ic, ic, &n);
    CHECK(n == MPI_IDENT, "compare(ic, ic) = %d", n);
    MPI_Comm_compare(ic, local, &n);
    CHECK(n == MPI_UNEQUAL, "compare(ic, local) = %d", n);
    /* point-to-point on the dup */
    if (lrank == 0)
        MPI_Send(&rank, 1, MPI_INT, 0, 5, d);
    if (lrank == 0) {
        int got5;
        MPI_Recv(&got5, 1, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE);
        CHECK(got5 == rw[0], "message on the dup from world %d", got5);
    }
    MPI_Barrier(d);
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&key);

    /* split: local processes of one parity face remote ones of the same */
    MPI_Comm s;
    MPI_Comm_split(ic, lrank % 2, -lrank, &s);
    int rem_same = (nrem + 1 - lrank % 2) / 2; /* remote ranks of my parity */
    if (rem_same == 0) {
        CHECK(s == MPI_COMM_NULL, "split with no remote partner gave a communicator");
    } else {
        CHECK(s != MPI_COMM_NULL, "split gave MPI_COMM_NULL");
        MPI_Comm_remote_size(s, &n);
        CHECK(n == rem_same, "split remote size %d, want %d", n, rem_same);
        int lsame = (nloc + 1 - lrank % 2) / 2;
        MPI_Comm_size(s, &n);
        CHECK(n == lsame, "split local size %d, want %d", n, lsame);
        MPI_Comm_rank(s, &n);
        CHECK(n == lsame - 1 - lrank / 2, "split rank %d (keys reverse the order)", n);
        int v = rank, w = -1;
        MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_MAX, s);
        int wmax = -1;
        for (int j = lrank % 2; j < nrem; j += 2)
            wmax = rw[j] > wmax ? rw[j] : wmax;
        CHECK(w == wmax, "allreduce over the split intercommunicator %d, want %d", w, wmax);
        MPI_Comm_free(&s);
    }
    MPI_Comm_split(ic, MPI_UNDEFINED, 0, &s);
    CHECK(s == MPI_COMM_NULL, "split with MPI_UNDEFINED");
    /* split_type: the local and remote processes of each host */
    MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s);
    {
        /* a host is named by the lowest world rank on it */
        MPI_Comm node;
        int host, same_here = 0, same_remote = 0;
        int *all = malloc(sizeof(int) * (size_t)size);
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        host = rank;
        MPI_Allreduce(MPI_IN_PLACE, &host, 1, MPI_INT, MPI_MIN, node);
        MPI_Comm_free(&node);
        MPI_Allgather(&host, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        for (int w = 0; w < size; w++) {
            if ((w >= half) == color)
                same_here += all[w] == host;
            else
                same_remote += all[w] == host;
        }
        free(all);
        if (!same_remote) {
            CHECK(s == MPI_COMM_NULL, "split_type with nobody remote on this host");
        } else {
            MPI_Comm_test_inter(s, &flag);
            CHECK(flag, "split_type of an intercommunicator is not one");
            MPI_Comm_remote_size(s, &n);
            CHECK(n == same_remote, "split_type remote size %d, want %d", n, same_remote);
            MPI_Comm_size(s, &n);
            CHECK(n == same_here, "split_type local size %d, want %d", n, same_here);
            MPI_Comm_free(&s);
        }
    }

    /* create: drop local rank 0 when the group has more than one process */
    MPI_Group sub;
    int drop = 0;
    MPI_Group_excl(lg, nloc > 1 ? 1 : 0, &drop, &sub);
    MPI_Comm cr;
    MPI_Comm_create(ic, sub, &cr);
    int in_sub = nloc == 1 || lrank != 0;
    if (!in_sub) {
        CHECK(cr == MPI_COMM_NULL, "left-out process got a communicator");
    } else {
        CHECK(cr != MPI_COMM_NULL, "Comm_create on an intercommunicator gave MPI_COMM_NULL");
        MPI_Comm_remote_size(cr, &n);
        CHECK(n == (nrem > 1 ? nrem - 1 : 1), "created remote size %d", n);
        MPI_Comm_size(cr, &n);
        CHECK(n == (nloc > 1 ? nloc - 1 : 1), "created local size %d", n);
        MPI_Barrier(cr);
        MPI_Comm_free(&cr);
    }
    MPI_Group_free(&sub);
    /* an empty group on one side: MPI_COMM_NULL on both */
    MPI_Comm_create(ic, color ? MPI_GROUP_EMPTY : lg, &cr);
    CHECK(cr == MPI_COMM_NULL, "Comm_create with an empty remote or local group");

    /* bad input */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    MPI_Comm bad = MPI_COMM_NULL;
    int rc = MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 0, 8, &bad);
    CHECK(err_class(rc) == MPI_ERR_COMM, "intercommunicator as local_comm: class %d", err_class(rc));
    rc = MPI_Intercomm_create(local, nloc, MPI_COMM_WORLD, 0, 8, &bad);
    CHECK(err_class(rc) == MPI_ERR_RANK, "bad local_leader: class %d", err_class(rc));
    rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, size, 8, &bad);
    CHECK(err_class(rc) == MPI_ERR_RANK, "bad remote_leader: class %d", err_class(rc));
    rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : half, -5, &bad);
    CHECK(err_class(rc) == MPI_ERR_TAG, "bad tag: class %d", err_class(rc));
    /* each leader names itself: the groups overlap */
    rc = MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? half : 0, 9, &bad);
    CHECK(err_class(rc) == MPI_ERR_COMM, "overlapping groups: class %d", err_class(rc));
    CHECK(bad == MPI_COMM_NULL, "a failed create returned a communicator");
    rc = MPI_Intercomm_merge(local, 0, &bad);
    CHECK(err_class(rc) == MPI_ERR_COMM, "merge of an intracommunicator: class %d", err_class(rc));
    rc = MPI_Comm_remote_size(MPI_COMM_WORLD, &n);
    CHECK(err_class(rc) == MPI_ERR_COMM, "remote_size of an intracommunicator: class %d", err_class(rc));
    rc = MPI_Comm_remote_group(MPI_COMM_WORLD, &rg);
    CHECK(err_class(rc) == MPI_ERR_COMM, "remote_group of an intracommunicator");
    rc = MPI_Send(&dummy, 1, MPI_INT, nrem, 0, ic);
    CHECK(err_class(rc) == MPI_ERR_RANK, "send to remote rank %d of %d: class %d", nrem, nrem,
          err_class(rc));
    rc = MPI_Recv(&dummy, 1, MPI_INT, nrem, 0, ic, MPI_STATUS_IGNORE);
    CHECK(err_class(rc) == MPI_ERR_RANK, "receive from remote rank %d: class %d", nrem, err_class(rc));

    MPI_Group_free(&rg);
    MPI_Group_free(&lg);
    MPI_Barrier(ic);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    free(rw);
    free(lw);
    if (rank == 0)
        printf("intercomm_basic OK\n");
    MPI_Finalize();
    return 0;
}
