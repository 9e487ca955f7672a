/* Argument checks shared by the collective bindings (blocking, nonblocking,
 * neighbourhood). */
#ifndef RM_MPI_COLL_CHECK_H
#define RM_MPI_COLL_CHECK_H

#include "coll/op.h"
#include "mpi/mpiimpl.h"

#define CHECK_OP(c, o, h, dt)                                                        \
    do {                                                                             \
        if (!((o) = op_get(h)))                                                      \
            MPI_FAIL((c), MPI_ERR_OP, "invalid op 0x%x", (unsigned)(h));             \
        int rc_ = op_check((o), (dt));                                               \
        if (rc_ != MPI_SUCCESS)                                                      \
            MPI_FAIL((c), rc_, "op 0x%x is not defined for datatype %s", (unsigned)(h), (dt)->name); \
    } while (0)

#define CHECK_ALIAS(c, s, r, n)                                                      \
    do {                                                                             \
        if ((n) > 0 && (s) && (s) == (r) && (s) != MPI_IN_PLACE)                     \
            MPI_FAIL((c), MPI_ERR_BUFFER, "sendbuf and recvbuf are the same (use MPI_IN_PLACE)"); \
    } while (0)

/* Rooted calls: whether this process receives (gather) or sends (scatter)
 * the root's side, and whether it takes part as a non-root. */
#define AT_ROOT(c, root) (comm_is_inter(c) ? (root) == MPI_ROOT : (c)->rank == (root))
#define NON_ROOT(c, root) (comm_is_inter(c) ? (root) >= 0 : (c)->rank != (root))

/* MPI_IN_PLACE has no meaning on an intercommunicator (MPI-3.1 §5.2.3). */
#define CHECK_NOT_IN_PLACE(c, b)                                                     \
    do {                                                                             \
        if (comm_is_inter(c) && (b) == MPI_IN_PLACE)                                 \
            MPI_FAIL((c), MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid on an intercommunicator"); \
    } while (0)

#define CHECK_COUNTS(c, arr, n)                                                      \
    do {                                                                             \
        if (!(arr))                                                                  \
            MPI_FAIL((c), MPI_ERR_ARG, "%s is NULL", #arr);                          \
        for (int i_ = 0; i_ < (n); i_++)                                             \
            if ((arr)[i_] < 0)                                                       \
                MPI_FAIL((c), MPI_ERR_COUNT, "%s[%d] = %d is negative", #arr, i_, (arr)[i_]); \
    } while (0)

/* The arguments of the data-moving collectives past the communicator, the
 * same for the blocking, nonblocking and persistent forms (helpers called
 * under the lock: MPI_CHECKED). `v`: the v form (counts and displacements
 * arrays), else one count. */
int coll_bcast_checks(const char *fn_name_, comm_t *c, void *buffer, int count,
                      MPI_Datatype datatype, int root, dtype_t **dtp);
/* Gather(v) and Scatter(v), mirror images: "mine" is the side every process
 * has (gather: what it sends; scatter: what it receives), "root" the root's
 * side, which may be the v form. */
int coll_rooted_checks(const char *fn_name_, comm_t *c, int v, int root,
                       const void *minebuf, int minecount, MPI_Datatype minetype, dtype_t **minedt,
                       const void *rootbuf, int rootcount, const int *rootcounts, const int *displs,
                       MPI_Datatype roottype, dtype_t **rootdt);
int coll_allgather_checks(const char *fn_name_, comm_t *c, int v, const void *sendbuf,
                          int sendcount, MPI_Datatype sendtype, dtype_t **sdtp, void *recvbuf,
                          int recvcount, const int *recvcounts, const int *displs,
                          MPI_Datatype recvtype, dtype_t **rdtp);
int coll_alltoall_checks(const char *fn_name_, comm_t *c, int v, const void *sendbuf,
                         int sendcount, const int *sendcounts, const int *sdispls,
                         MPI_Datatype sendtype, dtype_t **sdtp, void *recvbuf, int recvcount,
                         const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                         dtype_t **rdtp);
int coll_reduce_scatter_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                               const int *recvcounts, MPI_Datatype datatype, MPI_Op op,
                               dtype_t **dtp, op_t **opp);

/* The checks of the reductions: rooted 0 (allreduce, reduce_scatter_block),
 * 1 (reduce, with root), 2 (scans: intracommunicators only). */
int coll_reduce_checks(const char *fn_name_, comm_t *c, const void *sendbuf, void *recvbuf,
                       int count, MPI_Datatype datatype, MPI_Op op, int rooted, int root,
                       dtype_t **dtp, op_t **opp);

#endif
