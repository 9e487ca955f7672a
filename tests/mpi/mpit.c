/* ranks: 1 2 3 */
/* MPI_T, the tools interface (MPI-3.1 chapter 14): control variables are
 * the RAILMPI_* settings, written before MPI_Init to reach it and, for a
 * few, while the job runs; performance variables are the rails' counters;
 * categories, enumerations, sessions and handles; every error code. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank = -1;

static int cvar_index(const char *name)
{
    int i = -1, err = MPI_T_cvar_get_index(name, &i);
    CHECK(err == MPI_SUCCESS, "MPI_T_cvar_get_index(%s) = %d", name, err);
    return i;
}

static MPI_T_cvar_handle cvar_handle(const char *name, int *count)
{
    MPI_T_cvar_handle h;
    int err = MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &h, count);
    CHECK(err == MPI_SUCCESS, "cvar_handle_alloc(%s) = %d", name, err);
    return h;
}

static unsigned long long cvar_size(const char *name)
{
    int count;
    unsigned long long v = 0;
    MPI_T_cvar_handle h = cvar_handle(name, &count);
    CHECK(count == 1, "%s: count %d", name, count);
    CHECK(MPI_T_cvar_read(h, &v) == MPI_SUCCESS, "read %s", name);
    MPI_T_cvar_handle_free(&h);
    return v;
}

static void cvar_str(const char *name, char *out, size_t len)
{
    int count;
    MPI_T_cvar_handle h = cvar_handle(name, &count);
    CHECK(count >= 1 && (size_t)count <= len, "%s: count %d", name, count);
    CHECK(MPI_T_cvar_read(h, out) == MPI_SUCCESS, "read %s", name);
    MPI_T_cvar_handle_free(&h);
}

static int cvar_write_str(const char *name, const char *val)
{
    int count;
    MPI_T_cvar_handle h = cvar_handle(name, &count);
    int err = MPI_T_cvar_write(h, val);
    MPI_T_cvar_handle_free(&h);
    return err;
}

/* Before MPI_Init: the interface alone. */
static void before_init(void)
{
    int n, provided, err;
    /* nothing works before MPI_T_init_thread */
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num before init");
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);
    CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS, "nested init");

    /* every control variable describes itself, and its name finds it again */
    CHECK(MPI_T_cvar_get_num(&n) == MPI_SUCCESS && n >= 20, "cvar count %d", n);
    for (int i = 0; i < n; i++) {
        char name[128], desc[512];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, j;
        MPI_Datatype dt;
        MPI_T_enum et;
        err = MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &et, desc, &dl, &bind, &scope);
        CHECK(err == MPI_SUCCESS, "cvar_get_info(%d) = %d", i, err);
        CHECK(!strncmp(name, "RAILMPI_", 8) && nl == (int)strlen(name) + 1, "cvar %d name %s len %d", i, name, nl);
        CHECK(dl > 1 && bind == MPI_T_BIND_NO_OBJECT, "cvar %s desc/bind", name);
        CHECK(dt == MPI_INT || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_CHAR, "cvar %s type", name);
        CHECK(MPI_T_cvar_get_index(name, &j) == MPI_SUCCESS && j == i, "cvar %s index %d != %d", name, j, i);
    }
    /* a short buffer gets a truncated, terminated name and the length it needs */
    char small[5];
    int sl = sizeof small;
    CHECK(MPI_T_cvar_get_info(0, small, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS, "short");
    CHECK(strlen(small) == 4 && !strncmp(small, "RAIL", 4) && sl == 5, "short name '%s' %d", small, sl);
    sl = 0;
    CHECK(MPI_T_cvar_get_info(0, NULL, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_SUCCESS && sl > 9,
          "length query %d", sl);

    /* errors */
    int idx;
    MPI_T_cvar_handle h;
    CHECK(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
          "cvar index n");
    CHECK(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
          "cvar index -1");
    CHECK(MPI_T_cvar_handle_alloc(n, NULL, &h, &idx) == MPI_T_ERR_INVALID_INDEX, "alloc bad index");
    CHECK(MPI_T_cvar_get_index("RAILMPI_NO_SUCH_THING", &idx) == MPI_T_ERR_INVALID_NAME, "unknown name");
    CHECK(MPI_T_cvar_get_index("EAGER_THRESHOLD", &idx) == MPI_T_ERR_INVALID_NAME, "name without prefix");
    CHECK(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &idx) == MPI_T_ERR_INVALID_HANDLE, "null handle");

    /* written before MPI_Init, a setting reaches MPI_Init (every rank writes the
     * same value: the eager threshold must agree across ranks) */
    unsigned long long eager = 8192;
    int count;
    h = cvar_handle("RAILMPI_EAGER_THRESHOLD", &count);
    CHECK(MPI_T_cvar_write(h, &eager) == MPI_SUCCESS, "write eager before init");
    MPI_T_cvar_handle_free(&h);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "freed handle is not nulled");
    CHECK(cvar_size("RAILMPI_EAGER_THRESHOLD") == 8192, "eager threshold read back");
    /* what the launcher sets is never writable */
    CHECK(cvar_write_str("RAILMPI_HOST_ID", "elsewhere") == MPI_T_ERR_CVAR_SET_NEVER, "host id writable");
    /* string settings are written and read back */
    char text[512];
    int spin = -1;
    h = cvar_handle("RAILMPI_VERBOSE", &count);
    CHECK(MPI_T_cvar_read(h, &spin) == MPI_SUCCESS && spin >= 0, "verbose read");
    MPI_T_cvar_handle_free(&h);
    CHECK(cvar_write_str("RAILMPI_TCP_CONGESTION", "reno") == MPI_SUCCESS, "string write");
    cvar_str("RAILMPI_TCP_CONGESTION", text, sizeof text);
    CHECK(!strcmp(text, "reno"), "string read back '%s'", text);
    CHECK(cvar_write_str("RAILMPI_TCP_CONGESTION", "cubic") == MPI_SUCCESS, "string write back");
}

