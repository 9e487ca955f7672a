/* mpiexec, a multi-host job's top side: one proxy per host started through
 * the launcher (ssh, ip netns exec, ...), each told the job when it
 * connects back (remote.h), and their PMI puts, barriers and reports of
 * lost or failed ranks relayed between them. proxy.c is the other side. */
#include "control.h"
#include "job.h"
#include "remote.h"
#include "util/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

int job_start_remote(job_t *j)
{
    char addr[300], kvs[64], sec[40];
    guardian_start(j);
    j->listen_fd = remote_listen(j->iface, addr, sizeof addr);
    if (j->listen_fd < 0)
        return -1;
    snprintf(kvs, sizeof kvs, "rm%d", (int)getpid());
    secret(sec, sizeof sec);
    snprintf(j->kvsname, sizeof j->kvsname, "%s", kvs);
    snprintf(j->job_secret, sizeof j->job_secret, "%s", sec);
    for (int i = 0; i < j->nenv_extra; i++)
        if (!remote_field_fits(j->env_extra[i])) {
            fprintf(stderr, "mpiexec: -genv %.40s...: too long for a multi-host job\n", j->env_extra[i]);
            return -1;
        }
    for (int i = 0; j->argv[i]; i++)
        if (!remote_field_fits(j->argv[i])) {
            fprintf(stderr, "mpiexec: argument %d (%.40s...) too long for a multi-host job\n", i, j->argv[i]);
            return -1;
        }
    if (!j->genvnone)
        for (char **e = environ; *e; e++)
            if (job_env_entry_valid(*e) && !remote_field_fits(*e))
                fprintf(stderr, "mpiexec: not passing %.40s... to other hosts: too long\n", *e);
    j->ctl = calloc((size_t)j->nhosts, sizeof *j->ctl);
    j->host_first = calloc((size_t)j->nhosts, sizeof *j->host_first);
    j->host_count = calloc((size_t)j->nhosts, sizeof *j->host_count);
    j->host_dead = calloc((size_t)j->nhosts, sizeof *j->host_dead);
    if (!j->ctl || !j->host_first || !j->host_count || !j->host_dead) {
        fprintf(stderr, "mpiexec: out of memory\n");
        return -1;
    }
    j->ctl_sent = calloc((size_t)j->nhosts, sizeof *j->ctl_sent);
    /* a spawned job's parent port reaches the ranks with the first barrier's
     * merge, before MPI_Init looks for it */
    for (int i = 0; i + 1 < j->npreput; i += 2)
        remote_kv_add(j, j->preput[i], j->preput[i + 1]);
    int first = 0;
    for (int h = 0; h < j->nhosts; h++) {
        int count = j->ppn;
        if (first + count > j->total)
            count = j->total - first;
        j->ctl[h].fd = -1;
        j->host_first[h] = first;
        j->host_count[h] = count;
        char **argv = remote_proxy_argv(j->launcher, j->hosts[h], j->self, addr, h, first, count,
                                        j->total, j->label, j->bind);
        int out[2], err[2];
        if (!argv || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
            perror("mpiexec: pipe");
            return -1;
        }
        pid_t parent = getpid(), pid = fork();
        if (pid < 0) {
            perror("mpiexec: fork");
            return -1;
        }
        if (pid == 0) {
            child_setup(parent, out[1], err[1], h == 0);
            execvp(argv[0], argv);
            fprintf(stderr, "mpiexec: cannot run the launcher %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        for (int i = 0; argv[i]; i++)
            free(argv[i]);
        free(argv);
        setpgid(pid, pid);
        guardian_tell(j, pid);
        close(out[1]);
        close(err[1]);
        j->ranks[h].pid = pid;
        j->ranks[h].finalized = 1;
        j->ranks[h].out = (out_stream_t){.fd = out[0], .to = stdout};
        j->ranks[h].err = (out_stream_t){.fd = err[0], .to = stderr};
        first += count;
    }
    return 0;
}

/* What of our environment goes to other hosts: DISPLAY stays behind, as
 * with Hydra (ssh sets its own). */
static int remote_env_passes(const char *e)
{
    return job_env_entry_valid(e) && strncmp(e, "DISPLAY=", 8) && remote_field_fits(e);
}

/* The job description (remote.h): all of our environment unless -genvnone,
 * then -genv, which wins; our working directory; the program and its
 * arguments. */
static int remote_send_job(job_t *j, int fd)
{
    int rc = 0;
    if (j->genvnone)
        rc |= ctl_send(fd, "envnone\n");
    else
        for (char **e = environ; *e && rc == 0; e++)
            if (remote_env_passes(*e))
                rc |= remote_send_field(fd, "env", *e);
    for (int i = 0; i < j->nenv_extra && rc == 0; i++)
        rc |= remote_send_field(fd, "env", j->env_extra[i]);
    char cwd[4096];
    if (rc == 0 && getcwd(cwd, sizeof cwd))
        rc |= remote_send_field(fd, "cwd", cwd);
    for (int i = 0; j->argv[i] && rc == 0; i++)
        rc |= remote_send_field(fd, "arg", j->argv[i]);
    for (int a = 0; a < j->napps && rc == 0; a++) {
        char num[16];
        snprintf(num, sizeof num, "%d", j->apps[a].n);
        rc |= remote_send_field(fd, "app", num);
        rc |= remote_send_field(fd, "appdir", j->apps[a].wdir);
        for (int i = 0; j->apps[a].argv[i] && rc == 0; i++)
            rc |= remote_send_field(fd, "apparg", j->apps[a].argv[i]);
    }
    if (rc == 0)
        rc |= remote_send_field(fd, "launcher", j->launcher);
    for (int h = 0; h < j->nhosts_listed && rc == 0; h++)
        rc |= remote_send_field(fd, "host", j->hosts[h]);
    if (rc == 0 && j->usize > 0) {
        char num[16];
        snprintf(num, sizeof num, "%d", j->usize);
        rc |= remote_send_field(fd, "usize", num);
    }
    return rc ? rc : ctl_send(fd, "end\n");
}

/* A proxy connected: it names itself, we tell it the job's name and secret,
 * then the job. A proxy we cannot tell reports its failure itself. */
void remote_accept(job_t *j)
{
    int fd = accept4(j->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    rm_sock_nodelay(fd); /* the proxy's requests and our answers are small lines */
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    char line[128] = "";
    size_t n = 0;
    while (n + 1 < sizeof line && poll(&pf, 1, 10000) > 0) {
        ssize_t r = read(fd, line + n, 1);
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    int id;
    if (sscanf(line, "hello %d", &id) != 1 || id < 0 || id >= j->nhosts || j->ctl[id].fd >= 0) {
        fprintf(stderr, "mpiexec: refused a control connection (said '%s')\n", line);
        close(fd);
        return;
    }
    j->ctl[id].fd = fd;
    if (ctl_send(fd, "setup %s %s\n", j->kvsname, j->job_secret) == 0)
        remote_send_job(j, fd);
}

void remote_kv_add(job_t *j, const char *key, const char *val)
{
    if (j->nkv == j->capkv) {
        int cap = j->capkv ? 2 * j->capkv : 256;
        kv_entry_t *kv = realloc(j->kv, sizeof *kv * (size_t)cap);
        if (!kv)
            return;
        j->kv = kv;
        j->capkv = cap;
    }
    j->kv[j->nkv].key = strdup(key);
    j->kv[j->nkv].val = strdup(val);
    j->nkv++;
}

/* Lines from proxy h: "put KEY VALUE" and "barrier". */
void remote_input(job_t *j, int h)
{
    ctl_conn_t *c = &j->ctl[h];
    if (ctl_read(c) < 0) {
        close(c->fd);
        c->fd = -1; /* the proxy's exit status tells the rest */
        return;
    }
    size_t used = 0;
    char *line;
    while ((line = ctl_next_line(c, &used))) {
        char key[128], val[1100];
        int g;
        if (sscanf(line, "put %127s %1099s", key, val) == 2) {
            remote_kv_add(j, key, val);
        } else if (sscanf(line, "lost %d", &g) == 1 && g >= 0 && g < j->total) {
            remote_host_lost(j, h, g);
        } else if (sscanf(line, "failed %d", &g) == 1 && g >= 0 && g < j->total) {
            for (int p = 0; p < j->nhosts; p++) /* the dead rank's own host knows */
                if (p != h && j->ctl[p].fd >= 0)
                    ctl_send(j->ctl[p].fd, "failed %d\n", g);
        } else if (!strcmp(line, "barrier") && ++j->nbarrier == j->nhosts) {
            j->nbarrier = 0;
            for (int p = 0; p < j->nhosts; p++) {
                for (; j->ctl_sent[p] < j->nkv; j->ctl_sent[p]++)
                    ctl_send(j->ctl[p].fd, "kv %s %s\n", j->kv[j->ctl_sent[p]].key,
                             j->kv[j->ctl_sent[p]].val);
                ctl_send(j->ctl[p].fd, "barrier_out\n");
            }
        }
    }
    ctl_consume(c, used);
}
