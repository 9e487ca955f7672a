/* Collectives that tolerate process failures (docs/ulfm.md): agreement
 * (MPIX_Comm_agree) and shrink (MPIX_Comm_shrink), blocking and not, on
 * intra- and intercommunicators (over the members of both groups), on the
 * agreement of agree_core.c.
 *
 * MPIX_Comm_agree's vector is the flag (AND; on an intercommunicator one
 * word per group, and each group reads the other's) and whether a member
 * knows of a death on the communicator it has not acknowledged; the root's
 * `finish` adds what it knows as it decides, so that a death noticed by it
 * alone still counts.
 *
 * Shrink agrees on the set of dead members (OR of what each knows, plus
 * those whose vector never came), then on a context id (two for an
 * intercommunicator: its own and its local communicator's) through the
 * usual context-id agreement (src/comm/ctxid.c) with this agreement as its
 * exchange (AND), and builds the survivors' communicator from those. */
#include "coll/coll.h"
#include "coll/agree.h"
#include "comm/ctxid.h"
#include "dtype/dtype.h"
#include "proto/proto.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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
