/* One-sided communication: windows, epochs and operations. Operations are
 * active messages over the channel (src/proto/am.c): the target applies
 * them in its progress engine, one frame at a time, so accumulates are
 * atomic per element and a frame resent after a failover is applied once
 * (the channel delivers every sequenced frame exactly once, in order).
 * Synchronisation is by request and answer on the same ordered channel: an
 * answer to a flush, unlock or complete leaves the target after every
 * operation sent before it was applied. See docs/rma.md. */
#ifndef RM_RMA_RMA_H
#define RM_RMA_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "coll/op.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "proto/proto.h"
#include "util/status.h"

struct attr_list;

typedef struct rma_region { /* memory attached to a dynamic window */
    char *base;
    MPI_Aint size;
    struct rma_region *next;
} rma_region_t;

typedef struct rma_lockreq { /* a lock request waiting at its target */
    int rank;  /* origin's rank in the window */
    int type;  /* MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE */
    struct rma_lockreq *next;
} rma_lockreq_t;

typedef struct win {
    int handle;
    uint32_t id;        /* names the window on the wire: its communicator's context */
    comm_t *comm;       /* private duplicate of the creating communicator */
    uint32_t parent_ctx; /* the creating communicator's context: its revoke revokes comm */
    int rank, size;     /* in comm */
    char *base;
    MPI_Aint len;       /* this rank's size */
    MPI_Aint disp_unit;
    int flavor;         /* MPI_WIN_FLAVOR_* */
    int model;          /* MPI_WIN_UNIFIED */
    MPI_Aint *sizes;    /* every rank's size and disp_unit (origin-side range checks) */
    MPI_Aint *units;
    uint64_t *bases;    /* every rank's base address and process id (one-host direct access) */
    int *pids;
    int direct_off;     /* the kernel refused cross-process copies: use active messages */
    void *mem;          /* MPI_Win_allocate's memory */
    char *seg;          /* MPI_Win_allocate_shared: the mapped segment */
    size_t seg_len;
    MPI_Aint *seg_off;  /* rank -> offset of its part in the segment */
    int noncontig;      /* the parts start on cache lines, not each right after the last */
    rma_region_t *regions; /* MPI_Win_create_dynamic */
    /* MPI-side state */
    errhandler_t *errh;
    char name[MPI_MAX_OBJECT_NAME];
    struct attr_list *attrs;
    MPI_Aint attr_size; /* what the predefined attributes point at */
    int attr_unit, attr_flavor, attr_model; /* attr_unit: an int, saturated at INT_MAX */
    /* origin side */
    int fence;          /* an epoch opened by MPI_Win_fence is on */
    group_t *access;    /* MPI_Win_start's group (ranks of comm in `acc_ranks`) */
    int *acc_ranks, nacc;
    int *lock;          /* per rank: 0 or the lock type held */
    int nlocks;         /* targets locked by MPI_Win_lock */
    int lock_all;
    uint64_t *asked, *answered; /* per rank: sync requests sent and answers received */
    int *pending;       /* per rank: operations waiting for data from the target */
    unsigned char *dirty; /* per rank: operations sent since its last completion */
    int *zc;            /* per rank: frames to it sent from where the data is (a put's origin
                           buffer, this window's memory answering a get), which the channel
                           references until acknowledged */
    int err;            /* MPI error class an answer reported, raised at the next sync */
    struct rma_batch **batch; /* per rank: small operations not yet sent (rma_op.c) */
    /* target side */
    int lk_shared, lk_excl;
    rma_lockreq_t *lk_head, *lk_tail;
    int *posts;         /* per rank: MPI_Win_post received, not yet used by a start */
    int *exp_ranks, nexp; /* MPI_Win_post's group */
    int exposed;        /* an exposure epoch is on */
    int completes;      /* MPI_Win_complete received in this exposure epoch */
    struct win *next;   /* live windows */
} win_t;

/* ---- windows (win.c) ---- */
rm_status_t rma_init(void);     /* registers the active-message handler */
void rma_finalize(void);
win_t *rma_win_get(MPI_Win h);  /* NULL if not a live window */
win_t *rma_win_by_id(uint32_t id);
/* Window `id` was revoked and freed here lately: its peers' frames may still come. */
int rma_win_was_revoked(uint32_t id);
/* Collective over comm. base/len: the memory (create), or NULL with
 * flavor ALLOCATE / SHARED to have it allocated; DYNAMIC: none.
 * noncontig: this rank allows a shared window's parts not to follow each
 * other (alloc_shared_noncontig); they start on cache lines if all allow it.
 * RM_ERR_UNSUPPORTED: a shared window whose ranks are not all on one host. */
