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

/* A counts array and its displacements as a binding received them: the
 * large-count forms' (MPI_Count counts, MPI_Aint displacements) are used as
 * they are; the int forms' (icounts, idispls) are widened into a copy when
 * the checks reach them, so every collective below src/mpi has one
 * implementation, in MPI_Count and MPI_Aint. Either array may be NULL (an
 * argument the call does not use here, or an error the checks report). The
 * binding that made it frees the copy with coll_vec_free, after the call:
 * the schedules keep no pointer into it. */
typedef struct coll_vec {
    const MPI_Count *counts;
    const MPI_Aint *displs;
    const int *icounts, *idispls;
    void *copy;
} coll_vec_t;
#define COLL_VEC_INT(cnt, dsp) (&(coll_vec_t){.icounts = (cnt), .idispls = (dsp)})
#define COLL_VEC_C(cnt, dsp) (&(coll_vec_t){.counts = (cnt), .displs = (dsp)})
void coll_vec_free(coll_vec_t *v);
/* Widen the int arrays (n entries) and check them: counts present and not
 * negative (MPI_ERR_COUNT), displacements present unless dname is NULL
 * (MPI_ERR_ARG); the names are the arguments' in the messages. */
int coll_vec_check(const char *fn_name_, comm_t *c, coll_vec_t *v, int n, const char *cname,
                   const char *dname);

/* Return what `call` returns, after freeing the widened copies of the
 * coll_vec_t pointers that follow. */
#define VEC_CALL(call, ...)                                                          \
    do {                                                                             \
        coll_vec_t *vs_[] = {__VA_ARGS__};                                           \
        int rc_ = (call);                                                            \
        for (size_t i_ = 0; i_ < sizeof vs_ / sizeof *vs_; i_++)                     \
            coll_vec_free(vs_[i_]);                                                  \
        return rc_;                                                                  \
    } while (0)

/* The reductions with one count (coll_api.c, nbc_api.c). */
enum { RED_REDUCE, RED_ALLREDUCE, RED_SCAN, RED_EXSCAN, RED_SCATTER_BLOCK };

/* The arguments of the data-moving collectives past the communicator, the
 * same for the blocking, nonblocking and persistent forms, int and large
 * count (helpers called under the lock: MPI_CHECKED). A NULL coll_vec_t:
 * the regular form (one count); else the v form. */
int coll_bcast_checks(const char *fn_name_, comm_t *c, void *buffer, MPI_Count count,
                      MPI_Datatype datatype, int root, dtype_t **dtp);
/* Gather(v) and Scatter(v), mirror images: "mine" is the side every process
 * has (gather: what it sends; scatter: what it receives), "root" the root's
 * side, which may be the v form (rootname: its counts argument's name). */
int coll_rooted_checks(const char *fn_name_, comm_t *c, int root, const void *minebuf,
                       MPI_Count minecount, MPI_Datatype minetype, dtype_t **minedt,
                       const void *rootbuf, MPI_Count rootcount, coll_vec_t *rootv,
                       const char *rootname, MPI_Datatype roottype, dtype_t **rootdt);
int coll_allgather_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                          MPI_Count sendcount, MPI_Datatype sendtype, dtype_t **sdtp,
                          void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                          MPI_Datatype recvtype, dtype_t **rdtp);
int coll_alltoall_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                         MPI_Count sendcount, coll_vec_t *sv, MPI_Datatype sendtype,
                         dtype_t **sdtp, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                         MPI_Datatype recvtype, dtype_t **rdtp);
int coll_reduce_scatter_checks(const char *fn_name_, comm_t *c, const void *sendbuf,
                               coll_vec_t *rv, MPI_Datatype datatype, MPI_Op op, dtype_t **dtp,
                               op_t **opp);

/* The checks of the reductions: rooted 0 (allreduce, reduce_scatter_block),
 * 1 (reduce, with root), 2 (scans: intracommunicators only). */
int coll_reduce_checks(const char *fn_name_, comm_t *c, const void *sendbuf, void *recvbuf,
                       MPI_Count count, MPI_Datatype datatype, MPI_Op op, int rooted, int root,
                       dtype_t **dtp, op_t **opp);

#endif
