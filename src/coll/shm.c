/* Small blocking collectives of a communicator whose ranks all share one
 * host, through a segment of shared memory that the communicator gets at
 * its first such collective, instead of messages.
 *
 * The segment holds, per rank, a `done` counter on a cache line of its own
 * (the last collective the rank has finished reading), SHM_CELLS (32) cells
 * of one cache line and SHM_SLOTS (8) slots of RAILMPI_COLL_SHM_MAX bytes.
 * Collective number k (counted per communicator; every rank runs the same
 * ones in the same order) uses cell k % 32: its first word is the number of
 * the last collective whose contribution the rank has written, and a
 * contribution of up to 48 bytes sits in the rest of the line, so a reader
 * takes the signal and the data in one transfer between cores; larger ones
 * go in slot k % 8. Before writing a rank waits until every rank is done
 * with the collective that last used the cell (k - 32) or the slot (k - 8),
 * remembering the least `done` it read, so the counters are read again only
 * every few collectives; it writes, then stores k in its cell (release); a
 * rank that needs the contribution waits for the cell to hold k or more
 * (acquire) and reads it in place; at the end it publishes `done` = k. So a
 * broadcast's root, or a reduction's non-root, returns without waiting for
 * the others (up to 31 small collectives or 7 larger ones ahead; on a host
 * with fewer cores than ranks the ones that wait then catch up in one
 * stretch, without a switch of the core per collective), and a barrier is a
 * store and n - 1 polls. A reduction's root uses its own contribution where
 * it is.
 * Broadcasts of more than RAILMPI_COLL_SHM_BCAST_MAX bytes keep to
 * messages, whose deeper queue lets the root run further ahead.
 * Reductions fold the contributions in rank order, the same on every rank
 * (the results of an allreduce are identical everywhere, also in floating
 * point, and non-commutative operations are right).
 *
 * A waiting rank polls the counter between rounds of progress of the
 * engine and yields the core as point-to-point waits do
 * (RAILMPI_SPIN_COUNT); a peer's failure ends the wait with its error. */
#include "coll/build.h"
#include "coll/coll.h"
#include "proto/engine.h"
#include "util/config.h"
#include "util/lock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SHM_LINE 64
/* Data starts this far into a cell (after its sequence word, aligned for
 * any type the reductions work on); up to SHM_INLINE bytes fit in it. */
#define SHM_DATA 16
#define SHM_INLINE (SHM_LINE - SHM_DATA)
#define SHM_MAX_PROCS 64
/* Cells and slots per rank: how many collectives a rank that need not wait
 * (a broadcast's root, a reduction's non-root) may run ahead of the
 * slowest, with contributions of up to SHM_INLINE bytes and with larger
 * ones. */
#define SHM_CELLS 32
#define SHM_SLOTS 8

typedef struct coll_shm {
    char *seg;
    size_t len, slot;  /* slot: bytes of one slot */
    char *cells, *slots; /* where the cells and the slots begin */
    uint64_t k;        /* collectives run through the segment */
    int small;         /* collective k's contributions fit in the cells */
    uint64_t done_min; /* every rank's `done` was at least this when last read */
} coll_shm_t;

enum { SHM_UNKNOWN = 0, SHM_NO, SHM_YES };

/* Rank r's `done` counter, on a cache line of its own. */
static uint64_t *shm_done(coll_shm_t *s, int r)
{
    return (uint64_t *)(s->seg + (size_t)r * SHM_LINE);
}

/* Rank r's cell for collective k; its first word is the number of the last
 * collective the rank has written. */
static uint64_t *shm_seq(coll_shm_t *s, int r, uint64_t k)
{
    return (uint64_t *)(s->cells + ((size_t)r * SHM_CELLS + (size_t)(k % SHM_CELLS)) * SHM_LINE);
}

/* Where rank r's contribution to collective k is: in its cell, or in its
 * slot for larger ones. */
static char *shm_slot(coll_shm_t *s, int r, uint64_t k)
{
    if (s->small)
        return (char *)shm_seq(s, r, k) + SHM_DATA;
    return s->slots + ((size_t)r * SHM_SLOTS + (size_t)(k % SHM_SLOTS)) * s->slot;
}

/* The next collective, whose contributions have `bytes` bytes each. */
static uint64_t shm_next(coll_shm_t *s, uint64_t bytes)
{
    s->small = bytes <= SHM_INLINE;
    return ++s->k;
}

/* The ranks of c (2 to SHM_MAX_PROCS of them, an intracommunicator) all
 * live on this host. */
