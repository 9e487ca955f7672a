/* Shared by every binding file in src/mpi: entry/exit, argument checks,
 * error reporting through the communicator's error handler, PMPI aliases. */
#ifndef RM_MPI_MPIIMPL_H
#define RM_MPI_MPIIMPL_H

#include <stddef.h>

#include "mpi.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "proto/proto.h"
#include "util/lock.h"
#include "util/status.h"

/* Each binding is written once as PMPI_Name; MPI_Name is a weak alias so a
 * profiling library can interpose. Exports are limited to MPI_/PMPI_/MPIX_
 * by the linker version script (src/libmpi.map). */
#define RM_PRAGMA(x) _Pragma(#x)
#define RM_ALIAS(name) RM_PRAGMA(weak MPI_##name = PMPI_##name)
/* The same for railmpi's MPIX_ extensions (PMPIX_ names, as MPICH's). */
#define RM_ALIASX(name) RM_PRAGMA(weak MPIX_##name = PMPIX_##name)

typedef struct mpi_state {
    /* atomic: MPI_Initialized and MPI_Finalized read them without the lock,
     * from any thread, also while another thread is in MPI_Init/Finalize */
    _Atomic int initialized, finalized;
    /* the engine runs: from MPI_Init or the first MPI_Session_init to
     * MPI_Finalize or the last MPI_Session_finalize, whichever is later */
    _Atomic int engine;
    int sessions; /* sessions alive (src/mpi/session_api.c) */
    int thread_level;
    pthread_t main_thread;
    int world_rank, world_size;
    int appnum; /* MPI_APPNUM: the command of MPI_Comm_spawn_multiple (else 0) */
    int universe; /* MPI_UNIVERSE_SIZE: the launcher's, else the job's size */
    char processor_name[MPI_MAX_PROCESSOR_NAME];
} mpi_state_t;

extern mpi_state_t mpi_state;

/* Report an error: invokes the handler of `comm` (MPI_COMM_WORLD's when comm
 * is NULL). With MPI_ERRORS_ARE_FATAL it prints
 *   railmpi: rank R: MPI_Send: MPI_ERR_RANK: <detail>
 * and aborts the job. Returns the error code to hand back to the caller. */
