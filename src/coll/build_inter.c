/* Schedules on intercommunicators (MPI-3.1 §5.2.2), the algorithms of
 * coll/inter.c: rooted calls and the all-to-all family talk to each remote
 * process directly; barrier, broadcast and the reductions work inside each
 * group over its local communicator, and the leaders (local rank 0) cross
 * over. Roots are MPI_ROOT, MPI_PROC_NULL or a remote rank. */
#include "coll/build.h"

#include <stdlib.h>

void coll_build_inter_barrier(coll_sched_t *s, comm_t *c)
{
    dtype_t *byte = dtype_get(MPI_BYTE);
    coll_sched_use(s, c->local_comm);
    coll_build_barrier(s, c->local_comm);
    coll_sched_use(s, c);
    if (c->rank == 0) {
        coll_sched_recv(s, NULL, 0, byte, 0);
        coll_sched_send(s, NULL, 0, byte, 0);
        coll_sched_barrier(s);
    }
    /* nobody leaves before its leader has heard that the other group entered */
    coll_sched_use(s, c->local_comm);
    coll_build_bcast(s, NULL, 0, byte, 0, c->local_comm);
    coll_sched_use(s, c);
}

void coll_build_inter_bcast(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                            comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return;
    if (root == MPI_ROOT) {
        coll_sched_send(s, buf, count, dt, 0);
        coll_sched_barrier(s);
        return;
    }
    if (c->rank == 0) {
        coll_sched_recv(s, buf, count, dt, root);
        coll_sched_barrier(s);
    }
    coll_sched_use(s, c->local_comm);
    coll_build_bcast(s, buf, count, dt, 0, c->local_comm);
    coll_sched_use(s, c);
}

static char *ib_block(const void *buf, MPI_Count count, const MPI_Aint *displs, int i, const dtype_t *dt)
{
    MPI_Aint off = displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * (MPI_Aint)count;
    return (char *)buf + off * dt->extent;
}

void coll_build_inter_gatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                              void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                              dtype_t *rdt, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return;
    if (root != MPI_ROOT) {
        coll_sched_send(s, sbuf, scount, sdt, root);
    } else {
        for (int i = 0; i < c->remote_group->size; i++)
            coll_sched_recv(s, ib_block(rbuf, rcount, displs, i, rdt), rcounts ? rcounts[i] : rcount,
                            rdt, i);
    }
    coll_sched_barrier(s);
}

void coll_build_inter_scatterv(coll_sched_t *s, const void *sbuf, MPI_Count scount,
                               const MPI_Count *scounts, const MPI_Aint *displs, dtype_t *sdt, void *rbuf,
                               MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return;
    if (root != MPI_ROOT) {
        coll_sched_recv(s, rbuf, rcount, rdt, root);
    } else {
        for (int i = 0; i < c->remote_group->size; i++)
            coll_sched_send(s, ib_block(sbuf, scount, displs, i, sdt), scounts ? scounts[i] : scount,
                            sdt, i);
    }
    coll_sched_barrier(s);
}

/* This group's contributions reduced into a buffer at local rank 0
 * (returned; NULL elsewhere and on failure). */
static char *ib_reduce_local(coll_sched_t *s, const void *sbuf, MPI_Count count, dtype_t *dt,
                             op_t *op, comm_t *c, int *ok)
{
    char *acc = NULL;
    *ok = 1;
    if (c->rank == 0 && !(acc = coll_sched_tmp(s, count, dt))) {
        *ok = 0;
        return NULL;
    }
    coll_sched_use(s, c->local_comm);
    coll_build_reduce(s, sbuf, acc, count, dt, op, 0, c->local_comm);
    coll_sched_use(s, c);
    return acc;
}

void coll_build_inter_reduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             dtype_t *dt, op_t *op, int root, comm_t *c)
{
    int ok;
    if (root == MPI_PROC_NULL)
        return;
    if (root == MPI_ROOT) {
        coll_sched_recv(s, rbuf, count, dt, 0);
        coll_sched_barrier(s);
        return;
    }
    char *acc = ib_reduce_local(s, sbuf, count, dt, op, c, &ok);
    if (ok && c->rank == 0) {
        coll_sched_send(s, acc, count, dt, root);
        coll_sched_barrier(s);
    }
}

void coll_build_inter_allreduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                                dtype_t *dt, op_t *op, comm_t *c)
{
    int ok;
    char *acc = ib_reduce_local(s, sbuf, count, dt, op, c, &ok);
    if (!ok)
        return;
    if (c->rank == 0) {
        coll_sched_recv(s, rbuf, count, dt, 0);
        coll_sched_send(s, acc, count, dt, 0);
        coll_sched_barrier(s);
    }
    coll_sched_use(s, c->local_comm);
    coll_build_bcast(s, rbuf, count, dt, 0, c->local_comm);
    coll_sched_use(s, c);
}

void coll_build_inter_reduce_scatter(coll_sched_t *s, const void *sbuf, void *rbuf,
                                     MPI_Count rcount, const MPI_Count *rcounts, dtype_t *dt, op_t *op,
                                     comm_t *c)
{
    int n = c->size, ok;
    MPI_Count *cnt = malloc(sizeof *cnt * (size_t)n);
    MPI_Aint *dsp = malloc(sizeof *dsp * (size_t)n);
    if (!cnt || !dsp) {
        free(cnt);
        free(dsp);
        coll_sched_fail(s, RM_ERR_NOMEM);
        return;
    }
    MPI_Count total = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = rcounts ? rcounts[i] : rcount;
        dsp[i] = (MPI_Aint)total;
        total += cnt[i];
    }
    char *acc = ib_reduce_local(s, sbuf, total, dt, op, c, &ok), *res = NULL;
    if (ok && c->rank == 0 && (res = coll_sched_tmp(s, total, dt))) {
        coll_sched_recv(s, res, total, dt, 0);
        coll_sched_send(s, acc, total, dt, 0);
        coll_sched_barrier(s);
    }
    if (ok) {
        coll_sched_use(s, c->local_comm);
        coll_build_scatterv(s, res, 0, cnt, dsp, dt, rbuf, cnt[c->rank], dt, 0, c->local_comm);
        coll_sched_use(s, c);
    }
    free(cnt);
    free(dsp);
}
