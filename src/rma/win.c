/* Windows: creation (create, allocate, allocate_shared, dynamic), the
 * exchange of every rank's size and displacement unit (so the origin checks
 * ranges before anything is sent), shared segments, attached regions, and
 * the table that names a window on the wire. */
#include "rma/rma.h"
#include "coll/coll.h"
#include "util/clock.h"
#include "util/handle.h"
#include "util/lock.h"
#include "util/log.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static rm_htable_t rma_win_table = RM_HTABLE_INIT(RM_HOBJ_WIN, 0);
static win_t *rma_wins; /* live windows, for frames that name one by id */

/* A revoke of the communicator windows were created on revokes them:
 * every operation and synchronisation on them fails (RM_ERR_REVOKED), also
 * one waiting for an answer, and MPI_Win_free frees without waiting for
 * the other members. */
static void rma_revoked(uint32_t ctx)
{
    for (win_t *w = rma_wins; w; w = w->next)
        if (w->parent_ctx == ctx && !w->comm->revoked) {
            rm_log_info("rma: window %u revoked with the communicator it was created on", w->id);
            proto_ft_revoke_here(w->comm);
        }
}

rm_status_t rma_init(void)
{
    proto_ft_on_revoke(rma_revoked);
    proto_am_set(rma_am_recv);
    proto_am_data_set(rma_am_data_recv, rma_am_data_locate);
    return RM_OK;
}

static void rma_win_destroy(win_t *w);

/* No frame reads this window's memory any more (or its peer is lost). */
static int rma_win_unreferenced(void *arg)
{
    win_t *w = arg;
    for (int r = 0; w->zc && r < w->size; r++)
        if (w->zc[r] && !proto_peer_failure(comm_world_rank(w->comm, r)))
            return 0;
    return 1;
}

void rma_finalize(void)
{
    /* windows the program never freed go without a barrier (MPI_Finalize
     * had one) and without attribute callbacks (as communicators) */
    proto_am_set(NULL);
    proto_am_data_set(NULL, NULL);
    while (rma_wins) {
        win_t *w = rma_wins;
        /* frames still read from its memory (answers to gets) are acked
         * soon after the final barrier; a count the channel may still
         * decrement when that takes too long is left allocated */
        uint64_t until = rm_now() + 2000000000ull;
        while (!rma_win_unreferenced(w) && rm_now() < until)
            if (!proto_progress())
                rm_lock_yield();
        if (!rma_win_unreferenced(w)) {
            rm_log_debug("rma: window %u: frames read from it still unacknowledged at exit", w->id);
            w->zc = NULL;
        }
        rma_win_destroy(w);
    }
    rm_htable_destroy(&rma_win_table);
}

win_t *rma_win_get(MPI_Win h)
{
    return rm_htable_get(&rma_win_table, h);
}

/* The last windows freed while revoked (their ids are contexts, reused
 * only after other creations): late frames for them are expected. */
#define RMA_REVOKED_KEPT 8
static uint32_t rma_revoked_ids[RMA_REVOKED_KEPT];
static unsigned rma_revoked_n;

int rma_win_was_revoked(uint32_t id)
{
    for (unsigned i = 0; i < rma_revoked_n && i < RMA_REVOKED_KEPT; i++)
        if (rma_revoked_ids[i] == id)
            return 1;
    return 0;
}

win_t *rma_win_by_id(uint32_t id)
{
    for (win_t *w = rma_wins; w; w = w->next)
        if (w->id == id)
            return w;
    return NULL;
}

