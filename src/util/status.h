/* One status code for every internal layer: 0 OK, positive in progress,
 * negative errors. Only src/mpi maps these to MPI error classes. */
#ifndef RM_UTIL_STATUS_H
#define RM_UTIL_STATUS_H

typedef enum rm_status {
    RM_OK = 0,
    RM_INPROGRESS = 1,
    RM_ERR_NO_RESOURCE = -1, /* transient: try again later (queue full, EAGAIN) */
    RM_ERR_UNREACHABLE = -2,
    RM_ERR_TIMED_OUT = -3,
    RM_ERR_CONN_RESET = -4,
    RM_ERR_NOMEM = -5,
    RM_ERR_INVALID = -6,     /* bad argument or malformed input */
    RM_ERR_TRUNCATE = -7,
    RM_ERR_NOT_FOUND = -8,
    RM_ERR_IO = -9,
    RM_ERR_UNSUPPORTED = -10,
    RM_ERR_INTERNAL = -11,
    RM_ERR_PROC_FAILED = -12,
    RM_ERR_CLOSED = -13,     /* the peer closed the connection in order (it is finishing) */
    RM_ERR_REVOKED = -14,    /* the communicator was revoked (MPIX_Comm_revoke) */
    RM_ERR_PROC_FAILED_PENDING = -15, /* a wildcard receive may wait on a failed process */
} rm_status_t;

const char *rm_status_str(rm_status_t st);

#endif
