/* The agreement under MPIX_Comm_agree and MPIX_Comm_shrink (docs/ulfm.md):
 * it combines a vector of words from every live member and hands the same
 * result to every survivor, even when members (its root included) die
 * during it, in a logarithmic number of steps.
 *
 * The members form a k-nomial tree (k = RAILMPI_AGREE_RADIX, 8 by default)
 * rooted at the lowest member not known
 * dead (deaths come from the launcher, never guessed, so every member sees
 * the same ones, only not at the same moment); a dead member is bypassed:
 * its live children hang from its nearest live ancestor. Four passes, each
 * up or down the tree:
 *  1. up: each member sends its parent the vectors of its subtree combined,
 *     with the set of members they are of, once every live child's has come;
 *  2. down: the root, holding every live member's vector, decides (the
 *     combined vector, a bit for each member that died during the agreement
 *     without its vector in it, the caller's `finish`) and sends the
 *     decision down;
 *  3. up: each member acknowledges it, with its subtree's acknowledgements;
 *  4. down: the root, once every live member holds the decision, commits
 *     it; a member returns when the commit reaches it.
 * A death changes the tree: every member sends its last message up again
 * to its new parent, and a parent sends the decision down to new children.
 * A decision carries its root's number (a round): one from a later root
 * replaces one from an earlier, dead one. A new root that holds a decision,
 * or hears of one from below, takes it over instead of deciding afresh;
 * it decides afresh only when no live member holds one, and then no member
 * has returned (a commit needs every live member to hold the decision), so
 * the result is the same at every member that returns, dead or alive.
 * Contributions and acknowledgements are sets (AND/OR vectors, bitmaps of
 * members), so what arrives twice counts once.
 *
 * Members return early, on the commit: one below a member that died while
 * passing the commit down may then find its parent gone home. Every member
 * keeps the last decision it returned on a communicator
 * (proto_ft_agree_keep), and a member whose tree changed while it held a
 * decision asks its parent for it (a PF_AGREE_Q frame; a root asks the
 * members whose acknowledgement it misses): one that has returned answers
 * from that record, one still running answers when it commits.
 *
 * Without a death: 4 (n - 1) messages, 4 log_k(n) steps deep; each message
 * is received (none is left over). With deaths, copies sent again may stay
 * unreceived at members that have returned. The tags are the communicator's
 * own (ft_agree_seq) on its collective context, in the range deaths and
 * revokes leave alone (PROTO_FT_TAG_MIN); an intercommunicator's agreement
 * runs over both groups (agree_peer). */
#include "coll/agree.h"
#include "dtype/dtype.h"
#include "util/config.h"
#include "util/lock.h"
#include "util/log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum { AG_UP, AG_DN };

/* The tree's fan-out (RAILMPI_AGREE_RADIX): each member has up to radix - 1
 * children per level below it (a k-nomial tree; 2 is the binomial one).
 * Wider is fewer steps deep, each member sending a few more messages. */
static int agree_radix(void)
{
    int64_t k = RM_CFG(agree_radix);
    return k < 2 ? 2 : k > 64 ? 64 : (int)k;
}

static agree_op_t *agree_ops; /* running here: what PF_AGREE_Q/R frames are for */

void agree_and(uint32_t *acc, const uint32_t *in, int n)
{
    for (int i = 0; i < n; i++)
        acc[i] &= in[i];
}

void agree_or(uint32_t *acc, const uint32_t *in, int n)
{
    for (int i = 0; i < n; i++)
        acc[i] |= in[i];
}

/* ---- members ---------------------------------------------------------- */

int agree_lfirst(const comm_t *c)
{
    if (!c->remote_group)
        return 1;
    int lo = INT_MAX, ro = INT_MAX;
    for (int i = 0; i < c->group->size; i++)
        lo = c->group->world[i] < lo ? c->group->world[i] : lo;
    for (int i = 0; i < c->remote_group->size; i++)
        ro = c->remote_group->world[i] < ro ? c->remote_group->world[i] : ro;
    return lo < ro;
}

int agree_size(const comm_t *c)
{
    return c->size + (c->remote_group ? c->remote_group->size : 0);
}

comm_t *agree_peer(comm_t *c, int m, int *rank)
{
    if (!c->remote_group) {
        *rank = m;
        return c;
    }
    int lfirst = agree_lfirst(c);
    int first = lfirst ? c->size : c->remote_group->size;
    int local = (m < first) == lfirst;
    *rank = m < first ? m : m - first;
    return local ? c->local_comm : c;
}

