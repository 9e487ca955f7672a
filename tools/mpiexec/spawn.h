/* MPI_Comm_spawn through mpiexec: a spawned job is another mpiexec, started
 * on this host with what the spawn block asks for. */
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
pid_t spawn_start(const char *self, const char *const *const *blocks, const int *lines, int nblocks,
                  char *const *env, int nenv, int envnone, char *msg, size_t msglen);

#endif
