/* ranks: 4 */
/* A flood of sends towards a receiver that posts no receive: every other
 * rank sends N messages to rank 0 (1 KiB, then 256 KiB), while rank 0 only
 * polls for a "done" message for a while. Flow control must hold the senders
 * back (RAILMPI_PEER_BUFFER per peer; 1 MiB here unless the environment
 * says otherwise) instead of growing rank 0: its peak RSS during the flood
 * may grow by at most the senders' buffers plus slack. Then rank 0 receives everything: nothing lost, duplicated,
 * reordered or corrupted.
 * Arguments (for bench/flood.sh): [N1 (20000)] [N2 (40)] [poll seconds (1.5)];
 * prints "flood SIZE N peak-growth-KiB" lines from rank 0. */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

enum { TAG_DATA = 1, TAG_DONE = 2 };

/* kB of a /proc/self/status line ("VmHWM:", "VmRSS:") */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, kl))
            v = atol(line + kl);
    if (f)
        fclose(f);
    return v;
}

/* Peak RSS since the last reset (writing 5 to clear_refs resets VmHWM). */
static int hwm_reset(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static void fill(uint64_t *p, size_t words, int src, long i)
{
    for (size_t w = 0; w < words; w++)
        p[w] = ((uint64_t)src << 48) ^ ((uint64_t)i << 16) ^ w;
}

static void phase(int nranks, size_t len, long n, double poll_s, long bound_kb)
{
    size_t words = len / 8;
    uint64_t *buf = malloc(len);
    CHECK(buf, "no memory");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank) {
        for (long i = 0; i < n; i++) {
            fill(buf, words, rank, i);
            MPI_Send(buf, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
        free(buf);
        return;
    }
    /* rank 0: no receive for the data while the senders push */
    long base = status_kb("VmRSS:");
    int have_hwm = hwm_reset() == 0;
    int done = 0;
    double t0 = MPI_Wtime();
    while (done < nranks - 1 && MPI_Wtime() - t0 < poll_s) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            done++;
        }
    }
    long peak = have_hwm ? status_kb("VmHWM:") : status_kb("VmRSS:");
    long grew = peak - base;
    printf("flood %zu %ld %ld\n", len, n, grew);
    fflush(stdout);
    CHECK(grew <= bound_kb,
          "%zu-byte flood: rank 0 grew by %ld KiB before posting receives (bound %ld KiB): the "
          "senders were not held back", len, grew, bound_kb);
    /* now everything, in order per sender */
    long *next = calloc((size_t)nranks, sizeof *next);
    uint64_t *want = malloc(len);
    CHECK(next && want, "no memory");
    for (long k = 0; k < n * (nranks - 1); k++) {
        MPI_Status st;
        MPI_Request rq;
        MPI_Irecv(buf, (int)len, MPI_BYTE, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &rq);
        /* a receive that waits a minute is a hang: say where it stands */
        int got = 0;
        double since = MPI_Wtime();
        while (!got) {
            MPI_Test(&rq, &got, &st);
            if (!got && MPI_Wtime() - since > 60) {
                printf("FAIL: %zu-byte flood: no message for 60 s after %ld of %ld;", len, k, n * (nranks - 1));
                for (int s = 1; s < nranks; s++)
                    printf(" rank %d: %ld of %ld", s, next[s], n);
                printf("\n");
                fflush(stdout);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        int src = st.MPI_SOURCE, cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(src > 0 && src < nranks && next[src] < n, "unexpected message from %d", src);
        CHECK((size_t)cnt == len, "message of %d bytes, expected %zu", cnt, len);
        fill(want, words, src, next[src]);
        CHECK(!memcmp(buf, want, len), "message %ld from rank %d corrupted or out of order", next[src], src);
        next[src]++;
    }
    for (; done < nranks - 1; done++)
        MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(next);
    free(want);
    free(buf);
}

int main(int argc, char **argv)
{
    /* small, so that a receiver that is not protected grows far past it */
    setenv("RAILMPI_PEER_BUFFER", "1m", 0);
    long peer_kb = atol(getenv("RAILMPI_PEER_BUFFER"));
    const char *unit = getenv("RAILMPI_PEER_BUFFER") + strspn(getenv("RAILMPI_PEER_BUFFER"), "0123456789");
    peer_kb = *unit == 'm' || *unit == 'M' ? peer_kb << 10 : *unit == 'k' || *unit == 'K' ? peer_kb : peer_kb >> 10;
    MPI_Init(&argc, &argv);
    int nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    long n1 = argc > 1 ? atol(argv[1]) : 20000;
    long n2 = argc > 2 ? atol(argv[2]) : 40;
    double poll_s = argc > 3 ? atof(argv[3]) : 1.5;
    if (nranks < 2) {
        MPI_Finalize();
        return 0;
    }
    /* each sender may have RAILMPI_PEER_BUFFER held by rank 0, plus an
     * envelope per blocked send; 8 MiB for the rest (malloc's arenas, the
     * receive buffers) */
    long bound_kb = (long)(nranks - 1) * peer_kb + 8192;
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer keeps shadow memory for every byte the messages touch
     * (several times their size): the bound still holds, only larger */
    bound_kb *= 4;
#endif
    phase(nranks, 1024, n1, poll_s, bound_kb);
    phase(nranks, 256 << 10, n2, poll_s, bound_kb);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!rank)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
