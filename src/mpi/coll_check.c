/* Argument checks of the data-moving collectives, shared by the blocking
 * (coll_api.c), nonblocking and persistent (nbc_api.c) bindings: what each
 * process must pass depends on whether it is the root, on an
 * intercommunicator or not, and on MPI_IN_PLACE (MPI-3.1 §5.2-§5.11). */
#include "mpi/coll_check.h"

#include <stdlib.h>

void coll_vec_free(coll_vec_t *v)
{
    free(v->copy);
    v->copy = NULL;
}

int coll_vec_check(const char *fn_name_, comm_t *c, coll_vec_t *v, int n, const char *cname,
                   const char *dname)
{
    MPI_CHECKS_BEGIN();
    if (!v->copy && ((v->icounts && !v->counts) || (v->idispls && !v->displs))) {
        size_t sz = sizeof(MPI_Count) > sizeof(MPI_Aint) ? sizeof(MPI_Count) : sizeof(MPI_Aint);
        char *copy = malloc(2 * sz * (size_t)n + 1);
        if (!copy)
            MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory widening %s", cname);
        v->copy = copy;
        if (v->icounts) {
            MPI_Count *w = (MPI_Count *)copy;
            for (int i = 0; i < n; i++)
                w[i] = v->icounts[i];
            v->counts = w;
        }
        if (v->idispls) {
            MPI_Aint *w = (MPI_Aint *)(copy + sz * (size_t)n);
            for (int i = 0; i < n; i++)
                w[i] = v->idispls[i];
            v->displs = w;
        }
    }
    if (!v->counts)
        MPI_FAIL(c, MPI_ERR_ARG, "%s is NULL", cname);
    for (int i = 0; i < n; i++)
        if (v->counts[i] < 0)
            MPI_FAIL(c, MPI_ERR_COUNT, "%s[%d] = %lld is negative", cname, i,
                     (long long)v->counts[i]);
    if (dname && !v->displs)
        MPI_FAIL(c, MPI_ERR_ARG, "%s is NULL", dname);
    MPI_CHECKS_END();
}

int coll_bcast_checks(const char *fn_name_, comm_t *c, void *buffer, MPI_Count count,
                      MPI_Datatype datatype, int root, dtype_t **dtp)
{
    MPI_CHECKS_BEGIN();
    CHECK_COUNT(c, count);
    CHECK_DTYPE(c, *dtp, datatype);
    CHECK_ROOT(c, root);
    if (root != MPI_PROC_NULL)
        CHECK_BUF(c, buffer, count, *dtp);
    MPI_CHECKS_END();
}

int coll_rooted_checks(const char *fn_name_, comm_t *c, int root, const void *minebuf,
                       MPI_Count minecount, MPI_Datatype minetype, dtype_t **minedt,
                       const void *rootbuf, MPI_Count rootcount, coll_vec_t *rootv,
                       const char *rootname, MPI_Datatype roottype, dtype_t **rootdt)
{
    MPI_CHECKS_BEGIN();
    CHECK_ROOT(c, root);
    if (minebuf == MPI_IN_PLACE && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    /* the root of an intercommunicator has only the root's side */
    if (minebuf != MPI_IN_PLACE && (NON_ROOT(c, root) || !comm_is_inter(c))) {
        CHECK_COUNT(c, minecount);
        CHECK_DTYPE(c, *minedt, minetype);
        CHECK_BUF(c, minebuf, minecount, *minedt);
    }
    if (AT_ROOT(c, root)) {
        CHECK_DTYPE(c, *rootdt, roottype);
        if (rootv) {
            MPI_CHECKED(coll_vec_check(fn_name_, c, rootv, comm_peer_size(c),
                                       rootname, "displs"));
        } else {
            CHECK_COUNT(c, rootcount);
            CHECK_BUF(c, rootbuf, rootcount, *rootdt);
            if (!comm_is_inter(c))
                CHECK_ALIAS(c, minebuf, rootbuf, rootcount);
        }
    }
    MPI_CHECKS_END();
}

/* The send side of allgather and alltoall: MPI_IN_PLACE (intracommunicators
 * only) or a buffer, one count or the v form. */
static int coll_send_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                            MPI_Count sendcount, coll_vec_t *sv, MPI_Datatype sendtype,
                            dtype_t **sdtp)
{
    MPI_CHECKS_BEGIN();
    CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    CHECK_DTYPE(c, *sdtp, sendtype);
    if (sv) {
        MPI_CHECKED(coll_vec_check(fn_name_, c, sv, comm_peer_size(c), "sendcounts", "sdispls"));
    } else {
        CHECK_COUNT(c, sendcount);
        CHECK_BUF(c, sendbuf, sendcount, *sdtp);
    }
    MPI_CHECKS_END();
}

