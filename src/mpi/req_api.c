/* Completion bindings: Wait/Test and their any/all/some forms, request
 * lifetime, cancellation, status queries, generalized requests. */
#include "mpi/mpiimpl.h"
#include "util/config.h"

#include <limits.h>
#include <stdlib.h>

/* A request that the completion calls skip: MPI_REQUEST_NULL or an inactive
 * persistent request. */
static int req_inactive(const request_t *r)
{
    return !r || (r->persistent && !r->active);
}

/* Look up a handle; MPI_REQUEST_NULL gives NULL with success. */
static int req_lookup(const char *fn_name_, MPI_Request h, request_t **out)
{
    *out = NULL;
    if (h == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    request_t *r = proto_request_get(h);
    if (!r || r->kind == REQ_MSG)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn_name_, "invalid request 0x%x", (unsigned)h);
    *out = r;
    return MPI_SUCCESS;
}

/* The request has completed: report its status, free it unless persistent.
 * Returns the request's own error class (not raised). */
static int req_finish(request_t *r, MPI_Request *h, MPI_Status *st)
{
    int rc = MPI_SUCCESS;
    if (r->kind == REQ_GREQ) {
        MPI_Status tmp;
        MPI_Status *s = st && st != MPI_STATUS_IGNORE ? st : &tmp;
        mpi_status_empty(s);
        if (r->gq)
            rc = r->gq(r->gstate, s);
    } else {
        proto_status_fill(st, r);
        if (r->err < 0)
            rc = mpi_err_from_status(r->err);
    }
    if (r->persistent) {
        r->active = 0;
    } else {
        if (r->kind == REQ_GREQ && r->gf) {
            int frc = r->gf(r->gstate);
            if (rc == MPI_SUCCESS)
                rc = frc;
        }
        proto_request_release(r);
        *h = MPI_REQUEST_NULL;
    }
    return rc;
}

/* The status of a completed request, which stays as it is (the
 * MPI_Request_get_status family). Returns the request's own error class. */
static int req_peek(request_t *r, MPI_Status *st)
{
    if (r->kind == REQ_GREQ) {
        MPI_Status tmp;
        MPI_Status *s = st && st != MPI_STATUS_IGNORE ? st : &tmp;
        mpi_status_empty(s);
        return r->gq ? r->gq(r->gstate, s) : MPI_SUCCESS;
    }
    proto_status_fill(st, r);
    return r->err < 0 ? mpi_err_from_status(r->err) : MPI_SUCCESS;
}

/* A pass of progress for the tests and waits: the generalized requests
 * of MPIX_Grequest_start/class_allocate are polled first, in the caller's
 * thread (src/mpi/mpix_api.c). */
static int req_progress(void)
{
    return (mpix_greq_polled ? mpix_greq_poll() : 0) + proto_progress();
}

/* MPI_Wait and MPI_Waitall wait with proto_wait_ft, without holding the
 * caller's only reference: a generalized request completes from user code
 * in another thread (which gets the lock when the wait yields). A
 * collective's schedule is one too: it is waited for as point-to-point is,
 * spinning while progress passes find work and yielding the core only after
 * the idle ones (a yield after every pass gave the core away between the
 * schedule's rounds: a 1 MiB MPI_Iallreduce + MPI_Wait of 2 ranks took
 * several times its blocking form on a loaded host). A generalized request
 * of MPIX_Grequest_start is polled (and its class's wait function called)
 * while it is waited for; so is a file access's (src/mpi/file_rw_api.c). */
static rm_status_t req_wait(request_t *r)
{
    if (r->kind != REQ_GREQ || (!mpix_greq_polled && !r->gw))
        return proto_wait_ft(r);
    int idle = 0;
    while (!r->done) {
        if (r->gw && mpix_greq_block(r) && r->done)
            break;
        if (req_progress())
            idle = 0;
        else if (proto_idle_due(&idle))
            rm_lock_yield();
    }
    return RM_OK;
}

/* A receive from MPI_ANY_SOURCE while a failure is not acknowledged
 * (ULFM): the request stays pending, the call reports it. */
