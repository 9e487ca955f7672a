/* MPI-IO data access: explicit offsets, individual and shared file pointers,
 * blocking, nonblocking and split collective forms (MPI-3.1 13.4). The
 * collective forms move each process's own data (src/io has the view
 * walk); nonblocking ones run on a worker thread behind a request. */
#include "mpi/fileimpl.h"

#include "coll/coll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum file_pos { POS_AT, POS_INDIV, POS_SHARED, POS_ORDERED };

static void file_status(MPI_Status *status, MPI_Count bytes)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return;
    mpi_status_empty(status);
    mpi_status_set_count(status, bytes);
}

/* Where an ordered access of n etypes starts: after the data of the lower
 * ranks, at the shared pointer, which moves past everybody's. One allgather
 * of (size, argument class) agrees on the arguments as well (*cls in: this
 * process's class; out: the largest; nothing moves unless it is 0), then
 * rank 0 moves the pointer and broadcasts its old value with the outcome. */
static int file_ordered_offset(io_file_t *f, MPI_Offset n, int *cls, MPI_Offset *off)
{
    long long mine[2] = {n, *cls}, *all = f->plan; /* IO_PLAN_NI >= 2 per rank */
    dtype_t *lt = dtype_get(MPI_LONG_LONG);
    if (coll_allgather(mine, 2, lt, all, 2, lt, f->comm) < 0)
        return -EIO;
    long long total = 0, before = 0, worst = 0;
    for (int r = 0; r < f->comm->size; r++) {
        if (r < f->comm->rank)
            before += all[2 * r];
        total += all[2 * r];
        if (all[2 * r + 1] > worst)
            worst = all[2 * r + 1];
    }
    *cls = (int)worst;
    if (worst)
        return 0;
    long long res[2] = {0, 0}; /* rank 0's errno, the pointer before */
    if (f->comm->rank == 0) {
        MPI_Offset base = 0;
        res[0] = io_shfp_fetch_add(f, total, &base);
        res[1] = base;
    }
    if (coll_bcast(res, 2, lt, 0, f->comm) < 0)
        return -EIO;
    if (res[0] < 0)
        return (int)res[0];
    *off = res[1] + before;
    return 0;
}

