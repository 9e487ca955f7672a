/* The asynchronous progress thread, as in the papers' event thread: it
 * sleeps between health ticks, so heartbeats, failure detection and
 * recovery go on while the application computes outside MPI. Each tick it
 * marks the health check due; if the application is inside MPI (it holds
 * the global lock) its own progress loop runs the check, otherwise this
 * thread takes the lock and makes progress itself — which also moves data
 * of large transfers that would otherwise wait for the next MPI call.
 *
 * It also reads operator commands from mpiexec (`mpiexec -migrate`, over
 * the pipe RAILMPI_CTL_FD names) and has the next progress pass carry them
 * out, as the papers' path migration module does on request.
 *
 * By default (RAILMPI_ASYNC_PROGRESS=auto) it starts with MPI when the job
 * has network paths, and otherwise at the first operation left to the
 * progress engine (a nonblocking or persistent collective, MPI_Comm_idup;
 * proto_poll_add): a job on one host that never leaves work to progress
 * keeps its lock-free fast path. RAILMPI_ASYNC_PROGRESS=on starts it with
 * MPI anyway, off never.
 *
 * While such operations are pending (proto_async_work), or a transport
 * holds frames for its next pass (proto_async_net_busy: a burst of small
 * frames gathering for one send), it does not wait
 * for the next health tick: it makes a progress pass every 10 us, backing
 * off to 1 ms while the passes find nothing to do, so a collective's
 * schedule advances through its rounds while the application computes
 * (a round's local reductions and copies run in whichever thread makes the
 * pass that completes the round before it).
 *
 * Threads: this thread touches the engine only while it holds rm_big_lock
 * (try-locked, so it never waits behind the application). Without the lock
 * it writes only rail_health_due and proto_commands_due (atomics) and the
 * command queue (proto_ctl_lock). */
#include "proto/engine.h"
#include "rail/health.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/lock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pthread_t proto_async_thread;
static int proto_async_running;
static int proto_async_wake = -1; /* eventfd: work has appeared, or stop */
static _Atomic int proto_async_stopping;
static int proto_async_tried; /* started, or found not wanted: not again */
_Atomic int proto_async_work;
int proto_async_wanted;
static _Atomic int proto_async_net; /* a transport holds frames for its next progress pass */

/* Whether passes are wanted soon: operations wait, or a transport holds frames. */
static int proto_async_pending(void)
{
    return atomic_load_explicit(&proto_async_work, memory_order_relaxed) ||
           atomic_load_explicit(&proto_async_net, memory_order_relaxed);
}

/* Operator commands: read by the thread, carried out by progress. */
static int proto_ctl_fd = -1;
static char proto_ctl_buf[256];
static size_t proto_ctl_len;
static pthread_mutex_t proto_ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int rail, off;
} proto_ctl_q[16];
static int proto_ctl_n;
_Atomic int proto_commands_due;

/* Parse what arrived on the pipe into requests; 0 at EOF (mpiexec gone). */
static int proto_ctl_read(void)
{
    ssize_t n = read(proto_ctl_fd, proto_ctl_buf + proto_ctl_len, sizeof proto_ctl_buf - 1 - proto_ctl_len);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return 0;
    proto_ctl_len += (size_t)n;
    proto_ctl_buf[proto_ctl_len] = 0;
    char *line = proto_ctl_buf, *nl;
    while ((nl = strchr(line, '\n'))) {
        *nl = 0;
        char dir[8];
        int rail;
        if (sscanf(line, "migrate %7s %d", dir, &rail) == 2 && (!strcmp(dir, "off") || !strcmp(dir, "on")) &&
            rail >= 0) {
            pthread_mutex_lock(&proto_ctl_lock);
            if (proto_ctl_n < (int)(sizeof proto_ctl_q / sizeof proto_ctl_q[0])) {
                proto_ctl_q[proto_ctl_n].rail = rail;
                proto_ctl_q[proto_ctl_n].off = !strcmp(dir, "off");
                proto_ctl_n++;
                atomic_store_explicit(&proto_commands_due, 1, memory_order_relaxed);
            } else {
                rm_log_error("operator command dropped (too many at once): %s", line);
            }
            pthread_mutex_unlock(&proto_ctl_lock);
        } else {
            rm_log_error("unknown operator command from mpiexec: '%s'", line);
        }
        line = nl + 1;
    }
    proto_ctl_len = strlen(line);
    memmove(proto_ctl_buf, line, proto_ctl_len);
    if (proto_ctl_len == sizeof proto_ctl_buf - 1)
        proto_ctl_len = 0; /* a line longer than any command: drop it */
    return 1;
}