rm_status_t rma_win_create(comm_t *comm, void *base, MPI_Aint len, MPI_Aint disp_unit, int flavor,
                           int noncontig, win_t **out);
rm_status_t rma_win_free(win_t *w); /* collective; the caller checked the epochs */
void rma_win_shared_query(win_t *w, int rank, MPI_Aint *size, MPI_Aint *unit, void *baseptr);
rm_status_t rma_win_attach(win_t *w, void *base, MPI_Aint size);
rm_status_t rma_win_detach(win_t *w, const void *base); /* RM_ERR_NOT_FOUND */
/* Target memory for [disp, disp + span) of my window, NULL if outside it
 * (disp in bytes; for dynamic windows, an address). */
char *rma_win_target_mem(win_t *w, uint64_t disp, int64_t lo, int64_t hi);

/* ---- target datatypes on the wire (rma_dtype.c) ---- */
/* Bytes needed to describe dt (0 for a predefined type). */
size_t rma_dtype_enc_len(const dtype_t *dt);
void rma_dtype_encode(const dtype_t *dt, unsigned char *out);
/* Rebuild a described type (one reference), NULL if malformed. */
dtype_t *rma_dtype_decode(const unsigned char *in, size_t len);

/* ---- operations (rma_op.c) ---- */
enum rma_opkind { RMA_OP_PUT = 1, RMA_OP_GET, RMA_OP_ACC, RMA_OP_GACC, RMA_OP_CAS };

typedef struct rma_args {
    int kind;               /* enum rma_opkind */
    const void *obuf;       /* origin data (PUT, ACC, GACC, CAS) */
    MPI_Count ocount;
    dtype_t *odt;
    void *rbuf;             /* result (GET: the origin buffer; GACC, CAS) */
    MPI_Count rcount;
    dtype_t *rdt;
    const void *cbuf;       /* CAS: compare value */
    int target;             /* rank in the window */
    MPI_Aint disp;
    MPI_Count tcount;
    dtype_t *tdt;
    op_t *op;               /* ACC, GACC */
    MPI_Op oph;
} rma_args_t;

/* The MPI error class of a call that is not allowed (MPI_SUCCESS if it is). */
int rma_op_check(win_t *w, const rma_args_t *a);
/* Start an operation; with `req`, a request that completes when the
 * operation is complete at the origin (the caller's reference). */
rm_status_t rma_op_start(win_t *w, const rma_args_t *a, request_t **req);
void rma_am_recv(int world_src, const void *payload, size_t len);
/* Bulk data as PF_AMDATA (proto_am_data_t.kind) */
enum rma_data_kind { RMA_D_PUT = 1, RMA_D_GET };
void rma_am_data_recv(int world_src, const proto_am_data_t *d, const void *payload, size_t len);
void *rma_am_data_locate(int world_src, const proto_am_data_t *d, size_t len);
/* Frames of at least this many bytes are sent from where their data is */
#define RMA_ZC_MIN 8192

/* ---- one-host direct access (rma_direct.c) ---- */
/* An operation straight on the target's memory when it is on this host:
 * every kind on a window in a shared segment (accumulates under the
 * segment's lock word of the target), puts and gets into contiguous target
 * data of this process or (cross-process copy) another one on the host.
 * RM_OK done, RM_ERR_UNSUPPORTED not possible (use active messages). */
rm_status_t rma_direct(win_t *w, const rma_args_t *a);
/* The bindings' fast accumulate on a segment: count items of the contiguous
 * predefined type dt from `in` into the target part's memory at `mem` (n
 * bytes) under the part's lock word. MPI_SUCCESS, or the op's error class
 * with the memory untouched (the general path then reports it). */
int rma_seg_acc(win_t *w, int t, char *mem, const void *in, MPI_Count count, const dtype_t *dt,
                const op_t *op, size_t n);
