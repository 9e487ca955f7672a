/* Large messages between two ranks from and into memory that is freed,
 * unmapped and allocated again between sends, as an application does, so
 * that a registration railmpi (or the provider) kept from an earlier
 * message would name memory that is no longer there or no longer the same:
 * every byte received is checked. Each round allocates both buffers anew:
 * malloc'd (after free, often the same address), mmap'd (after munmap of
 * the previous mapping at that address, the same address again with
 * MAP_FIXED), or an offset into a fresh mapping; sizes from 256 KiB to
 * 8 MiB and odd; receives posted before the send and after it (unexpected),
 * both directions.
 *   rdma_reuse [ROUNDS]
 * Prints "OK rounds R bytes B" on rank 0; "ERROR ..." and exit 1 otherwise. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int rank;

static uint8_t pattern(uint64_t round, size_t i)
{
    uint64_t x = (round + 1) * 0x9e3779b97f4a7c15ull + i / 8;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (uint8_t)(x >> (8 * (i % 8)));
}

/* One buffer of a round, by the way it was allocated. */
typedef struct {
    int how;       /* 0 malloc, 1 mmap, 2 mmap at the previous mapping's address, 3 offset in a mapping */
    void *map;     /* the mapping (1-3) */
    size_t maplen;
    uint8_t *p;
} buf_t;

static void *last_map; /* the previous mapping's address, for how = 2 */
static size_t last_len;

static void buf_get(buf_t *b, int how, size_t n)
{
    b->how = how;
    b->map = NULL;
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = (n + 2 * (size_t)pg) / (size_t)pg * (size_t)pg;
    if (how == 0) {
        b->p = malloc(n);
    } else {
        void *want = NULL;
        int fl = MAP_PRIVATE | MAP_ANONYMOUS;
        if (how == 2 && last_map && last_len >= len) {
            /* unmapped by buf_put: the same address, new pages (unless
             * something took the address meanwhile) */
            want = last_map;
            fl |= MAP_FIXED_NOREPLACE;
            len = last_len;
        }
        b->map = mmap(want, len, PROT_READ | PROT_WRITE, fl, -1, 0);
        if (b->map == MAP_FAILED && want)
            b->map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (b->map == MAP_FAILED) {
            fprintf(stderr, "ERROR rank %d: mmap %zu: failed\n", rank, len);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        b->maplen = len;
        b->p = (uint8_t *)b->map + (how == 3 ? 4096 + 8 : 0);
    }
    if (!b->p) {
        fprintf(stderr, "ERROR rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void buf_put(buf_t *b)
{
    if (b->how == 0) {
        free(b->p);
    } else {
        munmap(b->map, b->maplen);
        last_map = b->map;
        last_len = b->maplen;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 40;
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "ERROR: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    static const size_t sizes[] = {262144, 8u << 20, 1048576 + 13, 3u << 20, 524288 - 8, 6000001};
    long long bytes = 0;
    int errors = 0;
    for (int round = 0; round < rounds; round++) {
        size_t n = sizes[round % 6];
        int how = (round / 2) % 4;
        int sender = (round / 3) % 2; /* both directions */
        int early = round % 5 != 0;   /* the receive posted before the send, or not */
        buf_t b;
        buf_get(&b, how, n);
        if (rank == sender) {
            for (size_t i = 0; i < n; i++)
                b.p[i] = pattern((uint64_t)round, i);
            MPI_Barrier(MPI_COMM_WORLD);
            if (round % 4 == 3)
                MPI_Ssend(b.p, (int)n, MPI_BYTE, 1 - rank, round, MPI_COMM_WORLD);
            else
                MPI_Send(b.p, (int)n, MPI_BYTE, 1 - rank, round, MPI_COMM_WORLD);
            /* scribbled over at once: a read still out would see it */
            memset(b.p, 0xa5, n);
        } else {
            memset(b.p, 0x5a, n);
            MPI_Request rq = MPI_REQUEST_NULL;
            if (early)
                MPI_Irecv(b.p, (int)n, MPI_BYTE, 1 - rank, round, MPI_COMM_WORLD, &rq);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Status st;
            if (early) {
                MPI_Wait(&rq, &st);
            } else {
                int flag = 0;
                while (!flag) /* the send's request is waiting here, unexpected */
                    MPI_Iprobe(1 - rank, round, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
                MPI_Recv(b.p, (int)n, MPI_BYTE, 1 - rank, round, MPI_COMM_WORLD, &st);
            }
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            size_t bad = 0, first = n;
            for (size_t i = 0; i < n; i++) {
                if (b.p[i] != pattern((uint64_t)round, i)) {
                    if (!bad)
                        first = i;
                    bad++;
                }
            }
            if (bad || (size_t)cnt != n) {
                fprintf(stderr, "ERROR rank %d round %d (%zu bytes, allocation %d): %zu bytes wrong, first at %zu; count %d\n",
                        rank, round, n, how, bad, first, cnt);
                errors++;
            }
            bytes += (long long)n;
        }
        buf_put(&b);
        /* the receiver's buffer too is gone before the next round's */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Many large messages in flight at once (argv[2] of 4 MiB each, rank 0
     * to rank 1): the writes of all of them share each rail with its
     * heartbeats, which must not be starved (a path judged dead). */
    int window = argc > 2 ? atoi(argv[2]) : 0;
    if (window > 0) {
        const size_t n = 4u << 20;
        unsigned char *w = malloc(n * (size_t)window);
        MPI_Request *rq = malloc(sizeof *rq * (size_t)window);
        if (!w || !rq)
            MPI_Abort(MPI_COMM_WORLD, 2);
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < window; k++) {
                unsigned char *p = w + (size_t)k * n;
                if (rank == 0) {
                    for (size_t i = 0; i < n; i++)
                        p[i] = pattern((uint64_t)(1000 + pass * window + k), i);
                    MPI_Isend(p, (int)n, MPI_BYTE, 1, 7000 + k, MPI_COMM_WORLD, &rq[k]);
                } else {
                    memset(p, 0x5a, n);
                    MPI_Irecv(p, (int)n, MPI_BYTE, 0, 7000 + k, MPI_COMM_WORLD, &rq[k]);
                }
            }
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
            if (rank == 1) {
                for (int k = 0; k < window; k++) {
                    size_t bad = 0;
                    for (size_t i = 0; i < n; i++)
                        bad += w[(size_t)k * n + i] != pattern((uint64_t)(1000 + pass * window + k), i);
                    if (bad) {
                        fprintf(stderr, "ERROR window pass %d message %d: %zu bytes wrong\n", pass, k, bad);
                        errors++;
                    }
                }
                bytes += (long long)n * window;
            }
        }
        free(rq);
        free(w);
    }
    long long all = 0;
    int allerr = 0;
    MPI_Reduce(&bytes, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&errors, &allerr, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank && !allerr)
        printf("OK rounds %d bytes %lld\n", rounds, all);
    MPI_Finalize();
    return allerr ? 1 : 0;
}