static void rma_win_destroy(win_t *w)
{
    rma_batch_free(w);
    if (w->handle)
        rm_htable_free(&rma_win_table, w->handle);
    for (win_t **p = &rma_wins; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    if (w->seg)
        munmap(w->seg, w->seg_len);
    free(w->mem);
    while (w->regions) {
        rma_region_t *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    while (w->lk_head) {
        rma_lockreq_t *q = w->lk_head;
        w->lk_head = q->next;
        free(q);
    }
    if (w->access)
        group_release(w->access);
    free(w->acc_ranks);
    free(w->exp_ranks);
    free(w->sizes);
    free(w->units);
    free(w->seg_off);
    free(w->lock);
    free(w->asked);
    free(w->answered);
    free(w->pending);
    free(w->dirty);
    free(w->zc);
    free(w->posts);
    free(w->bases);
    free(w->pids);
    if (w->errh)
        errhandler_release(w->errh);
    if (w->comm)
        comm_release(w->comm);
    free(w);
}

/* The segment of a shared window (coll_shm_segment). The parts follow
 * each other in rank order (MPI-4.1: contiguous unless alloc_shared_noncontig)
 * from a cache line; each starts on a cache line of its own when the
 * window allows it (w->noncontig; MPI_Win_allocate's windows too). */
static rm_status_t rma_win_map_shared(win_t *w)
{
    /* a cache line per rank first: the lock word that serialises the
     * accumulates into that rank's part (rma_direct.c) */
    size_t hdr = RMA_SEG_LOCK_BYTES * (size_t)w->size, data = 0;
    for (int r = 0; r < w->size; r++) {
        w->seg_off[r] = (MPI_Aint)(hdr + data);
        data += w->noncontig ? ((size_t)w->sizes[r] + 63) & ~(size_t)63 : (size_t)w->sizes[r];
    }
    if (!data)
        return RM_OK; /* every part empty: no segment */
    size_t total = hdr + data;
    char *seg;
    rm_status_t st = coll_shm_segment(w->comm, "win", total, 1, &seg);
    if (st < 0)
        return st;
    w->seg = seg;
    w->seg_len = total;
    w->base = w->len ? w->seg + w->seg_off[w->rank] : NULL;
    return RM_OK;
}

static int rma_same_host(const comm_t *c)
{
    int node = proto_proc.node_of[comm_world_rank(c, 0)];
    for (int r = 1; r < c->size; r++)
        if (proto_proc.node_of[comm_world_rank(c, r)] != node)
            return 0;
    return 1;
}

rm_status_t rma_win_create(comm_t *comm, void *base, MPI_Aint len, MPI_Aint disp_unit, int flavor,
                           int noncontig, win_t **out)
{
    *out = NULL;
    /* every rank sees the same hosts: all refuse together */
    if (flavor == MPI_WIN_FLAVOR_SHARED && !rma_same_host(comm))
        return RM_ERR_UNSUPPORTED;
    win_t *w = calloc(1, sizeof *w);
    if (!w)
        return RM_ERR_NOMEM;
    group_t *g = group_new(comm->size, 0);
    if (!g) {
        free(w);
        return RM_ERR_NOMEM;
    }
    memcpy(g->world, comm->group->world, sizeof(int) * (size_t)comm->size);
    rm_status_t st = comm_create_from(comm, g, &w->comm);
    if (st < 0) {
        group_release(g);
        free(w);
        return st;
    }
    int n = comm->size;
    w->id = w->comm->ctx;
    w->parent_ctx = comm->ctx;
    w->rank = w->comm->rank;
    w->size = n;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->disp_unit = disp_unit;
    w->len = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : len;
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
    w->errh = errhandler_get(MPI_ERRORS_ARE_FATAL);
    w->errh->refcount++;
    snprintf(w->name, sizeof w->name, "%s", "");
    w->sizes = calloc((size_t)n, sizeof *w->sizes);
    w->units = calloc((size_t)n, sizeof *w->units);
    w->seg_off = calloc((size_t)n, sizeof *w->seg_off);
    w->lock = calloc((size_t)n, sizeof *w->lock);
    w->asked = calloc((size_t)n, sizeof *w->asked);
    w->answered = calloc((size_t)n, sizeof *w->answered);
    w->pending = calloc((size_t)n, sizeof *w->pending);
    w->dirty = calloc((size_t)n, 1);
    w->zc = calloc((size_t)n, sizeof *w->zc);
    w->posts = calloc((size_t)n, sizeof *w->posts);
    w->bases = calloc((size_t)n, sizeof *w->bases);
    w->pids = calloc((size_t)n, sizeof *w->pids);
    int local_ok = w->bases && w->pids && w->sizes && w->units && w->seg_off && w->lock && w->asked && w->answered &&
                   w->pending && w->dirty && w->zc && w->posts;
    /* MPI_Win_allocate on one host: the memory is a shared segment too, so
     * puts and gets are plain copies (as a shared window's) */
    int segment = flavor == MPI_WIN_FLAVOR_SHARED ||
                  (flavor == MPI_WIN_FLAVOR_ALLOCATE && rma_same_host(comm));
    if (local_ok && !segment && flavor == MPI_WIN_FLAVOR_ALLOCATE && len > 0) {
        if (posix_memalign(&w->mem, 64, (size_t)len))
            local_ok = 0;
        else
            w->base = w->mem;
    }
    if (local_ok && !(w->handle = rm_htable_alloc(&rma_win_table, w)))
        local_ok = 0;
    if (local_ok) {
        w->next = rma_wins;
        rma_wins = w;
    }
    /* one exchange tells every rank everyone's size and unit, and whether
     * all could go on (a window some rank could not create fails on all)
     * and allow a noncontiguous layout (a rank that does not counts on its
     * neighbours' parts following its own) */
    enum { NX = 6 };
    MPI_Aint mine[NX] = {w->len, disp_unit, local_ok, (MPI_Aint)(uintptr_t)w->base, (MPI_Aint)getpid(),
                         noncontig || flavor != MPI_WIN_FLAVOR_SHARED};
    MPI_Aint *all = malloc(sizeof mine * (size_t)n);
    if (!all) {
        /* a few bytes per rank: without them this rank cannot take part */
        rma_win_destroy(w);
        return RM_ERR_NOMEM;
    }
    st = coll_allgather(mine, NX, dtype_get(MPI_AINT), all, NX, dtype_get(MPI_AINT), w->comm);
    w->noncontig = 1;
    for (int r = 0; st >= 0 && r < n; r++) {
        if (!all[NX * r + 2])
            st = RM_ERR_NOMEM;
        w->sizes[r] = all[NX * r];
        w->units[r] = all[NX * r + 1];
        w->bases[r] = (uint64_t)all[NX * r + 3];
        w->pids[r] = (int)all[NX * r + 4];
        w->noncontig &= all[NX * r + 5] != 0;
    }
    free(all);
    if (st >= 0 && segment) {
        st = rma_win_map_shared(w);
        if (st == RM_ERR_NOMEM && flavor == MPI_WIN_FLAVOR_ALLOCATE) {
            /* every rank saw the segment fail: all take private memory and
             * tell each other where it is (for cross-process copies) */
            rm_log_info("rma: MPI_Win_allocate falls back to private memory");
            int got = len == 0 || !posix_memalign(&w->mem, 64, (size_t)len);
            w->base = len ? w->mem : NULL;
            MPI_Aint me[2] = {(MPI_Aint)(uintptr_t)w->base, got}, *both = malloc(sizeof me * (size_t)n);
            st = both ? coll_allgather(me, 2, dtype_get(MPI_AINT), both, 2, dtype_get(MPI_AINT), w->comm)
                      : RM_ERR_NOMEM;
            for (int r = 0; st >= 0 && r < n; r++) {
                w->bases[r] = (uint64_t)both[2 * r];
                if (!both[2 * r + 1])
                    st = RM_ERR_NOMEM;
            }
            free(both);
        }
    }
    if (st < 0) {
        rma_win_destroy(w);
        return st;
    }
    w->attr_size = w->len;
    w->attr_unit = w->disp_unit > INT_MAX ? INT_MAX : (int)w->disp_unit;
    w->attr_flavor = w->flavor;
    w->attr_model = w->model;
    *out = w;
    return RM_OK;
}

rm_status_t rma_win_free(win_t *w)
{
    /* nobody frees before everyone's operations on it are complete (the
     * epochs are closed, so nothing waits in a batch; sent in any case).
     * A revoked window is freed here alone: the others may have freed it
     * already, or never synchronise on it again. */
    rm_status_t st = RM_OK;
    if (w->comm->revoked)
        rma_revoked_ids[rma_revoked_n++ % RMA_REVOKED_KEPT] = w->id;
    if (!w->comm->revoked) {
        st = rma_batch_flush(w, -1);
        rm_status_t b = coll_barrier(w->comm);
        if (st == RM_OK)
            st = b;
        if (st == RM_ERR_REVOKED) /* revoked during the barrier */
            st = RM_OK;
    }
    /* and none of its memory is still referenced by frames not yet
     * acknowledged (answers to gets, sent from it) */
    rm_status_t s = rma_progress_until(NULL, rma_win_unreferenced, w, -1);
    if (st == RM_OK)
        st = s;
    rma_win_destroy(w);
    return st;
}

void rma_win_shared_query(win_t *w, int rank, MPI_Aint *size, MPI_Aint *unit, void *baseptr)
{
    if (rank == MPI_PROC_NULL) {
        rank = -1;
        for (int r = 0; r < w->size && rank < 0; r++)
            if (w->sizes[r] > 0)
                rank = r;
    }
    if (rank < 0 || !w->seg) {
        *size = 0;
        *unit = rank < 0 ? w->disp_unit : w->units[rank];
        *(void **)baseptr = NULL;
        return;
    }
    *size = w->sizes[rank];
    *unit = w->units[rank];
    *(void **)baseptr = w->sizes[rank] ? w->seg + w->seg_off[rank] : NULL;
}

rm_status_t rma_win_attach(win_t *w, void *base, MPI_Aint size)
{
    rma_region_t *r = malloc(sizeof *r);
    if (!r)
        return RM_ERR_NOMEM;
    r->base = base;
    r->size = size;
    r->next = w->regions;
    w->regions = r;
    return RM_OK;
}

rm_status_t rma_win_detach(win_t *w, const void *base)
{
    for (rma_region_t **p = &w->regions; *p; p = &(*p)->next)
        if ((*p)->base == base) {
            rma_region_t *r = *p;
            *p = r->next;
            free(r);
            return RM_OK;
        }
    return RM_ERR_NOT_FOUND;
}

/* Whether the bytes [a, b) are all attached: the region holding a, then
 * the one holding where that region ends, and so on, so an access may run
 * from one region into an adjacent one (the two halves of an array attached
 * separately). An empty range needs a region it starts in or at the end of. */
static int rma_win_attached(const win_t *w, uintptr_t a, uintptr_t b)
{
    if (a > b)
        return 0;
    if (a == b) {
        for (const rma_region_t *r = w->regions; r; r = r->next)
            if ((uintptr_t)r->base <= a && a <= (uintptr_t)r->base + (uintptr_t)r->size)
                return 1;
        return 0;
    }
    while (a < b) {
        uintptr_t next = a;
        for (const rma_region_t *r = w->regions; r; r = r->next) {
            uintptr_t lo = (uintptr_t)r->base, end = lo + (uintptr_t)r->size;
            if (lo <= a && a < end && end > next)
                next = end;
        }
        if (next == a)
            return 0; /* a is not attached */
        a = next;
    }
    return 1;
}

char *rma_win_target_mem(win_t *w, uint64_t disp, int64_t lo, int64_t hi)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t a = (uintptr_t)disp + (uintptr_t)lo, b = (uintptr_t)disp + (uintptr_t)hi;
        return rma_win_attached(w, a, b) ? (char *)(uintptr_t)disp : NULL;
    }
    if ((int64_t)disp < 0 || (int64_t)disp + lo < 0 || (int64_t)disp + hi > (int64_t)w->len)
        return NULL;
    return w->base + disp;
}