/* A segment starts with one lock word per rank, a cache line each. */
#define RMA_SEG_LOCK_BYTES 64
/* mem <- origin op mem on the packed range [pos, pos + bytes) of (mem,
 * tcount, tdt); the previous packed value to `old` if non-NULL. An MPI
 * error class. */
int rma_acc_apply(char *mem, MPI_Op oph, int64_t tcount, const dtype_t *tdt, size_t pos,
                  size_t bytes, const void *in, void *old);

/* ---- synchronisation (rma_sync.c) ---- */
rm_status_t rma_fence(win_t *w, int assert);
rm_status_t rma_post(win_t *w, group_t *g);
rm_status_t rma_start(win_t *w, group_t *g);
rm_status_t rma_complete(win_t *w);
rm_status_t rma_wait(win_t *w);
int rma_test(win_t *w);
rm_status_t rma_lock(win_t *w, int type, int rank);
rm_status_t rma_unlock(win_t *w, int rank);
rm_status_t rma_lock_all(win_t *w);
rm_status_t rma_unlock_all(win_t *w);
rm_status_t rma_flush(win_t *w, int rank, int local); /* rank -1: every rank */
/* An access epoch to `rank` is open (fence, lock, lock_all or start). */
static inline int rma_epoch_covers(const win_t *w, int rank)
{
    if (w->fence || w->lock_all || w->lock[rank])
        return 1;
    for (int i = 0; i < w->nacc; i++)
        if (w->acc_ranks[i] == rank)
            return 1;
    return 0;
}

/* internal to src/rma */
typedef struct rma_msg {
    uint8_t kind;       /* enum rma_msg_kind */
    uint8_t lock;       /* RMA_M_LOCK: the lock type */
    uint16_t tdlen;     /* bytes of target type description after the header */
    int32_t status;     /* answers: MPI_SUCCESS or the error class found */
    uint32_t win;
    int32_t op;         /* MPI_Op */
    int32_t tdt;        /* predefined target datatype (tdlen == 0) */
    int32_t rank;       /* sender's rank in the window */
    uint64_t disp;      /* bytes from the window base (dynamic: an address) */
    int64_t tcount;
    uint64_t pos, bytes; /* the packed range of the target data in this frame */
    uint64_t id;        /* the origin's request to answer (0: none) */
} rma_msg_t;

/* RMA_M_DATA's `op`: the answer to a plain get (may overtake other frames) */
#define RMA_DATA_OF_GET 1

enum rma_msg_kind {
    RMA_M_PUT = 1, RMA_M_GET, RMA_M_ACC, RMA_M_GACC, RMA_M_CAS, /* operations */
    RMA_M_DATA,    /* data back for GET, GACC, CAS; id = request, pos = offset */
    RMA_M_LOCK, RMA_M_UNLOCK, RMA_M_FLUSH, /* sync requests, each answered by one REPLY */
    RMA_M_REPLY,
    RMA_M_POST, RMA_M_COMPLETE, /* PSCW notices, not answered */
    RMA_M_BATCH,   /* small operations, each as its own frame would be: [uint32 len][frame]... */
};

rm_status_t rma_send(win_t *w, int rank, rma_msg_t *m, const void *a, size_t alen,
                     const void *b, size_t blen);
void rma_sync_recv(win_t *w, const rma_msg_t *m);
/* Small puts and accumulates (a frame of at most RMA_BATCH_OP_MAX bytes)
 * wait per target in one frame of at most RMA_BATCH_MAX bytes (its buffer
 * grows as it fills; at most the transport's largest frame), sent when
 * it is full, before any other frame to that target (so the target applies
 * everything in the order it was issued) and at every synchronisation:
 * MPI completes them only there, and one frame for many saves a send and a
 * wake-up each. rma_batch_flush sends rank's batch (-1: every rank's);
 * rma_batch_free drops the buffers. */
#define RMA_BATCH_OP_MAX 4096
#define RMA_BATCH_MAX 65536
rm_status_t rma_batch_flush(win_t *w, int rank);
void rma_batch_free(win_t *w);
/* Progress until done(arg) or the peer (world rank, -1 none) is lost. */
/* Progress until done(arg); RM_ERR_REVOKED once c (if not NULL) is revoked,
 * the failure of world rank `world` (if >= 0) once it has failed. */
rm_status_t rma_progress_until(const comm_t *c, int (*done)(void *), void *arg, int world);

#endif