/* The receive side: one block per peer, one count or the v form. */
static int coll_recv_checks(const char *fn_name_, comm_t *c, const void *sendbuf, void *recvbuf,
                            MPI_Count recvcount, coll_vec_t *rv, const char *dname,
                            MPI_Datatype recvtype, dtype_t **rdtp)
{
    MPI_CHECKS_BEGIN();
    CHECK_DTYPE(c, *rdtp, recvtype);
    if (rv) {
        MPI_CHECKED(coll_vec_check(fn_name_, c, rv, comm_peer_size(c), "recvcounts", dname));
    } else {
        CHECK_COUNT(c, recvcount);
        CHECK_BUF(c, recvbuf, recvcount, *rdtp);
        CHECK_ALIAS(c, sendbuf, recvbuf, recvcount);
    }
    MPI_CHECKS_END();
}

int coll_allgather_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                          MPI_Count sendcount, MPI_Datatype sendtype, dtype_t **sdtp,
                          void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                          MPI_Datatype recvtype, dtype_t **rdtp)
{
    MPI_CHECKS_BEGIN();
    /* every process sends one block (allgatherv too) */
    MPI_CHECKED(coll_send_checks(fn_name_, c, sendbuf, sendcount, NULL, sendtype, sdtp));
    MPI_CHECKED(coll_recv_checks(fn_name_, c, sendbuf, recvbuf, recvcount, rv, "displs", recvtype,
                                 rdtp));
    MPI_CHECKS_END();
}

int coll_alltoall_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                         MPI_Count sendcount, coll_vec_t *sv, MPI_Datatype sendtype,
                         dtype_t **sdtp, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                         MPI_Datatype recvtype, dtype_t **rdtp)
{
    MPI_CHECKS_BEGIN();
    MPI_CHECKED(coll_send_checks(fn_name_, c, sendbuf, sendcount, sv, sendtype, sdtp));
    MPI_CHECKED(coll_recv_checks(fn_name_, c, sendbuf, recvbuf, recvcount, rv, "rdispls",
                                 recvtype, rdtp));
    MPI_CHECKS_END();
}

int coll_reduce_checks(const char *fn_name_, comm_t *c, const void *sendbuf, void *recvbuf,
                       MPI_Count count, MPI_Datatype datatype, MPI_Op op, int rooted, int root,
                       dtype_t **dtp, op_t **opp)
{
    MPI_CHECKS_BEGIN();
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COUNT(c, count);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_OP(c, o, op, dt);
    if (rooted == 2)
        CHECK_INTRA(c); /* scans */
    if (rooted == 1)
        CHECK_ROOT(c, root);
    else
        CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf == MPI_IN_PLACE && rooted == 1 && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (sendbuf != MPI_IN_PLACE && (rooted != 1 || NON_ROOT(c, root) || !comm_is_inter(c)))
        CHECK_BUF(c, sendbuf, count, dt);
    if (rooted != 1 || AT_ROOT(c, root)) {
        CHECK_BUF(c, recvbuf, count, dt);
        if (rooted != 1 || !comm_is_inter(c))
            CHECK_ALIAS(c, sendbuf, recvbuf, count);
    }
    *dtp = dt;
    *opp = o;
    MPI_CHECKS_END();
}

int coll_reduce_scatter_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                               coll_vec_t *rv, MPI_Datatype datatype, MPI_Op op, dtype_t **dtp,
                               op_t **opp)
{
    MPI_CHECKS_BEGIN();
    CHECK_DTYPE(c, *dtp, datatype);
    CHECK_OP(c, *opp, op, *dtp);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    MPI_CHECKED(coll_vec_check(fn_name_, c, rv, c->size, "recvcounts", NULL));
    MPI_CHECKS_END();
}
