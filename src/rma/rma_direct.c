/* One host: put and get go straight to the target's memory instead of
 * through active messages — a copy into or out of the shared segment for
 * windows of MPI_Win_allocate_shared, a copy for this process's own window,
 * and a single cross-process copy (process_vm_writev/readv) for created and
 * allocated windows of other processes on the host. The target data must be
 * contiguous; the origin's may be anything (packed on the way). Such an
 * operation is complete at the target when the call returns, so it needs
 * nothing from the target's progress engine. Accumulates always go to the
 * target, which applies them one at a time (their atomicity), and dynamic
 * windows too (the target checks what is attached). */
#include "rma/rma.h"
#include "util/log.h"

#include <errno.h>
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

rm_status_t rma_direct(win_t *w, const rma_args_t *a)
{
    int t = a->target, put = a->kind == RMA_OP_PUT;
    if ((!put && a->kind != RMA_OP_GET) || w->flavor == MPI_WIN_FLAVOR_DYNAMIC ||
        !dtype_is_contig(a->tdt, a->tcount))
        return RM_ERR_UNSUPPORTED;
    size_t n = (size_t)(a->tcount * a->tdt->size);
    uint64_t off = (uint64_t)(a->disp * (MPI_Aint)w->units[t] + a->tdt->true_lb);
    const void *obuf = put ? a->obuf : a->rbuf;
    MPI_Count ocount = put ? a->ocount : a->rcount;
    dtype_t *odt = put ? a->odt : a->rdt;
    char *mem = NULL;
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        mem = w->seg ? w->seg + w->seg_off[t] + off : NULL;
    else if (t == w->rank)
        mem = w->base + off;
    if (mem) {
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
