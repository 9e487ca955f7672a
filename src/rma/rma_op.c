/* One-sided operations as active messages. The origin checks the epoch and
 * the range (from the sizes exchanged at creation), packs its data and
 * sends it in frames of at most proto_am_max() bytes, each naming the
 * packed byte range of the target data it carries; the target rebuilds the
 * target datatype and places, combines or reads that range with the
 * datatype engine. Pieces of an accumulate are cut on element boundaries
 * and the target applies one frame at a time, so every element is updated
 * atomically. Operations that return data (get, get_accumulate,
 * fetch_and_op, compare_and_swap) are requests completed by the answers. */
#include "rma/rma.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* [lo, hi): the bytes of count items of dt relative to where they start. */
static void rma_span(const dtype_t *dt, int64_t count, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    if (count <= 0 || dt->size == 0)
        return;
    int64_t last = (count - 1) * (int64_t)dt->extent;
    *lo = dt->true_lb + (last < 0 ? last : 0);
    *hi = dt->true_ub + (last > 0 ? last : 0);
}

static int rma_is_acc(int kind)
{
    return kind == RMA_OP_ACC || kind == RMA_OP_GACC;
}

int rma_op_check(win_t *w, const rma_args_t *a)
{
    if (!rma_epoch_covers(w, a->target))
        return MPI_ERR_RMA_SYNC;
    MPI_Count tbytes = a->tcount * a->tdt->size;
    int no_op = a->oph == MPI_NO_OP;
    if ((a->kind == RMA_OP_PUT || a->kind == RMA_OP_ACC || (a->kind == RMA_OP_GACC && !no_op)) &&
        a->ocount * a->odt->size != tbytes)
        return MPI_ERR_TYPE;
    if ((a->kind == RMA_OP_GET || a->kind == RMA_OP_GACC) && a->rcount * a->rdt->size != tbytes)
        return MPI_ERR_TYPE;
    if (rma_is_acc(a->kind) && tbytes) {
        /* element-wise: one predefined type on both sides */
        if (a->tdt->basic == MPI_DATATYPE_NULL ||
            (!(a->kind == RMA_OP_GACC && no_op) && a->odt->basic != a->tdt->basic))
            return MPI_ERR_TYPE;
        if (a->op && !a->op->builtin)
            return MPI_ERR_OP; /* MPI-3.1 11.3.4: predefined operations only */
        dtype_t *bt = dtype_get(a->tdt->basic);
        int rc = op_check(a->op, bt);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        int64_t lo, hi, off = (int64_t)a->disp * w->units[a->target];
        rma_span(a->tdt, a->tcount, &lo, &hi);
        if (hi > lo && (a->disp < 0 || off + lo < 0 || off + hi > (int64_t)w->sizes[a->target]))
            return MPI_ERR_RMA_RANGE;
    }
    return MPI_SUCCESS;
}

/* ---- small operations batched per target (rma.h) -------------------------- */

typedef struct rma_batch {
    size_t len; /* bytes in buf: an rma_msg_t header, then the entries; 0: empty */
    size_t cap; /* grows by doubling up to rma_batch_cap() */
    int ordered; /* holds an accumulate: goes in order with the other ordered frames (puts
                    alone may overtake, and be striped over the rails, as a put alone may) */
    unsigned char *buf;
} rma_batch_t;

static size_t rma_batch_cap(void)
{
    size_t m = proto_am_max();
    return m < RMA_BATCH_MAX ? m : RMA_BATCH_MAX;
}

static rm_status_t rma_batch_send(win_t *w, int rank)
{
    rma_batch_t *b = w->batch ? w->batch[rank] : NULL;
    if (!b || !b->len)
        return RM_OK;
    rma_msg_t m = {.kind = RMA_M_BATCH, .win = w->id, .rank = w->rank};
    memcpy(b->buf, &m, sizeof m);
    size_t len = b->len;
    int unordered = !b->ordered;
    b->len = 0;
    b->ordered = 0;
    return proto_am_send(comm_world_rank(w->comm, rank), b->buf, len, unordered);
}

