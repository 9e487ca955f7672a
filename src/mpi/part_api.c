/* Partitioned communication bindings (MPI-4.0 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived. The requests are persistent and are started, completed and
 * freed by the ordinary calls (p2p_api.c, req_api.c); the engine side is
 * src/proto/part.c, the design docs/partitioned.md. */
#include "mpi/mpiimpl.h"

#include <stdlib.h>

static int part_init(const char *fn_name_, int send, const void *buf, int partitions,
                     MPI_Count count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *r;
    MPI_Count bytes;
    int nkeys;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, partitions >= 0, "negative number of partitions %d", partitions);
    CHECK_COUNT(c, count);
    CHECK_DTYPE(c, dt, datatype);
    /* no wildcards: a partitioned receive names its sender and tag */
    CHECK_RANK(c, peer);
    CHECK_SEND_TAG(c, tag);
    CHECK_BUF(c, buf, partitions ? count : 0, dt);
    CHECK_ARG(c, request, "request is NULL");
    if (__builtin_mul_overflow(count, dt->size, &bytes) ||
        __builtin_mul_overflow(bytes, (MPI_Count)partitions, &bytes))
        MPI_FAIL(c, MPI_ERR_COUNT, "%d partitions of %lld elements overflow", partitions,
                 (long long)count);
    if (info != MPI_INFO_NULL && (err = PMPI_Info_get_nkeys(info, &nkeys)) != MPI_SUCCESS)
        goto fn_exit;
    MPI_CHECK_STATUS(c, send ? proto_psend_init(buf, partitions, count, dt, peer, tag, c, &r)
                             : proto_precv_init((void *)buf, partitions, count, dt, peer, tag, c,
                                                &r));
    *request = r->handle;
    MPI_END();
}

RM_ALIAS(Psend_init)
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Psend_init", 1, buf, partitions, count, datatype, dest, tag, comm, info,
                     request);
}

RM_ALIAS(Precv_init)
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return part_init("MPI_Precv_init", 0, buf, partitions, count, datatype, source, tag, comm,
                     info, request);
}

/* The request of a partitioned operation of the given kind; *r NULL after
 * an error was raised. */
static int part_request(const char *fn_name_, MPI_Request h, int kind, request_t **out)
{
    request_t *r = h == MPI_REQUEST_NULL ? NULL : proto_request_get(h);
    *out = NULL;
    if (!r)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn_name_, "invalid request 0x%x", (unsigned)h);
    if (r->kind != kind)
        return mpi_err_raise(r->comm, MPI_ERR_REQUEST, fn_name_,
                             "request 0x%x is not a partitioned %s", (unsigned)h,
                             kind == REQ_PSEND ? "send" : "receive");
    *out = r;
    return MPI_SUCCESS;
}

/* An active partitioned send whose partitions [lo, hi] are in range and not
 * yet marked in this cycle. */
static int part_send_check(const char *fn_name_, MPI_Request h, int lo, int hi, request_t **out)
{
    request_t *r;
    int rc = part_request(fn_name_, h, REQ_PSEND, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!r->active)
        return mpi_err_raise(r->comm, MPI_ERR_REQUEST, fn_name_,
                             "request 0x%x is not active (MPI_Start it first)", (unsigned)h);
    int n = proto_part_count(r);
    if (lo < 0 || hi >= n || lo > hi)
        return mpi_err_raise(r->comm, MPI_ERR_ARG, fn_name_,
                             lo == hi ? "partition %d out of range (the request has %d)"
                                      : "partitions %d..%d out of range (the request has %d)",
                             lo, lo == hi ? n : hi, n);
    for (int q = lo; q <= hi; q++)
        if (proto_part_is_ready(r, q))
            return mpi_err_raise(r->comm, MPI_ERR_ARG, fn_name_,
                                 "partition %d is already marked ready in this cycle", q);
    *out = r;
    return MPI_SUCCESS;
}

static int part_mark(const char *fn_name_, request_t *r, int q)
{
    rm_status_t st = proto_pready(r, q);
    if (st == RM_ERR_INVALID)
        return mpi_err_raise(r->comm, MPI_ERR_ARG, fn_name_,
                             "partition %d is already marked ready in this cycle", q);
    if (st < 0)
        return mpi_err_raise(r->comm, mpi_err_from_status(st), fn_name_, "%s", rm_status_str(st));
    return MPI_SUCCESS;
}

RM_ALIAS(Pready)
int PMPI_Pready(int partition, MPI_Request request)
{
    MPI_BEGIN("MPI_Pready");
    request_t *r;
    MPI_CHECKED(part_send_check(fn_name_, request, partition, partition, &r));
    err = part_mark(fn_name_, r, partition);
    MPI_END();
}

RM_ALIAS(Pready_range)
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    MPI_BEGIN("MPI_Pready_range");
    request_t *r;
    MPI_CHECKED(part_send_check(fn_name_, request, partition_low, partition_high, &r));
    for (int q = partition_low; q <= partition_high && err == MPI_SUCCESS; q++)
        err = part_mark(fn_name_, r, q);
    MPI_END();
}

RM_ALIAS(Pready_list)
int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request)
{
    MPI_BEGIN("MPI_Pready_list");
    request_t *r;
    CHECK_ARG(NULL, length >= 0, "negative length %d", length);
    CHECK_ARG(NULL, length == 0 || array_of_partitions, "array_of_partitions is NULL");
    /* every index is checked before any partition goes */
    for (int i = 0; i < length; i++)
        MPI_CHECKED(part_send_check(fn_name_, request, array_of_partitions[i],
                                    array_of_partitions[i], &r));
    if (length == 0)
        MPI_CHECKED(part_request(fn_name_, request, REQ_PSEND, &r));
    if (length > 1) { /* a partition named twice in the list */
        unsigned char *seen = calloc((size_t)proto_part_count(r), 1);
        if (!seen)
            MPI_FAIL(r->comm, MPI_ERR_NO_MEM, "no memory for %d partitions", proto_part_count(r));
        int dup = -1;
        for (int i = 0; i < length && dup < 0; i++)
            if (seen[array_of_partitions[i]]++)
                dup = array_of_partitions[i];
        free(seen);
        if (dup >= 0)
            MPI_FAIL(r->comm, MPI_ERR_ARG, "partition %d appears twice in the list", dup);
    }
    for (int i = 0; i < length && err == MPI_SUCCESS; i++)
        err = part_mark(fn_name_, r, array_of_partitions[i]);
    MPI_END();
}

RM_ALIAS(Parrived)
int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    MPI_BEGIN("MPI_Parrived");
    request_t *r;
    CHECK_ARG(NULL, flag, "flag is NULL");
    MPI_CHECKED(part_request(fn_name_, request, REQ_PRECV, &r));
    /* inactive: before its first MPI_Start nothing can have arrived; after a
     * completed cycle everything has */
    if (!r->active && !r->done)
        MPI_FAIL(r->comm, MPI_ERR_REQUEST, "request 0x%x was never started", (unsigned)request);
    if (partition < 0 || partition >= proto_part_count(r))
        MPI_FAIL(r->comm, MPI_ERR_ARG, "partition %d out of range (the request has %d)",
                 partition, proto_part_count(r));
    *flag = proto_parrived(r, partition);
    MPI_END();
}
