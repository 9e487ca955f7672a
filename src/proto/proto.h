/* Point-to-point engine: requests, matching, eager and rendezvous protocols,
 * progress. Everything above (collectives, communicator creation, the MPI
 * bindings) moves data only through this interface. */
#ifndef RM_PROTO_PROTO_H
#define RM_PROTO_PROTO_H

#include <stdatomic.h>
#include <stdint.h>

#include "mpi.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "util/status.h"

enum proto_mode { PROTO_STD = 0, PROTO_SYNC, PROTO_READY, PROTO_BUFFERED };

enum request_kind {
    REQ_SEND = 1,
    REQ_RECV,
    REQ_MSG,  /* matched message from MPI_Mprobe, waiting for MPI_Mrecv */
    REQ_GREQ, /* generalized request */
    REQ_RMA,  /* one-sided operation or synchronisation (src/rma); world_peer is its target */
    REQ_PSEND, /* partitioned send (src/proto/part.c), always persistent */
    REQ_PRECV, /* partitioned receive */
};

typedef struct request request_t;
typedef struct bsend_buf bsend_buf_t;

struct request {
    int handle;
    uint8_t kind;      /* enum request_kind */
    uint8_t mode;      /* enum proto_mode, sends */
    uint8_t persistent;
    uint8_t active;    /* persistent request started and not yet completed */
    uint8_t matched;   /* receives: a rendezvous matched, data comes from world_peer */
    uint8_t cancel_pending; /* sends: MPI_Cancel asked the receiver, no answer yet */
    uint8_t cancel_held;    /* the protocol completed while that answer was awaited */
    volatile int done;
    int refs;          /* handle + in-flight protocol references */
    rm_status_t err;   /* completion error (RM_ERR_TRUNCATE, ...) */
    int cancelled;
    MPI_Status status; /* MPI_SOURCE, MPI_TAG and the byte count are set on completion */
    /* the operation */
    void *buf;
    MPI_Count count;
    dtype_t *dt;
    comm_t *comm;
    int peer; /* rank in comm or MPI_ANY_SOURCE / MPI_PROC_NULL */
    int tag;
    uint32_t ctx;
    /* protocol state, owned by src/proto */
    uint64_t id;        /* wire id of this request */
    uint64_t post_seq;  /* matching order */
    size_t bytes;       /* packed size of the message on the wire */
    size_t done_bytes;  /* bytes transferred so far (pipelined protocols) */
    size_t recvd;       /* receives: bytes placed in the user buffer (the status count) */
    uint64_t peer_id;   /* the other side's request id (rendezvous) */
    const void *sdata;  /* sends: contiguous bytes to transmit (user buffer or tmp) */
    void *tmp;          /* staging buffer (noncontiguous data), freed with the request */
    void *rdma;         /* rendezvous by remote writes (proto/rdma.c): a send's writes, a
                         * receive's registrations */
    void *bsend_blk;    /* buffered sends: block in the attached buffer */
    request_t *inner;   /* MPI_Ibsend / MPI_Bsend_init: the internal send from that
                         * block (a reference), which a cancel withdraws */
    struct unexp *msg;  /* REQ_MSG: the matched unexpected message */
    struct part *part;  /* REQ_PSEND/REQ_PRECV: partitions and their messages */
    int world_peer;
    request_t *next, *prev; /* queue links owned by whoever holds the request */
    /* generalized requests */
    MPI_Grequest_query_function *gq;
    MPI_Grequest_free_function *gf;
    MPI_Grequest_cancel_function *gc;
    void *gstate;
    MPIX_Grequest_poll_function *gp; /* MPIX_Grequest_start: polled by tests and waits */
    MPIX_Grequest_wait_function *gw; /* ... and blocked in by waits */
};

typedef struct proto_proc {
    int world_size, world_rank;
    int node;        /* index of my host among the job's hosts */
    int *node_of;    /* world rank -> host index */
    int nnodes;
} proto_proc_t;

extern proto_proc_t proto_proc;

/* For MPI_T (src/mpit): the channel to a world rank, NULL while the engine
 * is down; the number of network rails. Read under the global lock. */
struct rail_channel;
struct rail_channel *proto_peer_channel(int world_rank);
int proto_net_rails(void);
/* Rendezvous sent to a world rank over network rails with less than their
 * whole window for want of credit (MPI_T proto_rndv_short_windows). */
