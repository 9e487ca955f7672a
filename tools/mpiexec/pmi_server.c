#include "pmi_server.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct pmi_kv {
    char *key, *val;
} pmi_kv_t;

typedef struct pmi_conn {
    int fd;
    char buf[8192];
    size_t len;
    int in_barrier;
    int initialized; /* said cmd=init: an MPI process */
    int appnum;      /* the command of a multi-command spawn that started it */
    /* inside an `mcmd=spawn` ... `endcmd` block: the key=value lines of the
     * blocks so far (one per command; totspawns of them) */
    int in_spawn;
    char **spawn_kv;
    int nspawn_kv;
    int nblocks;
    int *block_at;   /* index of each block's first line */
} pmi_conn_t;

struct pmi_server {
    int size;   /* local ranks */
    int first, world;
    int universe; /* get_universe_size's answer */
    char kvsname[128];
    pmi_conn_t *conns;
    pmi_kv_t *kv;
    int nkv, capkv;
    int barrier_count;
    pmi_events_t ev;
    void *ctx;
    char **published; /* names this job published and has not withdrawn */
    int npublished;
};

/* The name service (MPI_Publish_name and friends): one file per name in a
 * directory that every mpiexec of the user on the host shares, so that
 * separately started jobs find each other's names. */
static char pmi_names_dir[1024];

void pmi_server_names_dir(const char *dir)
{
    snprintf(pmi_names_dir, sizeof pmi_names_dir, "%s", dir);
}

static const char *pmi_names(void)
{
    if (!*pmi_names_dir) {
        const char *t = getenv("TMPDIR");
        snprintf(pmi_names_dir, sizeof pmi_names_dir, "%s/railmpi-names-%u", t && *t ? t : "/tmp",
                 (unsigned)getuid());
    }
    mkdir(pmi_names_dir, 0700);
    return pmi_names_dir;
}

/* A service name as a file name: hex, so that any name is one safe component. */
static int pmi_name_path(const char *service, char *out, size_t cap)
{
    size_t l = strlen(service);
    if (!l || 2 * l + strlen(pmi_names()) + 8 > cap)
        return -1;
    int n = snprintf(out, cap, "%s/", pmi_names());
    for (size_t i = 0; i < l; i++)
        n += snprintf(out + n, cap - (size_t)n, "%02x", (unsigned char)service[i]);
    return 0;
}

/* 0 published, -1 taken or impossible */
static int pmi_name_publish(pmi_server_t *s, const char *service, const char *port)
{
    char path[2400], tmp[2500];
    if (pmi_name_path(service, path, sizeof path) < 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, port, strlen(port)) == (ssize_t)strlen(port);
    close(fd);
    /* link() fails when the name exists: publishing is atomic among jobs */
    ok = ok && link(tmp, path) == 0;
    unlink(tmp);
    if (!ok)
        return -1;
    char **p = realloc(s->published, sizeof *p * (size_t)(s->npublished + 1));
    if (p) {
        s->published = p;
        s->published[s->npublished++] = strdup(path);
    }
    return 0;
}

static int pmi_name_lookup(const char *service, char *port, size_t cap)
{
    char path[2400];
    if (pmi_name_path(service, path, sizeof path) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, port, cap - 1);
    close(fd);
    if (n <= 0)
        return -1;
    port[n] = 0;
    return 0;
}

static int pmi_name_unpublish(pmi_server_t *s, const char *service)
{
    char path[2400];
    if (pmi_name_path(service, path, sizeof path) < 0 || unlink(path) < 0)
        return -1;
    for (int i = 0; i < s->npublished; i++) {
        if (s->published[i] && !strcmp(s->published[i], path)) {
            free(s->published[i]);
            s->published[i] = NULL;
        }
    }
    return 0;
}

static void pmi_spawn_reset(pmi_conn_t *c);

void pmi_server_set_universe(pmi_server_t *s, int universe)
{
    s->universe = universe;
}