void proto_async_commands(void)
{
    pthread_mutex_lock(&proto_ctl_lock);
    int n = proto_ctl_n;
    __typeof__(proto_ctl_q) q;
    memcpy(q, proto_ctl_q, sizeof q);
    proto_ctl_n = 0;
    atomic_store_explicit(&proto_commands_due, 0, memory_order_relaxed);
    pthread_mutex_unlock(&proto_ctl_lock);
    for (int i = 0; i < n; i++) {
        int changed = proto_rail_migrate(q[i].rail, q[i].off);
        rm_log_info("operator: traffic %s rail %d (%d paths changed)", q[i].off ? "moved off" : "back on",
                    q[i].rail, changed);
    }
}

/* Longest a pass may hold the lock while the application computes. */
#define PROTO_ASYNC_BUDGET (2 * RM_MS)
/* Between passes while work is pending: from the first, doubling while
 * passes find nothing to do (a peer that has not arrived yet), to the last. */
#define PROTO_ASYNC_POLL_MIN ((uint64_t)10000) /* 10 us */
#define PROTO_ASYNC_POLL_MAX (1 * RM_MS)

static void *proto_async_main(void *arg)
{
    (void)arg;
    int period_ms = (int)(rail_health_interval() / RM_MS);
    struct pollfd pfd[2] = {{.fd = proto_async_wake, .events = POLLIN}, {.fd = proto_ctl_fd, .events = POLLIN}};
    uint64_t next = rm_now() + (uint64_t)period_ms * RM_MS;
    int idle = 0;
    /* the default 50 us of timer slack would be most of the short waits */
    prctl(PR_SET_TIMERSLACK, 1000UL);
    for (;;) {
        uint64_t t = rm_now(), wait = t >= next ? 0 : next - t;
        if (proto_async_pending()) {
            uint64_t w = (uint64_t)PROTO_ASYNC_POLL_MIN << (idle < 7 ? idle : 7);
            w = w < PROTO_ASYNC_POLL_MAX ? w : PROTO_ASYNC_POLL_MAX;
            wait = w < wait ? w : wait;
        } else {
            idle = 0;
        }
        struct timespec ts = {(time_t)(wait / 1000000000u), (long)(wait % 1000000000u)};
        int n = ppoll(pfd, pfd[1].fd >= 0 ? 2 : 1, &ts, NULL);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && pfd[0].revents) {
            uint64_t v;
            if (read(proto_async_wake, &v, sizeof v) < 0 && errno != EAGAIN && errno != EINTR)
                break;
            if (atomic_load(&proto_async_stopping))
                break;
            idle = 0;
        }
        if (n > 0 && pfd[1].revents && !proto_ctl_read())
            pfd[1].fd = -1; /* mpiexec closed it: no more commands */
        if (rm_now() >= next) {
            atomic_store_explicit(&rail_health_due, 1, memory_order_relaxed);
            next = rm_now() + (uint64_t)period_ms * RM_MS;
        } else if (!atomic_load_explicit(&proto_commands_due, memory_order_relaxed) && !proto_async_pending()) {
            continue;
        }
        if (pthread_mutex_trylock(&rm_big_lock) != 0) {
            idle++; /* the application is in MPI: its progress runs */
            continue;
        }
        uint64_t t0 = rm_now();
        int moved = 0, k;
        while ((k = proto_progress()) > 0 && rm_now() - t0 < PROTO_ASYNC_BUDGET)
            moved += k;
        pthread_mutex_unlock(&rm_big_lock);
        idle = moved ? 0 : idle + 1;
    }
    return NULL;
}

