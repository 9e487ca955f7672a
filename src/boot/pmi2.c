/* PMI-2 wire protocol client, as Slurm's pmi2 plugin (srun --mpi=pmi2)
 * serves it, over the socket inherited as PMI_FD. (Hydra serves PMI-2 too,
 * but its kvs-fence is no barrier; boot.c gives Hydra PMI-1.)
 *
 * The connection opens with one PMI-1 style line that asks for version 2
 * ("cmd=init pmi_version=2 pmi_subversion=0", answered by
 * "cmd=response_to_init ..."). From then on every message in both directions
 * is a 6-character decimal length, space-padded, followed by that many bytes
 * of "cmd=NAME;key=value;...;". Slurm does not unescape ';' inside values, so
 * keys and values with ';' are refused before they reach the wire (boot.c).
 *
 * Commands used: fullinit (rank, size, appnum), job-getid (the job's name,
 * which also names shared-memory segments), kvs-put / kvs-fence / kvs-get,
 * abort and finalize. Job and node attributes (info-getjobattr: the process
 * mapping) are not needed: ranks exchange their host names through the KVS
 * as under PMI-1. */
#include "boot/wire.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMI2 "PMI-2"
#define PMI2_HDR 6                 /* length prefix */
#define PMI2_MSG_MAX (64 * 1024)   /* longest reply we accept */
#define PMI2_CMD_MAX 4096          /* our commands: key <= 64, value <= 1024, job id <= 256 */
#define PMI2_KEYLEN_MAX 64         /* PMI2_MAX_KEYLEN and PMI2_MAX_VALLEN of pmi2.h */
#define PMI2_VALLEN_MAX 1024

/* Replies land here: calls are serialized (start-up, then under the global
 * lock), and 64 KiB is too much for the stack of a thread calling MPI_Init. */
static char pmi2_reply[PMI2_MSG_MAX + 1];

static rm_status_t pmi2_send(const char *body)
{
    size_t len = strlen(body);
    char msg[PMI2_HDR + PMI2_CMD_MAX + 1];
    if (len > PMI2_CMD_MAX) {
        rm_log_error(PMI2 ": command of %zu bytes is too long", len);
        return RM_ERR_INVALID;
    }
    /* one write: header and body arrive together */
    int n = snprintf(msg, sizeof msg, "%-6zu%s", len, body);
    return boot_wire_write(PMI2, msg, (size_t)n);
}

/* One length-prefixed message into pmi2_reply. */
static rm_status_t pmi2_recv(void)
{
    char hdr[PMI2_HDR + 1];
    rm_status_t st = boot_wire_read(PMI2, hdr, PMI2_HDR, 0);
    if (st < 0)
        return st;
    hdr[PMI2_HDR] = 0;
    /* digits, padded with spaces on either side, and nothing else */
    size_t len = 0;
    int digits = 0, done = 0;
    for (const char *p = hdr; *p; p++) {
        if (*p >= '0' && *p <= '9' && !done) {
            len = len * 10 + (size_t)(*p - '0');
            digits++;
        } else if (*p == ' ') {
            done = digits > 0;
        } else {
            digits = -1;
            break;
        }
    }
    if (digits <= 0 || len == 0 || len > PMI2_MSG_MAX) {
        rm_log_error(PMI2 ": malformed length prefix '%s' from the launcher (expected 1 to %d)", hdr,
                     PMI2_MSG_MAX);
        return RM_ERR_INVALID;
    }
    if ((st = boot_wire_read(PMI2, pmi2_reply, len, 1)) < 0)
        return st;
    pmi2_reply[len] = 0;
    if (memchr(pmi2_reply, 0, len)) {
        rm_log_error(PMI2 ": reply from the launcher contains a NUL byte");
        return RM_ERR_INVALID;
    }
    return RM_OK;
}

/* Send a command, read its reply and check that it is `expect` with rc=0. */
static rm_status_t pmi2_call(const char *body, const char *expect)
{
    rm_status_t st = pmi2_send(body);
    if (st < 0 || (st = pmi2_recv()) < 0)
        return st;
    char got[64], rc[16];
    if (strncmp(pmi2_reply, "cmd=", 4) || boot_wire_field(pmi2_reply, "cmd", ';', got, sizeof got) != 1 ||
        strcmp(got, expect)) {
        rm_log_error(PMI2 ": expected '%s' from the launcher, got '%.200s'", expect, pmi2_reply);
        return RM_ERR_IO;
    }
    if (boot_wire_field(pmi2_reply, "rc", ';', rc, sizeof rc) != 1) {
        rm_log_error(PMI2 ": no rc in the launcher's '%.200s'", pmi2_reply);
        return RM_ERR_IO;
    }
    if (strcmp(rc, "0")) {
        char why[256];
        if (boot_wire_field(pmi2_reply, "errmsg", ';', why, sizeof why) != 1)
            strcpy(why, "no reason given");
        rm_log_error(PMI2 ": the launcher refused %.*s (rc %s: %s)", (int)strcspn(body + 4, ";"),
                     body + 4, rc, why);
        return RM_ERR_IO;
    }
    return RM_OK;
}

/* A decimal field of the last reply. */
static int pmi2_int_field(const char *key, int *out)
{
    char v[32], *end;
    if (boot_wire_field(pmi2_reply, key, ';', v, sizeof v) != 1)
        return 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < -1 || x > 1 << 30)
        return 0;
    *out = (int)x;
    return 1;
}

