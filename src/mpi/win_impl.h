/* Shared by the one-sided bindings (win_api.c, rma_api.c). */
#ifndef RM_MPI_WIN_IMPL_H
#define RM_MPI_WIN_IMPL_H

#include "mpi/mpiimpl.h"
#include "rma/rma.h"

/* Report an error through the window's error handler (MPI_COMM_WORLD's
 * when w is NULL, e.g. for an invalid window). */
int mpi_win_raise(win_t *w, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define WIN_FAIL(w, cls, ...)                                        \
    do {                                                             \
        err = mpi_win_raise((w), (cls), fn_name_, __VA_ARGS__);      \
        goto fn_exit;                                                \
    } while (0)

#define CHECK_WIN(w, h)                                                              \
    do {                                                                             \
        if (!((w) = rma_win_get(h)))                                                 \
            WIN_FAIL(NULL, MPI_ERR_WIN, "invalid window 0x%x", (unsigned)(h));       \
    } while (0)

/* ULFM: the communicator the window was created on was revoked (src/proto/ft.c
 * revokes the window's own with it): every operation and synchronisation
 * fails, at every member. */
#define CHECK_WIN_REVOKED(w)                                                         \
    do {                                                                             \
        if (__builtin_expect((w)->comm->revoked, 0))                                 \
            WIN_FAIL((w), MPIX_ERR_REVOKED, "the window's communicator was revoked"); \
    } while (0)

/* An internal status from src/rma; an error noted by a target (the
 * answers carry MPI error classes) comes first. */
#define WIN_CHECK_STATUS(w, st)                                                      \
    do {                                                                             \
        rm_status_t st_ = (st);                                                      \
        if ((w)->err) {                                                              \
            int e_ = (w)->err;                                                       \
            (w)->err = 0;                                                            \
            WIN_FAIL((w), e_, "a target refused an operation of this epoch");        \
        }                                                                            \
        if (st_ < 0)                                                                 \
            WIN_FAIL((w), mpi_err_from_status(st_), "%s", rm_status_str(st_));       \
    } while (0)

#endif
