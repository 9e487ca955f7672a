/* Traffic that cycles every shared-memory ring many times: each rank sends
 * every other rank ROUNDS windows of W messages of 4 KiB (16 MiB per pair in
 * all) and checks every byte it receives. Run by shm_small.sh in a /dev/shm
 * far smaller than the default rings would take. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define W 64
#define LEN 4096
#define ROUNDS 64

static unsigned char pat(int src, int dst, int round, int k, int i)
{
    return (unsigned char)(src * 131 + dst * 71 + round * 29 + k * 7 + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int npeers = size - 1;
    unsigned char *sbuf = malloc((size_t)npeers * W * LEN), *rbuf = malloc((size_t)npeers * W * LEN);
    MPI_Request *req = malloc(sizeof *req * (size_t)npeers * W * 2);
    if (!sbuf || !rbuf || !req)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int round = 0; round < ROUNDS; round++) {
        /* peer j is rank + 1 + j (mod size): every rank but this one */
        int n = 0;
        for (int j = 0; j < npeers; j++)
            for (int k = 0; k < W; k++)
                MPI_Irecv(rbuf + ((size_t)j * W + k) * LEN, LEN, MPI_BYTE, (rank + 1 + j) % size, k,
                          MPI_COMM_WORLD, &req[n++]);
        for (int j = 0; j < npeers; j++)
            for (int k = 0; k < W; k++) {
                int p = (rank + 1 + j) % size;
                unsigned char *b = sbuf + ((size_t)j * W + k) * LEN;
                for (int i = 0; i < LEN; i++)
                    b[i] = pat(rank, p, round, k, i);
                MPI_Isend(b, LEN, MPI_BYTE, p, k, MPI_COMM_WORLD, &req[n++]);
            }
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        for (int j = 0; j < npeers; j++)
            for (int k = 0; k < W; k++) {
                int p = (rank + 1 + j) % size;
                const unsigned char *b = rbuf + ((size_t)j * W + k) * LEN;
                for (int i = 0; i < LEN; i++)
                    if (b[i] != pat(p, rank, round, k, i) && bad++ < 5)
                        fprintf(stderr, "rank %d: round %d, message %d from %d: byte %d wrong\n", rank, round, k,
                                p, i);
            }
    }
    int all = 0;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "FAIL shm_small: %d bytes wrong\n" : "OK shm_small\n", all);
    free(sbuf);
    free(rbuf);
    free(req);
    MPI_Finalize();
    return all != 0;
}
