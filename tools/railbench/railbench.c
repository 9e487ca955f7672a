/* railbench: latency, bandwidth and bidirectional bandwidth between ranks 0
 * and 1, as the papers' tests measure them (window of non-blocking
 * operations, warm-up, iterations), with a per-iteration mode that prints
 * one timestamped line per iteration for plotting bandwidth over time, and
 * a message-rate mode in which ranks pair up (0-1, 2-3, ...) and every pair
 * streams windows of small messages at once (all pairs' messages per second
 * of the slowest pair's time).
 *
 * Two levels run the same loop and print the same lines:
 *   -L mpi        MPI point-to-point through the library (per rail: run it
 *                 with RAILMPI_TCP_RAILS naming one rail);
 *   -L transport  plain non-blocking TCP sockets, one connection per rail the
 *                 two hosts share, no MPI engine on the path (transport.c):
 *                 the ceiling the library is measured against.
 * A third, -L both (latency only), measures the two in one job, in blocks
 * that alternate between them, and prints 'size transport_usec mpi_usec':
 * a machine's load that comes and goes then weighs on both alike, where
 * two jobs one after the other can each catch a different moment. */
#include "railbench.h"

#include <mpi.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: mpiexec -n 2 railbench [options]\n"
            "  -L mpi|transport|both  level: MPI point-to-point (default), or plain TCP sockets\n"
            "                   between the two hosts, one connection per shared rail; both\n"
            "                   (latency only): the two in alternating blocks of one job,\n"
            "                   printing 'size transport_usec mpi_usec'\n"
            "  -t lat|bw|bibw|rate  test (default bw); rate: pairs 0-1, 2-3, ... stream at once,\n"
            "                   all messages per second of the slowest pair's time (MPI level;\n"
            "                   an odd last rank sits out)\n"
            "  -m MIN:MAX       message sizes in bytes, doubling (default 1:4194304)\n"
            "  -w N             window of outstanding messages for bw/bibw/rate (default 64)\n"
            "  -i N             iterations per size (default 100; latency 10000)\n"
            "  -x N             warm-up iterations (default 10)\n"
            "  -T SECONDS       per-iteration mode: run the largest size for this long and print\n"
            "                   'time_s MB/s' for every iteration (bandwidth over time)\n"
            "  -a               with -T: time_s is Unix time (wall clock, microseconds), so the\n"
            "                   lines line up with events logged by other processes or hosts\n"
            "  -c               with -T, MPI level, bw/bibw: stamp and verify every message's\n"
            "                   contents; prints '# verified N messages ..., E bad' at the end\n"
            "transport level only:\n"
            "  -r LIST          rails: CIDR subnets or interface names, comma-separated (default:\n"
            "                   RAILMPI_TCP_RAILS, else every up non-loopback IPv4 interface\n"
            "                   except the launcher's, as the library chooses them)\n"
            "  -R K             use only the K-th rail the two hosts share (from 0, ordered by\n"
            "                   subnet); default: all of them, each message split in equal stripes\n");
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- verified mode (-c) ------------------------------------------------ */

/* Every 4 KiB block of a message starts with a stamp naming the iteration
 * and window slot; the rest of the block is a fixed pseudo-random pattern. A
 * stale block (not delivered this iteration), a misplaced chunk or a
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

/* ---- the MPI level ----------------------------------------------------- */

typedef struct rb_mpi {
    const rb_opts_t *o;
    int rank, peer;
    int sender;     /* bw, rate: this rank sends the window (even ranks) */
    MPI_Comm pairs; /* rate: the ranks that have a partner */
    char *sbuf, *rbuf;
    MPI_Request *req;
    /* verified mode */
    unsigned char *ref; /* the pattern, one message long; NULL: off */
    long it, verified, bad;
} rb_mpi_t;