static rm_status_t proto_async_launch(void)
{
    if ((proto_async_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        rm_log_error("cannot create the progress thread's eventfd: %s", strerror(errno));
        return RM_ERR_IO;
    }
    atomic_store(&proto_async_stopping, 0);
    /* from now on every MPI entry takes the lock the thread honours; under
     * MPI_THREAD_MULTIPLE it already does, and other threads read the flag
     * at every entry without the lock: no write then */
    if (!rm_lock_enabled)
        rm_lock_enabled = 1;
    int e = pthread_create(&proto_async_thread, NULL, proto_async_main, NULL);
    if (e) {
        rm_log_error("cannot start the progress thread: %s", strerror(e));
        close(proto_async_wake);
        proto_async_wake = -1;
        return RM_ERR_IO;
    }
    pthread_setname_np(proto_async_thread, "railmpi-async"); /* for top -H, gdb, tests */
    proto_async_running = 1;
    return RM_OK;
}

void proto_async_kick(void)
{
    if (proto_async_running) {
        uint64_t one = 1;
        if (write(proto_async_wake, &one, sizeof one) != sizeof one && errno != EAGAIN)
            rm_log_error("cannot wake the progress thread: %s", strerror(errno));
        return;
    }
    if (proto_async_tried || strcasecmp(RM_CFG_STR(async_progress), "auto"))
        return;
    proto_async_tried = 1;
    /* Started inside an MPI call that took no lock: take it once, for the
     * call's own unlock on the way out (the lock is recursive; when the
     * call is nested in another that took none, that one's unlock finds
     * the lock not held and does nothing). */
    int had = rm_lock_enabled;
    if (proto_async_launch() == RM_OK && !had)
        pthread_mutex_lock(&rm_big_lock);
}

/* A transport's net_upcalls_t.busy (called under the engine's lock): while
 * it holds frames, the thread polls as for pending work, so they leave
 * within tens of microseconds even if the application computes outside MPI;
 * it is woken when they appear, as for work (proto_poll_add). */
void proto_async_net_busy(int busy)
{
    if (!atomic_exchange_explicit(&proto_async_net, busy, memory_order_relaxed) && busy)
        proto_async_kick();
}

rm_status_t proto_async_start(void)
{
    if (proto_async_running)
        return RM_OK;
    if (RM_CFG(ctl_fd) >= 0 && proto_ctl_fd < 0 && fcntl((int)RM_CFG(ctl_fd), F_GETFD) >= 0) {
        proto_ctl_fd = (int)RM_CFG(ctl_fd);
        fcntl(proto_ctl_fd, F_SETFD, FD_CLOEXEC); /* not for the application's children */
    }
    const char *mode = RM_CFG_STR(async_progress);
    int forced = !strcasecmp(mode, "on"), off = !strcasecmp(mode, "off");
    if (!forced && !off && strcasecmp(mode, "auto")) {
        rm_log_error("RAILMPI_ASYNC_PROGRESS='%s': expected auto, on or off", mode);
        return RM_ERR_INVALID;
    }
    if ((!rail_net_list && !forced && !proto_async_wanted) || off) {
        /* no network rails, nothing to migrate: mpiexec sees the pipe
         * closed (auto may still start the thread for pending work) */
        if (proto_ctl_fd >= 0)
            close(proto_ctl_fd);
        proto_ctl_fd = -1;
        return RM_OK;
    }
    proto_async_tried = 1;
    return proto_async_launch();
}

void proto_async_stop(void)
{
    if (!proto_async_running)
        return;
    uint64_t one = 1;
    atomic_store(&proto_async_stopping, 1);
    if (write(proto_async_wake, &one, sizeof one) != sizeof one)
        rm_log_error("cannot wake the progress thread: %s", strerror(errno));
    /* the caller holds the lock; the thread only ever try-locks it */
    pthread_join(proto_async_thread, NULL);
    close(proto_async_wake);
    proto_async_wake = -1;
    proto_async_running = 0;
    if (proto_ctl_fd >= 0)
        close(proto_ctl_fd);
    proto_ctl_fd = -1;
}