pmi_server_t *pmi_server_new(int size, int first, int world, const char *kvsname, pmi_events_t ev,
                             void *ctx)
{
    pmi_server_t *s = calloc(1, sizeof *s);
    if (!s || !(s->conns = calloc((size_t)size, sizeof *s->conns))) {
        free(s);
        return NULL;
    }
    for (int i = 0; i < size; i++)
        s->conns[i].fd = -1;
    s->size = size;
    s->first = first;
    s->world = world;
    snprintf(s->kvsname, sizeof s->kvsname, "%s", kvsname);
    s->ev = ev;
    s->ctx = ctx;
    return s;
}

void pmi_server_free(pmi_server_t *s)
{
    /* names the job left published go with it */
    for (int i = 0; i < s->npublished; i++) {
        if (s->published[i])
            unlink(s->published[i]);
        free(s->published[i]);
    }
    free(s->published);
    for (int i = 0; i < s->nkv; i++) {
        free(s->kv[i].key);
        free(s->kv[i].val);
    }
    free(s->kv);
    for (int i = 0; i < s->size; i++) {
        if (s->conns[i].fd >= 0)
            close(s->conns[i].fd);
        pmi_spawn_reset(&s->conns[i]);
    }
    free(s->conns);
    free(s);
}

void pmi_server_attach(pmi_server_t *s, int rank, int fd)
{
    s->conns[rank].fd = fd;
}

int pmi_server_fd(pmi_server_t *s, int rank)
{
    return s->conns[rank].fd;
}

static void pmi_reply(pmi_server_t *s, int rank, const char *line)
{
    int fd = s->conns[rank].fd;
    size_t len = strlen(line), off = 0;
    while (fd >= 0 && off < len) {
        ssize_t n = write(fd, line + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the rank is gone; its exit is reported elsewhere */
        off += (size_t)n;
    }
}

static const char *pmi_arg(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key)); p += kl) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, " \n");
            if (n >= cap)
                n = cap - 1;
            memcpy(out, v, n);
            out[n] = 0;
            return out;
        }
    }
    return NULL;
}

void pmi_server_kv_put(pmi_server_t *s, const char *key, const char *val)
{
    for (int i = 0; i < s->nkv; i++) {
        if (!strcmp(s->kv[i].key, key)) {
            free(s->kv[i].val);
            s->kv[i].val = strdup(val);
            return;
        }
    }
    if (s->nkv == s->capkv) {
        int cap = s->capkv ? s->capkv * 2 : 256;
        pmi_kv_t *kv = realloc(s->kv, sizeof *kv * (size_t)cap);
        if (!kv)
            return;
        s->kv = kv;
        s->capkv = cap;
    }
    s->kv[s->nkv].key = strdup(key);
    s->kv[s->nkv].val = strdup(val);
    s->nkv++;
}

