/* Collective buffering (two-phase I/O, after del Rosario, Bordawekar and
 * Choudhary, and ROMIO): the byte range the processes access together is
 * cut into one file domain per aggregator (one process per host by default,
 * cb_nodes of them; domains aligned to striping_unit when it is given), and
 * the domains are handled in rounds of cb_buffer_size bytes. In a round each
 * process sends each aggregator the pieces of its access that fall in the
 * aggregator's window (offsets and lengths, then the data for a write); the
 * aggregator writes the window with one pwrite (reading it first when the
 * pieces leave holes) or reads it with one pread and sends each process its
 * pieces back. The exchange is point-to-point traffic through the file's own
 * communicator (alltoall of counts, alltoallv of pieces and data), so
 * processes on different hosts share nothing but the file system. */
#include "io/io.h"

#include "coll/coll.h"
#include "coll/op.h"

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct io_tp {
    io_file_t *f;
    int size, naggr;
    int *aggr;                /* comm ranks of the aggregators */
    int *byrank;              /* aggregator indices in the order of their ranks */
    MPI_Offset gmin, gmax;    /* bytes everybody accesses together */
    MPI_Offset fd_size, base; /* domain a: [base + a * fd_size, + fd_size) within [gmin, gmax) */
    MPI_Offset cb;            /* bytes per round */
    io_piece_t *pc;           /* this process's pieces */
    MPI_Count np;
} io_tp_t;

/* On one host, "automatic" aggregates only pieces shorter than this on
 * average (bytes). */
#define IO_TP_ONE_HOST_PIECE 128

static MPI_Offset io_hint_num(io_file_t *f, int h, MPI_Offset dflt)
{
    if (!f->hints[h])
        return dflt;
    long long v = strtoll(f->hints[h], NULL, 10);
    return v > 0 ? v : dflt;
}

int io_tp_pick(const int *hostof, int size, int nhosts, int want, int *aggr)
{
    if (want > size)
        want = size;
    if (want < 1)
        want = 1;
    int *seen = calloc((size_t)nhosts, sizeof *seen), *level = malloc(sizeof *level * (size_t)size);
    if (!seen || !level) {
        free(seen);
        free(level);
        return -ENOMEM;
    }
    for (int r = 0; r < size; r++)
        level[r] = seen[hostof[r]]++;
    int n = 0;
    for (int l = 0; n < want; l++)
        for (int r = 0; r < size && n < want; r++)
            if (level[r] == l)
                aggr[n++] = r;
    free(seen);
    free(level);
    return n;
}

void io_tp_split(MPI_Offset gmin, MPI_Offset gmax, int naggr, MPI_Offset su, MPI_Offset *base,
                 MPI_Offset *fd_size)
{
    *base = gmin;
    *fd_size = (gmax - gmin + naggr - 1) / naggr;
    if (su > 0) {
        *base = gmin - gmin % su;
        *fd_size = (gmax - *base + naggr - 1) / naggr;
        *fd_size = (*fd_size + su - 1) / su * su;
    }
    if (*fd_size < 1)
        *fd_size = 1;
}

void io_tp_domain_of(MPI_Offset base, MPI_Offset fd_size, MPI_Offset gmin, MPI_Offset gmax, int a,
                     MPI_Offset *lo, MPI_Offset *hi)
{
    *lo = base + a * fd_size;
    *hi = *lo + fd_size;
    if (*lo < gmin)
        *lo = gmin;
    if (*hi > gmax)
        *hi = gmax;
    if (*lo > *hi)
        *lo = *hi;
}