int agree_world(comm_t *c, int m)
{
    int r;
    comm_t *pc = agree_peer(c, m, &r);
    return pc == c && c->remote_group ? c->remote_group->world[r] : comm_world_rank(pc, r);
}

int agree_dead(comm_t *c, int m)
{
    return proto_ft_failed(agree_world(c, m));
}

/* The same for a running agreement, with the order of an
 * intercommunicator's groups worked out once (a->lfirst). */
static comm_t *op_peer(const agree_op_t *a, int m, int *rank)
{
    comm_t *c = a->c;
    if (!c->remote_group) {
        *rank = m;
        return c;
    }
    int first = a->lfirst ? c->size : c->remote_group->size;
    int local = (m < first) == a->lfirst;
    *rank = m < first ? m : m - first;
    return local ? c->local_comm : c;
}

static int op_world(const agree_op_t *a, int m)
{
    int r;
    comm_t *pc = op_peer(a, m, &r);
    return pc == a->c && a->c->remote_group ? a->c->remote_group->world[r] : comm_world_rank(pc, r);
}

static int op_dead(const agree_op_t *a, int m)
{
    return proto_ft_failed(op_world(a, m));
}

static int bit(const uint32_t *v, int m)
{
    return (v[m / 32] >> (m % 32)) & 1;
}

static void set_bit(uint32_t *v, int m)
{
    v[m / 32] |= 1u << (m % 32);
}

static int count_bits(const uint32_t *v, int mw)
{
    int k = 0;
    for (int i = 0; i < mw; i++)
        k += __builtin_popcount(v[i]);
    return k;
}

/* Every member is in v or dead. */
static int covered(agree_op_t *a, const uint32_t *v)
{
    for (int m = 0; m < a->size; m++)
        if (!bit(v, m) && !op_dead(a, m))
            return 0;
    return 1;
}

/* ---- the tree ------------------------------------------------------------ */

static int tree_root(agree_op_t *a)
{
    int r = 0;
    while (r < a->size && op_dead(a, r))
        r++;
    return r < a->size ? r : a->me;
}

static int tree_member(agree_op_t *a, int root, int p)
{
    return (p + root) % a->size;
}

/* The weight of position p's lowest nonzero digit in base AGREE_RADIX
 * (INT_MAX for the root's 0): p's parent clears that digit, its children
 * set one lower digit. */
static int tree_low(const agree_op_t *a, int p)
{
    if (!p)
        return INT_MAX;
    int w = 1;
    while ((p / w) % a->radix == 0)
        w *= a->radix;
    return w;
}

static int tree_parent(agree_op_t *a, int root)
{
    int p = (a->me - root + a->size) % a->size;
    while (p) {
        int w = tree_low(a, p);
        p -= (p / w) % a->radix * w;
        int m = tree_member(a, root, p);
        if (!op_dead(a, m))
            return m;
    }
    return root;
}

/* The live children of position p (through dead ones) into out; how many. */
static int tree_kids(agree_op_t *a, int root, int p, int *out, int k)
{
    int low = tree_low(a, p);
    for (long w = 1; w < low && p + w < a->size; w *= a->radix)
        for (int d = 1; d < a->radix && p + d * w < a->size; d++) {
            int q = (int)(p + d * w), m = tree_member(a, root, q);
            if (!op_dead(a, m))
                out[k++] = m;
            else
                k = tree_kids(a, root, q, out, k);
        }
    return k;
}

/* ---- messages ------------------------------------------------------------ */

/* up: [round + 1 or 0] [vectors n] [their members mw] [decision len] [acknowledged mw]
 * down: [round + 1] [committed] [decision len] */
static int up_words(const agree_op_t *a)
{
    return 1 + a->n + a->mw + a->len + a->mw;
}

static int dn_words(const agree_op_t *a)
{
    return 2 + a->len;
}

static int sides(const agree_op_t *a)
{
    return a->c->remote_group ? 2 : 1;
}

/* Side 0 receives from the own group (over the local communicator of an
 * intercommunicator), side 1 from the other group. */
