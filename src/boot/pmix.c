/* PMIx client, for a rank a PMIx server started (Slurm's `srun --mpi=pmix`,
 * prterun, Open MPI's mpirun): the server's environment (PMIX_NAMESPACE,
 * PMIX_RANK, PMIX_SERVER_URI*) tells boot.c to choose this back end.
 *
 * libpmix is loaded with dlopen here, once PMIx has been detected, and never
 * linked: it starts its own event library and progress thread and changes
 * signal handling, which a rank started by any other launcher must not get.
 * Only its headers are used at build time (Debian's libpmix-dev), for the
 * types and constants; no header macro that calls into the library is used.
 *
 * Rank and namespace come from PMIx_Init; size, application number and the
 * host layout (PMIX_LOCAL_RANK, PMIX_LOCAL_SIZE, PMIX_NODEID, and
 * PMIX_HOSTNAME of any rank) from the job data the server hands every
 * client at start-up. Puts are PMIx_Put with global scope, committed before
 * every fence; a fence is PMIx_Fence over the whole namespace with
 * PMIX_COLLECT_DATA, so that after it every rank's data is in the local
 * store and a get (PMIx_Get with PMIX_OPTIONAL) never waits on the server:
 * a key nobody published is "not found" at once, as under PMI-1 and PMI-2.
 *
 * MPI_Comm_spawn is PMIx_Spawn, where the server implements it (prterun
 * does; Slurm's pmix plugin answers PMIX_ERR_NOT_SUPPORTED, which becomes
 * MPI_ERR_SPAWN with the server's answer in the message): one application
 * per command, its arguments, the info keys host (PMIX_HOST), wdir (the
 * application's directory; default ours) and path (directories searched
 * here for a program named without a slash, before PATH), and the parent's
 * port in the
 * new processes' environment (RAILMPI_PARENT_PORT), which a child reads in
 * MPI_Init. */
#include "boot/wire.h"
#include "util/log.h"

#include <dlfcn.h>
#include <pmix_common.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/config.h"

#define PMIX "PMIx"
/* the soname of Debian's libpmix2 (PMIx 4.x); earlier sonames speak an
 * incompatible ABI */
#define PMIX_SONAME "libpmix.so.2"

static struct {
    int tried, ok;
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
    pmix_status_t (*finalize)(const pmix_info_t[], size_t);
    pmix_status_t (*abort)(int, const char[], pmix_proc_t[], size_t);
    pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
    pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t, pmix_value_t **);
    const char *(*error_string)(pmix_status_t);
    void (*value_destruct)(pmix_value_t *);
    /* optional: a library without it cannot spawn */
    pmix_status_t (*spawn)(const pmix_info_t[], size_t, const pmix_app_t[], size_t, pmix_nspace_t);
    /* optional: without it no process's end is reported */
    pmix_status_t (*register_event)(pmix_status_t[], size_t, pmix_info_t[], size_t, pmix_notification_fn_t,
                                    pmix_hdlr_reg_cbfunc_t, void *);
} pmix_lib;

static pmix_proc_t pmix_me; /* this rank: namespace and rank */
static int pmix_up;         /* PMIx_Init succeeded, PMIx_Finalize not yet called */
static void (*_Atomic pmix_death_fn)(int rank); /* boot_watch_deaths */

static int pmix_load(void)
{
    if (pmix_lib.tried)
        return pmix_lib.ok;
    pmix_lib.tried = 1;
    void *h = dlopen(PMIX_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        rm_log_error(PMIX ": started by a PMIx server (PMIX_NAMESPACE is set), but libpmix cannot be "
                     "loaded: %s (Debian: libpmix2)", dlerror());
        return 0;
    }
    *(void **)&pmix_lib.init = dlsym(h, "PMIx_Init");
    *(void **)&pmix_lib.finalize = dlsym(h, "PMIx_Finalize");
    *(void **)&pmix_lib.abort = dlsym(h, "PMIx_Abort");
    *(void **)&pmix_lib.put = dlsym(h, "PMIx_Put");
    *(void **)&pmix_lib.commit = dlsym(h, "PMIx_Commit");
    *(void **)&pmix_lib.fence = dlsym(h, "PMIx_Fence");
    *(void **)&pmix_lib.get = dlsym(h, "PMIx_Get");
    *(void **)&pmix_lib.error_string = dlsym(h, "PMIx_Error_string");
    *(void **)&pmix_lib.value_destruct = dlsym(h, "PMIx_Value_destruct");
    *(void **)&pmix_lib.spawn = dlsym(h, "PMIx_Spawn");
    *(void **)&pmix_lib.register_event = dlsym(h, "PMIx_Register_event_handler");
    pmix_lib.ok = pmix_lib.init && pmix_lib.finalize && pmix_lib.abort && pmix_lib.put && pmix_lib.commit &&
                  pmix_lib.fence && pmix_lib.get && pmix_lib.error_string && pmix_lib.value_destruct;
    /* never dlclose: the library's progress thread may outlive finalize */
    if (!pmix_lib.ok)
        rm_log_error(PMIX ": %s lacks the entry points railmpi needs (PMIx 4 or later)", PMIX_SONAME);
    return pmix_lib.ok;
}

