/* MPI_T events (src/mpit/event.c) fed by the rail layer's rail_notify: the
 * fields and stamps callbacks see, immediate delivery inside the engine to
 * callbacks safe there (MPI_T_CB_REQUIRE_THREAD_SAFE and above), deferred
 * delivery to the others where the application leaves MPI, the bounded
 * queue and the dropped handler, freeing a registration, and events raised
 * from two threads at once while two threads deliver the deferred ones
 * (run under TSan by scripts/test.sh --tsan). */
#include "mpit/mpit.h"
#include "rail/channel.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the bindings' (src/mpi) object, which the variables' code names */
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = NULL;

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)
#define CHECK(c, ...) do { if (!(c)) FAIL(__VA_ARGS__); } while (0)

typedef struct seen {
    int calls, level, source;
    mpit_event_data_t last;
    MPI_Count ts;
    MPI_T_event_registration reg;
} seen_t;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety level, void *ud)
{
    seen_t *s = ud;
    s->calls++;
    s->level = level;
    s->reg = r;
    s->ts = mpit_instance_time(e);
    s->source = mpit_instance_source(e);
    mpit_instance_copy(e, &s->last);
    int rail = -7;
    CHECK(mpit_instance_read(e, 1, &rail) == MPI_SUCCESS && rail == s->last.rail, "read element 1");
    CHECK(mpit_instance_read(e, 3, &rail) == MPI_T_ERR_INVALID_INDEX, "read element 3");
}

static MPI_Count dropped_count;
static int dropped_calls;
static void on_dropped(MPI_Count count, MPI_T_event_registration r, int source, MPI_T_cb_safety level, void *ud)
{
    (void)r;
    (void)ud;
    CHECK(source == 0 && level == MPI_T_CB_REQUIRE_NONE, "dropped handler: source %d level %d", source, level);
    dropped_calls++;
    dropped_count += count;
}

static int freed_calls;
static void on_free(MPI_T_event_registration r, MPI_T_cb_safety level, void *ud)
{
    (void)r;
    (void)level;
    CHECK(ud == &freed_calls, "free callback's user data");
    freed_calls++;
}

static rail_channel_t ch;
static rail_path_t path;

static void raise_on(int peer, int rail, int kind, int why)
{
    ch.peer = peer;
    path.rail = rail;
    rail_notify(&ch, &path, kind, why);
}

static long thread_calls;
static void count_event(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety level, void *ud)
{
    (void)e;
    (void)r;
    (void)level;
    __atomic_add_fetch((long *)ud, 1, __ATOMIC_RELAXED);
}

/* a deferred callback: never entered by two threads at once */
static int inside, overlaps;
static void count_deferred(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety level, void *ud)
{
    if (__atomic_add_fetch(&inside, 1, __ATOMIC_RELAXED) != 1)
        __atomic_add_fetch(&overlaps, 1, __ATOMIC_RELAXED);
    count_event(e, r, level, ud);
    sched_yield(); /* long enough for the other deliverer to come in, were it let */
    __atomic_sub_fetch(&inside, 1, __ATOMIC_RELAXED);
}

static void *deliverer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2000; i++)
        mpit_event_deliver();
    return NULL;
}

static void *raiser(void *arg)
{
    rail_channel_t c = {0};
    rail_path_t p = {0};
    c.peer = (int)(long)arg;
    for (int i = 0; i < 2000; i++)
        rail_notify(&c, &p, RAIL_EV_SUSPECT, RAIL_WHY_SILENCE);
    return NULL;
}

