/* Context ids: the agreement that gives a new communicator an id free at
 * every process that will use it, safe when several creations run at once
 * in one process (threads, nonblocking MPI_Comm_idup) on different parents.
 *
 * Each process keeps the set of ids it has free, in 16 segments. An
 * agreement goes in rounds; in each, every participant offers a mask of
 * ids, the masks are ANDed across all of them (over the parent's own
 * contexts, so agreements on different parents never mix) and, when the
 * result holds enough ids, all pick the lowest and the members take them.
 * Only one agreement at a time in a process may offer ids from a segment
 * (it holds the segment for the round); the others offer nothing there,
 * the AND comes out empty and they try again. So two agreements in flight
 * never hand out one id, whatever order their rounds finish in.
 *
 * - Round 0 offers one segment, chosen from the agreement's key (so the
 *   same everywhere), if no other agreement here holds it: without
 *   concurrent creations one round does, and concurrent ones on different
 *   parents mostly fall on different segments and also need only one.
 * - Later rounds (the main one) offer every segment not held, but only for
 *   the agreement whose key is the lowest of those waiting here, one at a
 *   time. Keys are the same at every participant (the parent's id and how
 *   many creations the parent has seen), so the lowest agreement in the job
 *   ends up holding everywhere and finishes; then the next.
 * Round 0 may wait for a participant that has not started yet, so it holds
 * only one segment; a later round only waits for participants that are all
 * in the agreement, so the main round never stops another agreement for
 * long.
 *
 * A non-member (MPI_Comm_create outside the group, MPI_UNDEFINED in a
 * split) offers every id and holds nothing. All state is under the global
 * lock, as every caller runs with it. */
#ifndef RM_COMM_CTXID_H
#define RM_COMM_CTXID_H

#include <stdint.h>

#include "comm/comm.h"

/* an offer: the mask of ids (id 0's bit, never free, carries a flag) */
#define CTXID_LEN COMM_ID_WORDS

/* The order agreements get the main segment in: lowest first. */
typedef struct ctxid_key {
    uint64_t hi, lo;
} ctxid_key_t;

typedef struct ctxid_agree {
    ctxid_key_t key;
    int member;  /* takes the ids agreed */
    int nids;    /* 1, or 2 (an intercommunicator and its local communicator) */
    int round;
    uint32_t held; /* segments held for the running round */
    int waiting; /* in the queue of agreements past round 0 */
    struct ctxid_agree *next;
    uint32_t buf[CTXID_LEN]; /* the offer; the exchange leaves the AND here */
} ctxid_agree_t;

void ctxid_init(void);         /* every id free */
void ctxid_reserve(int id);    /* MPI_COMM_WORLD's and MPI_COMM_SELF's */
void ctxid_release(int id);    /* a freed communicator's */

/* The key of the next creation over c (counts it on c): the same at every
 * process of c, since creations on a communicator are called in one order. */
ctxid_key_t ctxid_key_next(comm_t *c);
/* One key for the two sides of a new intercommunicator, from each side's. */
ctxid_key_t ctxid_key_pair(ctxid_key_t a, ctxid_key_t b);

void ctxid_begin(ctxid_agree_t *a, ctxid_key_t key, int member, int nids);
/* Fill a->buf with this round's offer. */
void ctxid_offer(ctxid_agree_t *a);
/* a->buf holds the AND of every offer: 1 with ids[0..nids) agreed (taken
 * by a member), 0 when another round is needed (offer again), or
 * RM_ERR_NO_RESOURCE when every participant offered all it had and no id
 * is free at all of them. */
int ctxid_settle(ctxid_agree_t *a, int *ids);
/* The round's exchange failed: drop the agreement. */
void ctxid_cancel(ctxid_agree_t *a);

/* A whole agreement from a blocking exchange: `exchange` leaves in buf
 * (CTXID_LEN words) the AND of all participants' buffers. */
typedef rm_status_t (*ctxid_exchange_fn)(uint32_t *buf, void *arg);
rm_status_t ctxid_agree(ctxid_key_t key, int member, int nids, ctxid_exchange_fn exchange, void *arg,
                        int *ids);

/* Agreements over every process of c (both groups of an
 * intercommunicator), exchanging over c's collective contexts: on an
 * intracommunicator an AND-allreduce, on an intercommunicator one per
 * group, swapped and ANDed by the leaders (local rank 0) and broadcast.
 * ctxid_alloc runs one to the end (a blocking creation; its rounds count as
 * collectives on c). ctxid_round_start offers and starts one round as a
 * schedule with tags of the agreement's own, which progress finishes
 * (*req completes with the round's status in gstate); then ctxid_settle. */
rm_status_t ctxid_alloc(comm_t *c, int member, int nids, int *ids);
struct request;
rm_status_t ctxid_round_start(comm_t *c, ctxid_agree_t *a, struct request **req);

#endif
