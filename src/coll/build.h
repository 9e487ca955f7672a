/* Schedule builders: each adds the rounds of one collective algorithm to a
 * schedule (coll/sched.h), so blocking, nonblocking and neighbourhood
 * collectives share them and compositions (reduce then scatter) are one
 * schedule. Arguments are checked by src/mpi; MPI_IN_PLACE is passed
 * through. Families: data movement (build_move.c), reductions
 * (build_reduce.c), neighbourhoods (build_neighbor.c). */
#ifndef RM_COLL_BUILD_H
#define RM_COLL_BUILD_H

#include "coll/sched.h"

void coll_build_barrier(coll_sched_t *s, comm_t *c);
void coll_build_bcast(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c);
/* MPI_Gather/MPI_Scatter: binomial for blocks below
 * RAILMPI_COLL_BINOMIAL_GATHER_MAX bytes on more than 2 ranks, else the v
 * forms'. (Not chosen inside the v forms: their counts may be NULL away
 * from the root, so the ranks could not agree.) */
void coll_build_gather(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                       void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
void coll_build_scatter(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                        void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
/* Linear at the root. rcounts/displs NULL: rcount each, at i * rcount
 * (gather); likewise scatter. */
void coll_build_gatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                        void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                        dtype_t *rdt, int root, comm_t *c);
void coll_build_scatterv(coll_sched_t *s, const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                         const MPI_Aint *displs, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                         dtype_t *rdt, int root, comm_t *c);
void coll_build_allgatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                           void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                           dtype_t *rdt, comm_t *c);
/* The general exchange: block i goes to to[i] (i when to is NULL) and
 * block j comes from from[j]; displacements in bytes, one type per block
 * (sdts/rdts) or one for all (sdt/rdt when the arrays are NULL). sbuf
 * MPI_IN_PLACE: send what the receive blocks hold (nsend == nrecv). */
typedef struct coll_blocks {
    int n;
    const int *peers;        /* NULL: block i with rank i */
    const MPI_Count *counts;       /* NULL: count for each */
    MPI_Count count;
    const MPI_Aint *bdispls; /* bytes; NULL: displs * extent, or i * count * extent */
    const MPI_Aint *displs;
    dtype_t *const *dts;     /* NULL: dt for each */
    dtype_t *dt;
    const int *subs;         /* sub-tag per block (coll_sched_send_sub), NULL: 0 */
} coll_blocks_t;
void coll_build_exchange(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb, void *rbuf,
                         const coll_blocks_t *rb);
/* MPI_Alltoall(v, w) on c: on an intracommunicator of 3 or more ranks
 * Bruck for small blocks (RAILMPI_COLL_ALLTOALL_BRUCK_MAX; equal blocks
 * only, no counts/dts arrays) and pairwise rounds for large ones
 * (RAILMPI_COLL_ALLTOALL_PAIRWISE_MIN, judged by the mean receive block,
 * which is every block's size in MPI_Alltoall), else coll_build_exchange. */
void coll_build_alltoall(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb, void *rbuf,
                         const coll_blocks_t *rb, comm_t *c);

/* Neighbourhood collectives (MPI-3.1 §7.6) on c's topology: the
 * neighbours in the standard's order, with sub-tags that pair each send with
 * the right receive where one rank is a neighbour twice (a periodic
 * dimension of size 1 or 2). *in and *out are one allocation (free *in);
 * RM_ERR_INVALID when c has no topology. */
typedef struct coll_nbrs {
    int nin, nout;
    int *in, *out, *insub, *outsub;
} coll_nbrs_t;
rm_status_t coll_nbrs_get(const comm_t *c, coll_nbrs_t *nb);
void coll_nbrs_free(coll_nbrs_t *nb);

void coll_build_reduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                       op_t *op, int root, comm_t *c);
void coll_build_allreduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                          dtype_t *dt, op_t *op, comm_t *c);
/* rcounts NULL: rcount each (reduce_scatter_block). */
void coll_build_reduce_scatter(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count rcount,
                               const MPI_Count *rcounts, dtype_t *dt, op_t *op, comm_t *c);