/* Argument checks of a data access: 0 or an error class with *why. */
static int file_rw_check(io_file_t *f, int write, enum file_pos pos, MPI_Offset offset,
                         const void *buf, MPI_Count count, dtype_t *dt, MPI_Datatype datatype,
                         char *why, size_t whylen)
{
#define BAD(cls, ...) return snprintf(why, whylen, __VA_ARGS__), (cls)
    if (count < 0)
        BAD(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    if (!dt || !dt->committed)
        BAD(MPI_ERR_TYPE, "datatype 0x%x is not a committed datatype", (unsigned)datatype);
    if (!buf && count > 0 && dt->size > 0 && dt->true_lb == 0)
        BAD(MPI_ERR_BUFFER, "NULL buffer with count %lld", (long long)count);
    MPI_Count bytes;
    if (__builtin_mul_overflow(count, dt->size, &bytes))
        BAD(MPI_ERR_COUNT, "%lld items of %lld bytes do not fit an MPI_Count", (long long)count,
            (long long)dt->size);
    if (bytes % f->etype->size)
        BAD(MPI_ERR_IO, "%lld bytes are not a whole number of etypes (MPICH's class)",
            (long long)bytes);
    if (!write && (f->amode & MPI_MODE_WRONLY))
        BAD(MPI_ERR_ACCESS, "file opened write-only");
    if (write && (f->amode & MPI_MODE_RDONLY))
        BAD(MPI_ERR_READ_ONLY, "file opened read-only");
    if ((pos == POS_AT || pos == POS_INDIV) && (f->amode & MPI_MODE_SEQUENTIAL))
        BAD(MPI_ERR_UNSUPPORTED_OPERATION, "file opened with MPI_MODE_SEQUENTIAL");
    if (pos == POS_AT && offset < 0)
        BAD(MPI_ERR_ARG, "negative offset %lld", (long long)offset);
#undef BAD
    return MPI_SUCCESS;
}

/* A process's class once the processes have agreed on the largest (all):
 * its own, else the other's, with why saying so. */
static int file_agreed_class(int cls, int all, char *why, size_t whylen)
{
    if (all == MPI_SUCCESS || cls != MPI_SUCCESS)
        return cls;
    snprintf(why, whylen, "another process passed bad arguments");
    return all;
}

/* How far an access of count items of dt moves a file pointer: by the
 * amount requested (MPI-4.1 14.4.3: to the etype after the last one the
 * access will touch, decided when it starts), as the nonblocking forms do,
 * whatever the file holds. A read running into the end of the file used to
 * move it by the bytes found, so the position depended on what earlier
 * accesses had left in the file. */
static MPI_Offset file_etypes(const io_file_t *f, MPI_Count count, const dtype_t *dt)
{
    return (MPI_Offset)count * dt->size / f->etype->size;
}

/* The one data path: checks, position, transfer, pointer update. A
 * collective call (coll) agrees on the checks first, so a process with bad
 * arguments does not leave the others waiting in the exchange. */
static int file_rw(const char *fn_name_, MPI_File fh, int write, enum file_pos pos, int coll,
                   MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Count *bytes)
{
    FILE_BEGIN_SHARED();
    *bytes = 0;
    CHECK_FILE(fh);
    io_file_t *f = f_;
    dtype_t *dt = dtype_get(datatype);
    char why[160];
    int cls = file_rw_check(f, write, pos, offset, buf, count, dt, datatype, why, sizeof why);
    int rc = 0;
    if ((coll || pos == POS_ORDERED) && f->comm->revoked)
        FILE_FAIL(MPIX_ERR_REVOKED, "the file's communicator was revoked");
    if (coll && pos != POS_ORDERED) {
        /* the access's own agreement covers the arguments: a process with
         * bad ones takes part moving nothing */
        int all = cls;
        MPI_Offset at = pos == POS_INDIV ? f->fp : offset;
        rc = write ? io_write_all(f, at, buf, count, dt, bytes, &all)
                   : io_read_all(f, at, buf, count, dt, bytes, &all);
        cls = file_agreed_class(cls, all, why, sizeof why);
        if (cls != MPI_SUCCESS)
            FILE_FAIL(cls, "%s", why);
        if (pos == POS_INDIV && rc >= 0)
            f->fp += file_etypes(f, count, dt);
        FILE_CHECK_RC(rc, write ? "write" : "read");
        goto fn_exit;
    }
    if (pos == POS_ORDERED) {
        int all = cls;
        rc = file_ordered_offset(f, cls ? 0 : file_etypes(f, count, dt), &all, &offset);
        cls = file_agreed_class(cls, all, why, sizeof why);
    }
    if (cls != MPI_SUCCESS)
        FILE_FAIL(cls, "%s", why);
    if (pos == POS_INDIV)
        offset = f->fp;
    else if (pos == POS_SHARED)
        rc = io_shfp_fetch_add(f, file_etypes(f, count, dt), &offset);
    FILE_CHECK_RC(rc, "shared file pointer");
    rc = write ? io_write(f, offset, buf, count, dt, bytes) : io_read(f, offset, buf, count, dt, bytes);
    if (pos == POS_INDIV && rc >= 0)
        f->fp += file_etypes(f, count, dt);
    FILE_CHECK_RC(rc, write ? "write" : "read");
    FILE_END();
}

/* The int bindings and their large-count (_c) forms, whose count is an
 * MPI_Count, share file_rw and file_irw. */
#define FILE_RW(name, write, pos, coll, off, cbuf)                                   \
    static const char *const fn_name_ = "MPI_File_" #name;                           \
    MPI_Count bytes;                                                                 \
    int err = file_rw(fn_name_, fh, (write), (pos), (coll), (off), (void *)(cbuf),   \
                      count, datatype, &bytes);                                             \
    if (err == MPI_SUCCESS)                                                          \
        file_status(status, bytes);                                                  \
    return err

RM_ALIAS(File_read_at)
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    FILE_RW(read_at, 0, POS_AT, 0, offset, buf);
}