rm_status_t rma_batch_flush(win_t *w, int rank)
{
    if (!w->batch)
        return RM_OK;
    if (rank >= 0)
        return rma_batch_send(w, rank);
    rm_status_t st = RM_OK;
    for (int r = 0; r < w->size; r++) {
        rm_status_t s = rma_batch_send(w, r);
        if (s < 0 && st == RM_OK)
            st = s;
    }
    return st;
}

void rma_batch_free(win_t *w)
{
    if (!w->batch)
        return;
    for (int r = 0; r < w->size; r++) {
        if (w->batch[r])
            free(w->batch[r]->buf);
        free(w->batch[r]);
    }
    free(w->batch);
    w->batch = NULL;
}

/* Queue one operation's frame (header m, then a and b) for rank; 0 when it
 * is not to be batched (too large, or no memory: it is sent alone). */
static int rma_batch_add(win_t *w, int rank, rma_msg_t *m, const void *a, size_t alen,
                         const void *b, size_t blen)
{
    size_t need = sizeof(uint32_t) + sizeof *m + alen + blen, cap = rma_batch_cap();
    if (sizeof *m + alen + blen > RMA_BATCH_OP_MAX || sizeof *m + need > cap)
        return 0;
    if (!w->batch && !(w->batch = calloc((size_t)w->size, sizeof *w->batch)))
        return 0;
    rma_batch_t *bt = w->batch[rank];
    if (!bt) {
        if (!(bt = calloc(1, sizeof *bt)))
            return 0;
        w->batch[rank] = bt;
    }
    if (bt->len && bt->len + need > cap && rma_batch_send(w, rank) < 0)
        return 0; /* the operation goes alone and meets the same failure */
    size_t want = (bt->len ? bt->len : sizeof *m) + need;
    if (want > bt->cap) {
        size_t ncap = bt->cap ? bt->cap : 4096;
        while (ncap < want)
            ncap *= 2;
        if (ncap > cap)
            ncap = cap;
        unsigned char *nb = realloc(bt->buf, ncap);
        if (!nb) {
            if (bt->len)
                rma_batch_send(w, rank); /* keep the order: what waits goes first */
            return 0;
        }
        bt->buf = nb;
        bt->cap = ncap;
    }
    if (!bt->len)
        bt->len = sizeof *m;
    m->win = w->id;
    m->rank = w->rank;
    uint32_t elen = (uint32_t)(need - sizeof(uint32_t));
    unsigned char *p = bt->buf + bt->len;
    memcpy(p, &elen, sizeof elen);
    memcpy(p + sizeof elen, m, sizeof *m);
    if (alen)
        memcpy(p + sizeof elen + sizeof *m, a, alen);
    if (blen)
        memcpy(p + sizeof elen + sizeof *m + alen, b, blen);
    bt->len += need;
    if (m->kind != RMA_M_PUT)
        bt->ordered = 1;
    return 1;
}

rm_status_t rma_send(win_t *w, int rank, rma_msg_t *m, const void *a, size_t alen, const void *b,
                     size_t blen)
{
    rm_status_t bst = rma_batch_flush(w, rank); /* what was queued goes first */
    if (bst < 0)
        return bst;
    m->win = w->id;
    m->rank = w->rank;
    size_t len = sizeof *m + alen + blen;
    unsigned char stack[512], *buf = len <= sizeof stack ? stack : malloc(len);
    if (!buf)
        return RM_ERR_NOMEM;
    memcpy(buf, m, sizeof *m);
    if (alen)
        memcpy(buf + sizeof *m, a, alen);
    if (blen)
        memcpy(buf + sizeof *m + alen, b, blen);
    /* puts, gets and the data of gets are not ordered among themselves by
     * MPI (only accumulates are), so they may overtake each other and be
     * striped over the rails; every synchronisation frame stays ordered
     * and is handed up only after all of them */
    int unordered = m->kind == RMA_M_PUT || m->kind == RMA_M_GET ||
                    (m->kind == RMA_M_DATA && m->op == RMA_DATA_OF_GET);
    rm_status_t st = proto_am_send(comm_world_rank(w->comm, rank), buf, len, unordered);
    if (buf != stack)
        free(buf);
    return st;
}

