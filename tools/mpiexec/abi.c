/* mpiexec -abi NAME: run programs built for another MPI's ABI on railmpi.
 * `-abi openmpi` puts railmpi's libmpi.so.40 (lib/openmpi-abi beside
 * mpiexec's bin/, in the build tree as in an installation) first on the
 * ranks' LD_LIBRARY_PATH, so a program linked with Open MPI's libmpi.so.40
 * loads railmpi's (docs/abi.md). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "job.h"

int job_abi_set(job_t *j, const char *abi)
{
    if (!strcmp(abi, "mpich"))
        return 0; /* railmpi's own ABI: nothing to change */
    if (strcmp(abi, "openmpi")) {
        fprintf(stderr, "mpiexec: -abi takes openmpi or mpich, not '%s'\n", abi);
        return 2;
    }
    char self[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0) {
        fprintf(stderr, "mpiexec: -abi openmpi: cannot find mpiexec's own path\n");
        return 1;
    }
    self[l] = 0;
    for (int up = 0; up < 2; up++) { /* .../bin/mpiexec -> ... */
        char *s = strrchr(self, '/');
        if (!s) {
            fprintf(stderr, "mpiexec: -abi openmpi: cannot find the library directory\n");
            return 1;
        }
        *s = 0;
    }
    const char *old = getenv("LD_LIBRARY_PATH");
    size_t n = strlen(self) + (old ? strlen(old) : 0) + 64;
    char *kv = malloc(n);
    if (!kv)
        return 1;
    snprintf(kv, n, "LD_LIBRARY_PATH=%s/lib/openmpi-abi%s%s", self, old && *old ? ":" : "",
             old && *old ? old : "");
    char lib[PATH_MAX + 32];
    snprintf(lib, sizeof lib, "%s/lib/openmpi-abi/libmpi.so.40", self);
    if (access(lib, R_OK)) {
        fprintf(stderr, "mpiexec: -abi openmpi: %s is missing\n", lib);
        free(kv);
        return 1;
    }
    return job_env_add(j, kv) < 0 ? 1 : 0;
}