RM_ALIAS(File_read_at_c)
int PMPI_File_read_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(read_at_c, 0, POS_AT, 0, offset, buf);
}

RM_ALIAS(File_read_at_all)
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(read_at_all, 0, POS_AT, 1, offset, buf);
}

RM_ALIAS(File_read_at_all_c)
int PMPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(read_at_all_c, 0, POS_AT, 1, offset, buf);
}

RM_ALIAS(File_write_at)
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(write_at, 1, POS_AT, 0, offset, buf);
}

RM_ALIAS(File_write_at_c)
int PMPI_File_write_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(write_at_c, 1, POS_AT, 0, offset, buf);
}

RM_ALIAS(File_write_at_all)
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(write_at_all, 1, POS_AT, 1, offset, buf);
}

RM_ALIAS(File_write_at_all_c)
int PMPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(write_at_all_c, 1, POS_AT, 1, offset, buf);
}

RM_ALIAS(File_read)
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(read, 0, POS_INDIV, 0, 0, buf);
}

RM_ALIAS(File_read_c)
int PMPI_File_read_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    FILE_RW(read_c, 0, POS_INDIV, 0, 0, buf);
}

RM_ALIAS(File_read_all)
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    FILE_RW(read_all, 0, POS_INDIV, 1, 0, buf);
}

RM_ALIAS(File_read_all_c)
int PMPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    FILE_RW(read_all_c, 0, POS_INDIV, 1, 0, buf);
}

RM_ALIAS(File_write)
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    FILE_RW(write, 1, POS_INDIV, 0, 0, buf);
}

RM_ALIAS(File_write_c)
int PMPI_File_write_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    FILE_RW(write_c, 1, POS_INDIV, 0, 0, buf);
}

RM_ALIAS(File_write_all)
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    FILE_RW(write_all, 1, POS_INDIV, 1, 0, buf);
}

RM_ALIAS(File_write_all_c)
int PMPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    FILE_RW(write_all_c, 1, POS_INDIV, 1, 0, buf);
}

RM_ALIAS(File_read_shared)
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    FILE_RW(read_shared, 0, POS_SHARED, 0, 0, buf);
}

RM_ALIAS(File_read_shared_c)
int PMPI_File_read_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    FILE_RW(read_shared_c, 0, POS_SHARED, 0, 0, buf);
}

RM_ALIAS(File_write_shared)
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    FILE_RW(write_shared, 1, POS_SHARED, 0, 0, buf);
}

RM_ALIAS(File_write_shared_c)
int PMPI_File_write_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    FILE_RW(write_shared_c, 1, POS_SHARED, 0, 0, buf);
}

RM_ALIAS(File_read_ordered)
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    FILE_RW(read_ordered, 0, POS_ORDERED, 0, 0, buf);
}

RM_ALIAS(File_read_ordered_c)
int PMPI_File_read_ordered_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Status *status)
{
    FILE_RW(read_ordered_c, 0, POS_ORDERED, 0, 0, buf);
}

RM_ALIAS(File_write_ordered)
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    FILE_RW(write_ordered, 1, POS_ORDERED, 0, 0, buf);
}

RM_ALIAS(File_write_ordered_c)
int PMPI_File_write_ordered_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status)
{
    FILE_RW(write_ordered_c, 1, POS_ORDERED, 0, 0, buf);
}

