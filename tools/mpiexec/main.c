/* mpiexec: start the ranks of a job on this host, serve their PMI-1
 * requests, forward their output line by line, and turn their fate into one
 * exit status. A failed rank brings the whole job down, unless the job is
 * fault tolerant (-disable-auto-cleanup or RAILMPI_PROC_FT=1): then its
 * death is reported to the other ranks, which go on, and only the exit
 * status tells of it. No process outlives the job (every rank dies with
 * mpiexec, by PR_SET_PDEATHSIG and a kill of its process group). */
#include "control.h"
#include "job.h"
#include "pmi_server.h"
#include "remote.h"
#include "spawn.h"
#include "util/config.h"
#include "util/sock.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <fcntl.h>
#include <hwloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t mpiexec_signal;

static void mpiexec_on_signal(int sig)
{
    mpiexec_signal = sig;
}

double job_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int job_env_entry_valid(const char *kv)
{
    const char *eq = strchr(kv, '=');
    return eq && eq > kv;
}

/* Takes ownership of `kv` (NAME=VALUE). */
int job_env_add(job_t *j, char *kv)
{
    if (j->nenv_extra == j->capenv_extra) {
        int cap = j->capenv_extra ? 2 * j->capenv_extra : 64;
        char **e = realloc(j->env_extra, sizeof *e * (size_t)cap);
        if (!e) {
            free(kv);
            return -1;
        }
        j->env_extra = e;
        j->capenv_extra = cap;
    }
    j->env_extra[j->nenv_extra++] = kv;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [options] program [args...]\n"
            "  -n, -np N            number of ranks (default 1)\n"
            "  -genv NAME VALUE     set NAME=VALUE for every rank\n"
            "  -env NAME VALUE      same as -genv (single program)\n"
            "  -genvall             pass the whole environment (default)\n"
            "  -abi openmpi         run programs built with Open MPI's mpicc (libmpi.so.40)\n"
            "  -genvnone            pass only what -genv sets\n"
            "  -l                   label each output line with [rank]\n"
            "  -initial-errhandler mpi_errors_are_fatal|mpi_errors_abort|mpi_errors_return\n"
            "                       the ranks' initial error handler (MPI-4.1 9.3): for errors tied\n"
            "                       to no object outside MPI_Init..MPI_Finalize, and the handler\n"
            "                       MPI_COMM_WORLD and MPI_COMM_SELF start with (default fatal)\n"
            "  -disable-auto-cleanup  a rank that dies does not end the job: the others are told\n"
            "                       (process fault tolerance, MPIX_Comm_*; also RAILMPI_PROC_FT=1);\n"
            "                       the exit code still reports it\n"
            "  --timeout, -timeout S  end the job after S seconds (exit 124); also MPIEXEC_TIMEOUT\n"
            "  -bind-to core|socket|none  bind ranks (default core; none when oversubscribed)\n"
            "  -hosts H1,H2,...     run on these hosts (one proxy each, started by the launcher)\n"
            "  -f FILE              hosts from a file, one per line\n"
            "  -ppn N               ranks per host (default 1, or -n spread over the hosts)\n"
            "  -usize N             MPI_UNIVERSE_SIZE: how many processes the job may usefully\n"
            "                       have, spawned ones included (default: the job's size)\n"
            "  -launcher-exec CMD   start proxies as `CMD HOST COMMAND...` (default ssh)\n"
            "  -iface IFACE         the interface (or address) proxies reach mpiexec on\n"
            "  -nameserver DIR      the name service's directory (MPI_Publish_name, MPI_Lookup_name):\n"
            "                       one file per name; default $TMPDIR/railmpi-names-UID, shared by\n"
            "                       the user's jobs on this host (give a shared directory for jobs\n"
            "                       on several hosts); a job's names go when it ends\n"
            "dynamic processes: MPI_Open_port/Comm_accept/Comm_connect/Comm_join between jobs;\n"
            "  MPI_Comm_spawn(_multiple) starts its job as another mpiexec on the spawning rank's host, with\n"
            "  the info keys wdir (directory), path (where to look for the program) and host (this\n"
            "  host, or another of the -hosts list: the new job's ranks start there through the\n"
            "  launcher; the commands of one spawn go to one host); this mpiexec ends after the\n"
            "  jobs it spawned\n"
            "  (ranks started by a PMIx server instead, srun --mpi=pmix or Open MPI's mpirun, spawn\n"
            "  through PMIx_Spawn where the server implements it)\n"
            "operator commands to a running job (another shell, same user and host as its mpiexec):\n"
            "  -migrate off|on RAIL [-job PID]  move every rank's traffic off network rail RAIL\n"
            "                       (it stays connected, ready to come back) or back onto it; PID\n"
            "                       is the job's mpiexec, needed only when several jobs run\n"
            "  --help-vars          list railmpi's RAILMPI_* settings\n"
            "  --version, --help\n");
}

