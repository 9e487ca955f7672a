/* The boot layer's entry points: choose the launcher's protocol from the
 * environment it gave us, check what is published against what that
 * protocol can carry, and hand each call to the chosen back end. */
#include "boot/wire.h"
#include "util/log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const boot_ops_t *boot_ops; /* NULL until boot_init */

/* A PMIx server (Slurm's `srun --mpi=pmix`, prterun, Open MPI's mpirun)
 * sets PMIX_NAMESPACE and PMIX_RANK, and the URI of its socket in one or
 * more PMIX_SERVER_URI* variables (one per protocol version it serves). */
static int boot_pmix_env(void)
{
    const char *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
    if (!ns || !*ns || !rank || !*rank)
        return 0;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "PMIX_SERVER_URI", 15))
            return 1;
    return 0;
}

/* PMIx comes first, with one exception: a PMI-1 launcher (Hydra, recognized
 * by the MPI_LOCALNRANKS it sets, or railmpi's mpiexec, which sets PMI_FD
 * without PMI_JOBID) that was itself started by a PMIx server, as when
 * Slurm's MpiDefault is pmix and the launcher's proxies are srun tasks: its
 * ranks inherit the proxy's PMIX_* variables, but it is their launcher.
 * Next to Slurm's PMI-2 variables (from an enclosing step) PMIx wins.
 * Slurm's pmi2 plugin (srun --mpi=pmi2) sets PMI_JOBID next to PMI_FD; Hydra
 * and railmpi's mpiexec set PMI_FD or PMI_PORT without it and speak PMI-1.
 * Slurm's plugin would answer PMI-1 too, but PMI-2 is what it is built for.
 * Hydra always gets PMI-1, even when a PMI_JOBID reaches its ranks from an
 * enclosing srun step: its PMI-2 kvs-fence returns at once instead of
 * waiting for every rank, and start-up relies on fences being barriers. */
const boot_ops_t *boot_select(void)
{
    const char *fd = getenv("PMI_FD"), *port = getenv("PMI_PORT"), *jobid = getenv("PMI_JOBID");
    int pmi = (fd && *fd) || (port && *port), slurm_pmi2 = fd && *fd && jobid && *jobid;
    int pmi1_launcher = pmi && (getenv("MPI_LOCALNRANKS") || !slurm_pmi2);
    if (boot_pmix_env() && !pmi1_launcher)
        return &boot_pmix_ops;
    if (slurm_pmi2 && !getenv("MPI_LOCALNRANKS"))
        return &boot_pmi2_ops;
    if (pmi)
        return &boot_pmi1_ops;
    return &boot_singleton_ops;
}

rm_status_t boot_init(boot_info_t *out)
{
    memset(out, 0, sizeof *out);
    out->local_rank = out->local_size = out->node = -1;
    boot_conn.fd = -1;
    boot_conn.keylen_max = 64;
    boot_conn.vallen_max = 1024;
    boot_conn.kvsname[0] = 0;
    boot_ops = boot_select();
    rm_status_t st = boot_ops->init(out);
    if (st < 0) {
        rm_log_error("boot: start-up through %s failed", boot_ops->name);
        return st;
    }
    snprintf(out->kvsname, sizeof out->kvsname, "%s", boot_conn.kvsname);
    char where[64] = "";
    if (out->local_rank >= 0 && out->local_size > 0)
        snprintf(where, sizeof where, ", local rank %d of %d on node %d", out->local_rank, out->local_size,
                 out->node);
    rm_log_debug("boot: %s, rank %d of %d, job %s%s", boot_ops->name, out->rank, out->size, out->kvsname,
                 where);
    return RM_OK;
}

rm_status_t boot_put(const char *key, const char *val)
{
    if (!boot_ops)
        return RM_ERR_INTERNAL;
    if (!*key || strpbrk(key, boot_ops->bad_key) || strpbrk(val, boot_ops->bad_val)) {
        rm_log_error("%s: key/value '%s' carries characters the wire protocol cannot", boot_ops->name,
                     key);
        return RM_ERR_INVALID;
    }
    /* the launcher would cut a longer value short: say so instead */
    if ((int)strlen(key) >= boot_conn.keylen_max || (int)strlen(val) >= boot_conn.vallen_max) {
        rm_log_error("%s: key '%s' or its %zu-byte value exceeds the launcher's limits (%d, %d)",
                     boot_ops->name, key, strlen(val), boot_conn.keylen_max, boot_conn.vallen_max);
        return RM_ERR_INVALID;
    }
    return boot_ops->put(key, val);
}

rm_status_t boot_fence(void)
{
    if (!boot_ops)
        return RM_ERR_INTERNAL;
    return boot_ops->fence();
}

rm_status_t boot_get(int rank_hint, const char *key, char *val, int vallen)
{
    if (!boot_ops)
        return RM_ERR_INTERNAL;
    if (vallen <= 0)
        return RM_ERR_INVALID;
    return boot_ops->get(rank_hint, key, val, (size_t)vallen);
}

rm_status_t boot_host(int rank, char *host, int hostlen)
{
    if (!boot_ops)
        return RM_ERR_INTERNAL;
    if (hostlen <= 0)
        return RM_ERR_INVALID;
    if (!boot_ops->host)
        return RM_ERR_UNSUPPORTED;
    return boot_ops->host(rank, host, (size_t)hostlen);
}

void boot_abort(int code, const char *msg)
{
    if (boot_ops) {
        /* the message travels as one value: what would end it becomes '_' */
        char clean[512];
        snprintf(clean, sizeof clean, "%s", msg ? msg : "");
        for (char *p = clean; *p; p++)
            if (strchr(boot_ops->bad_val, *p) || *p == '=')
                *p = '_';
        boot_ops->abort(code, clean);
    }
    _exit(code);
}

