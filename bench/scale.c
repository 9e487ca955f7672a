/* The scale rehearsal's job (bench/scale.sh): every rank connected to every
 * other on every rail, then three phases on a common clock (rank 0's start,
 * broadcast as T0):
 *   [T0, T0+IDLE)              idle outside MPI (the health cost before)
 *   [T0+IDLE, T0+IDLE+BUSY)    rounds of checksummed messages to every peer
 *                              (a shifted Sendrecv ring; a fault strikes here)
 *   [end of the last round, +IDLE)  idle again (the health cost after)
 * then every message is checked and each rank reports its memory.
 *   scale IDLE BUSY BYTES [progress]
 * Rank 0 prints "t0 UNIXTIME", "busy ROUNDS" and "OK: ..." at the end (with
 * "progress", also "progress UNIXTIME round R" after every round, so a stall
 * shows as a gap); every rank prints "mem rank R peers N vmrss KB". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    for (double now = wall(); now < t; now = wall()) {
        double d = t - now;
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static long vmrss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double idle = argc > 1 ? atof(argv[1]) : 5, busy = argc > 2 ? atof(argv[2]) : 20;
    size_t bytes = argc > 3 ? (size_t)atol(argv[3]) : 65536;
    int progress = argc > 4 && !strcmp(argv[4], "progress");
    uint64_t *sb = malloc(bytes), *rb = malloc(bytes);
    size_t n = bytes / 8;
    long bad = 0, msgs = 0;
    /* connect: one message to every peer, large enough to be striped */
    long kb0 = vmrss_kb();
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size;
        MPI_Sendrecv(sb, (int)bytes, MPI_BYTE, to, 0, rb, (int)bytes, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    long kb1 = vmrss_kb();
    double t0 = wall() + 1;
    MPI_Bcast(&t0, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("t0 %.3f\n", t0);
    sleep_until(t0 + idle);
    int go = 1, rounds = 0;
    while (go) {
        for (int d = 1; d < size; d++) {
            int to = (rank + d) % size, from = (rank - d + size) % size;
            uint64_t key = ((uint64_t)rounds << 40) ^ ((uint64_t)rank << 20) ^ (uint64_t)to;
            for (size_t i = 0; i < n; i++)
                sb[i] = mix(key + i);
            MPI_Sendrecv(sb, (int)bytes, MPI_BYTE, to, 1, rb, (int)bytes, MPI_BYTE, from, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            uint64_t rkey = ((uint64_t)rounds << 40) ^ ((uint64_t)from << 20) ^ (uint64_t)rank;
            for (size_t i = 0; i < n; i++)
                if (rb[i] != mix(rkey + i)) {
                    bad++;
                    break;
                }
            msgs++;
        }
        rounds++;
        if (progress && rank == 0)
            printf("progress %.3f round %d\n", wall(), rounds);
        go = wall() < t0 + idle + busy;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    /* a round may outlast the busy time on an oversubscribed machine: the
     * idle phase after is counted from the end of the traffic */
    double t1 = wall();
    MPI_Bcast(&t1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("busy %d rounds until %.3f\n", rounds, t1);
    sleep_until(t1 + idle);
    long tot[2] = {bad, msgs}, all[2] = {0, 0};
    MPI_Reduce(tot, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("mem rank %d peers %d vmrss %ld KB (before connecting %ld, connected %ld)\n", rank, size - 1, vmrss_kb(),
           kb0, kb1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        if (all[0])
            printf("FAIL: %ld of %ld messages corrupted\n", all[0], all[1]);
        else
            printf("OK: %ld messages in %d rounds verified\n", all[1], rounds);
    }
    free(sb), free(rb);
    MPI_Finalize();
    return all[0] ? 1 : 0;
}
