/* Messages past INT_MAX items between 2 ranks of one host, through the
 * large-count (_c) calls, every byte checked against a pattern:
 *   - MPI_Send_c / MPI_Recv_c of 2.5 GiB of MPI_BYTE (and the receive's
 *     status: MPI_Get_count_c the full count, MPI_Get_count MPI_UNDEFINED);
 *   - MPI_Allreduce_c (MPI_SUM, in place) of 2^31 + 4099 MPI_UINT8_T;
 *   - MPI_Alltoallv_c whose block to the other rank is 2^31 + 8191 bytes
 *     and whose own block lies past INT_MAX bytes into the buffers.
 * The peak resident size of each rank stays within twice the data it holds
 * (getrusage). Needs about 9 GiB: exits 77 (skipped) with less available.
 * Registered for the normal build only (tests/CMakeLists.txt). */
#include <mpi.h>

#include "../mpi/check.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int rank;

#define GIB (1024.0 * 1024 * 1024)

/* The pattern of a stream seeded by s: byte i is byte i % 8 of word i / 8,
 * the word's index times an odd constant, so it does not repeat within
 * 2^64 words and a block placed at a wrong offset (an offset cut to 32
 * bits) does not match. Filled and checked a word at a time. */
static inline uint64_t pat_word(uint64_t w, unsigned s)
{
    return (w + ((uint64_t)s << 40)) * 0x9e3779b97f4a7c15ULL;
}

static inline uint8_t pat(uint64_t i, unsigned s)
{
    return (uint8_t)(pat_word(i >> 3, s) >> (8 * (i & 7)));
}

/* b holds bytes from .. from + n - 1 of the stream (a little-endian host). */
static void pat_fill(uint8_t *b, size_t n, uint64_t from, unsigned s)
{
    size_t i = 0;
    for (; i < n && ((from + i) & 7); i++)
        b[i] = pat(from + i, s);
    for (; i + 8 <= n; i += 8) {
        uint64_t w = pat_word((from + i) >> 3, s);
        memcpy(b + i, &w, 8);
    }
    for (; i < n; i++)
        b[i] = pat(from + i, s);
}

/* The first offset where b differs from the pattern, or n. */
static size_t pat_check(const uint8_t *b, size_t n, uint64_t from, unsigned s)
{
    size_t i = 0;
    for (; i < n && ((from + i) & 7); i++)
        if (b[i] != pat(from + i, s))
            return i;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = pat_word((from + i) >> 3, s), v;
        memcpy(&v, b + i, 8);
        if (v != w)
            break;
    }
    for (; i < n; i++)
        if (b[i] != pat(from + i, s))
            return i;
    return n;
}

static double peak_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024 / GIB;
}

static double held = 0; /* the most data this rank held at once so far, GiB */

static void rss_check(const char *phase, double data_gib)
{
    if (data_gib > held)
        held = data_gib;
    double peak = peak_gib();
    printf("rank %d: %s: peak RSS %.2f GiB, data %.2f GiB\n", rank, phase, peak, held);
    CHECK(peak <= 2 * held, "%s: peak RSS %.2f GiB is more than twice the %.2f GiB of data",
          phase, peak, held);
}

