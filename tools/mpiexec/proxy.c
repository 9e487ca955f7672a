/* The proxy side of a multi-host job (remote.h): connect to mpiexec, take
 * the job's description, then pass the ranks' key-value puts, barriers and
 * process fault tolerance reports up and mpiexec's answers, operator
 * commands and deaths down. */
#include "job.h"
#include "util/config.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The next line from mpiexec during start-up, waiting until `deadline` at most. */
static char *proxy_next_line(job_t *j, double deadline, size_t *used)
{
    char *line;
    while (!(line = ctl_next_line(&j->up, used))) {
        struct pollfd pf = {.fd = j->up.fd, .events = POLLIN};
        int ms = (int)((deadline - job_now()) * 1000);
        if (ms <= 0 || poll(&pf, 1, ms) <= 0 || ctl_read(&j->up) < 0)
            return NULL;
    }
    return line;
}

/* The job description that follows setup (remote.h), up to its `end`. */
static int proxy_job_recv(job_t *j, double deadline)
{
    char **args = NULL, *cwd = NULL;
    int nargs = 0, rc = -1;
    for (;;) {
        size_t used = 0;
        char *line = proxy_next_line(j, deadline, &used);
        if (!line) {
            fprintf(stderr, "mpiexec (proxy on %s): the job description from mpiexec is incomplete\n",
                    j->host_id);
            break;
        }
        char *arg = strchr(line, ' ');
        if (arg)
            *arg++ = 0;
        char *val = arg ? remote_decode(arg) : NULL;
        if (!strcmp(line, "end") && !arg) {
            ctl_consume(&j->up, used);
            if (!nargs)
                fprintf(stderr, "mpiexec (proxy on %s): mpiexec sent no program\n", j->host_id);
            rc = nargs ? 0 : -1;
            break;
        } else if (!strcmp(line, "envnone") && !arg) {
            j->genvnone = 1;
        } else if (val && !strcmp(line, "env") && job_env_entry_valid(val)) {
            if (!strncmp(val, "RAILMPI_PROC_FT=", 16)) {
                int64_t v = 0;
                j->proc_ft = rm_config_parse(RM_CFG_BOOL, val + 16, &v) == RM_OK && v;
            }
            if (job_env_add(j, val) < 0)
                break;
            val = NULL;
        } else if (val && !strcmp(line, "app") && atoi(val) > 0) {
            struct job_app *ap = realloc(j->apps, sizeof *ap * (size_t)(j->napps + 1));
            if (ap)
                j->apps = ap;
            char **av = ap ? calloc(1, sizeof *av) : NULL, *dot = strdup(".");
            if (!av || !dot) {
                free(av);
                free(dot);
                free(val);
                break;
            }
            ap[j->napps++] = (struct job_app){.n = atoi(val), .wdir = dot, .argv = av};
            free(val);
            val = NULL;
        } else if (val && !strcmp(line, "appdir") && j->napps) {
            free((char *)j->apps[j->napps - 1].wdir);
            j->apps[j->napps - 1].wdir = val;
            val = NULL;
        } else if (val && !strcmp(line, "apparg") && j->napps) {
            struct job_app *ap = &j->apps[j->napps - 1];
            int k = 0;
            while (ap->argv[k])
                k++;
            char **av = realloc(ap->argv, sizeof *av * (size_t)(k + 2));
            if (!av) {
                free(val);
                break;
            }
            av[k] = val;
            av[k + 1] = NULL;
            ap->argv = av;
            val = NULL;
        } else if (val && !strcmp(line, "usize") && atoi(val) > 0) {
            j->usize = atoi(val);
            free(val);
        } else if (val && !strcmp(line, "launcher") && !j->spawn_launcher) {
            j->spawn_launcher = val;
            val = NULL;
        } else if (val && !strcmp(line, "host")) {
            char **h = realloc(j->spawn_hosts, sizeof *h * (size_t)(j->nspawn_hosts + 1));
            if (!h) {
                free(val);
                break;
            }
            j->spawn_hosts = h;
            h[j->nspawn_hosts++] = val;
            val = NULL;
        } else if (val && !strcmp(line, "cwd") && !cwd) {
            cwd = val;
            val = NULL;
        } else if (val && !strcmp(line, "arg")) {
            char **a = realloc(args, sizeof *a * (size_t)(nargs + 2));
            if (!a) {
                free(val);
                break;
            }
            args = a;
            args[nargs++] = val;
            args[nargs] = NULL;
            val = NULL;
        } else {
            fprintf(stderr, "mpiexec (proxy on %s): malformed job description from mpiexec: '%.40s%s%.40s'\n",
                    j->host_id, line, arg ? " " : "", arg ? arg : "");
            free(val);
            break;
        }
        ctl_consume(&j->up, used);
    }
    if (rc == 0) {
        j->argv = args;
        if (cwd && chdir(cwd) != 0) {
            /* not on this host: the ranks start where the launcher left us */
        }
    } else {
        for (int i = 0; i < nargs; i++)
            free(args[i]);
        free(args);
    }
    free(cwd);
    return rc;
}

