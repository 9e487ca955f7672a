/* Blocking collectives: the schedules of the nonblocking ones (build_*.c),
 * run to the end at once, so each algorithm has one implementation. */
#include "coll/coll.h"
#include "coll/build.h"

/* Internal users (windows, files) call these directly: on a revoked
 * communicator none starts, so that none meets another member's different
 * collective in the one-host segment (whose counters do not tell them apart). */
#define REVOKED_GATE(c)                                                              \
    do {                                                                             \
        if (__builtin_expect((c)->revoked, 0))                                       \
            return RM_ERR_REVOKED;                                                   \
    } while (0)

/* A one-host collective through the communicator's segment, when taken. */
#define SHM(call)                                                                    \
    do {                                                                             \
        int sh_ = (call);                                                            \
        if (sh_)                                                                     \
            return sh_ < 0 ? (rm_status_t)sh_ : RM_OK;                               \
    } while (0)

#define RUN(c, build)                                                                \
    do {                                                                             \
        coll_sched_t *s_ = coll_sched_new(c);                                        \
        if (!s_)                                                                     \
            return RM_ERR_NOMEM;                                                     \
        build;                                                                       \
        return coll_sched_run(s_);                                                   \
    } while (0)

rm_status_t coll_barrier(comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_barrier(c));
    RUN(c, coll_build_barrier(s_, c));
}

rm_status_t coll_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_bcast(buf, count, dt, root, c));
    RUN(c, coll_build_bcast(s_, buf, count, dt, root, c));
}

rm_status_t coll_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         const MPI_Count *rcounts, const MPI_Aint *displs, dtype_t *rdt, int root, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_gatherv(s_, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, root, c));
}

rm_status_t coll_gather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                        MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_gather(s_, sbuf, scount, sdt, rbuf, rcount, rdt, root, c));
}

rm_status_t coll_scatterv(const void *sbuf, const MPI_Count *scounts, const MPI_Aint *displs, dtype_t *sdt,
                          void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_scatterv(s_, sbuf, 0, scounts, displs, sdt, rbuf, rcount, rdt, root, c));
}

rm_status_t coll_scatter(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_scatter(s_, sbuf, scount, sdt, rbuf, rcount, rdt, root, c));
}

rm_status_t coll_allgatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                            const MPI_Count *rcounts, const MPI_Aint *displs, dtype_t *rdt, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_allgatherv(s_, sbuf, scount, sdt, rbuf, 0, rcounts, displs, rdt, c));
}

rm_status_t coll_allgather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                           MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_allgather(sbuf, scount, sdt, rbuf, rcount, rdt, c));
    RUN(c, coll_build_allgatherv(s_, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, c));
}

rm_status_t coll_alltoallv(const void *sbuf, const MPI_Count *scounts, const MPI_Aint *sdispls, dtype_t *sdt,
                           void *rbuf, const MPI_Count *rcounts, const MPI_Aint *rdispls, dtype_t *rdt,
                           comm_t *c)
{
    REVOKED_GATE(c);
    coll_blocks_t sb = {.n = c->size, .counts = scounts, .displs = sdispls, .dt = sdt};
    coll_blocks_t rb = {.n = c->size, .counts = rcounts, .displs = rdispls, .dt = rdt};
    RUN(c, coll_build_alltoall(s_, sbuf, &sb, rbuf, &rb, c));
}

rm_status_t coll_alltoall(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                          MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, c));
    coll_blocks_t sb = {.n = c->size, .count = scount, .dt = sdt};
    coll_blocks_t rb = {.n = c->size, .count = rcount, .dt = rdt};
    RUN(c, coll_build_alltoall(s_, sbuf, &sb, rbuf, &rb, c));
}

rm_status_t coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        int root, comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_reduce(sbuf, rbuf, count, dt, op, root, c));
    RUN(c, coll_build_reduce(s_, sbuf, rbuf, count, dt, op, root, c));
}

rm_status_t coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                           comm_t *c)
{
    REVOKED_GATE(c);
    SHM(coll_shm_allreduce(sbuf, rbuf, count, dt, op, c));
    RUN(c, coll_build_allreduce(s_, sbuf, rbuf, count, dt, op, c));
}

rm_status_t coll_reduce_scatter(const void *sbuf, void *rbuf, const MPI_Count *rcounts, dtype_t *dt,
                                op_t *op, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_reduce_scatter(s_, sbuf, rbuf, 0, rcounts, dt, op, c));
}

rm_status_t coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount, dtype_t *dt,
                                      op_t *op, comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_reduce_scatter(s_, sbuf, rbuf, rcount, NULL, dt, op, c));
}

rm_status_t coll_scan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                      comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_scan(s_, sbuf, rbuf, count, dt, op, 0, c));
}

rm_status_t coll_exscan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        comm_t *c)
{
    REVOKED_GATE(c);
    RUN(c, coll_build_scan(s_, sbuf, rbuf, count, dt, op, 1, c));
}