static void job_kill(job_t *j, int sig)
{
    for (int i = 0; i < j->nspawned; i++)
        if (j->spawned[i] > 0)
            kill(-j->spawned[i], sig);
    for (int i = 0; i < j->n; i++)
        if (j->ranks[i].pid > 0 && !j->ranks[i].exited)
            kill(-j->ranks[i].pid, sig); /* the rank's whole process group */
}

void job_fail(job_t *j, int code, const char *fmt, ...)
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

#define ABORT_GRACE 0.5

static void on_abort(void *ctx, int rank, int code, const char *msg)
{
    job_t *j = ctx;
    (void)msg;
    j->ranks[rank].aborted = 1;
    if (j->failed || j->abort_rank >= 0)
        return;
    j->abort_rank = rank;
    j->abort_code = code;
    j->abort_at = job_now();
}

/* The pending abort ends the job once its grace is over (or at once). */
static void abort_settle(job_t *j, int at_once)
{
    if (j->abort_rank < 0 || (!at_once && job_now() - j->abort_at < ABORT_GRACE))
        return;
    int r = j->abort_rank, code = j->abort_code;
    j->abort_rank = -1;
    job_fail(j, code ? code : 1, "rank %d (pid %d) called MPI_Abort with code %d", j->first + r,
             (int)j->ranks[r].pid, code);
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
        if (j->label && !j->remote)
            fprintf(s->to, "[%d] ", j->first + rank);
        fwrite(s->buf + start, 1, i + 1 - start, s->to);
        start = i + 1;
    }
    if ((eof || start == 0) && s->len - start == sizeof s->buf) {
        eof = 1; /* a line longer than the buffer goes out in pieces */
    }
    if (eof && start < s->len) {
        if (j->label && !j->remote)
            fprintf(s->to, "[%d] ", j->first + rank);
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

void secret(char *out, size_t len)
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
void guardian_start(job_t *j)
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

void guardian_tell(job_t *j, int v)
{
    if (j->guard_fd >= 0 && write(j->guard_fd, &v, sizeof v) != (ssize_t)sizeof v) {
        close(j->guard_fd);
        j->guard_fd = -1;
    }
}

/* In a freshly forked child (a rank, or a proxy's launcher): its own process
 * group, death with mpiexec, default signals, output into our pipes, and
 * stdin only for the process that hosts rank 0. */
void child_setup(pid_t parent, int out, int err, int keep_stdin)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127); /* mpiexec died before we got here */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    dup2(out, 1);
    dup2(err, 2);
    if (!keep_stdin) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
    }
}

static int on_spawn(void *ctx, int rank, const char *const *const *blocks, const int *lines, int nblocks,
                    char *msg, size_t msglen)
{
    job_t *j = ctx;
    (void)rank;
    char self[4096];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    self[l > 0 ? l : 0] = 0;
    pid_t *sp = realloc(j->spawned, sizeof *sp * (size_t)(j->nspawned + 1));
    if (!sp) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    j->spawned = sp;
    /* a job on one host has no proxy; RAILMPI_HOST_ID may still name its host */
    const char *hid = j->host_id[0] ? j->host_id : getenv("RAILMPI_HOST_ID");
    spawn_where_t where = {.host_id = hid, .launcher = j->spawn_launcher, .iface = j->launch_ip,
                           .hosts = j->spawn_hosts, .nhosts = j->nspawn_hosts};
    pid_t pid = spawn_start(self, &where, blocks, lines, nblocks, j->env_extra, j->nenv_extra, j->genvnone,
                            msg, msglen);
    if (pid < 0)
        return -1;
    j->spawned[j->nspawned++] = pid;
    return 0;
}