rm_status_t boot_finalize(void)
{
    rm_status_t st = boot_ops ? boot_ops->finalize() : RM_OK;
    boot_ops = NULL;
    return st;
}

/* Every byte but [A-Za-z0-9._:/-] as %XX: PMI-1 values end at a space. */
static int boot_name_encode(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        int plain = isalnum(*p) || strchr("._:/-", *p);
        if (n + (plain ? 1 : 3) >= cap)
            return -1;
        if (plain)
            out[n++] = (char)*p;
        else
            n += (size_t)snprintf(out + n, cap - n, "%%%02X", *p);
    }
    out[n] = 0;
    return 0;
}

static void boot_name_decode(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        unsigned v;
        if (*p == '%' && sscanf(p + 1, "%2x", &v) == 1 && isxdigit((unsigned char)p[1]) &&
            isxdigit((unsigned char)p[2])) {
            *o++ = (char)v;
            p += 2;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
}

rm_status_t boot_name_publish(const char *service, const char *port)
{
    char s[512], p[1024];
    if (!boot_ops || !boot_ops->name_publish)
        return RM_ERR_UNSUPPORTED;
    if (boot_name_encode(service, s, sizeof s) < 0 || boot_name_encode(port, p, sizeof p) < 0)
        return RM_ERR_INVALID;
    return boot_ops->name_publish(s, p);
}

rm_status_t boot_name_lookup(const char *service, char *port, int cap)
{
    char s[512], p[1024];
    if (!boot_ops || !boot_ops->name_lookup)
        return RM_ERR_UNSUPPORTED;
    if (boot_name_encode(service, s, sizeof s) < 0)
        return RM_ERR_INVALID;
    rm_status_t st = boot_ops->name_lookup(s, p, sizeof p);
    if (st < 0)
        return st;
    boot_name_decode(p);
    if (strlen(p) >= (size_t)cap)
        return RM_ERR_TRUNCATE;
    strcpy(port, p);
    return RM_OK;
}

rm_status_t boot_name_unpublish(const char *service)
{
    char s[512];
    if (!boot_ops || !boot_ops->name_unpublish)
        return RM_ERR_UNSUPPORTED;
    if (boot_name_encode(service, s, sizeof s) < 0)
        return RM_ERR_INVALID;
    return boot_ops->name_unpublish(s);
}

rm_status_t boot_report_lost(int rank)
{
    return boot_ops && boot_ops->lost ? boot_ops->lost(rank) : RM_ERR_UNSUPPORTED;
}

rm_status_t boot_watch_deaths(void (*fn)(int rank))
{
    return boot_ops && boot_ops->watch_deaths ? boot_ops->watch_deaths(fn) : RM_ERR_UNSUPPORTED;
}

rm_status_t boot_spawn(int count, const boot_cmd_t *cmds, const char *port, char *why, size_t cap)
{
    if (boot_ops && boot_ops->spawn_cmds)
        return boot_ops->spawn_cmds(count, cmds, port, why, cap);
    if (!boot_ops || !boot_ops->spawn)
        return RM_ERR_UNSUPPORTED;
    size_t len = 64;
    for (int c = 0; c < count; c++) {
        len += 256 + strlen(cmds[c].exe) + strlen(port);
        for (int i = 0; i < cmds[c].nargs; i++)
            len += strlen(cmds[c].args[i]) + 24;
        for (int i = 0; i < cmds[c].ninfo; i++)
            len += strlen(cmds[c].ikeys[i]) + strlen(cmds[c].ivals[i]) + 48;
    }
    char *b = malloc(len);
    if (!b)
        return RM_ERR_NOMEM;
    *b = 0;
    size_t o = 0;
    int want = 0; /* lines: a newline inside a value would end it early */
    for (int c = 0; c < count; c++) {
        const boot_cmd_t *m = &cmds[c];
        o += (size_t)snprintf(b + o, len - o,
                              "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\nspawnssofar=%d\nargcnt=%d\n",
                              m->n, m->exe, count, c + 1, m->nargs);
        for (int i = 0; i < m->nargs; i++)
            o += (size_t)snprintf(b + o, len - o, "arg%d=%s\n", i + 1, m->args[i]);
        o += (size_t)snprintf(b + o, len - o,
                              "preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=%s\ninfo_num=%d\n",
                              port, m->ninfo);
        for (int i = 0; i < m->ninfo; i++)
            o += (size_t)snprintf(b + o, len - o, "info_key_%d=%s\ninfo_val_%d=%s\n", i, m->ikeys[i], i,
                                  m->ivals[i]);
        o += (size_t)snprintf(b + o, len - o, "endcmd\n");
        want += 11 + m->nargs + 2 * m->ninfo;
    }
    int lines = 0;
    for (char *p = b; *p; p++)
        lines += *p == '\n';
    rm_status_t st = lines == want ? boot_ops->spawn(b, why, cap) : RM_ERR_INVALID;
    free(b);
    return st;
}

rm_status_t boot_parent_port(char *port, int cap)
{
    /* only PMI-1 carries MPICH's spawn protocol; elsewhere a get of a key
     * nobody put may wait for it (Hydra's PMI-2) */
    if (boot_ops && boot_ops->parent_port)
        return boot_ops->parent_port(port, (size_t)cap);
    if (!boot_ops || boot_ops != &boot_pmi1_ops)
        return RM_ERR_NOT_FOUND;
    return boot_ops->get(-1, "PARENT_ROOT_PORT_NAME", port, (size_t)cap);
}
