/* A program that misbehaves on request, for the launcher tests:
 *   actor exit R CODE     rank R exits with CODE (without MPI_Finalize)
 *   actor segv R          rank R dies by SIGSEGV
 *   actor abort R CODE    rank R calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   actor killed R CODE   the others call MPI_Abort(CODE) and rank R dies by SIGKILL 50 ms
 *                         later: the launcher hears of a death after the aborts it caused
 *   actor badsend R       rank R sends to an invalid rank (fatal error handler)
 *   actor sleep SECS      every rank sleeps (and spawns a child that sleeps too)
 *   actor echo            rank 0 copies stdin to stdout; every rank prints two lines
 *   actor env NAME...     print each NAME's value
 *   actor args ARG...     print each ARG as [ARG] on its own line, then the working directory */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *what = argc > 1 ? argv[1] : "";
    int who = argc > 2 ? atoi(argv[2]) : 0, code = argc > 3 ? atoi(argv[3]) : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(what, "exit") && rank == who) {
        exit(code);
    } else if (!strcmp(what, "segv") && rank == who) {
        raise(SIGSEGV);
    } else if (!strcmp(what, "abort") && rank == who) {
        MPI_Abort(MPI_COMM_WORLD, code);
    } else if (!strcmp(what, "killed")) {
        if (rank == who) {
            usleep(50000);
            raise(SIGKILL);
        }
        MPI_Abort(MPI_COMM_WORLD, code);
    } else if (!strcmp(what, "badsend") && rank == who) {
        int x = 0;
        MPI_Send(&x, 1, MPI_INT, 12345, 0, MPI_COMM_WORLD);
    } else if (!strcmp(what, "sleep")) {
        if (fork() == 0) {
            execlp("sleep", "sleep", argv[2], (char *)NULL);
            _exit(1);
        }
        sleep((unsigned)atoi(argv[2]));
    } else if (!strcmp(what, "echo")) {
        if (rank == 0) {
            char line[256];
            while (fgets(line, sizeof line, stdin))
                printf("stdin: %s", line);
        }
        printf("line one from %d\n", rank);
        fflush(stdout);
        printf("line two from %d\n", rank);
    } else if (!strcmp(what, "env")) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("%s=%s\n", argv[i], v ? v : "(unset)");
        }
    } else if (!strcmp(what, "args")) {
        char cwd[4096];
        for (int i = 2; i < argc; i++)
            printf("[%s]\n", argv[i]);
        printf("cwd=%s\n", getcwd(cwd, sizeof cwd) ? cwd : "(unknown)");
    }
    /* ranks that did not fail wait here for the failed one */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
