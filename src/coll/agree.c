/* Collectives that tolerate process failures (docs/ulfm.md): agreement
 * (MPIX_Comm_agree) and shrink (MPIX_Comm_shrink), on intracommunicators.
 *
 * The agreement combines a vector of words from every live member and
 * hands the same result to every survivor, even when members (the
 * coordinator included) die during it:
 *  - the coordinator is the lowest rank not known dead; every other member
 *    sends it its vector (again to the next one if it dies: deaths are
 *    known from the launcher, never guessed, so two live coordinators never
 *    decide at once);
 *  - the coordinator waits for the vector of every member not dead, combines
 *    what came, and sends the result to every member;
 *  - every member that gets a result sends it on to every member before it
 *    returns. A coordinator that dies half-way through its sends leaves the
 *    result with some survivors, and they pass it to all the others, which
 *    take the first result they receive, whoever sent it; if no survivor got
 *    it, none returned, and the next coordinator decides afresh.
 *  - so every member sends the result once to every other: each member
 *    receives it from every other member (a receive per member, which a
 *    death ends), and returns only when all have come. No copy is left
 *    over in the unexpected queue (a receive from any source that took the
 *    first copy left the others there, one per member and agreement).
 * Members whose vector the coordinator waited for and never got (they died
 * during it) are marked in the result; the caller's `finish` adds to the
 * result what the coordinator knows when it decides (the deaths it knows of
 * by then), so that a death noticed by the coordinator alone still counts.
 * Messages: O(n) to the coordinator, O(n^2) to pass the result on; the
 * tags are the communicator's own (ft_agree_seq) on its collective
 * context, in the range deaths and revokes leave alone (PROTO_FT_TAG_MIN).
 *
 * Shrink agrees on the set of dead members (OR of what each knows, plus
 * those whose vector never came), then on a context id through the usual
 * context-id agreement (src/comm/ctxid.c) with this agreement as its
 * exchange (AND), and builds the survivors' communicator from those. */
#include "coll/coll.h"
#include "comm/ctxid.h"
#include "dtype/dtype.h"
#include "proto/proto.h"
#include "util/lock.h"

#include <stdlib.h>
#include <string.h>

/* acc := acc combined with in (n words) */
typedef void (*agree_combine_fn)(uint32_t *acc, const uint32_t *in, int n);

static void agree_and(uint32_t *acc, const uint32_t *in, int n)
{
    for (int i = 0; i < n; i++)
        acc[i] &= in[i];
}

static void agree_or(uint32_t *acc, const uint32_t *in, int n)
{
    for (int i = 0; i < n; i++)
        acc[i] |= in[i];
}

static int agree_dead(const comm_t *c, int r)
{
    return proto_ft_failed(comm_world_rank(c, r));
}

static void agree_drop(request_t **r)
{
    if (!*r)
        return;
    if (!(*r)->done)
        proto_cancel(*r); /* a posted receive nothing matched */
    proto_request_release(*r);
    *r = NULL;
}

/* buf: this member's vector in (n words), the agreed result out, followed
 * by ceil(size/32) words with a bit for each member whose vector the
 * deciding coordinator did not get (dead): the caller sizes buf for both. */
/* the coordinator's last word on the result, as it decides (may be NULL) */
typedef void (*agree_finish_fn)(comm_t *c, uint32_t *res, int n);

/* One agreement in progress. buf: this member's vector in (n words), the
 * agreed result out, followed by ceil(size/32) words with a bit for each
 * member whose vector the deciding coordinator waited for and did not get
 * (dead): the caller sizes buf for both. */
typedef struct agree_op {
    comm_t *c;
    uint32_t *buf;
    int n, len, size, me, tag_v, tag_r, sent_to, decided;
    uint32_t ctx;
    agree_combine_fn combine;
    agree_finish_fn finish;
    uint32_t *vec, *res, *got, *in; /* the sends' buffers live until they complete */
    request_t **vreq, **freq, **rreq, *sreq; /* by member: vectors, results sent, results received */
    rm_status_t st;
} agree_op_t;

/* A receive or send of the agreement was posted (*r its request): one with
 * a peer that is gone completes with the failure (the agreement goes on
 * without it); only no request at all (no memory) is the agreement's. */
static rm_status_t agree_post(rm_status_t st, request_t *const *r)
{
    return st < 0 && !*r ? st : RM_OK;
}

