/* A traffic mix for rail tests: every rank sends checksummed messages of
 * random sizes (0 B to 8 MiB) to random peers with random tags; receivers
 * use wildcards and check every message exactly once and in order (a
 * sequence number per sender and receiver; what was sent and what arrived
 * is compared at the end, and nothing may be left over). Ssends and
 * collectives are mixed in.
 *   stress [ROUNDS | SECONDSs] [seed]
 * "20s" runs rounds until 20 seconds have passed (rank 0's clock decides),
 * long enough for a fault to strike mid-run; rank 0 then prints one
 * "progress UNIXTIME round R" line per round, so a stall shows as a gap. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* What a corrupt message looks like: the header against the status, the
 * byte ranges that differ from what the sender filled in, and whether they
 * hold the previous message's bytes (a late write into a reused buffer). */
static void report_corrupt(const unsigned char *b, int cnt, const uint64_t *h, int tag, int src, uint64_t prev_key,
                           uint64_t prev_n)
{
    printf("  header: sender %llu seq %llu size %llu key %llx; status: source %d tag %d count %d\n",
           (unsigned long long)h[0], (unsigned long long)h[1], (unsigned long long)h[2], (unsigned long long)h[3],
           src, tag, cnt);
    size_t n = (size_t)cnt > 32 ? (size_t)cnt - 32 : 0, shown = 0, runs = 0, bad = 0, stale = 0;
    if (h[2] < n)
        n = h[2];
    for (size_t i = 0; i < n;) {
        size_t w = n - i < 8 ? n - i : 8;
        uint64_t v = mix(h[3] + i);
        if (!memcmp(b + 32 + i, &v, w)) {
            i += 8;
            continue;
        }
        size_t j = i;
        while (j < n) {
            size_t wj = n - j < 8 ? n - j : 8;
            uint64_t vj = mix(h[3] + j);
            if (!memcmp(b + 32 + j, &vj, wj))
                break;
            uint64_t pj = mix(prev_key + j);
            stale += j < prev_n && !memcmp(b + 32 + j, &pj, wj);
            j += 8;
        }
        runs++, bad += j - i;
        if (shown++ < 8)
            printf("  bytes %zu-%zu differ\n", i, j);
        i = j;
    }
    printf("  %zu bytes differ in %zu runs; %zu of their words hold the previous message's bytes\n", bad, runs, stale);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* line by line: a failing rank ends the job before buffers would be flushed at exit */
    setvbuf(stdout, NULL, _IOLBF, 0);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = 20;
    double seconds = 0;
    if (argc > 1) {
        char *end;
        double v = strtod(argv[1], &end);
        if (*end == 's')
            seconds = v, rounds = 0;
        else
            rounds = atoi(argv[1]);
    }
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    /* header: sender, sequence number from this sender to this receiver, size, key; then the payload */
    enum { HDR = 4 };
    unsigned char *rbuf = malloc((8u << 20) + 64);
    uint64_t *next_from = calloc((size_t)size, sizeof *next_from), *seq_to = calloc((size_t)size, sizeof *seq_to);
    uint64_t bytes_ok = 0, prev_key = 0, prev_n = 0;
    int failures = 0, round;
    double start = MPI_Wtime();
    for (round = 0;; round++) {
        int more = seconds > 0 ? MPI_Wtime() - start < seconds : round < rounds;
        if (seconds > 0) /* rank 0's clock decides for everyone */
            MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!more)
            break;
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
                uint64_t h[HDR] = {(uint64_t)rank, seq_to[d]++, n, key};
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
            int src = st.MPI_SOURCE;
            if ((int)h[0] != src || (size_t)cnt != h[2] + sizeof h || st.MPI_TAG != (int)(h[3] % 1000) ||
                !check(rbuf + sizeof h, h[2], h[3])) {
                printf("FAIL: rank %d round %d: corrupt message from %d (%d bytes)\n", rank, round, src, cnt);
                report_corrupt(rbuf, cnt, h, st.MPI_TAG, src, prev_key, prev_n);
                failures++;
                continue;
            }
            prev_key = h[3], prev_n = h[2];
            /* wildcard receives match a sender's messages in the order it sent them, so
             * anything but the next number is a lost, duplicated or overtaking message */
            if (h[1] != next_from[src]) {
                printf("FAIL: rank %d round %d: message %llu from %d where %llu was due (%s)\n", rank, round,
                       (unsigned long long)h[1], src, (unsigned long long)next_from[src],
                       h[1] < next_from[src] ? "delivered twice or out of order" : "one went missing");
                failures++;
            }
            next_from[src] = h[1] + 1;
            bytes_ok += h[2];
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
        if (seconds > 0 && rank == 0) {
            printf("progress %.6f round %d\n", wall_now(), round);
            fflush(stdout);
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
    /* exactly once: every peer's count of what it sent me is what I received ... */
    uint64_t *sent_me = calloc((size_t)size, sizeof *sent_me);
    MPI_Alltoall(seq_to, 1, MPI_UINT64_T, sent_me, 1, MPI_UINT64_T, MPI_COMM_WORLD);
    uint64_t got = 0;
    for (int s = 0; s < size; s++) {
        got += next_from[s];
        if (sent_me[s] != next_from[s]) {
            printf("FAIL: rank %d: %llu messages from %d sent, %llu received\n", rank,
                   (unsigned long long)sent_me[s], s, (unsigned long long)next_from[s]);
            failures++;
        }
    }
    /* ... and no late copy of a message arrives after the last one was received */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 100; i++) {
        int extra;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &extra, &st);
        if (extra) {
            printf("FAIL: rank %d: an extra message from %d after the last round\n", rank, st.MPI_SOURCE);
            failures++;
            break;
        }
    }
    int total = 0;
    unsigned long long tot[2], mine[2] = {got, bytes_ok};
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(mine, tot, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("FAIL: %d bad messages\n", total);
        else
            printf("OK: %d rounds, %llu messages (%llu bytes) verified exactly once\n", round, tot[0], tot[1]);
    }
    free(sent_me);
    free(rbuf);
    free(next_from);
    free(seq_to);
    MPI_Finalize();
    return total ? 1 : 0;
}
