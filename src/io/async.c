/* Nonblocking data access (MPI_File_i*): the transfer runs on a worker
 * thread while the caller goes on; the binding's request polls the job's
 * `done` flag from progress. Workers are made on demand, one per job that
 * finds none idle (up to IO_ASYNC_MAX; beyond, jobs queue), because a job
 * may wait long in the file system (an fcntl lock another process holds in
 * atomic mode) and must not hold back the jobs queued behind it. An idle
 * worker ends after a few seconds, so a program that stops doing
 * nonblocking I/O keeps no threads.
 *
 * A small access (IO_ASYNC_INLINE bytes or fewer, not in atomic mode, none
 * of this process's accesses to the file pending) is done at the call
 * instead: through a contiguous view it is one pread/pwrite of a few
 * microseconds, which handing it to a worker and completing it from
 * progress would cost several times over. It waits for no other process
 * (atomic mode's locks are excluded; a write-sieving lock is held only
 * for one read-modify-write) and for no access of its own process.
 *
 * A blocking wait for one access (MPI_Wait: io_async_block) takes its job
 * back if no worker has started it, and otherwise sleeps until a worker
 * finishes a job, a bounded time so the wait still makes progress: a waiter
 * that spun beside the worker took half the core from it (a process bound
 * to one core runs its workers there too), and 1 MiB iwrite_at + wait of 2
 * processes through a subarray view ran at 0.7-0.8 of write_at.
 *
 * The workers touch only the job, the file's descriptor and its view (which
 * MPI-3.1 13.3 forbids changing while requests are pending: set_view and
 * close wait for them anyway), never the communication engine. */
#include "io/io.h"
#include "util/lock.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define IO_ASYNC_MAX 16
#define IO_ASYNC_IDLE_S 5
#define IO_ASYNC_INLINE 65536

struct io_job {
    io_file_t *f;
    int write;
    MPI_Offset off;
    void *buf;
    MPI_Count count;
    dtype_t *dt;
    MPI_Count bytes;
    int rc;
    _Atomic int done;
    int taken; /* by a worker or a waiter (under io_async_mu) */
    struct io_job *next;
};

static pthread_mutex_t io_async_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t io_async_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t io_async_done_cv = PTHREAD_COND_INITIALIZER; /* a job finished */
static int io_async_waiters;
static io_job_t *io_async_head, *io_async_tail;
static int io_async_threads, io_async_idle;

static void io_job_run(io_job_t *j)
{
    j->rc = j->write ? io_write(j->f, j->off, j->buf, j->count, j->dt, &j->bytes)
                     : io_read(j->f, j->off, j->buf, j->count, j->dt, &j->bytes);
    atomic_fetch_sub(&j->f->pending, 1);
    atomic_store(&j->done, 1);
}

/* A worker's job finished: wake a waiter sleeping in io_async_block. */
static void io_job_finished(void)
{
    if (io_async_waiters)
        pthread_cond_broadcast(&io_async_done_cv);
}

static void *io_async_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&io_async_mu);
    for (;;) {
        while (!io_async_head) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += IO_ASYNC_IDLE_S;
            io_async_idle++;
            int rc = pthread_cond_timedwait(&io_async_cv, &io_async_mu, &until);
            io_async_idle--;
            if (rc == ETIMEDOUT && !io_async_head) {
                io_async_threads--;
                pthread_mutex_unlock(&io_async_mu);
                return NULL;
            }
        }
        io_job_t *j = io_async_head;
        io_async_head = j->next;
        if (!io_async_head)
            io_async_tail = NULL;
        j->taken = 1;
        pthread_mutex_unlock(&io_async_mu);
        io_job_run(j);
        pthread_mutex_lock(&io_async_mu);
        io_job_finished();
    }
}

int io_async_start(io_file_t *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                   dtype_t *dt, io_job_t **out)
{
    io_job_t *j = calloc(1, sizeof *j);
    if (!j)
        return -ENOMEM;
    *j = (io_job_t){.f = f, .write = write, .off = off, .buf = buf, .count = count, .dt = dt};
    dtype_addref(dt); /* the application may free its datatype at once */
    atomic_fetch_add(&f->pending, 1);
    if (!f->atomic && count * dt->size <= IO_ASYNC_INLINE && atomic_load(&f->pending) == 1) {
        io_job_run(j); /* the pending access is this one */
        *out = j;
        return 0;
    }
    pthread_mutex_lock(&io_async_mu);
    if (io_async_tail)
        io_async_tail->next = j;
    else
        io_async_head = j;
    io_async_tail = j;
    int run_here = 0;
    if (io_async_idle == 0 && io_async_threads < IO_ASYNC_MAX) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, io_async_worker, NULL) == 0)
            io_async_threads++;
        else if (io_async_threads == 0)
            run_here = 1; /* no thread at all: the access completes at the call */
        pthread_attr_destroy(&a);
    } else {
        pthread_cond_signal(&io_async_cv);
    }
    if (run_here) {
        io_async_head = io_async_tail = NULL;
        pthread_mutex_unlock(&io_async_mu);
        io_job_run(j);
    } else {
        pthread_mutex_unlock(&io_async_mu);
    }
    *out = j;
    return 0;
}

/* Take j off the queue if no worker has it (under io_async_mu): 1 if taken. */
static int io_async_take(io_job_t *j)
{
    if (j->taken)
        return 0;
    io_job_t *prev = NULL;
    for (io_job_t *q = io_async_head; q != j; prev = q, q = q->next)
        if (!q)
            return 0;
    if (prev)
        prev->next = j->next;
    else
        io_async_head = j->next;
    if (io_async_tail == j)
        io_async_tail = prev;
    j->taken = 1;
    return 1;
}

void io_async_block(io_job_t *j, long max_ns)
{
    if (atomic_load(&j->done))
        return;
    pthread_mutex_lock(&io_async_mu);
    if (io_async_take(j)) {
        pthread_mutex_unlock(&io_async_mu);
        io_job_run(j); /* in the waiting thread, as a blocking access would */
        return;
    }
    if (!atomic_load(&j->done)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += max_ns;
        while (until.tv_nsec >= 1000000000L) {
            until.tv_nsec -= 1000000000L;
            until.tv_sec++;
        }
        /* other threads of an MPI_THREAD_MULTIPLE process go on meanwhile */
        rm_unlock();
        io_async_waiters++;
        while (!atomic_load(&j->done))
            if (pthread_cond_timedwait(&io_async_done_cv, &io_async_mu, &until) == ETIMEDOUT)
                break;
        io_async_waiters--;
        pthread_mutex_unlock(&io_async_mu);
        rm_lock();
        return;
    }
    pthread_mutex_unlock(&io_async_mu);
}

int io_async_done(const io_job_t *j)
{
    return atomic_load(&j->done);
}

int io_async_result(const io_job_t *j, MPI_Count *bytes)
{
    *bytes = j->bytes;
    return j->rc;
}

void io_async_free(io_job_t *j)
{
    dtype_release(j->dt);
    free(j);
}