int mpi_err_raise(comm_t *comm, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Map an internal status to an MPI error class. */
int mpi_err_from_status(rm_status_t st);
/* MPI_BUFFER_AUTOMATIC, or a null pointer as headers that spell it so pass (bsend_api.c) */
int mpi_bsend_is_automatic(const void *buffer);
/* Detach *slot's buffer and write what the detach functions answer (bsend_api.c). */
void mpi_bsend_detach_answer(bsend_buf_t **slot, void *buffer_addr, int *size, MPI_Count *csize);
void mpi_err_initial_load(void);
const char *mpi_err_class_name(int errclass);

void mpi_info_finalize(void);
/* src/mpi/hw_api.c: MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED or
 * HW_UNGUIDED on an intracommunicator; the hwloc topology, freed at finalize. */
int mpi_hw_split(comm_t *c, int split_type, int key, MPI_Info info, MPI_Comm *newcomm);
void mpi_hw_finalize(void);
/* The hints of comm become exactly those of info (MPI_Comm_dup_with_info). */
int mpi_comm_replace_hints(MPI_Comm comm, MPI_Info info);
/* The hints an info gives, for a communicator made later (MPI_Comm_idup_with_info):
 * MPI_ERR_INFO for an invalid handle; MPI_INFO_NULL gives none. */
int mpi_info_hints(MPI_Info info, comm_hint_t **hints);
/* The value of key in info (NULL when it has none; the info's own string):
 * MPI_ERR_INFO for MPI_INFO_NULL or an invalid handle, without raising. */
int mpi_info_value(MPI_Info info, const char *key, const char **val);

/* Error classes and codes the application added (src/mpi/errcode_api.c):
 * mpi_err_user_class gives 1 and the class for one of them, the string is
 * "" until one is set, NULL for any other number. */
int mpi_err_user_class(int code, int *cls);
const char *mpi_err_user_string(int code);
int mpi_err_lastused(void); /* the value of MPI_LASTUSEDCODE */
void mpi_err_user_finalize(void);

/* src/mpi/comm_api.c, shared with inter_api.c */
group_t *comm_group_copy(const group_t *g); /* unregistered, refcount 1 */
int comm_group_compare(const group_t *a, const group_t *b);

/* The engine (src/mpi/init.c): started by MPI_Init or the first session,
 * stopped when neither needs it any more. */
int mpi_engine_start(const char *fn_name_, int required, int *provided);
/* MPI_ERR_OTHER through the initial error handler when another MPI library
 * is loaded in the process (src/mpi/mixed.c) */
int mpi_mixed_check(const char *fn_name_);
void mpi_engine_stop(void);
/* An error raised on a session's handler (MPI_ERRORS_ARE_FATAL when eh is
 * NULL), handle passed to a user function. */
int mpi_err_raise_eh(errhandler_t *eh, int handle, int errclass, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void mpi_status_set_count(MPI_Status *st, MPI_Count bytes);
MPI_Count mpi_status_get_count(const MPI_Status *st);
void mpi_status_empty(MPI_Status *st);
/* A spawned job connects to its parent in MPI_Init (spawn_api.c); a
 * disconnected parent communicator is forgotten. */
rm_status_t mpi_spawn_init(void);
void mpi_spawn_forget(comm_t *c);
/* MPIX generalized requests with poll/wait functions (mpix_api.c): how many
 * are incomplete, a poll pass over them, a wait function's block. */
extern int mpix_greq_polled;
int mpix_greq_poll(void);
int mpix_greq_block(request_t *r);
void mpix_greq_unlist(request_t *r);
int mpi_greq_start(const char *fn_name_, MPI_Grequest_query_function *query_fn,
                   MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn,
                   MPIX_Grequest_poll_function *poll_fn, MPIX_Grequest_wait_function *wait_fn,
                   void *extra_state, MPI_Request *request);

/* ---- binding skeleton ------------------------------------------------------
 *   int PMPI_Foo(...) {
 *       MPI_BEGIN("MPI_Foo");
 *       ... CHECK_COMM(c, comm); ... MPI_FAIL(c, MPI_ERR_ARG, "detail %d", x);
 *       err = ...;
 *       MPI_END();
 *   }
 */
#define MPI_BEGIN(name)                                                              \
    static const char *const fn_name_ = name;                                        \
    MPI_BEGIN_SHARED()

/* For helpers shared by several bindings: the caller passes `fn_name_`. */
#define MPI_BEGIN_SHARED()                                                           \
    int err = MPI_SUCCESS;                                                           \
    comm_t *err_comm_ = NULL;                                                        \
    (void)err_comm_;                                                                 \
    if (!mpi_state.engine)                                                           \
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "%s",                    \
                             mpi_state.finalized ? "called after MPI_Finalize"        \
                                                 : "called before MPI_Init");         \
    rm_lock()

/* For the few calls allowed before MPI_Init / after MPI_Finalize. */
#define MPI_BEGIN_ANYTIME(name)              \
    static const char *const fn_name_ = name; \
    int err = MPI_SUCCESS;                    \
    comm_t *err_comm_ = NULL;                 \
    (void)err_comm_;                          \
    rm_lock()

/* Leaving the engine, the application's thread runs the event callbacks
 * that may not run inside it (src/mpit/event.c). */
extern int mpit_ev_waiting __attribute__((visibility("hidden")));
void mpit_event_deliver(void);
#define MPI_END()                                                \
    goto fn_exit;                                                \
    fn_exit:                                                     \
    rm_unlock();                                                 \
    if (__builtin_expect(__atomic_load_n(&mpit_ev_waiting, __ATOMIC_RELAXED), 0)) \
        mpit_event_deliver();                                    \
    return err

#define MPI_FAIL(comm, cls, ...)                                     \
    do {                                                             \
        err = mpi_err_raise((comm), (cls), fn_name_, __VA_ARGS__);   \
        goto fn_exit;                                                \
    } while (0)

/* Checks shared by several bindings live in helpers called under the lock
 * once the binding has its communicator: they fail through MPI_FAIL as a
 * binding does (the error handler runs there) and return the error, which
 * MPI_CHECKED passes on to the binding's exit. */
#define MPI_CHECKS_BEGIN() int err = MPI_SUCCESS
#define MPI_CHECKS_END() \
    goto fn_exit;        \
    fn_exit:             \
    return err
#define MPI_CHECKED(call)                                                            \
    do {                                                                             \
        if ((err = (call)) != MPI_SUCCESS)                                           \
            goto fn_exit;                                                            \
    } while (0)

/* Fail with an internal status from a lower layer. */
#define MPI_CHECK_STATUS(comm, st)                                                   \
    do {                                                                             \
        rm_status_t st_ = (st);                                                      \
        if (st_ < 0)                                                                 \
            MPI_FAIL((comm), mpi_err_from_status(st_), "%s", rm_status_str(st_));    \
    } while (0)

#define CHECK_COMM(c, h)                                                             \
    do {                                                                             \
        if (!((c) = (h) == MPI_COMM_WORLD ? comm_world : comm_get(h)))               \
            MPI_FAIL(NULL, MPI_ERR_COMM, "invalid communicator 0x%x", (unsigned)(h)); \
        err_comm_ = (c);                                                             \
    } while (0)

/* Process failures (docs/ulfm.md): point-to-point on a revoked communicator
 * fails; a collective fails on a revoked one and on one with a dead member
 * (proto_ft_nfailed is 0 in a job without failures: one test). */
#define CHECK_REVOKED(c)                                                             \
    do {                                                                             \
        if (__builtin_expect((c)->revoked, 0))                                       \
            MPI_FAIL((c), MPIX_ERR_REVOKED, "the communicator was revoked");         \
    } while (0)
#define CHECK_COLL_FT(c)                                                             \
    do {                                                                             \
        if (__builtin_expect((c)->revoked | proto_ft_nfailed, 0)) {                  \
            rm_status_t ft_ = proto_ft_comm_check(c);                                \
            if (ft_ < 0)                                                             \
                MPI_FAIL((c), mpi_err_from_status(ft_), "%s",                        \
                         ft_ == RM_ERR_REVOKED ? "the communicator was revoked"      \
                                               : "a member of the communicator has failed"); \
        }                                                                            \
    } while (0)

#define CHECK_COUNT(c, n)                                                            \
    do {                                                                             \
        if ((n) < 0)                                                                 \
            MPI_FAIL((c), MPI_ERR_COUNT, "negative count %ld", (long)(n));           \
    } while (0)

/* A datatype usable for communication: valid and committed. */
#define CHECK_DTYPE(c, dt, h)                                                        \
    do {                                                                             \
        if (!((dt) = dtype_get(h)))                                                  \
            MPI_FAIL((c), MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)(h));     \
        if (!(dt)->committed)                                                        \
            MPI_FAIL((c), MPI_ERR_TYPE, "datatype 0x%x is not committed", (unsigned)(h)); \
    } while (0)

