/* mpiexec's side of process fault tolerance (-disable-auto-cleanup,
 * RAILMPI_PROC_FT=1; docs/ulfm.md): the failure board every local rank
 * maps, a rank's or a whole host's death reported instead of ending the
 * job, mpiexec as the arbiter of a partition past the timeout, and the
 * SIGCHLD wake-up that reports a death at once. */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* Process fault tolerance: a child's end wakes the poll loop at once (a
 * byte on this pipe), so its death reaches the other ranks without waiting
 * for the loop's timeout. A rank's pipes close as it exits, just before it
 * can be reaped: the poll they wake found no child to reap, and the death
 * waited 100 ms for the next pass. */
static int job_chld_pipe[2] = {-1, -1};

static void job_on_chld(int sig)
{
    (void)sig;
    int e = errno;
    if (write(job_chld_pipe[1], "", 1) < 0) {
        /* full: a wake-up is pending anyway */
    }
    errno = e;
}

/* The failure board (process fault tolerance): a page of shared memory
 * this process writes and its ranks read, with one load in each progress
 * pass, the first word telling whether anything changed (src/proto/ft.c).
 * Without it the job runs, but its ranks learn of no death. */
void job_ft_board(job_t *j)
{
    size_t len = sizeof(uint32_t) * ((size_t)j->world + 1);
    j->ft_fd = memfd_create("railmpi-failures", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (j->ft_fd >= 0 && ftruncate(j->ft_fd, (off_t)len) == 0)
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, j->ft_fd, 0);
    j->ft_listed = calloc((size_t)j->world, 1);
    if (p == MAP_FAILED || !j->ft_listed) {
        fprintf(stderr, "mpiexec: no failure board (%s): ranks will not learn of deaths\n", strerror(errno));
        if (p != MAP_FAILED)
            munmap(p, len);
        if (j->ft_fd >= 0)
            close(j->ft_fd);
        j->ft_fd = -1;
        return;
    }
    j->ft_board = p;
}

/* World rank g is dead: on the board once (the slot, then the count). */
void job_ft_list(job_t *j, int g)
{
    if (!j->ft_board || g < 0 || g >= j->world || j->ft_listed[g])
        return;
    j->ft_listed[g] = 1;
    uint32_t n = atomic_load_explicit(&j->ft_board[0], memory_order_relaxed);
    atomic_store_explicit(&j->ft_board[1 + n], (uint32_t)g, memory_order_relaxed);
    atomic_store_explicit(&j->ft_board[0], n + 1, memory_order_release);
}

/* Process fault tolerance: world rank g died. The ranks of this host read
 * it on the board; a proxy tells mpiexec, which tells the other hosts'
 * proxies (remote_input). */
void job_rank_failed(job_t *j, int g, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpiexec: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; the job goes on (process fault tolerance)\n");
    va_end(ap);
    if (!j->ft_code)
        j->ft_code = code;
    job_ft_list(j, g);
    if (j->up.fd >= 0 && ctl_send(j->up.fd, "failed %d\n", g) < 0)
        job_fail(j, 1, "lost the connection to mpiexec");
}

/* Process fault tolerance: proxy h died (killed, or its host is gone: ssh
 * gives up with 255), and with it every rank of its host (they die with
 * their proxy): each is reported to the other hosts as dead. */
void remote_host_failed(job_t *j, int h, int st)
{
    int first = j->host_first[h], n = j->host_count[h];
    if (!j->ft_code)
        j->ft_code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    if (j->host_dead[h])
        return; /* declared dead before (remote_host_lost) */
    j->host_dead[h] = 1;
    fprintf(stderr, "mpiexec: the proxy on host %s (ranks %d-%d) ended with %s %d; its ranks are dead, the job goes on "
            "(process fault tolerance)\n", j->hosts[h], first, first + n - 1, WIFSIGNALED(st) ? "signal" : "code",
            WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    for (int p = 0; p < j->nhosts; p++)
        if (p != h && j->ctl[p].fd >= 0)
            for (int g = first; g < first + n; g++)
                ctl_send(j->ctl[p].fd, "failed %d\n", g);
}

/* Process fault tolerance: a rank of host h found world rank g unreachable
 * past the partition timeout. mpiexec is the arbiter: the first such report
 * between two hosts decides, the host of g is dead (its proxy and ranks are
 * killed, wherever it can still be reached) and every other host is told;
 * reports from a host already dead count for nothing. */
void remote_host_lost(job_t *j, int h, int g)
{
    int hg = -1;
    for (int p = 0; p < j->nhosts; p++)
        if (g >= j->host_first[p] && g < j->host_first[p] + j->host_count[p])
            hg = p;
    if (hg < 0 || hg == h || j->host_dead[h] || j->host_dead[hg])
        return;
    fprintf(stderr, "mpiexec: host %s finds rank %d on host %s unreachable past the partition timeout: host %s "
            "counts as dead (process fault tolerance)\n", j->hosts[h], g, j->hosts[hg], j->hosts[hg]);
    if (j->ranks[hg].pid > 0 && !j->ranks[hg].exited)
        kill(-j->ranks[hg].pid, SIGKILL); /* the launcher's process group: the proxy, and its ranks with it */
    remote_host_failed(j, hg, SIGKILL); /* as killed: exit code 137 */
}

void job_chld_watch(void)
{
    if (pipe2(job_chld_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return; /* deaths wait for the poll loop's timeout */
    struct sigaction sc = {.sa_handler = job_on_chld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigaction(SIGCHLD, &sc, NULL);
}

int job_chld_fd(void)
{
    return job_chld_pipe[0];
}

void job_chld_drain(void)
{
    char b[64];
    while (read(job_chld_pipe[0], b, sizeof b) > 0)
        ;
}
