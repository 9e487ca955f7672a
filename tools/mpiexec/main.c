/* mpiexec: start the ranks of a job on this host, serve their PMI-1
 * requests, forward their output line by line, and turn their fate into one
 * exit status. A failed rank brings the whole job down; no process outlives
 * the job (every rank dies with mpiexec, by PR_SET_PDEATHSIG and a kill of
 * its process group). */
#include "pmi_server.h"
#include "util/config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <hwloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct out_stream {
    int fd;
    char buf[4096];
    size_t len;
    FILE *to;
} out_stream_t;

typedef struct rank_proc {
    pid_t pid;
    int exited, status, finalized;
    out_stream_t out, err;
} rank_proc_t;

typedef struct job {
    int guard_fd;     /* pipe to the guardian, -1 if none */
    int n;
    int label;
    double timeout;
    const char *bind;
    char **argv;
    char **env_extra; /* NAME=VALUE */
    int nenv_extra;
    int genvnone;
    rank_proc_t *ranks;
    pmi_server_t *pmi;
    int failed;       /* first failure decides the exit code */
    int exit_code;
    int aborting;
} job_t;

static volatile sig_atomic_t mpiexec_signal;

static void mpiexec_on_signal(int sig)
{
    mpiexec_signal = sig;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [options] program [args...]\n"
            "  -n, -np N            number of ranks (default 1)\n"
            "  -genv NAME VALUE     set NAME=VALUE for every rank\n"
            "  -env NAME VALUE      same as -genv (single program)\n"
            "  -genvall             pass the whole environment (default)\n"
            "  -genvnone            pass only what -genv sets\n"
            "  -l                   label each output line with [rank]\n"
            "  --timeout, -timeout S  end the job after S seconds (exit 124); also MPIEXEC_TIMEOUT\n"
            "  -bind-to core|socket|none  bind ranks (default core; none when oversubscribed)\n"
            "  --help-vars          list railmpi's RAILMPI_* settings\n"
            "  --version, --help\n");
}

static void job_kill(job_t *j, int sig)
{
    for (int i = 0; i < j->n; i++)
        if (j->ranks[i].pid > 0 && !j->ranks[i].exited)
            kill(-j->ranks[i].pid, sig); /* the rank's whole process group */
}

