/* One-sided operation and synchronisation bindings: argument checks, the
 * epoch rules (MPI_ERR_RMA_SYNC), ranges (MPI_ERR_RMA_RANGE), then src/rma. */
#include "coll/op.h"
#include "mpi/win_impl.h"

#include <stdlib.h>
#include <string.h>

#define RMA_ASSERTS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int rma_passive(const win_t *w, int rank)
{
    return w->lock_all || w->lock[rank];
}

/* A datatype for one side of an operation: valid and committed. */
static dtype_t *rma_type(MPI_Datatype h)
{
    dtype_t *dt = dtype_get(h);
    return dt && dt->committed ? dt : NULL;
}

/* What every operation shares: the window, counts, types, the target and
 * the epoch. Fills `a` and starts it. */
static int rma_op_common(const char *fn_name_, rma_args_t *a, MPI_Datatype oh, MPI_Datatype rh,
                         MPI_Datatype th, MPI_Win win, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    win_t *w;
    CHECK_WIN(w, win);
    if (request)
        *request = MPI_REQUEST_NULL;
    if (a->ocount < 0 || a->rcount < 0 || a->tcount < 0)
        WIN_FAIL(w, MPI_ERR_COUNT, "negative %s %lld",
                 a->tcount < 0 ? "target_count" : a->kind == RMA_OP_GET ? "origin_count"
                                                  : a->ocount < 0 ? "origin_count" : "result_count",
                 (long long)(a->tcount < 0 ? a->tcount : a->ocount < 0 ? a->ocount : a->rcount));
    int uses_origin = a->kind != RMA_OP_GET && !(a->kind == RMA_OP_GACC && a->oph == MPI_NO_OP);
    int uses_result = a->kind == RMA_OP_GET || a->kind == RMA_OP_GACC || a->kind == RMA_OP_CAS;
    if (uses_origin && !(a->odt = rma_type(oh)))
        WIN_FAIL(w, MPI_ERR_TYPE, "invalid or uncommitted origin datatype 0x%x", (unsigned)oh);
    if (uses_result && !(a->rdt = rma_type(rh)))
        WIN_FAIL(w, MPI_ERR_TYPE, "invalid or uncommitted datatype 0x%x", (unsigned)rh);
    if (!(a->tdt = rma_type(th)))
        WIN_FAIL(w, MPI_ERR_TYPE, "invalid or uncommitted target datatype 0x%x", (unsigned)th);
    if (!uses_origin) {
        a->odt = a->tdt;
        a->ocount = 0;
    }
    if (a->kind == RMA_OP_ACC || a->kind == RMA_OP_GACC) {
        if (!(a->op = op_get(a->oph)) || !a->op->builtin)
            WIN_FAIL(w, MPI_ERR_OP, "invalid or user-defined operation 0x%x", (unsigned)a->oph);
        if (a->kind == RMA_OP_ACC && a->oph == MPI_NO_OP)
            WIN_FAIL(w, MPI_ERR_OP, "MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op");
    }
    if (a->target != MPI_PROC_NULL && (a->target < 0 || a->target >= w->size))
        WIN_FAIL(w, MPI_ERR_RANK, "invalid target rank %d (window of %d processes)", a->target, w->size);
    if (request && a->target != MPI_PROC_NULL && !rma_passive(w, a->target))
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "request-based operations need a passive target epoch");
    CHECK_WIN_REVOKED(w);
    if (a->target == MPI_PROC_NULL) {
        if (request) {
            request_t *r = proto_request_alloc(REQ_RMA);
            if (!r)
                WIN_FAIL(w, MPI_ERR_NO_MEM, "out of memory");
            r->done = 1;
            *request = r->handle;
        }
        goto fn_exit;
    }
    if ((err = rma_op_check(w, a)) != MPI_SUCCESS) {
        int e = err;
        if (e == MPI_ERR_RMA_SYNC)
            WIN_FAIL(w, e, "no access epoch to rank %d is open", a->target);
        if (e == MPI_ERR_RMA_RANGE)
            WIN_FAIL(w, e, "displacement %ld outside the window of rank %d", (long)a->disp, a->target);
        WIN_FAIL(w, e, "origin and target data do not match");
    }
    request_t *r = NULL;
    rm_status_t st = rma_op_start(w, a, request ? &r : NULL);
    if (st < 0)
        WIN_FAIL(w, mpi_err_from_status(st), "%s", rm_status_str(st));
    if (request)
        *request = r->handle;
    MPI_END();
}

