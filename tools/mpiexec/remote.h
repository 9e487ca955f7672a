/* Multi-host jobs. The top mpiexec starts one proxy per host through a
 * launcher command (`CMD HOST COMMAND...`, e.g. ssh or `ip netns exec`); each
 * proxy is this same binary in proxy mode, runs its host's ranks like a
 * single-host job, and keeps one control connection to the top over which
 * the PMI key-value space and barriers are merged. Output and exit status
 * travel through the launcher command's own pipes and exit code.
 *
 * The launcher's command line carries only simple words (the proxy's path,
 * mpiexec's address, numbers, the host name): ssh hands it to a remote shell
 * that splits and unquotes it, `ip netns exec` execs it as it is, and no
 * quoting suits both. The job itself (environment, working directory,
 * program and arguments) goes to the proxy over the control connection,
 * after `hello ID` and `setup KVS SECRET`, one field a line:
 *   envnone          start the ranks from an empty environment (-genvnone)
 *   env NAME=VALUE   set for every rank, in order (later lines win)
 *   cwd DIR          run there if it exists on the host
 *   arg WORD         the program, then each of its arguments
 *   app N            a spawned job's command of N ranks (mpiexec --app), its
 *   appdir DIR       directory and its words, program first; the ranks
 *   apparg WORD      take them in order, as on one host
 *   launcher CMD     the launcher, and each of the launch's hosts: where
 *   host NAME        the job's spawns may start their ranks (spawn.h)
 *   end
 * every value percent-encoded (remote_encode), so any byte string but NUL
 * arrives as it was. While the job runs, besides the key-value space's and
 * barriers' lines, a proxy of a job with process fault tolerance sends
 * `failed RANK` when one of its ranks dies, and mpiexec sends the same line
 * to every other proxy (also for each rank of a proxy that died), which
 * lists the rank on its host's failure board (docs/ulfm.md). */
#ifndef RM_MPIEXEC_REMOTE_H
#define RM_MPIEXEC_REMOTE_H

#include <stddef.h>

#define CTL_BUF_SIZE 65536 /* also the longest control line */

typedef struct ctl_conn {
    int fd;
    char buf[CTL_BUF_SIZE];
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
                         int proxy_id, int first, int count, int world, int label, const char *bind);
/* proxy side */
int remote_connect(const char *addr, char *local_ip, size_t iplen);

/* shell-quote one argument for a remote sh -c */
char *remote_quote(const char *arg);

/* Job description fields: every byte outside [A-Za-z0-9_./:=,+@-] becomes
 * %XX. remote_decode returns NULL for anything remote_encode cannot have
 * produced (a stray %, a bad hex digit, %00, a byte it would have encoded). */
char *remote_encode(const char *s);
char *remote_decode(const char *s);
/* whether `value` fits on one control line once encoded */
int remote_field_fits(const char *value);
/* send "TAG ENCODED-VALUE\n" in full; -1 if it does not fit or the write fails */
int remote_send_field(int fd, const char *tag, const char *value);

#endif
