/* Loading a transport must leave every signal's action as the program had
 * it: rank 0 catches SIGUSR1 and leaves the rest as they came, MPI_Init
 * brings the rails up, a message crosses them, and then each signal's
 * action must be what it was before MPI_Init. Over ofi, libfabric's psm
 * provider's library installs handlers for SIGINT, SIGTERM, SIGSEGV and
 * others when it loads (src/net/ofi_discover.c). Prints "OK signals" on rank 0. */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

static void on_usr1(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    static struct sigaction before[NSIG];
    struct sigaction usr1 = {.sa_handler = on_usr1};
    sigemptyset(&usr1.sa_mask);
    sigaction(SIGUSR1, &usr1, NULL);
    for (int s = 1; s < NSIG; s++)
        if (sigaction(s, NULL, &before[s]))
            before[s].sa_handler = SIG_ERR;
    int rank, size, v = 0, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && size > 1)
        MPI_Send(&rank, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int s = 1; s < NSIG; s++) {
        struct sigaction now;
        if (before[s].sa_handler == SIG_ERR || sigaction(s, NULL, &now))
            continue;
        if (now.sa_handler != before[s].sa_handler) {
            printf("FAIL: rank %d: the action of signal %d (%s) changed in MPI_Init\n", rank, s, strsignal(s));
            bad = 1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !bad)
        printf("OK signals\n");
    MPI_Finalize();
    return bad;
}
