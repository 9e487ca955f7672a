/* The failure-tolerant agreement (agree_core.c) that MPIX_Comm_agree,
 * MPIX_Comm_shrink and their nonblocking forms run on (agree.c). Internal
 * to src/coll. */
#ifndef RM_COLL_AGREE_H
#define RM_COLL_AGREE_H

#include <stdint.h>

#include "comm/comm.h"
#include "proto/proto.h"

/* acc := acc combined with in (n words) */
typedef void (*agree_combine_fn)(uint32_t *acc, const uint32_t *in, int n);
void agree_and(uint32_t *acc, const uint32_t *in, int n);
void agree_or(uint32_t *acc, const uint32_t *in, int n);
/* the deciding member's last word on the result, as it decides (may be NULL) */
typedef void (*agree_finish_fn)(comm_t *c, uint32_t *res, int n);

/* The agreement's members: an intracommunicator's ranks; an
 * intercommunicator's two groups, the one holding the lower world rank
 * first, so that both sides number every member alike. */
int agree_size(const comm_t *c);
int agree_lfirst(const comm_t *c); /* an intercommunicator's own group comes first */
/* Member m: the communicator that reaches it (an intercommunicator for the
 * other group, its local communicator for the own one) and its rank there. */
comm_t *agree_peer(comm_t *c, int m, int *rank);
int agree_world(comm_t *c, int m);
int agree_dead(comm_t *c, int m);

/* One agreement in progress. buf: this member's vector in (n words), the
 * agreed result out, followed by ceil(size/32) words with a bit for each
 * member that died during it without its vector in the result: the caller
 * sizes buf for both. */
typedef struct agree_op {
    comm_t *c;
    uint32_t *buf;
    int n, len, size, me, mw, radix, lfirst;
    uint32_t seq;
    int tag;
    agree_combine_fn combine;
    agree_finish_fn finish;
    uint32_t *acc;   /* the vectors combined so far (n words), then the members they are of (mw) */
    uint32_t *res;   /* the decision (len words), of member `round`'s making; -1: none yet */
    int round;
    int committed;   /* every member alive held it: final */
    uint32_t *ackd;  /* members known to hold the decision of `round` (mw) */
    uint32_t *dead0; /* members known dead when it began here (mw) */
    int *kids;       /* room for this member's children in the tree */
    int up_to, up_round, up_count; /* what was sent up last: to whom, of which round, covering how many */
    unsigned char *dn; /* by member: the decision of dn_round was sent to it */
    int dn_round;
    int nfailed;     /* deaths known at the last step */
    request_t *rq[2][2]; /* receives by kind (up, down) and side (own group, other group) */
    uint32_t *rb[2][2];
    request_t **sq;  /* sends in flight, each with its buffer */
    uint32_t **sb;
    int nsq, capsq;
    int *askers, nask, capask; /* world ranks that asked for the decision */
    rm_status_t st;
    struct agree_op *next; /* running agreements of this process */
} agree_op_t;

void agree_begin(agree_op_t *a, comm_t *c, uint32_t *buf, int n, agree_combine_fn combine,
                 agree_finish_fn finish);
/* As far as it goes without waiting; 1 once decided for good (or failed: a->st). */
int agree_step(agree_op_t *a);
/* Decided: the decision goes on to those below, into buf and into the
 * record other members may ask for. */
void agree_pass_on(agree_op_t *a);
/* Every send of the agreement has completed (their buffers may go). */
int agree_sent(agree_op_t *a);
rm_status_t agree_free(agree_op_t *a);
/* All of it, blocking. */
rm_status_t agree_run(comm_t *c, uint32_t *buf, int n, agree_combine_fn combine, agree_finish_fn finish);

#endif
