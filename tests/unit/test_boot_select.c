/* Which launcher protocol the boot layer chooses from the environment
 * (src/boot/boot.c): a PMIx server's variables select PMIx ahead of PMI-2
 * and PMI-1, except in the ranks of a PMI-1 launcher (Hydra, railmpi's
 * mpiexec) that inherited them; libpmix is loaded only when PMIx is chosen;
 * and a PMIx server that is not there is an error, not a hang. */
#include "boot/wire.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;

#define CHECK(c)                                                        \
    do {                                                                \
        if (!(c)) {                                                     \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);         \
            fails++;                                                    \
        }                                                               \
    } while (0)

static const char *const launcher_vars[] = {"PMI_FD",         "PMI_PORT",  "PMI_ID",       "PMI_JOBID",
                                            "MPI_LOCALNRANKS", "PMIX_RANK", "PMIX_NAMESPACE",
                                            "PMIX_SERVER_URI4", "PMIX_SERVER_URI41"};

static void env_clear(void)
{
    for (size_t i = 0; i < sizeof launcher_vars / sizeof *launcher_vars; i++)
        unsetenv(launcher_vars[i]);
}

/* what Slurm's pmix plugin gives a task (the URI names no live server) */
static void env_pmix(void)
{
    setenv("PMIX_NAMESPACE", "slurm.pmix.7.0", 1);
    setenv("PMIX_RANK", "1", 1);
    setenv("PMIX_SERVER_URI41", "pmix-server.1;tcp4://127.0.0.1:9", 1);
}

static const char *chosen(void)
{
    return boot_select()->name;
}

static int pmix_mapped(void)
{
    char line[512];
    int yes = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        yes |= strstr(line, "/libpmix.so") != NULL;
    if (f)
        fclose(f);
    return yes;
}

int main(void)
{
    env_clear();
    CHECK(!strcmp(chosen(), "singleton"));

    env_pmix();
    CHECK(!strcmp(chosen(), "PMIx"));
    /* no server address: not a PMIx server's task */
    unsetenv("PMIX_SERVER_URI41");
    CHECK(!strcmp(chosen(), "singleton"));
    setenv("PMIX_SERVER_URI4", "pmix-server.1;tcp4://127.0.0.1:9", 1);
    CHECK(!strcmp(chosen(), "PMIx"));
    unsetenv("PMIX_RANK");
    CHECK(!strcmp(chosen(), "singleton"));

    /* an enclosing srun --mpi=pmi2 step's variables lose to PMIx */
    env_clear();
    env_pmix();
    setenv("PMI_FD", "5", 1);
    setenv("PMI_JOBID", "7.0", 1);
    CHECK(!strcmp(chosen(), "PMIx"));
    /* ... but Hydra's ranks speak PMI-1 to Hydra, whatever they inherited */
    setenv("MPI_LOCALNRANKS", "2", 1);
    CHECK(!strcmp(chosen(), "PMI-1"));
    unsetenv("PMI_FD");
    setenv("PMI_PORT", "127.0.0.1:9", 1);
    setenv("PMI_ID", "0", 1);
    CHECK(!strcmp(chosen(), "PMI-1"));
    /* railmpi's mpiexec started as a PMIx task: PMI_FD without PMI_JOBID */
    env_clear();
    env_pmix();
    setenv("PMI_FD", "5", 1);
    CHECK(!strcmp(chosen(), "PMI-1"));
    /* without PMIx, as before */
    env_clear();
    setenv("PMI_FD", "5", 1);
    setenv("PMI_JOBID", "7.0", 1);
    CHECK(!strcmp(chosen(), "PMI-2"));

    /* choosing is not loading */
    CHECK(!pmix_mapped());

    /* a server that is not there: boot_init fails within a bounded time,
     * having loaded libpmix */
    env_clear();
    env_pmix();
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        boot_info_t bi;
        rm_status_t st = boot_init(&bi);
        _exit(st < 0 && pmix_mapped() ? 0 : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status))
        printf("the client ended by signal %d (SIGALRM: it hung)\n", WTERMSIG(status));

    if (fails)
        printf("%d check(s) failed\n", fails);
    else
        printf("OK\n");
    return fails != 0;
}