static int shm_one_host(comm_t *c)
{
    if (c->remote_group || c->size < 2 || c->size > SHM_MAX_PROCS)
        return 0;
    const comm_hosts_t *h = coll_hosts(c);
    return h && h->nlead == 1;
}

/* A segment of `len` bytes for the ranks of c, all on this host: rank 0
 * creates it under a name with its pid (so no other job or communicator
 * can meet it) and reserves its pages (a tmpfs too small is an error here,
 * not a SIGBUS at the first store), then broadcasts the name, or that there
 * is none; the others map it, and an allreduce tells whether everybody did
 * before anyone uses it. The name goes at once. `here` is 0 on a rank that
 * cannot take part (it still joins the collectives). Collective on c; on any
 * failure no rank has a segment: RM_ERR_NOMEM, or the collectives' error. */
rm_status_t coll_shm_segment(comm_t *c, const char *what, size_t len, int here, char **out)
{
    struct {
        int ok;
        char name[124];
    } nm = {0};
    int fd = -1, ok = here, all = 0;
    char *seg = NULL;
    *out = NULL;
    if (c->rank == 0) {
        snprintf(nm.name, sizeof nm.name, "/railmpi-%s-%s%u-%ld", proto_job_id(), what, (unsigned)c->ctx,
                 (long)getpid());
        fd = here ? shm_open(nm.name, O_RDWR | O_CREAT | O_EXCL, 0600) : -1;
        int e = !here ? ENOMEM : fd < 0 || ftruncate(fd, (off_t)len) < 0 ? errno : posix_fallocate(fd, 0, (off_t)len);
        if (e)
            rm_log_info("%s: shared segment %s of %zu bytes: %s", what, nm.name, len, strerror(e));
        nm.ok = !e;
    }
    rm_status_t st = coll_bcast(&nm, sizeof nm, dtype_get(MPI_BYTE), 0, c);
    if (st < 0 || !nm.ok)
        goto out;
    if (c->rank != 0 && ok && (fd = shm_open(nm.name, O_RDWR, 0)) < 0) {
        rm_log_info("%s: shared segment %s: %s", what, nm.name, strerror(errno));
        ok = 0;
    }
    if (ok) {
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            rm_log_info("%s: mapping %s: %s", what, nm.name, strerror(errno));
        else
            seg = p;
        ok = seg != NULL;
    }
    st = coll_allreduce(&ok, &all, 1, dtype_get(MPI_INT), op_get(MPI_MIN), c);
    if (st >= 0 && all)
        *out = seg;
    else if (seg)
        munmap(seg, len);
out:
    if (fd >= 0)
        close(fd);
    if (c->rank == 0 && fd >= 0)
        shm_unlink(nm.name);
    return st < 0 ? st : *out ? RM_OK : RM_ERR_NOMEM;
}

/* The communicator's segment for its small collectives; NULL: every rank
 * goes on without one. */
static coll_shm_t *shm_create(comm_t *c)
{
    size_t slot = ((size_t)RM_CFG(coll_shm_max) + SHM_LINE - 1) & ~(size_t)(SHM_LINE - 1);
    size_t cells = (size_t)c->size * (1 + SHM_CELLS) * SHM_LINE;
    size_t len = cells + (size_t)c->size * SHM_SLOTS * slot;
    coll_shm_t *s = calloc(1, sizeof *s);
    char *seg;
    if (coll_shm_segment(c, "coll", len, s != NULL, &seg) < 0) {
        free(s);
        return NULL;
    }
    s->seg = seg;
    s->len = len;
    s->slot = slot;
    s->cells = s->seg + (size_t)c->size * SHM_LINE;
    s->slots = s->seg + cells;
    return s;
}

/* The communicator's segment when a collective moving `bytes` per rank
 * (per slot) may go through it; NULL: use messages. The same answer on
 * every rank for the same collective. */
static coll_shm_t *shm_get(comm_t *c, uint64_t bytes)
{
    if (c->shm_state == SHM_NO || bytes > (uint64_t)RM_CFG(coll_shm_max))
        return NULL;
    if (c->shm_state == SHM_YES)
        return bytes <= c->shm->slot ? c->shm : NULL;
    /* the first collective that could: settle it (the setup's own
     * collectives run with messages) */
    c->shm_state = SHM_NO;
    if (RM_CFG(coll_shm_max) == 0 || !shm_one_host(c))
        return NULL;
    if ((c->shm = shm_create(c)))
        c->shm_state = SHM_YES;
    return c->shm;
}

void coll_shm_free(comm_t *c)
{
    if (c->shm) {
        munmap(c->shm->seg, c->shm->len);
        free(c->shm);
    }
    c->shm = NULL;
    c->shm_state = SHM_UNKNOWN;
}