/* ---- nonblocking: the transfer runs on a worker (src/io/async.c) ----
 * The request is a generalized one that progress completes when the
 * worker has finished; its status carries the byte count and the access's
 * error class. The position is taken at the call: the individual pointer
 * moves by the amount requested, the shared one by fetch-and-add, so later
 * calls start after this access whether or not it has finished (MPI-3.1
 * 13.4.3, 13.4.4). Collective forms need nothing from the other processes
 * (the data of each is its own): they are this process's access, started
 * at once, so they never wait for another process and never block. */

typedef struct file_ireq {
    io_job_t *job;
    io_file_t *f;
    int index;     /* f's MPI_File_c2f, to tell whether f is still open */
    request_t *r;
    int completed; /* the poll has completed the request and dropped it */
    int orphan;    /* MPI_Request_free came first: the poll frees the state */
} file_ireq_t;

static void file_ireq_destroy(file_ireq_t *q)
{
    io_async_free(q->job);
    free(q);
}

/* A failed access calls the file's error handler (MPI_ERRORS_RETURN unless
 * the application set another, MPI-3.1 13.7) when its request completes;
 * the completing call then raises the class on the request's communicator,
 * the file's private one, whose handler only returns it. */
static int file_ireq_query(void *state, MPI_Status *status)
{
    file_ireq_t *q = state;
    MPI_Count bytes;
    int rc = io_async_result(q->job, &bytes);
    mpi_status_set_count(status, rc < 0 ? 0 : bytes);
    status->MPI_ERROR = MPI_SUCCESS;
    if (rc < 0) {
        int cls = mpi_file_errclass(rc);
        if (io_file_from_index(q->index) == q->f) /* still open */
            cls = mpi_file_err(q->f, cls, "MPI_File_i* (completion)", "%s", strerror(-rc));
        status->MPI_ERROR = cls;
    }
    return status->MPI_ERROR;
}

static int file_ireq_free(void *state)
{
    file_ireq_t *q = state;
    if (q->completed)
        file_ireq_destroy(q);
    else
        q->orphan = 1; /* freed before it completed: the worker still has the job */
    return MPI_SUCCESS;
}

static int file_ireq_cancel(void *state, int complete)
{
    (void)state;
    (void)complete;
    return MPI_SUCCESS; /* an access under way is not cancelled (MPI_Test_cancelled: false) */
}

static int file_ireq_poll(void *arg)
{
    file_ireq_t *q = arg;
    if (!io_async_done(q->job))
        return 0;
    int orphan = q->orphan;
    q->completed = 1;
    proto_request_complete(q->r); /* drops the poll's reference */
    if (orphan)
        file_ireq_destroy(q);
    return 1;
}

/* MPI_Wait on a file request (req_api.c's req_wait calls a request's wait
 * function before each pass of progress): the access runs here if no worker
 * has started it, else the wait sleeps until it ends, at most 200 us at a
 * time so the wait's progress goes on. */
static int file_ireq_block(int count, void **states, double timeout, MPI_Status *status)
{
    (void)count;
    (void)timeout;
    (void)status;
    file_ireq_t *q = states[0];
    io_async_block(q->job, 200000);
    return MPI_SUCCESS;
}

