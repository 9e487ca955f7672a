/* MPI_T through the standard ABI: control and performance variables,
 * sessions, handles (MPI_T_PVAR_ALL_HANDLES included), sources and events,
 * with the ABI's values of verbosity, binding, scope, variable class and
 * source order; event callbacks registered at the ABI's safety levels, a
 * dropped handler, the free callback. 2 ranks; each checks its own. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

#define TOK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static int verbosity_ok(int v)
{
    return v == MPI_T_VERBOSITY_USER_BASIC || v == MPI_T_VERBOSITY_USER_DETAIL ||
           v == MPI_T_VERBOSITY_USER_ALL || v == MPI_T_VERBOSITY_TUNER_BASIC ||
           v == MPI_T_VERBOSITY_TUNER_DETAIL || v == MPI_T_VERBOSITY_TUNER_ALL ||
           v == MPI_T_VERBOSITY_MPIDEV_BASIC || v == MPI_T_VERBOSITY_MPIDEV_DETAIL ||
           v == MPI_T_VERBOSITY_MPIDEV_ALL;
}

static int freed;
static MPI_T_cb_safety free_level = (MPI_T_cb_safety)-1;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)e, (void)r, (void)s, (void)ud;
}

static void on_dropped(MPI_Count n, MPI_T_event_registration r, int src, MPI_T_cb_safety s, void *ud)
{
    (void)n, (void)r, (void)src, (void)s, (void)ud;
}

static void on_free(MPI_T_event_registration r, MPI_T_cb_safety s, void *ud)
{
    (void)r;
    free_level = s;
    freed += ud == &freed;
}

int main(int argc, char **argv)
{
    int provided, n, nl, dl, verb, bind, scope, cls, ro, cont, atomic, count, idx;
    char name[256], desc[1024];
    MPI_Datatype dt;
    MPI_T_enum en;
    TOK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));

    /* control variables: an int one is read through a handle */
    TOK(MPI_T_cvar_get_num(&n));
    CHECK(n > 0, "no control variables");
    int cvar_int = -1;
    for (int i = 0; i < n; i++) {
        nl = sizeof name, dl = sizeof desc;
        TOK(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope));
        CHECK(verbosity_ok(verb), "cvar %s: verbosity %d", name, verb);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s: bind %d", name, bind);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "cvar %s: scope %d", name, scope);
        if (en != MPI_T_ENUM_NULL) {
            int items, value;
            char iname[256];
            nl = sizeof name;
            TOK(MPI_T_enum_get_info(en, &items, name, &nl));
            CHECK(items > 0, "enum of cvar %d: no items", i);
            nl = sizeof iname;
            TOK(MPI_T_enum_get_item(en, 0, &value, iname, &nl));
        }
        if (dt == MPI_INT && cvar_int < 0)
            cvar_int = i;
    }
    CHECK(cvar_int >= 0, "no int control variable");
    MPI_T_cvar_handle ch;
    int value = -12345;
    TOK(MPI_T_cvar_handle_alloc(cvar_int, NULL, &ch, &count));
    CHECK(ch != MPI_T_CVAR_HANDLE_NULL && count == 1, "cvar handle, count %d", count);
    TOK(MPI_T_cvar_read(ch, &value));
    CHECK(value != -12345, "cvar_read wrote nothing");
    TOK(MPI_T_cvar_handle_free(&ch));
    CHECK(ch == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free left the handle");

    /* performance variables: a counter found again by name and class */
    TOK(MPI_T_pvar_get_num(&n));
    int counter = -1;
    for (int i = 0; i < n; i++) {
        nl = sizeof name, dl = sizeof desc;
        TOK(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont, &atomic));
        CHECK(verbosity_ok(verb) && bind == MPI_T_BIND_NO_OBJECT, "pvar %s: verbosity %d bind %d", name,
              verb, bind);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC, "pvar %s: class %d", name, cls);
        if (cls == MPI_T_PVAR_CLASS_COUNTER && dt == MPI_UNSIGNED_LONG_LONG && counter < 0) {
            counter = i;
            TOK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
            CHECK(idx == i, "pvar_get_index(%s, MPI_T_PVAR_CLASS_COUNTER) = %d, not %d", name, idx, i);
        }
    }
    CHECK(counter >= 0, "no unsigned long long counter");
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle ph;
    unsigned long long c0 = 0;
    TOK(MPI_T_pvar_session_create(&ses));
    CHECK(ses != MPI_T_PVAR_SESSION_NULL, "null session");
    TOK(MPI_T_pvar_handle_alloc(ses, counter, NULL, &ph, &count));
    CHECK(ph != MPI_T_PVAR_HANDLE_NULL && ph != MPI_T_PVAR_ALL_HANDLES && count >= 1, "pvar handle, count %d",
          count);
    TOK(MPI_T_pvar_start(ses, MPI_T_PVAR_ALL_HANDLES));
    TOK(MPI_T_pvar_read(ses, ph, &c0));
    TOK(MPI_T_pvar_stop(ses, MPI_T_PVAR_ALL_HANDLES));
    TOK(MPI_T_pvar_handle_free(ses, &ph));
    CHECK(ph == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free left the handle");
    TOK(MPI_T_pvar_session_free(&ses));
    CHECK(ses == MPI_T_PVAR_SESSION_NULL, "pvar_session_free left the session");

    /* sources and events */
    TOK(MPI_T_source_get_num(&n));
    for (int i = 0; i < n; i++) {
        MPI_T_source_order order;
        MPI_Count ticks, max;
        MPI_Info info;
        nl = sizeof name, dl = sizeof desc;
        TOK(MPI_T_source_get_info(i, name, &nl, desc, &dl, &order, &ticks, &max, &info));
        CHECK(order == MPI_T_SOURCE_ORDERED || order == MPI_T_SOURCE_UNORDERED, "source %s: order %d", name,
              (int)order);
        if (info != MPI_INFO_NULL)
            OK(MPI_Info_free(&info));
    }
    TOK(MPI_T_event_get_num(&n));
    if (n > 0) {
        int ne = 0;
        MPI_Info info;
        nl = sizeof name, dl = sizeof desc;
        TOK(MPI_T_event_get_info(0, name, &nl, &verb, NULL, NULL, &ne, &en, &info, desc, &dl, &bind));
        CHECK(verbosity_ok(verb) && bind == MPI_T_BIND_NO_OBJECT, "event %s: verbosity %d bind %d", name, verb,
              bind);
        if (info != MPI_INFO_NULL)
            OK(MPI_Info_free(&info));
        MPI_Datatype types[16];
        MPI_Aint displs[16];
        CHECK(ne > 0 && ne <= 16, "event %s: %d elements", name, ne);
        nl = sizeof name, dl = sizeof desc;
        TOK(MPI_T_event_get_info(0, name, &nl, &verb, types, displs, &ne, &en, NULL, desc, &dl, &bind));
        for (int i = 0; i < ne; i++) {
            int size = 0;
            OK(MPI_Type_size(types[i], &size));
            CHECK(size > 0, "event %s: element %d's datatype", name, i);
        }
        MPI_T_event_registration reg;
        TOK(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg));
        OK(MPI_Info_create(&info));
        TOK(MPI_T_event_handle_set_info(reg, info));
        OK(MPI_Info_free(&info));
        TOK(MPI_T_event_handle_get_info(reg, &info));
        CHECK(info != MPI_INFO_NULL, "event_handle_get_info: MPI_INFO_NULL");
        OK(MPI_Info_free(&info));
        /* callbacks by the ABI's safety levels */
        TOK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, &freed, on_event));
        TOK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &info));
        OK(MPI_Info_free(&info));
        CHECK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &info) != MPI_SUCCESS,
              "a callback at MPI_T_CB_REQUIRE_MPI_RESTRICTED that was not registered");
        TOK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &freed, on_event));
        TOK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, NULL, NULL));
        CHECK(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &info) != MPI_SUCCESS,
              "the removed callback is still there");
        CHECK(MPI_T_event_register_callback(reg, (MPI_T_cb_safety)2, MPI_INFO_NULL, &freed, on_event) != MPI_SUCCESS,
              "callback safety 2 (no level of the ABI) accepted");
        TOK(MPI_T_event_set_dropped_handler(reg, on_dropped));
        /* the free callback: at once (no callback running), with the ABI's level */
        TOK(MPI_T_event_handle_free(reg, &freed, on_free));
        CHECK(freed == 1 && free_level == MPI_T_CB_REQUIRE_NONE, "free callback: %d calls, level %d", freed,
              (int)free_level);
        CHECK(MPI_T_event_handle_free(NULL, &freed, on_free) != MPI_SUCCESS && freed == 1,
              "MPI_T_event_handle_free of NULL");
    }

    OK(MPI_Finalize());
    TOK(MPI_T_finalize());
    if (std_rank == 0)
        printf("OK\n");
    return 0;
}