static void job_fail(job_t *j, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void job_fail(job_t *j, int code, const char *fmt, ...)
{
    if (j->failed)
        return;
    j->failed = 1;
    j->exit_code = code;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpiexec: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    j->aborting = 1;
    job_kill(j, SIGTERM);
}

static void on_abort(void *ctx, int rank, int code, const char *msg)
{
    job_t *j = ctx;
    job_fail(j, code ? code : 1, "rank %d (pid %d) called MPI_Abort with code %d", rank,
             (int)j->ranks[rank].pid, code);
}

static void on_finalized(void *ctx, int rank)
{
    ((job_t *)ctx)->ranks[rank].finalized = 1;
}

/* Forward complete lines, labelled; `eof` flushes a partial last line. */
static void out_flush(job_t *j, int rank, out_stream_t *s, int eof)
{
    size_t start = 0;
    for (size_t i = 0; i < s->len; i++) {
        if (s->buf[i] != '\n')
            continue;
        if (j->label)
            fprintf(s->to, "[%d] ", rank);
        fwrite(s->buf + start, 1, i + 1 - start, s->to);
        start = i + 1;
    }
    if ((eof || start == 0) && s->len - start == sizeof s->buf) {
        eof = 1; /* a line longer than the buffer goes out in pieces */
    }
    if (eof && start < s->len) {
        if (j->label)
            fprintf(s->to, "[%d] ", rank);
        fwrite(s->buf + start, 1, s->len - start, s->to);
        fputc('\n', s->to);
        start = s->len;
    }
    fflush(s->to);
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

static void out_read(job_t *j, int rank, out_stream_t *s)
{
    ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
    if (n < 0 && errno == EINTR)
        return;
    if (n <= 0) {
        out_flush(j, rank, s, 1);
        close(s->fd);
        s->fd = -1;
        return;
    }
    s->len += (size_t)n;
    out_flush(j, rank, s, 0);
}

static void bind_child(hwloc_topology_t topo, const char *how, int rank, int n)
{
    if (!topo || !strcmp(how, "none"))
        return;
    int depth = !strcmp(how, "socket") ? hwloc_get_type_depth(topo, HWLOC_OBJ_PACKAGE)
                                       : hwloc_get_type_depth(topo, HWLOC_OBJ_CORE);
    int units = hwloc_get_nbobjs_by_depth(topo, depth);
    if (units <= 0 || n > units)
        return; /* oversubscribed: let the scheduler place ranks */
    hwloc_obj_t obj = hwloc_get_obj_by_depth(topo, depth, (unsigned)rank);
    if (obj)
        hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_PROCESS);
}

static void secret(char *out, size_t len)
{
    unsigned char r[16] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
            memset(r, 0, sizeof r);
        close(fd);
    }
    for (size_t i = 0; i < sizeof r && 2 * i + 2 < len; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* The guardian outlives mpiexec by design: if mpiexec is killed outright
 * (SIGKILL leaves no chance to clean up), it sees the pipe close and kills
 * every rank's process group, grandchildren included. A clean exit tells it
 * to stand down first. */
static void guardian_start(job_t *j)
{
    int p[2];
    j->guard_fd = -1;
    if (pipe2(p, O_CLOEXEC) < 0)
        return;
    pid_t g = fork();
    if (g < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    if (g == 0) {
        close(p[1]);
        setsid(); /* not in mpiexec's process group: a ^C must not reach us */
        pid_t groups[4096];
        int n = 0;
        int v;
        ssize_t r;
        while ((r = read(p[0], &v, sizeof v)) == (ssize_t)sizeof v || (r < 0 && errno == EINTR)) {
            if (r < 0)
                continue;
            if (v == 0)
                _exit(0); /* clean shutdown */
            if (n < 4096)
                groups[n++] = v;
        }
        for (int i = 0; i < n; i++)
            kill(-groups[i], SIGKILL);
        _exit(0);
    }
    close(p[0]);
    j->guard_fd = p[1];
}

static void guardian_tell(job_t *j, int v)
{
    if (j->guard_fd >= 0 && write(j->guard_fd, &v, sizeof v) != (ssize_t)sizeof v) {
        close(j->guard_fd);
        j->guard_fd = -1;
    }
}

static int job_start(job_t *j)
{
    guardian_start(j);
    char kvs[64], sec[40];
    snprintf(kvs, sizeof kvs, "rm%d", (int)getpid());
    secret(sec, sizeof sec);
    pmi_events_t ev = {.abort = on_abort, .finalized = on_finalized};
    j->pmi = pmi_server_new(j->n, kvs, ev, j);
    hwloc_topology_t topo = NULL;
    if (strcmp(j->bind, "none") && hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        topo = NULL;
    }
    pid_t parent = getpid();
    for (int r = 0; r < j->n; r++) {
        int sv[2], out[2], err[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
            pipe2(err, O_CLOEXEC) < 0) {
            perror("mpiexec: socketpair/pipe");
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("mpiexec: fork");
            return -1;
        }
        if (pid == 0) {
            setpgid(0, 0);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(127); /* mpiexec died before we got here */
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGPIPE, SIG_DFL);
            dup2(out[1], 1);
            dup2(err[1], 2);
            if (r != 0) {
                int devnull = open("/dev/null", O_RDONLY);
                if (devnull >= 0)
                    dup2(devnull, 0);
            }
            int pfd = dup(sv[1]); /* without CLOEXEC: the rank inherits it */
            char v[64];
            if (j->genvnone)
                clearenv();
            snprintf(v, sizeof v, "%d", pfd);
            setenv("PMI_FD", v, 1);
            snprintf(v, sizeof v, "%d", r);
            setenv("PMI_RANK", v, 1);
            snprintf(v, sizeof v, "%d", j->n);
            setenv("PMI_SIZE", v, 1);
            snprintf(v, sizeof v, "%d", r);
            setenv("RAILMPI_LOCAL_RANK", v, 1);
            snprintf(v, sizeof v, "%d", j->n);
            setenv("RAILMPI_LOCAL_SIZE", v, 1);
            setenv("RAILMPI_JOB_SECRET", sec, 1);
            unsetenv("PMI_PORT");
            for (int i = 0; i < j->nenv_extra; i++)
                putenv(j->env_extra[i]);
            bind_child(topo, j->bind, r, j->n);
            execvp(j->argv[0], j->argv);
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", j->argv[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        guardian_tell(j, pid);
        close(sv[1]);
        close(out[1]);
        close(err[1]);
        j->ranks[r].pid = pid;
        j->ranks[r].out = (out_stream_t){.fd = out[0], .to = stdout};
        j->ranks[r].err = (out_stream_t){.fd = err[0], .to = stderr};
        pmi_server_attach(j->pmi, r, sv[0]);
    }
    if (topo)
        hwloc_topology_destroy(topo);
    return 0;
}

static void job_reap(job_t *j)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int r = 0; r < j->n; r++) {
            rank_proc_t *p = &j->ranks[r];
            if (p->pid != pid)
                continue;
            p->exited = 1;
            p->status = st;
            kill(-pid, SIGKILL); /* anything the rank left in its group */
            if (j->aborting)
                break;
            if (WIFSIGNALED(st))
                job_fail(j, 128 + WTERMSIG(st), "rank %d (pid %d) was killed by signal %d (%s)", r,
                         (int)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
            else if (WEXITSTATUS(st))
                job_fail(j, WEXITSTATUS(st), "rank %d (pid %d) exited with code %d", r, (int)pid,
                         WEXITSTATUS(st));
            else if (!p->finalized && pmi_server_fd(j->pmi, r) >= 0 && j->n > 1)
                job_fail(j, 1, "rank %d (pid %d) exited without calling MPI_Finalize", r, (int)pid);
        }
    }
}

static int job_done(job_t *j)
{
    for (int r = 0; r < j->n; r++)
        if (!j->ranks[r].exited || j->ranks[r].out.fd >= 0 || j->ranks[r].err.fd >= 0)
            return 0;
    return 1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int job_run(job_t *j)
{
    struct pollfd *pf = calloc((size_t)(3 * j->n), sizeof *pf);
    int *who = calloc((size_t)(3 * j->n), sizeof *who);
    double t0 = now(), kill_at = 0;
    while (!job_done(j)) {
        int k = 0;
        for (int r = 0; r < j->n; r++) {
            int fds[3] = {j->ranks[r].out.fd, j->ranks[r].err.fd, pmi_server_fd(j->pmi, r)};
            for (int i = 0; i < 3; i++) {
                if (fds[i] < 0)
                    continue;
                pf[k] = (struct pollfd){.fd = fds[i], .events = POLLIN};
                who[k++] = r * 3 + i;
            }
        }
        int n = poll(pf, (nfds_t)k, 100);
        for (int i = 0; n > 0 && i < k; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int r = who[i] / 3, what = who[i] % 3;
            if (what == 0)
                out_read(j, r, &j->ranks[r].out);
            else if (what == 1)
                out_read(j, r, &j->ranks[r].err);
            else
                pmi_server_input(j->pmi, r);
        }
        job_reap(j);
        if (mpiexec_signal) {
            int sig = mpiexec_signal;
            mpiexec_signal = 0;
            job_kill(j, sig);
            job_fail(j, 128 + sig, "received signal %d (%s); ending the job", sig, strsignal(sig));
        }
        if (j->timeout > 0 && !j->failed && now() - t0 > j->timeout)
            job_fail(j, 124, "timeout: the job ran longer than %.0f s", j->timeout);
        if (j->aborting && !kill_at)
            kill_at = now() + 2;
        if (kill_at && now() > kill_at) {
            job_kill(j, SIGKILL);
            kill_at = now() + 1;
        }
    }
    free(pf);
    free(who);
    return j->failed ? j->exit_code : 0;
}

int main(int argc, char **argv)
{
    job_t j = {.n = 1, .bind = "core", .guard_fd = -1};
    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t)
        j.timeout = atof(t);
    j.env_extra = calloc((size_t)argc, sizeof *j.env_extra);
    int i = 1, rc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if ((!strcmp(a, "-n") || !strcmp(a, "-np")) && more) {
            j.n = atoi(argv[++i]);
            if (j.n < 1) {
                fprintf(stderr, "mpiexec: -n needs a positive number, not '%s'\n", argv[i]);
                rc = 2;
                goto out;
            }
        } else if ((!strcmp(a, "-genv") || !strcmp(a, "-env")) && i + 2 < argc) {
            size_t l = strlen(argv[i + 1]) + strlen(argv[i + 2]) + 2;
            char *kv = malloc(l);
            snprintf(kv, l, "%s=%s", argv[i + 1], argv[i + 2]);
            j.env_extra[j.nenv_extra++] = kv;
            i += 2;
        } else if (!strcmp(a, "-genvall")) {
            j.genvnone = 0;
        } else if (!strcmp(a, "-genvnone")) {
            j.genvnone = 1;
        } else if (!strcmp(a, "-l")) {
            j.label = 1;
        } else if ((!strcmp(a, "--timeout") || !strcmp(a, "-timeout") || !strcmp(a, "-t")) && more) {
            j.timeout = atof(argv[++i]);
        } else if (!strcmp(a, "-bind-to") && more) {
            j.bind = argv[++i];
            if (strcmp(j.bind, "core") && strcmp(j.bind, "socket") && strcmp(j.bind, "none")) {
                fprintf(stderr, "mpiexec: -bind-to takes core, socket or none, not '%s'\n", j.bind);
                rc = 2;
                goto out;
            }
        } else if (!strcmp(a, "--help-vars") || !strcmp(a, "-help-vars")) {
            rm_config_print_help(stdout);
            goto out;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "-help")) {
            usage(stdout);
            goto out;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
            printf("railmpi mpiexec %s\n", RAILMPI_VERSION_STRING);
            goto out;
        } else {
            fprintf(stderr, "mpiexec: unknown or incomplete option '%s' (see mpiexec --help)\n", a);
            rc = 2;
            goto out;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program to run (see mpiexec --help)\n");
        rc = 2;
        goto out;
    }
    j.argv = argv + i;
    j.ranks = calloc((size_t)j.n, sizeof *j.ranks);
    struct sigaction sa = {.sa_handler = mpiexec_on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (job_start(&j) < 0) {
        job_kill(&j, SIGKILL);
        rc = 1;
    } else {
        rc = job_run(&j);
    }
    guardian_tell(&j, 0);
    if (j.pmi)
        pmi_server_free(j.pmi);
out:
    for (int k = 0; k < j.nenv_extra; k++)
        free(j.env_extra[k]);
    free(j.env_extra);
    free(j.ranks);
    return rc;
}
