/* PMI-1 wire protocol client, as MPICH's Hydra and railmpi's mpiexec serve
 * it: "cmd=NAME key=value ..." lines over a socket inherited as PMI_FD, or
 * connected to PMI_PORT with PMI_ID. */
#include "boot/wire.h"
#include "util/log.h"
#include "util/sock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMI1 "PMI-1"
#define PMI1_LINE_MAX 4096

/* Send a command and read its reply; `expect` is the reply's cmd. */
static rm_status_t pmi1_call(const char *cmd, const char *expect, char *reply, size_t cap)
{
    rm_status_t st = boot_wire_write(PMI1, cmd, strlen(cmd));
    if (st < 0)
        return st;
    if ((st = boot_wire_read_line(PMI1, reply, cap)) < 0)
        return st;
    char got[64];
    if (boot_wire_field(reply, "cmd", ' ', got, sizeof got) != 1 || strcmp(got, expect)) {
        rm_log_error(PMI1 ": expected '%s' from the launcher, got '%.200s'", expect, reply);
        return RM_ERR_IO;
    }
    char rc[16];
    if (boot_wire_field(reply, "rc", ' ', rc, sizeof rc) == 1 && atoi(rc) != 0)
        return RM_ERR_NOT_FOUND;
    return RM_OK;
}

static rm_status_t pmi1_connect_port(const char *port, int id, int *rank, int *size)
{
    int fd = rm_sock_connect(port, NULL, 0);
    if (fd < 0)
        return RM_ERR_UNREACHABLE;
    boot_conn.fd = fd;
    char line[128], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=initack pmiid=%d\n", id);
    rm_status_t st = pmi1_call(line, "initack", reply, sizeof reply);
    /* then: cmd=set size=N, cmd=set rank=N, cmd=set debug=N */
    for (int i = 0; st == RM_OK && i < 3; i++) {
        char v[32];
        if ((st = boot_wire_read_line(PMI1, reply, sizeof reply)) < 0)
            break;
        if (boot_wire_field(reply, "size", ' ', v, sizeof v) == 1)
            *size = atoi(v);
        else if (boot_wire_field(reply, "rank", ' ', v, sizeof v) == 1)
            *rank = atoi(v);
    }
    return st;
}

static rm_status_t pmi1_init(boot_info_t *out)
{
    const char *port = getenv("PMI_PORT");
    int fd, id;
    rm_status_t st;
    if ((st = boot_env_int("PMI_RANK", 0, &out->rank)) < 0 ||
        (st = boot_env_int("PMI_SIZE", 1, &out->size)) < 0 || (st = boot_env_int("PMI_FD", -1, &fd)) < 0 ||
        (st = boot_env_int("PMI_ID", 0, &id)) < 0)
        return st;
    if (fd >= 0) {
        boot_conn.fd = fd;
    } else if ((st = pmi1_connect_port(port, id, &out->rank, &out->size)) < 0) {
        rm_log_error(PMI1 ": cannot reach the launcher at PMI_PORT=%s", port);
        return st;
    }
    char reply[PMI1_LINE_MAX], v[256];
    if ((st = pmi1_call("cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init", reply,
                        sizeof reply)) < 0)
        return st;
    if ((st = pmi1_call("cmd=get_maxes\n", "maxes", reply, sizeof reply)) < 0)
        return st;
    boot_conn.vallen_max = boot_wire_field(reply, "vallen_max", ' ', v, sizeof v) == 1 ? atoi(v) : 256;
    boot_conn.keylen_max = boot_wire_field(reply, "keylen_max", ' ', v, sizeof v) == 1 ? atoi(v) : 64;
    if ((st = pmi1_call("cmd=get_appnum\n", "appnum", reply, sizeof reply)) < 0)
        return st;
    out->appnum = boot_wire_field(reply, "appnum", ' ', v, sizeof v) == 1 ? atoi(v) : 0;
    /* Hydra and our mpiexec both answer it (-usize, default the job's size) */
    if (pmi1_call("cmd=get_universe_size\n", "universe_size", reply, sizeof reply) == RM_OK &&
        boot_wire_field(reply, "size", ' ', v, sizeof v) == 1 && atoi(v) > 0)
        out->universe = atoi(v);
    if ((st = pmi1_call("cmd=get_my_kvsname\n", "my_kvsname", reply, sizeof reply)) < 0)
        return st;
    if (boot_wire_field(reply, "kvsname", ' ', boot_conn.kvsname, sizeof boot_conn.kvsname) != 1) {
        rm_log_error(PMI1 ": no usable kvsname in '%.200s'", reply);
        return RM_ERR_IO;
    }
    return RM_OK;
}

