/* The bodies of the nonblocking and persistent collective bindings
 * (nbc_api.c), shared by their int and large-count (_c) forms and by the
 * persistent forms (pcoll_api.c): checks, then a schedule started as a
 * request (persist 0) or kept behind an inactive persistent request
 * (persist 1). Counts in MPI_Count; a coll_vec_t carries the v forms'
 * arrays (coll_check.h). */
#ifndef RM_MPI_NBC_H
#define RM_MPI_NBC_H

#include "mpi/coll_check.h"

int nbc_ibarrier(const char *fn_name_, MPI_Comm comm, MPI_Request *request, int persist);
int nbc_ibcast(const char *fn_name_, void *buffer, MPI_Count count, MPI_Datatype datatype,
               int root, MPI_Comm comm, MPI_Request *request, int persist);
/* rv (sv) NULL: the regular form with recvcount (sendcount); else the v form. */
int nbc_gather(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
               MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
               MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, int persist);
int nbc_scatter(const char *fn_name_, const void *sendbuf, MPI_Count sendcount, coll_vec_t *sv,
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Request *request, int persist);
int nbc_allgather(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int persist);
int nbc_alltoall(const char *fn_name_, const void *sendbuf, MPI_Count sendcount, coll_vec_t *sv,
                 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int persist);
/* kind: RED_REDUCE (with root), RED_ALLREDUCE, RED_SCAN, RED_EXSCAN,
 * RED_SCATTER_BLOCK (count: each rank's block). */
int nbc_reduce(const char *fn_name_, int kind, const void *sendbuf, void *recvbuf,
               MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
               MPI_Request *request, int persist);
int nbc_reduce_scatter(const char *fn_name_, const void *sendbuf, void *recvbuf, coll_vec_t *rv,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                       int persist);
/* MPI_Alltoallw (nb 0; runs at once) and its nonblocking and persistent
 * forms; displacements in bytes. */
int nbc_alltoallw(const char *fn_name_, const void *sendbuf, coll_vec_t *sv,
                  const MPI_Datatype *sendtypes, void *recvbuf, coll_vec_t *rv,
                  const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request, int nb,
                  int persist);

#endif
