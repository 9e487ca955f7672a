/* ranks: 2 4 */
/* Windows of small nonblocking messages between pairs of ranks (0-1, 2-3),
 * as a message-rate benchmark sends them: every size from 0 bytes to past
 * the eager limit, contents and order checked, every completion call used
 * on the send side (Waitall, Waitany, Waitsome, Testall, Test, Wait,
 * Request_free, Request_get_status). Sends that
 * went out at once may share one complete request: each handle still
 * completes exactly once and is reset to MPI_REQUEST_NULL. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank;

enum { W = 64 };

static void fill(unsigned char *p, size_t n, int it, int w)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + (size_t)it * 31 + (size_t)w * 13 + 1);
}

/* complete the window's sends in way number `how` */
static void complete_sends(MPI_Request *req, int how)
{
    int flag, idx, n, idxs[W];
    MPI_Status st;
    switch (how % 7) {
    case 0:
        CHECK(MPI_Waitall(W, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
        break;
    case 1:
        for (int k = 0; k < W; k++) {
            CHECK(MPI_Waitany(W, req, &idx, &st) == MPI_SUCCESS, "Waitany");
            CHECK(idx >= 0 && idx < W && req[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
        }
        CHECK(MPI_Waitany(W, req, &idx, &st) == MPI_SUCCESS && idx == MPI_UNDEFINED,
              "Waitany after all: %d", idx);
        break;
    case 2:
        for (int left = W; left > 0; left -= n) {
            CHECK(MPI_Waitsome(W, req, &n, idxs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitsome");
            CHECK(n >= 1 && n <= left, "Waitsome count %d of %d", n, left);
        }
        break;
    case 3:
        do
            CHECK(MPI_Testall(W, req, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Testall");
        while (!flag);
        break;
    case 4:
        for (int k = 0; k < W; k++) {
            do
                CHECK(MPI_Test(&req[k], &flag, &st) == MPI_SUCCESS, "Test");
            while (!flag);
        }
        break;
    case 5:
        for (int k = 0; k < W; k++) {
            if (k % 2) {
                CHECK(MPI_Request_free(&req[k]) == MPI_SUCCESS, "Request_free");
                continue;
            }
            CHECK(MPI_Request_get_status(req[k], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS,
                  "Request_get_status");
            CHECK(MPI_Wait(&req[k], MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait");
        }
        break;
    default:
        for (int k = W - 1; k >= 0; k--) {
            CHECK(MPI_Wait(&req[k], &st) == MPI_SUCCESS, "Wait");
            int cancelled = 1;
            MPI_Test_cancelled(&st, &cancelled);
            CHECK(!cancelled, "a send that was not cancelled says it was");
        }
        break;
    }
    for (int k = 0; k < W; k++)
        CHECK(req[k] == MPI_REQUEST_NULL, "request %d not reset (way %d)", k, how % 7);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank >= size / 2 * 2) { /* an odd last rank has no partner */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    int sender = rank % 2 == 0, peer = rank ^ 1;
    size_t max = 65536;
    unsigned char *buf = malloc(max * W), *ref = malloc(max);
    MPI_Request req[W];
    int how = 0;
    for (size_t n = 0; n <= max; n = n ? n * 2 : 1) {
        for (int it = 0; it < 10; it++, how++) {
            for (int w = 0; w < W; w++) {
                unsigned char *p = buf + (size_t)w * n;
                if (sender) {
                    fill(p, n, it, w);
                    CHECK(MPI_Isend(p, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[w]) == MPI_SUCCESS,
                          "Isend");
                } else {
                    memset(p, 0, n);
                    CHECK(MPI_Irecv(p, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &req[w]) == MPI_SUCCESS,
                          "Irecv");
                }
            }
            if (sender) {
                complete_sends(req, how);
            } else {
                MPI_Status st[W];
                CHECK(MPI_Waitall(W, req, st) == MPI_SUCCESS, "receiver Waitall");
                for (int w = 0; w < W; w++) {
                    int count;
                    MPI_Get_count(&st[w], MPI_BYTE, &count);
                    CHECK((size_t)count == n, "size %zu: message %d has %d bytes", n, w, count);
                    CHECK(st[w].MPI_SOURCE == peer && st[w].MPI_TAG == 7, "envelope");
                    fill(ref, n, it, w);
                    CHECK(!memcmp(buf + (size_t)w * n, ref, n), "size %zu iteration %d message %d corrupt",
                          n, it, w);
                }
            }
            char ack = 0;
            if (sender)
                MPI_Recv(&ack, 1, MPI_CHAR, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_CHAR, peer, 8, MPI_COMM_WORLD);
        }
    }
    free(buf);
    free(ref);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