/* A frame sent from where its data is has been acknowledged (or its
 * channel failed): the memory is the program's again. */
static void rma_zc_sent(void *arg, rm_status_t st)
{
    (void)st; /* a failed channel is reported by the wait that needs it */
    --*(int *)arg;
}

/* Bulk data as PF_AMDATA. Large pieces go from where they are, referenced
 * until acknowledged (`*zc` counts them: every completion at the origin
 * waits for it to drop to 0), small ones are copied. */
static rm_status_t rma_data_send(win_t *w, int rank, int kind, uint64_t off, uint64_t id,
                                 const void *data, size_t n, int copy)
{
    proto_am_data_t d = {.kind = kind, .win = w->id, .rank = w->rank, .off = off, .id = id};
    rm_status_t bst = rma_batch_flush(w, rank); /* what was queued goes first */
    if (bst < 0)
        return bst;
    int ref = !copy && n >= RMA_ZC_MIN;
    int *zc = &w->zc[rank];
    rm_status_t st = proto_am_data_send(comm_world_rank(w->comm, rank), &d, data, n,
                                        ref ? rma_zc_sent : NULL, zc);
    if (st == RM_INPROGRESS) {
        ++*zc;
        st = RM_OK;
    }
    return st;
}

/* A put into contiguous target memory of a window that is not dynamic:
 * pieces of plain data, each landing at its byte offset in the target's
 * part (the origin checked the range; the target checks again). Data of
 * the program's buffer is referenced, not copied, unless a request
 * (MPI_Rput) must complete at once. */
static rm_status_t rma_put_data(win_t *w, const rma_args_t *a, const char *data, int copy,
                                size_t tbytes)
{
    int t = a->target;
    uint64_t off = (uint64_t)(a->disp * (MPI_Aint)w->units[t] + a->tdt->true_lb);
    size_t room = proto_am_max();
    w->dirty[t] = 1;
    for (size_t pos = 0; pos < tbytes; pos += room) {
        size_t n = tbytes - pos < room ? tbytes - pos : room;
        rm_status_t st = rma_data_send(w, t, RMA_D_PUT, off + pos, 0, data + pos, n, copy);
        if (st < 0)
            return st;
    }
    return RM_OK;
}

/* A request for data coming back from the target. */
static request_t *rma_req_new(win_t *w, int target, void *buf, MPI_Count count, dtype_t *dt,
                              size_t bytes)
{
    request_t *r = proto_request_alloc(REQ_RMA);
    if (!r)
        return NULL;
    r->buf = buf;
    r->count = count;
    if ((r->dt = dt))
        dtype_addref(dt);
    r->bytes = bytes;
    r->peer = target;
    r->tag = (int)w->id;
    r->world_peer = comm_world_rank(w->comm, target);
    r->active = 1;
    return r;
}