static rm_status_t pmi2_init(boot_info_t *out)
{
    int fd, rank;
    rm_status_t st;
    if ((st = boot_env_int("PMI_FD", -1, &fd)) < 0 || (st = boot_env_int("PMI_RANK", 0, &rank)) < 0)
        return st;
    if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
        rm_log_error(PMI2 ": PMI_FD=%d is not an open file descriptor", fd);
        return RM_ERR_INVALID;
    }
    boot_conn.fd = fd;

    static const char hello[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    char line[256], v[32];
    if ((st = boot_wire_write(PMI2, hello, sizeof hello - 1)) < 0 ||
        (st = boot_wire_read_line(PMI2, line, sizeof line)) < 0)
        return st;
    if (boot_wire_field(line, "cmd", ' ', v, sizeof v) != 1 || strcmp(v, "response_to_init") ||
        boot_wire_field(line, "rc", ' ', v, sizeof v) != 1 || strcmp(v, "0") ||
        boot_wire_field(line, "pmi_version", ' ', v, sizeof v) != 1 || strcmp(v, "2")) {
        rm_log_error(PMI2 ": the launcher does not accept PMI version 2: '%.200s'", line);
        return RM_ERR_UNSUPPORTED;
    }

    char cmd[PMI2_CMD_MAX];
    const char *jobid = getenv("PMI_JOBID");
    if (strchr(jobid, ';')) {
        rm_log_error(PMI2 ": PMI_JOBID='%s' cannot travel in a command", jobid);
        return RM_ERR_INVALID;
    }
    snprintf(cmd, sizeof cmd, "cmd=fullinit;pmijobid=%.256s;pmirank=%d;threaded=FALSE;", jobid, rank);
    if ((st = pmi2_call(cmd, "fullinit-response")) < 0)
        return st;
    if (!pmi2_int_field("rank", &out->rank) || !pmi2_int_field("size", &out->size) || out->size < 1 ||
        out->rank < 0 || out->rank >= out->size) {
        rm_log_error(PMI2 ": no valid rank and size in the launcher's '%.200s'", pmi2_reply);
        return RM_ERR_IO;
    }
    /* Slurm answers appnum=-1 (it does not number applications): one application */
    if (!pmi2_int_field("appnum", &out->appnum) || out->appnum < 0)
        out->appnum = 0;

    if ((st = pmi2_call("cmd=job-getid;", "job-getid-response")) < 0)
        return st;
    if (boot_wire_field(pmi2_reply, "jobid", ';', boot_conn.kvsname, sizeof boot_conn.kvsname) != 1 ||
        !boot_conn.kvsname[0]) {
        rm_log_error(PMI2 ": no usable job id in the launcher's '%.200s'", pmi2_reply);
        return RM_ERR_IO;
    }
    boot_conn.keylen_max = PMI2_KEYLEN_MAX;
    boot_conn.vallen_max = PMI2_VALLEN_MAX;
    return RM_OK;
}

static rm_status_t pmi2_put(const char *key, const char *val)
{
    char cmd[PMI2_CMD_MAX];
    snprintf(cmd, sizeof cmd, "cmd=kvs-put;key=%s;value=%s;", key, val);
    return pmi2_call(cmd, "kvs-put-response");
}

static rm_status_t pmi2_fence(void)
{
    return pmi2_call("cmd=kvs-fence;", "kvs-fence-response");
}

static rm_status_t pmi2_get(int rank, const char *key, char *val, size_t cap)
{
    char cmd[PMI2_CMD_MAX], found[8];
    snprintf(cmd, sizeof cmd, "cmd=kvs-get;jobid=%s;srcid=-1;key=%s;", boot_conn.kvsname, key);
    rm_status_t st = pmi2_call(cmd, "kvs-get-response");
    if (st < 0)
        return st;
    if (boot_wire_field(pmi2_reply, "found", ';', found, sizeof found) != 1) {
        rm_log_error(PMI2 ": no 'found' in the launcher's '%.200s'", pmi2_reply);
        return RM_ERR_IO;
    }
    if (!strcmp(found, "FALSE"))
        return RM_ERR_NOT_FOUND;
    int f = boot_wire_field(pmi2_reply, "value", ';', val, cap);
    if (strcmp(found, "TRUE") || f == 0) {
        rm_log_error(PMI2 ": malformed kvs-get reply '%.200s'", pmi2_reply);
        return RM_ERR_IO;
    }
    if (f < 0) {
        rm_log_error(PMI2 ": the value of '%s' does not fit in %zu bytes", key, cap);
        return RM_ERR_TRUNCATE;
    }
    return RM_OK;
}

static void pmi2_abort(int code, const char *msg)
{
    (void)code; /* PMI-2's abort carries no exit code: the process exits with it */
    if (boot_conn.fd < 0)
        return;
    char cmd[PMI2_CMD_MAX];
    snprintf(cmd, sizeof cmd, "cmd=abort;isworld=TRUE;msg=%.1024s;", msg);
    pmi2_send(cmd); /* no reply: the launcher ends the job */
}

static rm_status_t pmi2_finalize(void)
{
    rm_status_t st = pmi2_call("cmd=finalize;", "finalize-response");
    close(boot_conn.fd);
    boot_conn.fd = -1;
    return st;
}

const boot_ops_t boot_pmi2_ops = {
    .name = PMI2,
    .bad_key = "=;\n",
    .bad_val = ";\n",
    .init = pmi2_init,
    .put = pmi2_put,
    .fence = pmi2_fence,
    .get = pmi2_get,
    .abort = pmi2_abort,
    .finalize = pmi2_finalize,
};