int proxy_connect(job_t *j)
{
    j->up.fd = remote_connect(j->proxy_addr, j->launch_ip, sizeof j->launch_ip);
    if (j->up.fd < 0) {
        fprintf(stderr, "mpiexec (proxy on %s): cannot reach mpiexec at %s\n", j->host_id, j->proxy_addr);
        return -1;
    }
    double deadline = job_now() + 60;
    ctl_send(j->up.fd, "hello %d\n", j->proxy_id);
    size_t used = 0;
    char *line = proxy_next_line(j, deadline, &used);
    if (!line || sscanf(line, "setup %127s %127s", j->kvsname, j->job_secret) != 2) {
        fprintf(stderr, "mpiexec (proxy on %s): mpiexec did not set up the job\n", j->host_id);
        return -1;
    }
    ctl_consume(&j->up, used);
    return proxy_job_recv(j, deadline);
}

void proxy_input(job_t *j)
{
    if (ctl_read(&j->up) < 0) {
        close(j->up.fd);
        j->up.fd = -2; /* not -1: still a proxy, just orphaned */
        job_fail(j, 1, "lost the connection to mpiexec; ending the job on %s", j->host_id);
        return;
    }
    size_t used = 0;
    char *line;
    while ((line = ctl_next_line(&j->up, &used))) {
        char key[128], val[1100];
        int g;
        if (sscanf(line, "kv %127s %1099s", key, val) == 2)
            pmi_server_kv_put(j->pmi, key, val);
        else if (!strcmp(line, "barrier_out"))
            pmi_server_barrier_release(j->pmi);
        else if (!strncmp(line, "migrate ", 8))
            job_command_local(j, line);
        else if (sscanf(line, "failed %d", &g) == 1)
            job_ft_list(j, g);
    }
    ctl_consume(&j->up, used);
}

/* proxy: the ranks' puts and barriers go up to the top mpiexec */
void proxy_on_put(void *ctx, const char *key, const char *val)
{
    job_t *j = ctx;
    if (ctl_send(j->up.fd, "put %s %s\n", key, val) < 0)
        job_fail(j, 1, "lost the connection to mpiexec");
}

/* proxy: a rank's partition timeout goes to mpiexec, which decides */
int proxy_on_lost(void *ctx, int rank, int lost)
{
    job_t *j = ctx;
    (void)rank;
    if (!j->proc_ft || ctl_send(j->up.fd, "lost %d\n", lost) < 0)
        return -1;
    return 0;
}

void proxy_on_barrier(void *ctx)
{
    job_t *j = ctx;
    if (ctl_send(j->up.fd, "barrier\n") < 0)
        job_fail(j, 1, "lost the connection to mpiexec");
}