rm_status_t rma_op_start(win_t *w, const rma_args_t *a, request_t **req)
{
    if (req)
        *req = NULL;
    int t = a->target;
    size_t tbytes = (size_t)(a->tcount * a->tdt->size);
    int answered = a->kind == RMA_OP_GET || a->kind == RMA_OP_GACC || a->kind == RMA_OP_CAS;
    int sends_data = a->kind != RMA_OP_GET && !(a->kind == RMA_OP_GACC && a->oph == MPI_NO_OP);
    if (tbytes) {
        rm_status_t dst = rma_direct(w, a);
        if (dst != RM_ERR_UNSUPPORTED) {
            if (dst >= 0 && req) {
                if (!(*req = rma_req_new(w, t, NULL, 0, NULL, 0)))
                    return RM_ERR_NOMEM;
                (*req)->done = 1;
            }
            return dst;
        }
    }
    size_t tdlen = rma_dtype_enc_len(a->tdt);
    size_t room = proto_am_max();
    if (room < sizeof(rma_msg_t) + tdlen + 64) {
        rm_log_error("rma: the target datatype's description (%zu bytes) does not fit a frame", tdlen);
        return RM_ERR_UNSUPPORTED;
    }
    room -= sizeof(rma_msg_t) + tdlen;
    if (a->kind == RMA_OP_GET)
        room = proto_am_max(); /* the answers are data alone (PF_AMDATA): whole chunks,
                                  which the transport can receive in place */
    size_t elem = 1;
    if (rma_is_acc(a->kind) || a->kind == RMA_OP_CAS) {
        dtype_t *bt = dtype_get(a->tdt->basic);
        elem = bt && bt->size ? (size_t)bt->size : 1;
        if (a->kind == RMA_OP_CAS)
            room /= 2; /* the origin value and the compare value */
    }
    room -= room % elem;

    unsigned char *tdesc = NULL;
    const char *data = NULL;
    void *packed = NULL;
    rm_status_t st = RM_OK;
    request_t *r = NULL;
    if (tdlen && !(tdesc = malloc(tdlen)))
        return RM_ERR_NOMEM;
    if (tdlen)
        rma_dtype_encode(a->tdt, tdesc);
    if (sends_data && tbytes) {
        if (a->kind == RMA_OP_CAS) {
            /* origin value, then compare value: one element each */
            if (!(packed = malloc(2 * tbytes))) {
                st = RM_ERR_NOMEM;
                goto out;
            }
            memcpy(packed, a->obuf, tbytes);
            memcpy((char *)packed + tbytes, a->cbuf, tbytes);
            data = packed;
        } else if (dtype_is_contig(a->odt, a->ocount)) {
            data = (const char *)a->obuf + a->odt->true_lb;
        } else {
            if (!(packed = malloc(tbytes))) {
                st = RM_ERR_NOMEM;
                goto out;
            }
            dtype_pack(a->obuf, a->ocount, a->odt, 0, packed, tbytes);
            data = packed;
        }
    }
    /* a small put or accumulate waits in the target's batch, and so does the
     * request of a small get (not an Rget's: its request may be waited for
     * before any synchronisation, and the batch goes only at one) */
    int batch = (a->kind == RMA_OP_PUT || a->kind == RMA_OP_ACC || (a->kind == RMA_OP_GET && !req)) &&
                tbytes && sizeof(rma_msg_t) + tdlen + tbytes <= RMA_BATCH_OP_MAX;
    if (a->kind == RMA_OP_PUT && tbytes && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && !batch &&
        dtype_is_contig(a->tdt, a->tcount)) {
        st = rma_put_data(w, a, data, packed != NULL || req != NULL, tbytes);
        if (st >= 0 && req) {
            if (!(r = rma_req_new(w, t, NULL, 0, NULL, 0)))
                st = RM_ERR_NOMEM;
            else
                r->done = 1;
        }
        goto out;
    }
    if (answered) {
        void *rb = a->rbuf;
        MPI_Count rc = a->rcount;
        dtype_t *rdt = a->rdt;
        if (!(r = rma_req_new(w, t, rb, rc, rdt, tbytes))) {
            st = RM_ERR_NOMEM;
            goto out;
        }
    } else if (req) {
        /* complete at the origin as soon as the data is copied out */
        if (!(r = rma_req_new(w, t, NULL, 0, NULL, 0))) {
            st = RM_ERR_NOMEM;
            goto out;
        }
    }
    static const uint8_t kinds[] = {0, RMA_M_PUT, RMA_M_GET, RMA_M_ACC, RMA_M_GACC, RMA_M_CAS};
    if (answered && tbytes) {
        r->refs++; /* in flight until the last answer */
        w->pending[t]++;
    }
    w->dirty[t] = 1;
    for (size_t pos = 0; pos < tbytes; pos += room) {
        size_t n = tbytes - pos < room ? tbytes - pos : room;
        rma_msg_t m = {.kind = kinds[a->kind],
                       .tdlen = (uint16_t)tdlen,
                       .op = a->oph,
                       .tdt = a->tdt->builtin ? a->tdt->handle : MPI_DATATYPE_NULL,
                       .disp = (uint64_t)(w->flavor == MPI_WIN_FLAVOR_DYNAMIC
                                              ? a->disp
                                              : a->disp * (MPI_Aint)w->units[t]),
                       .tcount = a->tcount,
                       .pos = pos,
                       .bytes = n,
                       .id = r && answered ? r->id : 0};
        if (batch && pos == 0 && n == tbytes && rma_batch_add(w, t, &m, tdesc, tdlen, data, data ? n : 0))
            break;
        st = rma_send(w, t, &m, tdesc, tdlen, data ? data + pos : NULL,
                      data ? (a->kind == RMA_OP_CAS ? 2 * n : n) : 0);
        if (st < 0)
            break;
    }
    if (st < 0 && answered && tbytes) {
        /* what was sent may still be answered; the rest never will be */
        r->err = st;
        w->pending[t]--;
        proto_request_complete(r);
    }
    if (r && (!answered || !tbytes))
        r->done = 1;
out:
    free(tdesc);
    free(packed);
    if (r) {
        if (req && st >= 0)
            *req = r;
        else
            proto_request_release(r);
    }
    return st;
}

