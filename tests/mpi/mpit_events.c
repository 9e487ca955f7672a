/* ranks: 1 2 */
/* MPI_T events (MPI-4.1 §15.3.8-9): the one source and its stamps, the rail
 * event types and their layout, the rail category's events, registrations
 * (alloc, info, callbacks, dropped handler, free with its callback) and every
 * error code, before MPI_Init, while the job runs and after MPI_T_finalize.
 * The events themselves fire in tests/unit/test_mpit_events.c (through the
 * rail layer's hook) and tests/fault/mpit_failover_log.sh (a failed rail). */
#include "check.h"

#include <string.h>

static int rank = -1;

static void never(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)e;
    (void)r;
    (void)s;
    (void)ud;
}

static void dropped(MPI_Count n, MPI_T_event_registration r, int src, MPI_T_cb_safety s, void *ud)
{
    (void)n;
    (void)r;
    (void)src;
    (void)s;
    (void)ud;
}

static int freed;
static void on_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)r;
    (void)s;
    freed += ud == &freed;
}

static const char *const names[] = {"rail_path_suspect",    "rail_path_failed",  "rail_path_up",
                                    "rail_path_migrated",   "rail_peer_partitioned", "rail_peer_resumed"};

static void events(void)
{
    int n = -1, err;
    /* the source: monotonic nanoseconds, ordered */
    CHECK(MPI_T_source_get_num(&n) == MPI_SUCCESS && n == 1, "source_get_num %d", n);
    char name[64], desc[256];
    int nl = sizeof name, dl = sizeof desc;
    MPI_T_source_order order = MPI_T_SOURCE_UNORDERED;
    MPI_Count tps = 0, max = 0, t0, t1;
    MPI_Info info = 1;
    err = MPI_T_source_get_info(0, name, &nl, desc, &dl, &order, &tps, &max, &info);
    CHECK(err == MPI_SUCCESS && !strcmp(name, "monotonic") && nl == 10 && order == MPI_T_SOURCE_ORDERED &&
              tps == 1000000000 && max > 0 && dl > 1,
          "source_get_info: %d %s %d %lld", err, name, order, (long long)tps);
    int nkeys = -1;
    CHECK(info != MPI_INFO_NULL && info != 1 && MPI_Info_get_nkeys(info, &nkeys) == MPI_SUCCESS && nkeys == 0,
          "source info %d: %d keys", (int)info, nkeys);
    MPI_Info_free(&info);
    CHECK(MPI_T_source_get_info(1, name, &nl, desc, &dl, &order, &tps, &max, NULL) == MPI_T_ERR_INVALID_INDEX,
          "source 1");
    CHECK(MPI_T_source_get_timestamp(0, &t0) == MPI_SUCCESS && MPI_T_source_get_timestamp(0, &t1) == MPI_SUCCESS &&
              t1 >= t0 && t0 > 0,
          "timestamps");
    CHECK(MPI_T_source_get_timestamp(-1, &t0) == MPI_T_ERR_INVALID_INDEX, "timestamp of source -1");
    CHECK(MPI_T_source_get_timestamp(0, NULL) == MPI_T_ERR_INVALID, "timestamp NULL");

    /* the event types */
    CHECK(MPI_T_event_get_num(&n) == MPI_SUCCESS && n == 6, "event_get_num %d", n);
    for (int i = 0; i < n; i++) {
        MPI_Datatype types[4];
        MPI_Aint disps[4];
        int ne = 4, verb, bind, idx = -1;
        MPI_T_enum et = MPI_T_ENUM_NULL;
        nl = sizeof name;
        dl = sizeof desc;
        err = MPI_T_event_get_info(i, name, &nl, &verb, types, disps, &ne, &et, NULL, desc, &dl, &bind);
        CHECK(err == MPI_SUCCESS && !strcmp(name, names[i]), "event %d: %d %s", i, err, name);
        CHECK(ne == 3 && types[0] == MPI_INT && types[1] == MPI_INT && types[2] == MPI_INT && disps[0] == 0 &&
                  disps[1] == sizeof(int) && disps[2] == 2 * sizeof(int),
              "event %d layout", i);
        CHECK(verb == MPI_T_VERBOSITY_USER_BASIC && bind == MPI_T_BIND_NO_OBJECT, "event %d verbosity/bind", i);
        int items = 0, v = -1;
        char item[32];
        int il = sizeof item;
        CHECK(MPI_T_enum_get_info(et, &items, NULL, NULL) == MPI_SUCCESS && items == 8, "reasons %d", items);
        CHECK(MPI_T_enum_get_item(et, 2, &v, item, &il) == MPI_SUCCESS && v == 2 && !strcmp(item, "request"),
              "reason 2: %s", item);
        CHECK(MPI_T_event_get_index(names[i], &idx) == MPI_SUCCESS && idx == i, "get_index(%s)", names[i]);
        /* a short array: filled as far as it goes, the count still told */
        ne = 1;
        types[1] = MPI_DATATYPE_NULL;
        CHECK(MPI_T_event_get_info(i, NULL, NULL, NULL, types, disps, &ne, NULL, NULL, NULL, NULL, NULL) ==
                      MPI_SUCCESS &&
                  ne == 3 && types[0] == MPI_INT && types[1] == MPI_DATATYPE_NULL,
              "short arrays");
    }
    CHECK(MPI_T_event_get_info(n, name, &nl, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX,
          "event_get_info past the end");
    CHECK(MPI_T_event_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) ==
              MPI_T_ERR_INVALID_INDEX,
          "event_get_info -1");
    CHECK(MPI_T_event_get_index("rail_nonesuch", &n) == MPI_T_ERR_INVALID_NAME, "get_index unknown");
    CHECK(MPI_T_event_get_index(NULL, &n) == MPI_T_ERR_INVALID, "get_index NULL");

    /* categories: the rail category holds all six, the others none */
    int ncat, rail = -1, ne = -1, idx[8];
    MPI_T_category_get_num(&ncat);
    CHECK(MPI_T_category_get_index("rail", &rail) == MPI_SUCCESS, "rail category");
    CHECK(MPI_T_category_get_num_events(rail, &ne) == MPI_SUCCESS && ne == 6, "rail events %d", ne);
    CHECK(MPI_T_category_get_events(rail, 8, idx) == MPI_SUCCESS && idx[0] == 0 && idx[5] == 5, "rail event list");
    for (int c = 0; c < ncat; c++)
        if (c != rail)
            CHECK(MPI_T_category_get_num_events(c, &ne) == MPI_SUCCESS && ne == 0, "category %d events", c);
    CHECK(MPI_T_category_get_num_events(ncat, &ne) == MPI_T_ERR_INVALID_INDEX, "num_events past the end");
    CHECK(MPI_T_category_get_events(-1, 8, idx) == MPI_T_ERR_INVALID_INDEX, "get_events -1");
    CHECK(MPI_T_category_get_events(rail, -1, idx) == MPI_T_ERR_INVALID, "get_events len -1");

    /* registrations */
    MPI_T_event_registration reg = NULL, other;
    CHECK(MPI_T_event_handle_alloc(6, NULL, MPI_INFO_NULL, &reg) == MPI_T_ERR_INVALID_INDEX, "alloc index 6");
    CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, NULL) == MPI_T_ERR_INVALID, "alloc NULL");
    CHECK(MPI_T_event_handle_alloc(1, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS && reg, "alloc");
    CHECK(MPI_T_event_handle_alloc(1, NULL, MPI_INFO_NULL, &other) == MPI_SUCCESS && other != reg, "alloc 2");
    CHECK(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL) == MPI_SUCCESS, "handle_set_info");
    info = MPI_INFO_NULL;
    CHECK(MPI_T_event_handle_get_info(reg, &info) == MPI_SUCCESS && info != MPI_INFO_NULL, "handle_get_info");
    nkeys = -1;
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 0, "handle info keys %d", nkeys);
    MPI_Info_free(&info);
    CHECK(MPI_T_event_handle_get_info(reg, NULL) == MPI_T_ERR_INVALID, "handle_get_info NULL");
    /* no callback yet at that level */
    CHECK(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL) == MPI_T_ERR_INVALID,
          "callback_set_info without a callback");
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, never) == MPI_SUCCESS,
          "register NONE");
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, never) ==
              MPI_SUCCESS,
          "register THREAD_SAFE");
    CHECK(MPI_T_event_register_callback(reg, (MPI_T_cb_safety)4, MPI_INFO_NULL, NULL, never) == MPI_T_ERR_INVALID,
          "register level 4");
    CHECK(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL) == MPI_SUCCESS,
          "callback_set_info");
    info = MPI_INFO_NULL;
    CHECK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, &info) == MPI_SUCCESS &&
              info != MPI_INFO_NULL,
          "callback_get_info");
    MPI_Info_free(&info);
    CHECK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &info) == MPI_T_ERR_INVALID,
          "callback_get_info at a level without a callback");
    CHECK(MPI_T_event_set_dropped_handler(reg, dropped) == MPI_SUCCESS, "set_dropped_handler");
    freed = 0;
    CHECK(MPI_T_event_handle_free(reg, &freed, on_free) == MPI_SUCCESS && freed == 1, "handle_free %d", freed);
    /* the freed handle is gone */
    CHECK(MPI_T_event_handle_free(reg, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE, "double free");
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, never) ==
              MPI_T_ERR_INVALID_HANDLE,
          "register on a freed handle");
    CHECK(MPI_T_event_set_dropped_handler(NULL, dropped) == MPI_T_ERR_INVALID_HANDLE, "dropped on NULL");
    CHECK(MPI_T_event_handle_set_info(NULL, MPI_INFO_NULL) == MPI_T_ERR_INVALID_HANDLE, "set_info NULL");
    CHECK(MPI_T_event_callback_get_info((MPI_T_event_registration)&freed, MPI_T_CB_REQUIRE_NONE, &info) ==
              MPI_T_ERR_INVALID_HANDLE,
          "a pointer that is no registration");
    CHECK(MPI_T_event_handle_free(other, NULL, NULL) == MPI_SUCCESS, "free other");
    /* instances exist only inside callbacks: a NULL one is no handle */
    int v;
    MPI_Count ts;
    CHECK(MPI_T_event_read(NULL, 0, &v) == MPI_T_ERR_INVALID_HANDLE, "read NULL");
    CHECK(MPI_T_event_copy(NULL, &v) == MPI_T_ERR_INVALID_HANDLE, "copy NULL");
    CHECK(MPI_T_event_get_timestamp(NULL, &ts) == MPI_T_ERR_INVALID_HANDLE, "timestamp NULL");
    CHECK(MPI_T_event_get_source(NULL, &v) == MPI_T_ERR_INVALID_HANDLE, "source NULL");
}

int main(int argc, char **argv)
{
    int n, provided;
    MPI_T_event_registration reg;
    /* before MPI_T_init_thread: not initialized */
    CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "event_get_num before init");
    CHECK(MPI_T_source_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED, "source_get_num before init");
    CHECK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg) == MPI_T_ERR_NOT_INITIALIZED, "alloc before init");
    CHECK(MPI_T_event_read(NULL, 0, &n) == MPI_T_ERR_NOT_INITIALIZED, "read before init");
    CHECK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS, "MPI_T_init_thread");
    events(); /* before MPI_Init */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    events(); /* while the job runs */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    MPI_T_finalize();
    CHECK(MPI_T_category_get_num_events(0, &n) == MPI_T_ERR_NOT_INITIALIZED, "after MPI_T_finalize");
    if (rank == 0)
        printf("OK\n");
    return 0;
}