/* The command (of several, --app) that rank r runs; -1 with one program. */
static int job_app_of(const job_t *j, int r)
{
    for (int a = 0; a < j->napps; a++) {
        if (r < j->apps[a].n)
            return a;
        r -= j->apps[a].n;
    }
    return -1;
}

static int job_start(job_t *j)
{
    guardian_start(j);
    char kvs[128], sec[128];
    if (j->up.fd >= 0) {
        snprintf(kvs, sizeof kvs, "%s", j->kvsname);
        snprintf(sec, sizeof sec, "%s", j->job_secret);
    } else {
        snprintf(kvs, sizeof kvs, "rm%d", (int)getpid());
        secret(sec, sizeof sec);
    }
    pmi_events_t ev = {.abort = on_abort, .finalized = on_finalized, .spawn = on_spawn};
    if (j->up.fd >= 0) {
        ev.put = proxy_on_put;
        ev.barrier = proxy_on_barrier;
        ev.lost = proxy_on_lost;
    }
    j->pmi = pmi_server_new(j->n, j->first, j->world, kvs, ev, j);
    if (j->pmi)
        pmi_server_set_universe(j->pmi, j->usize > 0 ? j->usize : j->world);
    for (int i = 0; i + 1 < j->npreput; i += 2)
        pmi_server_kv_put(j->pmi, j->preput[i], j->preput[i + 1]);
    hwloc_topology_t topo = NULL;
    if (strcmp(j->bind, "none") && hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        topo = NULL;
    }
    if (j->proc_ft)
        job_ft_board(j);
    pid_t parent = getpid();
    for (int r = 0; r < j->n; r++) {
        int sv[2], out[2], err[2], ctl[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
            pipe2(err, O_CLOEXEC) < 0 || pipe2(ctl, O_CLOEXEC) < 0) {
            perror("mpiexec: socketpair/pipe");
            return -1;
        }
        pid_t pid = fork();
        if (pid < 0) {
            perror("mpiexec: fork");
            return -1;
        }
        if (pid == 0) {
            child_setup(parent, out[1], err[1], j->first + r == 0);
            int pfd = dup(sv[1]); /* without CLOEXEC: the rank inherits it */
            char v[64];
            if (j->genvnone)
                clearenv();
            /* -genv (on a proxy: what mpiexec forwarded) first, so that what
             * this rank is told about itself below always wins */
            for (int i = 0; i < j->nenv_extra; i++)
                putenv(j->env_extra[i]);
            snprintf(v, sizeof v, "%d", pfd);
            setenv("PMI_FD", v, 1);
            snprintf(v, sizeof v, "%d", dup(ctl[0]));
            setenv("RAILMPI_CTL_FD", v, 1);
            if (j->ft_fd >= 0) {
                snprintf(v, sizeof v, "%d", dup(j->ft_fd)); /* without CLOEXEC: the rank maps it */
                setenv("RAILMPI_FT_FD", v, 1);
            } else {
                unsetenv("RAILMPI_FT_FD");
            }
            snprintf(v, sizeof v, "%d", j->first + r);
            setenv("PMI_RANK", v, 1);
            snprintf(v, sizeof v, "%d", j->world);
            setenv("PMI_SIZE", v, 1);
            if (j->up.fd >= 0) {
                setenv("RAILMPI_HOST_ID", j->host_id, 1);
                setenv("RAILMPI_LAUNCH_ADDR", j->launch_ip, 1);
            }
            snprintf(v, sizeof v, "%d", r);
            setenv("RAILMPI_LOCAL_RANK", v, 1);
            snprintf(v, sizeof v, "%d", j->n);
            setenv("RAILMPI_LOCAL_SIZE", v, 1);
            setenv("RAILMPI_JOB_SECRET", sec, 1);
            unsetenv("PMI_PORT");
            bind_child(topo, j->bind, r, j->n);
            char **av = j->argv;
            int a = job_app_of(j, j->first + r);
            if (a >= 0) {
                av = j->apps[a].argv;
                if (chdir(j->apps[a].wdir) != 0)
                    fprintf(stderr, "mpiexec: cannot enter %s: %s\n", j->apps[a].wdir, strerror(errno));
            }
            execvp(av[0], av);
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", av[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid, pid);
        guardian_tell(j, pid);
        close(sv[1]);
        close(out[1]);
        close(err[1]);
        close(ctl[0]);
        fcntl(ctl[1], F_SETFL, O_NONBLOCK); /* a rank that never reads must not stall mpiexec */
        j->ranks[r].ctl_fd = ctl[1];
        j->ranks[r].pid = pid;
        j->ranks[r].out = (out_stream_t){.fd = out[0], .to = stdout};
        j->ranks[r].err = (out_stream_t){.fd = err[0], .to = stderr};
        pmi_server_attach(j->pmi, r, sv[0]);
        if (job_app_of(j, j->first + r) > 0)
            pmi_server_set_appnum(j->pmi, r, job_app_of(j, j->first + r)); /* MPI_APPNUM */
    }
    if (topo)
        hwloc_topology_destroy(topo);
    return 0;
}

/* ---- operator commands (control.h) ------------------------------------- */

/* To every live local rank's control pipe; returns how many took it. A rank
 * without network rails closes its pipe at MPI_Init: nothing to migrate. */
int job_command_local(job_t *j, const char *cmd)
{
    char line[256];
    int len = snprintf(line, sizeof line, "%s\n", cmd), n = 0;
    for (int r = 0; r < j->n; r++) {
        rank_proc_t *p = &j->ranks[r];
        if (p->ctl_fd >= 0 && !p->exited && write(p->ctl_fd, line, (size_t)len) == len)
            n++;
    }
    return n;
}

static void job_control(job_t *j)
{
    char cmd[256];
    const char *why;
    int fd = control_accept(j->control_fd, cmd, sizeof cmd);
    if (fd < 0)
        return;
    if (!control_valid(cmd, &why)) {
        control_reply(fd, "error: %s", why);
        return;
    }
    fprintf(stderr, "mpiexec: operator command: %s\n", cmd);
    if (!j->remote) {
        int n = job_command_local(j, cmd);
        control_reply(fd, "%s: passed to %d of %d ranks%s", n ? "ok" : "error", n, j->n,
                      n < j->n ? " (a rank without network rails has nothing to migrate)" : "");
        return;
    }
    int hosts = 0;
    for (int h = 0; h < j->nhosts; h++)
        if (j->ctl[h].fd >= 0 && ctl_send(j->ctl[h].fd, "%s\n", cmd) >= 0)
            hosts++;
    control_reply(fd, "%s: passed to the ranks of %d of %d hosts", hosts ? "ok" : "error", hosts, j->nhosts);
}

static void job_reap(job_t *j)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int i = 0; i < j->nspawned; i++)
            if (j->spawned[i] == pid)
                j->spawned[i] = 0; /* a spawned job's fate is its own */
        for (int r = 0; r < j->n; r++) {
            rank_proc_t *p = &j->ranks[r];
            if (p->pid != pid)
                continue;
            p->exited = 1;
            p->status = st;
            kill(-pid, SIGKILL); /* anything the rank left in its group */
            if (j->aborting)
                break;
            if (j->remote) {
                if (j->proc_ft && (WIFSIGNALED(st) || WEXITSTATUS(st) == 255)) {
                    remote_host_failed(j, r, st);
                    continue;
                }
                /* the proxy has already said which rank failed and how */
                if (j->proc_ft && WEXITSTATUS(st)) {
                    if (!j->ft_code)
                        j->ft_code = WEXITSTATUS(st); /* its ranks' deaths were reported */
                    continue;
                }
                if (WIFSIGNALED(st) || WEXITSTATUS(st))
                    job_fail(j, WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st),
                             "the job on host %s ended with %s %d", j->hosts[r],
                             WIFSIGNALED(st) ? "signal" : "code",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
                continue;
            }
            int g = j->first + r;
            pmi_server_drain(j->pmi, r); /* its last words: finalize, say */
            if (p->aborted && !WIFSIGNALED(st))
                continue; /* its exit follows its MPI_Abort: that is the report */
            if (j->proc_ft && j->world > 1) {
                if (WIFSIGNALED(st))
                    job_rank_failed(j, g, 128 + WTERMSIG(st), "rank %d (pid %d) was killed by signal %d (%s)", g,
                                    (int)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
                else if (WEXITSTATUS(st))
                    job_rank_failed(j, g, WEXITSTATUS(st), "rank %d (pid %d) exited with code %d", g, (int)pid,
                                    WEXITSTATUS(st));
                else if (!p->finalized && pmi_server_initialized(j->pmi, r))
                    job_rank_failed(j, g, 1, "rank %d (pid %d) exited without calling MPI_Finalize", g,
                                    (int)pid);
                continue;
            }
            if (WIFSIGNALED(st))
                job_fail(j, 128 + WTERMSIG(st), "rank %d (pid %d) was killed by signal %d (%s)", g,
                         (int)pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
            else if (WEXITSTATUS(st))
                job_fail(j, WEXITSTATUS(st), "rank %d (pid %d) exited with code %d", g, (int)pid,
                         WEXITSTATUS(st));
            else if (!p->finalized && pmi_server_initialized(j->pmi, r) && j->world > 1)
                job_fail(j, 1, "rank %d (pid %d) exited without calling MPI_Finalize", g, (int)pid);
        }
    }
}

