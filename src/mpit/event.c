/* MPI_T events (MPI-4.1 §15.3.8): the rail layer's path and peer events
 * (rail/channel.h, rail_notify) as event types, stamped by one source, the
 * monotonic clock.
 *
 * Delivery. An event is raised inside the engine, under the global lock, on
 * whichever thread makes progress (the application's, or the progress
 * thread): a context that needs callbacks safe to run on any thread that
 * call no MPI function but the event-instance ones. A registration with a
 * callback of safety MPI_T_CB_REQUIRE_THREAD_SAFE or above gets the event
 * there and then (the least demanding such callback is called). One with
 * only MPI_T_CB_REQUIRE_NONE / _MPI_RESTRICTED callbacks gets it later: the
 * event waits in the registration's queue (MPIT_EVENT_QUEUE instances; more
 * are counted as dropped) until an application thread leaves an MPI
 * function (mpit_event_deliver, from MPI_END; one thread at a time), where
 * the dropped handler is called first with the count and then the callback
 * for each instance.
 *
 * Locking: ev_lock guards the registrations; it is never held while a user
 * function runs. A registration being called is pinned (busy) so that
 * MPI_T_event_handle_free only unlinks it; the last call out frees it and
 * runs the free callback. Order: rm_lock, then mpit_mutex (bindings), then
 * ev_lock; the event-instance functions take none of them. */
#include "mpit/mpit.h"
#include "rail/channel.h"
#include "util/clock.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct MPIR_T_event_instance_s {
    int event, source;
    MPI_Count ts;
    mpit_event_data_t data;
};

#define MPIT_CB_LEVELS 4
struct MPIR_T_event_registration_s {
    struct MPIR_T_event_registration_s *next;
    int event;
    int busy;  /* callbacks of it running now */
    int freed; /* unlinked by MPI_T_event_handle_free while busy */
    MPI_T_event_cb_function *cb[MPIT_CB_LEVELS];
    void *ud[MPIT_CB_LEVELS];
    MPI_T_event_dropped_cb_function *dropped;
    MPI_T_event_free_cb_function *free_cb;
    void *free_ud;
    MPI_Count ndropped;
    int qhead, qn;
    struct MPIR_T_event_instance_s q[MPIT_EVENT_QUEUE];
};

static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MPIR_T_event_registration_s *ev_regs;
__attribute__((visibility("hidden"))) int mpit_ev_waiting; /* some registration has queued or dropped events (atomic) */

/* ---- the event types and the source ---- */
static const struct {
    const char *name, *desc;
} ev_types[RAIL_EV_KINDS] = {
    [RAIL_EV_SUSPECT] = {"rail_path_suspect", "A path to a peer turned suspect: nothing received on it for half "
                                              "the path timeout (peer, rail, reason)"},
    [RAIL_EV_FAILED] = {"rail_path_failed", "A path to a peer failed; its unacknowledged frames go again on the "
                                            "other rails (peer, rail, reason: silence or error)"},
    [RAIL_EV_UP] = {"rail_path_up", "A path carries traffic again: recovered, answered while suspect, or "
                                    "back by request (peer, rail, reason)"},
    [RAIL_EV_MIGRATED] = {"rail_path_migrated", "Traffic moved off a rail by request, or onto a standby or "
                                                "migrated-off rail as the last one usable (peer, rail, reason)"},
    [RAIL_EV_PARTITIONED] = {"rail_peer_partitioned", "No rail reaches a peer: its traffic waits while the "
                                                      "paths recover (peer, rail -1, reason no_rail)"},
    [RAIL_EV_RESUMED] = {"rail_peer_resumed", "A rail reaches a partitioned peer again (peer, rail -1, reason "
                                              "rail_back)"},
};

static const char *const ev_why_names[RAIL_WHY_COUNT] = {
    [RAIL_WHY_SILENCE] = "silence",   [RAIL_WHY_ERROR] = "error",       [RAIL_WHY_REQUEST] = "request",
    [RAIL_WHY_PROBED] = "probed",     [RAIL_WHY_ANSWERED] = "answered", [RAIL_WHY_FAILOVER] = "failover",
    [RAIL_WHY_NO_RAIL] = "no_rail",   [RAIL_WHY_RAIL_BACK] = "rail_back",
};
static const int ev_why_values[RAIL_WHY_COUNT] = {0, 1, 2, 3, 4, 5, 6, 7};
static struct MPIR_T_enum_s ev_why_enum = {"rail_event_reason", RAIL_WHY_COUNT, ev_why_names, ev_why_values};

int mpit_event_count(void)
{
    return RAIL_EV_KINDS;
}