static void agree_begin(agree_op_t *a, comm_t *c, uint32_t *buf, int n, agree_combine_fn combine,
                        agree_finish_fn finish)
{
    memset(a, 0, sizeof *a);
    a->c = c;
    a->buf = buf;
    a->n = n;
    a->size = c->size;
    a->me = c->rank;
    a->len = n + (c->size + 31) / 32;
    uint32_t seq = c->ft_agree_seq++;
    a->tag_v = PROTO_FT_TAG_MIN + (int)((seq & 0x3fffffu) << 2);
    a->tag_r = a->tag_v + 1;
    a->ctx = c->ctx + 1;
    a->combine = combine;
    a->finish = finish;
    a->sent_to = -1;
    a->vec = calloc((size_t)a->len, sizeof *a->vec);
    a->res = calloc((size_t)a->len, sizeof *a->res);
    a->got = calloc((size_t)a->size * (size_t)a->len, sizeof *a->got);
    a->rreq = calloc((size_t)a->size, sizeof *a->rreq);
    a->in = calloc((size_t)a->size * (size_t)a->len, sizeof *a->in);
    a->vreq = calloc((size_t)a->size, sizeof *a->vreq);
    a->freq = calloc((size_t)a->size, sizeof *a->freq);
    a->st = !a->vec || !a->res || !a->got || !a->in || !a->vreq || !a->freq || !a->rreq ? RM_ERR_NOMEM : RM_OK;
    if (a->st == RM_OK)
        memcpy(a->vec, buf, sizeof *a->vec * (size_t)n);
    for (int r = 0; r < a->size && a->st == RM_OK; r++)
        if (r != a->me)
            a->st = agree_post(proto_irecv(&a->got[(size_t)r * (size_t)a->len], a->len, dtype_get(MPI_UINT32_T), r,
                                           a->tag_r, c, a->ctx, &a->rreq[r]),
                               &a->rreq[r]);
}

/* As far as it goes without waiting; 1 once decided (or failed: a->st). */
static int agree_step(agree_op_t *a)
{
    comm_t *c = a->c;
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    int n = a->n, len = a->len;
    while (a->st >= 0 && !a->decided) {
        for (int r = 0; r < a->size && !a->decided; r++)
            if (a->rreq[r] && a->rreq[r]->done && a->rreq[r]->err >= 0) {
                memcpy(a->res, &a->got[(size_t)r * (size_t)len], sizeof *a->res * (size_t)len);
                a->decided = 1;
            }
        if (a->decided)
            break;
        int coord = 0;
        while (coord < a->size && agree_dead(c, coord))
            coord++;
        if (coord == a->me) {
            int pending = 0;
            for (int r = 0; r < a->size && a->st >= 0; r++) {
                if (r == a->me)
                    continue;
                if (!a->vreq[r] && !agree_dead(c, r))
                    a->st = agree_post(proto_irecv(&a->in[(size_t)r * (size_t)len], n, u32, r, a->tag_v, c, a->ctx,
                                                   &a->vreq[r]),
                                       &a->vreq[r]);
                /* a receive from a member that dies ends with the failure */
                pending += a->vreq[r] && !a->vreq[r]->done;
            }
            if (a->st < 0 || pending)
                return a->st < 0;
            memcpy(a->res, a->vec, sizeof *a->res * (size_t)n);
            memset(a->res + n, 0, sizeof *a->res * (size_t)(len - n));
            for (int r = 0; r < a->size; r++) {
                if (r == a->me)
                    continue;
                if (a->vreq[r] && a->vreq[r]->err >= 0)
                    a->combine(a->res, &a->in[(size_t)r * (size_t)len], n);
                else if (a->vreq[r])
                    a->res[n + r / 32] |= 1u << (r % 32); /* it died while we waited */
            }
            if (a->finish)
                a->finish(c, a->res, n);
            a->decided = 1;
            break;
        }
        if (a->sent_to == coord)
            return 0;
        if (a->sreq)
            proto_request_release(a->sreq);
        a->sreq = NULL;
        a->st = agree_post(proto_isend(a->vec, n, u32, coord, a->tag_v, c, a->ctx, PROTO_STD, &a->sreq), &a->sreq);
        a->sent_to = coord;
    }
    return 1;
}

/* Decided: the result goes on to every member (whoever holds it makes sure
 * no survivor waits for a coordinator that died sending it) and into buf;
 * what was posted and nothing matched is withdrawn. */