static int io_tp_aggregators(io_tp_t *t)
{
    io_file_t *f = t->f;
    int want = (int)io_hint_num(f, IO_HINT_CB_NODES, f->nhosts);
    if (!(t->aggr = malloc(sizeof *t->aggr * (size_t)t->size)))
        return -ENOMEM;
    t->naggr = io_tp_pick(f->hostof, t->size, f->nhosts, want, t->aggr);
    if (t->naggr < 0)
        return t->naggr;
    /* the exchange lays out what goes to each process in rank order; the
     * pick is host-first (on several hosts aggregator a is not rank a) */
    if (!(t->byrank = malloc(sizeof *t->byrank * (size_t)t->naggr)))
        return -ENOMEM;
    for (int a = 0; a < t->naggr; a++) {
        int j = a;
        for (; j > 0 && t->aggr[t->byrank[j - 1]] > t->aggr[a]; j--)
            t->byrank[j] = t->byrank[j - 1];
        t->byrank[j] = a;
    }
    return 0;
}

static void io_tp_domain(const io_tp_t *t, int a, MPI_Offset *lo, MPI_Offset *hi)
{
    io_tp_domain_of(t->base, t->fd_size, t->gmin, t->gmax, a, lo, hi);
}

/* First of my pieces that ends after `off`. */
static MPI_Count io_tp_first(const io_tp_t *t, MPI_Offset off)
{
    MPI_Count lo = 0, hi = t->np;
    while (lo < hi) {
        MPI_Count mid = (lo + hi) / 2;
        if (t->pc[mid].off + t->pc[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct io_tp_round {
    long long *scnt, *rcnt;   /* per peer: pieces, data bytes */
    MPI_Count *smc, *sdc, *rmc, *rdc; /* alltoallv counts */
    MPI_Aint *smd, *sdd, *rmd, *rdd;  /* and displacements */
    MPI_Offset *smeta, *rmeta; /* (off, len) pairs */
    MPI_Offset *spos;         /* packed position of each piece sent */
    char *sdata, *rdata;
} io_tp_round_t;

static void io_tp_round_free(io_tp_round_t *r)
{
    free(r->scnt); free(r->rcnt); free(r->smc); free(r->smd); free(r->sdc); free(r->sdd);
    free(r->rmc); free(r->rmd); free(r->rdc); free(r->rdd); free(r->smeta); free(r->rmeta);
    free(r->spos); free(r->sdata); free(r->rdata);
    memset(r, 0, sizeof *r);
}

/* Pieces of mine in each aggregator's window of round k, their counts
 * exchanged; for a write the data goes along. */
static int io_tp_round_send(io_tp_t *t, int k, const char *packed, int write, io_tp_round_t *r)
{
    int n = t->size;
    r->scnt = calloc((size_t)n * 2, sizeof *r->scnt);
    r->rcnt = calloc((size_t)n * 2, sizeof *r->rcnt);
    MPI_Count **ca[] = {&r->smc, &r->sdc, &r->rmc, &r->rdc};
    MPI_Aint **da[] = {&r->smd, &r->sdd, &r->rmd, &r->rdd};
    for (int i = 0; i < 4; i++)
        if (!(*ca[i] = calloc((size_t)n, sizeof(MPI_Count))) ||
            !(*da[i] = calloc((size_t)n, sizeof(MPI_Aint))))
            return -ENOMEM;
    if (!r->scnt || !r->rcnt)
        return -ENOMEM;
    MPI_Count npieces = 0, nbytes = 0;
    /* a write whose data for each aggregator lies in one run of the packed
     * buffer (any view whose offsets grow with the data) sends it from there:
     * no copy; first[d] is where that run starts, -1 while none */
    MPI_Offset *first = write ? malloc(sizeof *first * (size_t)n) : NULL, *next = NULL;
    int direct = first != NULL && (next = malloc(sizeof *next * (size_t)n)) != NULL;
    for (int d = 0; direct && d < n; d++)
        first[d] = next[d] = -1;
    for (int pass = 0; pass < 2; pass++) {
        MPI_Count ip = 0, ib = 0;
        for (int j = 0; j < t->naggr; j++) {
            int a = t->byrank[j];
            MPI_Offset dlo, dhi;
            io_tp_domain(t, a, &dlo, &dhi);
            MPI_Offset wlo = dlo + k * t->cb, whi = wlo + t->cb;
            if (whi > dhi)
                whi = dhi;
            int dst = t->aggr[a];
            for (MPI_Count i = wlo < whi ? io_tp_first(t, wlo) : t->np; i < t->np && t->pc[i].off < whi; i++) {
                MPI_Offset o = t->pc[i].off, e = o + t->pc[i].len;
                if (o < wlo)
                    o = wlo;
                if (e > whi)
                    e = whi;
                if (pass == 0) {
                    r->scnt[2 * dst]++;
                    r->scnt[2 * dst + 1] += e - o;
                    if (direct) {
                        MPI_Offset pos = t->pc[i].pos + (o - t->pc[i].off);
                        if (first[dst] < 0)
                            first[dst] = pos;
                        else if (pos != next[dst])
                            direct = 0;
                        next[dst] = pos + (e - o);
                    }
                    continue;
                }
                r->smeta[2 * ip] = o;
                r->smeta[2 * ip + 1] = e - o;
                r->spos[ip] = t->pc[i].pos + (o - t->pc[i].off);
                if (write && !direct)
                    memcpy(r->sdata + ib, packed + r->spos[ip], (size_t)(e - o));
                ip++;
                ib += e - o;
            }
        }
        if (pass == 0) {
            for (int d = 0; d < n; d++) {
                npieces += r->scnt[2 * d];
                nbytes += r->scnt[2 * d + 1];
            }
            r->smeta = malloc(sizeof *r->smeta * (size_t)(2 * npieces + 1));
            r->spos = malloc(sizeof *r->spos * (size_t)(npieces + 1));
            r->sdata = malloc((size_t)(write && !direct ? nbytes : 0) + 1);
            if (!r->smeta || !r->spos || !r->sdata) {
                free(first);
                free(next);
                return -ENOMEM;
            }
        }
    }
    free(next);
    dtype_t *ll = dtype_get(MPI_LONG_LONG);
    if (coll_alltoall(r->scnt, 2, ll, r->rcnt, 2, ll, t->f->comm) < 0) {
        free(first);
        return -EIO;
    }
    MPI_Count rp = 0, rb = 0;
    MPI_Aint sm = 0, sd = 0;
    for (int d = 0; d < n; d++) {
        r->smc[d] = 2 * r->scnt[2 * d];
        r->smd[d] = sm;
        sm += r->smc[d];
        r->sdc[d] = r->scnt[2 * d + 1];
        r->sdd[d] = sd;
        sd += r->sdc[d];
        r->rmc[d] = 2 * r->rcnt[2 * d];
        r->rmd[d] = (MPI_Aint)(2 * rp);
        r->rdc[d] = r->rcnt[2 * d + 1];
        r->rdd[d] = (MPI_Aint)rb;
        rp += r->rcnt[2 * d];
        rb += r->rcnt[2 * d + 1];
        if (direct)
            r->sdd[d] = first[d] < 0 ? 0 : (MPI_Aint)first[d];
    }
    free(first);
    r->rmeta = malloc(sizeof *r->rmeta * (size_t)(2 * rp + 1));
    r->rdata = malloc((size_t)rb + 1);
    if (!r->rmeta || !r->rdata)
        return -ENOMEM;
    if (coll_alltoallv(r->smeta, r->smc, r->smd, ll, r->rmeta, r->rmc, r->rmd, ll, t->f->comm) < 0)
        return -EIO;
    if (write && coll_alltoallv(direct ? packed : r->sdata, r->sdc, r->sdd, dtype_get(MPI_BYTE), r->rdata, r->rdc,
                                r->rdd, dtype_get(MPI_BYTE), t->f->comm) < 0)
        return -EIO;
    return 0;
}

static int io_cmp_pair(const void *a, const void *b)
{
    MPI_Offset x = ((const MPI_Offset *)a)[0], y = ((const MPI_Offset *)b)[0];
    return (x > y) - (x < y);
}

/* At an aggregator: the span of the pieces received this round, and
 * whether they cover it without a hole. */
static MPI_Count io_tp_span(io_tp_round_t *r, int n, MPI_Offset *lo, MPI_Offset *hi, int *full)
{
    MPI_Count np = 0;
    for (int d = 0; d < n; d++)
        np += r->rcnt[2 * d];
    *full = 1;
    if (np == 0)
        return 0;
    MPI_Offset *s = malloc(sizeof *s * (size_t)(2 * np));
    if (!s) {
        *full = 0; /* read-modify-write is always right */
        s = NULL;
    }
    *lo = r->rmeta[0];
    *hi = r->rmeta[0] + r->rmeta[1];
    for (MPI_Count i = 0; i < np; i++) {
        MPI_Offset o = r->rmeta[2 * i], e = o + r->rmeta[2 * i + 1];
        if (o < *lo)
            *lo = o;
        if (e > *hi)
            *hi = e;
    }
    if (s) {
        memcpy(s, r->rmeta, sizeof *s * (size_t)(2 * np));
        qsort(s, (size_t)np, 2 * sizeof *s, io_cmp_pair);
        MPI_Offset reach = *lo;
        for (MPI_Count i = 0; i < np && *full; i++) {
            if (s[2 * i] > reach)
                *full = 0;
            if (s[2 * i] + s[2 * i + 1] > reach)
                reach = s[2 * i] + s[2 * i + 1];
        }
        free(s);
    }
    return np;
}

/* A window the aggregator writes behind while the next round's data is
 * exchanged (two windows take turns). */
typedef struct io_tp_wb {
    struct aiocb cb;
    int busy;
} io_tp_wb_t;

static int io_tp_wb_wait(io_tp_wb_t *w)
{
    if (!w->busy)
        return 0;
    w->busy = 0;
    const struct aiocb *l[1] = {&w->cb};
    int e;
    while ((e = aio_error(&w->cb)) == EINPROGRESS)
        aio_suspend(l, 1, NULL);
    ssize_t n = aio_return(&w->cb);
    if (e != 0)
        return -e;
    if (n >= 0 && (size_t)n < w->cb.aio_nbytes) { /* finish a short write here */
        ssize_t m = io_pio(w->cb.aio_fildes, 1, (char *)w->cb.aio_buf + n, w->cb.aio_nbytes - (size_t)n,
                           w->cb.aio_offset + n);
        return m < 0 ? (int)m : 0;
    }
    return 0;
}

static int io_tp_round_write(io_tp_t *t, io_tp_round_t *r, char *win, io_tp_wb_t *wb)
{
    MPI_Offset lo, hi;
    int full;
    MPI_Count np = io_tp_span(r, t->size, &lo, &hi, &full);
    if (np == 0)
        return 0;
    if (!full) {
        ssize_t m = io_pio(t->f->fd, 0, win, (size_t)(hi - lo), lo);
        if (m < 0)
            return (int)m;
        memset(win + m, 0, (size_t)(hi - lo - m));
    }
    const char *d = r->rdata;
    for (MPI_Count i = 0; i < np; i++) {
        memcpy(win + (r->rmeta[2 * i] - lo), d, (size_t)r->rmeta[2 * i + 1]);
        d += r->rmeta[2 * i + 1];
    }
    memset(&wb->cb, 0, sizeof wb->cb);
    wb->cb.aio_fildes = t->f->fd;
    wb->cb.aio_buf = win;
    wb->cb.aio_nbytes = (size_t)(hi - lo);
    wb->cb.aio_offset = lo;
    wb->cb.aio_sigevent.sigev_notify = SIGEV_NONE;
    if (aio_write(&wb->cb) == 0) {
        wb->busy = 1;
        return 0;
    }
    ssize_t m = io_pio(t->f->fd, 1, win, (size_t)(hi - lo), lo); /* no room for another request */
    return m < 0 ? (int)m : 0;
}

/* Read the span, send every process its pieces back, place mine. */
static int io_tp_round_read(io_tp_t *t, io_tp_round_t *r, char *win, char *packed)
{
    MPI_Offset lo = 0, hi = 0;
    int full, rc = 0;
    MPI_Count np = io_tp_span(r, t->size, &lo, &hi, &full);
    if (np > 0) {
        ssize_t m = io_pio(t->f->fd, 0, win, (size_t)(hi - lo), lo);
        if (m < 0)
            rc = (int)m;
        else
            memset(win + m, 0, (size_t)(hi - lo - m)); /* past the end: counted off later */
        char *d = r->rdata;
        for (MPI_Count i = 0; i < np; i++) {
            memcpy(d, win + (r->rmeta[2 * i] - lo), (size_t)r->rmeta[2 * i + 1]);
            d += r->rmeta[2 * i + 1];
        }
    }
    /* the data goes back the way the pieces came */
    MPI_Count mine = 0;
    for (int d = 0; d < t->size; d++)
        mine += r->scnt[2 * d + 1];
    free(r->sdata);
    if (!(r->sdata = malloc((size_t)mine + 1)))
        return -ENOMEM;
    if (coll_alltoallv(r->rdata, r->rdc, r->rdd, dtype_get(MPI_BYTE), r->sdata, r->sdc, r->sdd,
                       dtype_get(MPI_BYTE), t->f->comm) < 0)
        return -EIO;
    MPI_Count npieces = 0;
    for (int d = 0; d < t->size; d++)
        npieces += r->scnt[2 * d];
    const char *s = r->sdata;
    for (MPI_Count i = 0; i < npieces; i++) {
        memcpy(packed + r->spos[i], s, (size_t)r->smeta[2 * i + 1]);
        s += r->smeta[2 * i + 1];
    }
    return rc;
}

/* Everybody's range and the agreement on the call, in one allgather: the
 * largest argument error class (*cls in and out) and errno (rc, of packing
 * and walking the view) of all; 0 with *indep when each process is to do its
 * own access, 0 to aggregate (the plan made), or the agreed -errno. */
static int io_tp_plan(io_tp_t *t, int write, int rc, int *cls, int *indep)
{
    io_file_t *f = t->f;
    const char *mode = f->hints[write ? IO_HINT_ROMIO_CB_WRITE : IO_HINT_ROMIO_CB_READ];
    *indep = 1;
    if (t->size == 1)
        return rc;
    /* (first byte, end, readable, pieces, bytes, class, errno) of every process */
    enum { NI = IO_PLAN_NI };
    long long mine[NI] = {-1, -1, f->can_read, (long long)t->np, 0, *cls, -rc};
    if (t->np > 0) {
        mine[0] = t->pc[0].off;
        mine[1] = t->pc[t->np - 1].off + t->pc[t->np - 1].len;
    }
    for (MPI_Count i = 0; i < t->np; i++)
        mine[4] += t->pc[i].len;
    long long *all = f->plan; /* made at open: nothing here can fail but the exchange */
    dtype_t *ll = dtype_get(MPI_LONG_LONG);
    if (coll_allgather(mine, NI, ll, all, NI, ll, f->comm) < 0)
        return -EIO;
    long long worst_cls = 0, worst_rc = 0;
    for (int i = 0; i < t->size; i++) {
        if (all[NI * i + 5] > worst_cls)
            worst_cls = all[NI * i + 5];
        if (all[NI * i + 6] > worst_rc)
            worst_rc = all[NI * i + 6];
    }
    *cls = (int)worst_cls;
    if (worst_cls || worst_rc || !strcmp(mode, "disable") || f->atomic) {
        /* atomic mode: each access under its own lock */
        return (int)-worst_rc;
    }
    int interleaved = 0, any = 0, readable = 1;
    long long pieces = 0, bytes = 0;
    t->gmin = -1;
    t->gmax = -1;
    for (int i = 0; i < t->size; i++) {
        long long *a = all + NI * i;
        readable &= a[2] != 0;
        pieces += a[3];
        bytes += a[4];
        if (a[0] < 0)
            continue;
        for (int j = 0; j < i && !interleaved; j++)
            interleaved = all[NI * j] >= 0 && a[0] < all[NI * j + 1] && all[NI * j] < a[1];
        if (!any || a[0] < t->gmin)
            t->gmin = a[0];
        if (!any || a[1] > t->gmax)
            t->gmax = a[1];
        any = 1;
    }
    /* a domain with holes is read before it is written */
    if (!any || !readable || (!interleaved && strcmp(mode, "enable")))
        return 0;
    /* All on one host: the processes share one page cache, and each
     * writing its own pieces (one copy) beats funnelling them through
     * aggregators (three copies and a wait for the slowest) unless the
     * pieces are tiny (docs/performance.md). */
    if (strcmp(mode, "enable") && f->nhosts == 1 && pieces > 0 &&
        bytes / pieces >= IO_TP_ONE_HOST_PIECE)
        return 0;
    *indep = 0;
    rc = io_tp_aggregators(t);
    if (rc < 0)
        return rc;
    io_tp_split(t->gmin, t->gmax, t->naggr, io_hint_num(f, IO_HINT_STRIPING_UNIT, 0), &t->base,
                &t->fd_size);
    t->cb = io_hint_num(f, IO_HINT_CB_BUFFER_SIZE, 16777216);
    if (t->cb > (MPI_Offset)1 << 30)
        t->cb = (MPI_Offset)1 << 30; /* the exchange counts are ints */
    return 0;
}

/* rc: this process's error so far (packing); *cls: its argument error
 * class in, everybody's largest out (nothing is done when there is one);
 * *npieces: this process's pieces in the file. */
static int io_tp_run(io_file_t *f, int write, MPI_Offset off, char *packed, MPI_Count n, int rc,
                     int *cls, int *independent, MPI_Count *npieces, MPI_Count *done)
{
    *done = 0;
    io_tp_t t = {.f = f, .size = f->comm->size};
    if (rc == 0 && !*cls)
        rc = io_view_pieces(f, off * f->etype->size, n, &t.pc, &t.np);
    *npieces = t.np;
    /* agree before anything else collective, so nobody is left waiting */
    rc = io_tp_plan(&t, write, rc, cls, independent);
    if (*independent || *cls)
        goto out;
    if ((rc = io_agree(f, rc)) < 0)
        goto out;
    int me_aggr = 0;
    for (int a = 0; a < t.naggr; a++)
        me_aggr |= t.aggr[a] == f->comm->rank;
    MPI_Offset longest = 0;
    for (int a = 0; a < t.naggr; a++) {
        MPI_Offset lo, hi;
        io_tp_domain(&t, a, &lo, &hi);
        if (hi - lo > longest)
            longest = hi - lo;
    }
    MPI_Offset rounds = (longest + t.cb - 1) / t.cb;
    /* a writing aggregator has two windows: one is written behind while the
     * next round fills the other */
    int nwin = write && rounds > 1 ? 2 : 1;
    char *win = me_aggr ? malloc((size_t)t.cb * (size_t)nwin) : NULL;
    int local = me_aggr && !win ? -ENOMEM : 0;
    io_tp_wb_t wb[2] = {{.busy = 0}, {.busy = 0}};
    for (MPI_Offset k = 0; k < rounds; k++) {
        io_tp_round_t r = {0};
        int st = io_tp_round_send(&t, (int)k, packed, write, &r);
        if (st == 0 && write && me_aggr && local == 0) {
            io_tp_wb_t *w = &wb[k % nwin];
            if ((local = io_tp_wb_wait(w)) == 0)
                local = io_tp_round_write(&t, &r, win + (size_t)(k % nwin) * (size_t)t.cb, w);
        } else if (st == 0 && !write) {
            int rr = io_tp_round_read(&t, &r, win, packed);
            if (local == 0)
                local = rr;
        }
        io_tp_round_free(&r);
        /* a failed exchange ends the call everywhere at the same round */
        if ((st = io_agree(f, st)) < 0) {
            local = st;
            break;
        }
    }
    for (int i = 0; i < 2; i++) {
        int e = io_tp_wb_wait(&wb[i]);
        if (local == 0)
            local = e;
    }
    free(win);
    rc = io_agree(f, local);
    MPI_Offset size = 0;
    if (rc == 0 && (write || (rc = io_file_get_size(f, &size)) == 0))
        for (MPI_Count i = 0; i < t.np; i++) {
            /* a read counts what lies before the end of the file */
            if (!write && t.pc[i].off + t.pc[i].len > size) {
                if (t.pc[i].off < size)
                    *done += size - t.pc[i].off;
                break;
            }
            *done += t.pc[i].len;
        }
out:
    free(t.pc);
    free(t.aggr);
    free(t.byrank);
    return rc;
}

/* A collective write not aggregated: each process writes its own pieces.
 * On one host, when they are several, they take turns, one process at a time holding an fcntl
 * lock on a byte far past any data: the kernel serialises buffered
 * writes to one file anyway (the inode lock), and processes contending for
 * it at every piece, more of them than cores, wrote 10-20% slower than
 * the same pieces written in turns (docs/io.md). Waiting in the lock
 * sleeps, so the writing process has a core to itself. One piece is one
 * system call that takes the inode lock once: no turn (it would only add
 * two fcntl calls and a wake-up to every small collective write). Where the
 * file system has no locks the pieces go out at once. */
static int io_tp_write_own(io_file_t *f, MPI_Offset off, const void *buf, MPI_Count count,
                           dtype_t *dt, MPI_Count npieces, MPI_Count *bytes)
{
    int turn = f->nhosts == 1 && f->comm->size > 1 && !f->atomic && npieces > 1 &&
               io_lock(f->fd, F_WRLCK, IO_TURN_BYTE, 1) == 0;
    int rc = io_write(f, off, buf, count, dt, bytes);
    if (turn)
        io_lock(f->fd, F_UNLCK, IO_TURN_BYTE, 1);
    return rc;
}

int io_write_all(io_file_t *f, MPI_Offset off, const void *buf, MPI_Count count, dtype_t *dt,
                 MPI_Count *bytes, int *cls)
{
    *bytes = 0;
    /* an aggregator rewrites the holes of its window: this process's own
     * nonblocking writes there must be in the file first */
    io_file_quiesce(f);
    char *src = NULL;
    int owned = 0, independent = 0, rc = 0;
    MPI_Count n = *cls ? 0 : count * dt->size;
    if (n > 0)
        rc = io_mem_pack(f, buf, count, dt, &src, &owned);
    MPI_Count np = 0;
    rc = io_tp_run(f, 1, off, src, n, rc, cls, &independent, &np, bytes);
    if (owned)
        free(src);
    if (rc == 0 && !*cls && independent && n > 0)
        return io_tp_write_own(f, off, buf, count, dt, np, bytes);
    return rc;
}

int io_read_all(io_file_t *f, MPI_Offset off, void *buf, MPI_Count count, dtype_t *dt,
                MPI_Count *bytes, int *cls)
{
    *bytes = 0;
    char *tmp = NULL;
    int owned = 0, independent = 0, rc = 0;
    MPI_Count n = *cls ? 0 : count * dt->size;
    if (n > 0)
        rc = io_mem_buffer(f, buf, count, dt, &tmp, &owned);
    MPI_Count np = 0;
    rc = io_tp_run(f, 0, off, tmp, n, rc, cls, &independent, &np, bytes);
    if (rc == 0 && !*cls && !independent && owned)
        rc = io_mem_unpack(f, buf, count, dt, tmp, *bytes);
    if (owned)
        free(tmp);
    if (rc == 0 && !*cls && independent && n > 0)
        return io_read(f, off, buf, count, dt, bytes);
    return rc;
}
