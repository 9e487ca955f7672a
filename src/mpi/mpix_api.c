/* MPICH's MPIX_ extensions that programs built against MPICH's mpi.h call
 * (ULFM's are in their own file): generalized requests with progress
 * callbacks (MPIX_Grequest_start, MPIX_Grequest_class_create/allocate), the
 * pre-standard names of MPI_Remove_error_*, and the GPU support queries,
 * which answer truthfully that railmpi moves host memory only. */
#include "mpi/mpiimpl.h"

#include <stdlib.h>

#define RM_XALIAS(name) RM_PRAGMA(weak MPIX_##name = PMPIX_##name)

/* ---- generalized requests with poll and wait functions ----------------- */

/* Incomplete requests with a poll or wait function, linked through their
 * queue links (a generalized request sits in no queue): the tests and waits
 * poll them (req_api.c, req_progress) in the caller's thread. */
static request_t *greq_head;
int mpix_greq_polled;

static void greq_list(request_t *r)
{
    r->prev = NULL;
    r->next = greq_head;
    if (greq_head)
        greq_head->prev = r;
    greq_head = r;
    mpix_greq_polled++;
}

void mpix_greq_unlist(request_t *r)
{
    if (!r->prev && greq_head != r)
        return; /* not listed: a file access's request has a wait function too */
    if (r->prev)
        r->prev->next = r->next;
    else
        greq_head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    r->next = r->prev = NULL;
    mpix_greq_polled--;
}

/* One pass over the polled requests: each poll function may complete its
 * request (MPI_Grequest_complete takes it off the list) but no other. The
 * number of requests completed. */
int mpix_greq_poll(void)
{
    int done = 0;
    for (request_t *r = greq_head, *next; r; r = next) {
        next = r->next;
        if (!r->gp || r->done)
            continue;
        MPI_Status st;
        mpi_status_empty(&st);
        r->gp(r->gstate, &st);
        done += r->done;
    }
    return done;
}

/* A wait on one request of a class with a wait function: the function may
 * block until the request completes. Returns 1 if it was called. */
int mpix_greq_block(request_t *r)
{
    MPI_Status st;
    mpi_status_empty(&st);
    void *state = r->gstate;
    r->gw(1, &state, 0.0, &st);
    return 1;
}

/* MPI_Grequest_start too (no poll or wait function) */
int mpi_greq_start(const char *fn_name_, MPI_Grequest_query_function *query_fn,
                   MPI_Grequest_free_function *free_fn, MPI_Grequest_cancel_function *cancel_fn,
                   MPIX_Grequest_poll_function *poll_fn, MPIX_Grequest_wait_function *wait_fn,
                   void *extra_state, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    CHECK_ARG(NULL, request, "request is NULL");
    request_t *r = proto_request_alloc(REQ_GREQ);
    if (!r)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of requests");
    r->gq = query_fn;
    r->gf = free_fn;
    r->gc = cancel_fn;
    r->gp = poll_fn;
    r->gw = wait_fn;
    r->gstate = extra_state;
    r->refs++; /* released by MPI_Grequest_complete */
    if (poll_fn || wait_fn)
        greq_list(r);
    *request = r->handle;
    MPI_END();
}

RM_XALIAS(Grequest_start)
int PMPIX_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                         MPI_Grequest_cancel_function *cancel_fn, MPIX_Grequest_poll_function *poll_fn,
                         MPIX_Grequest_wait_function *wait_fn, void *extra_state, MPI_Request *request)
{
    return mpi_greq_start("MPIX_Grequest_start", query_fn, free_fn, cancel_fn, poll_fn, wait_fn, extra_state,
                      request);
}

/* Classes live as long as the process (MPICH has no call to free one). */
typedef struct {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free;
    MPI_Grequest_cancel_function *cancel;
    MPIX_Grequest_poll_function *poll;
    MPIX_Grequest_wait_function *wait;
} greq_class_t;
static greq_class_t *greq_classes;
static int n_greq_classes;

RM_XALIAS(Grequest_class_create)
int PMPIX_Grequest_class_create(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                                MPI_Grequest_cancel_function *cancel_fn, MPIX_Grequest_poll_function *poll_fn,
                                MPIX_Grequest_wait_function *wait_fn, MPIX_Grequest_class *greq_class)
{
    MPI_BEGIN("MPIX_Grequest_class_create");
    CHECK_ARG(NULL, greq_class, "greq_class is NULL");
    greq_class_t *n = realloc(greq_classes, (size_t)(n_greq_classes + 1) * sizeof *n);
    if (!n)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    greq_classes = n;
    n[n_greq_classes] = (greq_class_t){query_fn, free_fn, cancel_fn, poll_fn, wait_fn};
    *greq_class = n_greq_classes++;
    MPI_END();
}

RM_XALIAS(Grequest_class_allocate)
int PMPIX_Grequest_class_allocate(MPIX_Grequest_class greq_class, void *extra_state, MPI_Request *request)
{
    MPI_BEGIN("MPIX_Grequest_class_allocate");
    CHECK_ARG(NULL, greq_class >= 0 && greq_class < n_greq_classes, "%d is not a generalized request class",
              greq_class);
    const greq_class_t *k = &greq_classes[greq_class];
    err = mpi_greq_start(fn_name_, k->query, k->free, k->cancel, k->poll, k->wait, extra_state, request);
    MPI_END();
}

/* ---- MPICH's names of MPI-4.1's MPI_Remove_error_* --------------------- */

RM_XALIAS(Delete_error_class)
int PMPIX_Delete_error_class(int errorclass)
{
    return PMPI_Remove_error_class(errorclass);
}

RM_XALIAS(Delete_error_code)
int PMPIX_Delete_error_code(int errorcode)
{
    return PMPI_Remove_error_code(errorcode);
}

RM_XALIAS(Delete_error_string)
int PMPIX_Delete_error_string(int errorcode)
{
    return PMPI_Remove_error_string(errorcode);
}

/* ---- GPU support: none; buffers must be host memory -------------------- */

RM_XALIAS(GPU_query_support)
int PMPIX_GPU_query_support(int gpu_type, int *is_supported)
{
    MPI_BEGIN_ANYTIME("MPIX_GPU_query_support");
    CHECK_ARG(NULL, is_supported, "is_supported is NULL");
    CHECK_ARG(NULL, gpu_type == MPIX_GPU_SUPPORT_CUDA || gpu_type == MPIX_GPU_SUPPORT_ZE ||
                        gpu_type == MPIX_GPU_SUPPORT_HIP,
              "gpu_type %d is none of MPIX_GPU_SUPPORT_CUDA, _ZE, _HIP", gpu_type);
    *is_supported = 0;
    MPI_END();
}

RM_XALIAS(Query_cuda_support)
int PMPIX_Query_cuda_support(void)
{
    return 0;
}

RM_XALIAS(Query_ze_support)
int PMPIX_Query_ze_support(void)
{
    return 0;
}

RM_XALIAS(Query_hip_support)
int PMPIX_Query_hip_support(void)
{
    return 0;
}