uint64_t proto_peer_short_windows(int world_rank);
/* A setting of the config table (row index) changed while the job runs:
 * take it into use. RM_ERR_UNSUPPORTED: it is read only at MPI_Init (the
 * caller restores the old value); RM_ERR_INVALID: the value is refused. */
rm_status_t proto_setting_changed(int row);

/* Dynamic processes (procs.c). Process indices: world ranks, then the
 * processes of other jobs in the order they became known. A card names a
 * process for proto_proc_add, which answers its index (connecting it when
 * new); proto_proc_before is an order of processes every job agrees on. */
#define PROTO_CARD_MAX 1200
int proto_nprocs(void);
rm_status_t proto_card_mine(char *buf, size_t len);
rm_status_t proto_proc_add(const char *card, int *idx);
int proto_proc_before(int a, int b);
/* Blocking I/O on a socket to another job's leader that keeps the engine
 * progressing; deadline (rm_now() nanoseconds) 0: none. RM_ERR_TIMED_OUT past
 * it, RM_ERR_CONN_RESET when the other end is gone. */
rm_status_t proto_fd_wait(int fd, short events, uint64_t deadline);
rm_status_t proto_fd_write(int fd, const void *buf, size_t len, uint64_t deadline);
rm_status_t proto_fd_read(int fd, void *buf, size_t len, uint64_t deadline);
rm_status_t proto_fd_swap(int fd, const void *mine, size_t n, void *theirs, size_t m);

/* After boot_init: find the hosts, bring up transports and channels. */
rm_status_t proto_init(int world_rank, int world_size, const char *job_id);
rm_status_t proto_finalize(void);
/* The asynchronous progress thread (src/proto/async.c): heartbeats, failure
 * detection and progress while the application computes. Started once MPI
 * is up; proto_finalize stops it. */
rm_status_t proto_async_start(void);
void proto_async_stop(void);
/* Set before proto_async_start: the thread starts (RAILMPI_ASYNC_PROGRESS=auto)
 * even without network paths; its ticks are wanted (ft_detect.c). */
extern int proto_async_wanted;
/* Set when operator commands wait; progress then calls proto_async_commands.
 * A hint read without proto_ctl_lock (relaxed): the queue itself is read
 * under that lock. */
extern _Atomic int proto_commands_due;
void proto_async_commands(void);
/* Set while operations wait in the progress engine (proto_poll_add); the
 * thread then makes passes every few microseconds instead of every health
 * tick. proto_async_kick wakes it, or starts it (RAILMPI_ASYNC_PROGRESS=auto
 * on a job without network paths), when work appears; called with the
 * global lock held if it is enabled. */
extern _Atomic int proto_async_work;
void proto_async_kick(void);
/* net_upcalls_t.busy: a transport holds frames for its next progress pass
 * (1) or no longer (0); the thread then polls as for waiting operations. */
void proto_async_net_busy(int busy);
/* Move traffic off a network rail (off = 1) or back onto it; the number of
 * paths changed. */
int proto_rail_migrate(int rail, int off);

/* Start a send/receive. `ctx` is comm->ctx (point-to-point) or comm->ctx + 1
 * (collectives). Peer is a rank in comm or MPI_PROC_NULL (receives also
 * MPI_ANY_SOURCE). The request is returned with one reference for the caller. */
rm_status_t proto_isend(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                        comm_t *comm, uint32_t ctx, int mode, request_t **out);
rm_status_t proto_irecv(void *buf, MPI_Count count, dtype_t *dt, int src, int tag, comm_t *comm,
                        uint32_t ctx, request_t **out);

/* Probe the unexpected queue. *flag = 1 and status filled when a match exists.
 * With `msg`, the message is removed and returned as a REQ_MSG request (Mprobe). */
rm_status_t proto_iprobe(int src, int tag, comm_t *comm, uint32_t ctx, int *flag,
                         MPI_Status *status, request_t **msg);
/* Receive a message taken by Mprobe into buf. */
rm_status_t proto_imrecv(void *buf, MPI_Count count, dtype_t *dt, request_t *msg,
                         request_t **out);

/* MPI_Cancel. A receive still posted is cancelled at once; a send asks the
 * receiver to withdraw it (src/proto/cancel.c), and the request completes
 * when the answer comes: cancelled, or not (already matched). */
rm_status_t proto_cancel(request_t *r);

