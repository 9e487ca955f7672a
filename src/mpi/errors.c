/* Error reporting: the one place internal statuses become MPI error classes
 * and where a communicator's error handler is invoked. */
#include "boot/boot.h"
#include "mpi/mpiimpl.h"
#include "util/config.h"
#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

mpi_state_t mpi_state;

static const char *const mpi_err_names[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid file access mode",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion failed",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: info key not found",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: collective arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: spawn failed",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid keyval",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong RMA synchronization",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assert",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: RMA access outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: a process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_ABI] = "MPI_ERR_ABI: contradicts the ABI information the library has",
    [MPIX_ERR_PROC_FAILED] = "MPIX_ERR_PROC_FAILED: a process involved has failed",
    [MPIX_ERR_PROC_FAILED_PENDING] = "MPIX_ERR_PROC_FAILED_PENDING: a potential sender has failed",
    [MPIX_ERR_REVOKED] = "MPIX_ERR_REVOKED: the communicator was revoked",
};

const char *mpi_err_class_name(int errclass)
{
    if (errclass >= 0 && (size_t)errclass < sizeof mpi_err_names / sizeof mpi_err_names[0] &&
        mpi_err_names[errclass])
        return mpi_err_names[errclass];
    if (errclass >= MPI_T_ERR_MEMORY && errclass <= MPI_T_ERR_NOT_SUPPORTED)
        return "MPI_T_ERR: tool interface error";
    return NULL;
}

int mpi_err_from_status(rm_status_t st)
{
    switch (st) {
    case RM_OK:
    case RM_INPROGRESS:
        return MPI_SUCCESS;
    case RM_ERR_NOMEM:
        return MPI_ERR_NO_MEM;
    case RM_ERR_TRUNCATE:
        return MPI_ERR_TRUNCATE;
    case RM_ERR_INVALID:
        return MPI_ERR_ARG;
    case RM_ERR_UNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    case RM_ERR_PROC_FAILED:
        return MPIX_ERR_PROC_FAILED;
    case RM_ERR_PROC_FAILED_PENDING:
        return MPIX_ERR_PROC_FAILED_PENDING;
    case RM_ERR_REVOKED:
        return MPIX_ERR_REVOKED;
    case RM_ERR_CLOSED:
        return MPI_ERR_PROC_ABORTED;
    case RM_ERR_INTERNAL:
        return MPI_ERR_INTERN;
    case RM_ERR_NO_RESOURCE:
    case RM_ERR_UNREACHABLE:
    case RM_ERR_TIMED_OUT:
    case RM_ERR_CONN_RESET:
    case RM_ERR_NOT_FOUND:
    case RM_ERR_IO:
        return MPI_ERR_OTHER;
    }
    return MPI_ERR_OTHER;
}

static void mpi_err_fatal(const char *line) __attribute__((noreturn));
static void mpi_err_fatal(const char *line)
{
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
    if (mpi_state.engine)
        boot_abort(1, line);
    _exit(1);
}

static void err_line(char *line, size_t len, int errclass, const char *fn, const char *fmt, va_list ap)
{
    char detail[512];
    vsnprintf(detail, sizeof detail, fmt, ap);
    const char *cname = mpi_err_class_name(errclass);
    char cbuf[32];
    if (!cname) {
        snprintf(cbuf, sizeof cbuf, "error %d", errclass);
        cname = cbuf;
    }
    /* "MPI_ERR_RANK: invalid rank" -> keep just the class token */
    int clen = (int)strcspn(cname, ":");
    if (mpi_state.world_rank >= 0 && mpi_state.engine)
        snprintf(line, len, "railmpi: rank %d: %s: %.*s: %s", mpi_state.world_rank, fn, clen, cname,
                 detail);
    else
        snprintf(line, len, "railmpi: %s: %.*s: %s", fn, clen, cname, detail);
}

static int err_handle(errhandler_t *eh, int handle, int errclass, const char *line)
{
    if (!eh || eh->kind == 0)
        mpi_err_fatal(line);
    rm_log_debug("%s", line);
    if (eh->kind == 2 && eh->fn) {
        int code = errclass;
        if (eh->call)
            eh->call(eh->abi_fn, &handle, &code);
        else
            eh->fn(&handle, &code);
    }
    return errclass;
}

/* RAILMPI_INITIAL_ERRHANDLER (mpiexec -initial-errhandler, the spawn info
 * key mpi_initial_errhandler) becomes the initial error handler, once: at
 * the engine's start, or at the first error before it. */
void mpi_err_initial_load(void)
{
    static int done;
    if (done++ || rm_config_load_once() < 0)
        return;
    const char *v = RM_CFG_STR(initial_errhandler);
    MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;
    if (!strcasecmp(v, "mpi_errors_return"))
        h = MPI_ERRORS_RETURN;
    else if (!strcasecmp(v, "mpi_errors_abort"))
        h = MPI_ERRORS_ABORT;
    else if (strcasecmp(v, "mpi_errors_are_fatal"))
        rm_log_error("RAILMPI_INITIAL_ERRHANDLER=%s names no predefined error handler "
                     "(mpi_errors_are_fatal, mpi_errors_abort, mpi_errors_return): "
                     "mpi_errors_are_fatal is used", v);
    errhandler_set_initial(errhandler_get(h));
}

/* An error tied to no object goes to MPI_COMM_SELF's handler between
 * MPI_Init and MPI_Finalize, else to the initial error handler (MPI-4.1 9.3). */
int mpi_err_raise(comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
{
    char line[800];
    va_list ap;
    va_start(ap, fmt);
    err_line(line, sizeof line, errclass, fn, fmt, ap);
    va_end(ap);
    if (!comm && mpi_state.initialized && !mpi_state.finalized)
        comm = comm_self;
    if (!comm) {
        mpi_err_initial_load();
        return err_handle(errhandler_initial(), MPI_COMM_NULL, errclass, line);
    }
    return err_handle(comm->errh, comm->handle, errclass, line);
}

int mpi_err_raise_eh(errhandler_t *eh, int handle, int errclass, const char *fn, const char *fmt, ...)
{
    char line[800];
    va_list ap;
    va_start(ap, fmt);
    err_line(line, sizeof line, errclass, fn, fmt, ap);
    va_end(ap);
    return err_handle(eh, handle, errclass, line);
}

void mpi_status_set_count(MPI_Status *st, MPI_Count bytes)
{
    st->count_lo = (int)(uint32_t)(uint64_t)bytes;
    st->count_hi_and_cancelled = (int)((((uint64_t)bytes >> 32) << 1) |
                                       (uint32_t)(st->count_hi_and_cancelled & 1));
}

MPI_Count mpi_status_get_count(const MPI_Status *st)
{
    uint64_t hi = (uint64_t)(uint32_t)st->count_hi_and_cancelled >> 1;
    return (MPI_Count)((hi << 32) | (uint32_t)st->count_lo);
}

void mpi_status_empty(MPI_Status *st)
{
    if (!st || st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    /* MPI_ERROR is left alone: only the multiple-completion calls write it,
     * and only when they return MPI_ERR_IN_STATUS (MPI-3.1 3.2.5) */
    st->count_lo = 0;
    st->count_hi_and_cancelled = 0;
}