static long mem_available_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void send_recv(void)
{
    const MPI_Count n = (MPI_Count)5 << 29; /* 2.5 GiB */
    uint8_t *b = malloc((size_t)n);
    CHECK(b, "no memory for %lld bytes", (long long)n);
    if (rank == 0) {
        pat_fill(b, (size_t)n, 0, 1);
        CHECK(MPI_Send_c(b, n, MPI_BYTE, 1, 7, MPI_COMM_WORLD) == MPI_SUCCESS, "send_c");
    } else {
        MPI_Status st;
        CHECK(MPI_Recv_c(b, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "recv_c");
        MPI_Count c = -1;
        int ic = 0;
        MPI_Get_count_c(&st, MPI_BYTE, &c);
        MPI_Get_count(&st, MPI_BYTE, &ic);
        CHECK(c == n, "get_count_c %lld, want %lld", (long long)c, (long long)n);
        CHECK(ic == MPI_UNDEFINED, "get_count %d, want MPI_UNDEFINED", ic);
        size_t bad = pat_check(b, (size_t)n, 0, 1);
        CHECK(bad == (size_t)n, "received byte %zu differs", bad);
    }
    rss_check("send_c/recv_c", n / GIB);
    free(b);
}

static void allreduce(void)
{
    const MPI_Count n = ((MPI_Count)1 << 31) + 4099;
    uint8_t *b = malloc((size_t)n);
    CHECK(b, "no memory");
    /* items below 128, so the sum of two fits a byte, and a word of them
     * adds as eight without carries */
    const uint64_t m = 0x7f7f7f7f7f7f7f7fULL;
    MPI_Count i;
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t w = pat_word((uint64_t)i >> 3, 2 + rank) & m;
        memcpy(b + i, &w, 8);
    }
    for (; i < n; i++)
        b[i] = pat((uint64_t)i, 2 + rank) & 0x7f;
    CHECK(MPI_Allreduce_c(MPI_IN_PLACE, b, n, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "allreduce_c");
    for (i = 0; i + 8 <= n; i += 8) {
        uint64_t want = (pat_word((uint64_t)i >> 3, 2) & m) + (pat_word((uint64_t)i >> 3, 3) & m), v;
        memcpy(&v, b + i, 8);
        CHECK(v == want, "allreduce_c: items %lld.. differ", (long long)i);
    }
    for (; i < n; i++) {
        uint8_t want = (uint8_t)((pat((uint64_t)i, 2) & 0x7f) + (pat((uint64_t)i, 3) & 0x7f));
        CHECK(b[i] == want, "allreduce_c: item %lld is %u, want %u", (long long)i, b[i], want);
    }
    rss_check("allreduce_c", n / GIB);
    free(b);
}

static void alltoallv(void)
{
    /* to the other rank: big bytes; to myself: small bytes placed after the
     * big block, past INT_MAX, on both sides */
    const MPI_Count big = ((MPI_Count)1 << 31) + 8191, small = 1 << 20;
    const size_t len = (size_t)(big + small);
    int peer = 1 - rank;
    uint8_t *s = malloc(len), *r = malloc(len);
    CHECK(s && r, "no memory");
    MPI_Count scnt[2], rcnt[2];
    MPI_Aint sdsp[2], rdsp[2];
    scnt[peer] = rcnt[peer] = big;
    scnt[rank] = rcnt[rank] = small;
    sdsp[peer] = rdsp[peer] = 0;
    sdsp[rank] = rdsp[rank] = (MPI_Aint)big;
    pat_fill(s, (size_t)big, 0, 10 + rank);                /* mine to the peer */
    pat_fill(s + big, (size_t)small, (uint64_t)big, 20 + rank); /* mine to me */
    CHECK(MPI_Alltoallv_c(s, scnt, sdsp, MPI_BYTE, r, rcnt, rdsp, MPI_BYTE, MPI_COMM_WORLD) ==
              MPI_SUCCESS, "alltoallv_c");
    size_t bad = pat_check(r, (size_t)big, 0, 10 + peer);
    CHECK(bad == (size_t)big, "alltoallv_c: byte %zu from the peer differs", bad);
    bad = pat_check(r + big, (size_t)small, (uint64_t)big, 20 + rank);
    CHECK(bad == (size_t)small, "alltoallv_c: byte %zu of my own block differs", bad);
    rss_check("alltoallv_c", 2 * (double)len / GIB);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks, not %d", size);
    /* both ranks together hold up to 8 GiB at once (the all-to-all) */
    long avail = rank == 0 ? mem_available_kib() : 0;
    MPI_Bcast(&avail, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (avail >= 0 && avail < 9L * 1024 * 1024) {
        if (rank == 0)
            printf("SKIP: %.1f GiB of memory available, 9 needed\n", avail / 1048576.0);
        MPI_Finalize();
        return 77;
    }
    double t0 = MPI_Wtime();
    send_recv();
    MPI_Barrier(MPI_COMM_WORLD);
    allreduce();
    MPI_Barrier(MPI_COMM_WORLD);
    alltoallv();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count_big: OK (%.1f s)\n", MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
