/* Blocking collectives over the point-to-point engine (context comm->ctx + 1).
 * Arguments are already checked by src/mpi; MPI_IN_PLACE is passed through. */
#ifndef RM_COLL_COLL_H
#define RM_COLL_COLL_H

#include "mpi.h"
#include "coll/op.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "util/status.h"

rm_status_t coll_barrier(comm_t *c);
rm_status_t coll_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c);
rm_status_t coll_gather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                        MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         const MPI_Count *rcounts, const MPI_Aint *displs, dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_scatter(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_scatterv(const void *sbuf, const MPI_Count *scounts, const MPI_Aint *displs, dtype_t *sdt,
                          void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_allgather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                           MPI_Count rcount, dtype_t *rdt, comm_t *c);
rm_status_t coll_allgatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                            const MPI_Count *rcounts, const MPI_Aint *displs, dtype_t *rdt, comm_t *c);
rm_status_t coll_alltoall(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                          MPI_Count rcount, dtype_t *rdt, comm_t *c);
rm_status_t coll_alltoallv(const void *sbuf, const MPI_Count *scounts, const MPI_Aint *sdispls, dtype_t *sdt,
                           void *rbuf, const MPI_Count *rcounts, const MPI_Aint *rdispls, dtype_t *rdt,
                           comm_t *c);
rm_status_t coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        int root, comm_t *c);
rm_status_t coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                           comm_t *c);
rm_status_t coll_reduce_scatter(const void *sbuf, void *rbuf, const MPI_Count *rcounts, dtype_t *dt,
                                op_t *op, comm_t *c);
rm_status_t coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount,
                                      dtype_t *dt, op_t *op, comm_t *c);
rm_status_t coll_scan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                      comm_t *c);
rm_status_t coll_exscan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        comm_t *c);

/* At MPI_Finalize: the schedules and scratch buffers kept for reuse. */
void coll_finalize(void);

/* One-host collectives through a shared segment of the communicator
 * (src/coll/shm.c): 1 done, 0 not taken (use messages), < 0 an error
 * status. The same choice on every rank of a valid call. */
int coll_shm_barrier(comm_t *c);
int coll_shm_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c);
int coll_shm_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op, int root,
                    comm_t *c);
int coll_shm_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                       comm_t *c);
int coll_shm_allgather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                       MPI_Count rcount, dtype_t *rdt, comm_t *c);
int coll_shm_alltoall(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                      MPI_Count rcount, dtype_t *rdt, comm_t *c);
void coll_shm_free(comm_t *c); /* with the communicator */
/* A segment of len bytes shared by the ranks of c (all on this host; src/coll/shm.c). */
rm_status_t coll_shm_segment(comm_t *c, const char *what, size_t len, int here, char **out);

#endif