int main(void)
{
    mpit_init();
    CHECK(mpit_event_count() == RAIL_EV_KINDS, "event count");
    int failed = mpit_event_find("rail_path_failed"), up = mpit_event_find("rail_path_up");
    CHECK(failed == RAIL_EV_FAILED && up == RAIL_EV_UP && mpit_event_find("nonesuch") == -1, "event names");

    /* no registration: nothing installed yet, nothing happens */
    raise_on(1, 1, RAIL_EV_FAILED, RAIL_WHY_ERROR);

    /* a thread-safe callback runs at once, inside the engine */
    MPI_T_event_registration rf, ru;
    seen_t sf = {0}, su = {0};
    CHECK(mpit_event_alloc(failed, &rf) == MPI_SUCCESS && mpit_event_valid(rf), "alloc failed");
    mpit_event_set_cb(rf, MPI_T_CB_REQUIRE_THREAD_SAFE, on_event, &sf);
    MPI_Count before = mpit_source_now();
    raise_on(3, 1, RAIL_EV_FAILED, RAIL_WHY_SILENCE);
    raise_on(3, 1, RAIL_EV_UP, RAIL_WHY_PROBED); /* another type: not rf's */
    CHECK(sf.calls == 1, "thread-safe callback calls %d, want 1", sf.calls);
    CHECK(sf.level == MPI_T_CB_REQUIRE_THREAD_SAFE && sf.reg == rf && sf.source == 0, "context %d", sf.level);
    CHECK(sf.last.peer == 3 && sf.last.rail == 1 && sf.last.reason == RAIL_WHY_SILENCE, "fields %d %d %d",
          sf.last.peer, sf.last.rail, sf.last.reason);
    CHECK(sf.ts >= before && sf.ts <= mpit_source_now(), "timestamp from the monotonic source");

    /* a callback that needs MPI unrestricted waits for the application thread */
    CHECK(mpit_event_alloc(up, &ru) == MPI_SUCCESS, "alloc up");
    mpit_event_set_cb(ru, MPI_T_CB_REQUIRE_NONE, on_event, &su);
    mpit_event_set_dropped(ru, on_dropped);
    raise_on(2, 0, RAIL_EV_UP, RAIL_WHY_REQUEST);
    CHECK(su.calls == 0 && mpit_ev_waiting, "a NONE callback ran inside the engine");
    mpit_event_deliver();
    CHECK(su.calls == 1 && su.level == MPI_T_CB_REQUIRE_NONE, "deferred delivery: %d calls", su.calls);
    CHECK(su.last.peer == 2 && su.last.rail == 0 && su.last.reason == RAIL_WHY_REQUEST, "deferred fields");
    CHECK(!mpit_ev_waiting && dropped_calls == 0, "nothing left waiting");

    /* the queue holds MPIT_EVENT_QUEUE events; the rest are counted, and the
     * dropped handler hears of them before the queued ones are delivered */
    for (int i = 0; i < MPIT_EVENT_QUEUE + 5; i++)
        raise_on(i, 1, RAIL_EV_UP, RAIL_WHY_ANSWERED);
    su.calls = 0;
    mpit_event_deliver();
    CHECK(dropped_calls == 1 && dropped_count == 5, "dropped: %d calls, count %lld", dropped_calls,
          (long long)dropped_count);
    CHECK(su.calls == MPIT_EVENT_QUEUE && su.last.peer == MPIT_EVENT_QUEUE - 1, "queued: %d, last peer %d",
          su.calls, su.last.peer);

    /* a thread-safe callback is preferred to a NONE one of the same registration */
    mpit_event_set_cb(ru, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, on_event, &sf);
    sf.calls = su.calls = 0;
    raise_on(5, 0, RAIL_EV_UP, RAIL_WHY_PROBED);
    mpit_event_deliver();
    CHECK(sf.calls == 1 && su.calls == 0 && sf.level == MPI_T_CB_REQUIRE_THREAD_SAFE, "async-signal-safe: %d/%d",
          sf.calls, su.calls);
    CHECK(mpit_event_has_cb(ru, MPI_T_CB_REQUIRE_NONE) && !mpit_event_has_cb(ru, MPI_T_CB_REQUIRE_MPI_RESTRICTED),
          "has_cb");

    /* freeing: the handle is no longer valid, the free callback runs once */
    mpit_event_free(ru, &freed_calls, on_free);
    CHECK(freed_calls == 1 && !mpit_event_valid(ru), "free");
    mpit_event_free(rf, NULL, NULL);

    /* two threads raising at once, one thread-safe and one deferred registration */
    MPI_T_event_registration rt, rd;
    long deferred = 0;
    mpit_event_alloc(RAIL_EV_SUSPECT, &rt);
    mpit_event_set_cb(rt, MPI_T_CB_REQUIRE_THREAD_SAFE, count_event, &thread_calls);
    mpit_event_alloc(RAIL_EV_SUSPECT, &rd);
    mpit_event_set_cb(rd, MPI_T_CB_REQUIRE_MPI_RESTRICTED, count_deferred, &deferred);
    pthread_t t[3];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, raiser, (void *)i);
    pthread_create(&t[2], NULL, deliverer, NULL); /* a second application thread */
    for (int i = 0; i < 2000; i++)
        mpit_event_deliver(); /* the application's thread, meanwhile */
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    mpit_event_deliver();
    CHECK(thread_calls == 4000, "thread-safe callback calls %ld, want 4000", thread_calls);
    CHECK(deferred > 0 && deferred <= 4000, "deferred callback calls %ld", deferred);
    CHECK(overlaps == 0, "the deferred callback ran on two threads at once %d times", overlaps);
    mpit_event_free(rt, NULL, NULL);
    mpit_event_free(rd, NULL, NULL);
    mpit_finalize();
    printf("OK: events delivered at once, deferred, dropped (5 of %d), from two threads\n",
           MPIT_EVENT_QUEUE + 5);
    return 0;
}