static void post(agree_op_t *a, int kind, int side)
{
    comm_t *pc = !a->c->remote_group ? a->c : side ? a->c : a->c->local_comm;
    int words = kind == AG_UP ? up_words(a) : dn_words(a);
    request_t *r = NULL;
    rm_status_t st = proto_irecv(a->rb[kind][side], words, dtype_get(MPI_UINT32_T), MPI_ANY_SOURCE, a->tag + kind,
                                 pc, pc->ctx + 1, &r);
    if (st < 0 && !r)
        a->st = st;
    a->rq[kind][side] = r;
}

static void reap(agree_op_t *a)
{
    int k = 0;
    for (int i = 0; i < a->nsq; i++) {
        if (a->sq[i]->done) {
            proto_request_release(a->sq[i]);
            free(a->sb[i]);
        } else {
            a->sq[k] = a->sq[i];
            a->sb[k++] = a->sb[i];
        }
    }
    a->nsq = k;
}

/* A copy of msg (words) to member m; one that has died meanwhile: no matter. */
static void send_to(agree_op_t *a, int kind, int m, const uint32_t *msg, int words)
{
    if (a->nsq == a->capsq) {
        int cap = a->capsq ? 2 * a->capsq : 8;
        request_t **q = realloc(a->sq, sizeof *q * (size_t)cap);
        if (q)
            a->sq = q;
        uint32_t **b = q ? realloc(a->sb, sizeof *b * (size_t)cap) : NULL;
        if (b)
            a->sb = b;
        if (!q || !b) {
            a->st = RM_ERR_NOMEM;
            return;
        }
        a->capsq = cap;
    }
    uint32_t *buf = malloc(sizeof *buf * (size_t)words);
    if (!buf) {
        a->st = RM_ERR_NOMEM;
        return;
    }
    memcpy(buf, msg, sizeof *buf * (size_t)words);
    int pr;
    comm_t *pc = op_peer(a, m, &pr);
    request_t *r = NULL;
    rm_status_t st =
        proto_isend(buf, words, dtype_get(MPI_UINT32_T), pr, a->tag + kind, pc, pc->ctx + 1, PROTO_STD, &r);
    if (!r) {
        free(buf);
        if (st < 0 && !op_dead(a, m))
            a->st = st;
        return;
    }
    a->sq[a->nsq] = r;
    a->sb[a->nsq++] = buf;
}

static void adopt(agree_op_t *a, int round, const uint32_t *d)
{
    memcpy(a->res, d, sizeof *d * (size_t)a->len);
    a->round = round;
    memset(a->ackd, 0, sizeof *a->ackd * (size_t)a->mw);
    set_bit(a->ackd, a->me);
}

static void got_up(agree_op_t *a, const uint32_t *u)
{
    a->combine(a->acc, u + 1, a->n);
    agree_or(a->acc + a->n, u + 1 + a->n, a->mw);
    int round = (int)u[0] - 1;
    if (round < 0 || a->committed)
        return;
    const uint32_t *d = u + 1 + a->n + a->mw;
    if (round > a->round)
        adopt(a, round, d);
    if (round == a->round)
        agree_or(a->ackd, d + a->len, a->mw);
}

static void got_dn(agree_op_t *a, const uint32_t *u)
{
    int round = (int)u[0] - 1;
    if (a->committed)
        return;
    if (u[1]) {
        memcpy(a->res, u + 2, sizeof *a->res * (size_t)a->len);
        a->round = round;
        a->committed = 1;
    } else if (round > a->round) {
        adopt(a, round, u + 2);
    }
}

static void poll_recvs(agree_op_t *a)
{
    for (int kind = 0; kind < 2; kind++)
        for (int s = 0; s < sides(a) && a->st >= 0; s++) {
            request_t *r;
            while ((r = a->rq[kind][s]) && r->done) {
                int ok = r->err >= 0;
                proto_request_release(r);
                a->rq[kind][s] = NULL;
                if (ok)
                    (kind == AG_UP ? got_up : got_dn)(a, a->rb[kind][s]);
                post(a, kind, s);
                if (a->st < 0)
                    return;
            }
        }
}

/* ---- the passes ----------------------------------------------------------- */