static void pmix_info_bool(pmix_info_t *info, const char *key)
{
    memset(info, 0, sizeof *info);
    snprintf(info->key, sizeof info->key, "%s", key);
    info->value.type = PMIX_BOOL;
    info->value.data.flag = true;
}

static void pmix_value_release(pmix_value_t *v)
{
    if (v) {
        pmix_lib.value_destruct(v);
        free(v);
    }
}

/* A value the server published about `rank` (PMIX_RANK_WILDCARD: the job).
 * `local`: look only in the local store, which holds the job data and,
 * after a fence, every rank's puts. */
static pmix_status_t pmix_fetch(pmix_rank_t rank, const char *key, int local, pmix_value_t **out)
{
    pmix_proc_t p = pmix_me;
    p.rank = rank;
    pmix_info_t opt;
    pmix_info_bool(&opt, PMIX_OPTIONAL);
    *out = NULL;
    return pmix_lib.get(&p, key, local ? &opt : NULL, local ? 1 : 0, out);
}

/* An unsigned integer of the job data, whatever integer type the server chose. */
static int pmix_fetch_uint(pmix_rank_t rank, const char *key, long *out)
{
    pmix_value_t *v;
    if (pmix_fetch(rank, key, 1, &v) != PMIX_SUCCESS || !v) {
        pmix_value_release(v);
        return 0;
    }
    int ok = 1;
    switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT32: *out = (long)v->data.uint32; break;
    case PMIX_INT: *out = v->data.integer; break;
    case PMIX_INT32: *out = v->data.int32; break;
    case PMIX_UINT: *out = (long)v->data.uint; break;
    case PMIX_SIZE: *out = (long)v->data.size; break;
    default: ok = 0;
    }
    pmix_value_release(v);
    return ok && *out >= 0 && *out <= 1 << 30;
}

static rm_status_t pmix_init(boot_info_t *out)
{
    if (!pmix_load())
        return RM_ERR_UNSUPPORTED;
    pmix_status_t rc = pmix_lib.init(&pmix_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Init failed: %s", pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    pmix_up = 1;
    long size, v;
    if (!pmix_fetch_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &size) || size < 1 || pmix_me.rank >= (pmix_rank_t)size) {
        rm_log_error(PMIX ": the server gives no valid job size for rank %u of namespace %s", pmix_me.rank,
                     pmix_me.nspace);
        return RM_ERR_IO;
    }
    out->rank = (int)pmix_me.rank;
    out->size = (int)size;
    /* Slurm numbers no applications; one application is number 0 */
    out->appnum = pmix_fetch_uint(pmix_me.rank, PMIX_APPNUM, &v) ? (int)v : 0;
    if (pmix_fetch_uint(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, &v) && v > 0)
        out->universe = (int)v;
    if (pmix_fetch_uint(pmix_me.rank, PMIX_LOCAL_RANK, &v))
        out->local_rank = (int)v;
    if (pmix_fetch_uint(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &v))
        out->local_size = (int)v;
    if (pmix_fetch_uint(pmix_me.rank, PMIX_NODEID, &v))
        out->node = (int)v;
    snprintf(boot_conn.kvsname, sizeof boot_conn.kvsname, "%s", pmix_me.nspace);
    boot_conn.keylen_max = PMIX_MAX_KEYLEN + 1;
    boot_conn.vallen_max = BOOT_PMIX_VALLEN_MAX;
    return RM_OK;
}

static rm_status_t pmix_put(const char *key, const char *val)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)val; /* PMIx_Put copies it */
    pmix_status_t rc = pmix_lib.put(PMIX_GLOBAL, key, &v);
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Put of '%s' failed: %s", key, pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    return RM_OK;
}

