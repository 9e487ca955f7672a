/* Reading and writing the launcher's socket, shared by the PMI-1 and PMI-2
 * clients: bounded reads that never run past a buffer or wait forever inside
 * a message, and "key=value" field lookup for both separators. */
#include "boot/wire.h"
#include "util/log.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

boot_conn_t boot_conn = {.fd = -1};

rm_status_t boot_wire_write(const char *proto, const void *buf, size_t len)
{
    const char *p = buf;
    int plain = 0; /* PMI_FD is not a socket: write(2) */
    while (len) {
        ssize_t n = plain ? write(boot_conn.fd, p, len) : send(boot_conn.fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK && !plain) {
            plain = 1;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rm_log_error("%s: write to the launcher failed: %s", proto,
                         n < 0 ? strerror(errno) : "connection closed");
            return RM_ERR_IO;
        }
        p += n;
        len -= (size_t)n;
    }
    return RM_OK;
}

rm_status_t boot_wire_read(const char *proto, void *buf, size_t len, int started)
{
    char *p = buf;
    while (len) {
        struct pollfd pfd = {.fd = boot_conn.fd, .events = POLLIN};
        int r = poll(&pfd, 1, started ? BOOT_WIRE_STALL_MS : -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rm_log_error("%s: waiting for the launcher failed: %s", proto, strerror(errno));
            return RM_ERR_IO;
        }
        if (r == 0) {
            rm_log_error("%s: the launcher stopped in the middle of a reply (nothing for %d s)",
                         proto, BOOT_WIRE_STALL_MS / 1000);
            return RM_ERR_TIMED_OUT;
        }
        ssize_t n = read(boot_conn.fd, p, len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            rm_log_error("%s: the launcher closed the connection%s%s", proto, n < 0 ? ": " : "",
                         n < 0 ? strerror(errno) : "");
            return RM_ERR_IO;
        }
        p += n;
        len -= (size_t)n;
        started = 1;
    }
    return RM_OK;
}

rm_status_t boot_wire_read_line(const char *proto, char *buf, size_t cap)
{
    /* byte by byte: the launcher may already have queued the next message,
     * which belongs to the next call */
    size_t n = 0;
    for (;;) {
        char c;
        rm_status_t st = boot_wire_read(proto, &c, 1, n > 0);
        if (st < 0)
            return st;
        if (c == '\n')
            break;
        if (n + 1 >= cap) {
            buf[n] = 0;
            rm_log_error("%s: reply from the launcher longer than %zu bytes: '%.80s...'", proto,
                         cap - 1, buf);
            return RM_ERR_INVALID;
        }
        buf[n++] = c;
    }
    buf[n] = 0;
    return RM_OK;
}

int boot_wire_field(const char *msg, const char *key, char sep, char *out, size_t cap)
{
    size_t kl = strlen(key);
    for (const char *p = msg; (p = strstr(p, key)); p += kl) {
        if ((p == msg || p[-1] == sep) && p[kl] == '=') {
            const char *v = p + kl + 1;
            char stop[3] = {sep, '\n', 0};
            size_t n = strcspn(v, stop);
            if (n >= cap)
                return -1;
            memcpy(out, v, n);
            out[n] = 0;
            return 1;
        }
    }
    return 0;
}

rm_status_t boot_env_int(const char *name, int def, int *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = def;
        return RM_OK;
    }
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < INT_MIN || x > INT_MAX) {
        rm_log_error("boot: %s='%s' from the launcher is not a number", name, v);
        return RM_ERR_INVALID;
    }
    *out = (int)x;
    return RM_OK;
}