/* Blocking fast paths: complete without a request when the message goes
 * eagerly (send) or is already waiting (receive); fall back to a request. */
rm_status_t proto_send(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                       comm_t *comm, uint32_t ctx, int mode);
rm_status_t proto_recv(void *buf, MPI_Count count, dtype_t *dt, int src, int tag, comm_t *comm,
                       uint32_t ctx, MPI_Status *status);
/* (Re)start a persistent request created with proto_*_init. */
rm_status_t proto_start(request_t *r);
rm_status_t proto_send_init(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                            comm_t *comm, int mode, request_t **out);
rm_status_t proto_recv_init(void *buf, MPI_Count count, dtype_t *dt, int src, int tag,
                            comm_t *comm, request_t **out);
/* Partitioned communication (proto/part.c, docs/partitioned.md). Each
 * sender partition travels as its own message as soon as it is marked
 * ready; the receiver may use another partition count (same total size).
 * Requests are persistent; proto_start starts a cycle. */
rm_status_t proto_psend_init(const void *buf, int partitions, MPI_Count count, dtype_t *dt,
                             int dst, int tag, comm_t *comm, request_t **out);
rm_status_t proto_precv_init(void *buf, int partitions, MPI_Count count, dtype_t *dt, int src,
                             int tag, comm_t *comm, request_t **out);
/* Partitions of this side of the operation. */
int proto_part_count(const request_t *r);
/* 1 when partition p of an active send was marked ready in this cycle. */
int proto_part_is_ready(const request_t *r, int p);
/* Mark partition p of an active send ready and send it. RM_ERR_INVALID:
 * it was already marked in this cycle. */
rm_status_t proto_pready(request_t *r, int p);
/* Whether partition p of an active receive has arrived (runs progress). */
int proto_parrived(request_t *r, int p);
void proto_part_release(request_t *r); /* from proto_request_destroy */

/* Buffered send: pack into the attached buffer, send from there. */
rm_status_t proto_bsend(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                        comm_t *comm, request_t **out);
/* Send frames still queued anywhere, then return (MPI_Finalize). */
rm_status_t proto_drain(void);
/* Fill a status from a completed request (source, tag, error, count). */
void proto_status_fill(MPI_Status *st, const request_t *r);

/* Work finished by the progress engine (MPI_Comm_idup): fn(arg) runs on
 * every progress pass, from whichever thread drives progress, until it
 * returns nonzero. */
rm_status_t proto_poll_add(int (*fn)(void *arg), void *arg);

/* Active messages for one-sided communication (src/proto/am.c): the
 * payload travels as an ordinary sequenced frame (kept, resent after a
 * failover, delivered exactly once and in order) and is handed to the one
 * registered handler by whichever thread runs progress, the asynchronous
 * progress thread included. proto_am_send copies the payload (at most
 * proto_am_max() bytes); negative: the channel to the peer has failed. */
typedef void (*proto_am_fn)(int world_src, const void *payload, size_t len);
void proto_am_set(proto_am_fn fn);
/* unordered: the frame may be handed up on arrival, ahead of sequence order
 * (still exactly once), and may be striped over the rails; a later ordered
 * frame is still handed up only after it. */
rm_status_t proto_am_send(int world_dst, const void *payload, size_t len, int unordered);
size_t proto_am_max(void);
/* One-sided data with no handler header in the payload (a put piece into
 * contiguous target memory, the data answering a get): its description
 * travels in the frame header, so the receiver may have it land in place
 * (the locate function says where, or NULL to have it staged). Sent
 * unordered. With `sent`, the payload is referenced until sent(arg, status)
 * runs from progress (RM_INPROGRESS: after the peer acknowledged it);
 * without, it is copied. */
typedef struct proto_am_data {
    int kind;     /* the handler's, 0..255 */
    uint32_t win;
    int32_t rank; /* the sender's rank in the window */
    uint64_t off; /* byte offset: in the target's memory (put), in the get's data */
    uint64_t id;  /* the origin's request, 0 none */
} proto_am_data_t;
typedef void (*proto_am_data_fn)(int world_src, const proto_am_data_t *d, const void *payload,
                                 size_t len);
typedef void *(*proto_am_locate_fn)(int world_src, const proto_am_data_t *d, size_t len);
void proto_am_data_set(proto_am_data_fn fn, proto_am_locate_fn locate);
rm_status_t proto_am_data_send(int world_dst, const proto_am_data_t *d, const void *payload,
                               size_t len, void (*sent)(void *arg, rm_status_t st), void *arg);
