/* A traffic mix for rail tests: every rank sends checksummed messages of
 * random sizes (0 B to 8 MiB) to random peers with random tags; receivers
 * use wildcards and check every message exactly once (sequence numbers per
 * sender). Ssends and collectives are mixed in. Usage: stress [rounds] [seed] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static size_t pick_size(uint64_t r)
{
    switch (r % 4) {
    case 0: return r % 64;
    case 1: return r % 20000;
    case 2: return r % 300000;
    default: return r % (8u << 20);
    }
}

static void fill(unsigned char *b, size_t n, uint64_t key)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = mix(key + i);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

static int check(const unsigned char *b, size_t n, uint64_t key)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = mix(key + i);
        if (memcmp(b + i, &v, n - i < 8 ? n - i : 8))
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* header: sender, per-sender sequence, size, key; then the payload */
    enum { HDR = 4 };
    unsigned char *sbuf = malloc((8u << 20) + 64), *rbuf = malloc((8u << 20) + 64);
    uint64_t *next_from = calloc((size_t)size, sizeof *next_from), sent_seq = 0;
    int failures = 0;
    for (int round = 0; round < rounds; round++) {
        /* everyone learns how many messages to expect from a global plan */
        int *plan = malloc(sizeof(int) * (size_t)size * (size_t)size);
        for (int s = 0; s < size; s++)
            for (int d = 0; d < size; d++)
                plan[s * size + d] = (int)(mix(seed * 7919 + (uint64_t)round * 131 + (uint64_t)(s * size + d)) % 3);
        int expect = 0;
        for (int s = 0; s < size; s++)
            expect += s != rank ? plan[s * size + rank] : 0;
        MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)size * 3);
        unsigned char **bufs = malloc(sizeof(char *) * (size_t)size * 3);
        int nreq = 0;
        for (int d = 0; d < size; d++) {
            if (d == rank)
                continue;
            for (int k = 0; k < plan[rank * size + d]; k++) {
                uint64_t key = mix(seed ^ ((uint64_t)rank << 40) ^ ((uint64_t)round << 20) ^ (uint64_t)(d * 8 + k));
                size_t n = pick_size(key);
                unsigned char *b = malloc(n + 32);
                uint64_t h[HDR] = {(uint64_t)rank, sent_seq++, n, key};
                memcpy(b, h, sizeof h);
                fill(b + sizeof h, n, key);
                bufs[nreq] = b;
                int tag = (int)(key % 1000);
                if (key % 5 == 0)
                    MPI_Issend(b, (int)(n + sizeof h), MPI_BYTE, d, tag, MPI_COMM_WORLD, &reqs[nreq++]);
                else
                    MPI_Isend(b, (int)(n + sizeof h), MPI_BYTE, d, tag, MPI_COMM_WORLD, &reqs[nreq++]);
            }
        }
        for (int m = 0; m < expect; m++) {
            MPI_Status st;
            MPI_Recv(rbuf, (8 << 20) + 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            uint64_t h[HDR];
            memcpy(h, rbuf, sizeof h);
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            int src = (int)h[0];
            if (src != st.MPI_SOURCE || (size_t)cnt != h[2] + sizeof h || st.MPI_TAG != (int)(h[3] % 1000) ||
                !check(rbuf + sizeof h, h[2], h[3])) {
                printf("FAIL: rank %d round %d: corrupt message from %d (%d bytes)\n", rank, round, st.MPI_SOURCE, cnt);
                failures++;
            }
            if (h[1] < next_from[src]) {
                printf("FAIL: rank %d: message %llu from %d delivered twice or out of order\n", rank,
                       (unsigned long long)h[1], src);
                failures++;
            }
            next_from[src] = h[1] + 1;
        }
        MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < nreq; i++)
            free(bufs[i]);
        free(bufs);
        free(reqs);
        free(plan);
        /* collectives in between */
        long mine = round + rank, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (sum != (long)size * round + (long)size * (size - 1) / 2) {
            printf("FAIL: rank %d: allreduce %ld\n", rank, sum);
            failures++;
        }
        if (round % 5 == 0) {
            int n = 1 << 18;
            int *v = malloc(sizeof(int) * (size_t)n);
            for (int i = 0; i < n; i++)
                v[i] = rank == 0 ? i ^ round : -1;
            MPI_Bcast(v, n, MPI_INT, 0, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                if (v[i] != (i ^ round)) {
                    printf("FAIL: rank %d: bcast element %d\n", rank, i);
                    failures++;
                    break;
                }
            free(v);
        }
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? "FAIL: %d bad messages\n" : "OK: %d rounds\n", total ? total : rounds);
    free(sbuf);
    free(rbuf);
    free(next_from);
    MPI_Finalize();
    return total ? 1 : 0;
}
