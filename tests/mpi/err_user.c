/* ranks: 1 3 */
/* Error classes, codes and strings the application adds: MPI_Error_class
 * and MPI_Error_string answer for them, MPI_LASTUSEDCODE follows, bad
 * input gets MPI_ERR_ARG; and the C <-> Fortran status conversions. */
#include "check.h"

#include <string.h>

static int rank;

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s gave class %d, expected %d", what, cls, want);
}

static int seen;
static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    seen = *code;
}

static int lastused(void)
{
    int *v, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &v, &flag);
    CHECK(flag, "MPI_LASTUSEDCODE is not set");
    return *v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */

    int before = lastused();
    CHECK(before >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d below MPI_ERR_LASTCODE", before);
    int cls, code1, code2, got, len;
    char str[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS, "Add_error_class");
    CHECK(cls > MPI_ERR_LASTCODE, "new class %d not above MPI_ERR_LASTCODE", cls);
    CHECK(lastused() >= cls, "MPI_LASTUSEDCODE %d below the new class %d", lastused(), cls);
    CHECK(MPI_Add_error_code(cls, &code1) == MPI_SUCCESS, "Add_error_code");
    CHECK(MPI_Add_error_code(MPI_ERR_TOPOLOGY, &code2) == MPI_SUCCESS, "Add_error_code to a predefined class");
    CHECK(code1 != cls && code2 != code1 && code2 != cls, "codes %d %d class %d not distinct", code1, code2, cls);
    CHECK(lastused() >= code1 && lastused() >= code2, "MPI_LASTUSEDCODE %d below a new code", lastused());
    MPI_Error_class(code1, &got);
    CHECK(got == cls, "class of code1 is %d, expected %d", got, cls);
    MPI_Error_class(code2, &got);
    CHECK(got == MPI_ERR_TOPOLOGY, "class of code2 is %d", got);
    MPI_Error_class(cls, &got);
    CHECK(got == cls, "a class is its own class (%d)", got);
    /* no string yet: empty */
    MPI_Error_string(code1, str, &len);
    CHECK(len == 0 && str[0] == 0, "string before Add_error_string: '%s'", str);
    CHECK(MPI_Add_error_string(cls, "the sky fell") == MPI_SUCCESS, "Add_error_string class");
    CHECK(MPI_Add_error_string(code1, "first code") == MPI_SUCCESS, "Add_error_string code");
    MPI_Add_error_string(code1, "first code, again");
    MPI_Error_string(cls, str, &len);
    CHECK(!strcmp(str, "the sky fell") && len == 12, "class string '%s'", str);
    MPI_Error_string(code1, str, &len);
    CHECK(!strcmp(str, "first code, again"), "code string '%s' (replaced)", str);
    MPI_Error_string(MPI_ERR_RANK, str, &len);
    CHECK(strstr(str, "rank") != NULL, "predefined string unchanged: '%s'", str);
    /* the error handler sees the application's code */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, code1);
    CHECK(seen == code1, "the error handler saw %d, expected %d", seen, code1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);

    expect(MPI_Add_error_code(code1, &code2), MPI_ERR_ARG, "Add_error_code to a code, not a class");
    expect(MPI_Add_error_code(cls + 1000, &code2), MPI_ERR_ARG, "Add_error_code to an unknown class");
    expect(MPI_Add_error_string(MPI_ERR_RANK, "mine"), MPI_ERR_ARG, "Add_error_string to a predefined code");
    static char longstr[MPI_MAX_ERROR_STRING + 10];
    memset(longstr, 'x', sizeof longstr - 1);
    expect(MPI_Add_error_string(code1, longstr), MPI_ERR_ARG, "a string too long");

    /* statuses: the Fortran form is MPI_F_STATUS_SIZE integers */
    int v = rank, peer = 0;
    MPI_Status st, back;
    st.MPI_ERROR = 12345; /* single-completion calls leave it alone */
    MPI_Sendrecv(&v, 1, MPI_INT, rank, 42, &peer, 1, MPI_INT, rank, 42, MPI_COMM_WORLD, &st);
    MPI_Fint f[MPI_F_STATUS_SIZE];
    CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "Status_c2f");
    CHECK(f[MPI_F_SOURCE] == rank && f[MPI_F_TAG] == 42 && f[MPI_F_ERROR] == 12345,
          "Fortran status source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    memset(&back, 0xff, sizeof back);
    CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS, "Status_f2c");
    int n;
    MPI_Get_count(&back, MPI_INT, &n);
    CHECK(back.MPI_SOURCE == rank && back.MPI_TAG == 42 && back.MPI_ERROR == 12345 && n == 1, "round trip: source %d tag %d count %d",
          back.MPI_SOURCE, back.MPI_TAG, n);
    expect(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG, "Status_c2f of MPI_STATUS_IGNORE");
    expect(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG, "Status_f2c of MPI_F_STATUS_IGNORE");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK err_user\n");
    MPI_Finalize();
    return 0;
}
