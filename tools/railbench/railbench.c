/* railbench: latency, bandwidth and bidirectional bandwidth between ranks 0
 * and 1, as the papers' tests measure them (window of non-blocking
 * operations, warm-up, iterations), with a per-iteration mode that prints
 * one timestamped line per iteration for plotting bandwidth over time.
 *
 * Two levels run the same loop and print the same lines:
 *   -L mpi        MPI point-to-point through the library (per rail: run it
 *                 with RAILMPI_TCP_RAILS naming one rail);
 *   -L transport  plain non-blocking TCP sockets, one connection per rail the
 *                 two hosts share, no MPI engine on the path (transport.c):
 *                 the ceiling the library is measured against. */
#include "railbench.h"

#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: mpiexec -n 2 railbench [options]\n"
            "  -L mpi|transport level: MPI point-to-point (default), or plain TCP sockets\n"
            "                   between the two hosts, one connection per shared rail\n"
            "  -t lat|bw|bibw   test (default bw)\n"
            "  -m MIN:MAX       message sizes in bytes, doubling (default 1:4194304)\n"
            "  -w N             window of outstanding messages for bw/bibw (default 64)\n"
            "  -i N             iterations per size (default 100; latency 10000)\n"
            "  -x N             warm-up iterations (default 10)\n"
            "  -T SECONDS       per-iteration mode: run the largest size for this long and print\n"
            "                   'time_s MB/s' for every iteration (bandwidth over time)\n"
            "transport level only:\n"
            "  -r LIST          rails: CIDR subnets or interface names, comma-separated (default:\n"
            "                   RAILMPI_TCP_RAILS, else every up non-loopback IPv4 interface\n"
            "                   except the launcher's, as the library chooses them)\n"
            "  -R K             use only the K-th rail the two hosts share (from 0, ordered by\n"
            "                   subnet); default: all of them, each message split in equal stripes\n");
}

/* ---- the MPI level ----------------------------------------------------- */

typedef struct rb_mpi {
    const rb_opts_t *o;
    int rank, peer;
    char *sbuf, *rbuf;
    MPI_Request *req;
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
    int sends = m->o->test == RB_BIBW || !m->rank, recvs = m->o->test == RB_BIBW || m->rank;
    for (int w = 0; w < m->o->window; w++) {
        if (recvs)
            MPI_Irecv(m->rbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &m->req[k++]);
        if (sends)
            MPI_Isend(m->sbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &m->req[k++]);
    }
    MPI_Waitall(k, m->req, MPI_STATUSES_IGNORE);
    char ack = 0;
    if (!m->rank)
        MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
}

static void rb_mpi_sync(void *ctx)
{
    rb_mpi_t *m = ctx;
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

static void rb_mpi_fini(void *ctx)
{
    rb_mpi_t *m = ctx;
    free(m->req);
}

/* ---- the measuring loop (both levels) ---------------------------------- */

static void rb_run(const rb_opts_t *o, int rank, const rb_level_t *lv, const char *level)
{
    rb_test_t test = o->test;
    if (!rank && !o->timeline)
        printf("# railbench %s, %s level, window %d, %d iterations, %d warm-up\n# size %s\n",
               test == RB_LAT ? "latency" : test == RB_BW ? "bandwidth" : "bidirectional bandwidth",
               level, o->window, o->iters, o->warm, test == RB_LAT ? "usec" : "MB/s");
    for (long n = o->timeline ? o->max : o->min; n <= o->max; n = n ? n * 2 : 1) {
        double t0 = 0, start = MPI_Wtime();
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
                printf("%.6f %.1f\n", now - start, bytes / dt / 1e6);
                fflush(stdout);
            }
            if (it >= o->warm || o->timeline)
                done++;
        }
        if (o->timeline)
            break; /* both ranks leave the loop together */
        double t = MPI_Wtime() - t0;
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
    while ((opt = getopt(argc, argv, "L:t:m:w:i:x:T:r:R:h")) != -1) {
        switch (opt) {
        case 'L':
            if (strcmp(optarg, "mpi") && strcmp(optarg, "transport"))
                goto bad;
            transport = !strcmp(optarg, "transport");
            break;
        case 't':
            if (strcmp(optarg, "lat") && strcmp(optarg, "bw") && strcmp(optarg, "bibw"))
                goto bad;
            o.test = !strcmp(optarg, "lat") ? RB_LAT : !strcmp(optarg, "bibw") ? RB_BIBW : RB_BW;
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
    if (o.iters < 0)
        o.iters = o.test == RB_LAT ? 10000 : 100;
    if (rank > 1) /* extra ranks only keep the final barrier company */
        goto out;
    size_t bufsize = (size_t)(o.max ? o.max : 1) * (size_t)o.window;
    char *sbuf = malloc(bufsize), *rbuf = malloc(bufsize);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "railbench: rank %d: no memory for %zu-byte buffers\n", rank, bufsize);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 1, bufsize);
    memset(rbuf, 0, bufsize);
    rb_level_t lv;
    rb_mpi_t m = {.o = &o, .rank = rank, .peer = !rank, .sbuf = sbuf, .rbuf = rbuf};
    if (transport) {
        rc = rb_transport_open(&o, rank, sbuf, rbuf, &lv);
    } else {
        m.req = malloc(sizeof *m.req * 2 * (size_t)o.window);
        lv = (rb_level_t){.iter = rb_mpi_iter, .sync = rb_mpi_sync, .more = rb_mpi_more,
                          .fini = rb_mpi_fini, .ctx = &m};
    }
    if (!rc) {
        rb_run(&o, rank, &lv, transport ? "transport" : "MPI");
        lv.fini(lv.ctx);
    }
    free(sbuf);
    free(rbuf);
out:
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc;
}
