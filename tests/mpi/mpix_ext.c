/* ranks: 1 */
/* MPICH's MPIX_ extensions that MPICH-built programs call: generalized
 * requests whose progress MPI drives (MPIX_Grequest_start's poll function is
 * called by MPI_Test/MPI_Wait/MPI_Waitall until it completes the request; a
 * class's wait function may block a wait; MPIX_Grequest_class_allocate
 * starts requests of a class), MPIX_Delete_error_class/code/string (the
 * pre-standard MPI_Remove_error_*), and the GPU queries, which answer 0. */
#include <mpi.h>

#include "check.h"
#include <string.h>

static int rank;

typedef struct {
    MPI_Request req;
    int polls, need, queried, freed, waited;
} job_t;

static int query_fn(void *st, MPI_Status *status)
{
    job_t *j = st;
    j->queried++;
    MPI_Status_set_elements(status, MPI_BYTE, 7);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *st)
{
    ((job_t *)st)->freed++;
    return MPI_SUCCESS;
}
static int cancel_fn(void *st, int complete)
{
    (void)st, (void)complete;
    return MPI_SUCCESS;
}
/* completes the request on its `need`-th call */
static int poll_fn(void *st, MPI_Status *status)
{
    (void)status;
    job_t *j = st;
    if (++j->polls == j->need)
        MPI_Grequest_complete(j->req);
    return MPI_SUCCESS;
}
/* blocks (here: completes) every request it is given */
static int wait_fn(int count, void **states, double timeout, MPI_Status *status)
{
    (void)timeout, (void)status;
    for (int i = 0; i < count; i++) {
        job_t *j = states[i];
        j->waited++;
        MPI_Grequest_complete(j->req);
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int cls, flag;
    MPI_Status st;

    /* MPI_Wait polls until the poll function completes the request */
    job_t a = {.need = 5};
    CHECK(MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &a, &a.req) == MPI_SUCCESS, "start");
    MPI_Request ra = a.req;
    CHECK(MPI_Wait(&ra, &st) == MPI_SUCCESS, "wait");
    CHECK(ra == MPI_REQUEST_NULL && a.polls == 5 && a.queried == 1 && a.freed == 1,
          "wait: request %d polls %d queried %d freed %d", ra == MPI_REQUEST_NULL, a.polls, a.queried, a.freed);
    int n;
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == 7, "the query's status: count %d", n);

    /* MPI_Test: incomplete until the third poll */
    job_t b = {.need = 3};
    MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &b, &b.req);
    MPI_Request rb = b.req;
    int tests = 0;
    do {
        CHECK(MPI_Test(&rb, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS, "test");
        tests++;
    } while (!flag && tests < 100);
    CHECK(flag && tests == 3 && b.freed == 1, "test: done %d after %d tests (3 polls needed)", flag, tests);

    /* a class: three requests in one MPI_Waitall, polled together */
    CHECK(MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, NULL, &cls) == MPI_SUCCESS,
          "class create");
    job_t c[3] = {{.need = 2}, {.need = 4}, {.need = 1}};
    MPI_Request rc[3];
    for (int i = 0; i < 3; i++) {
        CHECK(MPIX_Grequest_class_allocate(cls, &c[i], &c[i].req) == MPI_SUCCESS, "allocate");
        rc[i] = c[i].req;
    }
    CHECK(MPI_Waitall(3, rc, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
    for (int i = 0; i < 3; i++)
        CHECK(rc[i] == MPI_REQUEST_NULL && c[i].polls == c[i].need && c[i].freed == 1,
              "waitall: request %d polls %d of %d freed %d", i, c[i].polls, c[i].need, c[i].freed);

    /* a class with a wait function and no poll function: the wait blocks in it */
    int wcls;
    MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, NULL, wait_fn, &wcls);
    job_t w = {0};
    MPIX_Grequest_class_allocate(wcls, &w, &w.req);
    MPI_Request rw = w.req;
    CHECK(MPI_Wait(&rw, MPI_STATUS_IGNORE) == MPI_SUCCESS && w.waited == 1 && w.freed == 1,
          "wait function: called %d freed %d", w.waited, w.freed);

    /* a plain generalized request still completes only by MPI_Grequest_complete */
    job_t p = {0};
    MPIX_Grequest_start(query_fn, free_fn, cancel_fn, NULL, NULL, &p, &p.req);
    MPI_Request rp = p.req;
    MPI_Test(&rp, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag, "a request with no poll function completed by itself");
    MPI_Grequest_complete(p.req);
    CHECK(MPI_Wait(&rp, MPI_STATUS_IGNORE) == MPI_SUCCESS && p.freed == 1, "plain request");

    /* bad input */
    int err, ec;
    MPI_Request bad;
    err = MPIX_Grequest_class_allocate(cls + 100, &p, &bad);
    MPI_Error_class(err, &ec);
    CHECK(ec == MPI_ERR_ARG, "allocate of an unknown class: class %d", ec);
    err = MPIX_Grequest_class_create(query_fn, free_fn, cancel_fn, poll_fn, NULL, NULL);
    MPI_Error_class(err, &ec);
    CHECK(ec == MPI_ERR_ARG, "class create with a NULL class: %d", ec);
    err = MPIX_Grequest_start(query_fn, free_fn, cancel_fn, poll_fn, NULL, &p, NULL);
    MPI_Error_class(err, &ec);
    CHECK(ec == MPI_ERR_ARG, "start with a NULL request: %d", ec);

    /* MPIX_Delete_error_*: string, then code, then class; each only once */
    int ucls, ucode;
    MPI_Add_error_class(&ucls);
    MPI_Add_error_code(ucls, &ucode);
    MPI_Add_error_string(ucode, "a code of the test");
    CHECK(MPIX_Delete_error_class(ucls) != MPI_SUCCESS, "a class with codes was deleted");
    CHECK(MPIX_Delete_error_code(ucode) != MPI_SUCCESS, "a code with a string was deleted");
    CHECK(MPIX_Delete_error_string(ucode) == MPI_SUCCESS, "delete string");
    CHECK(MPIX_Delete_error_code(ucode) == MPI_SUCCESS, "delete code");
    CHECK(MPIX_Delete_error_class(ucls) == MPI_SUCCESS, "delete class");
    err = MPIX_Delete_error_class(ucls);
    MPI_Error_class(err, &ec);
    CHECK(ec == MPI_ERR_ARG, "a class deleted twice: %d", ec);

    /* GPU support: none */
    int sup = -1;
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &sup) == MPI_SUCCESS && sup == 0, "cuda: %d", sup);
    sup = -1;
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_ZE, &sup) == MPI_SUCCESS && sup == 0, "ze: %d", sup);
    sup = -1;
    CHECK(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &sup) == MPI_SUCCESS && sup == 0, "hip: %d", sup);
    err = MPIX_GPU_query_support(42, &sup);
    MPI_Error_class(err, &ec);
    CHECK(ec == MPI_ERR_ARG, "gpu type 42: %d", ec);
    CHECK(MPIX_Query_cuda_support() == 0 && MPIX_Query_ze_support() == 0 && MPIX_Query_hip_support() == 0,
          "a device memory kind claimed");

    MPI_Finalize();
    printf("OK: MPIX generalized requests, error deletion and GPU queries\n");
    return 0;
}
