#include "util/log.h"
#include "util/status.h"

#include <stdio.h>
#include <string.h>

int rm_log_level = 0;
int rm_log_rank = -1;

void rm_vlog(int level, const char *fmt, va_list ap)
{
    char line[1024];
    int n;
    (void)level;
    if (rm_log_rank >= 0)
        n = snprintf(line, sizeof line, "railmpi[%d]: ", rm_log_rank);
    else
        n = snprintf(line, sizeof line, "railmpi: ");
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* one write per line so lines from different ranks never interleave */
    size_t len = strlen(line);
    if (len + 1 < sizeof line) {
        line[len++] = '\n';
        line[len] = 0;
    }
    fputs(line, stderr);
    fflush(stderr);
}

void rm_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rm_vlog(level, fmt, ap);
    va_end(ap);
}

const char *rm_status_str(rm_status_t st)
{
    switch (st) {
    case RM_OK: return "ok";
    case RM_INPROGRESS: return "in progress";
    case RM_ERR_NO_RESOURCE: return "no resource (try again)";
    case RM_ERR_UNREACHABLE: return "unreachable";
    case RM_ERR_TIMED_OUT: return "timed out";
    case RM_ERR_CONN_RESET: return "connection reset";
    case RM_ERR_NOMEM: return "out of memory";
    case RM_ERR_INVALID: return "invalid argument";
    case RM_ERR_TRUNCATE: return "message truncated";
    case RM_ERR_NOT_FOUND: return "not found";
    case RM_ERR_IO: return "I/O error";
    case RM_ERR_UNSUPPORTED: return "not supported";
    case RM_ERR_INTERNAL: return "internal error";
    case RM_ERR_PROC_FAILED: return "process failed";
    case RM_ERR_REVOKED: return "communicator revoked";
    case RM_ERR_PROC_FAILED_PENDING: return "a potential sender failed (not acknowledged)";
    case RM_ERR_CLOSED: return "closed by the peer";
    }
    return "unknown status";
}