/* ---- the target side ---------------------------------------------------- */

static void rma_answer(win_t *w, int rank, uint64_t id, uint64_t pos, int status, const void *data,
                       size_t len, int of_get)
{
    rma_msg_t m = {.kind = RMA_M_DATA, .status = status, .id = id, .pos = pos, .bytes = len,
                   .op = of_get ? RMA_DATA_OF_GET : 0};
    if (rma_send(w, rank, &m, NULL, 0, data, status == MPI_SUCCESS ? len : 0) < 0)
        rm_log_debug("rma: the answer to rank %d cannot go (its channel failed)", rank);
}

/* Combined as whole elements of the basic type (pair types are laid out
 * as their structs for the kernels). */
int rma_acc_apply(char *mem, MPI_Op oph, int64_t tcount, const dtype_t *tdt, size_t pos,
                  size_t bytes, const void *in, void *old)
{
    dtype_t *bt = dtype_get(tdt->basic);
    op_t *op = op_get(oph);
    if (!bt || !op || !bt->size)
        return MPI_ERR_TYPE;
    MPI_Count n = (MPI_Count)(bytes / (size_t)bt->size);
    size_t span = (size_t)n * (size_t)bt->extent;
    char *cur = malloc(bytes + 2 * span + 1);
    if (!cur)
        return MPI_ERR_NO_MEM;
    char *tv = cur + bytes, *ov = tv + span;
    dtype_pack(mem, tcount, tdt, pos, cur, bytes);
    if (old)
        memcpy(old, cur, bytes);
    int rc = MPI_SUCCESS;
    if (oph != MPI_NO_OP) {
        dtype_unpack(tv, n, bt, 0, cur, bytes);
        dtype_unpack(ov, n, bt, 0, in, bytes);
        if ((rc = op_apply(op, ov, tv, n, bt)) == MPI_SUCCESS) {
            dtype_pack(tv, n, bt, 0, cur, bytes);
            dtype_unpack(mem, tcount, tdt, pos, cur, bytes);
        }
    }
    free(cur);
    return rc;
}

static int rma_combine(char *mem, const rma_msg_t *m, const dtype_t *tdt, const void *in,
                       void *old)
{
    return rma_acc_apply(mem, m->op, m->tcount, tdt, (size_t)m->pos, (size_t)m->bytes, in, old);
}