static rm_status_t pmix_fence(void)
{
    pmix_status_t rc = pmix_lib.commit();
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Commit failed: %s", pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    /* no process list: every rank of our namespace */
    pmix_info_t collect;
    pmix_info_bool(&collect, PMIX_COLLECT_DATA);
    rc = pmix_lib.fence(NULL, 0, &collect, 1);
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Fence failed: %s", pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    return RM_OK;
}

static rm_status_t pmix_copy_string(const char *key, pmix_value_t *v, char *val, size_t cap)
{
    if (v->type != PMIX_STRING || !v->data.string) {
        rm_log_error(PMIX ": the value of '%s' is not a string (type %d)", key, (int)v->type);
        return RM_ERR_IO;
    }
    if (strlen(v->data.string) >= cap) {
        rm_log_error(PMIX ": the value of '%s' does not fit in %zu bytes", key, cap);
        return RM_ERR_TRUNCATE;
    }
    strcpy(val, v->data.string);
    return RM_OK;
}

static rm_status_t pmix_get(int rank, const char *key, char *val, size_t cap)
{
    pmix_value_t *v;
    pmix_status_t rc = pmix_fetch(rank < 0 ? PMIX_RANK_UNDEF : (pmix_rank_t)rank, key, 1, &v);
    if (rc == PMIX_ERR_NOT_FOUND || (rc == PMIX_SUCCESS && !v)) {
        pmix_value_release(v);
        return RM_ERR_NOT_FOUND;
    }
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Get of '%s' from rank %d failed: %s", key, rank, pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    rm_status_t st = pmix_copy_string(key, v, val, cap);
    pmix_value_release(v);
    return st;
}

static rm_status_t pmix_host(int rank, char *host, size_t cap)
{
    pmix_value_t *v;
    pmix_status_t rc = pmix_fetch((pmix_rank_t)rank, PMIX_HOSTNAME, 1, &v);
    if (rc != PMIX_SUCCESS || !v) {
        pmix_value_release(v);
        return RM_ERR_NOT_FOUND;
    }
    rm_status_t st = pmix_copy_string(PMIX_HOSTNAME, v, host, cap);
    pmix_value_release(v);
    return st;
}

static void pmix_abort(int code, const char *msg)
{
    if (!pmix_up)
        return;
    /* no process list: the whole namespace; returns once the server has it */
    pmix_lib.abort(code, msg, NULL, 0);
}

static rm_status_t pmix_finalize(void)
{
    if (!pmix_up)
        return RM_OK;
    pmix_up = 0;
    pmix_death_fn = NULL;
    pmix_status_t rc = pmix_lib.finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        rm_log_error(PMIX ": PMIx_Finalize failed: %s", pmix_lib.error_string(rc));
        return RM_ERR_IO;
    }
    return RM_OK;
}

static int pmix_runnable(const char *f)
{
    struct stat st;
    return stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0;
}

/* The program's path, looked for here as railmpi's mpiexec does: a name
 * with a slash relative to wdir, one without in the info key path's
 * directories and then PATH. NULL when there is none: a server told to
 * start a program it cannot find may end the whole job (Open MPI's mpirun
 * does), so such a spawn is refused before it is asked. */
static char *pmix_find(const char *exe, const char *wdir, const char *path)
{
    char *f = NULL;
    if (strchr(exe, '/')) {
        size_t n = strlen(exe) + (wdir ? strlen(wdir) : 0) + 2;
        if ((f = malloc(n))) {
            if (exe[0] == '/' || !wdir)
                snprintf(f, n, "%s", exe);
            else
                snprintf(f, n, "%s/%s", wdir, exe);
        }
        if (f && !pmix_runnable(f)) {
            free(f);
            f = NULL;
        }
        return f;
    }
    const char *env = getenv("PATH");
    size_t dl = (path ? strlen(path) : 0) + (env ? strlen(env) : 0) + 2;
    char *dirs = malloc(dl);
    if (!dirs)
        return NULL;
    snprintf(dirs, dl, "%s%s%s", path ? path : "", path && env ? ":" : "", env ? env : "");
    for (char *save, *d = strtok_r(dirs, ":", &save); d && !f; d = strtok_r(NULL, ":", &save)) {
        size_t n = strlen(d) + strlen(exe) + (wdir ? strlen(wdir) : 0) + 3;
        if (!(f = malloc(n)))
            break;
        if (d[0] == '/' || !wdir)
            snprintf(f, n, "%s/%s", d, exe);
        else
            snprintf(f, n, "%s/%s/%s", wdir, d, exe);
        if (!pmix_runnable(f)) {
            free(f);
            f = NULL;
        }
    }
    free(dirs);
    return f;
}

