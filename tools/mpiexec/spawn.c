/* MPI_Comm_spawn through mpiexec (MPICH's simple PMI spawn blocks). The new
 * job is another mpiexec on this host: `mpiexec -n N --preput K V ... --app
 * N1 WDIR1 ARGC1 PROGRAM1 ARGS1... --app ...`, one --app per command, each
 * started in its info key wdir. When the info key host names another host
 * of the launch, the new mpiexec runs `-hosts HOST -launcher-exec LAUNCHER
 * -iface ADDR` instead, so its ranks start on that host through a proxy
 * (remote.h), which gets the --app list with the job, and reach the
 * parents over the rails like any other job. The commands of one spawn go
 * to one host. Its ranks find the parent's port in
 * their key-value space (PARENT_ROOT_PORT_NAME, as MPICH names it) and
 * connect to it in MPI_Init. The program is looked for before anything is
 * started (in wdir when it names a path, else in the info key path and then
 * PATH), so a program that does not exist starts no process; for another
 * host it is looked for here, at the path it will have there (the hosts of
 * a launch share their file system, as mpiexec's -hosts assumes). */
#include "spawn.h"
#include "pmi_server.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static int spawn_runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The program's absolute path into out; -1 when there is none. */
static int spawn_find(const char *exe, const char *wdir, const char *path, char *out, size_t len)
{
    if (strchr(exe, '/')) {
        if (exe[0] == '/')
            snprintf(out, len, "%s", exe);
        else
            snprintf(out, len, "%s/%s", wdir, exe);
        return spawn_runnable(out) ? 0 : -1;
    }
    const char *env = getenv("PATH");
    char dirs[8192];
    snprintf(dirs, sizeof dirs, "%s%s%s", path ? path : "", path && env ? ":" : "", env ? env : "");
    for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        if (d[0] == '/')
            snprintf(out, len, "%s/%s", d, exe);
        else
            snprintf(out, len, "%s/%s/%s", wdir, d, exe);
        if (spawn_runnable(out))
            return 0;
    }
    return -1;
}

/* The info value for `key`, or NULL. */
static const char *spawn_info(const char *const *kv, int n, const char *key)
{
    const char *cnt = pmi_spawn_value(kv, n, "info_num");
    int m = cnt ? atoi(cnt) : 0;
    for (int i = 0; i < m; i++) {
        char k[32];
        snprintf(k, sizeof k, "info_key_%d", i);
        const char *name = pmi_spawn_value(kv, n, k);
        if (name && !strcmp(name, key)) {
            snprintf(k, sizeof k, "info_val_%d", i);
            return pmi_spawn_value(kv, n, k);
        }
    }
    return NULL;
}

/* The host a command's info key asks for: "" for this one (no key,
 * localhost, this machine's name or this host's name in the launch), else
 * a host of the launch, which the launcher reaches. */
