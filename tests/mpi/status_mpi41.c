/* ranks: 1 2 */
/* MPI-4.1 calls around statuses, requests and error classes: the status
 * accessors read and write MPI_SOURCE, MPI_TAG and MPI_ERROR;
 * MPI_Request_get_status_any/all/some report completions as
 * MPI_Testany/all/some do but leave every request as it is (still valid,
 * completed again by a later call, a persistent one still active);
 * MPI_Remove_error_string/code/class undo MPI_Add_error_* in reverse order
 * and refuse anything else; an invalid error handler is MPI_ERR_ERRHANDLER. */
#include <mpi.h>

#include "check.h"
#include <limits.h>
#include <string.h>

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void accessors(void)
{
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Status_set_source(&st, 3);
    MPI_Status_set_tag(&st, 77);
    MPI_Status_set_error(&st, MPI_ERR_TAG);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TAG, "set: %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, st.MPI_ERROR);
    int v = -1;
    MPI_Status_get_source(&st, &v);
    CHECK(v == 3, "get_source %d", v);
    MPI_Status_get_tag(&st, &v);
    CHECK(v == 77, "get_tag %d", v);
    MPI_Status_get_error(&st, &v);
    CHECK(v == MPI_ERR_TAG, "get_error %d", v);
    /* the count is not touched */
    MPI_Status_set_elements(&st, MPI_INT, 5);
    MPI_Status_set_source(&st, 1);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 5, "count changed to %d", cnt);
    expect(MPI_Status_get_source(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG, "get_source of MPI_STATUS_IGNORE");
    expect(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG, "get_tag into NULL");
    expect(MPI_Status_set_error(NULL, 0), MPI_ERR_ARG, "set_error on NULL");
}

static void get_status_family(void)
{
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int in = -1, out = rank + 10;
    MPI_Request rq[3];
    MPI_Irecv(&in, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    /* a persistent send, started */
    MPI_Send_init(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq[2]);
    MPI_Start(&rq[2]);
    int flag = 0, idx = -5;
    MPI_Status st, sts[3];
    /* wait for both through the non-destructive calls */
    do
        MPI_Request_get_status_all(3, rq, &flag, sts);
    while (!flag);
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[2] != MPI_REQUEST_NULL, "get_status_all freed a request");
    CHECK(sts[0].MPI_SOURCE == from && sts[0].MPI_TAG == 5 && in == from + 10,
          "get_status_all: receive status %d/%d, data %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG, in);
    CHECK(sts[1].MPI_SOURCE == MPI_ANY_SOURCE && sts[1].MPI_TAG == MPI_ANY_TAG, "null request's status");
    MPI_Request_get_status_any(3, rq, &idx, &flag, &st);
    CHECK(flag && (idx == 0 || idx == 2) && rq[idx] != MPI_REQUEST_NULL, "get_status_any: flag %d idx %d", flag, idx);
    int outcount = -1, ind[3];
    MPI_Request_get_status_some(3, rq, &outcount, ind, sts);
    CHECK(outcount == 2 && ind[0] == 0 && ind[1] == 2, "get_status_some: %d (%d %d)", outcount, ind[0], ind[1]);
    CHECK(sts[0].MPI_SOURCE == from, "get_status_some: status of the receive");
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[2] != MPI_REQUEST_NULL, "get_status_some freed a request");
    /* a second time: the same answers */
    outcount = -1;
    MPI_Request_get_status_some(3, rq, &outcount, ind, sts);
    CHECK(outcount == 2, "second get_status_some: %d", outcount);
    /* the requests are still there to complete and free */
    MPI_Waitall(3, rq, sts);
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[2] != MPI_REQUEST_NULL, "Waitall after the queries");
    /* now the persistent request is inactive and the others null: nothing active */
    MPI_Request_get_status_any(3, rq, &idx, &flag, &st);
    CHECK(flag && idx == MPI_UNDEFINED, "no active request: flag %d idx %d", flag, idx);
    MPI_Request_get_status_some(3, rq, &outcount, ind, sts);
    CHECK(outcount == MPI_UNDEFINED, "no active request: outcount %d", outcount);
    MPI_Request_free(&rq[2]);
    /* a pending receive: not complete, and still pending afterwards */
    MPI_Irecv(&in, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Request_get_status_any(1, rq, &idx, &flag, &st);
    CHECK(!flag && idx == MPI_UNDEFINED, "pending: flag %d idx %d", flag, idx);
    MPI_Request_get_status_all(1, rq, &flag, sts);
    CHECK(!flag, "pending: get_status_all flag");
    MPI_Request_get_status_some(1, rq, &outcount, ind, sts);
    CHECK(outcount == 0, "pending: outcount %d", outcount);
    /* the peer sends its tag-6 message only once every rank has checked */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&out, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
    MPI_Wait(&rq[0], &st);
    CHECK(in == from + 10, "late receive got %d", in);
    /* bad input */
    MPI_Request bogus = (MPI_Request)0x2c00beef;
    expect(MPI_Request_get_status_any(1, &bogus, &idx, &flag, &st), MPI_ERR_REQUEST, "any: invalid request");
    expect(MPI_Request_get_status_all(1, &bogus, &flag, sts), MPI_ERR_REQUEST, "all: invalid request");
    expect(MPI_Request_get_status_some(1, &bogus, &outcount, ind, sts), MPI_ERR_REQUEST, "some: invalid request");
    expect(MPI_Request_get_status_any(-1, rq, &idx, &flag, &st), MPI_ERR_COUNT, "any: negative count");
    expect(MPI_Request_get_status_all(1, rq, NULL, sts), MPI_ERR_ARG, "all: NULL flag");
    expect(MPI_Request_get_status_some(1, rq, NULL, ind, sts), MPI_ERR_ARG, "some: NULL outcount");
}