static void rma_target_op(win_t *w, const rma_msg_t *m, const unsigned char *tdesc,
                          const unsigned char *data)
{
    dtype_t *tdt = NULL;
    if (m->tdlen)
        tdt = rma_dtype_decode(tdesc, m->tdlen);
    else if ((tdt = dtype_get(m->tdt)))
        dtype_addref(tdt);
    int rc = MPI_SUCCESS;
    char *mem = NULL;
    void *tmp = NULL;
    size_t bytes = (size_t)m->bytes;
    if (!tdt) {
        rc = MPI_ERR_TYPE;
    } else {
        int64_t lo, hi;
        rma_span(tdt, m->tcount, &lo, &hi);
        if (m->pos + bytes > (uint64_t)(m->tcount * tdt->size) ||
            !(mem = rma_win_target_mem(w, m->disp, lo, hi)))
            rc = MPI_ERR_RMA_RANGE;
    }
    if (rc == MPI_SUCCESS && m->kind == RMA_M_GET) {
        /* plain data, sent from the window when contiguous there */
        const char *src = NULL;
        if (dtype_is_contig(tdt, m->tcount))
            src = mem + tdt->true_lb + m->pos;
        else if ((tmp = malloc(bytes ? bytes : 1)))
            dtype_pack(mem, m->tcount, tdt, (size_t)m->pos, tmp, bytes);
        else
            rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            if (rma_data_send(w, m->rank, RMA_D_GET, m->pos, m->id, src ? src : tmp, bytes, !src) < 0)
                rm_log_debug("rma: the answer to rank %d cannot go (its channel failed)", m->rank);
            free(tmp);
            dtype_release(tdt);
            return;
        }
    }
    if (rc == MPI_SUCCESS && m->kind != RMA_M_PUT && m->kind != RMA_M_ACC &&
        !(tmp = malloc(bytes ? bytes : 1)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        switch (m->kind) {
        case RMA_M_PUT:
            dtype_unpack(mem, m->tcount, tdt, (size_t)m->pos, data, bytes);
            break;
        case RMA_M_GET:
            dtype_pack(mem, m->tcount, tdt, (size_t)m->pos, tmp, bytes);
            break;
        case RMA_M_ACC:
            if (m->op == MPI_REPLACE)
                dtype_unpack(mem, m->tcount, tdt, (size_t)m->pos, data, bytes);
            else
                rc = rma_combine(mem, m, tdt, data, NULL);
            break;
        case RMA_M_GACC:
            rc = rma_combine(mem, m, tdt, data, tmp);
            break;
        case RMA_M_CAS:
            dtype_pack(mem, m->tcount, tdt, (size_t)m->pos, tmp, bytes);
            if (!memcmp(tmp, data + bytes, bytes))
                dtype_unpack(mem, m->tcount, tdt, (size_t)m->pos, data, bytes);
            break;
        }
    }
    if (rc != MPI_SUCCESS)
        rm_log_debug("rma: window %u: operation %d from rank %d refused (error class %d)", w->id,
                     m->kind, m->rank, rc);
    if (m->id || rc != MPI_SUCCESS)
        rma_answer(w, m->rank, m->id, m->pos, rc, tmp, bytes, m->kind == RMA_M_GET);
    free(tmp);
    if (tdt)
        dtype_release(tdt);
}

/* Where a get's data at `pos` goes when it lands in place: NULL unless the
 * request is live and its buffer contiguous. */
static char *rma_get_dest(request_t *r, uint64_t pos, size_t len)
{
    if (!r || r->done || r->kind != REQ_RMA || !r->dt || !dtype_is_contig(r->dt, r->count) ||
        pos > r->bytes || len > r->bytes - pos)
        return NULL;
    return (char *)r->buf + r->dt->true_lb + pos;
}

/* Data (or a refusal) back at the origin. */
static void rma_origin_data(win_t *w, const rma_msg_t *m, const unsigned char *data)
{
    if (m->status != MPI_SUCCESS && !w->err)
        w->err = m->status;
    if (!m->id)
        return;
    request_t *r = proto_request_by_id(m->id);
    if (!r || r->done || r->kind != REQ_RMA)
        return;
    if (m->status == MPI_SUCCESS && (const void *)data != rma_get_dest(r, m->pos, (size_t)m->bytes))
        dtype_unpack(r->buf, r->count, r->dt, (size_t)m->pos, data, (size_t)m->bytes);
    else
        r->err = RM_ERR_INVALID;
    r->done_bytes += (size_t)m->bytes;
    if (r->done_bytes >= r->bytes) {
        w->pending[r->peer]--;
        proto_request_complete(r);
    }
}

