/* Blocking collectives on intercommunicators (MPI-3.1 §5.2.2): the inter
 * phase goes over the intercommunicator's collective context (peers are
 * remote ranks), local phases over its local communicator. Root arguments
 * are MPI_ROOT, MPI_PROC_NULL or a remote rank, checked by src/mpi. */
#ifndef RM_COLL_INTER_H
#define RM_COLL_INTER_H

#include "coll/coll.h"

/* One exchange with one peer over `ctx` of c (either side may be empty). */
rm_status_t coll_inter_sendrecv(comm_t *c, uint32_t ctx, int peer, int tag, const void *sb,
                                MPI_Count sn, dtype_t *sdt, void *rb, MPI_Count rn, dtype_t *rdt);

rm_status_t coll_inter_barrier(comm_t *c);
rm_status_t coll_inter_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c);
rm_status_t coll_inter_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                               MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                               dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_inter_scatterv(const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                                const MPI_Aint *displs, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                dtype_t *rdt, int root, comm_t *c);
rm_status_t coll_inter_alltoallv(const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                                 const MPI_Aint *sdispls, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                 const MPI_Count *rcounts, const MPI_Aint *rdispls, dtype_t *rdt, int all,
                                 comm_t *c);
rm_status_t coll_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                              op_t *op, int root, comm_t *c);
rm_status_t coll_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                                 op_t *op, comm_t *c);
rm_status_t coll_inter_reduce_scatter(const void *sbuf, void *rbuf, MPI_Count rcount,
                                      const MPI_Count *rcounts, dtype_t *dt, op_t *op, comm_t *c);

#endif