/* Wait until rank r's counter reaches k. */
static rm_status_t shm_wait(comm_t *c, const uint64_t *word, uint64_t k, int r)
{
    int idle = 0;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < k) {
        if (proto_progress()) {
            idle = 0;
        } else if (proto_idle_due(&idle)) {
            rm_status_t f = proto_peer_failure(c->group->world[r]);
            if (f < 0)
                return f;
            /* a member died or the communicator was revoked: the rank
             * waited for may have given up on this collective */
            if ((proto_ft_nfailed || c->revoked) && (f = proto_ft_comm_check(c)) < 0)
                return f;
            rm_lock_yield();
        }
    }
    return RM_OK;
}

/* Before writing into slot k % SHM_SLOTS: nobody reads it for collective
 * k - SHM_SLOTS. */
static rm_status_t shm_slot_free(comm_t *c, coll_shm_t *s, uint64_t k)
{
    uint64_t depth = s->small ? SHM_CELLS : SHM_SLOTS;
    if (k <= depth || s->done_min >= k - depth)
        return RM_OK; /* known already: the counters are not read again */
    uint64_t least = UINT64_MAX;
    for (int r = 0; r < c->size; r++) {
        rm_status_t st = shm_wait(c, shm_done(s, r), k - depth, r);
        if (st < 0)
            return st;
        uint64_t d = __atomic_load_n(shm_done(s, r), __ATOMIC_ACQUIRE);
        if (d < least)
            least = d;
    }
    s->done_min = least;
    return RM_OK;
}

/* count items of dt to and from a slot: a copy when they are contiguous. */
static void shm_pack(const void *buf, MPI_Count count, const dtype_t *dt, char *slot, size_t bytes)
{
    if (dtype_is_contig(dt, count))
        memcpy(slot, (const char *)buf + dt->true_lb, bytes);
    else
        dtype_pack(buf, count, dt, 0, slot, bytes);
}

static void shm_unpack(void *buf, MPI_Count count, const dtype_t *dt, const char *slot, size_t bytes)
{
    if (dtype_is_contig(dt, count))
        memcpy((char *)buf + dt->true_lb, slot, bytes);
    else
        dtype_unpack(buf, count, dt, 0, slot, bytes);
}

static void shm_publish(uint64_t *word, uint64_t k)
{
    __atomic_store_n(word, k, __ATOMIC_RELEASE);
}

int coll_shm_barrier(comm_t *c)
{
    coll_shm_t *s = shm_get(c, 0);
    if (!s)
        return 0;
    uint64_t k = shm_next(s, 0);
    shm_publish(shm_seq(s, c->rank, k), k);
    rm_status_t st = RM_OK;
    for (int r = 0; r < c->size && st == RM_OK; r++)
        st = shm_wait(c, shm_seq(s, r, k), k, r);
    shm_publish(shm_done(s, c->rank), k);
    return st < 0 ? st : 1;
}

int coll_shm_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (bytes > (uint64_t)RM_CFG(coll_shm_bcast_max))
        return 0;
    coll_shm_t *s = shm_get(c, bytes);
    if (!s)
        return 0;
    uint64_t k = shm_next(s, bytes);
    rm_status_t st = RM_OK;
    char *slot = shm_slot(s, root, k);
    if (c->rank == root) {
        if ((st = shm_slot_free(c, s, k)) == RM_OK) {
            shm_pack(buf, count, dt, slot, (size_t)bytes);
            shm_publish(shm_seq(s, root, k), k);
        }
    } else if ((st = shm_wait(c, shm_seq(s, root, k), k, root)) == RM_OK) {
        shm_unpack(buf, count, dt, slot, (size_t)bytes);
    }
    shm_publish(shm_done(s, c->rank), k);
    return st < 0 ? st : 1;
}

/* Reductions work on the contributions in place: a contiguous type whose
 * data starts at its buffer (what the op functions are given). */
static int shm_reducible(const dtype_t *dt, MPI_Count count)
{
    return dtype_is_contig(dt, count) && dt->true_lb == 0;
}

/* Write my contribution, then (all_read: every rank; else the root) fold
 * everybody's in rank order into rbuf. */