static void check_categories(void)
{
    int ncat, ncv, npv, sum_cv = 0, sum_pv = 0;
    CHECK(MPI_T_category_get_num(&ncat) == MPI_SUCCESS && ncat >= 2, "categories %d", ncat);
    MPI_T_cvar_get_num(&ncv);
    MPI_T_pvar_get_num(&npv);
    for (int c = 0; c < ncat; c++) {
        char name[64];
        int nl = sizeof name, cv, pv, sub, j;
        CHECK(MPI_T_category_get_info(c, name, &nl, NULL, NULL, &cv, &pv, &sub) == MPI_SUCCESS, "cat %d", c);
        CHECK(MPI_T_category_get_index(name, &j) == MPI_SUCCESS && j == c, "cat %s index", name);
        int *ix = malloc(sizeof(int) * (size_t)(cv + pv + 1));
        CHECK(MPI_T_category_get_cvars(c, cv, ix) == MPI_SUCCESS, "cat cvars");
        for (int k = 0; k < cv; k++)
            CHECK(ix[k] >= 0 && ix[k] < ncv, "cat %s cvar %d", name, ix[k]);
        CHECK(MPI_T_category_get_pvars(c, pv, ix) == MPI_SUCCESS, "cat pvars");
        for (int k = 0; k < pv; k++)
            CHECK(ix[k] >= 0 && ix[k] < npv, "cat %s pvar %d", name, ix[k]);
        free(ix);
        sum_cv += cv;
        sum_pv += pv;
    }
    CHECK(sum_cv == ncv && sum_pv == npv, "categories hold %d/%d cvars, %d/%d pvars", sum_cv, ncv, sum_pv, npv);
    int j, stamp;
    CHECK(MPI_T_category_get_index("rail", &j) == MPI_SUCCESS, "rail category");
    CHECK(MPI_T_category_get_index("nope", &j) == MPI_T_ERR_INVALID_NAME, "unknown category");
    CHECK(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX,
          "category index");
    CHECK(MPI_T_category_get_cvars(0, -1, NULL) == MPI_T_ERR_INVALID, "negative len");
    CHECK(MPI_T_category_changed(&stamp) == MPI_SUCCESS, "changed");
}