static void rb_mpi_iter(void *ctx, long n)
{
    rb_mpi_t *m = ctx;
    int peer = m->peer;
    if (m->o->test == RB_LAT) {
        if (!m->rank) {
            MPI_Send(m->sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(m->rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(m->rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(m->sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        }
        return;
    }
    int k = 0;
    int sends = m->o->test == RB_BIBW || m->sender, recvs = m->o->test == RB_BIBW || !m->sender;
    long it = m->it++;
    if (m->ref && sends)
        for (int w = 0; w < m->o->window; w++)
            stamp((unsigned char *)m->sbuf + (size_t)w * (size_t)n, (size_t)n, stamp_of(it, w));
    for (int w = 0; w < m->o->window; w++) {
        if (recvs)
            MPI_Irecv(m->rbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &m->req[k++]);
        if (sends)
            MPI_Isend(m->sbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &m->req[k++]);
    }
    MPI_Waitall(k, m->req, MPI_STATUSES_IGNORE);
    if (m->ref && recvs)
        for (int w = 0; w < m->o->window; w++) {
            if (verify((unsigned char *)m->rbuf + (size_t)w * (size_t)n, m->ref, (size_t)n, stamp_of(it, w)))
                m->verified++;
            else if (m->bad++ < 10)
                fprintf(stderr, "railbench: rank %d: iteration %ld message %d corrupt\n", m->rank, it, w);
        }
    char ack = 0;
    if (m->sender)
        MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
}

static void rb_mpi_sync(void *ctx)
{
    rb_mpi_t *m = ctx;
    if (m->o->test == RB_RATE) { /* every pair starts together */
        MPI_Barrier(m->pairs);
        return;
    }
    char z = 0;
    MPI_Sendrecv(&z, 1, MPI_CHAR, m->peer, 5, &z, 1, MPI_CHAR, m->peer, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static int rb_mpi_more(void *ctx, int more)
{
    rb_mpi_t *m = ctx;
    if (!m->rank)
        MPI_Send(&more, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    else
        MPI_Recv(&more, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return more;
}

/* Pairs that did not run at the same time (one descheduled while the other
 * ran) must not count twice: all messages over the slowest pair's time. */
static double rb_mpi_rate(void *ctx, double msgs, double secs)
{
    rb_mpi_t *m = ctx;
    double slowest = 0;
    int npaired;
    MPI_Comm_size(m->pairs, &npaired);
    MPI_Reduce(&secs, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, m->pairs);
    return msgs * (npaired / 2) / slowest; /* every pair sends as many */
}

static void rb_mpi_fini(void *ctx)
{
    rb_mpi_t *m = ctx;
    if (m->ref) {
        /* point-to-point: ranks beyond 1 are already in the final barrier */
        long v[2] = {m->verified, m->bad}, tot[2];
        MPI_Sendrecv(v, 2, MPI_LONG, m->peer, 6, tot, 2, MPI_LONG, m->peer, 6, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        tot[0] += v[0], tot[1] += v[1];
        if (!m->rank)
            printf("# verified %ld messages of %ld bytes intact and in place, %ld bad\n", tot[0],
                   m->o->max, tot[1]);
        m->bad = tot[1];
    }
    free(m->req);
    free(m->ref);
}

/* ---- the measuring loop (both levels) ---------------------------------- */

static void rb_run(const rb_opts_t *o, int rank, const rb_level_t *lv, const char *level)
{
    rb_test_t test = o->test;
    if (!rank && !o->timeline)
        printf("# railbench %s, %s level, window %d, %d iterations, %d warm-up\n# size %s\n",
               test == RB_LAT ? "latency" : test == RB_BW ? "bandwidth" : test == RB_RATE ? "message rate"
                                                            : "bidirectional bandwidth",
               level, o->window, o->iters, o->warm,
               test == RB_LAT ? "usec" : test == RB_RATE ? "messages/s (all pairs)" : "MB/s");
    for (long n = o->timeline ? o->max : o->min; n <= o->max; n = n ? n * 2 : 1) {
        double t0 = 0, start = MPI_Wtime(), wall0 = wall_now() - start;
        long done = 0;
        for (int it = 0;; it++) {
            int more = it < o->iters + o->warm;
            if (o->timeline) /* rank 0's clock decides for both */
                more = lv->more(lv->ctx, !rank ? MPI_Wtime() - start < o->timeline : 0);
            if (!more)
                break;
            if (it == o->warm && !o->timeline) {
                lv->sync(lv->ctx);
                t0 = MPI_Wtime();
            }
            double ti = MPI_Wtime();
            lv->iter(lv->ctx, n);
            if (o->timeline && !rank) {
                double now = MPI_Wtime(), dt = now - ti;
                double bytes = test == RB_LAT ? 2.0 * (double)n
                                              : (double)n * o->window * (test == RB_BIBW ? 2 : 1);
                /* MPI_Wtime's offset stays fixed, so wall0 + now is wall time */
                printf("%.6f %.1f\n", o->absolute ? wall0 + now : now - start, bytes / dt / 1e6);
                fflush(stdout);
            }
            if (it >= o->warm || o->timeline)
                done++;
        }
        if (o->timeline)
            break; /* both ranks leave the loop together */
        double t = MPI_Wtime() - t0;
        if (test == RB_RATE) {
            double rate = lv->rate(lv->ctx, (double)o->window * (double)done, t);
            if (!rank) {
                printf("%ld %.0f\n", n, rate);
                fflush(stdout);
            }
            continue;
        }
        if (!rank) {
            if (test == RB_LAT)
                printf("%ld %.3f\n", n, t / (double)done / 2 * 1e6);
            else
                printf("%ld %.1f\n", n, (double)n * o->window * (double)done * (test == RB_BIBW ? 2 : 1) / t / 1e6);
            fflush(stdout);
        }
        if (n == 0 && o->max == 0)
            break;
    }
}

/* -L both: RB_PAIR_BLOCKS blocks of each level per size, alternating, and
 * each level's time over all of its blocks. */
#define RB_PAIR_BLOCKS 10

static void rb_run_pair(const rb_opts_t *o, int rank, const rb_level_t *tl, const rb_level_t *ml)
{
    const rb_level_t *lv[2] = {tl, ml};
    long per = (o->iters + RB_PAIR_BLOCKS - 1) / RB_PAIR_BLOCKS;
    if (!rank)
        printf("# railbench latency, transport and MPI levels alternating in %d blocks of %ld "
               "iterations each, %d warm-up\n# size transport_usec mpi_usec\n",
               RB_PAIR_BLOCKS, per, o->warm);
    for (long n = o->min; n <= o->max; n = n ? n * 2 : 1) {
        double t[2] = {0, 0};
        for (int l = 0; l < 2; l++)
            for (int it = 0; it < o->warm; it++)
                lv[l]->iter(lv[l]->ctx, n);
        for (int b = 0; b < RB_PAIR_BLOCKS; b++) {
            for (int l = 0; l < 2; l++) {
                lv[l]->sync(lv[l]->ctx);
                double t0 = MPI_Wtime();
                for (long it = 0; it < per; it++)
                    lv[l]->iter(lv[l]->ctx, n);
                t[l] += MPI_Wtime() - t0;
            }
        }
        double iters = (double)per * RB_PAIR_BLOCKS;
        if (!rank) {
            printf("%ld %.3f %.3f\n", n, t[0] / iters / 2 * 1e6, t[1] / iters / 2 * 1e6);
            fflush(stdout);
        }
        if (n == 0 && o->max == 0)
            break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rb_opts_t o = {.test = RB_BW, .min = 1, .max = 4 << 20, .window = 64, .iters = -1, .warm = 10,
                   .rail = -1};
    int transport = 0, opt, rc = 0;
    char *end;
    while ((opt = getopt(argc, argv, "L:t:m:w:i:x:T:r:R:ach")) != -1) {
        switch (opt) {
        case 'L':
            if (strcmp(optarg, "mpi") && strcmp(optarg, "transport") && strcmp(optarg, "both"))
                goto bad;
            transport = !strcmp(optarg, "transport") ? 1 : !strcmp(optarg, "both") ? 2 : 0;
            break;
        case 't':
            if (strcmp(optarg, "lat") && strcmp(optarg, "bw") && strcmp(optarg, "bibw") &&
                strcmp(optarg, "rate"))
                goto bad;
            o.test = !strcmp(optarg, "lat")    ? RB_LAT
                     : !strcmp(optarg, "bibw") ? RB_BIBW
                     : !strcmp(optarg, "rate") ? RB_RATE
                                               : RB_BW;
            break;
        case 'm':
            if (sscanf(optarg, "%ld:%ld", &o.min, &o.max) != 2 || o.min < 0 || o.max < o.min ||
                o.max > (1L << 30))
                goto bad;
            break;
        case 'w': o.window = atoi(optarg); break;
        case 'i': o.iters = atoi(optarg); break;
        case 'x': o.warm = atoi(optarg); break;
        case 'T': o.timeline = atof(optarg); break;
        case 'a': o.absolute = 1; break;
        case 'c': o.checked = 1; break;
        case 'r': o.rails = optarg; break;
        case 'R':
            o.rail = (int)strtol(optarg, &end, 10);
            if (end == optarg || *end || o.rail < 0) {
                if (!rank)
                    fprintf(stderr, "railbench: -R %s: expected a rail index (0, 1, ...)\n", optarg);
                rc = 2;
                goto out;
            }
            break;
        default:
        bad:
            if (!rank)
                usage();
            rc = 2;
            goto out;
        }
    }
    if (optind < argc) {
        if (!rank)
            fprintf(stderr, "railbench: unexpected argument '%s'\n", argv[optind]);
        rc = 2;
        goto out;
    }
    if (size < 2 || o.window < 1 || o.warm < 0 || o.timeline < 0) {
        if (!rank)
            fprintf(stderr, "railbench: needs 2 ranks, a positive window and non-negative counts\n");
        rc = 2;
        goto out;
    }
    if (!transport && (o.rails || o.rail >= 0)) {
        if (!rank)
            fprintf(stderr, "railbench: -r and -R choose rails at the transport level (-L transport); "
                            "at the MPI level set RAILMPI_TCP_RAILS\n");
        rc = 2;
        goto out;
    }
    if ((o.absolute || o.checked) && !o.timeline) {
        if (!rank)
            fprintf(stderr, "railbench: -a and -c go with -T\n");
        rc = 2;
        goto out;
    }
    if (o.checked && (transport || o.test == RB_LAT)) {
        if (!rank)
            fprintf(stderr, "railbench: -c verifies MPI-level bw and bibw messages only\n");
        rc = 2;
        goto out;
    }
    if (transport == 2 && (o.test != RB_LAT || o.timeline)) {
        if (!rank)
            fprintf(stderr, "railbench: -L both measures latency (-t lat), without -T\n");
        rc = 2;
        goto out;
    }
    if (o.test == RB_RATE && (transport || o.timeline)) {
        if (!rank)
            fprintf(stderr, "railbench: -t rate runs at the MPI level, without -T\n");
        rc = 2;
        goto out;
    }
    if (o.iters < 0)
        o.iters = o.test == RB_LAT ? 10000 : o.test == RB_RATE ? 1000 : 100;
    /* rate: ranks pair up; otherwise ranks 0 and 1 measure and the others
     * only keep the final barrier company */
    int paired = o.test == RB_RATE ? rank < size / 2 * 2 : rank < 2;
    MPI_Comm pairs = MPI_COMM_NULL;
    if (o.test == RB_RATE)
        MPI_Comm_split(MPI_COMM_WORLD, paired ? 0 : MPI_UNDEFINED, rank, &pairs);
    if (!paired)
        goto out;
    size_t bufsize = (size_t)(o.max ? o.max : 1) * (size_t)o.window;
    char *sbuf = malloc(bufsize), *rbuf = malloc(bufsize);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "railbench: rank %d: no memory for %zu-byte buffers\n", rank, bufsize);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 1, bufsize);
    memset(rbuf, 0, bufsize);
    rb_mpi_t m = {.o = &o, .rank = rank, .peer = rank ^ 1, .sender = !(rank & 1), .pairs = pairs,
                  .sbuf = sbuf, .rbuf = rbuf};
    rb_level_t lv = {.iter = rb_mpi_iter, .sync = rb_mpi_sync, .more = rb_mpi_more,
                     .fini = rb_mpi_fini, .rate = rb_mpi_rate, .ctx = &m};
    rb_level_t tl;
    if (transport == 2) {
        rc = rb_transport_open(&o, rank, sbuf, rbuf, &tl);
        if (!rc) {
            rb_run_pair(&o, rank, &tl, &lv);
            tl.fini(tl.ctx);
        }
    } else if (transport) {
        rc = rb_transport_open(&o, rank, sbuf, rbuf, &lv);
    } else {
        m.req = malloc(sizeof *m.req * 2 * (size_t)o.window);
        if (o.checked) {
            m.ref = malloc((size_t)(o.max ? o.max : 1));
            pattern_init(m.ref, (size_t)o.max);
            for (int w = 0; w < o.window; w++)
                memcpy(sbuf + (size_t)w * (size_t)o.max, m.ref, (size_t)o.max);
        }
    }
    if (!rc && transport < 2) {
        rb_run(&o, rank, &lv, transport ? "transport" : "MPI");
        lv.fini(lv.ctx);
        if (m.bad)
            rc = 1;
    }
    free(sbuf);
    free(rbuf);
    if (pairs != MPI_COMM_NULL)
        MPI_Comm_free(&pairs);
out:
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