static void send_up(agree_op_t *a, int parent)
{
    int count = count_bits(a->round < 0 ? a->acc + a->n : a->ackd, a->mw);
    if (a->up_to == parent && a->up_round == a->round && count <= a->up_count)
        return;
    int words = up_words(a);
    uint32_t *m = calloc((size_t)words, sizeof *m);
    if (!m) {
        a->st = RM_ERR_NOMEM;
        return;
    }
    m[0] = (uint32_t)(a->round + 1);
    memcpy(m + 1, a->acc, sizeof *m * (size_t)(a->n + a->mw));
    if (a->round >= 0) {
        memcpy(m + 1 + a->n + a->mw, a->res, sizeof *m * (size_t)a->len);
        memcpy(m + 1 + a->n + a->mw + a->len, a->ackd, sizeof *m * (size_t)a->mw);
    }
    send_to(a, AG_UP, parent, m, words);
    free(m);
    a->up_to = parent;
    a->up_round = a->round;
    a->up_count = count;
}

static void send_down(agree_op_t *a, const int *kids, int nkids, int commit)
{
    int words = dn_words(a);
    uint32_t *m = malloc(sizeof *m * (size_t)words);
    if (!m) {
        a->st = RM_ERR_NOMEM;
        return;
    }
    m[0] = (uint32_t)(a->round + 1);
    m[1] = (uint32_t)commit;
    memcpy(m + 2, a->res, sizeof *m * (size_t)a->len);
    if (a->dn_round != a->round) {
        memset(a->dn, 0, (size_t)a->size);
        a->dn_round = a->round;
    }
    for (int i = 0; i < nkids; i++)
        if (commit || !a->dn[kids[i]]) {
            send_to(a, AG_DN, kids[i], m, words);
            a->dn[kids[i]] = 1;
        }
    free(m);
}

static int all_in(const int *kids, int nkids, const uint32_t *v)
{
    for (int i = 0; i < nkids; i++)
        if (!bit(v, kids[i]))
            return 0;
    return 1;
}

static void decide(agree_op_t *a)
{
    memcpy(a->res, a->acc, sizeof *a->res * (size_t)a->n);
    memset(a->res + a->n, 0, sizeof *a->res * (size_t)a->mw);
    for (int m = 0; m < a->size; m++)
        if (!bit(a->acc + a->n, m) && !bit(a->dead0, m))
            set_bit(a->res + a->n, m); /* died during it, its vector never came */
    if (a->finish)
        a->finish(a->c, a->res, a->n);
    adopt(a, a->me, a->res);
}

/* After a death: ask for the decision where it may be kept by a member
 * that has returned (see the top of the file). */
static void ask(agree_op_t *a, int root, int parent)
{
    if (a->round < 0)
        return; /* no member has returned: a commit needs every live one to hold it */
    if (root != a->me) {
        proto_ft_agree_ask(a->c, a->seq, op_world(a, parent));
        return;
    }
    for (int m = 0; m < a->size; m++)
        if (!bit(a->ackd, m) && !op_dead(a, m))
            proto_ft_agree_ask(a->c, a->seq, op_world(a, m));
}

int agree_step(agree_op_t *a)
{
    if (a->st < 0)
        return 1;
    reap(a);
    poll_recvs(a);
    if (a->st < 0 || a->committed)
        return 1;
    int *kids = a->kids;
    int root = tree_root(a);
    int nkids = tree_kids(a, root, (a->me - root + a->size) % a->size, kids, 0);
    int parent = root == a->me ? -1 : tree_parent(a, root);
    int deaths = proto_ft_nfailed != a->nfailed;
    a->nfailed = proto_ft_nfailed;
    if (root == a->me) {
        if (a->round < 0 && covered(a, a->acc + a->n))
            decide(a);
        else if (a->round >= 0 && a->round != a->me)
            adopt(a, a->me, a->res); /* a decision of an earlier root, now this one's */
        if (a->round >= 0) {
            send_down(a, kids, nkids, 0);
            if (covered(a, a->ackd))
                a->committed = 1;
        }
    } else if (a->round < 0) {
        if (all_in(kids, nkids, a->acc + a->n))
            send_up(a, parent);
    } else {
        send_down(a, kids, nkids, 0);
        if (all_in(kids, nkids, a->ackd))
            send_up(a, parent);
    }
    if (deaths && !a->committed)
        ask(a, root, parent);
    return a->committed || a->st < 0;
}

/* ---- begin, pass on, end ------------------------------------------------ */

static agree_op_t *agree_find(comm_t *c, uint32_t seq)
{
    for (agree_op_t *a = agree_ops; a; a = a->next)
        if (a->c == c && a->seq == seq)
            return a;
    return NULL;
}

