/* ranks: 1 3 */
/* MPI-4.0 info calls and MPI_Comm_idup_with_info: MPI_Info_get_string copies
 * the value truncated to buflen (NUL included) and answers the size the
 * whole value needs, leaves buflen and value alone for a missing key, and
 * takes buflen 0 as a length query; MPI_Info_create_env, called before
 * MPI_Init and after, holds command and argv from its arguments and, once
 * MPI is up, what MPI_INFO_ENV holds; the other info calls work before
 * MPI_Init too; MPI_Comm_idup_with_info gives a
 * working duplicate with the parent's attributes; bad input fails with the
 * standard's classes. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank = -1, size;

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void get_string(void)
{
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "color", "turquoise");
    char buf[32];
    int len = sizeof buf, flag = 0;
    MPI_Info_get_string(in, "color", &len, buf, &flag);
    CHECK(flag && len == 10 && !strcmp(buf, "turquoise"), "whole value: flag %d len %d '%s'", flag, len, buf);
    memset(buf, 'x', sizeof buf);
    len = 5;
    MPI_Info_get_string(in, "color", &len, buf, &flag);
    CHECK(flag && len == 10 && !strcmp(buf, "turq") && buf[5] == 'x', "truncated: len %d '%.8s'", len, buf);
    len = 0;
    MPI_Info_get_string(in, "color", &len, NULL, &flag);
    CHECK(flag && len == 10, "length query: flag %d len %d", flag, len);
    strcpy(buf, "keep");
    len = 17;
    flag = 1;
    MPI_Info_get_string(in, "shape", &len, buf, &flag);
    CHECK(!flag && len == 17 && !strcmp(buf, "keep"), "missing key: flag %d len %d '%s'", flag, len, buf);
    char longkey[MPI_MAX_INFO_KEY + 8];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    len = sizeof buf;
    expect(MPI_Info_get_string(in, longkey, &len, buf, &flag), MPI_ERR_INFO_KEY, "key too long");
    expect(MPI_Info_get_string(in, "", &len, buf, &flag), MPI_ERR_INFO_KEY, "empty key");
    expect(MPI_Info_get_string(MPI_INFO_NULL, "color", &len, buf, &flag), MPI_ERR_INFO, "MPI_INFO_NULL");
    expect(MPI_Info_get_string(in, "color", NULL, buf, &flag), MPI_ERR_ARG, "NULL buflen");
    len = -1;
    expect(MPI_Info_get_string(in, "color", &len, buf, &flag), MPI_ERR_ARG, "negative buflen");
    len = 4;
    expect(MPI_Info_get_string(in, "color", &len, buf, NULL), MPI_ERR_ARG, "NULL flag");
    MPI_Info_free(&in);
}

static const char *val(MPI_Info in, const char *key, char *buf, int len)
{
    int flag = 0;
    MPI_Info_get_string(in, key, &len, buf, &flag);
    return flag ? buf : NULL;
}

static void create_env(MPI_Info before)
{
    char b[MPI_MAX_INFO_VAL + 1], e[MPI_MAX_INFO_VAL + 1];
    char *args[] = {"./prog", "-n", "5", NULL};
    MPI_Info in;
    MPI_Info_create_env(3, args, &in);
    CHECK(val(in, "command", b, sizeof b) && !strcmp(b, "./prog"), "command");
    CHECK(val(in, "argv", b, sizeof b) && !strcmp(b, "-n 5"), "argv '%s'", b);
    static const char *const keys[] = {"maxprocs", "host", "thread_level"};
    for (int i = 0; i < 3; i++) {
        CHECK(val(MPI_INFO_ENV, keys[i], e, sizeof e), "MPI_INFO_ENV lacks %s", keys[i]);
        CHECK(val(in, keys[i], b, sizeof b) && !strcmp(b, e), "%s: '%s', MPI_INFO_ENV has '%s'", keys[i], b, e);
    }
    /* the info is the caller's: it can be changed and freed */
    CHECK(MPI_Info_set(in, "mine", "1") == MPI_SUCCESS, "MPI_Info_set on it failed");
    MPI_Info_free(&in);
    MPI_Info_create_env(0, NULL, &in);
    CHECK(!val(in, "command", b, sizeof b) && !val(in, "argv", b, sizeof b), "no arguments, yet command/argv");
    MPI_Info_free(&in);
    /* made before MPI_Init: the arguments and the host, nothing MPI_Init decides */
    CHECK(val(before, "command", b, sizeof b) && !strcmp(b, "./prog"), "before MPI_Init: command");
    CHECK(val(before, "host", b, sizeof b), "before MPI_Init: no host");
    CHECK(!val(before, "maxprocs", b, sizeof b), "before MPI_Init: maxprocs '%s'", b);
    MPI_Info_free(&before);
    expect(MPI_Info_create_env(-1, NULL, &in), MPI_ERR_ARG, "negative argc");
    expect(MPI_Info_create_env(0, NULL, NULL), MPI_ERR_ARG, "NULL info");
}