static void check_pvars(void)
{
    int npv, err;
    CHECK(MPI_T_pvar_get_num(&npv) == MPI_SUCCESS && npv >= 10, "pvars %d", npv);
    for (int i = 0; i < npv; i++) {
        char name[128];
        int nl = sizeof name, verb, cls, bind, ro, cont, atomic, j;
        MPI_Datatype dt;
        MPI_T_enum et;
        err = MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &et, NULL, NULL, &bind, &ro, &cont, &atomic);
        CHECK(err == MPI_SUCCESS, "pvar_get_info(%d) = %d", i, err);
        CHECK(MPI_T_pvar_get_index(name, cls, &j) == MPI_SUCCESS && j == i, "pvar %s index", name);
        CHECK(cont == 1 && bind == MPI_T_BIND_NO_OBJECT, "pvar %s continuous/bind", name);
        if (cls == MPI_T_PVAR_CLASS_STATE)
            CHECK(dt == MPI_INT && et != MPI_T_ENUM_NULL && ro, "state pvar %s", name);
    }
    int j;
    CHECK(MPI_T_pvar_get_index("rail_tx_bytes", MPI_T_PVAR_CLASS_TIMER, &j) == MPI_T_ERR_INVALID_NAME,
          "class is part of the name");
    CHECK(MPI_T_pvar_get_info(npv, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX, "pvar index");

    MPI_T_pvar_session s, other;
    MPI_T_pvar_handle tx, state, down;
    int ntx, nstate, ndown;
    CHECK(MPI_T_pvar_session_create(&s) == MPI_SUCCESS, "session");
    CHECK(MPI_T_pvar_session_create(&other) == MPI_SUCCESS, "second session");
    CHECK(MPI_T_pvar_get_index("rail_tx_bytes", MPI_T_PVAR_CLASS_COUNTER, &j) == MPI_SUCCESS, "tx index");
    CHECK(MPI_T_pvar_handle_alloc(s, j, NULL, &tx, &ntx) == MPI_SUCCESS && ntx >= 1, "tx handle %d", ntx);
    CHECK(MPI_T_pvar_handle_alloc(s, npv, NULL, &tx, &ntx) == MPI_T_ERR_INVALID_INDEX, "bad pvar index");
    CHECK(MPI_T_pvar_get_index("rail_peer_path_state", MPI_T_PVAR_CLASS_STATE, &j) == MPI_SUCCESS, "state");
    CHECK(MPI_T_pvar_handle_alloc(s, j, NULL, &state, &nstate) == MPI_SUCCESS, "state handle");
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(nstate == size * ntx, "state elements %d, %d ranks x %d rails", nstate, size, ntx);
    CHECK(MPI_T_pvar_get_index("rail_down_time", MPI_T_PVAR_CLASS_TIMER, &j) == MPI_SUCCESS, "down");
    CHECK(MPI_T_pvar_handle_alloc(s, j, NULL, &down, &ndown) == MPI_SUCCESS && ndown == ntx, "down handle");

    /* on one host no rank talks over a rail: every count is 0 and no path exists */
    unsigned long long v[64];
    int st[256];
    double d[64];
    CHECK(ntx <= 64 && nstate <= 256, "sizes");
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_T_pvar_read(s, tx, v) == MPI_SUCCESS, "read tx");
    CHECK(MPI_T_pvar_read(s, state, st) == MPI_SUCCESS, "read state");
    CHECK(MPI_T_pvar_read(s, down, d) == MPI_SUCCESS, "read down");
    for (int k = 0; k < ntx; k++)
        CHECK(v[k] == 0 && d[k] == 0.0, "one host: rail %d carried %llu bytes", k, v[k]);
    for (int k = 0; k < nstate; k++)
        CHECK(st[k] == -1, "one host: element %d state %d", k, st[k]);
    /* the enumeration names the states */
    MPI_T_enum et;
    int cls, nitems, val;
    char ename[64], iname[64];
    int el = sizeof ename, il = sizeof iname;
    MPI_T_pvar_get_index("rail_peer_path_state", MPI_T_PVAR_CLASS_STATE, &j);
    MPI_T_pvar_get_info(j, NULL, NULL, NULL, &cls, NULL, &et, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK(MPI_T_enum_get_info(et, &nitems, ename, &el) == MPI_SUCCESS && nitems >= 6, "enum info");
    int seen_up = 0, seen_none = 0;
    for (int k = 0; k < nitems; k++) {
        il = sizeof iname;
        CHECK(MPI_T_enum_get_item(et, k, &val, iname, &il) == MPI_SUCCESS, "item %d", k);
        seen_up |= !strcmp(iname, "up");
        seen_none |= !strcmp(iname, "none") && val == -1;
    }
    CHECK(seen_up && seen_none, "enum items");

    /* host-level health: one element per (host, rail); on one host the only
     * host is this one, which is no remote host ("none"), and nothing was probed */
    MPI_T_pvar_handle hstate, hprobes;
    int nhstate, nhprobes;
    CHECK(MPI_T_pvar_get_index("rail_host_path_state", MPI_T_PVAR_CLASS_STATE, &j) == MPI_SUCCESS, "host state");
    MPI_T_pvar_get_info(j, NULL, NULL, NULL, &cls, NULL, &et, NULL, NULL, NULL, NULL, NULL, NULL);
    el = sizeof ename;
    CHECK(MPI_T_enum_get_info(et, &nitems, ename, &el) == MPI_SUCCESS && nitems == 4 &&
              !strcmp(ename, "rail_host_state"), "host state enum %s, %d items", ename, nitems);
    int seen_down = 0;
    for (int k = 0; k < nitems; k++) {
        il = sizeof iname;
        CHECK(MPI_T_enum_get_item(et, k, &val, iname, &il) == MPI_SUCCESS, "host item %d", k);
        seen_down |= !strcmp(iname, "down");
    }
    CHECK(seen_down, "host state enum names down");
    CHECK(MPI_T_pvar_handle_alloc(s, j, NULL, &hstate, &nhstate) == MPI_SUCCESS && nhstate == ntx,
          "host state elements %d (1 host x %d rails)", nhstate, ntx);
    CHECK(MPI_T_pvar_get_index("rail_host_probes", MPI_T_PVAR_CLASS_COUNTER, &j) == MPI_SUCCESS, "host probes");
    CHECK(MPI_T_pvar_handle_alloc(s, j, NULL, &hprobes, &nhprobes) == MPI_SUCCESS && nhprobes == ntx,
          "host probes elements %d", nhprobes);
    CHECK(MPI_T_pvar_read(s, hstate, st) == MPI_SUCCESS && MPI_T_pvar_read(s, hprobes, v) == MPI_SUCCESS,
          "read host vars");
    for (int k = 0; k < nhstate; k++)
        CHECK(st[k] == -1 && v[k] == 0, "one host: host element %d state %d, probes %llu", k, st[k], v[k]);
    CHECK(MPI_T_pvar_write(s, hstate, st) == MPI_T_ERR_PVAR_NO_WRITE, "write host state");
    CHECK(MPI_T_pvar_handle_free(s, &hstate) == MPI_SUCCESS && MPI_T_pvar_handle_free(s, &hprobes) == MPI_SUCCESS,
          "free host handles");
    CHECK(MPI_T_enum_get_item(et, nitems, &val, NULL, NULL) == MPI_T_ERR_INVALID_ITEM, "item range");

    /* continuous variables cannot be started or stopped, except through ALL_HANDLES */
    CHECK(MPI_T_pvar_start(s, tx) == MPI_T_ERR_PVAR_NO_STARTSTOP, "start continuous");
    CHECK(MPI_T_pvar_stop(s, tx) == MPI_T_ERR_PVAR_NO_STARTSTOP, "stop continuous");
    CHECK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "start all");
    CHECK(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "stop all");
    /* a counter can be written (it counts on from the value) and reset; a state cannot */
    unsigned long long w[64];
    for (int k = 0; k < ntx; k++)
        w[k] = 1000 + (unsigned long long)k;
    CHECK(MPI_T_pvar_write(s, tx, w) == MPI_SUCCESS, "write counter");
    CHECK(MPI_T_pvar_read(s, tx, v) == MPI_SUCCESS && v[0] == 1000 && v[ntx - 1] == 999 + (unsigned)ntx,
          "counter after write: %llu", v[0]);
    CHECK(MPI_T_pvar_readreset(s, tx, v) == MPI_SUCCESS && v[0] == 1000, "readreset");
    CHECK(MPI_T_pvar_read(s, tx, v) == MPI_SUCCESS && v[0] == 0, "after readreset %llu", v[0]);
    CHECK(MPI_T_pvar_write(s, state, st) == MPI_T_ERR_PVAR_NO_WRITE, "write state");
    CHECK(MPI_T_pvar_reset(s, state) == MPI_T_ERR_PVAR_NO_WRITE, "reset state");
    CHECK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS, "reset all");
    CHECK(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, v) == MPI_T_ERR_INVALID_HANDLE, "read all");
    /* a handle belongs to its session */
    CHECK(MPI_T_pvar_read(other, tx, v) == MPI_T_ERR_INVALID_HANDLE, "handle of another session");
    CHECK(MPI_T_pvar_session_free(&other) == MPI_SUCCESS && other == MPI_T_PVAR_SESSION_NULL, "free other");
    CHECK(MPI_T_pvar_read(other, tx, v) == MPI_T_ERR_INVALID_SESSION, "freed session");
    CHECK(MPI_T_pvar_handle_free(s, &tx) == MPI_SUCCESS && tx == MPI_T_PVAR_HANDLE_NULL, "free handle");
    CHECK(MPI_T_pvar_read(s, tx, v) == MPI_T_ERR_INVALID_HANDLE, "freed handle");
    CHECK(MPI_T_pvar_session_free(&s) == MPI_SUCCESS, "free session with handles");
}