static void remove_errors(void)
{
    int cls, code, len, c2;
    char str[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "my code");
    MPI_Add_error_string(cls, "my class");
    /* out of order: refused */
    expect(MPI_Remove_error_class(cls), MPI_ERR_ARG, "class with codes");
    expect(MPI_Remove_error_code(code), MPI_ERR_ARG, "code with a string");
    expect(MPI_Remove_error_code(cls), MPI_ERR_ARG, "a class as a code");
    expect(MPI_Remove_error_class(code), MPI_ERR_ARG, "a code as a class");
    expect(MPI_Remove_error_class(MPI_ERR_ARG), MPI_ERR_ARG, "a predefined class");
    expect(MPI_Remove_error_string(MPI_ERR_TAG), MPI_ERR_ARG, "a predefined class's string");
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "remove the code's string");
    MPI_Error_string(code, str, &len);
    CHECK(strcmp(str, "my code") != 0, "the removed string is still given");
    expect(MPI_Remove_error_string(code), MPI_ERR_ARG, "a string removed twice");
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "remove the code");
    expect(MPI_Add_error_string(code, "again"), MPI_ERR_ARG, "a string for a removed code");
    expect(MPI_Remove_error_code(code), MPI_ERR_ARG, "a code removed twice");
    expect(MPI_Remove_error_class(cls), MPI_ERR_ARG, "class with a string");
    MPI_Remove_error_string(cls);
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS, "remove the class");
    expect(MPI_Add_error_code(cls, &c2), MPI_ERR_ARG, "a code in a removed class");
    /* numbers are not handed out again */
    int cls2;
    MPI_Add_error_class(&cls2);
    CHECK(cls2 != cls && cls2 != code, "a removed number came back: %d", cls2);
    MPI_Remove_error_class(cls2);
}

static void errhandler_class(void)
{
    MPI_Errhandler bad = (MPI_Errhandler)0x5400dead;
    expect(MPI_Comm_set_errhandler(MPI_COMM_WORLD, bad), MPI_ERR_ERRHANDLER, "Comm_set_errhandler");
    MPI_Errhandler none = MPI_ERRHANDLER_NULL;
    expect(MPI_Errhandler_free(&none), MPI_ERR_ERRHANDLER, "Errhandler_free(MPI_ERRHANDLER_NULL)");
    char str[MPI_MAX_ERROR_STRING];
    int len;
    CHECK(MPI_Error_string(MPI_ERR_ERRHANDLER, str, &len) == MPI_SUCCESS && strstr(str, "error handler"),
          "MPI_ERR_ERRHANDLER string '%s'", str);
    CHECK(MPI_ERR_ERRHANDLER <= MPI_ERR_LASTCODE, "class past MPI_ERR_LASTCODE");
}

/* MPI_Status_set_elements_c past INT_MAX, and the status conversions
 * between the INTEGER and the TYPE(MPI_Status) Fortran forms */
static void status_conversions(void)
{
    MPI_Status st;
    MPI_Count big = (MPI_Count)INT_MAX + 12, got = -1;
    int n = 0;
    CHECK(MPI_Status_set_elements_c(&st, MPI_BYTE, big) == MPI_SUCCESS, "MPI_Status_set_elements_c");
    MPI_Get_elements_c(&st, MPI_BYTE, &got);
    MPI_Get_elements(&st, MPI_BYTE, &n);
    CHECK(got == big && n == MPI_UNDEFINED, "elements past INT_MAX: %lld, int form %d", (long long)got, n);
    expect(MPI_Status_set_elements_c(&st, MPI_INT, -1), MPI_ERR_COUNT, "Status_set_elements_c(-1)");

    st.MPI_SOURCE = 3;
    st.MPI_TAG = 77;
    st.MPI_ERROR = MPI_ERR_TAG;
    MPI_F08_status f08, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    CHECK(MPI_Status_c2f08(&st, &f08) == MPI_SUCCESS, "MPI_Status_c2f08");
    CHECK(MPI_Status_f082f(&f08, f) == MPI_SUCCESS && f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 77 &&
              f[MPI_F_ERROR] == MPI_ERR_TAG,
          "MPI_Status_f082f: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    memset(&back, 0, sizeof back);
    CHECK(MPI_Status_f2f08(f, &back) == MPI_SUCCESS && !memcmp(&back, &f08, sizeof back), "MPI_Status_f2f08");
    MPI_Status c;
    MPI_Status_f082c(&back, &c);
    MPI_Get_elements_c(&c, MPI_BYTE, &got);
    CHECK(c.MPI_SOURCE == 3 && c.MPI_TAG == 77 && got == big, "the round trip lost a field");
    expect(MPI_Status_f082f(MPI_F08_STATUS_IGNORE, f), MPI_ERR_ARG, "Status_f082f(MPI_F08_STATUS_IGNORE)");
    expect(MPI_Status_f2f08(f, NULL), MPI_ERR_ARG, "Status_f2f08(NULL)");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    accessors();
    get_status_family();
    remove_errors();
    errhandler_class();
    status_conversions();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
