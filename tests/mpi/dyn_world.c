/* ranks: 2 3 4 */
/* Dynamic processes inside one job: the even and the odd ranks of
 * MPI_COMM_WORLD meet through a port (accept / connect), ranks 0 and 1
 * through MPI_Comm_join over a loopback TCP connection. The other group's
 * processes are world ranks here, reached over the channels the job already
 * has; the remote group must say so. The accepted intercommunicator is
 * duplicated with MPI_Comm_idup. */
#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int rank;

/* The remote group's members as world ranks. */
static void check_remote(MPI_Comm inter, const int *expect, int n)
{
    MPI_Group rg, wg;
    int rsize, tr[64], idx[64];
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == n, "remote size %d, expected %d", rsize, n);
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(rg, n, idx, wg, tr);
    for (int i = 0; i < n; i++)
        CHECK(tr[i] == expect[i], "remote rank %d is world rank %d, expected %d", i, tr[i], expect[i]);
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int even = rank % 2 == 0;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, !even, rank, &half);

    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0)
        MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (even)
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    else
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    int other[64] = {0}, n = 0;
    for (int r = even ? 1 : 0; r < size; r += 2)
        other[n++] = r;
    check_remote(inter, other, n);
    /* traffic both ways: every process to remote rank 0, and an allreduce
     * over the merged communicator */
    int v = rank, got;
    MPI_Request rq;
    MPI_Isend(&v, 1, MPI_INT, 0, 5, inter, &rq);
    int mine;
    MPI_Comm_rank(half, &mine);
    if (mine == 0) {
        for (int i = 0; i < n; i++) {
            MPI_Status st;
            MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st);
            CHECK(got == other[st.MPI_SOURCE], "got %d from remote %d", got, st.MPI_SOURCE);
        }
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, !even, &merged);
    int total = 0, one = 1;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == size, "merged allreduce %d", total);
    MPI_Comm_free(&merged);
    /* a nonblocking duplicate of the accepted/connected intercommunicator:
     * same groups, a context both sides agreed on */
    MPI_Comm dup;
    MPI_Request dq;
    MPI_Comm_idup(inter, &dup, &dq);
    MPI_Wait(&dq, MPI_STATUS_IGNORE);
    check_remote(dup, other, n);
    int rsum = 0, want = 0;
    for (int i = 0; i < n; i++)
        want += other[i];
    MPI_Allreduce(&rank, &rsum, 1, MPI_INT, MPI_SUM, dup);
    CHECK(rsum == want, "allreduce over the idup'd intercommunicator %d, want %d", rsum, want);
    MPI_Comm_free(&dup);
    MPI_Comm_disconnect(&inter);
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    if (rank == 0)
        MPI_Close_port(port);

    /* MPI_Comm_join between ranks 0 and 1 over a TCP connection */
    if (rank < 2) {
        int fd = -1;
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (rank == 0) {
            int lfd = socket(AF_INET, SOCK_STREAM, 0);
            socklen_t sl = sizeof sa;
            CHECK(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 1) == 0 &&
                      getsockname(lfd, (struct sockaddr *)&sa, &sl) == 0,
                  "listen");
            int p = ntohs(sa.sin_port);
            MPI_Send(&p, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
            fd = accept(lfd, NULL, NULL);
            close(lfd);
        } else {
            int p;
            MPI_Recv(&p, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sa.sin_port = htons((uint16_t)p);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect");
        }
        CHECK(fd >= 0, "no connection");
        MPI_Comm j;
        CHECK(MPI_Comm_join(fd, &j) == MPI_SUCCESS, "join");
        int peer = 1 - rank;
        check_remote(j, &peer, 1);
        int x = rank * 10, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, 0, 3, &y, 1, MPI_INT, 0, 3, j, MPI_STATUS_IGNORE);
        CHECK(y == peer * 10, "join traffic %d", y);
        MPI_Comm_disconnect(&j);
        close(fd);
    }
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("dyn_world OK\n");
    MPI_Finalize();
    return 0;
}