static void agree_pass_on(agree_op_t *a)
{
    comm_t *c = a->c;
    if (a->st >= 0) {
        for (int r = 0; r < a->size; r++)
            if (r != a->me && !agree_dead(c, r))
                proto_isend(a->res, a->len, dtype_get(MPI_UINT32_T), r, a->tag_r, c, a->ctx, PROTO_STD,
                            &a->freq[r]); /* a peer that died meanwhile: the send fails, no matter */
        memcpy(a->buf, a->res, sizeof *a->res * (size_t)a->len);
    }
    for (int r = 0; a->vreq && r < a->size; r++)
        agree_drop(&a->vreq[r]);
}

/* Every send of the agreement has completed (its buffer may go), and every
 * other member's copy of the result has come (or that member died). */
static int agree_sent(const agree_op_t *a)
{
    if (a->sreq && !a->sreq->done)
        return 0;
    for (int r = 0; a->rreq && r < a->size; r++)
        if (a->rreq[r] && !a->rreq[r]->done)
            return 0;
    for (int r = 0; a->freq && r < a->size; r++)
        if (a->freq[r] && !a->freq[r]->done)
            return 0;
    return 1;
}

static rm_status_t agree_free(agree_op_t *a)
{
    if (a->sreq)
        proto_request_release(a->sreq);
    for (int r = 0; a->freq && r < a->size; r++)
        if (a->freq[r])
            proto_request_release(a->freq[r]);
    for (int r = 0; a->rreq && r < a->size; r++)
        agree_drop(&a->rreq[r]);
    free(a->rreq);
    free(a->freq);
    free(a->vreq);
    free(a->in);
    free(a->got);
    free(a->res);
    free(a->vec);
    return a->st;
}

static rm_status_t agree_run(comm_t *c, uint32_t *buf, int n, agree_combine_fn combine, agree_finish_fn finish)
{
    agree_op_t a;
    agree_begin(&a, c, buf, n, combine, finish);
    int idle = 0, passed = 0;
    for (;;) {
        if (!passed && agree_step(&a)) {
            agree_pass_on(&a);
            passed = 1;
        }
        if (passed && agree_sent(&a))
            break;
        if (proto_progress())
            idle = 0;
        else if (proto_idle_due(&idle))
            rm_lock_yield();
    }
    return agree_free(&a);
}

/* Whether this member knows of a death on c it has not acknowledged. */
static int agree_unacked(const comm_t *c)
{
    return proto_ft_comm_nfailed(c, proto_ft_nfailed) > proto_ft_comm_nfailed(c, c->ft_acked);
}

static void agree_finish(comm_t *c, uint32_t *res, int n)
{
    (void)n;
    if (agree_unacked(c))
        res[1] = 0;
}

/* The agreement's vector of this member: the flag (AND) and whether it
 * knows of a failure on c it has not acknowledged (OR, as the flag's
 * complement); then room for the dead members' bits. NULL: no memory. */
static uint32_t *agree_vector(comm_t *c, int flag)
{
    uint32_t *v = calloc((size_t)(2 + (c->size + 31) / 32), sizeof *v);
    if (v) {
        v[0] = (uint32_t)flag;
        v[1] = agree_unacked(c) ? 0u : ~0u;
    }
    return v;
}

/* The agreed flag, and RM_ERR_PROC_FAILED when a member died in it or one
 * knew of a failure not acknowledged. */
static rm_status_t agree_outcome(const comm_t *c, const uint32_t *v, int *flag)
{
    *flag = (int)v[0];
    int missing = 0;
    for (int i = 0; i < (c->size + 31) / 32; i++)
        missing |= v[2 + i] != 0;
    return missing || v[1] != ~0u ? RM_ERR_PROC_FAILED : RM_OK;
}

rm_status_t coll_agree(comm_t *c, int *flag)
{
    if (comm_is_inter(c))
        return RM_ERR_UNSUPPORTED;
    uint32_t *v = agree_vector(c, *flag);
    if (!v)
        return RM_ERR_NOMEM;
    rm_status_t st = agree_run(c, v, 2, agree_and, agree_finish);
    if (st >= 0)
        st = agree_outcome(c, v, flag);
    free(v);
    return st;
}