static int spawn_host(const spawn_where_t *where, const char *host, char *target, size_t tlen, char *msg,
                      size_t msglen)
{
    *target = 0;
    if (!host || !*host || !strcmp(host, "localhost") || (where->host_id && !strcmp(host, where->host_id)))
        return 0;
    for (int i = 0; i < where->nhosts; i++) {
        if (!strcmp(host, where->hosts[i]) && where->launcher && where->iface && *where->iface) {
            snprintf(target, tlen, "%s", host);
            return 0;
        }
    }
    char me[256] = "";
    gethostname(me, sizeof me);
    if (!strcmp(host, me))
        return 0;
    char list[1024] = "";
    for (int i = 0; i < where->nhosts; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", where->hosts[i]);
    if (where->nhosts)
        snprintf(msg, msglen, "cannot spawn on host %s: not a host of this launch (%s)", host, list);
    else
        snprintf(msg, msglen, "cannot spawn on host %s: this job runs on one host (%s) without "
                 "-hosts, and spawns only there", host, me);
    return -1;
}

/* One command's block checked, its program found: the --app words. */
static int spawn_app(const spawn_where_t *where, const char *const *kv, int n, char **argv, int *k,
                     char (*nums)[16], char *prog, size_t plen, char *wbuf, size_t wlen, char *target,
                     size_t tlen, char *msg, size_t msglen)
{
    const char *np = pmi_spawn_value(kv, n, "nprocs"), *exe = pmi_spawn_value(kv, n, "execname");
    const char *ac = pmi_spawn_value(kv, n, "argcnt");
    int nprocs = np ? atoi(np) : 0, argc = ac ? atoi(ac) : 0;
    if (nprocs < 1 || !exe || !*exe || argc < 0 || argc > 4096) {
        snprintf(msg, msglen, "malformed spawn request");
        return -1;
    }
    if (spawn_host(where, spawn_info(kv, n, "host"), target, tlen, msg, msglen) < 0)
        return -1;
    const char *wdir = spawn_info(kv, n, "wdir");
    if (!wdir && !getcwd(wbuf, wlen))
        snprintf(wbuf, wlen, ".");
    else if (wdir)
        snprintf(wbuf, wlen, "%s", wdir);
    struct stat st;
    if (stat(wbuf, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, msglen, "no directory %s (info key wdir)", wbuf);
        return -1;
    }
    if (spawn_find(exe, wbuf, spawn_info(kv, n, "path"), prog, plen) < 0) {
        snprintf(msg, msglen, "cannot find the program %s", exe);
        return -1;
    }
    if (!argv)
        return nprocs;
    char *nb = nums[0], *cb = nums[1];
    snprintf(nb, 16, "%d", nprocs);
    snprintf(cb, 16, "%d", argc);
    argv[(*k)++] = "--app";
    argv[(*k)++] = nb;
    argv[(*k)++] = wbuf;
    argv[(*k)++] = cb;
    argv[(*k)++] = prog;
    for (int i = 1; i <= argc; i++) {
        char key[32];
        snprintf(key, sizeof key, "arg%d", i);
        const char *a = pmi_spawn_value(kv, n, key);
        argv[(*k)++] = (char *)(a ? a : "");
    }
    return nprocs;
}

pid_t spawn_start(const char *self, const spawn_where_t *where, const char *const *const *blocks,
                  const int *lines, int nblocks, char *const *env, int nenv, int envnone, char *msg,
                  size_t msglen)
{
    if (nblocks < 1 || nblocks > 1024) {
        snprintf(msg, msglen, "malformed spawn request");
        return -1;
    }
    const char *pc = pmi_spawn_value(blocks[0], lines[0], "preput_num");
    int npre = pc ? atoi(pc) : 0, words = 8;
    if (npre < 0 || npre > 64) {
        snprintf(msg, msglen, "malformed spawn request");
        return -1;
    }
    /* check every command before starting anything */
    char (*prog)[4096] = calloc((size_t)nblocks, sizeof *prog);
    char (*wdir)[4096] = calloc((size_t)nblocks, sizeof *wdir);
    int total = 0;
    char target[256] = "", t[256];
    for (int b = 0; prog && wdir && b < nblocks; b++) {
        int np = spawn_app(where, blocks[b], lines[b], NULL, NULL, NULL, prog[b], sizeof prog[b], wdir[b],
                           sizeof wdir[b], t, sizeof t, msg, msglen);
        if (np >= 0 && b > 0 && strcmp(t, target)) {
            snprintf(msg, msglen, "the commands of one spawn go to one host (%s and %s asked for)",
                     *target ? target : "this one", *t ? t : "this one");
            np = -1;
        }
        if (np < 0) {
            free(prog);
            free(wdir);
            return -1;
        }
        snprintf(target, sizeof target, "%s", t);
        total += np;
        const char *ac = pmi_spawn_value(blocks[b], lines[b], "argcnt");
        words += 5 + (ac ? atoi(ac) : 0);
    }
    char **argv = prog && wdir ? calloc((size_t)(words + 8 + 3 * npre + 3 * nenv + 1), sizeof *argv) : NULL;
    char **names = calloc((size_t)nenv + 1, sizeof *names);
    char (*nums)[2][16] = calloc((size_t)nblocks, sizeof *nums);
    if (!argv || !nums || !names) {
        free(names);
        free(argv);
        free(nums);
        free(prog);
        free(wdir);
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", total);
    int k = 0;
    argv[k++] = (char *)self;
    argv[k++] = "-n";
    argv[k++] = nbuf;
    if (*target) {
        argv[k++] = "-hosts";
        argv[k++] = target;
        argv[k++] = "-launcher-exec";
        argv[k++] = (char *)where->launcher;
        argv[k++] = "-iface";
        argv[k++] = (char *)where->iface;
    }
    for (int i = 0; i < npre; i++) {
        char key[32];
        snprintf(key, sizeof key, "preput_key_%d", i);
        const char *pk = pmi_spawn_value(blocks[0], lines[0], key);
        snprintf(key, sizeof key, "preput_val_%d", i);
        const char *pv = pmi_spawn_value(blocks[0], lines[0], key);
        if (!pk || !pv)
            continue;
        argv[k++] = "--preput";
        argv[k++] = (char *)pk;
        argv[k++] = (char *)pv;
    }
    if (envnone)
        argv[k++] = "-genvnone";
    for (int i = 0; i < nenv; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq || !(names[i] = strndup(env[i], (size_t)(eq - env[i]))))
            continue;
        argv[k++] = "-genv";
        argv[k++] = names[i];
        argv[k++] = (char *)eq + 1;
    }
    /* after the parent's -genv list, so it wins over an inherited one */
    const char *ieh = spawn_info(blocks[0], lines[0], "mpi_initial_errhandler");
    if (ieh) {
        argv[k++] = "-initial-errhandler";
        argv[k++] = (char *)ieh;
    }
    for (int b = 0; b < nblocks; b++)
        spawn_app(where, blocks[b], lines[b], argv, &k, nums[b], prog[b], sizeof prog[b], wdir[b],
                  sizeof wdir[b], t, sizeof t, msg, msglen);
    argv[k] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        /* the spawned job ends with the mpiexec that started it */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execv(self, argv);
        _exit(127);
    }
    for (int i = 0; i < nenv; i++)
        free(names[i]);
    free(names);
    free(argv);
    free(nums);
    free(prog);
    free(wdir);
    if (pid < 0) {
        snprintf(msg, msglen, "fork: %s", strerror(errno));
        return -1;
    }
    setpgid(pid, pid);
    return pid;
}