static void agree_asked(comm_t *c, uint32_t seq, int world)
{
    agree_op_t *a = agree_find(c, seq);
    if (!a)
        return; /* not begun here yet: its own messages will reach the asker */
    if (a->nask == a->capask) {
        int cap = a->capask ? 2 * a->capask : 4;
        int *p = realloc(a->askers, sizeof *p * (size_t)cap);
        if (!p)
            return;
        a->askers = p;
        a->capask = cap;
    }
    a->askers[a->nask++] = world;
}

static void agree_answered(comm_t *c, uint32_t seq, const uint32_t *res, int words)
{
    agree_op_t *a = agree_find(c, seq);
    if (!a || a->committed || words != a->len)
        return;
    memcpy(a->res, res, sizeof *res * (size_t)words);
    a->committed = 1;
}

void agree_begin(agree_op_t *a, comm_t *c, uint32_t *buf, int n, agree_combine_fn combine,
                 agree_finish_fn finish)
{
    memset(a, 0, sizeof *a);
    proto_ft_agree_hooks(agree_asked, agree_answered);
    a->c = c;
    a->buf = buf;
    a->n = n;
    a->size = agree_size(c);
    a->lfirst = agree_lfirst(c);
    a->me = a->lfirst ? c->rank : c->remote_group->size + c->rank;
    a->mw = (a->size + 31) / 32;
    a->len = n + a->mw;
    a->seq = c->ft_agree_seq++;
    a->tag = PROTO_FT_TAG_MIN + (int)((a->seq & 0x3fffffu) << 2);
    a->combine = combine;
    a->finish = finish;
    a->round = -1;
    a->up_to = -1;
    a->up_round = -2;
    a->dn_round = -1;
    a->nfailed = proto_ft_nfailed;
    a->radix = agree_radix();
    a->acc = calloc((size_t)(n + a->mw), sizeof *a->acc);
    a->res = calloc((size_t)a->len, sizeof *a->res);
    a->ackd = calloc((size_t)a->mw, sizeof *a->ackd);
    a->dn = calloc((size_t)a->size, 1);
    a->dead0 = calloc((size_t)a->mw, sizeof *a->dead0);
    a->kids = malloc(sizeof *a->kids * (size_t)a->size);
    int ok = a->acc && a->res && a->ackd && a->dn && a->dead0 && a->kids;
    for (int m = 0; ok && m < a->size; m++)
        if (op_dead(a, m))
            set_bit(a->dead0, m);
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < sides(a); s++)
            ok &= (a->rb[k][s] = malloc(sizeof(uint32_t) * (size_t)(k == AG_UP ? up_words(a) : dn_words(a)))) != NULL;
    a->next = agree_ops;
    agree_ops = a;
    if (!ok) {
        a->st = RM_ERR_NOMEM;
        return;
    }
    memcpy(a->acc, buf, sizeof *a->acc * (size_t)n);
    set_bit(a->acc + n, a->me);
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < sides(a) && a->st >= 0; s++)
            post(a, k, s);
}

void agree_pass_on(agree_op_t *a)
{
    if (a->st < 0)
        return;
    int root = tree_root(a);
    send_down(a, a->kids, tree_kids(a, root, (a->me - root + a->size) % a->size, a->kids, 0), 1);
    for (int i = 0; i < a->nask; i++)
        proto_ft_agree_answer(a->c, a->seq, a->askers[i], a->res, a->len);
    proto_ft_agree_keep(a->c, a->seq, a->res, a->len);
    memcpy(a->buf, a->res, sizeof *a->res * (size_t)a->len);
}

int agree_sent(agree_op_t *a)
{
    reap(a);
    return a->nsq == 0;
}

rm_status_t agree_free(agree_op_t *a)
{
    for (agree_op_t **p = &agree_ops; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    for (int k = 0; k < 2; k++)
        for (int s = 0; s < 2; s++) {
            request_t *r = a->rq[k][s];
            if (r) {
                if (!r->done)
                    proto_cancel(r); /* a posted receive nothing matched */
                proto_request_release(r);
            }
            free(a->rb[k][s]);
        }
    for (int i = 0; i < a->nsq; i++) {
        proto_request_release(a->sq[i]);
        free(a->sb[i]);
    }
    free(a->sq);
    free(a->sb);
    free(a->askers);
    free(a->dn);
    free(a->dead0);
    free(a->kids);
    free(a->ackd);
    free(a->res);
    free(a->acc);
    return a->st;
}

rm_status_t agree_run(comm_t *c, uint32_t *buf, int n, agree_combine_fn combine, agree_finish_fn finish)
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