static const char req_pending_msg[] =
    "a process that may send to this MPI_ANY_SOURCE receive has failed; the receive is still "
    "pending (acknowledge the failure with MPIX_Comm_failure_ack)";

RM_ALIAS(Wait)
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_BEGIN("MPI_Wait");
    request_t *r;
    CHECK_ARG(NULL, request, "request is NULL");
    if ((err = req_lookup(fn_name_, *request, &r)) != MPI_SUCCESS)
        goto fn_exit;
    if (req_inactive(r)) {
        mpi_status_empty(status);
        goto fn_exit;
    }
    if (req_wait(r) == RM_ERR_PROC_FAILED_PENDING)
        MPI_FAIL(r->comm, MPIX_ERR_PROC_FAILED_PENDING, "%s", req_pending_msg);
    comm_t *c = r->comm;
    int rc = req_finish(r, request, status);
    if (rc != MPI_SUCCESS)
        err = mpi_err_raise(c, rc, fn_name_, "request completed with an error");
    MPI_END();
}

RM_ALIAS(Test)
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_BEGIN("MPI_Test");
    request_t *r;
    CHECK_ARG(NULL, request && flag, "request or flag is NULL");
    if ((err = req_lookup(fn_name_, *request, &r)) != MPI_SUCCESS)
        goto fn_exit;
    if (req_inactive(r)) {
        *flag = 1;
        mpi_status_empty(status);
        goto fn_exit;
    }
    if (!r->done)
        req_progress();
    *flag = r->done;
    if (!r->done && proto_ft_nfailed && proto_ft_recv_blocked(r))
        MPI_FAIL(r->comm, MPIX_ERR_PROC_FAILED_PENDING, "%s", req_pending_msg);
    if (r->done) {
        comm_t *c = r->comm;
        int rc = req_finish(r, request, status);
        if (rc != MPI_SUCCESS)
            err = mpi_err_raise(c, rc, fn_name_, "request completed with an error");
    }
    MPI_END();
}

/* Validate an array of handles up front so no request completes before a bad
 * handle is reported. */