/* The common small case, taken before the general path: a put or get of
 * `count` items of one contiguous predefined type on both sides, into a
 * window that is one shared segment, by a process that is not
 * multithreaded, inside an access epoch and within the target's part. It
 * is the copy rma_seg_op would make, without the argument record, the
 * datatype lookups and the dispatch; anything else (including every
 * error) takes the general path, which checks and reports it. The target
 * part's address, or NULL. */
static inline char *rma_seg_fast(MPI_Win win, int target, MPI_Aint disp, MPI_Count ocount,
                                 MPI_Datatype odt, MPI_Count tcount, MPI_Datatype tdt, size_t *n,
                                 win_t **wp, const dtype_t **dtp)
{
    if (!mpi_state.initialized || mpi_state.finalized || rm_lock_enabled || odt != tdt ||
        ocount != tcount || ocount <= 0)
        return NULL;
    win_t *w = rma_win_get(win);
    if (!w || !w->seg || (unsigned)target >= (unsigned)w->size || w->comm->revoked)
        return NULL;
    const dtype_t *dt = dtype_get(tdt);
    if (!dt || !dt->builtin || !dt->contig || dt->extent != (MPI_Aint)dt->size || dt->true_lb)
        return NULL;
    int64_t off, bytes;
    if (__builtin_mul_overflow((int64_t)ocount, (int64_t)dt->size, &bytes) || disp < 0 ||
        __builtin_mul_overflow((int64_t)disp, (int64_t)w->units[target], &off) ||
        off > (int64_t)w->sizes[target] - bytes || !rma_epoch_covers(w, target))
        return NULL;
    *n = (size_t)bytes;
    *wp = w;
    *dtp = dt;
    return w->seg + w->seg_off[target] + off;
}

/* The operations, one implementation each for the int and the _c
 * bindings (MPI_Count counts). */
static int rma_put(const char *fn, const void *origin_addr, MPI_Count origin_count,
                   MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                   MPI_Request *request)
{
    size_t n;
    win_t *w;
    const dtype_t *dt;
    char *mem = request ? NULL
                        : rma_seg_fast(win, target_rank, target_disp, origin_count,
                                       origin_datatype, target_count, target_datatype, &n, &w, &dt);
    if (mem) {
        memcpy(mem, origin_addr, n);
        return MPI_SUCCESS;
    }
    rma_args_t a = {.kind = RMA_OP_PUT, .obuf = origin_addr, .ocount = origin_count,
                    .target = target_rank, .disp = target_disp, .tcount = target_count};
    return rma_op_common(fn, &a, origin_datatype, MPI_DATATYPE_NULL, target_datatype, win, request);
}

static int rma_get(const char *fn, void *origin_addr, MPI_Count origin_count,
                   MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                   MPI_Request *request)
{
    size_t n;
    win_t *w;
    const dtype_t *dt;
    const char *mem = request ? NULL
                              : rma_seg_fast(win, target_rank, target_disp, origin_count,
                                             origin_datatype, target_count, target_datatype, &n,
                                             &w, &dt);
    if (mem) {
        memcpy(origin_addr, mem, n);
        return MPI_SUCCESS;
    }
    rma_args_t a = {.kind = RMA_OP_GET, .rbuf = origin_addr, .rcount = origin_count,
                    .target = target_rank, .disp = target_disp, .tcount = target_count};
    return rma_op_common(fn, &a, MPI_DATATYPE_NULL, origin_datatype, target_datatype, win, request);
}