static int shm_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                      int root, comm_t *c)
{
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (!shm_reducible(dt, count))
        return 0;
    coll_shm_t *s = shm_get(c, bytes);
    if (!s)
        return 0;
    int n = c->size, me = c->rank, reads = root < 0 || root == me;
    /* a reduce's root reads its own contribution where it is, unless it is
     * in rbuf (MPI_IN_PLACE), which the folding overwrites */
    int own = root == me && sbuf != MPI_IN_PLACE;
    uint64_t k = shm_next(s, bytes);
    rm_status_t st = own ? RM_OK : shm_slot_free(c, s, k);
    if (st == RM_OK && !own) {
        memcpy(shm_slot(s, me, k), sbuf == MPI_IN_PLACE ? rbuf : sbuf, (size_t)bytes);
        shm_publish(shm_seq(s, me, k), k);
    }
    int rc = MPI_SUCCESS;
    if (reads && st == RM_OK) {
        /* rbuf = c0 op (c1 op (... op c[n-1])) */
#define CONTRIB(r) (own && (r) == me ? sbuf : (const void *)shm_slot(s, r, k))
        if (own && n - 1 == me)
            memcpy(rbuf, sbuf, (size_t)bytes);
        else if ((st = shm_wait(c, shm_seq(s, n - 1, k), k, n - 1)) == RM_OK)
            memcpy(rbuf, shm_slot(s, n - 1, k), (size_t)bytes);
        for (int r = n - 2; r >= 0 && st == RM_OK; r--)
            if ((own && r == me) || (st = shm_wait(c, shm_seq(s, r, k), k, r)) == RM_OK)
                if (rc == MPI_SUCCESS)
                    rc = op_apply(op, CONTRIB(r), rbuf, count, dt);
#undef CONTRIB
    }
    shm_publish(shm_done(s, me), k);
    if (st < 0)
        return st;
    return rc == MPI_SUCCESS ? 1 : RM_ERR_INVALID;
}

int coll_shm_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op, int root,
                    comm_t *c)
{
    return shm_reduce(sbuf, rbuf, count, dt, op, root, c);
}

int coll_shm_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                       comm_t *c)
{
    return shm_reduce(sbuf, rbuf, count, dt, op, -1, c);
}

int coll_shm_allgather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                       MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    uint64_t bytes = (uint64_t)rcount * (uint64_t)rdt->size;
    coll_shm_t *s = shm_get(c, bytes);
    if (!s)
        return 0;
    int n = c->size, me = c->rank;
    MPI_Aint rext = rdt->extent * (MPI_Aint)rcount;
    uint64_t k = shm_next(s, bytes);
    rm_status_t st = shm_slot_free(c, s, k);
    if (st == RM_OK) {
        if (sbuf == MPI_IN_PLACE)
            shm_pack((char *)rbuf + me * rext, rcount, rdt, shm_slot(s, me, k), (size_t)bytes);
        else
            shm_pack(sbuf, scount, sdt, shm_slot(s, me, k), (size_t)bytes);
        shm_publish(shm_seq(s, me, k), k);
    }
    for (int r = 0; r < n && st == RM_OK; r++)
        if ((r != me || sbuf != MPI_IN_PLACE) && (st = shm_wait(c, shm_seq(s, r, k), k, r)) == RM_OK)
            shm_unpack((char *)rbuf + r * rext, rcount, rdt, shm_slot(s, r, k), (size_t)bytes);
    shm_publish(shm_done(s, me), k);
    return st < 0 ? st : 1;
}

int coll_shm_alltoall(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                      MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    int n = c->size, me = c->rank;
    uint64_t bytes = (uint64_t)rcount * (uint64_t)rdt->size;
    coll_shm_t *s = shm_get(c, bytes * (uint64_t)n);
    if (!s)
        return 0;
    MPI_Aint rext = rdt->extent * (MPI_Aint)rcount;
    uint64_t k = shm_next(s, bytes * (uint64_t)n);
    rm_status_t st = shm_slot_free(c, s, k);
    if (st == RM_OK) {
        char *mine = shm_slot(s, me, k);
        for (int r = 0; r < n; r++) {
            if (sbuf == MPI_IN_PLACE)
                shm_pack((char *)rbuf + r * rext, rcount, rdt, mine + r * bytes, (size_t)bytes);
            else
                shm_pack((const char *)sbuf + r * sdt->extent * (MPI_Aint)scount, scount, sdt,
                         mine + r * bytes, (size_t)bytes);
        }
        shm_publish(shm_seq(s, me, k), k);
    }
    for (int r = 0; r < n && st == RM_OK; r++)
        if ((st = shm_wait(c, shm_seq(s, r, k), k, r)) == RM_OK)
            shm_unpack((char *)rbuf + r * rext, rcount, rdt, shm_slot(s, r, k) + me * bytes,
                         (size_t)bytes);
    shm_publish(shm_done(s, me), k);
    return st < 0 ? st : 1;
}