/* Peer rank: 0..size-1 (of the remote group on an intercommunicator) or
 * MPI_PROC_NULL. */
#define CHECK_RANK(c, r)                                                             \
    do {                                                                             \
        if ((r) != MPI_PROC_NULL && ((r) < 0 || (r) >= comm_peer_size(c)))            \
            MPI_FAIL((c), MPI_ERR_RANK, "invalid rank %d (%s size %d)", (r),          \
                     comm_is_inter(c) ? "remote group" : "communicator", comm_peer_size(c)); \
    } while (0)

#define CHECK_SRC_RANK(c, r)                                                         \
    do {                                                                             \
        if ((r) != MPI_ANY_SOURCE) CHECK_RANK(c, r);                                 \
    } while (0)

/* On an intercommunicator the root is MPI_ROOT (the root itself),
 * MPI_PROC_NULL (the rest of its group) or a rank of the remote group. */
#define CHECK_ROOT(c, r)                                                             \
    do {                                                                             \
        if (comm_is_inter(c) ? (r) != MPI_ROOT && (r) != MPI_PROC_NULL &&             \
                                   ((r) < 0 || (r) >= comm_peer_size(c))              \
                             : (r) < 0 || (r) >= (c)->size)                           \
            MPI_FAIL((c), MPI_ERR_ROOT, "invalid root %d (%s size %d)", (r),          \
                     comm_is_inter(c) ? "remote group" : "communicator", comm_peer_size(c)); \
    } while (0)

/* Calls defined on intracommunicators only. */
#define CHECK_INTRA(c)                                                               \
    do {                                                                             \
        if (comm_is_inter(c))                                                        \
            MPI_FAIL((c), MPI_ERR_COMM, "an intercommunicator is not valid here");   \
    } while (0)

#define CHECK_SEND_TAG(c, t)                                                         \
    do {                                                                             \
        if ((t) < 0 || (t) > RM_TAG_UB)                                              \
            MPI_FAIL((c), MPI_ERR_TAG, "invalid tag %d (must be 0..%d)", (t), RM_TAG_UB); \
    } while (0)

#define CHECK_RECV_TAG(c, t)                                                         \
    do {                                                                             \
        if ((t) != MPI_ANY_TAG) CHECK_SEND_TAG(c, t);                                \
    } while (0)

/* A NULL buffer is only valid when nothing is transferred (or for MPI_BOTTOM
 * with absolute-address datatypes, which have a non-zero lower bound). */
#define CHECK_BUF(c, b, n, dt)                                                       \
    do {                                                                             \
        if (!(b) && (n) > 0 && (dt)->size > 0 && (dt)->true_lb == 0)                  \
            MPI_FAIL((c), MPI_ERR_BUFFER, "NULL buffer with count %ld", (long)(n));   \
    } while (0)

#define CHECK_ARG(c, cond, ...)                                                      \
    do {                                                                             \
        if (!(cond))                                                                 \
            MPI_FAIL((c), MPI_ERR_ARG, __VA_ARGS__);                                 \
    } while (0)

#define RM_TAG_UB 0x7fffffff

#endif
