/* Collectives that tolerate process failures (docs/ulfm.md): agreement
 * (MPIX_Comm_agree) and shrink (MPIX_Comm_shrink), on intra- and
 * intercommunicators (over the members of both groups).
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

#include <limits.h>
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

/* The agreement's members: an intracommunicator's ranks; an
 * intercommunicator's two groups, the one holding the lower world rank
 * first, so that both sides number every member alike. Messages to a
 * member of the other group go over the intercommunicator, to one of the
 * own group over its local communicator, both on their collective
 * contexts. */
static int agree_lfirst(const comm_t *c)
{
    int lo = INT_MAX, ro = INT_MAX;
    for (int i = 0; i < c->group->size; i++)
        lo = c->group->world[i] < lo ? c->group->world[i] : lo;
    for (int i = 0; i < c->remote_group->size; i++)
        ro = c->remote_group->world[i] < ro ? c->remote_group->world[i] : ro;
    return lo < ro;
}

static int agree_size(const comm_t *c)
{
    return c->size + (c->remote_group ? c->remote_group->size : 0);
}

/* My member index. */
static int agree_me(const comm_t *c)
{
    return !c->remote_group || agree_lfirst(c) ? c->rank : c->remote_group->size + c->rank;
}

/* Member m: the communicator to reach it and its rank there. */
static comm_t *agree_peer(comm_t *c, int m, int *rank)
{
    if (!c->remote_group) {
        *rank = m;
        return c;
    }
    int first = agree_lfirst(c) ? c->size : c->remote_group->size;
    int local = (m < first) == agree_lfirst(c);
    *rank = m < first ? m : m - first;
    return local ? c->local_comm : c;
}

static int agree_world(comm_t *c, int m)
{
    int r;
    comm_t *pc = agree_peer(c, m, &r);
    return pc == c && c->remote_group ? c->remote_group->world[r] : comm_world_rank(pc, r);
}

static int agree_dead(comm_t *c, int m)
{
    return proto_ft_failed(agree_world(c, m));
}

static rm_status_t agree_isend(const uint32_t *buf, int n, int m, int tag, comm_t *c, request_t **r)
{
    int pr;
    comm_t *pc = agree_peer(c, m, &pr);
    return proto_isend(buf, n, dtype_get(MPI_UINT32_T), pr, tag, pc, pc->ctx + 1, PROTO_STD, r);
}

static rm_status_t agree_irecv(uint32_t *buf, int n, int m, int tag, comm_t *c, request_t **r)
{
    int pr;
    comm_t *pc = agree_peer(c, m, &pr);
    return proto_irecv(buf, n, dtype_get(MPI_UINT32_T), pr, tag, pc, pc->ctx + 1, r);
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
    a->size = agree_size(c);
    a->me = agree_me(c);
    a->len = n + (a->size + 31) / 32;
    uint32_t seq = c->ft_agree_seq++;
    a->tag_v = PROTO_FT_TAG_MIN + (int)((seq & 0x3fffffu) << 2);
    a->tag_r = a->tag_v + 1;
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
            a->st = agree_post(agree_irecv(&a->got[(size_t)r * (size_t)a->len], a->len, r, a->tag_r, c, &a->rreq[r]),
                               &a->rreq[r]);
}