static int req_check_array(const char *fn_name_, int count, MPI_Request reqs[], request_t **rs)
{
    for (int i = 0; i < count; i++) {
        int rc = req_lookup(fn_name_, reqs[i], &rs[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

#define REQ_ARRAY(rs, count)                                                          \
    request_t *rs##_stack[64];                                                        \
    request_t **rs = (count) <= 64 ? rs##_stack : malloc(sizeof(request_t *) * (size_t)(count)); \
    if (!rs)                                                                          \
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory")

#define REQ_ARRAY_FREE(rs) \
    if (rs != rs##_stack)  \
    free(rs)

static int req_any(const char *fn_name_, int count, MPI_Request reqs[], int *index, int *flag,
                   MPI_Status *status, int blocking, int peek)
{
    MPI_BEGIN_SHARED();
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, index && (blocking || flag), "index or flag is NULL");
    CHECK_ARG(NULL, count == 0 || reqs, "array_of_requests is NULL");
    REQ_ARRAY(rs, count);
    if ((err = req_check_array(fn_name_, count, reqs, rs)) != MPI_SUCCESS)
        goto out;
    int idle = 0;
    for (;;) {
        int active = 0;
        for (int i = 0; i < count; i++) {
            if (req_inactive(rs[i]))
                continue;
            active++;
            if (rs[i]->done) {
                *index = i;
                if (flag)
                    *flag = 1;
                comm_t *c = rs[i]->comm;
                int rc = peek ? req_peek(rs[i], status) : req_finish(rs[i], &reqs[i], status);
                if (rc != MPI_SUCCESS)
                    err = mpi_err_raise(c, rc, fn_name_, "request %d completed with an error", i);
                goto out;
            }
        }
        if (!active) {
            *index = MPI_UNDEFINED;
            if (flag)
                *flag = 1;
            mpi_status_empty(status);
            goto out;
        }
        if (req_progress()) {
            idle = 0;
            continue;
        }
        /* ULFM: a wildcard receive that a failure not acknowledged blocks */
        for (int i = 0; proto_ft_nfailed && i < count; i++)
            if (!req_inactive(rs[i]) && proto_ft_recv_blocked(rs[i])) {
                *index = i;
                if (flag)
                    *flag = 0;
                err = mpi_err_raise(rs[i]->comm, MPIX_ERR_PROC_FAILED_PENDING, fn_name_, "request %d: %s", i,
                                    req_pending_msg);
                goto out;
            }
        if (!blocking) {
            *flag = 0;
            *index = MPI_UNDEFINED;
            goto out;
        }
        if (proto_idle_due(&idle))
            rm_lock_yield();
    }
out:
    REQ_ARRAY_FREE(rs);
    MPI_END();
}

RM_ALIAS(Waitany)
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return req_any("MPI_Waitany", count, array_of_requests, index, NULL, status, 1, 0);
}

RM_ALIAS(Testany)
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    return req_any("MPI_Testany", count, array_of_requests, index, flag, status, 0, 0);
}

/* Finish every listed request. Per-request errors go to the statuses and the
 * call returns MPI_ERR_IN_STATUS; MPI_ERROR is written in every status if
 * and only if that happens (MPI-3.1 3.2.5), so on the first error the
 * statuses filled before it get MPI_SUCCESS. peek: the requests stay as they
 * are (MPI_Request_get_status_all/some). */
static int req_finish_all(int count, MPI_Request reqs[], request_t **rs, MPI_Status *statuses,
                          int *outcount, int *indices, comm_t **err_comm, int peek)
{
    int any_err = 0, n = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses != MPI_STATUSES_IGNORE ? &statuses[indices ? n : i] : MPI_STATUS_IGNORE;
        if (req_inactive(rs[i])) {
            if (!indices && st != MPI_STATUS_IGNORE) {
                mpi_status_empty(st);
                if (any_err)
                    st->MPI_ERROR = MPI_SUCCESS;
            }
            continue;
        }
        comm_t *c = rs[i]->comm;
        int rc;
        if (!rs[i]->done) {
            /* Waitsome/Testsome report no status for it; Waitall a wildcard
             * receive that a failure not acknowledged blocks: it stays
             * pending, its status says so (ULFM) */
            if (indices || !proto_ft_nfailed || !proto_ft_recv_blocked(rs[i]))
                continue;
            rc = MPIX_ERR_PROC_FAILED_PENDING;
        } else {
            rc = peek ? req_peek(rs[i], st) : req_finish(rs[i], &reqs[i], st);
        }
        if (rc != MPI_SUCCESS && !any_err) {
            any_err = 1;
            *err_comm = c;
            if (statuses != MPI_STATUSES_IGNORE)
                for (int j = 0; j < (indices ? n : i); j++)
                    statuses[j].MPI_ERROR = MPI_SUCCESS;
        }
        if (any_err && st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = rc;
        if (indices)
            indices[n] = i;
        n++;
    }
    if (outcount)
        *outcount = n;
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

RM_ALIAS(Waitall)
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    MPI_BEGIN("MPI_Waitall");
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, count == 0 || array_of_requests, "array_of_requests is NULL");
    REQ_ARRAY(rs, count);
    if ((err = req_check_array(fn_name_, count, array_of_requests, rs)) != MPI_SUCCESS)
        goto out;
    for (int i = 0; i < count; i++)
        if (!req_inactive(rs[i]) && !rs[i]->done)
            req_wait(rs[i]); /* a wildcard receive may stay pending (req_finish_all) */
    comm_t *ec = NULL;
    int rc = req_finish_all(count, array_of_requests, rs, array_of_statuses, NULL, NULL, &ec, 0);
    if (rc != MPI_SUCCESS)
        err = mpi_err_raise(ec, rc, fn_name_, "one or more requests completed with an error");
out:
    REQ_ARRAY_FREE(rs);
    MPI_END();
}

/* MPI_Testall; peek: MPI_Request_get_status_all, which leaves the requests be. */
static int req_test_all(const char *fn_name_, int count, MPI_Request reqs[], int *flag,
                        MPI_Status statuses[], int peek)
{
    MPI_BEGIN_SHARED();
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, flag, "flag is NULL");
    CHECK_ARG(NULL, count == 0 || reqs, "array_of_requests is NULL");
    REQ_ARRAY(rs, count);
    if ((err = req_check_array(fn_name_, count, reqs, rs)) != MPI_SUCCESS)
        goto out;
    req_progress();
    int all = 1;
    for (int i = 0; i < count && all; i++)
        if (!req_inactive(rs[i]) && !rs[i]->done)
            all = 0;
    *flag = all;
    /* ULFM: a wildcard receive that a failure not acknowledged blocks */
    for (int i = 0; !all && !peek && proto_ft_nfailed && i < count; i++)
        if (!req_inactive(rs[i]) && proto_ft_recv_blocked(rs[i])) {
            err = mpi_err_raise(rs[i]->comm, MPIX_ERR_PROC_FAILED_PENDING, fn_name_, "request %d: %s", i,
                                req_pending_msg);
            goto out;
        }
    if (all) {
        comm_t *ec = NULL;
        int rc = req_finish_all(count, reqs, rs, statuses, NULL, NULL, &ec, peek);
        if (rc != MPI_SUCCESS)
            err = mpi_err_raise(ec, rc, fn_name_, "one or more requests completed with an error");
    }
out:
    REQ_ARRAY_FREE(rs);
    MPI_END();
}

