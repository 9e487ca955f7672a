/* Operator control of a running job. The top mpiexec listens on a Unix
 * socket named after its pid; `mpiexec -migrate off|on RAIL [-job PID]`
 * (client mode) sends it one command line and prints the answer. The job's
 * mpiexec hands the command to every rank: directly through each local
 * rank's control pipe (RAILMPI_CTL_FD), through the proxies for other hosts.
 *
 * Commands (one line each, also the wire format of the pipes and of the
 * proxies' control links):
 *   migrate off RAIL   move all traffic off RAIL (it stays connected)
 *   migrate on RAIL    give RAIL back to the scheduler */
#ifndef RM_MPIEXEC_CONTROL_H
#define RM_MPIEXEC_CONTROL_H

#include <stddef.h>

/* The socket's path for the mpiexec with this pid. */
void control_path(int pid, char *path, size_t len);

/* Top mpiexec: listen (non-blocking fd, or -1 with a warning: the job runs
 * without operator control). control_close removes the socket file. */
int control_listen(char *path, size_t len);
void control_close(int fd, const char *path);

/* Accept one operator connection and read its command line (bounded wait).
 * Returns the connection's fd (answer on it with control_reply, which closes
 * it) and the line in `cmd`, or -1. */
int control_accept(int lfd, char *cmd, size_t len);
void control_reply(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whether `cmd` is a well-formed command; *why says what is wrong if not. */
int control_valid(const char *cmd, const char **why);

/* Client mode: send `cmd` to the job of mpiexec `pid` (0: the only job of
 * this user on this host) and print the answer. Returns mpiexec's exit code. */
int control_client(const char *cmd, int pid);

#endif