/* As far as it goes without waiting; 1 once decided (or failed: a->st). */
static int agree_step(agree_op_t *a)
{
    comm_t *c = a->c;
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
                    a->st = agree_post(agree_irecv(&a->in[(size_t)r * (size_t)len], n, r, a->tag_v, c, &a->vreq[r]),
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
        a->st = agree_post(agree_isend(a->vec, n, coord, a->tag_v, c, &a->sreq), &a->sreq);
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
                agree_isend(a->res, a->len, r, a->tag_r, c, &a->freq[r]); /* one that died meanwhile: no matter */
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
    if (agree_unacked(c))
        res[n - 1] = 0;
}

/* Words of the agreement's vector before the dead members' bits: the flag
 * (AND; on an intercommunicator one flag per group, first group first),
 * then whether a member knows of a failure on c it has not acknowledged
 * (OR, as the last word's complement). */
static int agree_nwords(const comm_t *c)
{
    return c->remote_group ? 3 : 2;
}

/* This member's vector, with room for the dead members' bits; NULL: no
 * memory. On an intercommunicator it leaves the other group's flag all
 * ones. */
static uint32_t *agree_vector(comm_t *c, int flag)
{
    int n = agree_nwords(c);
    uint32_t *v = calloc((size_t)(n + (agree_size(c) + 31) / 32), sizeof *v);
    if (v) {
        v[0] = (uint32_t)flag;
        if (c->remote_group) {
            int second = !agree_lfirst(c);
            v[0] = second ? ~0u : (uint32_t)flag;
            v[1] = second ? (uint32_t)flag : ~0u;
        }
        v[n - 1] = agree_unacked(c) ? 0u : ~0u;
    }
    return v;
}

/* The agreed flag (on an intercommunicator the AND of the remote group's
 * flags), and RM_ERR_PROC_FAILED when a member died in it or one knew of a
 * failure not acknowledged. */
static rm_status_t agree_outcome(const comm_t *c, const uint32_t *v, int *flag)
{
    int n = agree_nwords(c);
    *flag = (int)v[c->remote_group ? agree_lfirst(c) : 0];
    int missing = 0;
    for (int i = 0; i < (agree_size(c) + 31) / 32; i++)
        missing |= v[n + i] != 0;
    return missing || v[n - 1] != ~0u ? RM_ERR_PROC_FAILED : RM_OK;
}

rm_status_t coll_agree(comm_t *c, int *flag)
{
    uint32_t *v = agree_vector(c, *flag);
    if (!v)
        return RM_ERR_NOMEM;
    rm_status_t st = agree_run(c, v, agree_nwords(c), agree_and, agree_finish);
    if (st >= 0)
        st = agree_outcome(c, v, flag);
    free(v);
    return st;
}

static rm_status_t agree_and_exchange(uint32_t *buf, void *arg)
{
    comm_t *c = arg;
    int mw = (agree_size(c) + 31) / 32;
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
    for (int m = 0; m < agree_size(c); m++)
        if (agree_dead(c, m))
            res[m / 32] |= 1u << (m % 32);
}

static int shrink_words(const comm_t *c)
{
    return (agree_size(c) + 31) / 32;
}

/* Shrink's first vector: the members this one knows dead. */
static uint32_t *shrink_vector(comm_t *c)
{
    int mw = shrink_words(c);
    uint32_t *v = calloc((size_t)(2 * mw), sizeof *v);
    for (int m = 0; v && m < agree_size(c); m++)
        if (agree_dead(c, m))
            v[m / 32] |= 1u << (m % 32);
    return v;
}

/* The survivors from the agreed dead (and those that died in it): of c's
 * group in *lg, of an intercommunicator's remote group in *rg, each in
 * their old order. RM_ERR_PROC_FAILED: no member of the remote group is
 * left (every member of c sees the same). */
static rm_status_t shrink_groups(comm_t *c, uint32_t *v, group_t **lg, group_t **rg)
{
    int size = agree_size(c), mw = (size + 31) / 32, alive[2] = {0, 0};
    *lg = *rg = NULL;
    for (int m = 0; m < size; m++) {
        if ((v[mw + m / 32] >> (m % 32)) & 1)
            v[m / 32] |= 1u << (m % 32);
        int r;
        int remote = agree_peer(c, m, &r) == c && c->remote_group;
        alive[remote] += !((v[m / 32] >> (m % 32)) & 1);
    }
    if (c->remote_group && !alive[1])
        return RM_ERR_PROC_FAILED;
    *lg = group_new(alive[0], 0);
    if (c->remote_group)
        *rg = group_new(alive[1], 0);
    if (!*lg || (c->remote_group && !*rg)) {
        if (*lg)
            group_release(*lg);
        if (*rg)
            group_release(*rg);
        *lg = *rg = NULL;
        return RM_ERR_NOMEM;
    }
    int k[2] = {0, 0};
    for (int m = 0; m < size; m++) {
        if ((v[m / 32] >> (m % 32)) & 1)
            continue;
        int r;
        int remote = agree_peer(c, m, &r) == c && c->remote_group;
        (remote ? *rg : *lg)->world[k[remote]++] = agree_world(c, m);
    }
    return RM_OK;
}

static void shrink_release(group_t *lg, group_t *rg)
{
    if (lg)
        group_release(lg);
    if (rg)
        group_release(rg);
}

/* The shrunk communicator on the agreed ids (an intercommunicator's two). */
static rm_status_t shrink_create(comm_t *c, group_t *lg, group_t *rg, const int *ids, comm_t **out)
{
    rm_status_t st = c->remote_group ? comm_inter_create_with_ids(c, lg, rg, ids, out)
                                     : comm_create_with_id(c, lg, ids[0], out);
    if (st < 0)
        shrink_release(lg, rg);
    return st;
}

rm_status_t coll_shrink(comm_t *c, comm_t **out)
{
    *out = NULL;
    proto_progress(); /* deaths the launcher has listed count */
    uint32_t *v = shrink_vector(c);
    if (!v)
        return RM_ERR_NOMEM;
    rm_status_t st = agree_run(c, v, shrink_words(c), agree_or, shrink_finish);
    group_t *lg = NULL, *rg = NULL;
    if (st >= 0)
        st = shrink_groups(c, v, &lg, &rg);
    free(v);
    int ids[2];
    if (st >= 0)
        st = ctxid_agree(ctxid_key_next(c), 1, c->remote_group ? 2 : 1, agree_and_exchange, c, ids);
    if (st >= 0)
        return shrink_create(c, lg, rg, ids, out);
    shrink_release(lg, rg);
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
    group_t *lg, *rg;    /* ishrink: the survivors (rg: an intercommunicator's remote group) */
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
    shrink_release(nb->lg, nb->rg);
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
            if ((st = shrink_groups(nb->c, nb->v, &nb->lg, &nb->rg)) < 0) {
                agree_nb_end(nb, st);
                return 1;
            }
            nb->phase = 1;
            ctxid_begin(&nb->ca, ctxid_key_next(nb->c), 1, nb->c->remote_group ? 2 : 1);
        } else if (st >= 0) {
            memcpy(nb->ca.buf, nb->cbuf, sizeof(uint32_t) * CTXID_LEN);
            int ids[2], k = ctxid_settle(&nb->ca, ids);
            if (k) {
                comm_t *n = NULL;
                if (k > 0) {
                    st = shrink_create(nb->c, nb->lg, nb->rg, ids, &n);
                    nb->lg = nb->rg = NULL; /* the communicator's now, or released */
                    if (st >= 0)
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
    agree_nb_start(nb, nb->v, agree_nwords(c), agree_and, agree_finish);
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
    nb->cbuf = malloc(sizeof(uint32_t) * (size_t)(CTXID_LEN + shrink_words(c)));
    if (!nb->cbuf || !(nb->v = shrink_vector(c))) {
        agree_nb_end(nb, RM_ERR_NOMEM);
        return RM_OK;
    }
    agree_nb_start(nb, nb->v, shrink_words(c), agree_or, shrink_finish);
    if (!ishrink_poll(nb) && (st = proto_poll_add(ishrink_poll, nb)) < 0)
        while (!ishrink_poll(nb))
            proto_progress();
    return RM_OK;
}