static const char *pmix_cmd_info(const boot_cmd_t *c, const char *key)
{
    for (int i = 0; i < c->ninfo; i++)
        if (!strcmp(c->ikeys[i], key))
            return c->ivals[i];
    return NULL;
}

static rm_status_t pmix_spawn_cmds(int count, const boot_cmd_t *cmds, const char *port, char *why, size_t cap)
{
    if (!pmix_lib.spawn) {
        snprintf(why, cap, PMIX ": this libpmix has no PMIx_Spawn");
        return RM_ERR_NOT_FOUND;
    }
    pmix_app_t *apps = calloc((size_t)count, sizeof *apps);
    pmix_info_t *hosts = calloc((size_t)count, sizeof *hosts);
    char **found = calloc((size_t)count, sizeof *found);
    size_t envlen = strlen(port) + 32;
    char *env0 = malloc(envlen), cwd[4096];
    char *env[2] = {env0, NULL};
    rm_status_t st = RM_OK;
    if (!apps || !hosts || !found || !env0 || !getcwd(cwd, sizeof cwd)) {
        st = RM_ERR_NOMEM;
        goto out;
    }
    snprintf(env0, envlen, "RAILMPI_PARENT_PORT=%s", port);
    for (int c = 0; c < count; c++) {
        const boot_cmd_t *m = &cmds[c];
        pmix_app_t *a = &apps[c];
        const char *wdir = pmix_cmd_info(m, "wdir");
        if (!(found[c] = pmix_find(m->exe, wdir ? wdir : cwd, pmix_cmd_info(m, "path")))) {
            snprintf(why, cap, "cannot find the program %s", m->exe);
            st = RM_ERR_NOT_FOUND;
            goto out;
        }
        a->cmd = found[c];
        if (!(a->argv = calloc((size_t)m->nargs + 2, sizeof *a->argv))) {
            st = RM_ERR_NOMEM;
            goto out;
        }
        a->argv[0] = a->cmd;
        for (int i = 0; i < m->nargs; i++)
            a->argv[i + 1] = m->args[i];
        a->env = env;
        a->cwd = (char *)(wdir ? wdir : cwd);
        a->maxprocs = m->n;
        const char *host = pmix_cmd_info(m, "host");
        if (host) {
            snprintf(hosts[c].key, sizeof hosts[c].key, "%s", PMIX_HOST);
            hosts[c].value.type = PMIX_STRING;
            hosts[c].value.data.string = (char *)host;
            a->info = &hosts[c];
            a->ninfo = 1;
        }
    }
    pmix_nspace_t nspace;
    memset(nspace, 0, sizeof nspace);
    pmix_status_t rc = pmix_lib.spawn(NULL, 0, apps, (size_t)count, nspace);
    if (rc != PMIX_SUCCESS) {
        snprintf(why, cap, "the PMIx server did not spawn: %s%s", pmix_lib.error_string(rc),
                 rc == PMIX_ERR_NOT_SUPPORTED ? " (it does not implement PMIx_Spawn)" : "");
        st = RM_ERR_NOT_FOUND;
    } else {
        rm_log_debug(PMIX ": spawned namespace %s", nspace);
    }
out:
    for (int c = 0; apps && c < count; c++)
        free(apps[c].argv);
    for (int c = 0; found && c < count; c++)
        free(found[c]);
    free(found);
    free(apps);
    free(hosts);
    free(env0);
    return st;
}

static rm_status_t pmix_parent_port(char *port, size_t cap)
{
    const char *p = rm_config.parent_port_s;
    if (!p || !*p)
        return RM_ERR_NOT_FOUND;
    if (strlen(p) >= cap)
        return RM_ERR_TRUNCATE;
    strcpy(port, p);
    return RM_OK;
}

