/* railbench: MPI-level latency, bandwidth and bidirectional bandwidth between
 * ranks 0 and 1, as the papers' tests measure them (window of non-blocking
 * operations, warm-up, iterations), with a per-iteration mode that prints
 * one timestamped line per iteration for plotting bandwidth over time.
 * Per-rail figures: run it with RAILMPI_TCP_RAILS naming one rail. */
#include <mpi.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum { T_LAT, T_BW, T_BIBW } test_t;

static void usage(void)
{
    fprintf(stderr,
            "usage: mpiexec -n 2 railbench [options]\n"
            "  -t lat|bw|bibw   test (default bw)\n"
            "  -m MIN:MAX       message sizes in bytes, doubling (default 1:4194304)\n"
            "  -w N             window of outstanding messages for bw/bibw (default 64)\n"
            "  -i N             iterations per size (default 100; latency 10000)\n"
            "  -x N             warm-up iterations (default 10)\n"
            "  -T SECONDS       per-iteration mode: run the largest size for this long and print\n"
            "                   'time_s MB/s' for every iteration (bandwidth over time)\n"
            "  -a               with -T: time_s is Unix time (wall clock, microseconds), so the\n"
            "                   lines line up with events logged by other processes or hosts\n"
            "  -c               with -T and bw/bibw: stamp and verify every message's contents;\n"
            "                   prints '# verified N messages ..., E bad' at the end\n");
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Verified mode: every 4 KiB block of a message starts with a stamp naming the
 * iteration and window slot; the rest of the block is a fixed pseudo-random
 * pattern. A stale block (not delivered this iteration), a misplaced chunk or a
 * corrupted byte all show up, at the cost of one memcmp per received byte. */
enum { BLOCK = 4096 };

static void pattern_init(unsigned char *p, size_t n)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

static uint64_t stamp_of(long it, int slot)
{
    return ((uint64_t)it << 20 | (uint64_t)slot) * 2 + 1; /* never 0 */
}

static void stamp(unsigned char *msg, size_t n, uint64_t st)
{
    for (size_t off = 0; off + sizeof st <= n; off += BLOCK)
        memcpy(msg + off, &st, sizeof st);
}

static int verify(const unsigned char *msg, const unsigned char *ref, size_t n, uint64_t st)
{
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t len = n - off < BLOCK ? n - off : BLOCK, skip = 0;
        if (len >= sizeof st) {
            if (memcmp(msg + off, &st, sizeof st))
                return 0;
            skip = sizeof st;
        }
        if (memcmp(msg + off + skip, ref + off + skip, len - skip))
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_t test = T_BW;
    long min = 1, max = 4 << 20;
    int window = 64, iters = -1, warm = 10, opt;
    double timeline = 0;
    int absolute = 0, checked = 0;
    while ((opt = getopt(argc, argv, "t:m:w:i:x:T:ach")) != -1) {
        switch (opt) {
        case 't':
            test = !strcmp(optarg, "lat") ? T_LAT : !strcmp(optarg, "bibw") ? T_BIBW : T_BW;
            if (strcmp(optarg, "lat") && strcmp(optarg, "bw") && strcmp(optarg, "bibw"))
                goto bad;
            break;
        case 'm':
            if (sscanf(optarg, "%ld:%ld", &min, &max) != 2 || min < 0 || max < min)
                goto bad;
            break;
        case 'w': window = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'x': warm = atoi(optarg); break;
        case 'T': timeline = atof(optarg); break;
        case 'a': absolute = 1; break;
        case 'c': checked = 1; break;
        default:
        bad:
            if (!rank)
                usage();
            MPI_Finalize();
            return 2;
        }
    }
    if ((absolute || checked) && !timeline) {
        if (!rank)
            fprintf(stderr, "railbench: -a and -c go with -T\n");
        MPI_Finalize();
        return 2;
    }
    if (checked && test == T_LAT)
        checked = 0; /* latency messages are tiny; nothing worth verifying */
    if (size < 2 || window < 1 || warm < 0) {
        if (!rank)
            fprintf(stderr, "railbench: needs 2 ranks and a positive window\n");
        MPI_Finalize();
        return 2;
    }
    if (iters < 0)
        iters = test == T_LAT ? 10000 : 100;
    if (rank > 1) { /* extra ranks only keep the collectives company */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    size_t bufsize = (size_t)(max ? max : 1) * (size_t)window;
    char *sbuf = malloc(bufsize), *rbuf = malloc(bufsize);
    memset(sbuf, 1, bufsize);
    unsigned char *ref = NULL;
    long verified = 0, bad = 0;
    if (checked) {
        ref = malloc((size_t)(max ? max : 1));
        pattern_init(ref, (size_t)max);
        for (int w = 0; w < window; w++)
            memcpy(sbuf + (size_t)w * (size_t)max, ref, (size_t)max);
    }
    MPI_Request *req = malloc(sizeof *req * 2 * (size_t)window);
    int peer = !rank;
    if (!rank && !timeline)
        printf("# railbench %s, window %d, %d iterations, %d warm-up\n# size %s\n",
               test == T_LAT ? "latency" : test == T_BW ? "bandwidth" : "bidirectional bandwidth", window,
               iters, warm, test == T_LAT ? "usec" : "MB/s");
    for (long n = timeline ? max : min; n <= max; n = n ? n * 2 : 1) {
        double t0 = 0, start = MPI_Wtime(), wall0 = wall_now() - start;
        long done = 0;
        for (int it = 0;; it++) {
            int more = it < iters + warm;
            if (timeline) { /* rank 0's clock decides for both */
                if (!rank) {
                    more = MPI_Wtime() - start < timeline;
                    MPI_Send(&more, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(&more, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            }
            if (!more)
                break;
            if (it == warm && !timeline) {
                /* ranks 0 and 1 only: extra ranks wait in the final barrier */
                char z = 0;
                MPI_Sendrecv(&z, 1, MPI_CHAR, peer, 5, &z, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                t0 = MPI_Wtime();
            }
            double ti = MPI_Wtime();
            if (test == T_LAT) {
                if (!rank) {
                    MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            } else {
                int k = 0;
                int sends = test == T_BIBW || !rank, recvs = test == T_BIBW || rank;
                if (checked && sends)
                    for (int w = 0; w < window; w++)
                        stamp((unsigned char *)sbuf + (size_t)w * (size_t)n, (size_t)n, stamp_of(it, w));
                for (int w = 0; w < window; w++) {
                    if (recvs)
                        MPI_Irecv(rbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k++]);
                    if (sends)
                        MPI_Isend(sbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k++]);
                }
                MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
                if (checked && recvs)
                    for (int w = 0; w < window; w++) {
                        if (verify((unsigned char *)rbuf + (size_t)w * (size_t)n, ref, (size_t)n, stamp_of(it, w)))
                            verified++;
                        else if (bad++ < 10)
                            fprintf(stderr, "railbench: rank %d: iteration %d message %d corrupt\n", rank, it, w);
                    }
                char ack = 0;
                if (!rank)
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
            }
            if (timeline && !rank) {
                double now = MPI_Wtime(), dt = now - ti;
                double bytes = test == T_LAT ? 2.0 * (double)n : (double)n * window * (test == T_BIBW ? 2 : 1);
                /* MPI_Wtime's offset stays fixed, so wall0 + now is wall time */
                printf("%.6f %.1f\n", absolute ? wall0 + now : now - start, bytes / dt / 1e6);
                fflush(stdout);
            }
            if (it >= warm || timeline)
                done++;
        }
        if (timeline) {
            if (checked) {
                /* point-to-point: ranks beyond 1 are already in the final barrier */
                long v[2] = {verified, bad}, tot[2];
                MPI_Sendrecv(v, 2, MPI_LONG, peer, 6, tot, 2, MPI_LONG, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                tot[0] += v[0], tot[1] += v[1];
                if (!rank)
                    printf("# verified %ld messages of %ld bytes intact and in place, %ld bad\n", tot[0], n,
                           tot[1]);
            }
            /* both ranks must leave the loop together */
            break;
        }
        double t = MPI_Wtime() - t0;
        if (!rank) {
            if (test == T_LAT)
                printf("%ld %.3f\n", n, t / (double)done / 2 * 1e6);
            else
                printf("%ld %.1f\n", n, (double)n * window * (double)done * (test == T_BIBW ? 2 : 1) / t / 1e6);
        }
        if (n == 0 && max == 0)
            break;
    }
    free(sbuf);
    free(rbuf);
    free(req);
    free(ref);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return bad ? 1 : 0;
}
