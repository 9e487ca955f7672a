/* One host: operations straight on the target's memory instead of through
 * active messages. A window whose memory is one shared segment
 * (MPI_Win_allocate_shared, and MPI_Win_allocate when every rank is on one
 * host) takes every kind of operation with any datatypes as copies into and
 * out of the segment; accumulates, get_accumulates and compare_and_swap
 * into a rank's part hold that part's lock word in the segment, so they
 * stay atomic per element against each other. For other windows a put or
 * get into contiguous target data is a copy for this process's own window
 * and a single cross-process copy (process_vm_writev/readv) for another
 * process on the host; their accumulates and dynamic windows go to the
 * target as active messages. A direct operation is complete at the target
 * when the call returns and needs nothing from the target's progress. */
#include "rma/rma.h"
#include "util/log.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Copy between this process and another one's memory; RM_ERR_UNSUPPORTED
 * when the kernel refuses (ptrace rules). */
static rm_status_t rma_xcopy(int pid, void *local, uint64_t remote, size_t len, int write)
{
    while (len) {
        struct iovec l = {local, len}, r = {(void *)(uintptr_t)remote, len};
        ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0) : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPERM || errno == ENOSYS || errno == EACCES)
                return RM_ERR_UNSUPPORTED;
            if (errno == ESRCH)
                return RM_ERR_PROC_FAILED;
            rm_log_error("rma: cross-process copy of %zu bytes: %s", len, strerror(errno));
            return RM_ERR_IO;
        }
        if (got == 0)
            return RM_ERR_IO;
        local = (char *)local + got;
        remote += (uint64_t)got;
        len -= (size_t)got;
    }
    return RM_OK;
}