static int file_irw(const char *fn_name_, MPI_File fh, int write, enum file_pos pos,
                    MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    FILE_BEGIN_SHARED();
    CHECK_FILE(fh);
    io_file_t *f = f_;
    if (!request)
        FILE_FAIL(MPI_ERR_ARG, "request is NULL");
    dtype_t *dt = dtype_get(datatype);
    char why[160];
    int cls = file_rw_check(f, write, pos, offset, buf, count, dt, datatype, why, sizeof why);
    if (cls != MPI_SUCCESS)
        FILE_FAIL(cls, "%s", why);
    MPI_Offset n = file_etypes(f, count, dt);
    int rc = 0;
    if (pos == POS_INDIV) {
        offset = f->fp;
        f->fp += n;
    } else if (pos == POS_SHARED) {
        rc = io_shfp_fetch_add(f, n, &offset);
    }
    FILE_CHECK_RC(rc, "shared file pointer");
    file_ireq_t *q = calloc(1, sizeof *q);
    request_t *r = q ? proto_request_alloc(REQ_GREQ) : NULL;
    if (!r) {
        free(q);
        FILE_FAIL(MPI_ERR_NO_MEM, "out of requests");
    }
    if ((rc = io_async_start(f, write, offset, buf, count, dt, &q->job)) < 0) {
        free(q);
        proto_request_release(r);
        FILE_CHECK_RC(rc, "starting the access");
    }
    q->f = f;
    q->index = f->index;
    q->r = r;
    r->comm = f->comm;
    f->comm->refcount++; /* the request's, released with it */
    r->gq = file_ireq_query;
    r->gf = file_ireq_free;
    r->gc = file_ireq_cancel;
    r->gw = file_ireq_block;
    r->gstate = q;
    r->refs++; /* the poll's, dropped when it completes the request */
    if (!file_ireq_poll(q) && proto_poll_add(file_ireq_poll, q) < 0) {
        while (!io_async_done(q->job))
            rm_lock_yield();
        file_ireq_poll(q);
    }
    *request = r->handle;
    FILE_END();
}

#define FILE_IRW(name, write, pos, off, cbuf)                                        \
    return file_irw("MPI_File_" #name, fh, (write), (pos), (off), (void *)(cbuf), count, \
                    datatype, request)

RM_ALIAS(File_iread_at)
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    FILE_IRW(iread_at, 0, POS_AT, offset, buf);
}

RM_ALIAS(File_iread_at_c)
int PMPI_File_iread_at_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iread_at_c, 0, POS_AT, offset, buf);
}

RM_ALIAS(File_iwrite_at)
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iwrite_at, 1, POS_AT, offset, buf);
}

RM_ALIAS(File_iwrite_at_c)
int PMPI_File_iwrite_at_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iwrite_at_c, 1, POS_AT, offset, buf);
}

RM_ALIAS(File_iread_at_all)
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iread_at_all, 0, POS_AT, offset, buf);
}

RM_ALIAS(File_iread_at_all_c)
int PMPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iread_at_all_c, 0, POS_AT, offset, buf);
}

RM_ALIAS(File_iwrite_at_all)
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iwrite_at_all, 1, POS_AT, offset, buf);
}

RM_ALIAS(File_iwrite_at_all_c)
int PMPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iwrite_at_all_c, 1, POS_AT, offset, buf);
}

RM_ALIAS(File_iread)
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    FILE_IRW(iread, 0, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iread_c)
int PMPI_File_iread_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    FILE_IRW(iread_c, 0, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iwrite)
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    FILE_IRW(iwrite, 1, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iwrite_c)
int PMPI_File_iwrite_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    FILE_IRW(iwrite_c, 1, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iread_all)
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    FILE_IRW(iread_all, 0, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iread_all_c)
int PMPI_File_iread_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    FILE_IRW(iread_all_c, 0, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iwrite_all)
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    FILE_IRW(iwrite_all, 1, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iwrite_all_c)
int PMPI_File_iwrite_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    FILE_IRW(iwrite_all_c, 1, POS_INDIV, 0, buf);
}

RM_ALIAS(File_iread_shared)
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    FILE_IRW(iread_shared, 0, POS_SHARED, 0, buf);
}

RM_ALIAS(File_iread_shared_c)
int PMPI_File_iread_shared_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                             MPI_Request *request)
{
    FILE_IRW(iread_shared_c, 0, POS_SHARED, 0, buf);
}

RM_ALIAS(File_iwrite_shared)
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    FILE_IRW(iwrite_shared, 1, POS_SHARED, 0, buf);
}

RM_ALIAS(File_iwrite_shared_c)
int PMPI_File_iwrite_shared_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Request *request)
{
    FILE_IRW(iwrite_shared_c, 1, POS_SHARED, 0, buf);
}
