/* Multi-host jobs. The top mpiexec starts one proxy per host through a
 * launcher command (`CMD HOST COMMAND...`, e.g. ssh or `ip netns exec`); each
 * proxy is this same binary in proxy mode, runs its host's ranks like a
 * single-host job, and keeps one control connection to the top over which
 * the PMI key-value space and barriers are merged. Output and exit status
 * travel through the launcher command's own pipes and exit code. */
#ifndef RM_MPIEXEC_REMOTE_H
#define RM_MPIEXEC_REMOTE_H

#include <stddef.h>

typedef struct ctl_conn {
    int fd;
    char buf[65536];
    size_t len;
} ctl_conn_t;

/* A line-oriented control link: returns complete lines one by one. */
int ctl_read(ctl_conn_t *c);                 /* -1 on EOF/error */
char *ctl_next_line(ctl_conn_t *c, size_t *consumed);
void ctl_consume(ctl_conn_t *c, size_t n);
int ctl_send(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* top side */
int remote_listen(const char *iface, char *addr, size_t addrlen); /* fd; addr = "ip:port" */
/* the argv that starts a proxy on `host` through `launcher` */
char **remote_proxy_argv(const char *launcher, const char *host, const char *self, const char *addr,
                         int proxy_id, int first, int count, int world, int label, const char *bind,
                         char **env_extra, int nenv, char **prog);
/* proxy side */
int remote_connect(const char *addr, char *local_ip, size_t iplen);

/* shell-quote one argument for a remote sh -c */
char *remote_quote(const char *arg);

#endif