static int copies;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void idup_with_info(void)
{
    int key;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(size_t)42);
    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
    MPI_Comm d;
    MPI_Request r;
    CHECK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, in, &d, &r) == MPI_SUCCESS, "idup_with_info failed");
    MPI_Info bad = in;
    MPI_Info_free(&in); /* the hints were taken at the call */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(d != MPI_COMM_NULL && d != MPI_COMM_WORLD, "no new communicator");
    int res;
    MPI_Comm_compare(d, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_CONGRUENT, "compare %d", res);
    void *v;
    int flag;
    MPI_Comm_get_attr(d, key, &v, &flag);
    CHECK(flag && v == (void *)(size_t)42 && copies == 1, "attribute not copied (flag %d copies %d)", flag, copies);
    int sum = 0, one = rank + 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK(sum == size * (size + 1) / 2, "allreduce on the duplicate: %d", sum);
    MPI_Comm_free(&d);
    /* MPI_INFO_NULL: no hints */
    MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Barrier(d);
    MPI_Comm_free(&d);
    MPI_Comm_free_keyval(&key);
    expect(MPI_Comm_idup_with_info(MPI_COMM_WORLD, bad, &d, &r), MPI_ERR_INFO, "freed info");
    expect(MPI_Comm_idup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &d, &r), MPI_ERR_COMM, "null comm");
    expect(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, NULL, &r), MPI_ERR_ARG, "NULL newcomm");
    expect(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d, NULL), MPI_ERR_ARG, "NULL request");
}

/* Before MPI_Init (MPI-4.0): the info calls work, and what they made is
 * usable once MPI is up. */
static MPI_Info early(void)
{
    MPI_Info in, d;
    CHECK(MPI_Info_create(&in) == MPI_SUCCESS, "MPI_Info_create before MPI_Init");
    MPI_Info_set(in, "a", "1");
    MPI_Info_set(in, "b", "22");
    MPI_Info_delete(in, "a");
    int n = -1, len = 8, flag = 0;
    char v[8], k[MPI_MAX_INFO_KEY + 1];
    MPI_Info_get_nkeys(in, &n);
    MPI_Info_get_nthkey(in, 0, k);
    MPI_Info_get_string(in, "b", &len, v, &flag);
    CHECK(n == 1 && !strcmp(k, "b") && flag && !strcmp(v, "22"), "before MPI_Init: %d keys, '%s'='%s'", n, k, v);
    MPI_Info_dup(in, &d);
    MPI_Info_free(&in);
    return d;
}

int main(int argc, char **argv)
{
    char *args[] = {"./prog", NULL};
    MPI_Info before, pre = early();
    CHECK(MPI_Info_create_env(1, args, &before) == MPI_SUCCESS, "MPI_Info_create_env before MPI_Init");
    MPI_Init(&argc, &argv);
    char v[8];
    CHECK(val(pre, "b", v, sizeof v) && !strcmp(v, "22"), "an info made before MPI_Init lost its key");
    MPI_Info_free(&pre);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    get_string();
    create_env(before);
    idup_with_info();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