RM_ALIAS(Testall)
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    return req_test_all("MPI_Testall", count, array_of_requests, flag, array_of_statuses, 0);
}

static int req_some(const char *fn_name_, int incount, MPI_Request reqs[], int *outcount,
                    int indices[], MPI_Status statuses[], int blocking, int peek)
{
    MPI_BEGIN_SHARED();
    CHECK_COUNT(NULL, incount);
    CHECK_ARG(NULL, outcount, "outcount is NULL");
    CHECK_ARG(NULL, incount == 0 || (reqs && indices), "array_of_requests or indices is NULL");
    REQ_ARRAY(rs, incount);
    if ((err = req_check_array(fn_name_, incount, reqs, rs)) != MPI_SUCCESS)
        goto out;
    int idle = 0;
    for (;;) {
        int active = 0, ready = 0;
        for (int i = 0; i < incount; i++) {
            if (req_inactive(rs[i]))
                continue;
            active++;
            ready += rs[i]->done;
        }
        if (!active) {
            *outcount = MPI_UNDEFINED;
            goto out;
        }
        /* ULFM: nothing complete, and a wildcard receive that a failure not
         * acknowledged blocks: reported as the one request of the call, in
         * its status, and kept */
        for (int i = 0; !ready && !peek && proto_ft_nfailed && i < incount; i++)
            if (!req_inactive(rs[i]) && proto_ft_recv_blocked(rs[i])) {
                *outcount = 1;
                indices[0] = i;
                if (statuses != MPI_STATUSES_IGNORE) {
                    mpi_status_empty(&statuses[0]);
                    statuses[0].MPI_ERROR = MPIX_ERR_PROC_FAILED_PENDING;
                }
                err = mpi_err_raise(rs[i]->comm, MPI_ERR_IN_STATUS, fn_name_, "request %d: %s", i, req_pending_msg);
                goto out;
            }
        if (ready || !blocking) {
            if (!ready)
                req_progress();
            comm_t *ec = NULL;
            int rc = req_finish_all(incount, reqs, rs, statuses, outcount, indices, &ec, peek);
            if (rc != MPI_SUCCESS)
                err = mpi_err_raise(ec, rc, fn_name_, "one or more requests completed with an error");
            goto out;
        }
        if (req_progress())
            idle = 0;
        else if (proto_idle_due(&idle))
            rm_lock_yield();
    }
out:
    REQ_ARRAY_FREE(rs);
    MPI_END();
}

RM_ALIAS(Waitsome)
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return req_some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                    array_of_statuses, 1, 0);
}

RM_ALIAS(Testsome)
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return req_some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                    array_of_statuses, 0, 0);
}