/* 0, or why the channel to a world rank failed for good. */
rm_status_t proto_peer_failure(int world);
/* The world rank is on this host and single-copy access to its memory
 * (process_vm_readv/writev) is allowed by the configuration. */
int proto_local_peer(int world);
/* The job's name (shared segments are named after it). */
const char *proto_job_id(void);

/* One pass over every transport; returns number of events handled. */
int proto_progress(void);
/* Block (spin, then yield) until r->done. */
rm_status_t proto_wait(request_t *r);
/* The same, except that a receive from MPI_ANY_SOURCE returns
 * RM_ERR_PROC_FAILED_PENDING, still pending, once a failure on its
 * communicator is known and not acknowledged (MPI_Wait, MPI_Recv). */
rm_status_t proto_wait_ft(request_t *r);

/* ---- process failures (proto/ft.c; docs/ulfm.md) ---- */
/* Deaths known so far; 0 keeps every check of this section off the paths
 * of a job without failures. */
extern int proto_ft_nfailed;
/* Tags from this one on, on a communicator's collective context, belong to
 * the failure-tolerant operations (agreement, shrink, the final barrier):
 * a death or a revoke does not end their receives. */
#define PROTO_FT_TAG_MIN 0x7e000000
/* The launcher's failure board (ft.c): deaths listed, and how many of them
 * this process has read; progress polls it (proto_ft_board_poll). */
extern const uint32_t *proto_ft_board;
extern uint32_t proto_ft_board_read;
void proto_ft_board_poll(void);
/* Map the board (RAILMPI_PROC_FT, RAILMPI_FT_FD), after proto_init. */
rm_status_t proto_ft_init(void);
/* World rank `world` died (the launcher said so): its channel fails for
 * good, and what waits on it fails with RM_ERR_PROC_FAILED. */
void proto_ft_proc_failed(int world);
int proto_ft_failed(int world);
/* The i-th death known (world rank), in the order they became known. */
int proto_ft_nth(int i);
/* Members of c among the first `upto` deaths known. */
int proto_ft_comm_nfailed(const comm_t *c, int upto);
/* RM_ERR_REVOKED, RM_ERR_PROC_FAILED (a member died: collectives fail), or OK. */
rm_status_t proto_ft_comm_check(const comm_t *c);
/* r is a receive from MPI_ANY_SOURCE, not matched, on a communicator with
 * a death not acknowledged. */
int proto_ft_recv_blocked(const request_t *r);
/* Revoke c here and at every other member (MPIX_Comm_revoke). */
rm_status_t proto_ft_revoke(comm_t *c);
/* Mark c revoked in this process only and end its posted receives: for the
 * private communicators of objects built on a revoked one (windows, files),
 * whose other members see the same revoke. */
void proto_ft_revoke_here(comm_t *c);
/* Objects built on a communicator go with it: a layer that keeps such
 * objects (src/rma, src/io) registers a function that every member calls
 * with the context id of each communicator revoked there, the first time
 * and again at each copy of the revoke that arrives (it must not mind).
 * Registering the same function again does nothing. */
typedef void (*proto_ft_revoke_fn)(uint32_t ctx);
void proto_ft_on_revoke(proto_ft_revoke_fn fn);
/* Agreements that returned early (src/coll/agree.c): each member keeps the
 * decision of the last agreement it finished on a communicator (seq, its
 * words), and answers a survivor that asks for it (a PF_AGREE_Q frame to
 * world rank `world`) with a PF_AGREE_R frame, so that one whose way to the
 * decision was cut by a death still gets it from a member that has
 * returned. The agreement layer gets questions about agreements still
 * running here (`query`: it answers when it has decided) and the answers
 * (`answer`). */
void proto_ft_agree_keep(comm_t *c, uint32_t seq, const uint32_t *res, int words);
void proto_ft_agree_ask(comm_t *c, uint32_t seq, int world);
void proto_ft_agree_answer(comm_t *c, uint32_t seq, int world, const uint32_t *res, int words);
typedef void (*proto_ft_agree_query_fn)(comm_t *c, uint32_t seq, int world);
typedef void (*proto_ft_agree_answer_fn)(comm_t *c, uint32_t seq, const uint32_t *res, int words);
void proto_ft_agree_hooks(proto_ft_agree_query_fn query, proto_ft_agree_answer_fn answer);
/* A communicator freed here takes its record along to a few kept by
 * context id (a member may free it right after its last agreement while a
 * survivor still asks), until a communicator of that id is made again. */
