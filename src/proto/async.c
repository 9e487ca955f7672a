/* The asynchronous progress thread, as in the papers' event thread: it
 * sleeps between health ticks, so heartbeats, failure detection and
 * recovery go on while the application computes outside MPI. Each tick it
 * marks the health check due; if the application is inside MPI (it holds
 * the global lock) its own progress loop runs the check, otherwise this
 * thread takes the lock and makes progress itself — which also moves data
 * of large transfers that would otherwise wait for the next MPI call.
 *
 * It runs only when the job has network paths: a job on one host keeps its
 * lock-free fast path. */
#include "proto/engine.h"
#include "rail/health.h"
#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static pthread_t proto_async_thread;
static int proto_async_running;
static int proto_async_wake = -1; /* eventfd: stop */

/* Longest a pass may hold the lock while the application computes. */
#define PROTO_ASYNC_BUDGET (2 * RM_MS)

static void *proto_async_main(void *arg)
{
    (void)arg;
    int period_ms = (int)(rail_health_interval() / RM_MS);
    struct pollfd pfd = {.fd = proto_async_wake, .events = POLLIN};
    for (;;) {
        int n = poll(&pfd, 1, period_ms);
        if (n > 0 || (n < 0 && errno != EINTR))
            break;
        rail_health_due = 1;
        if (pthread_mutex_trylock(&rm_big_lock) != 0)
            continue; /* the application is in MPI: its progress runs the tick */
        uint64_t t0 = rm_now();
        while (proto_progress() > 0 && rm_now() - t0 < PROTO_ASYNC_BUDGET)
            ;
        pthread_mutex_unlock(&rm_big_lock);
    }
    return NULL;
}

rm_status_t proto_async_start(void)
{
    if (proto_async_running || !rail_net_list)
        return RM_OK;
    if ((proto_async_wake = eventfd(0, EFD_CLOEXEC)) < 0) {
        rm_log_error("cannot create the progress thread's eventfd: %s", strerror(errno));
        return RM_ERR_IO;
    }
    /* from now on every MPI entry takes the lock the thread honours */
    rm_lock_enabled = 1;
    int e = pthread_create(&proto_async_thread, NULL, proto_async_main, NULL);
    if (e) {
        rm_log_error("cannot start the progress thread: %s", strerror(e));
        close(proto_async_wake);
        proto_async_wake = -1;
        return RM_ERR_IO;
    }
    proto_async_running = 1;
    return RM_OK;
}

void proto_async_stop(void)
{
    if (!proto_async_running)
        return;
    uint64_t one = 1;
    if (write(proto_async_wake, &one, sizeof one) != sizeof one)
        rm_log_error("cannot wake the progress thread: %s", strerror(errno));
    /* the caller holds the lock; the thread only ever try-locks it */
    pthread_join(proto_async_thread, NULL);
    close(proto_async_wake);
    proto_async_wake = -1;
    proto_async_running = 0;
}