static int rma_acc(const char *fn, const void *origin_addr, MPI_Count origin_count,
                   MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                   MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                   MPI_Request *request)
{
    size_t n;
    win_t *w;
    const dtype_t *dt;
    char *mem = op == MPI_NO_OP || request
                    ? NULL
                    : rma_seg_fast(win, target_rank, target_disp, origin_count, origin_datatype,
                                   target_count, target_datatype, &n, &w, &dt);
    const op_t *o = mem ? op_get(op) : NULL;
    if (o && o->builtin && rma_seg_acc(w, target_rank, mem, origin_addr, origin_count, dt, o, n) ==
                               MPI_SUCCESS)
        return MPI_SUCCESS;
    rma_args_t a = {.kind = RMA_OP_ACC, .obuf = origin_addr, .ocount = origin_count,
                    .target = target_rank, .disp = target_disp, .tcount = target_count, .oph = op};
    return rma_op_common(fn, &a, origin_datatype, MPI_DATATYPE_NULL, target_datatype, win, request);
}

static int rma_get_acc(const char *fn, const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                       MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    rma_args_t a = {.kind = RMA_OP_GACC, .obuf = origin_addr, .ocount = origin_count,
                    .rbuf = result_addr, .rcount = result_count, .target = target_rank,
                    .disp = target_disp, .tcount = target_count, .oph = op};
    return rma_op_common(fn, &a, origin_datatype, result_datatype, target_datatype, win, request);
}

/* The request-based forms need somewhere to put the request. */
#define RMA_CHECK_REQUEST(fn)                                                        \
    do {                                                                             \
        if (!request)                                                                \
            return mpi_win_raise(rma_win_get(win), MPI_ERR_ARG, fn, "request is NULL"); \
    } while (0)

RM_ALIAS(Put)
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

RM_ALIAS(Put_c)
int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL);
}

RM_ALIAS(Get)
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, NULL);
}

RM_ALIAS(Get_c)
int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win)
{
    return rma_get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL);
}

RM_ALIAS(Accumulate)
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma_acc("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, op, win, NULL);
}

RM_ALIAS(Accumulate_c)
int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma_acc("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, op, win, NULL);
}

RM_ALIAS(Get_accumulate)
int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return rma_get_acc("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype,
                       result_addr, result_count, result_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, NULL);
}

RM_ALIAS(Get_accumulate_c)
int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win)
{
    return rma_get_acc("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                       result_addr, result_count, result_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, NULL);
}

RM_ALIAS(Fetch_and_op)
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    dtype_t *dt = dtype_get(datatype);
    if (dt && !dt->builtin) {
        MPI_BEGIN("MPI_Fetch_and_op");
        win_t *w;
        CHECK_WIN(w, win);
        WIN_FAIL(w, MPI_ERR_TYPE, "MPI_Fetch_and_op takes a predefined datatype");
        MPI_END();
    }
    rma_args_t a = {.kind = RMA_OP_GACC, .obuf = origin_addr, .ocount = 1, .rbuf = result_addr,
                    .rcount = 1, .target = target_rank, .disp = target_disp, .tcount = 1,
                    .oph = op};
    return rma_op_common("MPI_Fetch_and_op", &a, datatype, datatype, datatype, win, NULL);
}

RM_ALIAS(Compare_and_swap)
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    dtype_t *dt = dtype_get(datatype);
    /* C integer, Fortran integer, logical, byte: the types bitwise and
     * logical operations are defined on */
    if (dt && (!dt->builtin || (op_check(op_get(MPI_BAND), dt) != MPI_SUCCESS &&
                                op_check(op_get(MPI_LAND), dt) != MPI_SUCCESS))) {
        MPI_BEGIN("MPI_Compare_and_swap");
        win_t *w;
        CHECK_WIN(w, win);
        WIN_FAIL(w, MPI_ERR_TYPE, "MPI_Compare_and_swap takes an integer, logical or byte type");
        MPI_END();
    }
    rma_args_t a = {.kind = RMA_OP_CAS, .obuf = origin_addr, .ocount = 1, .cbuf = compare_addr,
                    .rbuf = result_addr, .rcount = 1, .target = target_rank,
                    .disp = target_disp, .tcount = 1};
    return rma_op_common("MPI_Compare_and_swap", &a, datatype, datatype, datatype, win, NULL);
}