int mpit_event_info(int index, mpit_event_info_t *out)
{
    if (index < 0 || index >= RAIL_EV_KINDS)
        return MPI_T_ERR_INVALID_INDEX;
    out->name = ev_types[index].name;
    out->desc = ev_types[index].desc;
    out->enumtype = &ev_why_enum;
    out->category = MPIT_CAT_RAIL;
    return MPI_SUCCESS;
}

int mpit_event_find(const char *name)
{
    for (int i = 0; i < RAIL_EV_KINDS; i++)
        if (!strcmp(ev_types[i].name, name))
            return i;
    return -1;
}

MPI_T_enum mpit_event_enum(void)
{
    return &ev_why_enum;
}

MPI_Count mpit_source_now(void)
{
    return (MPI_Count)rm_now();
}

/* ---- registrations ---- */
int mpit_event_valid(MPI_T_event_registration r)
{
    int ok = 0;
    pthread_mutex_lock(&ev_lock);
    for (struct MPIR_T_event_registration_s *x = ev_regs; x && !ok; x = x->next)
        ok = x == r;
    pthread_mutex_unlock(&ev_lock);
    return ok;
}

static void ev_raise(int kind, int peer, int rail, int why);

int mpit_event_alloc(int index, MPI_T_event_registration *out)
{
    struct MPIR_T_event_registration_s *r = calloc(1, sizeof *r);
    if (!r)
        return MPI_T_ERR_MEMORY;
    r->event = index;
    pthread_mutex_lock(&ev_lock);
    r->next = ev_regs;
    ev_regs = r;
    pthread_mutex_unlock(&ev_lock);
    rail_set_notify(ev_raise);
    *out = r;
    return MPI_SUCCESS;
}

int mpit_event_set_cb(MPI_T_event_registration r, int level, MPI_T_event_cb_function *fn, void *ud)
{
    pthread_mutex_lock(&ev_lock);
    r->cb[level] = fn;
    r->ud[level] = ud;
    pthread_mutex_unlock(&ev_lock);
    return MPI_SUCCESS;
}

int mpit_event_has_cb(MPI_T_event_registration r, int level)
{
    pthread_mutex_lock(&ev_lock);
    int has = r->cb[level] != NULL;
    pthread_mutex_unlock(&ev_lock);
    return has;
}

void mpit_event_set_dropped(MPI_T_event_registration r, MPI_T_event_dropped_cb_function *fn)
{
    pthread_mutex_lock(&ev_lock);
    r->dropped = fn;
    pthread_mutex_unlock(&ev_lock);
}

/* Under ev_lock: one call out of r is over; true if r is to be freed now. */
static int ev_unpin(struct MPIR_T_event_registration_s *r)
{
    return --r->busy == 0 && r->freed;
}

static void ev_release(struct MPIR_T_event_registration_s *r, MPI_T_cb_safety level)
{
    if (r->free_cb)
        r->free_cb(r, level, r->free_ud);
    free(r);
}

void mpit_event_free(MPI_T_event_registration r, void *ud, MPI_T_event_free_cb_function *fn)
{
    pthread_mutex_lock(&ev_lock);
    for (struct MPIR_T_event_registration_s **pp = &ev_regs; *pp; pp = &(*pp)->next) {
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    }
    r->freed = 1;
    r->free_cb = fn;
    r->free_ud = ud;
    int now = r->busy == 0;
    pthread_mutex_unlock(&ev_lock);
    if (now)
        ev_release(r, MPI_T_CB_REQUIRE_NONE);
}

/* The least demanding callback of r at level `from` or above. */
static int ev_pick(const struct MPIR_T_event_registration_s *r, int from)
{
    for (int l = from; l < MPIT_CB_LEVELS; l++)
        if (r->cb[l])
            return l;
    return -1;
}

/* ---- raising and delivering ---- */
#define EV_BATCH 16