static rm_status_t agree_and_exchange(uint32_t *buf, void *arg)
{
    comm_t *c = arg;
    int mw = (c->size + 31) / 32;
    uint32_t *v = malloc(sizeof *v * (size_t)(CTXID_LEN + mw));
    if (!v)
        return RM_ERR_NOMEM;
    memcpy(v, buf, sizeof *v * CTXID_LEN);
    rm_status_t st = agree_run(c, v, CTXID_LEN, agree_and, NULL);
    if (st >= 0)
        memcpy(buf, v, sizeof *v * CTXID_LEN);
    free(v);
    return st;
}

static void shrink_finish(comm_t *c, uint32_t *res, int n)
{
    (void)n;
    for (int r = 0; r < c->size; r++)
        if (agree_dead(c, r))
            res[r / 32] |= 1u << (r % 32);
}

/* Shrink's first vector: the members this one knows dead. */
static uint32_t *shrink_vector(comm_t *c)
{
    int mw = (c->size + 31) / 32;
    uint32_t *v = calloc((size_t)(2 * mw), sizeof *v);
    for (int r = 0; v && r < c->size; r++)
        if (agree_dead(c, r))
            v[r / 32] |= 1u << (r % 32);
    return v;
}

/* The survivors' group from the agreed dead (and those that died in it). */
static group_t *shrink_group(comm_t *c, uint32_t *v)
{
    int size = c->size, mw = (size + 31) / 32, alive = 0;
    for (int r = 0; r < size; r++) {
        if ((v[mw + r / 32] >> (r % 32)) & 1)
            v[r / 32] |= 1u << (r % 32);
        alive += !((v[r / 32] >> (r % 32)) & 1);
    }
    group_t *g = group_new(alive, 0);
    for (int r = 0, k = 0; g && r < size; r++)
        if (!((v[r / 32] >> (r % 32)) & 1))
            g->world[k++] = comm_world_rank(c, r);
    return g;
}

rm_status_t coll_shrink(comm_t *c, comm_t **out)
{
    *out = NULL;
    if (comm_is_inter(c))
        return RM_ERR_UNSUPPORTED;
    proto_progress(); /* deaths the launcher has listed count */
    uint32_t *v = shrink_vector(c);
    if (!v)
        return RM_ERR_NOMEM;
    rm_status_t st = agree_run(c, v, (c->size + 31) / 32, agree_or, shrink_finish);
    group_t *g = st >= 0 ? shrink_group(c, v) : NULL;
    if (st >= 0 && !g)
        st = RM_ERR_NOMEM;
    free(v);
    int id;
    if (st >= 0)
        st = ctxid_agree(ctxid_key_next(c), 1, 1, agree_and_exchange, c, &id);
    if (st >= 0)
        st = comm_create_with_id(c, g, id, out);
    if (st < 0 && g)
        group_release(g);
    return st;
}

/* ---- nonblocking: MPIX_Comm_iagree, MPIX_Comm_ishrink ------------------- */

/* One of them in progress, advanced by progress (proto_poll_add); its
 * request completes with the status in gstate, as a nonblocking
 * collective's. */
typedef struct agree_nb {
    comm_t *c;
    request_t *req;
    agree_op_t a;
    int running, passed; /* an agreement is under way, its result passed on */
    uint32_t *v;
    int *flag;           /* iagree: the caller's flag, written at the end */
    MPI_Comm *newcomm;   /* ishrink: the caller's handle, written at the end */
    int phase;           /* ishrink: 0 the dead, 1 context-id rounds */
    group_t *g;
    ctxid_agree_t ca;
    uint32_t *cbuf;      /* a round's offer, then its AND (and the dead members' bits) */
} agree_nb_t;

/* Advance its running agreement; 1 once over (status in nb->a.st). */
static int agree_nb_advance(agree_nb_t *nb)
{
    if (!nb->passed) {
        if (!agree_step(&nb->a))
            return 0;
        agree_pass_on(&nb->a);
        nb->passed = 1;
    }
    if (!agree_sent(&nb->a))
        return 0;
    agree_free(&nb->a);
    nb->running = 0;
    return 1;
}

static void agree_nb_start(agree_nb_t *nb, uint32_t *buf, int n, agree_combine_fn combine, agree_finish_fn finish)
{
    agree_begin(&nb->a, nb->c, buf, n, combine, finish);
    nb->running = 1;
    nb->passed = 0;
}

static void agree_nb_end(agree_nb_t *nb, rm_status_t st)
{
    request_t *r = nb->req;
    r->gstate = (void *)(intptr_t)(st < 0 ? st : RM_OK);
    if (nb->g)
        group_release(nb->g);
    free(nb->v);
    free(nb->cbuf);
    free(nb);
    proto_request_complete(r); /* drops the operation's reference */
}

