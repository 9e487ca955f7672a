/* Agreements with ranks dying inside them (tests/scripts/ulfm_basic.sh, 8
 * ranks, or up to 16, process fault tolerance): 40 MPIX_Comm_iagree in a row on
 * MPI_COMM_WORLD, each rank with its own flag bits; in three of them a rank
 * (world ranks 0 -- the first root --, 5 and 3, in that order) starts the
 * agreement, spins a moment and kills itself while the others are in it.
 * After each agreement every survivor sends its (return class, flag) to the
 * lowest survivor, which checks that all are the same: the agreement is
 * uniform whatever the moment of the death. The flag must be the AND of
 * the survivors' bits at least (a rank that died during it may or may not
 * count). World rank 1 prints "OK ulfm_agree_deaths". */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int rank;

static int dead(int r)
{
    MPI_Group g, wg;
    int n, out = MPI_UNDEFINED;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(wg, 1, &r, g, &out);
    MPI_Group_size(g, &n);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    return out != MPI_UNDEFINED;
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 8 && size <= 16, "run with 8 to 16 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int victim[40] = {[7] = 1, [19] = 6, [31] = 4}; /* world rank + 1 dying in agreement i */
    unsigned alive_bits = (1u << size) - 1;
    for (int i = 0; i < 40; i++) {
        int flag = ~(1 << ((rank + i) % size)) & 0xffff;
        MPI_Request req;
        int rc = MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req);
        CHECK(rc == MPI_SUCCESS, "iagree %d: rc %d", i, rc);
        if (victim[i] == rank + 1) {
            struct timespec ts = {0, 20000 * (i % 7)};
            nanosleep(&ts, NULL);
            int done = 0;
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            raise(SIGKILL);
        }
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        int cls = check_class(rc);
        CHECK(cls == MPI_SUCCESS || cls == MPIX_ERR_PROC_FAILED, "agreement %d: class %d", i, cls);
        if (victim[i])
            alive_bits &= ~(1u << (victim[i] - 1));
        unsigned want = 0xffff;
        for (int r = 0; r < size; r++)
            if (alive_bits >> r & 1)
                want &= ~(1u << ((r + i) % size));
        unsigned vflag = victim[i] ? ~(1u << ((victim[i] - 1 + i) % size)) & 0xffff : 0xffff;
        CHECK((unsigned)flag == want || (unsigned)flag == (want & vflag),
              "agreement %d: flag %#x, expected the survivors' AND %#x", i, flag, want);
        /* everybody alike: the lowest survivor compares */
        while (victim[i] && !dead(victim[i] - 1))
            usleep(1000);
        int low = 0;
        while (dead(low))
            low++;
        int mine[2] = {cls, flag};
        if (rank == low) {
            for (int r = low + 1; r < size; r++) {
                if (dead(r))
                    continue;
                int o[2];
                rc = MPI_Recv(o, 2, MPI_INT, r, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(rc == MPI_SUCCESS, "agreement %d: receive from %d: rc %d", i, r, rc);
                CHECK(o[0] == mine[0] && o[1] == mine[1],
                      "agreement %d not uniform: rank %d class %d flag %#x, rank %d class %d flag %#x", i, r, o[0],
                      o[1], rank, mine[0], mine[1]);
            }
        } else {
            MPI_Send(mine, 2, MPI_INT, low, 100 + i, MPI_COMM_WORLD);
        }
        if (cls == MPIX_ERR_PROC_FAILED)
            MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    }
    if (rank == 1)
        printf("OK ulfm_agree_deaths\n");
    MPI_Finalize();
    return 0;
}