RM_ALIAS(Request_free)
int PMPI_Request_free(MPI_Request *request)
{
    MPI_BEGIN("MPI_Request_free");
    request_t *r;
    CHECK_ARG(NULL, request, "request is NULL");
    if ((err = req_lookup(fn_name_, *request, &r)) != MPI_SUCCESS)
        goto fn_exit;
    if (!r)
        MPI_FAIL(NULL, MPI_ERR_REQUEST, "cannot free MPI_REQUEST_NULL");
    /* MPI-4.0 4.2: freeing an active partitioned request is erroneous (its
     * buffer is still being read or written partition by partition) */
    if ((r->kind == REQ_PSEND || r->kind == REQ_PRECV) && r->active)
        MPI_FAIL(r->comm, MPI_ERR_REQUEST, "cannot free an active partitioned request");
    if (r->kind == REQ_GREQ && r->gf)
        r->gf(r->gstate);
    /* an operation still in flight keeps its own reference and finishes */
    proto_request_release(r);
    *request = MPI_REQUEST_NULL;
    MPI_END();
}

RM_ALIAS(Request_get_status)
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    MPI_BEGIN("MPI_Request_get_status");
    request_t *r;
    CHECK_ARG(NULL, flag, "flag is NULL");
    if ((err = req_lookup(fn_name_, request, &r)) != MPI_SUCCESS)
        goto fn_exit;
    if (req_inactive(r)) {
        *flag = 1;
        mpi_status_empty(status);
        goto fn_exit;
    }
    if (!r->done)
        req_progress();
    *flag = r->done;
    if (r->done)
        req_peek(r, status);
    MPI_END();
}

/* MPI-4.1: MPI_Testany, MPI_Testall and MPI_Testsome that leave every
 * request as it is (none is freed or made inactive). */
RM_ALIAS(Request_get_status_any)
int PMPI_Request_get_status_any(int count, MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    return req_any("MPI_Request_get_status_any", count, array_of_requests, index, flag, status,
                   0, 1);
}

RM_ALIAS(Request_get_status_all)
int PMPI_Request_get_status_all(int count, MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    return req_test_all("MPI_Request_get_status_all", count, array_of_requests, flag,
                        array_of_statuses, 1);
}

RM_ALIAS(Request_get_status_some)
int PMPI_Request_get_status_some(int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    return req_some("MPI_Request_get_status_some", incount, array_of_requests, outcount,
                    array_of_indices, array_of_statuses, 0, 1);
}

RM_ALIAS(Cancel)
int PMPI_Cancel(MPI_Request *request)
{
    MPI_BEGIN("MPI_Cancel");
    request_t *r;
    CHECK_ARG(NULL, request, "request is NULL");
    if ((err = req_lookup(fn_name_, *request, &r)) != MPI_SUCCESS)
        goto fn_exit;
    if (!r)
        MPI_FAIL(NULL, MPI_ERR_REQUEST, "cannot cancel MPI_REQUEST_NULL");
    if (r->kind == REQ_GREQ) {
        if (r->gc)
            err = r->gc(r->gstate, r->done);
        goto fn_exit;
    }
    if (req_inactive(r))
        MPI_FAIL(r->comm, MPI_ERR_REQUEST, "cannot cancel an inactive persistent request");
    if (r->kind == REQ_PSEND || r->kind == REQ_PRECV)
        MPI_FAIL(r->comm, MPI_ERR_REQUEST, "an active partitioned request cannot be cancelled");
    MPI_CHECK_STATUS(r->comm, proto_cancel(r));
    MPI_END();
}

RM_ALIAS(Test_cancelled)
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    MPI_BEGIN("MPI_Test_cancelled");
    CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE && flag, "status or flag is NULL");
    *flag = status->count_hi_and_cancelled & 1;
    MPI_END();
}

RM_ALIAS(Status_set_cancelled)
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    MPI_BEGIN("MPI_Status_set_cancelled");
    CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE, "status is NULL");
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    MPI_END();
}