static int iagree_poll(void *arg)
{
    agree_nb_t *nb = arg;
    if (!agree_nb_advance(nb))
        return 0;
    rm_status_t st = nb->a.st;
    if (st >= 0)
        st = agree_outcome(nb->c, nb->v, nb->flag);
    agree_nb_end(nb, st);
    return 1;
}

static int ishrink_poll(void *arg)
{
    agree_nb_t *nb = arg;
    for (;;) {
        if (nb->running && !agree_nb_advance(nb))
            return 0;
        rm_status_t st = nb->a.st;
        if (st >= 0 && nb->phase == 0) {
            nb->g = shrink_group(nb->c, nb->v);
            if (!nb->g) {
                agree_nb_end(nb, RM_ERR_NOMEM);
                return 1;
            }
            nb->phase = 1;
            ctxid_begin(&nb->ca, ctxid_key_next(nb->c), 1, 1);
        } else if (st >= 0) {
            memcpy(nb->ca.buf, nb->cbuf, sizeof(uint32_t) * CTXID_LEN);
            int id, k = ctxid_settle(&nb->ca, &id);
            if (k) {
                comm_t *n = NULL;
                if (k > 0 && (st = comm_create_with_id(nb->c, nb->g, id, &n)) >= 0) {
                    nb->g = NULL; /* the communicator's now */
                    *nb->newcomm = n->handle;
                }
                agree_nb_end(nb, k < 0 ? k : st);
                return 1;
            }
        } else {
            if (nb->phase == 1)
                ctxid_cancel(&nb->ca);
            agree_nb_end(nb, st);
            return 1;
        }
        /* the next context-id round: offer, and agree on the AND */
        ctxid_offer(&nb->ca);
        memcpy(nb->cbuf, nb->ca.buf, sizeof(uint32_t) * CTXID_LEN);
        agree_nb_start(nb, nb->cbuf, CTXID_LEN, agree_and, NULL);
    }
}

static rm_status_t agree_nb_new(comm_t *c, agree_nb_t **out, request_t **req)
{
    *req = NULL;
    if (comm_is_inter(c))
        return RM_ERR_UNSUPPORTED;
    agree_nb_t *nb = calloc(1, sizeof *nb);
    request_t *r = nb ? proto_request_alloc(REQ_GREQ) : NULL;
    if (!r) {
        free(nb);
        return RM_ERR_NOMEM;
    }
    r->comm = c;
    c->refcount++; /* the request's, released with it */
    r->refs++;     /* the operation's, dropped when it completes */
    r->gstate = (void *)(intptr_t)RM_OK;
    nb->c = c;
    nb->req = r;
    *out = nb;
    *req = r;
    return RM_OK;
}

rm_status_t coll_iagree(comm_t *c, int *flag, request_t **out)
{
    agree_nb_t *nb;
    rm_status_t st = agree_nb_new(c, &nb, out);
    if (st < 0)
        return st;
    nb->flag = flag;
    if (!(nb->v = agree_vector(c, *flag))) {
        agree_nb_end(nb, RM_ERR_NOMEM);
        return RM_OK; /* the request reports it */
    }
    agree_nb_start(nb, nb->v, 2, agree_and, agree_finish);
    if (!iagree_poll(nb) && (st = proto_poll_add(iagree_poll, nb)) < 0)
        while (!iagree_poll(nb))
            proto_progress();
    return RM_OK;
}

rm_status_t coll_ishrink(comm_t *c, MPI_Comm *newcomm, request_t **out)
{
    agree_nb_t *nb;
    rm_status_t st = agree_nb_new(c, &nb, out);
    if (st < 0)
        return st;
    nb->newcomm = newcomm;
    proto_progress(); /* deaths the launcher has listed count */
    nb->cbuf = malloc(sizeof(uint32_t) * (size_t)(CTXID_LEN + (c->size + 31) / 32));
    if (!nb->cbuf || !(nb->v = shrink_vector(c))) {
        agree_nb_end(nb, RM_ERR_NOMEM);
        return RM_OK;
    }
    agree_nb_start(nb, nb->v, (c->size + 31) / 32, agree_or, shrink_finish);
    if (!ishrink_poll(nb) && (st = proto_poll_add(ishrink_poll, nb)) < 0)
        while (!ishrink_poll(nb))
            proto_progress();
    return RM_OK;
}
