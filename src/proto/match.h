/* Matching: posted receives and unexpected messages, each kept in a hash of
 * per-(context, source, tag) FIFOs so the common cases never scan every
 * pending entry; wildcard receives and probes walk the arrival-ordered list. */
#ifndef RM_PROTO_MATCH_H
#define RM_PROTO_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/proto.h"
#include "util/pool.h"

typedef struct unexp {
    struct unexp *bnext, *bprev; /* per-key FIFO */
    struct unexp *anext, *aprev; /* arrival order, all keys */
    uint32_t ctx;
    int src, tag;
    uint8_t type, flags;       /* PF_EAGER or PF_RTS, PFF_* */
    int world_src;
    size_t size;               /* message bytes */
    uint64_t sid;              /* sender's request id */
    uint64_t addr;             /* RTS: sender's data for single copy */
    size_t win;                /* RTS: bytes sent ahead as PF_RDATA (proto/flow.c) */
    unsigned char *data;       /* EAGER: the payload, in the same allocation */
    int cls;                   /* its size class in match.c's pool */
} unexp_t;

typedef struct mq_bucket mq_bucket_t;

typedef struct match_state {
    mq_bucket_t **posted_tab;
    mq_bucket_t **unexp_tab;
    mq_bucket_t *posted_idle, *unexp_idle; /* an emptied bucket left in place */
    unsigned nbuckets;
    request_t *wild_head, *wild_tail; /* posted receives with a wildcard */
    unexp_t *arr_head, *arr_tail;     /* unexpected, in arrival order */
    uint64_t post_seq;
    size_t nposted, nunexp;
} match_state_t;

rm_status_t match_init(match_state_t *m, unsigned nbuckets);
void match_destroy(match_state_t *m);

/* Posted receives */
rm_status_t match_post(match_state_t *m, request_t *r);
/* Remove and return the earliest-posted receive matching the envelope. */
request_t *match_take_posted(match_state_t *m, uint32_t ctx, int src, int tag);
/* Remove a specific posted receive (cancel). Returns 1 if it was queued. */
int match_remove_posted(match_state_t *m, request_t *r);

/* Unexpected messages. An entry and its payload are one block from a pool
 * of size classes (match.c), so a message that arrives before its receive
 * is posted costs no malloc. */
#define MQ_UNEXP_MIN_SHIFT 7 /* the smallest class's payload room: 128 bytes */
#define MQ_UNEXP_CLASSES 8   /* up to 16 KiB */
/* The memory an unexpected message of `len` payload bytes holds (flow
 * control charges at least this, proto_credit_cost). */
static inline size_t match_unexp_bytes(size_t len)
{
    return rm_pool_block_bytes(sizeof(unexp_t), MQ_UNEXP_MIN_SHIFT, MQ_UNEXP_CLASSES, len);
}
unexp_t *match_unexp_new(size_t len); /* NULL: out of memory */
void match_unexp_free(unexp_t *u);
size_t match_unexp_kept(int cls); /* entries of a pooled class waiting for reuse */
rm_status_t match_add_unexp(match_state_t *m, unexp_t *u);
/* Find the earliest unexpected message matching (src/tag may be wildcards);
 * `take` removes it. */
unexp_t *match_find_unexp(match_state_t *m, uint32_t ctx, int src, int tag, int take);
/* Remove an unexpected message by sender identity (send cancel): the most
 * recent one from that sender request. */
unexp_t *match_take_unexp_by_sender(match_state_t *m, int world_src, uint64_t sid);
void match_remove_unexp(match_state_t *m, unexp_t *u);

#endif