/* MPI-4.1 accessors of the public fields, for bindings that cannot reach them. */
#define STATUS_FIELD(Name, FIELD)                                                      \
    RM_ALIAS(Status_get_##Name)                                                        \
    int PMPI_Status_get_##Name(MPI_Status *status, int *Name)                          \
    {                                                                                  \
        MPI_BEGIN("MPI_Status_get_" #Name);                                            \
        CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE, "status is NULL or MPI_STATUS_IGNORE"); \
        CHECK_ARG(NULL, Name, #Name " is NULL");                                      \
        *Name = status->FIELD;                                                         \
        MPI_END();                                                                     \
    }                                                                                  \
    RM_ALIAS(Status_set_##Name)                                                        \
    int PMPI_Status_set_##Name(MPI_Status *status, int Name)                           \
    {                                                                                  \
        MPI_BEGIN("MPI_Status_set_" #Name);                                            \
        CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE, "status is NULL or MPI_STATUS_IGNORE"); \
        status->FIELD = Name;                                                          \
        MPI_END();                                                                     \
    }

STATUS_FIELD(source, MPI_SOURCE)
STATUS_FIELD(tag, MPI_TAG)
STATUS_FIELD(error, MPI_ERROR)

/* The count of whole items of a type a status holds: MPI_UNDEFINED when
 * the bytes are not a whole number of them, or (int forms, `wide` 0) when
 * the count passes INT_MAX. */
static int req_get_count(const char *fn_name_, const MPI_Status *status, MPI_Datatype datatype,
                         MPI_Count *count, int wide)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE, "status is NULL");
    CHECK_ARG(NULL, count, "count is NULL");
    CHECK_DTYPE(NULL, dt, datatype);
    MPI_Count bytes = mpi_status_get_count(status);
    if (dt->size == 0)
        *count = 0;
    else if (bytes % dt->size)
        *count = MPI_UNDEFINED;
    else
        *count = !wide && bytes / dt->size > INT_MAX ? MPI_UNDEFINED : bytes / dt->size;
    MPI_END();
}

RM_ALIAS(Get_count)
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = req_get_count("MPI_Get_count", status, datatype, count ? &n : NULL, 0);
    if (rc == MPI_SUCCESS)
        *count = (int)n;
    return rc;
}

RM_ALIAS(Get_count_c)
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return req_get_count("MPI_Get_count_c", status, datatype, count, 1);
}

static int req_set_elements(const char *fn_name_, MPI_Status *status, MPI_Datatype datatype,
                            MPI_Count count)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    CHECK_ARG(NULL, status && status != MPI_STATUS_IGNORE, "status is NULL");
    CHECK_DTYPE(NULL, dt, datatype);
    CHECK_COUNT(NULL, count);
    /* the bytes that hold the first `count` basic elements of a message of this type */
    MPI_Count bytes = dtype_elements_bytes(dt, count);
    if (bytes < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%lld elements do not fit a count of bytes", (long long)count);
    mpi_status_set_count(status, bytes);
    MPI_END();
}

RM_ALIAS(Status_set_elements)
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return req_set_elements("MPI_Status_set_elements", status, datatype, count);
}

RM_ALIAS(Status_set_elements_c)
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return req_set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

RM_ALIAS(Status_set_elements_x)
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return req_set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

/* ---- generalized requests --------------------------------------------- */

RM_ALIAS(Grequest_start)
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    return mpi_greq_start("MPI_Grequest_start", query_fn, free_fn, cancel_fn, NULL, NULL, extra_state,
                          request);
}

RM_ALIAS(Grequest_complete)
int PMPI_Grequest_complete(MPI_Request request)
{
    MPI_BEGIN("MPI_Grequest_complete");
    request_t *r = proto_request_get(request);
    if (!r || r->kind != REQ_GREQ || r->done)
        MPI_FAIL(NULL, MPI_ERR_REQUEST, "0x%x is not an incomplete generalized request",
                 (unsigned)request);
    if (r->gp || r->gw)
        mpix_greq_unlist(r);
    proto_request_complete(r);
    MPI_END();
}

RM_ALIAS(Request_c2f)
MPI_Fint PMPI_Request_c2f(MPI_Request request)
{
    return (MPI_Fint)request;
}

RM_ALIAS(Request_f2c)
MPI_Request PMPI_Request_f2c(MPI_Fint request)
{
    return (MPI_Request)request;
}

RM_ALIAS(Message_c2f)
MPI_Fint PMPI_Message_c2f(MPI_Message message)
{
    return (MPI_Fint)message;
}

RM_ALIAS(Message_f2c)
MPI_Message PMPI_Message_f2c(MPI_Fint message)
{
    return (MPI_Message)message;
}