static int job_done(job_t *j)
{
    if (j->abort_rank >= 0)
        return 0;
    for (int i = 0; i < j->nspawned; i++)
        if (j->spawned[i] > 0)
            return 0; /* a job ends after the jobs it spawned */
    for (int r = 0; r < j->n; r++)
        if (!j->ranks[r].exited || j->ranks[r].out.fd >= 0 || j->ranks[r].err.fd >= 0)
            return 0;
    return 1;
}

static int job_run(job_t *j)
{
    struct pollfd *pf = calloc((size_t)(4 * j->n + 4), sizeof *pf);
    int *who = calloc((size_t)(4 * j->n + 4), sizeof *who);
    double t0 = job_now(), kill_at = 0;
    while (!job_done(j)) {
        int k = 0;
        for (int r = 0; r < j->n; r++) {
            int fds[3] = {j->ranks[r].out.fd, j->ranks[r].err.fd,
                          j->remote ? j->ctl[r].fd : pmi_server_fd(j->pmi, r)};
            for (int i = 0; i < 3; i++) {
                if (fds[i] < 0)
                    continue;
                pf[k] = (struct pollfd){.fd = fds[i], .events = POLLIN};
                who[k++] = r * 3 + i;
            }
        }
        int extra = j->remote ? j->listen_fd : j->up.fd;
        if (extra >= 0) {
            pf[k] = (struct pollfd){.fd = extra, .events = POLLIN};
            who[k++] = -1;
        }
        if (j->control_fd >= 0) {
            pf[k] = (struct pollfd){.fd = j->control_fd, .events = POLLIN};
            who[k++] = -2;
        }
        if (job_chld_fd() >= 0) {
            pf[k] = (struct pollfd){.fd = job_chld_fd(), .events = POLLIN};
            who[k++] = -3;
        }
        int n = poll(pf, (nfds_t)k, j->abort_rank >= 0 ? 20 : 100);
        for (int i = 0; n > 0 && i < k; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (who[i] == -2) {
                job_control(j);
                continue;
            }
            if (who[i] == -3) {
                job_chld_drain(); /* job_reap below */
                continue;
            }
            if (who[i] < 0) {
                if (j->remote)
                    remote_accept(j);
                else
                    proxy_input(j);
                continue;
            }
            int r = who[i] / 3, what = who[i] % 3;
            if (what == 0)
                out_read(j, r, &j->ranks[r].out);
            else if (what == 1)
                out_read(j, r, &j->ranks[r].err);
            else if (j->remote)
                remote_input(j, r);
            else
                pmi_server_input(j->pmi, r);
        }
        job_reap(j);
        abort_settle(j, 0);
        if (mpiexec_signal) {
            int sig = mpiexec_signal;
            mpiexec_signal = 0;
            job_kill(j, sig);
            job_fail(j, 128 + sig, "received signal %d (%s); ending the job", sig, strsignal(sig));
        }
        if (j->timeout > 0 && !j->failed && job_now() - t0 > j->timeout)
            job_fail(j, 124, "timeout: the job ran longer than %.0f s", j->timeout);
        if (j->aborting && !kill_at)
            kill_at = job_now() + 2;
        if (kill_at && job_now() > kill_at) {
            job_kill(j, SIGKILL);
            kill_at = job_now() + 1;
        }
    }
    free(pf);
    free(who);
    return j->failed ? j->exit_code : j->ft_code;
}