RM_ALIAS(Rput)
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rput");
    return rma_put("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

RM_ALIAS(Rput_c)
int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rput_c");
    return rma_put("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

RM_ALIAS(Rget)
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rget");
    return rma_get("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

RM_ALIAS(Rget_c)
int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rget_c");
    return rma_get("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

RM_ALIAS(Raccumulate)
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Raccumulate");
    return rma_acc("MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, op, win, request);
}

RM_ALIAS(Raccumulate_c)
int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                       MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                       MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                       MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Raccumulate_c");
    return rma_acc("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, op, win, request);
}

RM_ALIAS(Rget_accumulate)
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rget_accumulate");
    return rma_get_acc("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype,
                       result_addr, result_count, result_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, request);
}

RM_ALIAS(Rget_accumulate_c)
int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                           MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                           MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Win win, MPI_Request *request)
{
    RMA_CHECK_REQUEST("MPI_Rget_accumulate_c");
    return rma_get_acc("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype,
                       result_addr, result_count, result_datatype, target_rank, target_disp,
                       target_count, target_datatype, op, win, request);
}

/* ---- synchronisation -------------------------------------------------------- */

#define CHECK_ASSERT(w, a)                                                           \
    do {                                                                             \
        if ((a) & ~RMA_ASSERTS)                                                      \
            WIN_FAIL((w), MPI_ERR_ASSERT, "invalid assert 0x%x", (unsigned)(a));     \
    } while (0)

RM_ALIAS(Win_fence)
int PMPI_Win_fence(int assert, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_fence");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_ASSERT(w, assert);
    CHECK_WIN_REVOKED(w);
    if (w->nlocks || w->lock_all || w->acc_ranks || w->exposed)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "a lock or post/start epoch is open");
    WIN_CHECK_STATUS(w, rma_fence(w, assert));
    MPI_END();
}

static group_t *rma_group(MPI_Group h)
{
    return h == MPI_GROUP_NULL ? NULL : group_get(h);
}

RM_ALIAS(Win_start)
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_start");
    win_t *w;
    group_t *g;
    CHECK_WIN(w, win);
    CHECK_ASSERT(w, assert);
    CHECK_WIN_REVOKED(w);
    if (!(g = rma_group(group)))
        WIN_FAIL(w, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)group);
    if (w->acc_ranks || w->nlocks || w->lock_all)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "an access epoch is already open");
    rm_status_t st = rma_start(w, g);
    if (st == RM_ERR_INVALID)
        WIN_FAIL(w, MPI_ERR_GROUP, "the group has a process outside the window");
    WIN_CHECK_STATUS(w, st);
    MPI_END();
}

RM_ALIAS(Win_complete)
int PMPI_Win_complete(MPI_Win win)
{
    MPI_BEGIN("MPI_Win_complete");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_WIN_REVOKED(w);
    if (!w->acc_ranks)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no MPI_Win_start epoch to complete");
    WIN_CHECK_STATUS(w, rma_complete(w));
    MPI_END();
}

RM_ALIAS(Win_post)
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_post");
    win_t *w;
    group_t *g;
    CHECK_WIN(w, win);
    CHECK_ASSERT(w, assert);
    CHECK_WIN_REVOKED(w);
    if (!(g = rma_group(group)))
        WIN_FAIL(w, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)group);
    if (w->exposed)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "an exposure epoch is already open");
    rm_status_t st = rma_post(w, g);
    if (st == RM_ERR_INVALID)
        WIN_FAIL(w, MPI_ERR_GROUP, "the group has a process outside the window");
    WIN_CHECK_STATUS(w, st);
    MPI_END();
}

RM_ALIAS(Win_wait)
int PMPI_Win_wait(MPI_Win win)
{
    MPI_BEGIN("MPI_Win_wait");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_WIN_REVOKED(w);
    if (!w->exposed)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch to wait for");
    WIN_CHECK_STATUS(w, rma_wait(w));
    MPI_END();
}

RM_ALIAS(Win_test)
int PMPI_Win_test(MPI_Win win, int *flag)
{
    MPI_BEGIN("MPI_Win_test");
    win_t *w;
    CHECK_WIN(w, win);
    if (!flag)
        WIN_FAIL(w, MPI_ERR_ARG, "flag is NULL");
    CHECK_WIN_REVOKED(w);
    if (!w->exposed)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no MPI_Win_post epoch to test");
    *flag = rma_test(w);
    MPI_END();
}