void rma_am_recv(int world_src, const void *payload, size_t len)
{
    rma_msg_t m;
    if (len < sizeof m) {
        rm_log_error("rma: short frame (%zu bytes) from rank %d", len, world_src);
        return;
    }
    memcpy(&m, payload, sizeof m);
    win_t *w = rma_win_by_id(m.win);
    if (!w || m.rank < 0 || m.rank >= w->size || len < sizeof m + m.tdlen) {
        if (!w && rma_win_was_revoked(m.win))
            rm_log_debug("rma: frame for revoked window %u, freed here, from rank %d", m.win, world_src);
        else
            rm_log_error("rma: frame for no window here (%u) from rank %d", m.win, world_src);
        return;
    }
    const unsigned char *p = (const unsigned char *)payload + sizeof m;
    switch (m.kind) {
    case RMA_M_PUT:
    case RMA_M_ACC:
    case RMA_M_GACC:
    case RMA_M_CAS: {
        size_t want = m.kind == RMA_M_CAS ? 2 * m.bytes : m.bytes;
        if (m.kind == RMA_M_GACC && m.op == MPI_NO_OP)
            want = 0;
        if (len < sizeof m + m.tdlen + want) {
            rm_log_error("rma: truncated operation from rank %d", world_src);
            return;
        }
        rma_target_op(w, &m, p, p + m.tdlen);
        return;
    }
    case RMA_M_GET:
        rma_target_op(w, &m, p, NULL);
        return;
    case RMA_M_BATCH: {
        /* each entry as if it had come alone, in order */
        const unsigned char *end = (const unsigned char *)payload + len;
        while (p < end) {
            uint32_t elen;
            if ((size_t)(end - p) < sizeof elen + sizeof m) {
                rm_log_error("rma: truncated batch from rank %d", world_src);
                return;
            }
            memcpy(&elen, p, sizeof elen);
            p += sizeof elen;
            if (elen < sizeof m || elen > (size_t)(end - p) || p[0] == RMA_M_BATCH) {
                rm_log_error("rma: malformed batch from rank %d", world_src);
                return;
            }
            rma_am_recv(world_src, p, elen);
            p += elen;
        }
        return;
    }
    case RMA_M_DATA:
        if (m.status == MPI_SUCCESS && len < sizeof m + m.bytes)
            return;
        rma_origin_data(w, &m, p);
        return;
    default:
        rma_sync_recv(w, &m);
    }
}

/* ---- bulk data (PF_AMDATA) ----------------------------------------------- */

static win_t *rma_data_win(int world_src, const proto_am_data_t *d)
{
    win_t *w = rma_win_by_id(d->win);
    if (!w || d->rank < 0 || d->rank >= w->size) {
        if (!w && rma_win_was_revoked(d->win))
            rm_log_debug("rma: data for revoked window %u, freed here, from rank %d", d->win, world_src);
        else
            rm_log_error("rma: data for no window here (%u) from rank %d", d->win, world_src);
        return NULL;
    }
    return w;
}

void *rma_am_data_locate(int world_src, const proto_am_data_t *d, size_t len)
{
    win_t *w = rma_win_by_id(d->win);
    if (!w || d->rank < 0 || d->rank >= w->size)
        return NULL;
    (void)world_src;
    if (d->kind == RMA_D_PUT)
        return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : rma_win_target_mem(w, d->off, 0, (int64_t)len);
    if (d->kind == RMA_D_GET)
        return rma_get_dest(proto_request_by_id(d->id), d->off, len);
    return NULL;
}

void rma_am_data_recv(int world_src, const proto_am_data_t *d, const void *payload, size_t len)
{
    win_t *w = rma_data_win(world_src, d);
    if (!w)
        return;
    if (d->kind == RMA_D_PUT) {
        char *mem = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : rma_win_target_mem(w, d->off, 0, (int64_t)len);
        if (!mem) {
            rm_log_debug("rma: window %u: put from rank %d refused (outside the window)", w->id, d->rank);
            rma_answer(w, d->rank, 0, 0, MPI_ERR_RMA_RANGE, NULL, 0, 1);
        } else if (mem != payload) { /* else it landed in place */
            memcpy(mem, payload, len);
        }
        return;
    }
    if (d->kind == RMA_D_GET) {
        rma_msg_t m = {.kind = RMA_M_DATA, .status = MPI_SUCCESS, .id = d->id, .pos = d->off, .bytes = len};
        rma_origin_data(w, &m, payload);
        return;
    }
    rm_log_error("rma: data of unknown kind %d from rank %d", d->kind, world_src);
}
