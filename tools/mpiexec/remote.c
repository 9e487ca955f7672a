#include "remote.h"
#include "util/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int ctl_read(ctl_conn_t *c)
{
    if (c->len == sizeof c->buf)
        return -1; /* a line longer than the buffer: a broken peer */
    ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    c->len += (size_t)n;
    return 0;
}

char *ctl_next_line(ctl_conn_t *c, size_t *consumed)
{
    char *nl = memchr(c->buf + *consumed, '\n', c->len - *consumed);
    if (!nl)
        return NULL;
    *nl = 0;
    char *line = c->buf + *consumed;
    *consumed = (size_t)(nl - c->buf) + 1;
    return line;
}

void ctl_consume(ctl_conn_t *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* Write all of buf (a control line); 0, or -1 if the connection failed. */
static int ctl_write(int fd, const char *buf, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

int ctl_send(int fd, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        return -1;
    return ctl_write(fd, line, (size_t)n);
}

/* The IPv4 address of an interface name, or the name itself if it is an address. */
static int remote_iface_addr(const char *iface, struct in_addr *out)
{
    if (inet_pton(AF_INET, iface, out) == 1)
        return 0;
    struct ifaddrs *ifa0;
    if (getifaddrs(&ifa0) < 0)
        return -1;
    int rc = -1;
    for (struct ifaddrs *i = ifa0; i; i = i->ifa_next) {
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && !strcmp(i->ifa_name, iface)) {
            *out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            rc = 0;
            break;
        }
    }
    freeifaddrs(ifa0);
    return rc;
}

int remote_listen(const char *iface, char *addr, size_t addrlen)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    char host[256] = "";
    if (iface && remote_iface_addr(iface, &sa.sin_addr) < 0) {
        fprintf(stderr, "mpiexec: -iface %s: no such interface or address\n", iface);
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 256) < 0) {
        perror("mpiexec: listen");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    if (iface)
        inet_ntop(AF_INET, &sa.sin_addr, host, sizeof host);
    else if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    snprintf(addr, addrlen, "%s:%d", host, ntohs(sa.sin_port));
    return fd;
}

/* Quote only what needs it: launchers that run the command through a shell
 * (ssh) need the quotes, those that exec it directly (`ip netns exec`)
 * would pass them on literally, which is why only simple words go on the
 * launcher's command line (remote.h). */
char *remote_quote(const char *arg)
{
    if (*arg && strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%") ==
                    strlen(arg))
        return strdup(arg);
    size_t n = 3;
    for (const char *p = arg; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *p = arg; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = 0;
    return q;
}

char **remote_proxy_argv(const char *launcher, const char *host, const char *self, const char *addr,
                         int proxy_id, int first, int count, int world, int label, const char *bind)
{
    char **v = calloc(64, sizeof *v);
    if (!v)
        return NULL;
    int k = 0;
    char lcopy[1024];
    snprintf(lcopy, sizeof lcopy, "%s", launcher);
    for (char *save, *t = strtok_r(lcopy, " \t", &save); t && k < 40; t = strtok_r(NULL, " \t", &save))
        v[k++] = strdup(t);
    v[k++] = strdup(host);
    /* What follows may go through a remote shell (ssh) or be run as it is:
     * only simple words here, quoted in case a path or host name needs it.
     * The program and the environment follow over the control connection. */
    char num[32];
    v[k++] = remote_quote(self);
    v[k++] = strdup("--proxy");
    v[k++] = remote_quote(addr);
    snprintf(num, sizeof num, "%d", proxy_id);
    v[k++] = strdup("--proxy-id");
    v[k++] = strdup(num);
    snprintf(num, sizeof num, "%d", first);
    v[k++] = strdup("--first");
    v[k++] = strdup(num);
    snprintf(num, sizeof num, "%d", world);
    v[k++] = strdup("--world");
    v[k++] = strdup(num);
    v[k++] = strdup("--host-id");
    v[k++] = remote_quote(host);
    v[k++] = strdup("-bind-to");
    v[k++] = strdup(bind);
    if (label)
        v[k++] = strdup("-l");
    snprintf(num, sizeof num, "%d", count);
    v[k++] = strdup("-n");
    v[k++] = strdup(num);
    v[k] = NULL;
    return v;
}

static int remote_safe(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           (c && strchr("_./:=,+@-", c));
}

static size_t remote_encoded_len(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += remote_safe(*p) ? 1 : 3;
    return n;
}

char *remote_encode(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *e = malloc(remote_encoded_len(s) + 1), *o = e;
    if (!e)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (remote_safe(*p)) {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = 0;
    return e;
}

static int remote_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

char *remote_decode(const char *s)
{
    char *d = malloc(strlen(s) + 1), *o = d;
    if (!d)
        return NULL;
    for (const char *p = s; *p; p++) {
        if (*p != '%') {
            if (!remote_safe((unsigned char)*p))
                goto bad;
            *o++ = *p;
            continue;
        }
        int hi = remote_hex(p[1]), lo = hi < 0 ? -1 : remote_hex(p[2]);
        if (lo < 0 || (hi | lo) == 0)
            goto bad;
        *o++ = (char)(hi << 4 | lo);
        p += 2;
    }
    *o = 0;
    return d;
bad:
    free(d);
    return NULL;
}

int remote_field_fits(const char *value)
{
    return remote_encoded_len(value) + 16 <= CTL_BUF_SIZE; /* room for the tag and newline */
}

int remote_send_field(int fd, const char *tag, const char *value)
{
    if (!remote_field_fits(value) || strlen(tag) > 8)
        return -1;
    char *e = remote_encode(value);
    if (!e)
        return -1;
    size_t n = strlen(tag) + 1 + strlen(e) + 1;
    char *line = malloc(n + 1);
    int rc = -1;
    if (line) {
        snprintf(line, n + 1, "%s %s\n", tag, e);
        rc = ctl_write(fd, line, n);
    }
    free(line);
    free(e);
    return rc;
}

int remote_connect(const char *addr, char *local_ip, size_t iplen)
{
    return rm_sock_connect(addr, local_ip, iplen);
}
