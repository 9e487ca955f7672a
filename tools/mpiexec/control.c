/* Operator control of a running job (see control.h). */
#include "control.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define CONTROL_PREFIX "railmpi-mpiexec-"
/* How long each side waits for the other's line: the job's mpiexec stops
 * forwarding output meanwhile, so its wait is short. */
#define CONTROL_SERVER_WAIT_MS 1000
#define CONTROL_CLIENT_WAIT_MS 5000

static const char *control_dir(void)
{
    const char *d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

void control_path(int pid, char *path, size_t len)
{
    snprintf(path, len, "%s/" CONTROL_PREFIX "%u-%d.sock", control_dir(), (unsigned)getuid(), pid);
}

int control_listen(char *path, size_t len)
{
    control_path((int)getpid(), path, len);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        fprintf(stderr, "mpiexec: warning: control socket path too long (%s); no operator commands\n", path);
        *path = 0;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        goto fail;
    unlink(path); /* left by an earlier mpiexec with this pid that was killed */
    mode_t old = umask(077); /* only this user may steer the job */
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    umask(old);
    if (rc < 0 || listen(fd, 8) < 0)
        goto fail;
    return fd;
fail:
    fprintf(stderr, "mpiexec: warning: cannot create control socket %s: %s; no operator commands\n", path,
            strerror(errno));
    if (fd >= 0)
        close(fd);
    *path = 0;
    return -1;
}

void control_close(int fd, const char *path)
{
    if (fd >= 0)
        close(fd);
    if (path && *path)
        unlink(path);
}

/* Read one line (without its newline) within wait_ms. */
static int control_read_line(int fd, char *line, size_t len, int wait_ms)
{
    size_t n = 0;
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    while (n + 1 < len) {
        if (poll(&pf, 1, wait_ms) <= 0)
            return -1;
        ssize_t r = read(fd, line + n, 1);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            break;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = 0;
    return n ? 0 : -1;
}

int control_accept(int lfd, char *cmd, size_t len)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    if (control_read_line(fd, cmd, len, CONTROL_SERVER_WAIT_MS) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void control_reply(int fd, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n > sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    /* a short answer to a waiting client; its loss only costs the client the answer */
    if (write(fd, buf, (size_t)n) != n)
        fprintf(stderr, "mpiexec: could not answer an operator command\n");
    close(fd);
}

int control_valid(const char *cmd, const char **why)
{
    char dir[8], extra[2];
    int rail;
    if (sscanf(cmd, "migrate %7s %d %1s", dir, &rail, extra) != 2 || (strcmp(dir, "off") && strcmp(dir, "on"))) {
        *why = "expected 'migrate off RAIL' or 'migrate on RAIL'";
        return 0;
    }
    if (rail < 0 || rail > 63) {
        *why = "a rail is a number from 0 to 63";
        return 0;
    }
    return 1;
}

/* The pid of the only running job of this user, 0 if none, -1 if several. */
static int control_find_job(void)
{
    DIR *d = opendir(control_dir());
    if (!d)
        return 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, CONTROL_PREFIX "%u-", (unsigned)getuid());
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        if (strncmp(e->d_name, prefix, strlen(prefix)) || sscanf(e->d_name + strlen(prefix), "%d.sock", &pid) != 1)
            continue;
        if (kill(pid, 0) < 0 && errno == ESRCH)
            continue; /* a killed mpiexec's leftover */
        found = found ? -1 : pid;
    }
    closedir(d);
    return found;
}

int control_client(const char *cmd, int pid)
{
    const char *why;
    if (!control_valid(cmd, &why)) {
        fprintf(stderr, "mpiexec: %s\n", why);
        return 2;
    }
    if (!pid)
        pid = control_find_job();
    if (pid == 0) {
        fprintf(stderr, "mpiexec: no running railmpi job of this user here (looked in %s)\n", control_dir());
        return 1;
    }
    if (pid < 0) {
        fprintf(stderr, "mpiexec: several railmpi jobs are running; name one with -job PID\n");
        return 2;
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    control_path(pid, a.sun_path, sizeof a.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        fprintf(stderr, "mpiexec: cannot reach the job of mpiexec %d (%s): %s\n", pid, a.sun_path,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    char line[512];
    snprintf(line, sizeof line, "%s\n", cmd);
    int rc = 1;
    if (write(fd, line, strlen(line)) == (ssize_t)strlen(line) && control_read_line(fd, line, sizeof line, CONTROL_CLIENT_WAIT_MS) == 0) {
        rc = strncmp(line, "ok", 2) ? 1 : 0;
        fprintf(rc ? stderr : stdout, "mpiexec: job %d: %s\n", pid, line);
    } else {
        fprintf(stderr, "mpiexec: the job of mpiexec %d did not answer\n", pid);
    }
    close(fd);
    return rc;
}
