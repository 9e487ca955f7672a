/* PMI-1 wire protocol client, as MPICH's Hydra and railmpi's mpiexec serve
 * it: "cmd=NAME key=value ..." lines over a socket inherited as PMI_FD, or
 * connected to PMI_PORT with PMI_ID. Without either, the process is a
 * one-rank job (singleton) with an in-memory key-value space. */
#include "boot/boot.h"
#include "util/log.h"
#include "util/sock.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PMI_LINE_MAX 4096

static struct {
    int fd;
    int singleton;
    int rank, size;
    int vallen_max, keylen_max;
    char kvsname[256];
    /* singleton KVS */
    struct { char *key, *val; } *kv;
    int nkv;
} boot_pmi = {.fd = -1};

static rm_status_t pmi_write(const char *line)
{
    size_t len = strlen(line), off = 0;
    while (off < len) {
        ssize_t n = write(boot_pmi.fd, line + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rm_log_error("PMI: write to the launcher failed: %s", n < 0 ? strerror(errno) : "closed");
            return RM_ERR_IO;
        }
        off += (size_t)n;
    }
    return RM_OK;
}

/* One reply line, up to and without the newline. */
static rm_status_t pmi_read_line(char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(boot_pmi.fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rm_log_error("PMI: the launcher closed the connection");
            return RM_ERR_IO;
        }
        if (c == '\n')
            break;
        if (n + 1 < cap)
            buf[n++] = c;
    }
    buf[n] = 0;
    return RM_OK;
}

/* Value of `key` in a reply line, or NULL. */
static const char *pmi_field(const char *line, const char *key, char *out, size_t cap)
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

/* Send a command and read its reply; `expect` is the reply's cmd. */
static rm_status_t pmi_call(const char *cmd, const char *expect, char *reply, size_t cap)
{
    rm_status_t st = pmi_write(cmd);
    if (st < 0)
        return st;
    if ((st = pmi_read_line(reply, cap)) < 0)
        return st;
    char got[64];
    if (!pmi_field(reply, "cmd", got, sizeof got) || strcmp(got, expect)) {
        rm_log_error("PMI: expected '%s' from the launcher, got '%s'", expect, reply);
        return RM_ERR_IO;
    }
    char rc[16];
    if (pmi_field(reply, "rc", rc, sizeof rc) && atoi(rc) != 0)
        return RM_ERR_NOT_FOUND;
    return RM_OK;
}

static int pmi_env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : def;
}

static rm_status_t pmi_connect_port(const char *port, int id)
{
    int fd = rm_sock_connect(port, NULL, 0);
    if (fd < 0)
        return RM_ERR_UNREACHABLE;
    boot_pmi.fd = fd;
    char line[128], reply[PMI_LINE_MAX];
    snprintf(line, sizeof line, "cmd=initack pmiid=%d\n", id);
    rm_status_t st = pmi_call(line, "initack", reply, sizeof reply);
    /* then: cmd=set size=N, cmd=set rank=N, cmd=set debug=N */
    for (int i = 0; st == RM_OK && i < 3; i++) {
        char v[32];
        if ((st = pmi_read_line(reply, sizeof reply)) < 0)
            break;
        if (pmi_field(reply, "size", v, sizeof v))
            boot_pmi.size = atoi(v);
        else if (pmi_field(reply, "rank", v, sizeof v))
            boot_pmi.rank = atoi(v);
    }
    return st;
}

