/* Views and data access. A filetype item is flattened once, at set_view,
 * into its runs (file offset from the item's start, length) merged where
 * they touch, with prefix sums of their data bytes, so view offset -> file
 * byte is a division and a binary search. An access packs the memory side
 * into one buffer (converting it to the view's representation), then walks
 * the runs: writes go out run by run (pieces that meet in the file become
 * one pwrite), reads are sieved through a window of ind_rd_buffer_size bytes
 * when runs are small. In atomic mode the byte range an access spans is held
 * under an fcntl lock for its duration. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_MAX_RUNS ((MPI_Count)1 << 26)

typedef struct io_flat {
    dtype_block_t *b;
    MPI_Count n, cap;
    int err;
} io_flat_t;

static void io_flat_emit(io_flat_t *fl, MPI_Aint off, MPI_Aint len)
{
    if (len <= 0 || fl->err)
        return;
    if (fl->n && fl->b[fl->n - 1].off + fl->b[fl->n - 1].len == off) {
        fl->b[fl->n - 1].len += len;
        return;
    }
    if (fl->n == fl->cap) {
        MPI_Count cap = fl->cap ? fl->cap * 2 : 64;
        dtype_block_t *nb = cap > IO_MAX_RUNS ? NULL : realloc(fl->b, sizeof *nb * (size_t)cap);
        if (!nb) {
            fl->err = -ENOMEM;
            return;
        }
        fl->b = nb;
        fl->cap = cap;
    }
    fl->b[fl->n++] = (dtype_block_t){off, len};
}

static void io_flat_walk(const dtype_t *t, MPI_Aint base, io_flat_t *fl)
{
    if (fl->err || t->size == 0)
        return;
    if (t->kind == DTYPE_LEAF || t->contig) {
        io_flat_emit(fl, base + (t->kind == DTYPE_LEAF ? 0 : t->true_lb), (MPI_Aint)t->size);
        return;
    }
    if (t->kind == DTYPE_VECTOR) {
        const dtype_t *c = t->child;
        int dense = c->contig && c->extent == (MPI_Aint)c->size;
        for (MPI_Count b = 0; b < t->vcount && !fl->err; b++) {
            MPI_Aint p = base + (MPI_Aint)b * t->vstride;
            if (dense)
                io_flat_emit(fl, p + c->true_lb, (MPI_Aint)(c->size * t->vblen));
            else
                for (MPI_Count k = 0; k < t->vblen && !fl->err; k++)
                    io_flat_walk(c, p + (MPI_Aint)k * c->extent, fl);
        }
        return;
    }
    for (int i = 0; i < t->n && !fl->err; i++)
        for (MPI_Count k = 0; k < t->blens[i] && !fl->err; k++)
            io_flat_walk(t->kids[i], base + t->displs[i] + (MPI_Aint)k * t->kids[i]->extent, fl);
}

int io_view_set(io_file_t *f, MPI_Offset disp, dtype_t *etype, dtype_t *ftype,
                const char *datarep, io_datarep_t *urep, enum io_rep rep)
{
    if (etype->size <= 0 || ftype->size % etype->size)
        return -EINVAL;
    /* the file layout is the memory layout: representations that change
     * sizes would need the filetype rebuilt in file sizes (docs/io.md) */
    if (rep == IO_REP_EXTERNAL32 && (etype->xsize != etype->size || ftype->xsize != ftype->size))
        return -ENOTSUP;
    if (rep == IO_REP_USER && urep->extent) {
        MPI_Aint ext = 0;
        if (etype->basic == MPI_DATATYPE_NULL)
            return -ENOTSUP;
        dtype_t *b = dtype_get(etype->basic);
        if (urep->extent(etype->basic, &ext, urep->state) != MPI_SUCCESS)
            return -EILSEQ;
        if (!b || ext != (MPI_Aint)b->size)
            return -ENOTSUP;
    }
    io_flat_t fl = {0};
    io_flat_walk(ftype, 0, &fl);
    if (fl.err) {
        free(fl.b);
        return fl.err;
    }
    for (MPI_Count i = 0; i < fl.n; i++)
        if (fl.b[i].off < 0 || (i && fl.b[i].off < fl.b[i - 1].off + fl.b[i - 1].len)) {
            free(fl.b);
            return -EINVAL;
        }
    MPI_Count *sum = malloc(sizeof *sum * (size_t)(fl.n + 1));
    if (!sum) {
        free(fl.b);
        return -ENOMEM;
    }
    sum[0] = 0;
    for (MPI_Count i = 0; i < fl.n; i++)
        sum[i + 1] = sum[i] + fl.b[i].len;
    free(f->runs);
    free(f->rsum);
    f->runs = fl.b;
    f->nruns = fl.n;
    f->rsum = sum;
    dtype_addref(etype);
    dtype_addref(ftype);
    dtype_release(f->etype);
    dtype_release(f->ftype);
    f->etype = etype;
    f->ftype = ftype;
    f->disp = disp;
    f->rep = rep;
    f->urep = urep;
    strncpy(f->datarep, datarep, sizeof f->datarep - 1);
    f->datarep[sizeof f->datarep - 1] = 0;
    f->fp = 0;
    return 0;
}