void proto_ft_agree_park(comm_t *c);
void proto_ft_agree_unpark(uint32_t ctx);
/* MPI_Finalize's barrier when ranks of MPI_COMM_WORLD have died. */
rm_status_t proto_ft_final_barrier(comm_t *world);
void proto_ft_finalize(void);
/* Without the launcher's board (ft_detect.c): a board of this process's
 * own, which its peers' connections and the launcher's PMIx events fill
 * (wanted: RAILMPI_PROC_FT_DETECT says so, given whether mpiexec's board is there);
 * its length in *len, NULL without memory. Stop: no more looking (MPI_Finalize
 * after its final barrier: peers that leave now are not dead). */
int proto_ft_detect_wanted(int launcher_board);
const uint32_t *proto_ft_detect_init(size_t *len);
void proto_ft_detect_stop(void);
void proto_ft_detect_finalize(void);
/* A wait loop's pass found nothing to do: 1 when the caller should yield
 * its core now (after RAILMPI_SPIN_COUNT such passes in a row, or
 * RAILMPI_SPIN_OVERSUBSCRIBED on an oversubscribed host, or passes over
 * RAILMPI_SPIN_TIME_US microseconds); *idle counts the
 * passes and is reset to 0 by the caller when a pass did something. */
int proto_idle_due(int *idle);
rm_status_t proto_waitall(int n, request_t **reqs);

request_t *proto_request_alloc(int kind);
request_t *proto_request_get(MPI_Request h); /* NULL if invalid */
request_t *proto_request_by_id(uint64_t id);  /* wire id -> live request or NULL */
void proto_request_cleanup(void);
void proto_request_destroy(request_t *r);      /* the last reference went */
/* Drop the caller's reference (inline: every completion call does it). */
static inline void proto_request_release(request_t *r)
{
    if (--r->refs == 0)
        proto_request_destroy(r);
}
/* Call fn on every live request (failing those that wait on a lost peer). */
void proto_request_foreach(void (*fn)(request_t *r, void *arg), void *arg);
/* Complete a request (used by generalized requests and the engine). */
void proto_request_complete(request_t *r);

/* Buffered-send buffers (src/proto/bsend.c). A slot holds at most one
 * buffer: the process's (proto_bsend_proc_slot, MPI_Buffer_attach) or a
 * communicator's (comm_t.bsend). automatic: MPI_BUFFER_AUTOMATIC, the
 * library allocates as needed (buf and size are ignored). Attach:
 * RM_ERR_INVALID if the slot is taken. Detach waits for the buffer's pending
 * messages; RM_ERR_INVALID if the slot is empty. Orphan: the slot's owner
 * goes away (MPI_Comm_free); its messages still go out. Flush/iflush wait
 * for every message from the buffer (NULL: none) sent before the call. */
bsend_buf_t **proto_bsend_proc_slot(void);
rm_status_t proto_bsend_attach(bsend_buf_t **slot, void *buf, size_t size, int automatic);
rm_status_t proto_bsend_detach(bsend_buf_t **slot, void **buf, size_t *size, int *automatic);
void proto_bsend_orphan(bsend_buf_t **slot);
rm_status_t proto_bsend_flush(bsend_buf_t *b);
rm_status_t proto_bsend_iflush(bsend_buf_t *b, request_t **out);
/* A session's slot (MPI_Session_attach_buffer), shared by the session, the
 * groups taken from it and every communicator derived from those: held by
 * each, the buffer orphaned when the last lets go. A buffered send uses its
 * communicator's buffer, else its session's, else the process's. */
typedef struct bsend_share {
    int refs;
    bsend_buf_t *buf;
} bsend_share_t;
bsend_share_t *proto_bsend_share_new(void);
bsend_share_t *proto_bsend_share_hold(bsend_share_t *s); /* NULL stays NULL */
void proto_bsend_share_drop(bsend_share_t *s);
/* MPI_Finalize: detach the process's buffer and flush them all; again
 * after the communicators are freed, to free the buffers they held. */
void proto_bsend_finalize(void);

#endif