rm_status_t boot_init(boot_info_t *out)
{
    const char *fd = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    memset(out, 0, sizeof *out);
    if ((!fd || !*fd) && (!port || !*port)) {
        boot_pmi.singleton = 1;
        boot_pmi.rank = 0;
        boot_pmi.size = 1;
        snprintf(boot_pmi.kvsname, sizeof boot_pmi.kvsname, "singleton-%d", (int)getpid());
        boot_pmi.vallen_max = 1024;
        boot_pmi.keylen_max = 64;
        out->singleton = 1;
        out->size = 1;
        snprintf(out->kvsname, sizeof out->kvsname, "%s", boot_pmi.kvsname);
        return RM_OK;
    }
    rm_status_t st;
    boot_pmi.rank = pmi_env_int("PMI_RANK", 0);
    boot_pmi.size = pmi_env_int("PMI_SIZE", 1);
    if (fd && *fd) {
        boot_pmi.fd = atoi(fd);
    } else if ((st = pmi_connect_port(port, pmi_env_int("PMI_ID", 0))) < 0) {
        rm_log_error("PMI: cannot reach the launcher at PMI_PORT=%s", port);
        return st;
    }
    char reply[PMI_LINE_MAX], v[256];
    if ((st = pmi_call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", reply,
                       sizeof reply)) < 0)
        return st;
    if ((st = pmi_call("cmd=get_maxes\n", "maxes", reply, sizeof reply)) < 0)
        return st;
    boot_pmi.vallen_max = pmi_field(reply, "vallen_max", v, sizeof v) ? atoi(v) : 256;
    boot_pmi.keylen_max = pmi_field(reply, "keylen_max", v, sizeof v) ? atoi(v) : 64;
    if ((st = pmi_call("cmd=get_appnum\n", "appnum", reply, sizeof reply)) < 0)
        return st;
    out->appnum = pmi_field(reply, "appnum", v, sizeof v) ? atoi(v) : 0;
    if ((st = pmi_call("cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof reply)) < 0)
        return st;
    if (!pmi_field(reply, "kvsname", boot_pmi.kvsname, sizeof boot_pmi.kvsname))
        return RM_ERR_IO;
    out->rank = boot_pmi.rank;
    out->size = boot_pmi.size;
    snprintf(out->kvsname, sizeof out->kvsname, "%s", boot_pmi.kvsname);
    return RM_OK;
}

rm_status_t boot_put(const char *key, const char *val)
{
    if (strchr(val, ' ') || strchr(val, '\n') || strchr(key, ' ') || strchr(key, '=')) {
        rm_log_error("PMI: key/value '%s' carries characters the wire protocol cannot", key);
        return RM_ERR_INVALID;
    }
    /* the launcher would cut a longer value short: say so instead */
    if ((int)strlen(key) >= boot_pmi.keylen_max || (int)strlen(val) >= boot_pmi.vallen_max) {
        rm_log_error("PMI: key '%s' or its %zu-byte value exceeds the launcher's limits (%d, %d)", key,
                     strlen(val), boot_pmi.keylen_max, boot_pmi.vallen_max);
        return RM_ERR_INVALID;
    }
    if (boot_pmi.singleton) {
        void *kv = realloc(boot_pmi.kv, sizeof *boot_pmi.kv * (size_t)(boot_pmi.nkv + 1));
        if (!kv)
            return RM_ERR_NOMEM;
        boot_pmi.kv = kv;
        boot_pmi.kv[boot_pmi.nkv].key = strdup(key);
        boot_pmi.kv[boot_pmi.nkv].val = strdup(val);
        boot_pmi.nkv++;
        return RM_OK;
    }
    char line[PMI_LINE_MAX], reply[PMI_LINE_MAX];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", boot_pmi.kvsname, key, val);
    return pmi_call(line, "put_result", reply, sizeof reply);
}

rm_status_t boot_fence(void)
{
    if (boot_pmi.singleton)
        return RM_OK;
    char reply[PMI_LINE_MAX];
    return pmi_call("cmd=barrier_in\n", "barrier_out", reply, sizeof reply);
}

rm_status_t boot_get(int rank_hint, const char *key, char *val, int vallen)
{
    (void)rank_hint;
    if (boot_pmi.singleton) {
        for (int i = 0; i < boot_pmi.nkv; i++) {
            if (!strcmp(boot_pmi.kv[i].key, key)) {
                snprintf(val, (size_t)vallen, "%s", boot_pmi.kv[i].val);
                return RM_OK;
            }
        }
        return RM_ERR_NOT_FOUND;
    }
    char line[PMI_LINE_MAX], reply[PMI_LINE_MAX];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", boot_pmi.kvsname, key);
    rm_status_t st = pmi_call(line, "get_result", reply, sizeof reply);
    if (st < 0)
        return st;
    if (!pmi_field(reply, "value", val, (size_t)vallen))
        return RM_ERR_NOT_FOUND;
    return RM_OK;
}

void boot_abort(int code, const char *msg)
{
    if (!boot_pmi.singleton && boot_pmi.fd >= 0) {
        char line[PMI_LINE_MAX];
        /* the message travels as one token: spaces would end it */
        char clean[512];
        snprintf(clean, sizeof clean, "%s", msg ? msg : "");
        for (char *p = clean; *p; p++)
            if (*p == ' ' || *p == '\n' || *p == '=')
                *p = '_';
        snprintf(line, sizeof line, "cmd=abort exitcode=%d error_msg=%s\n", code, clean);
        pmi_write(line);
    }
    _exit(code);
}

rm_status_t boot_finalize(void)
{
    if (boot_pmi.singleton) {
        for (int i = 0; i < boot_pmi.nkv; i++) {
            free(boot_pmi.kv[i].key);
            free(boot_pmi.kv[i].val);
        }
        free(boot_pmi.kv);
        boot_pmi.kv = NULL;
        boot_pmi.nkv = 0;
        return RM_OK;
    }
    char reply[PMI_LINE_MAX];
    rm_status_t st = pmi_call("cmd=finalize\n", "finalize_ack", reply, sizeof reply);
    close(boot_pmi.fd);
    boot_pmi.fd = -1;
    return st;
}