void coll_build_scan(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                     op_t *op, int exclusive, comm_t *c);

/* The algorithms behind them (build_halving.c), chosen by size in
 * build_reduce.c. Allreduce by recursive doubling (any op, any size of
 * communicator) and Rabenseifner's reduce-scatter + allgather (commutative
 * ops); reduce_scatter by recursive halving (commutative) and pairwise (any
 * op). `in` is the whole input vector (rbuf when in place), cnt/dsp each
 * rank's block in items. */
void coll_build_allreduce_rd(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             dtype_t *dt, op_t *op, comm_t *c);
void coll_build_allreduce_rsag(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                               dtype_t *dt, op_t *op, comm_t *c);
void coll_build_reduce_scatter_halving(coll_sched_t *s, const void *in, void *rbuf,
                                       const MPI_Count *cnt, const MPI_Aint *dsp, MPI_Count total,
                                       dtype_t *dt, op_t *op, comm_t *c);
void coll_build_reduce_scatter_pairwise(coll_sched_t *s, const void *in, void *rbuf,
                                        const MPI_Count *cnt, const MPI_Aint *dsp, dtype_t *dt, op_t *op,
                                        comm_t *c);

/* Which ranks of c share a host, kept with the communicator (build_hier.c).
 * NULL: unknown (processes outside the world, whose hosts this process does
 * not know, or memory). */
const comm_hosts_t *coll_hosts(comm_t *c);

/* Two levels on communicators spanning hosts (build_hier.c): the ranks of
 * a host combine at one of them, only those cross the network. 0 (nothing
 * added) when c is on one host, has one rank per host, or the op is not
 * commutative (allreduce), or RAILMPI_COLL_HIERARCHICAL is off. */
int coll_build_allreduce_hier(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                              dtype_t *dt, op_t *op, comm_t *c);
int coll_build_bcast_hier(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                          comm_t *c);
/* Barrier and allgather(v) likewise. */
int coll_build_barrier_hier(coll_sched_t *s, comm_t *c);
int coll_build_allgather_hier(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                              void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                              dtype_t *rdt, comm_t *c);
/* reduce_scatter(_block) of a commutative op; cnt/dsp each rank's block in
 * items, `in` the whole input (rbuf when in place). */
int coll_build_reduce_scatter_hier(coll_sched_t *s, const void *in, void *rbuf, const MPI_Count *cnt,
                                   const MPI_Aint *dsp, MPI_Count total, dtype_t *dt, op_t *op,
                                   comm_t *c);
/* MPI_Alltoall (one count and type each side, no arrays) of bb-byte
 * blocks, below RAILMPI_COLL_ALLTOALL_HIER_MAX. */
int coll_build_alltoall_hier(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb,
                             void *rbuf, const coll_blocks_t *rb, size_t bb, comm_t *c);
int coll_build_reduce_hier(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                           dtype_t *dt, op_t *op, int root, comm_t *c);

/* Intercommunicators (build_inter.c); the all-to-all family and allgather
 * are coll_build_exchange over the remote group. */
void coll_build_inter_barrier(coll_sched_t *s, comm_t *c);
void coll_build_inter_bcast(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                            comm_t *c);
void coll_build_inter_gatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                              void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                              dtype_t *rdt, int root, comm_t *c);
void coll_build_inter_scatterv(coll_sched_t *s, const void *sbuf, MPI_Count scount,
                               const MPI_Count *scounts, const MPI_Aint *displs, dtype_t *sdt, void *rbuf,
                               MPI_Count rcount, dtype_t *rdt, int root, comm_t *c);
void coll_build_inter_reduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             dtype_t *dt, op_t *op, int root, comm_t *c);
void coll_build_inter_allreduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                                dtype_t *dt, op_t *op, comm_t *c);
void coll_build_inter_reduce_scatter(coll_sched_t *s, const void *sbuf, void *rbuf,
                                     MPI_Count rcount, const MPI_Count *rcounts, dtype_t *dt, op_t *op,
                                     comm_t *c);

#endif