static void while_running(void)
{
    /* MPI_Init used what was written before it */
    CHECK(cvar_size("RAILMPI_EAGER_THRESHOLD") == 8192, "eager threshold lost by MPI_Init");
    /* read only at MPI_Init: not now, and the value stays */
    unsigned long long eager = 4096;
    int count;
    MPI_T_cvar_handle h = cvar_handle("RAILMPI_EAGER_THRESHOLD", &count);
    CHECK(MPI_T_cvar_write(h, &eager) == MPI_T_ERR_CVAR_SET_NOT_NOW, "eager writable while running");
    MPI_T_cvar_handle_free(&h);
    CHECK(cvar_size("RAILMPI_EAGER_THRESHOLD") == 8192, "refused write changed the value");
    /* these change while the job runs */
    unsigned long long stripe = 123456;
    h = cvar_handle("RAILMPI_STRIPING_THRESHOLD", &count);
    CHECK(MPI_T_cvar_write(h, &stripe) == MPI_SUCCESS, "striping threshold");
    MPI_T_cvar_handle_free(&h);
    CHECK(cvar_size("RAILMPI_STRIPING_THRESHOLD") == 123456, "striping threshold read back");
    char pol[512];
    cvar_str("RAILMPI_RAIL_POLICY", pol, sizeof pol);
    CHECK(!strcmp(pol, "adaptive"), "policy %s", pol);
    CHECK(cvar_write_str("RAILMPI_RAIL_POLICY", "round-robin") == MPI_SUCCESS, "policy round-robin");
    cvar_str("RAILMPI_RAIL_POLICY", pol, sizeof pol);
    CHECK(!strcmp(pol, "round-robin"), "policy now %s", pol);
    CHECK(cvar_write_str("RAILMPI_RAIL_POLICY", "sideways") == MPI_T_ERR_INVALID, "unknown policy");
    CHECK(cvar_write_str("RAILMPI_RAIL_POLICY", "failover") == MPI_T_ERR_CVAR_SET_NOT_NOW, "failover now");
    cvar_str("RAILMPI_RAIL_POLICY", pol, sizeof pol);
    CHECK(!strcmp(pol, "round-robin"), "policy after refusals %s", pol);
    int to = 5;
    h = cvar_handle("RAILMPI_PATH_TIMEOUT_MS", &count);
    CHECK(MPI_T_cvar_write(h, &to) == MPI_T_ERR_INVALID, "path timeout 5 ms accepted");
    to = 400;
    CHECK(MPI_T_cvar_write(h, &to) == MPI_SUCCESS, "path timeout 400");
    MPI_T_cvar_handle_free(&h);
    /* the job secret is never shown */
    char secret[512];
    cvar_str("RAILMPI_JOB_SECRET", secret, sizeof secret);
    CHECK(!strcmp(secret, "") || !strcmp(secret, "(set)"), "secret shown: %s", secret);

    check_categories();
    check_pvars();
}

int main(int argc, char **argv)
{
    before_init();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while_running();
    /* messages still flow after the settings changed */
    int size, sum = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "finalize 1");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "finalize 2");
    int n;
    CHECK(MPI_T_cvar_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "usable after the last MPI_T_finalize");
    CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED, "finalize 3");
    MPI_Finalize();
    /* and after MPI_Finalize */
    int provided;
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "init after finalize");
    CHECK(cvar_size("RAILMPI_EAGER_THRESHOLD") == 8192, "read after finalize");
    CHECK(MPI_T_finalize() == MPI_SUCCESS, "finalize after finalize");
    if (rank == 0)
        printf("mpit: ok\n");
    return 0;
}