int main(int argc, char **argv)
{
    job_t j = {.n = 1, .bind = "core", .guard_fd = -1, .listen_fd = -1, .up = {.fd = -1},
               .launcher = "ssh", .ppn = 1, .control_fd = -1, .abort_rank = -1, .ft_fd = -1};
    int nset = 0, job_pid = 0;
    char command[64] = "";
    char hostbuf[4096] = "";
    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t)
        j.timeout = atof(t);
    int i = 1, rc = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if ((!strcmp(a, "-n") || !strcmp(a, "-np")) && more) {
            nset = 1;
            j.n = atoi(argv[++i]);
            if (j.n < 1) {
                fprintf(stderr, "mpiexec: -n needs a positive number, not '%s'\n", argv[i]);
                rc = 2;
                goto out;
            }
        } else if ((!strcmp(a, "-genv") || !strcmp(a, "-env")) && i + 2 < argc) {
            if (!*argv[i + 1] || strchr(argv[i + 1], '=')) {
                fprintf(stderr, "mpiexec: %s: '%s' is not a variable name\n", a, argv[i + 1]);
                rc = 2;
                goto out;
            }
            size_t l = strlen(argv[i + 1]) + strlen(argv[i + 2]) + 2;
            char *kv = malloc(l);
            if (kv)
                snprintf(kv, l, "%s=%s", argv[i + 1], argv[i + 2]);
            if (!kv || job_env_add(&j, kv) < 0) {
                fprintf(stderr, "mpiexec: out of memory\n");
                rc = 1;
                goto out;
            }
            i += 2;
        } else if ((!strcmp(a, "-initial-errhandler") || !strcmp(a, "--initial-errhandler")) && more) {
            const char *h = argv[++i];
            if (strcasecmp(h, "mpi_errors_are_fatal") && strcasecmp(h, "mpi_errors_abort") &&
                strcasecmp(h, "mpi_errors_return")) {
                fprintf(stderr, "mpiexec: -initial-errhandler: '%s' is none of mpi_errors_are_fatal, "
                                "mpi_errors_abort, mpi_errors_return\n", h);
                rc = 2;
                goto out;
            }
            size_t l = strlen(h) + sizeof "RAILMPI_INITIAL_ERRHANDLER=";
            char *kv = malloc(l);
            if (kv)
                snprintf(kv, l, "RAILMPI_INITIAL_ERRHANDLER=%s", h);
            if (!kv || job_env_add(&j, kv) < 0) {
                fprintf(stderr, "mpiexec: out of memory\n");
                rc = 1;
                goto out;
            }
        } else if ((!strcmp(a, "-hosts") || !strcmp(a, "-host")) && more) {
            snprintf(hostbuf, sizeof hostbuf, "%s", argv[++i]);
        } else if (!strcmp(a, "-f") && more) {
            FILE *f = fopen(argv[++i], "r");
            if (!f) {
                fprintf(stderr, "mpiexec: cannot read host file %s: %s\n", argv[i], strerror(errno));
                rc = 2;
                goto out;
            }
            char line[256];
            while (fgets(line, sizeof line, f)) {
                char h[256];
                if (sscanf(line, "%255[^:# \t\n]", h) == 1 && strlen(hostbuf) + strlen(h) + 2 < sizeof hostbuf) {
                    if (*hostbuf)
                        strcat(hostbuf, ",");
                    strcat(hostbuf, h);
                }
            }
            fclose(f);
        } else if (!strcmp(a, "-usize") && more) {
            char *end;
            j.usize = (int)strtol(argv[++i], &end, 10);
            if (*end || j.usize < 1) {
                fprintf(stderr, "mpiexec: -usize needs a positive number, not '%s'\n", argv[i]);
                rc = 2;
                goto out;
            }
        } else if (!strcmp(a, "-ppn") && more) {
            j.ppn = atoi(argv[++i]);
            if (j.ppn < 1) {
                fprintf(stderr, "mpiexec: -ppn needs a positive number\n");
                rc = 2;
                goto out;
            }
        } else if ((!strcmp(a, "-launcher-exec") || !strcmp(a, "-bootstrap-exec")) && more) {
            j.launcher = argv[++i];
        } else if ((!strcmp(a, "-launcher") || !strcmp(a, "-bootstrap")) && more) {
            i++; /* ssh and rsh both run `CMD HOST COMMAND`; -launcher-exec names the program */
            if (strcmp(argv[i], "ssh") && strcmp(argv[i], "rsh")) {
                fprintf(stderr, "mpiexec: -launcher takes ssh or rsh\n");
                rc = 2;
                goto out;
            }
            j.launcher = argv[i];
        } else if (!strcmp(a, "-migrate") && i + 2 < argc) {
            snprintf(command, sizeof command, "migrate %.8s %.16s", argv[i + 1], argv[i + 2]);
            i += 2;
        } else if (!strcmp(a, "-job") && more) {
            char *end;
            job_pid = (int)strtol(argv[++i], &end, 10);
            if (*end || job_pid <= 0) {
                fprintf(stderr, "mpiexec: -job takes the pid of a job's mpiexec, not '%s'\n", argv[i]);
                rc = 2;
                goto out;
            }
        } else if (!strcmp(a, "-iface") && more) {
            j.iface = argv[++i];
        } else if (!strcmp(a, "--proxy") && more) {
            j.proxy_addr = argv[++i];
        } else if (!strcmp(a, "--proxy-id") && more) {
            j.proxy_id = atoi(argv[++i]);
        } else if (!strcmp(a, "--first") && more) {
            j.first = atoi(argv[++i]);
        } else if (!strcmp(a, "--world") && more) {
            j.world = atoi(argv[++i]);
        } else if (!strcmp(a, "--host-id") && more) {
            snprintf(j.host_id, sizeof j.host_id, "%s", argv[++i]);
        } else if (!strcmp(a, "--app") && i + 4 < argc) {
            /* internal (spawned jobs): --app N WDIR ARGC PROGRAM ARGS... */
            int an = atoi(argv[i + 1]), ac = atoi(argv[i + 3]);
            struct job_app *ap = realloc(j.apps, sizeof *ap * (size_t)(j.napps + 1));
            if (an < 1 || ac < 0 || i + 4 + ac >= argc || !ap) {
                fprintf(stderr, "mpiexec: malformed --app\n");
                rc = 2;
                goto out;
            }
            j.apps = ap;
            ap[j.napps] = (struct job_app){.n = an, .wdir = argv[i + 2], .argv = calloc((size_t)ac + 2, sizeof(char *))};
            for (int k = 0; ap[j.napps].argv && k <= ac; k++)
                ap[j.napps].argv[k] = argv[i + 4 + k];
            if (!ap[j.napps].argv) {
                rc = 1;
                goto out;
            }
            j.napps++;
            i += 4 + ac;
        } else if (!strcmp(a, "--preput") && i + 2 < argc) {
            char **p = realloc(j.preput, sizeof *p * (size_t)(j.npreput + 2));
            if (p) {
                j.preput = p;
                j.preput[j.npreput++] = argv[i + 1];
                j.preput[j.npreput++] = argv[i + 2];
            }
            i += 2;
        } else if (!strcmp(a, "-nameserver") && more) {
            pmi_server_names_dir(argv[++i]);
        } else if ((!strcmp(a, "-abi") || !strcmp(a, "--abi")) && more) {
            if ((rc = job_abi_set(&j, argv[++i])))
                goto out;
        } else if (!strcmp(a, "-genvall")) {
            j.genvnone = 0;
        } else if (!strcmp(a, "-genvnone")) {
            j.genvnone = 1;
        } else if (!strcmp(a, "-l")) {
            j.label = 1;
        } else if (!strcmp(a, "-disable-auto-cleanup") || !strcmp(a, "--disable-auto-cleanup")) {
            j.proc_ft = 1;
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
    if (*command) {
        if (i < argc) {
            fprintf(stderr, "mpiexec: -migrate steers a running job; it starts no program\n");
            rc = 2;
        } else {
            rc = control_client(command, job_pid);
        }
        goto out;
    }
    if (j.proxy_addr && i < argc) {
        fprintf(stderr, "mpiexec: a proxy gets its program from mpiexec, not from its command line\n");
        rc = 2;
        goto out;
    }
    if (!j.proxy_addr && i >= argc && !j.napps) {
        fprintf(stderr, "mpiexec: no program to run (see mpiexec --help)\n");
        rc = 2;
        goto out;
    }
    if (!j.proxy_addr)
        j.argv = j.napps ? j.apps[0].argv : argv + i;
    if (*hostbuf) {
        /* multi-host: one proxy per host, -ppn ranks each (the last may get fewer) */
        j.hosts = calloc(strlen(hostbuf) + 1, sizeof *j.hosts);
        char *save;
        for (char *h = strtok_r(hostbuf, ",", &save); h; h = strtok_r(NULL, ",", &save))
            j.hosts[j.nhosts++] = h;
        j.nhosts_listed = j.nhosts;
        j.total = nset ? j.n : j.nhosts * j.ppn;
        if (nset && j.total > j.nhosts * j.ppn)
            j.ppn = (j.total + j.nhosts - 1) / j.nhosts;
        while (j.nhosts > 1 && (j.nhosts - 1) * j.ppn >= j.total)
            j.nhosts--; /* hosts beyond the last rank stay idle */
        j.remote = 1;
        j.n = j.nhosts;
        j.world = j.total;
        static char self[4096];
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        self[l > 0 ? l : 0] = 0;
        j.self = self;
    }
    if (!j.world)
        j.world = j.n;
    if (!j.proxy_addr) {
        /* RAILMPI_PROC_FT=1 asks the same as -disable-auto-cleanup; the ranks
         * (and the proxies, through the environment they are sent) are told */
        if (!j.proc_ft && rm_config_load_once() == RM_OK && RM_CFG(proc_ft))
            j.proc_ft = 1;
        char *kv = j.proc_ft ? strdup("RAILMPI_PROC_FT=1") : NULL;
        if (j.proc_ft && (!kv || job_env_add(&j, kv) < 0)) {
            fprintf(stderr, "mpiexec: out of memory\n");
            rc = 1;
            goto out;
        }
    }
    if (j.proxy_addr && proxy_connect(&j) < 0) {
        rc = 1;
        goto out;
    }
    j.ranks = calloc((size_t)j.n, sizeof *j.ranks);
    for (int r = 0; r < j.n; r++)
        j.ranks[r].ctl_fd = -1;
    if (!j.proxy_addr)
        j.control_fd = control_listen(j.control_path, sizeof j.control_path);
    struct sigaction sa = {.sa_handler = mpiexec_on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (j.proc_ft)
        job_chld_watch();
    if ((j.remote ? job_start_remote(&j) : job_start(&j)) < 0) {
        job_kill(&j, SIGKILL);
        rc = 1;
    } else {
        rc = job_run(&j);
    }
    guardian_tell(&j, 0);
    if (j.pmi)
        pmi_server_free(j.pmi);
out:
    for (int k = 0; k < j.nkv; k++) {
        free(j.kv[k].key);
        free(j.kv[k].val);
    }
    free(j.kv);
    free(j.spawned);
    free(j.spawn_launcher);
    for (int h = 0; h < j.nspawn_hosts; h++)
        free(j.spawn_hosts[h]);
    free(j.spawn_hosts);
    free(j.preput);
    for (int a = 0; a < j.napps; a++) {
        if (j.proxy_addr) { /* a proxy's came from mpiexec, a copy of each word */
            for (int k = 0; j.apps[a].argv[k]; k++)
                free(j.apps[a].argv[k]);
            free((char *)j.apps[a].wdir);
        }
        free(j.apps[a].argv);
    }
    free(j.apps);
    if (j.ctl)
        for (int h = 0; h < j.nhosts; h++)
            if (j.ctl[h].fd >= 0)
                close(j.ctl[h].fd);
    free(j.ctl);
    free(j.ctl_sent);
    free(j.host_first);
    free(j.host_count);
    free(j.host_dead);
    free(j.hosts);
    if (j.listen_fd >= 0)
        close(j.listen_fd);
    if (j.up.fd >= 0)
        close(j.up.fd);
    control_close(j.control_fd, j.control_path);
    for (int r = 0; j.ranks && r < j.n; r++)
        if (j.ranks[r].ctl_fd >= 0)
            close(j.ranks[r].ctl_fd);
    for (int k = 0; k < j.nenv_extra; k++)
        free(j.env_extra[k]);
    free(j.env_extra);
    if (j.proxy_addr && j.argv) {
        for (int k = 0; j.argv[k]; k++)
            free(j.argv[k]);
        free(j.argv);
    }
    free(j.ranks);
    if (j.ft_board)
        munmap((void *)j.ft_board, sizeof(uint32_t) * ((size_t)j.world + 1));
    if (j.ft_fd >= 0)
        close(j.ft_fd);
    free(j.ft_listed);
    return rc;
}
