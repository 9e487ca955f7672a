/* ranks: 2 */
/* How waits give the core away. Ranks 0 and 1 ping-pong one byte, waiting
 * three ways: MPI_Recv, MPI_Irecv + MPI_Waitany, MPI_Probe + MPI_Recv. Rank 0
 * counts its yields with the MPI_T counter proto_wait_yields and times each
 * way. tests/scripts/spin_policy.sh runs it
 *   "shared": both ranks on one CPU (oversubscribed): every way of waiting
 *     yields at once (RAILMPI_SPIN_OVERSUBSCRIBED), so each round trip yields
 *     and none takes several times as long as MPI_Recv's (a wait that polled
 *     RAILMPI_SPIN_COUNT times first would hold the core the peer needs);
 *   "apart": one CPU each: waits poll and hardly ever yield;
 *   "late": rank 1 answers 300 us late: each wait yields at least once when
 *     the spin is timed (RAILMPI_SPIN_TIME_US) and hardly ever under a spin
 *     count it never reaches ("late-count", RAILMPI_SPIN_TIME_US=0).
 * Without an argument (the MPI suite) only the messages are checked. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

static int rank;

enum { N = 2000, WAYS = 3 };
static const char *const way_name[WAYS] = {"MPI_Recv", "MPI_Waitany", "MPI_Probe"};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle yields_handle;

static unsigned long long yields(void)
{
    unsigned long long v = 0;
    CHECK(MPI_T_pvar_read(session, yields_handle, &v) == MPI_SUCCESS, "MPI_T_pvar_read");
    return v;
}

static void recv_one(char *b, int from, int tag, int way)
{
    MPI_Request r;
    int index;
    MPI_Status st;
    switch (way) {
    case 0:
        MPI_Recv(b, 1, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 1:
        MPI_Irecv(b, 1, MPI_CHAR, from, tag, MPI_COMM_WORLD, &r);
        MPI_Waitany(1, &r, &index, MPI_STATUS_IGNORE);
        CHECK(index == 0, "MPI_Waitany index %d", index);
        break;
    default:
        MPI_Probe(from, tag, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == tag, "MPI_Probe found %d/%d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Recv(b, 1, MPI_CHAR, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int provided, size, idx, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int late = !strncmp(mode, "late", 4);
    int n = late ? N / 4 : N;
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(MPI_T_pvar_get_index("proto_wait_yields", MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS,
          "no counter proto_wait_yields");
    CHECK(MPI_T_pvar_session_create(&session) == MPI_SUCCESS, "session");
    CHECK(MPI_T_pvar_handle_alloc(session, idx, NULL, &yields_handle, &count) == MPI_SUCCESS && count == 1,
          "handle");
    unsigned long long y[WAYS];
    double t[WAYS];
    for (int way = 0; way < WAYS; way++) {
        MPI_Barrier(MPI_COMM_WORLD);
        unsigned long long y0 = yields();
        double t0 = MPI_Wtime();
        char b = 0;
        for (int i = 0; i < n; i++) {
            if (rank == 0) {
                b = (char)i;
                MPI_Send(&b, 1, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                recv_one(&b, 1, 2, way);
                CHECK(b == (char)(i + 1), "%s, round trip %d: got %d", way_name[way], i, b);
            } else {
                recv_one(&b, 0, 1, way);
                CHECK(b == (char)i, "%s, round trip %d: got %d", way_name[way], i, b);
                b++;
                if (late) {
                    struct timespec ts = {0, 300000};
                    nanosleep(&ts, NULL);
                }
                MPI_Send(&b, 1, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
            }
        }
        t[way] = (MPI_Wtime() - t0) / n * 1e6;
        y[way] = yields() - y0;
    }
    if (rank == 0) {
        for (int way = 0; way < WAYS; way++)
            printf("%s: %llu yields over %d round trips, %.2f us each\n", way_name[way], y[way], n, t[way]);
        for (int way = 0; way < WAYS; way++) {
            if (!strcmp(mode, "shared")) {
                CHECK(y[way] >= N / 2, "%s on a shared core: %llu yields over %d round trips", way_name[way],
                      y[way], N);
                CHECK(t[way] < 4 * t[0] + 5, "%s on a shared core: %.2f us per round trip, MPI_Recv %.2f: it spins "
                      "while the peer needs the core", way_name[way], t[way], t[0]);
            } else if (!strcmp(mode, "apart")) {
                CHECK(y[way] < N / 4, "%s, one core each: %llu yields over %d round trips", way_name[way], y[way], N);
            } else if (!strcmp(mode, "late")) {
                CHECK(y[way] >= (unsigned long long)n, "%s, answers 300 us late: %llu yields over %d round trips "
                      "(a timed spin yields in each)", way_name[way], y[way], n);
            } else if (!strcmp(mode, "late-count")) {
                CHECK(y[way] < (unsigned long long)n / 4, "%s, answers 300 us late, spin count only: %llu yields "
                      "over %d round trips", way_name[way], y[way], n);
            }
        }
    }
    MPI_T_pvar_handle_free(session, &yields_handle);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