static void pmi_command(pmi_server_t *s, int rank, const char *line)
{
    char cmd[64], a[1024], b[1024], out[2300];
    if (!pmi_arg(line, "cmd", cmd, sizeof cmd))
        return;
    if (!strcmp(cmd, "init")) {
        s->conns[rank].initialized = 1;
        pmi_reply(s, rank, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    } else if (!strcmp(cmd, "get_maxes")) {
        pmi_reply(s, rank, "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024\n");
    } else if (!strcmp(cmd, "get_appnum")) {
        snprintf(out, sizeof out, "cmd=appnum rc=0 appnum=%d\n", s->conns[rank].appnum);
        pmi_reply(s, rank, out);
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        snprintf(out, sizeof out, "cmd=my_kvsname rc=0 kvsname=%s\n", s->kvsname);
        pmi_reply(s, rank, out);
    } else if (!strcmp(cmd, "get_universe_size")) {
        snprintf(out, sizeof out, "cmd=universe_size rc=0 size=%d\n", s->universe > 0 ? s->universe : s->world);
        pmi_reply(s, rank, out);
    } else if (!strcmp(cmd, "put")) {
        if (pmi_arg(line, "key", a, sizeof a) && pmi_arg(line, "value", b, sizeof b)) {
            pmi_server_kv_put(s, a, b);
            if (s->ev.put)
                s->ev.put(s->ctx, a, b);
            pmi_reply(s, rank, "cmd=put_result rc=0 msg=success\n");
        } else {
            pmi_reply(s, rank, "cmd=put_result rc=-1 msg=malformed\n");
        }
    } else if (!strcmp(cmd, "get")) {
        const char *val = NULL;
        if (pmi_arg(line, "key", a, sizeof a))
            for (int i = 0; i < s->nkv && !val; i++)
                if (!strcmp(s->kv[i].key, a))
                    val = s->kv[i].val;
        if (val)
            snprintf(out, sizeof out, "cmd=get_result rc=0 msg=success value=%s\n", val);
        else
            snprintf(out, sizeof out, "cmd=get_result rc=-1 msg=key_not_found\n");
        pmi_reply(s, rank, out);
    } else if (!strcmp(cmd, "publish_name")) {
        /* MPICH's simple PMI: cmd=publish_name service=S port=P */
        if (pmi_arg(line, "service", a, sizeof a) && pmi_arg(line, "port", b, sizeof b) &&
            pmi_name_publish(s, a, b) == 0)
            pmi_reply(s, rank, "cmd=publish_result rc=0 info=ok\n");
        else
            pmi_reply(s, rank, "cmd=publish_result rc=-1 info=name_already_published\n");
    } else if (!strcmp(cmd, "lookup_name")) {
        if (pmi_arg(line, "service", a, sizeof a) && pmi_name_lookup(a, b, sizeof b) == 0)
            snprintf(out, sizeof out, "cmd=lookup_result rc=0 info=ok port=%s\n", b);
        else
            snprintf(out, sizeof out, "cmd=lookup_result rc=-1 info=name_not_found\n");
        pmi_reply(s, rank, out);
    } else if (!strcmp(cmd, "unpublish_name")) {
        if (pmi_arg(line, "service", a, sizeof a) && pmi_name_unpublish(s, a) == 0)
            pmi_reply(s, rank, "cmd=unpublish_result rc=0 info=ok\n");
        else
            pmi_reply(s, rank, "cmd=unpublish_result rc=-1 info=name_not_published\n");
    } else if (!strcmp(cmd, "barrier_in")) {
        if (!s->conns[rank].in_barrier) {
            s->conns[rank].in_barrier = 1;
            s->barrier_count++;
        }
        if (s->barrier_count == s->size) {
            if (s->ev.barrier)
                s->ev.barrier(s->ctx); /* the other hosts must arrive too */
            else
                pmi_server_barrier_release(s);
        }
    } else if (!strcmp(cmd, "finalize")) {
        pmi_reply(s, rank, "cmd=finalize_ack rc=0\n");
        if (s->ev.finalized)
            s->ev.finalized(s->ctx, rank);
    } else if (!strcmp(cmd, "railmpi_lost")) {
        int ok = pmi_arg(line, "rank", a, sizeof a) && s->ev.lost && s->ev.lost(s->ctx, rank, atoi(a)) == 0;
        pmi_reply(s, rank, ok ? "cmd=railmpi_lost_ack rc=0\n" : "cmd=railmpi_lost_ack rc=-1\n");
    } else if (!strcmp(cmd, "abort")) {
        int code = pmi_arg(line, "exitcode", a, sizeof a) ? atoi(a) : 1;
        const char *msg = pmi_arg(line, "error_msg", b, sizeof b);
        if (s->ev.abort)
            s->ev.abort(s->ctx, rank, code, msg ? msg : "");
    } else {
        snprintf(out, sizeof out, "cmd=%s rc=-1 msg=unknown_command\n", cmd);
        pmi_reply(s, rank, out);
    }
}

void pmi_server_barrier_release(pmi_server_t *s)
{
    for (int r = 0; r < s->size; r++) {
        s->conns[r].in_barrier = 0;
        pmi_reply(s, r, "cmd=barrier_out rc=0\n");
    }
    s->barrier_count = 0;
}

/* MPICH's simple PMI spawn: per command a block `mcmd=spawn`, one key=value
 * per line (nprocs, execname, argcnt, argN, preput_num, preput_key_N,
 * preput_val_N, info_num, info_key_N, info_val_N, totspawns, spawnssofar),
 * `endcmd`; after the last of totspawns blocks one cmd=spawn_result. */
static void pmi_spawn_reset(pmi_conn_t *c)
{
    for (int i = 0; i < c->nspawn_kv; i++)
        free(c->spawn_kv[i]);
    free(c->spawn_kv);
    free(c->block_at);
    c->spawn_kv = NULL;
    c->block_at = NULL;
    c->nspawn_kv = c->nblocks = 0;
}

static void pmi_spawn_line(pmi_server_t *s, int rank, const char *line)
{
    pmi_conn_t *c = &s->conns[rank];
    if (strcmp(line, "endcmd") != 0) {
        char **kv = realloc(c->spawn_kv, sizeof *kv * (size_t)(c->nspawn_kv + 1));
        if (kv) {
            c->spawn_kv = kv;
            c->spawn_kv[c->nspawn_kv++] = strdup(line);
        }
        return;
    }
    c->in_spawn = 0;
    const char *const *kv = (const char *const *)c->spawn_kv;
    const char *tot = pmi_spawn_value(kv + c->block_at[c->nblocks - 1], c->nspawn_kv - c->block_at[c->nblocks - 1],
                                      "totspawns");
    int total = tot ? atoi(tot) : 1;
    if (c->nblocks < total && total <= 1024)
        return; /* more blocks to come */
    char msg[300] = "spawning is not supported here";
    int ok = -1;
    if (s->ev.spawn) {
        const char *const *blocks[1024];
        int lines[1024];
        for (int b = 0; b < c->nblocks; b++) {
            blocks[b] = kv + c->block_at[b];
            lines[b] = (b + 1 < c->nblocks ? c->block_at[b + 1] : c->nspawn_kv) - c->block_at[b];
        }
        ok = s->ev.spawn(s->ctx, rank, blocks, lines, c->nblocks, msg, sizeof msg);
    }
    pmi_spawn_reset(c);
    char out[400];
    for (char *p = msg; *p; p++)
        if (*p == ' ' || *p == '\n')
            *p = '_';
    snprintf(out, sizeof out, "cmd=spawn_result rc=%d%s%s\n", ok == 0 ? 0 : -1, ok == 0 ? "" : " msg=",
             ok == 0 ? "" : msg);
    pmi_reply(s, rank, out);
}

/* A new block begins */
static void pmi_spawn_begin(pmi_conn_t *c)
{
    int *b = realloc(c->block_at, sizeof *b * (size_t)(c->nblocks + 1));
    if (!b)
        return;
    c->block_at = b;
    c->block_at[c->nblocks++] = c->nspawn_kv;
    c->in_spawn = 1;
}

void pmi_server_set_appnum(pmi_server_t *s, int rank, int appnum)
{
    s->conns[rank].appnum = appnum;
}

const char *pmi_spawn_value(const char *const *kv, int n, const char *key)
{
    size_t kl = strlen(key);
    for (int i = 0; i < n; i++)
        if (!strncmp(kv[i], key, kl) && kv[i][kl] == '=')
            return kv[i] + kl + 1;
    return NULL;
}

int pmi_server_input(pmi_server_t *s, int rank)
{
    pmi_conn_t *c = &s->conns[rank];
    ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0) {
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    c->len += (size_t)n;
    c->buf[c->len] = 0;
    char *start = c->buf, *nl;
    while ((nl = strchr(start, '\n'))) {
        *nl = 0;
        if (c->in_spawn)
            pmi_spawn_line(s, rank, start);
        else if (!strcmp(start, "mcmd=spawn"))
            pmi_spawn_begin(c);
        else
            pmi_command(s, rank, start);
        start = nl + 1;
    }
    c->len = strlen(start);
    memmove(c->buf, start, c->len);
    if (c->len == sizeof c->buf - 1)
        c->len = 0; /* an overlong line: drop it */
    return 0;
}

void pmi_server_drain(pmi_server_t *s, int rank)
{
    struct pollfd pf = {.fd = s->conns[rank].fd, .events = POLLIN};
    while (pf.fd >= 0 && poll(&pf, 1, 0) > 0 && pmi_server_input(s, rank) == 0)
        pf.fd = s->conns[rank].fd;
}

int pmi_server_initialized(pmi_server_t *s, int rank)
{
    return s->conns[rank].initialized;
}