static void rma_seg_lock(win_t *w, int t)
{
    uint32_t *word = (uint32_t *)(w->seg + (size_t)RMA_SEG_LOCK_BYTES * (size_t)t);
    for (int spins = 0;; spins++) {
        uint32_t free_ = 0;
        if (__atomic_compare_exchange_n(word, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        if (spins > 100)
            sched_yield();
    }
}

static void rma_seg_unlock(win_t *w, int t)
{
    __atomic_store_n((uint32_t *)(w->seg + (size_t)RMA_SEG_LOCK_BYTES * (size_t)t), 0, __ATOMIC_RELEASE);
}

int rma_seg_acc(win_t *w, int t, char *mem, const void *in, MPI_Count count, const dtype_t *dt,
                const op_t *op, size_t n)
{
    rma_seg_lock(w, t);
    int rc = MPI_SUCCESS;
    if (op->handle == MPI_REPLACE)
        memcpy(mem, in, n);
    else
        rc = op_apply(op, in, mem, count, dt);
    rma_seg_unlock(w, t);
    return rc;
}

/* Every kind of operation on a window whose memory is one shared segment:
 * the target's part is addressable here, whatever the target datatype. */
static rm_status_t rma_seg_op(win_t *w, const rma_args_t *a)
{
    int t = a->target;
    size_t n = (size_t)(a->tcount * a->tdt->size);
    char *mem = w->seg + w->seg_off[t] + a->disp * (MPI_Aint)w->units[t];
    /* the origin's data, packed unless it is contiguous already */
    const char *in = NULL;
    char *tmp = NULL, *old = NULL;
    int sends = a->kind != RMA_OP_GET && !(a->kind == RMA_OP_GACC && a->oph == MPI_NO_OP);
    if (sends && a->kind != RMA_OP_CAS) {
        if (dtype_is_contig(a->odt, a->ocount)) {
            in = (const char *)a->obuf + a->odt->true_lb;
        } else {
            if (!(tmp = malloc(n)))
                return RM_ERR_NOMEM;
            dtype_pack(a->obuf, a->ocount, a->odt, 0, tmp, n);
            in = tmp;
        }
    }
    int answers = a->kind == RMA_OP_GACC || a->kind == RMA_OP_CAS;
    if (answers && !(old = malloc(n))) {
        free(tmp);
        return RM_ERR_NOMEM;
    }
    int rc = MPI_SUCCESS;
    switch (a->kind) {
    case RMA_OP_PUT:
        if (dtype_is_contig(a->tdt, a->tcount))
            memcpy(mem + a->tdt->true_lb, in, n);
        else
            dtype_unpack(mem, a->tcount, a->tdt, 0, in, n);
        break;
    case RMA_OP_GET:
        if (dtype_is_contig(a->rdt, a->rcount) && dtype_is_contig(a->tdt, a->tcount)) {
            memcpy((char *)a->rbuf + a->rdt->true_lb, mem + a->tdt->true_lb, n);
        } else if (dtype_is_contig(a->rdt, a->rcount)) {
            dtype_pack(mem, a->tcount, a->tdt, 0, (char *)a->rbuf + a->rdt->true_lb, n);
        } else {
            if (!(tmp = malloc(n)))
                return RM_ERR_NOMEM;
            dtype_pack(mem, a->tcount, a->tdt, 0, tmp, n);
            dtype_unpack(a->rbuf, a->rcount, a->rdt, 0, tmp, n);
        }
        break;
    case RMA_OP_ACC:
    case RMA_OP_GACC:
        rma_seg_lock(w, t);
        if (a->oph == MPI_REPLACE && !old)
            dtype_unpack(mem, a->tcount, a->tdt, 0, in, n);
        else
            rc = rma_acc_apply(mem, a->oph, a->tcount, a->tdt, 0, n, in, old);
        rma_seg_unlock(w, t);
        break;
    case RMA_OP_CAS:
        rma_seg_lock(w, t);
        memcpy(old, mem, n);
        if (!memcmp(old, a->cbuf, n))
            memcpy(mem, a->obuf, n);
        rma_seg_unlock(w, t);
        break;
    }
    if (answers && rc == MPI_SUCCESS)
        dtype_unpack(a->rbuf, a->rcount, a->rdt, 0, old, n);
    free(tmp);
    free(old);
    return rc == MPI_SUCCESS ? RM_OK : RM_ERR_INVALID;
}

rm_status_t rma_direct(win_t *w, const rma_args_t *a)
{
    if (w->seg)
        return rma_seg_op(w, a);
    int t = a->target, put = a->kind == RMA_OP_PUT;
    if ((!put && a->kind != RMA_OP_GET) || w->flavor == MPI_WIN_FLAVOR_DYNAMIC ||
        !dtype_is_contig(a->tdt, a->tcount))
        return RM_ERR_UNSUPPORTED;
    size_t n = (size_t)(a->tcount * a->tdt->size);
    uint64_t off = (uint64_t)(a->disp * (MPI_Aint)w->units[t] + a->tdt->true_lb);
    const void *obuf = put ? a->obuf : a->rbuf;
    MPI_Count ocount = put ? a->ocount : a->rcount;
    dtype_t *odt = put ? a->odt : a->rdt;
    if (t == w->rank) {
        char *mem = w->base + off;
        if (put)
            dtype_pack(obuf, ocount, odt, 0, mem, n);
        else
            dtype_unpack((void *)obuf, ocount, odt, 0, mem, n);
        return RM_OK;
    }
    int world = comm_world_rank(w->comm, t);
    if (w->direct_off || !w->pids[t] || !proto_local_peer(world))
        return RM_ERR_UNSUPPORTED;
    int contig = dtype_is_contig(odt, ocount);
    char *tmp = contig ? (char *)obuf + odt->true_lb : malloc(n);
    if (!tmp)
        return RM_ERR_NOMEM;
    if (put && !contig)
        dtype_pack(obuf, ocount, odt, 0, tmp, n);
    rm_status_t st = rma_xcopy(w->pids[t], tmp, w->bases[t] + off, n, put);
    if (st == RM_OK && !put && !contig)
        dtype_unpack((void *)obuf, ocount, odt, 0, tmp, n);
    if (!contig)
        free(tmp);
    if (st == RM_ERR_UNSUPPORTED) {
        rm_log_info("rma: cross-process copies refused by the kernel; using active messages");
        w->direct_off = 1;
    }
    return st;
}
