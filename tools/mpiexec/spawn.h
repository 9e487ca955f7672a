/* MPI_Comm_spawn through mpiexec: a spawned job is another mpiexec, started
 * on this host with what the spawn block asks for; its ranks run here, or
 * on another host of the launch (info key host) through a proxy that the
 * new mpiexec starts there with the launch's launcher. */
#ifndef RM_MPIEXEC_SPAWN_H
#define RM_MPIEXEC_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* Start the job the spawn blocks (key=value lines, one block per command)
 * describe, as one MPI_COMM_WORLD; `self` is this mpiexec's path. Returns
 * its mpiexec's pid (its own process group), or -1 with the reason in msg:
 * nothing was started. */
/* `env` (NAME=VALUE, n of them) is what the spawning job's ranks were given
 * beyond mpiexec's environment (-genv): the new job's get it too, and
 * only it with `envnone` (-genvnone). */
/* Where a spawned job may go: this host (`host_id`, as the launch named it,
 * or "" for a job on one host) and the launch's hosts, reached with
 * `launcher` (its command, split on blanks) from `iface` (an address of
 * this host that those hosts reach). */
typedef struct spawn_where {
    const char *host_id;
    const char *launcher;
    const char *iface;
    char *const *hosts;
    int nhosts;
} spawn_where_t;

pid_t spawn_start(const char *self, const spawn_where_t *where, const char *const *const *blocks,
                  const int *lines, int nblocks, char *const *env, int nenv, int envnone, char *msg,
                  size_t msglen);

#endif