/* Run holding data byte r (0 <= r < filetype size) of an item. */
static MPI_Count io_run_find(const io_file_t *f, MPI_Count r)
{
    MPI_Count lo = 0, hi = f->nruns - 1;
    while (lo < hi) {
        MPI_Count mid = (lo + hi + 1) / 2;
        if (f->rsum[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static MPI_Offset io_data_byte(const io_file_t *f, MPI_Offset d)
{
    MPI_Count fsize = f->ftype->size;
    if (fsize == 0)
        return f->disp;
    MPI_Offset item = d / fsize;
    MPI_Count r = d % fsize, j = io_run_find(f, r);
    return f->disp + item * f->ftype->extent + f->runs[j].off + (r - f->rsum[j]);
}

MPI_Offset io_view_byte(const io_file_t *f, MPI_Offset off)
{
    return io_data_byte(f, off * f->etype->size);
}

MPI_Offset io_view_offset(const io_file_t *f, MPI_Offset byte)
{
    MPI_Count fsize = f->ftype->size, esize = f->etype->size;
    if (byte <= f->disp || fsize == 0)
        return 0;
    MPI_Offset rel = byte - f->disp, fext = f->ftype->extent;
    MPI_Offset item = fext > 0 ? rel / fext : 0, within = fext > 0 ? rel % fext : rel;
    MPI_Offset data = item * fsize;
    for (MPI_Count j = 0; j < f->nruns && f->runs[j].off < within; j++)
        data += f->runs[j].off + f->runs[j].len <= within ? f->runs[j].len : within - f->runs[j].off;
    return (data + esize - 1) / esize;
}

ssize_t io_pio(int fd, int write, char *p, size_t len, MPI_Offset off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write ? pwrite(fd, p + done, len - done, off + (MPI_Offset)done)
                          : pread(fd, p + done, len - done, off + (MPI_Offset)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            if (write)
                return -EIO;
            break; /* end of file */
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* Pieces of at least this many bytes are read and written as they are
 * (unless a read finds its piece in the window already): moving the holes
 * between them too, and for writes under a lock the other writers of those
 * holes wait for, cost more than the calls saved. On one host 4 processes
 * with 32 KiB pieces of shared rows: writes 260-830 MB/s with sieving,
 * 1220-1380 without; reads 640-850 and 1670-2080 (docs/performance.md). */
#define IO_SIEVE_DIRECT 4096

typedef struct io_sieve {
    char *win;          /* made when a small piece first needs it */
    size_t size;        /* 0: no sieving */
    MPI_Offset lo, hi; /* window holds file bytes [lo, hi) */
    MPI_Offset end;    /* last byte the access needs + 1 */
} io_sieve_t;

/* Read file bytes [off, off + len) into p through the window; returns the
 * bytes placed (short at end of file) or -errno. */
static ssize_t io_sieve_read(int fd, io_sieve_t *s, char *p, size_t len, MPI_Offset off)
{
    int inside = s->win && off >= s->lo && off + (MPI_Offset)len <= s->hi;
    if (!s->size || len >= s->size / 2 || (!inside && len >= IO_SIEVE_DIRECT))
        return io_pio(fd, 0, p, len, off);
    if (!s->win && !(s->win = malloc(s->size))) {
        s->size = 0; /* no window: every piece read as it is */
        return io_pio(fd, 0, p, len, off);
    }
    if (!inside) {
        size_t want = s->size;
        if ((MPI_Offset)want > s->end - off)
            want = (size_t)(s->end - off);
        ssize_t n = io_pio(fd, 0, s->win, want, off);
        if (n < 0)
            return n;
        s->lo = off;
        s->hi = off + n;
    }
    size_t have = off + (MPI_Offset)len <= s->hi ? len : (size_t)(s->hi - off);
    memcpy(p, s->win + (off - s->lo), have);
    return (ssize_t)have;
}

/* Walks the file pieces of packed bytes [d, d + n) of the view, runs that
 * meet in the file merged into one piece. A step is one run of one item (or
 * the part of it the access covers); a dense filetype (its one run fills its
 * extent: the default view, any contiguous type) makes the whole access one
 * step, so the walk costs O(1) there and O(runs) through any other view.
 * The steps are counted for the MPI_T counter io_view_steps. */
typedef struct io_walk {
    const io_file_t *f;
    MPI_Offset item, poff, plen;
    MPI_Count r, j, left;
    MPI_Count steps;
    int have, dense;
} io_walk_t;

static _Atomic unsigned long long io_steps;

unsigned long long io_view_steps(void)
{
    return atomic_load_explicit(&io_steps, memory_order_relaxed);
}

static int io_view_dense(const io_file_t *f)
{
    return f->nruns == 1 && f->runs[0].off == 0 && f->runs[0].len == f->ftype->extent;
}

static void io_walk_init(io_walk_t *w, const io_file_t *f, MPI_Offset d, MPI_Count n)
{
    MPI_Count fsize = f->ftype->size;
    *w = (io_walk_t){.f = f, .item = d / fsize, .r = d % fsize, .left = n, .dense = io_view_dense(f)};
    if (!w->dense)
        w->j = io_run_find(f, w->r);
}

static void io_walk_end(const io_walk_t *w)
{
    atomic_fetch_add_explicit(&io_steps, (unsigned long long)w->steps, memory_order_relaxed);
}

static int io_walk_seg(io_walk_t *w, MPI_Offset *off, MPI_Offset *len)
{
    const io_file_t *f = w->f;
    if (w->left == 0)
        return 0;
    w->steps++;
    if (w->dense) {
        /* items back to back, each one run from its start: data byte x is
         * file byte disp + x */
        *off = f->disp + w->item * f->ftype->extent + w->r;
        *len = w->left;
        w->left = 0;
        return 1;
    }
    *off = f->disp + w->item * f->ftype->extent + f->runs[w->j].off + (w->r - f->rsum[w->j]);
    *len = f->rsum[w->j + 1] - w->r;
    if (*len > w->left)
        *len = w->left;
    w->left -= *len;
    w->r += *len;
    if (w->r == f->rsum[w->j + 1] && ++w->j == f->nruns) {
        w->j = 0;
        w->r = 0;
        w->item++;
    }
    return 1;
}

static int io_walk_next(io_walk_t *w, MPI_Offset *off, MPI_Offset *len)
{
    if (!w->have && !io_walk_seg(w, &w->poff, &w->plen))
        return 0;
    *off = w->poff;
    *len = w->plen;
    w->have = 0;
    MPI_Offset o, l;
    while (io_walk_seg(w, &o, &l)) {
        if (o != *off + *len) {
            w->poff = o;
            w->plen = l;
            w->have = 1;
            break;
        }
        *len += l;
    }
    return 1;
}

int io_view_pieces(const io_file_t *f, MPI_Offset d, MPI_Count n, io_piece_t **out, MPI_Count *np)
{
    *out = NULL;
    *np = 0;
    if (n == 0 || f->ftype->size == 0)
        return 0;
    io_walk_t w;
    io_walk_init(&w, f, d, n);
    MPI_Count cap = 0, pos = 0;
    MPI_Offset off, len;
    while (io_walk_next(&w, &off, &len)) {
        if (*np == cap) {
            cap = cap ? 2 * cap : 16;
            io_piece_t *p = realloc(*out, sizeof *p * (size_t)cap);
            if (!p) {
                io_walk_end(&w);
                free(*out);
                *out = NULL;
                return -ENOMEM;
            }
            *out = p;
        }
        (*out)[(*np)++] = (io_piece_t){off, len, pos};
        pos += len;
    }
    io_walk_end(&w);
    return 0;
}

/* Write sieving: small pieces close together are gathered into a window of
 * ind_wr_buffer_size bytes, which is read, overlaid and written back as one
 * range under a write lock (the holes may belong to other writers). */
typedef struct io_wsieve {
    char *win;          /* made when a window first needs filling */
    size_t size;
    MPI_Offset lo, hi;  /* the window spans [lo, hi) */
    io_piece_t *pc;     /* pieces in it: pos is an offset into the caller's buffer */
    MPI_Count np, cap;
    int locked;         /* the caller holds a lock over everything (atomic mode) */
} io_wsieve_t;

static int io_wsieve_flush(int fd, io_wsieve_t *w, const char *p)
{
    if (w->np == 0)
        return 0;
    MPI_Count np = w->np;
    w->np = 0;
    size_t span = (size_t)(w->hi - w->lo);
    MPI_Offset covered = 0;
    for (MPI_Count i = 0; i < np; i++)
        covered += w->pc[i].len;
    int rc = 0;
    if (np > 1 && covered < (MPI_Offset)span) {
        if (!w->win && !(w->win = malloc(w->size)))
            goto one_by_one;
        if (!w->locked && io_lock(fd, F_WRLCK, w->lo, (MPI_Offset)span) < 0)
            goto one_by_one; /* no locks here (an NFS without lockd): no sieving */
        ssize_t m = io_pio(fd, 0, w->win, span, w->lo);
        if (m >= 0) {
            memset(w->win + m, 0, span - (size_t)m);
            for (MPI_Count i = 0; i < np; i++)
                memcpy(w->win + (w->pc[i].off - w->lo), p + w->pc[i].pos, (size_t)w->pc[i].len);
            m = io_pio(fd, 1, w->win, span, w->lo);
        }
        if (!w->locked)
            io_lock(fd, F_UNLCK, w->lo, (MPI_Offset)span);
        return m < 0 ? (int)m : 0;
    }
one_by_one:
    for (MPI_Count i = 0; i < np && rc == 0; i++) {
        ssize_t m = io_pio(fd, 1, (char *)p + w->pc[i].pos, (size_t)w->pc[i].len, w->pc[i].off);
        rc = m < 0 ? (int)m : 0;
    }
    return rc;
}

static int io_wsieve_add(int fd, io_wsieve_t *w, const char *p, MPI_Offset off, MPI_Offset len,
                         MPI_Offset pos)
{
    int rc = 0;
    if (w->np && off + len - w->lo > (MPI_Offset)w->size)
        rc = io_wsieve_flush(fd, w, p);
    if (rc < 0)
        return rc;
    if (len >= (MPI_Offset)w->size / 2 || len >= IO_SIEVE_DIRECT) {
        ssize_t m = io_pio(fd, 1, (char *)p + pos, (size_t)len, off);
        return m < 0 ? (int)m : 0;
    }
    if (w->np == w->cap) {
        MPI_Count cap = w->cap ? 2 * w->cap : 64;
        io_piece_t *pc = realloc(w->pc, sizeof *pc * (size_t)cap);
        if (!pc) {
            rc = io_wsieve_flush(fd, w, p);
            ssize_t m = rc < 0 ? rc : io_pio(fd, 1, (char *)p + pos, (size_t)len, off);
            return m < 0 ? (int)m : 0;
        }
        w->pc = pc;
        w->cap = cap;
    }
    if (w->np == 0)
        w->lo = off;
    w->pc[w->np++] = (io_piece_t){off, len, pos};
    w->hi = off + len;
    return 0;
}

/* Move n packed bytes at view data byte d. */
static int io_access(io_file_t *f, int write, MPI_Offset d, char *p, MPI_Count n, MPI_Count *done)
{
    *done = 0;
    if (f->ftype->size == 0)
        return 0;
    MPI_Offset lo = io_data_byte(f, d), hi = io_data_byte(f, d + n - 1) + 1;
    int rc = 0;
    int sieve_w = write && f->nruns > 1 && f->can_read &&
                  strcmp(f->hints[IO_HINT_ROMIO_DS_WRITE], "disable");
    /* another thread of this process (a nonblocking access) would pass
     * through our fcntl locks, or unlock what we hold */
    int excl = f->atomic || sieve_w;
    if (excl)
        pthread_mutex_lock(&f->mu);
    if (f->atomic && (rc = io_lock(f->fd, write ? F_WRLCK : F_RDLCK, lo, hi - lo)) < 0) {
        pthread_mutex_unlock(&f->mu);
        return rc;
    }
    io_sieve_t s = {.end = hi};
    io_wsieve_t ws = {.locked = f->atomic};
    if (!write && f->nruns > 1 && strcmp(f->hints[IO_HINT_ROMIO_DS_READ], "disable")) {
        s.size = (size_t)strtoll(f->hints[IO_HINT_IND_RD_BUFFER_SIZE], NULL, 10);
    }
    if (sieve_w)
        ws.size = (size_t)strtoll(f->hints[IO_HINT_IND_WR_BUFFER_SIZE], NULL, 10);
    io_walk_t w;
    io_walk_init(&w, f, d, n);
    MPI_Offset off, len, pos = 0;
    while (io_walk_next(&w, &off, &len)) {
        if (write && ws.size) {
            if ((rc = io_wsieve_add(f->fd, &ws, p, off, len, pos)) < 0)
                break;
            pos += len;
            continue;
        }
        ssize_t m = write ? io_pio(f->fd, 1, p + pos, (size_t)len, off)
                          : io_sieve_read(f->fd, &s, p + pos, (size_t)len, off);
        if (m < 0) {
            rc = (int)m;
            break;
        }
        pos += m;
        if (m < len)
            break; /* end of file */
    }
    io_walk_end(&w);
    if (rc == 0 && ws.size)
        rc = io_wsieve_flush(f->fd, &ws, p);
    *done = rc == 0 || !write ? pos : 0;
    free(s.win);
    free(ws.win);
    free(ws.pc);
    if (f->atomic)
        io_lock(f->fd, F_UNLCK, lo, hi - lo);
    if (excl)
        pthread_mutex_unlock(&f->mu);
    return rc;
}

int io_mem_pack(io_file_t *f, const void *buf, MPI_Count count, dtype_t *dt, char **out,
                int *owned)
{
    MPI_Count n = count * dt->size;
    *owned = 0;
    if (f->rep == IO_REP_NATIVE && dtype_is_contig(dt, count)) {
        *out = (char *)buf + dt->true_lb;
        return 0;
    }
    if (f->rep == IO_REP_EXTERNAL32 && dt->xsize != dt->size)
        return -ENOTSUP;
    char *tmp = malloc(n ? (size_t)n : 1);
    if (!tmp)
        return -ENOMEM;
    int rc = 0;
    if (f->rep == IO_REP_EXTERNAL32) {
        if (dtype_ext32_pack(buf, count, dt, tmp) < 0)
            rc = -EILSEQ;
    } else if (f->rep == IO_REP_USER && io_datarep_converts(f->urep, 1)) {
        rc = io_datarep_convert(f->urep, 1, (void *)buf, dt, count, tmp);
    } else
        dtype_pack(buf, count, dt, 0, tmp, (size_t)n);
    if (rc < 0) {
        free(tmp);
        return rc;
    }
    *out = tmp;
    *owned = 1;
    return 0;
}

int io_mem_buffer(io_file_t *f, void *buf, MPI_Count count, dtype_t *dt, char **out, int *owned)
{
    *owned = 0;
    if (f->rep == IO_REP_EXTERNAL32 && dt->xsize != dt->size)
        return -ENOTSUP;
    if (f->rep == IO_REP_NATIVE && dtype_is_contig(dt, count)) {
        *out = (char *)buf + dt->true_lb;
        return 0;
    }
    MPI_Count n = count * dt->size;
    if (!(*out = malloc(n ? (size_t)n : 1)))
        return -ENOMEM;
    *owned = 1;
    return 0;
}

int io_mem_unpack(io_file_t *f, void *buf, MPI_Count count, dtype_t *dt, const char *in,
                  MPI_Count done)
{
    if (done <= 0 || !dt->size)
        return 0;
    MPI_Count items = done / dt->size;
    if (f->rep == IO_REP_EXTERNAL32) {
        if (items && dtype_ext32_unpack(buf, items, dt, in) < 0)
            return -EILSEQ;
    } else if (f->rep == IO_REP_USER && io_datarep_converts(f->urep, 0)) {
        if (items && io_datarep_convert(f->urep, 0, buf, dt, items, (char *)in) < 0)
            return -EILSEQ;
    } else
        dtype_unpack(buf, count, dt, 0, in, (size_t)done);
    return 0;
}

int io_write(io_file_t *f, MPI_Offset off, const void *buf, MPI_Count count, dtype_t *dt,
             MPI_Count *bytes)
{
    *bytes = 0;
    if (count * dt->size == 0)
        return 0;
    char *src;
    int owned;
    int rc = io_mem_pack(f, buf, count, dt, &src, &owned);
    if (rc == 0)
        rc = io_access(f, 1, off * f->etype->size, src, count * dt->size, bytes);
    if (owned)
        free(src);
    return rc;
}

int io_read(io_file_t *f, MPI_Offset off, void *buf, MPI_Count count, dtype_t *dt,
            MPI_Count *bytes)
{
    *bytes = 0;
    if (count * dt->size == 0)
        return 0;
    char *tmp;
    int owned;
    int rc = io_mem_buffer(f, buf, count, dt, &tmp, &owned);
    if (rc < 0)
        return rc;
    rc = io_access(f, 0, off * f->etype->size, tmp, count * dt->size, bytes);
    if (rc == 0 && owned)
        rc = io_mem_unpack(f, buf, count, dt, tmp, *bytes);
    if (owned)
        free(tmp);
    return rc;
}

int io_file_extent(io_file_t *f, dtype_t *dt, MPI_Aint *extent)
{
    *extent = dt->extent;
    if (f->rep == IO_REP_EXTERNAL32 && dt->extent == (MPI_Aint)dt->size)
        *extent = (MPI_Aint)dt->xsize;
    else if (f->rep == IO_REP_USER && f->urep->extent && dt->builtin) {
        if (f->urep->extent(dt->handle, extent, f->urep->state) != MPI_SUCCESS)
            return -EILSEQ;
    }
    return 0;
}