RM_ALIAS(Win_lock)
int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_lock");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_ASSERT(w, assert);
    CHECK_WIN_REVOKED(w);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        WIN_FAIL(w, MPI_ERR_LOCKTYPE, "invalid lock type %d", lock_type);
    if (rank == MPI_PROC_NULL)
        goto fn_exit;
    if (rank < 0 || rank >= w->size)
        WIN_FAIL(w, MPI_ERR_RANK, "invalid rank %d (window of %d processes)", rank, w->size);
    if (w->lock[rank] || w->lock_all || w->acc_ranks)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "an access epoch to rank %d is already open", rank);
    WIN_CHECK_STATUS(w, rma_lock(w, lock_type, rank));
    MPI_END();
}

RM_ALIAS(Win_unlock)
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_unlock");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_WIN_REVOKED(w);
    if (rank == MPI_PROC_NULL)
        goto fn_exit;
    if (rank < 0 || rank >= w->size)
        WIN_FAIL(w, MPI_ERR_RANK, "invalid rank %d (window of %d processes)", rank, w->size);
    if (!w->lock[rank])
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "rank %d is not locked", rank);
    WIN_CHECK_STATUS(w, rma_unlock(w, rank));
    MPI_END();
}

RM_ALIAS(Win_lock_all)
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    MPI_BEGIN("MPI_Win_lock_all");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_ASSERT(w, assert);
    CHECK_WIN_REVOKED(w);
    if (w->nlocks || w->lock_all || w->acc_ranks)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "an access epoch is already open");
    WIN_CHECK_STATUS(w, rma_lock_all(w));
    MPI_END();
}

RM_ALIAS(Win_unlock_all)
int PMPI_Win_unlock_all(MPI_Win win)
{
    MPI_BEGIN("MPI_Win_unlock_all");
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_WIN_REVOKED(w);
    if (!w->lock_all)
        WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch to end");
    WIN_CHECK_STATUS(w, rma_unlock_all(w));
    MPI_END();
}

static int rma_flush_common(const char *fn_name_, int rank, int all, MPI_Win win, int local)
{
    MPI_BEGIN_SHARED();
    win_t *w;
    CHECK_WIN(w, win);
    CHECK_WIN_REVOKED(w);
    if (all) {
        if (!w->nlocks && !w->lock_all)
            WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no passive target epoch is open");
        rank = -1;
    } else {
        if (rank == MPI_PROC_NULL)
            goto fn_exit;
        if (rank < 0 || rank >= w->size)
            WIN_FAIL(w, MPI_ERR_RANK, "invalid rank %d (window of %d processes)", rank, w->size);
        if (!rma_passive(w, rank))
            WIN_FAIL(w, MPI_ERR_RMA_SYNC, "no passive target epoch to rank %d", rank);
    }
    WIN_CHECK_STATUS(w, rma_flush(w, rank, local));
    MPI_END();
}

RM_ALIAS(Win_flush)
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return rma_flush_common("MPI_Win_flush", rank, 0, win, 0);
}

RM_ALIAS(Win_flush_all)
int PMPI_Win_flush_all(MPI_Win win)
{
    return rma_flush_common("MPI_Win_flush_all", 0, 1, win, 0);
}

RM_ALIAS(Win_flush_local)
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return rma_flush_common("MPI_Win_flush_local", rank, 0, win, 1);
}

RM_ALIAS(Win_flush_local_all)
int PMPI_Win_flush_local_all(MPI_Win win)
{
    return rma_flush_common("MPI_Win_flush_local_all", 0, 1, win, 1);
}

RM_ALIAS(Win_sync)
int PMPI_Win_sync(MPI_Win win)
{
    MPI_BEGIN("MPI_Win_sync");
    win_t *w;
    CHECK_WIN(w, win);
    /* the unified model: private and public copies are one memory; order
     * this process's loads and stores against other processes' */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    proto_progress();
    MPI_END();
}
