/* railbench: what the measuring loop in railbench.c needs from a level (MPI
 * or raw transport). Both levels run the same tests with the same loop and
 * print the same lines, so one script reads either. */
#ifndef RAILBENCH_H
#define RAILBENCH_H

typedef enum { RB_LAT, RB_BW, RB_BIBW, RB_RATE } rb_test_t;

typedef struct rb_opts {
    rb_test_t test;
    long min, max;     /* message sizes, doubling */
    int window, iters, warm;
    double timeline;   /* per-iteration mode: seconds, 0 off */
    int absolute;      /* per-iteration mode: print wall-clock (Unix) time */
    int checked;       /* per-iteration mode, MPI level: stamp and verify messages */
    const char *rails; /* transport level: CIDR subnets / interface names, NULL: default */
    int rail;          /* transport level: one shared rail by index, -1: all (striped) */
} rb_opts_t;

typedef struct rb_level {
    /* one ping-pong (RB_LAT), or one window of messages and the receiver's
     * 1-byte answer (RB_BW, RB_BIBW), of n bytes each, between ranks 0 and 1;
     * RB_RATE: the same window from every even rank to the next odd one */
    void (*iter)(void *ctx, long n);
    /* after warm-up: both ranks start the clock together */
    void (*sync)(void *ctx);
    /* per-iteration mode: rank 0's decision whether another iteration
     * follows, returned on both ranks */
    int (*more)(void *ctx, int more);
    void (*fini)(void *ctx);
    /* RB_RATE: every pair's messages over the slowest pair's seconds, on rank 0 */
    double (*rate)(void *ctx, double msgs, double secs);
    void *ctx;
} rb_level_t;

/* Sets up the transport level between ranks 0 and 1 (MPI only exchanges
 * addresses). Returns 0, or 2 after printing why on rank 0 (a bad option:
 * every rank returns it, the job ends cleanly). Fatal errors later (a stalled
 * or broken connection) print a message and abort the job. */
int rb_transport_open(const rb_opts_t *o, int rank, char *sbuf, char *rbuf, rb_level_t *out);

#endif
