/* Shared by the MPI-IO binding files: errors go to the file's error handler
 * (MPI_FILE_NULL's when there is no file yet, MPI_ERRORS_RETURN unless the
 * application changed it, MPI-3.1 13.7). */
#ifndef RM_MPI_FILEIMPL_H
#define RM_MPI_FILEIMPL_H

#include "io/io.h"
#include "mpi/mpiimpl.h"

/* Invoke the handler of f (NULL: MPI_FILE_NULL's); returns errclass. */
int mpi_file_err(io_file_t *f, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The MPI error class of a negative errno from src/io. */
int mpi_file_errclass(int rc);

#define FILE_BEGIN(name)                                                             \
    static const char *const fn_name_ = name;                                        \
    FILE_BEGIN_SHARED()

/* For helpers shared by several bindings: the caller passes `fn_name_`. */
#define FILE_BEGIN_SHARED()                                                          \
    int err = MPI_SUCCESS;                                                           \
    io_file_t *f_ = NULL;                                                            \
    if (!mpi_state.engine)                                                            \
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "%s",                    \
                             mpi_state.finalized ? "called after MPI_Finalize"        \
                                                 : "called before MPI_Init");         \
    rm_lock()

#define FILE_END() MPI_END()

#define FILE_FAIL(cls, ...)                                                          \
    do {                                                                             \
        err = mpi_file_err(f_, (cls), fn_name_, __VA_ARGS__);                        \
        goto fn_exit;                                                                \
    } while (0)

#define FILE_CHECK_RC(rc, what)                                                      \
    do {                                                                             \
        int rc_ = (rc);                                                              \
        if (rc_ < 0)                                                                 \
            FILE_FAIL(mpi_file_errclass(rc_), "%s: %s", (what), strerror(-rc_));     \
    } while (0)

#define CHECK_FILE(fh)                                                               \
    do {                                                                             \
        if (!(f_ = io_file_get(fh)))                                                 \
            FILE_FAIL(MPI_ERR_FILE, "invalid file handle %p", (void *)(fh));         \
    } while (0)

#endif