/* From the rail layer, under the global lock, on any thread. */
static void ev_raise(int kind, int peer, int rail, int why)
{
    struct MPIR_T_event_instance_s inst = {kind, 0, mpit_source_now(), {peer, rail, why}};
    struct {
        struct MPIR_T_event_registration_s *r;
        MPI_T_event_cb_function *fn;
        void *ud;
    } now[EV_BATCH];
    int n = 0;
    pthread_mutex_lock(&ev_lock);
    for (struct MPIR_T_event_registration_s *r = ev_regs; r; r = r->next) {
        if (r->event != kind)
            continue;
        int l = ev_pick(r, MPI_T_CB_REQUIRE_THREAD_SAFE);
        if (l >= 0 && n < EV_BATCH) {
            r->busy++;
            now[n].r = r;
            now[n].fn = r->cb[l];
            now[n].ud = r->ud[l];
            n++;
        } else if (l >= 0 || ev_pick(r, MPI_T_CB_REQUIRE_NONE) >= 0) {
            if (r->qn < MPIT_EVENT_QUEUE)
                r->q[(r->qhead + r->qn++) % MPIT_EVENT_QUEUE] = inst;
            else
                r->ndropped++;
            __atomic_store_n(&mpit_ev_waiting, 1, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&ev_lock);
    for (int i = 0; i < n; i++)
        now[i].fn(&inst, now[i].r, MPI_T_CB_REQUIRE_THREAD_SAFE, now[i].ud);
    for (int i = 0; i < n; i++) {
        pthread_mutex_lock(&ev_lock);
        int gone = ev_unpin(now[i].r);
        pthread_mutex_unlock(&ev_lock);
        if (gone)
            ev_release(now[i].r, MPI_T_CB_REQUIRE_THREAD_SAFE);
    }
}

static __thread int ev_delivering;
/* one application thread at a time runs the deferred callbacks: a callback
 * that asked for no thread safety is never called twice at once */
static pthread_mutex_t ev_deliver_lock = PTHREAD_MUTEX_INITIALIZER;

void mpit_event_deliver(void)
{
    if (ev_delivering)
        return; /* a callback called MPI: its events come after it returns */
    if (pthread_mutex_trylock(&ev_deliver_lock) != 0)
        return; /* another thread delivers them */
    ev_delivering = 1;
    for (;;) {
        struct MPIR_T_event_registration_s *r;
        struct MPIR_T_event_instance_s inst;
        MPI_T_event_cb_function *fn = NULL;
        MPI_T_event_dropped_cb_function *dfn = NULL;
        MPI_Count dropped = 0;
        void *ud = NULL;
        pthread_mutex_lock(&ev_lock);
        for (r = ev_regs; r; r = r->next) {
            if (r->ndropped) {
                dropped = r->ndropped;
                r->ndropped = 0;
                if ((dfn = r->dropped) != NULL) {
                    int l = ev_pick(r, MPI_T_CB_REQUIRE_NONE);
                    ud = l >= 0 ? r->ud[l] : NULL; /* the user data of the callback that missed them */
                    break;
                }
            }
            if (r->qn) {
                inst = r->q[r->qhead];
                r->qhead = (r->qhead + 1) % MPIT_EVENT_QUEUE;
                r->qn--;
                int l = ev_pick(r, MPI_T_CB_REQUIRE_NONE);
                if (l >= 0) {
                    fn = r->cb[l];
                    ud = r->ud[l];
                    break;
                }
                r->qn = 0; /* its callbacks were removed */
            }
        }
        if (!r) {
            __atomic_store_n(&mpit_ev_waiting, 0, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&ev_lock);
            break;
        }
        r->busy++;
        pthread_mutex_unlock(&ev_lock);
        if (dfn)
            dfn(dropped, r, 0, MPI_T_CB_REQUIRE_NONE, ud);
        else
            fn(&inst, r, MPI_T_CB_REQUIRE_NONE, ud);
        pthread_mutex_lock(&ev_lock);
        int gone = ev_unpin(r);
        pthread_mutex_unlock(&ev_lock);
        if (gone)
            ev_release(r, MPI_T_CB_REQUIRE_NONE);
    }
    ev_delivering = 0;
    pthread_mutex_unlock(&ev_deliver_lock);
}

/* ---- event instances (inside a callback; no lock) ---- */
static const MPI_Aint ev_disp[MPIT_EVENT_ELEMS] = {offsetof(mpit_event_data_t, peer),
                                                   offsetof(mpit_event_data_t, rail),
                                                   offsetof(mpit_event_data_t, reason)};

void mpit_event_layout(MPI_Datatype *types, MPI_Aint *disps, int n)
{
    for (int i = 0; i < n && i < MPIT_EVENT_ELEMS; i++) {
        if (types)
            types[i] = MPI_INT;
        if (disps)
            disps[i] = ev_disp[i];
    }
}

int mpit_instance_read(MPI_T_event_instance e, int elem, void *buf)
{
    if (elem < 0 || elem >= MPIT_EVENT_ELEMS)
        return MPI_T_ERR_INVALID_INDEX;
    memcpy(buf, (const char *)&e->data + ev_disp[elem], sizeof(int));
    return MPI_SUCCESS;
}

void mpit_instance_copy(MPI_T_event_instance e, void *buf)
{
    memcpy(buf, &e->data, sizeof e->data);
}

MPI_Count mpit_instance_time(MPI_T_event_instance e)
{
    return e->ts;
}

int mpit_instance_source(MPI_T_event_instance e)
{
    return e->source;
}