static rm_status_t pmi1_put(const char *key, const char *val)
{
    char line[PMI1_LINE_MAX], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=put kvsname=%s key=%s value=%s\n", boot_conn.kvsname, key, val);
    return pmi1_call(line, "put_result", reply, sizeof reply);
}

static rm_status_t pmi1_fence(void)
{
    char reply[PMI1_LINE_MAX];
    return pmi1_call("cmd=barrier_in\n", "barrier_out", reply, sizeof reply);
}

static rm_status_t pmi1_get(int rank, const char *key, char *val, size_t cap)
{
    char line[PMI1_LINE_MAX], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=get kvsname=%s key=%s\n", boot_conn.kvsname, key);
    rm_status_t st = pmi1_call(line, "get_result", reply, sizeof reply);
    if (st < 0)
        return st;
    int f = boot_wire_field(reply, "value", ' ', val, cap);
    if (f < 0) {
        rm_log_error(PMI1 ": the value of '%s' does not fit in %zu bytes", key, cap);
        return RM_ERR_TRUNCATE;
    }
    return f ? RM_OK : RM_ERR_NOT_FOUND;
}

static void pmi1_abort(int code, const char *msg)
{
    if (boot_conn.fd < 0)
        return;
    char line[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=abort exitcode=%d error_msg=%s\n", code, msg);
    boot_wire_write(PMI1, line, strlen(line));
}

static rm_status_t pmi1_finalize(void)
{
    char reply[PMI1_LINE_MAX];
    rm_status_t st = pmi1_call("cmd=finalize\n", "finalize_ack", reply, sizeof reply);
    close(boot_conn.fd);
    boot_conn.fd = -1;
    return st;
}

/* MPICH's simple PMI name service commands. A refusal is rc != 0 or an
 * `info` other than ok (Hydra answers rc=0 info=fail). */
static rm_status_t pmi1_name_call(const char *line, const char *expect, char *reply, size_t cap)
{
    rm_status_t st = pmi1_call(line, expect, reply, cap);
    char info[64];
    if (st == RM_OK && boot_wire_field(reply, "info", ' ', info, sizeof info) == 1 && strcmp(info, "ok"))
        st = RM_ERR_NOT_FOUND;
    return st;
}

static rm_status_t pmi1_name_publish(const char *service, const char *port)
{
    char line[PMI1_LINE_MAX], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=publish_name service=%s port=%s\n", service, port);
    return pmi1_name_call(line, "publish_result", reply, sizeof reply);
}

static rm_status_t pmi1_name_lookup(const char *service, char *port, size_t cap)
{
    char line[PMI1_LINE_MAX], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=lookup_name service=%s\n", service);
    rm_status_t st = pmi1_name_call(line, "lookup_result", reply, sizeof reply);
    if (st < 0)
        return st;
    int f = boot_wire_field(reply, "port", ' ', port, cap);
    /* Hydra answers an unknown name with an empty port and info=ok */
    return f < 0 ? RM_ERR_TRUNCATE : f && *port ? RM_OK : RM_ERR_NOT_FOUND;
}

static rm_status_t pmi1_name_unpublish(const char *service)
{
    char line[PMI1_LINE_MAX], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=unpublish_name service=%s\n", service);
    return pmi1_name_call(line, "unpublish_result", reply, sizeof reply);
}

static rm_status_t pmi1_spawn(const char *blocks, char *why, size_t cap)
{
    char reply[PMI1_LINE_MAX];
    /* one answer after the last block */
    rm_status_t st = pmi1_call(blocks, "spawn_result", reply, sizeof reply);
    if (st == RM_ERR_NOT_FOUND && boot_wire_field(reply, "msg", ' ', why, cap) != 1)
        snprintf(why, cap, "refused");
    return st;
}

static rm_status_t pmi1_lost(int rank)
{
    char line[64], reply[PMI1_LINE_MAX];
    snprintf(line, sizeof line, "cmd=railmpi_lost rank=%d\n", rank);
    return pmi1_call(line, "railmpi_lost_ack", reply, sizeof reply);
}

const boot_ops_t boot_pmi1_ops = {
    .name = PMI1,
    .bad_key = " =\n",
    .bad_val = " \n",
    .init = pmi1_init,
    .put = pmi1_put,
    .fence = pmi1_fence,
    .get = pmi1_get,
    .abort = pmi1_abort,
    .finalize = pmi1_finalize,
    .name_publish = pmi1_name_publish,
    .name_lookup = pmi1_name_lookup,
    .name_unpublish = pmi1_name_unpublish,
    .spawn = pmi1_spawn,
    .lost = pmi1_lost,
};
