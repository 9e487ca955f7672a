/* The collective schedule engine. A schedule is a list of rounds; a round
 * is steps (send, receive, reduce, copy) that may run together, and each
 * round waits for every step of the one before (the only dependency the
 * algorithms need). When a round begins its local steps (copies and
 * reductions) run in the order they were added, then its receives and sends
 * are posted. Messages go over the collective context (ctx + 1) with tags
 * of their own per collective, taken from the communicator's count of schedules: MPI
 * requires collectives on a communicator to be called in the same order
 * everywhere, so the counts agree, and messages of one collective between
 * two ranks match in the order both schedules post them.
 *
 * Blocking collectives run a schedule to the end at once; nonblocking ones
 * return a request and the schedule advances from every progress pass,
 * including the asynchronous progress thread's (src/proto/async.c). */
#ifndef RM_COLL_SCHED_H
#define RM_COLL_SCHED_H

#include "coll/op.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "proto/proto.h"

typedef struct coll_sched coll_sched_t;

/* A new schedule on c (the intercommunicator itself for inter phases). */
coll_sched_t *coll_sched_new(comm_t *c);
/* The same with tags of its own, from `id` (its low 16 bits) instead of
 * c's count of collectives: for work that starts from progress rather than
 * from a call (a context id agreement's later rounds, src/comm/ctxid.c),
 * which the count would put out of step. The caller keeps ids of schedules
 * running at once on c distinct. */
#define COLL_SCHED_TAG_OWN (1 << 26)
coll_sched_t *coll_sched_new_tagged(comm_t *c, uint32_t id);
/* Steps of the current round. Buffers must stay valid until the schedule
 * ends; datatypes and ops are held by reference. A failed addition (memory)
 * is remembered and reported by start/run. */
void coll_sched_send(coll_sched_t *s, const void *buf, MPI_Count n, dtype_t *dt, int peer);
void coll_sched_recv(coll_sched_t *s, void *buf, MPI_Count n, dtype_t *dt, int peer);
/* The same with one of 256 sub-tags (0 for the plain forms): messages
 * between two ranks match by sub-tag, then in the order posted. */
void coll_sched_send_sub(coll_sched_t *s, const void *buf, MPI_Count n, dtype_t *dt, int peer,
                         int sub);
void coll_sched_recv_sub(coll_sched_t *s, void *buf, MPI_Count n, dtype_t *dt, int peer, int sub);
/* rbuf = sbuf (same type signature; the receiving side may be larger). */
void coll_sched_copy(coll_sched_t *s, const void *sbuf, MPI_Count sn, dtype_t *sdt, void *rbuf,
                     MPI_Count rn, dtype_t *rdt);
/* inout = in op inout */
void coll_sched_reduce(coll_sched_t *s, const void *in, void *inout, MPI_Count n, dtype_t *dt,
                       op_t *op);
/* Close the current round: later steps wait for it. */
void coll_sched_barrier(coll_sched_t *s);
/* Scratch room for n items of dt, freed with the schedule (NULL: the
 * failure is remembered). The pointer is shifted by the type's true lb. */
void *coll_sched_tmp(coll_sched_t *s, MPI_Count n, const dtype_t *dt);
/* Room for `bytes` plain bytes. */
void *coll_sched_bytes(coll_sched_t *s, size_t bytes);
/* Later steps talk over c (an intercommunicator's local communicator for
 * the local phases, which the intercommunicator outlives; the tags stay the
 * schedule's, unique on either context). */
void coll_sched_use(coll_sched_t *s, comm_t *c);
/* Mark the building as failed (bad arguments found while building). */
void coll_sched_fail(coll_sched_t *s, rm_status_t st);

/* Run to completion (blocking collectives); frees s. */
rm_status_t coll_sched_run(coll_sched_t *s);
/* Start as a nonblocking operation: *out is a request (kind REQ_GREQ, its
 * gstate the completion status as intptr_t) that completes when the
 * schedule ends. Takes s over, also on failure. */
rm_status_t coll_sched_start(coll_sched_t *s, request_t **out);

/* Persistent collectives (MPI-4.0 MPI_*_init): the schedule is kept; *out
 * is an inactive persistent request whose gstate is the schedule. Each
 * coll_sched_restart (MPI_Start) runs it from the first round again, with
 * the same tags (starts are ordered like the calls of any collective);
 * coll_sched_status is the outcome of the last run; coll_sched_release
 * frees the schedule (MPI_Request_free), after it completes if it runs. */
rm_status_t coll_sched_persist(coll_sched_t *s, request_t **out);
rm_status_t coll_sched_restart(request_t *r);
rm_status_t coll_sched_status(const void *gstate);
void coll_sched_release(void *gstate);

#endif