/* ---- the job's processes that end (process fault tolerance) ------------
 * A PMIx server may notify its clients when a process of theirs ends: the
 * standard names it PMIX_EVENT_PROC_TERMINATED (PMIX_PROC_TERMINATED in
 * PMIx 3), PMIX_ERR_PROC_ABORTED and kin for an abnormal end, and
 * PMIX_EVENT_NODE_DOWN for a host; the process is the event's affected
 * proc(s), else its source. Whether a server sends them at all is its own
 * business (docs/ulfm.md, "Launchers", says what each one here does). The
 * handler runs on libpmix's progress thread. */
static int pmix_watching;

static const pmix_status_t pmix_death_codes[] = {
    PMIX_EVENT_PROC_TERMINATED, PMIX_PROC_TERMINATED, PMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTING,
    PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_KILLED_BY_CMD, PMIX_ERR_EXIT_NONZERO_TERM,
    PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED, PMIX_EVENT_NODE_DOWN,
};

static int pmix_death_of(const pmix_proc_t *p, void (*fn)(int))
{
    if (!p || strncmp(p->nspace, pmix_me.nspace, PMIX_MAX_NSLEN) || !PMIX_RANK_IS_VALID(p->rank) ||
        p->rank == pmix_me.rank)
        return 0;
    fn((int)p->rank);
    return 1;
}

static void pmix_on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                          size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)results, (void)nresults;
    void (*fn)(int) = pmix_death_fn;
    int named = 0, death = 0;
    rm_log_debug(PMIX ": event %d (%s) from %s:%u", (int)status, pmix_lib.error_string(status),
                 source ? source->nspace : "?", source ? source->rank : 0);
    for (size_t i = 0; i < sizeof pmix_death_codes / sizeof *pmix_death_codes; i++)
        death |= status == pmix_death_codes[i];
    if (!death) /* the default handler's other events */
        fn = NULL;
    for (size_t i = 0; fn && i < ninfo; i++) {
        if (!strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) && info[i].value.type == PMIX_PROC) {
            named = 1;
            pmix_death_of(info[i].value.data.proc, fn);
        } else if (!strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROCS, PMIX_MAX_KEYLEN) &&
                   info[i].value.type == PMIX_DATA_ARRAY && info[i].value.data.darray &&
                   info[i].value.data.darray->type == PMIX_PROC) {
            named = 1;
            const pmix_proc_t *ps = info[i].value.data.darray->array;
            for (size_t k = 0; ps && k < info[i].value.data.darray->size; k++)
                pmix_death_of(&ps[k], fn);
        }
    }
    if (fn && !named && status != PMIX_EVENT_NODE_DOWN)
        pmix_death_of(source, fn);
    if (cbfunc) /* let the other handlers (the library's own) have it too */
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static rm_status_t pmix_watch_deaths(void (*fn)(int rank))
{
    pmix_death_fn = fn;
    if (!fn || pmix_watching)
        return RM_OK;
    if (!pmix_up || !pmix_lib.register_event)
        return RM_ERR_UNSUPPORTED;
    pmix_status_t codes[sizeof pmix_death_codes / sizeof *pmix_death_codes];
    memcpy(codes, pmix_death_codes, sizeof codes);
    /* without a callback the call blocks and returns the handler's id */
    pmix_status_t rc = pmix_lib.register_event(codes, sizeof codes / sizeof *codes, NULL, 0, pmix_on_event, NULL, NULL);
    if (rc < 0) {
        /* Slurm's pmix plugin refuses these codes (SERVER FAILED REQUEST) but
         * takes a default handler, which sees every event: the handler
         * keeps only these */
        rm_log_debug(PMIX ": the server takes no handler for process ends (%s); a default handler instead",
                     pmix_lib.error_string(rc));
        rc = pmix_lib.register_event(NULL, 0, NULL, 0, pmix_on_event, NULL, NULL);
    }
    if (rc < 0) {
        rm_log_debug(PMIX ": the server takes no event handler: %s", pmix_lib.error_string(rc));
        return RM_ERR_UNSUPPORTED;
    }
    pmix_watching = 1;
    return RM_OK;
}

const boot_ops_t boot_pmix_ops = {
    .name = PMIX,
    /* PMIx carries any string; keys and values are NUL-ended strings */
    .bad_key = "",
    .bad_val = "",
    .init = pmix_init,
    .put = pmix_put,
    .fence = pmix_fence,
    .get = pmix_get,
    .host = pmix_host,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
    .spawn_cmds = pmix_spawn_cmds,
    .parent_port = pmix_parent_port,
    .watch_deaths = pmix_watch_deaths,
};
