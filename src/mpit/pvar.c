/* Performance variables: what the rail layer counts, per rail (summed over
 * peers), per peer and rail, and per peer. Every variable is continuous (it
 * counts from MPI_Init on; a handle reads what happened since it was
 * allocated or reset) and is read under the global lock, so reads are atomic.
 * Only network rails count: shared memory and a rank's channel to itself
 * are no rail. */
#include "mpit/mpit.h"
#include "io/io.h"
#include "proto/proto.h"
#include "rail/channel.h"
#include "rail/host.h"
#include "util/clock.h"
#include "util/lock.h"

#include <stdlib.h>
#include <string.h>

/* ---- the path state enumeration ---- */
static const char *const mpit_state_names[] = {"none", "connecting", "up", "suspect", "down", "recovering", "armed"};
static const int mpit_state_values[] = {-1,
                                        RAIL_PATH_CONNECTING,
                                        RAIL_PATH_UP,
                                        RAIL_PATH_SUSPECT,
                                        RAIL_PATH_DOWN,
                                        RAIL_PATH_RECOVERING,
                                        RAIL_PATH_ARMED};
static struct MPIR_T_enum_s mpit_path_state_enum = {"rail_path_state", 7, mpit_state_names, mpit_state_values};

/* a (remote host, rail) as this host's ranks judge it together (rail/host.c);
 * "none": this host itself, or no rank here talks to that host on the rail */
static const char *const mpit_host_state_names[] = {"none", "up", "suspect", "down"};
static const int mpit_host_state_values[] = {-1, RAIL_HOST_UP, RAIL_HOST_SUSPECT, RAIL_HOST_DOWN};
static struct MPIR_T_enum_s mpit_host_state_enum = {"rail_host_state", 4, mpit_host_state_names,
                                                    mpit_host_state_values};

/* ---- the variables ---- */
typedef enum { MPIT_PER_RAIL, MPIT_PER_PEER_RAIL, MPIT_PER_PEER, MPIT_PER_HOST_RAIL, MPIT_PER_PROCESS } mpit_shape_t;
typedef enum {
    MPIT_F_TX_BYTES, MPIT_F_TX_FRAMES, MPIT_F_RX_BYTES, MPIT_F_RX_FRAMES, MPIT_F_RESENT,
    MPIT_F_FAILURES, MPIT_F_RECOVERIES, MPIT_F_SUSPECTS, MPIT_F_DOWN, MPIT_F_STATE,
    MPIT_F_PARTITIONED, MPIT_F_HOST_STATE, MPIT_F_HOST_PROBES, MPIT_F_HOST_FAILURES,
    MPIT_F_SHORT_WINDOWS, MPIT_F_YIELDS, MPIT_F_IO_STEPS,
} mpit_field_t;

typedef struct mpit_pvar {
    const char *name, *desc;
    int var_class;
    mpit_shape_t shape;
    mpit_field_t field;
} mpit_pvar_t;

#define C MPI_T_PVAR_CLASS_COUNTER
#define T MPI_T_PVAR_CLASS_TIMER
static const mpit_pvar_t mpit_pvars[] = {
    {"rail_tx_bytes", "Payload bytes sent on each network rail, all peers", C, MPIT_PER_RAIL, MPIT_F_TX_BYTES},
    {"rail_tx_frames", "Frames sent on each network rail, all peers", C, MPIT_PER_RAIL, MPIT_F_TX_FRAMES},
    {"rail_rx_bytes", "Payload bytes received on each network rail, all peers", C, MPIT_PER_RAIL, MPIT_F_RX_BYTES},
    {"rail_rx_frames", "Frames received on each network rail, all peers", C, MPIT_PER_RAIL, MPIT_F_RX_FRAMES},
    {"rail_resent_frames", "Frames sent again on each rail after another rail failed", C, MPIT_PER_RAIL,
     MPIT_F_RESENT},
    {"rail_failures", "Times a path on each rail failed (a failover of its traffic)", C, MPIT_PER_RAIL,
     MPIT_F_FAILURES},
    {"rail_recoveries", "Times a failed path on each rail came back", C, MPIT_PER_RAIL, MPIT_F_RECOVERIES},
    {"rail_heartbeat_misses", "Times a path on each rail turned suspect (nothing heard for half the path timeout)",
     C, MPIT_PER_RAIL, MPIT_F_SUSPECTS},
    {"rail_down_time", "Seconds paths on each rail spent failed, summed over peers", T, MPIT_PER_RAIL,
     MPIT_F_DOWN},
    {"rail_peer_tx_bytes", "Payload bytes sent to each peer on each rail (element peer * rails + rail)", C,
     MPIT_PER_PEER_RAIL, MPIT_F_TX_BYTES},
    {"rail_peer_rx_bytes", "Payload bytes received from each peer on each rail (element peer * rails + rail)", C,
     MPIT_PER_PEER_RAIL, MPIT_F_RX_BYTES},
    {"rail_peer_failures", "Path failures to each peer on each rail (element peer * rails + rail)", C,
     MPIT_PER_PEER_RAIL, MPIT_F_FAILURES},
    {"rail_peer_path_state", "State of the path to each peer on each rail (element peer * rails + rail; "
     "none: no such path)", MPI_T_PVAR_CLASS_STATE, MPIT_PER_PEER_RAIL, MPIT_F_STATE},
    {"rail_peer_partitioned_time", "Seconds each peer was unreachable on every rail (partitioned)", T,
     MPIT_PER_PEER, MPIT_F_PARTITIONED},
    {"rail_host_path_state", "State of each remote host on each rail as this host's ranks judge it together "
     "(element host * rails + rail, hosts numbered as the job's host map; none: this host, or unused)",
     MPI_T_PVAR_CLASS_STATE, MPIT_PER_HOST_RAIL, MPIT_F_HOST_STATE},
    {"rail_host_probes", "Heartbeats and probes this host's ranks sent to each host on each rail (element "
     "host * rails + rail; one monitor per host sends them, so the count is the host's)", C,
     MPIT_PER_HOST_RAIL, MPIT_F_HOST_PROBES},
    {"rail_host_failures", "Times each host's rail was judged failed for every rank of this host (element "
     "host * rails + rail)", C, MPIT_PER_HOST_RAIL, MPIT_F_HOST_FAILURES},
    {"proto_rndv_short_windows", "Large messages sent to each peer over network rails with less than their "
     "whole rendezvous window because the peer's credit was short (the rest waited for the receive)", C,
     MPIT_PER_PEER, MPIT_F_SHORT_WINDOWS},
    {"proto_wait_yields", "Times this process gave its core away (sched_yield) while it waited in MPI with "
     "nothing to do (RAILMPI_SPIN_COUNT, RAILMPI_SPIN_OVERSUBSCRIBED, RAILMPI_SPIN_CORE_MATES)", C,
     MPIT_PER_PROCESS, MPIT_F_YIELDS},
    {"io_view_steps", "Steps the MPI-IO file view walk took in this process: one per run of the filetype "
     "an access touches, one for a whole access through a contiguous filetype (the default view)", C,
     MPIT_PER_PROCESS, MPIT_F_IO_STEPS},
};
#undef C
#undef T
#define MPIT_NPVARS ((int)(sizeof mpit_pvars / sizeof mpit_pvars[0]))

int mpit_pvar_count(void)
{
    return MPIT_NPVARS;
}

static int mpit_is_state(const mpit_pvar_t *v)
{
    return v->field == MPIT_F_STATE || v->field == MPIT_F_HOST_STATE;
}

static MPI_Datatype mpit_pvar_type(const mpit_pvar_t *v)
{
    if (mpit_is_state(v))
        return MPI_INT;
    return v->var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE : MPI_UNSIGNED_LONG_LONG;
}

static int mpit_pvar_category(const mpit_pvar_t *v)
{
    if (v->field == MPIT_F_IO_STEPS)
        return MPIT_CAT_IO;
    return v->field == MPIT_F_SHORT_WINDOWS || v->field == MPIT_F_YIELDS ? MPIT_CAT_PROTO : MPIT_CAT_RAIL;
}

int mpit_pvar_info(int index, mpit_pvar_info_t *out)
{
    if (index < 0 || index >= MPIT_NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    const mpit_pvar_t *v = &mpit_pvars[index];
    int state = v->var_class == MPI_T_PVAR_CLASS_STATE;
    *out = (mpit_pvar_info_t){.name = v->name,
                              .desc = v->desc,
                              .verbosity = v->shape == MPIT_PER_RAIL ? MPI_T_VERBOSITY_USER_BASIC
                                                                     : MPI_T_VERBOSITY_USER_DETAIL,
                              .var_class = v->var_class,
                              .bind = MPI_T_BIND_NO_OBJECT,
                              .readonly = state,
                              .continuous = 1,
                              .atomic = 1,
                              .datatype = mpit_pvar_type(v),
                              .enumtype = !state                        ? MPI_T_ENUM_NULL
                                          : v->field == MPIT_F_HOST_STATE ? &mpit_host_state_enum
                                                                          : &mpit_path_state_enum,
                              .category = mpit_pvar_category(v)};
    return MPI_SUCCESS;
}

int mpit_pvar_find(const char *name, int var_class)
{
    for (int i = 0; i < MPIT_NPVARS; i++)
        if (!strcmp(mpit_pvars[i].name, name) && mpit_pvars[i].var_class == var_class)
            return i;
    return -1;
}

int mpit_enum_valid(MPI_T_enum e)
{
    return e == &mpit_path_state_enum || e == &mpit_host_state_enum || e == mpit_event_enum();
}

/* ---- reading the engine ---- */
static int mpit_rails(void)
{
    int n = proto_net_rails();
    return n > 0 ? n : 1;
}

static int mpit_world(void)
{
    return proto_peer_channel(0) ? proto_proc.world_size : 1;
}

static int mpit_hosts(void)
{
    return proto_peer_channel(0) && proto_proc.nnodes > 0 ? proto_proc.nnodes : 1;
}

static int mpit_elements(const mpit_pvar_t *v)
{
    switch (v->shape) {
    case MPIT_PER_RAIL: return mpit_rails();
    case MPIT_PER_PEER_RAIL: return mpit_world() * mpit_rails();
    case MPIT_PER_PEER: return mpit_world();
    case MPIT_PER_HOST_RAIL: return mpit_hosts() * mpit_rails();
    case MPIT_PER_PROCESS: return 1;
    }
    return 1;
}

static int mpit_is_rail(const rail_path_t *p)
{
    return !(p->caps & NET_CAP_RELIABLE) && p->rail >= 0 && p->rail < proto_net_rails();
}

/* One path's field, as a number: counters exactly, timers in seconds. */
static double mpit_path_field(const rail_path_t *p, mpit_field_t f, uint64_t now, uint64_t *u)
{
    switch (f) {
    case MPIT_F_TX_BYTES: *u = p->bytes; break;
    case MPIT_F_TX_FRAMES: *u = p->frames; break;
    case MPIT_F_RX_BYTES: *u = p->rx_bytes; break;
    case MPIT_F_RX_FRAMES: *u = p->rx_frames; break;
    case MPIT_F_RESENT: *u = p->resent; break;
    case MPIT_F_FAILURES: *u = p->failures; break;
    case MPIT_F_RECOVERIES: *u = p->recoveries; break;
    case MPIT_F_SUSPECTS: *u = p->suspects; break;
    case MPIT_F_STATE: *u = (uint64_t)p->state; break;
    case MPIT_F_DOWN: *u = 0; return (double)rail_path_down_ns(p, now) / 1e9;
    default: *u = 0; break;
    }
    return 0;
}

/* The host table's entries: shared by the host's ranks, atomics throughout. */
static void mpit_host_sample(const mpit_pvar_t *v, int n, uint64_t *u)
{
    int rails = mpit_rails(), hosts = mpit_hosts();
    for (int h = 0; h < hosts; h++) {
        for (int k = 0; k < rails && h * rails + k < n; k++) {
            const rail_host_entry_t *e = rail_host_at(h, k);
            uint64_t *x = &u[h * rails + k];
            if (!e)
                continue;
            if (v->field == MPIT_F_HOST_PROBES)
                *x = atomic_load_explicit(&e->beats, memory_order_relaxed);
            else if (v->field == MPIT_F_HOST_FAILURES)
                *x = atomic_load_explicit(&e->failures, memory_order_relaxed);
            else if (h != proto_proc.node && atomic_load_explicit(&e->used, memory_order_relaxed))
                *x = atomic_load(&e->state);
        }
    }
}

/* Current values of variable v, `n` elements: into u (integers) or d (timers). */
static void mpit_pvar_sample(const mpit_pvar_t *v, int n, uint64_t *u, double *d)
{
    memset(u, 0, (size_t)n * sizeof *u);
    memset(d, 0, (size_t)n * sizeof *d);
    if (mpit_is_state(v))
        for (int i = 0; i < n; i++)
            u[i] = (uint64_t)-1;
    if (!proto_peer_channel(0))
        return;
    if (v->shape == MPIT_PER_HOST_RAIL) {
        mpit_host_sample(v, n, u);
        return;
    }
    if (v->shape == MPIT_PER_PROCESS) {
        u[0] = v->field == MPIT_F_IO_STEPS ? io_view_steps() : rm_lock_yields;
        return;
    }
    int rails = mpit_rails(), world = proto_proc.world_size;
    uint64_t now = rm_now();
    for (int r = 0; r < world; r++) {
        rail_channel_t *ch = proto_peer_channel(r);
        if (v->shape == MPIT_PER_PEER) {
            if (r < n && v->field == MPIT_F_SHORT_WINDOWS)
                u[r] = proto_peer_short_windows(r);
            else if (r < n)
                d[r] = (double)rail_channel_partitioned_ns(ch, now) / 1e9;
            continue;
        }
        for (int k = 0; k < ch->npaths; k++) {
            const rail_path_t *p = &ch->paths[k];
            if (!mpit_is_rail(p))
                continue;
            int e = v->shape == MPIT_PER_RAIL ? p->rail : r * rails + p->rail;
            if (e >= n)
                continue;
            uint64_t x = 0;
            double s = mpit_path_field(p, v->field, now, &x);
            if (v->field == MPIT_F_STATE)
                u[e] = x;
            else
                u[e] += x, d[e] += s;
        }
    }
}

/* ---- sessions and handles ---- */
struct MPIR_T_pvar_handle_s {
    struct MPIR_T_pvar_handle_s *next;
    struct MPIR_T_pvar_session_s *session;
    int index, count;
    uint64_t *ubase; /* values at allocation or the last reset */
    double *dbase;
};

struct MPIR_T_pvar_session_s {
    struct MPIR_T_pvar_session_s *next;
    struct MPIR_T_pvar_handle_s *handles;
};

static struct MPIR_T_pvar_session_s *mpit_sessions;

int mpit_session_create(MPI_T_pvar_session *out)
{
    struct MPIR_T_pvar_session_s *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = mpit_sessions;
    mpit_sessions = s;
    *out = s;
    return MPI_SUCCESS;
}

int mpit_session_valid(MPI_T_pvar_session s)
{
    for (struct MPIR_T_pvar_session_s *x = mpit_sessions; x; x = x->next)
        if (x == s)
            return 1;
    return 0;
}

static void mpit_handle_destroy(struct MPIR_T_pvar_handle_s *h)
{
    free(h->ubase);
    free(h->dbase);
    free(h);
}

int mpit_session_free(MPI_T_pvar_session s)
{
    struct MPIR_T_pvar_session_s **pp = &mpit_sessions;
    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (!*pp)
        return MPI_T_ERR_INVALID_SESSION;
    *pp = s->next;
    while (s->handles) {
        struct MPIR_T_pvar_handle_s *h = s->handles;
        s->handles = h->next;
        mpit_handle_destroy(h);
    }
    free(s);
    return MPI_SUCCESS;
}

int mpit_handle_alloc(MPI_T_pvar_session s, int index, MPI_T_pvar_handle *out, int *count)
{
    if (index < 0 || index >= MPIT_NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    const mpit_pvar_t *v = &mpit_pvars[index];
    struct MPIR_T_pvar_handle_s *h = calloc(1, sizeof *h);
    int n = mpit_elements(v);
    if (h) {
        h->ubase = calloc((size_t)n, sizeof *h->ubase);
        h->dbase = calloc((size_t)n, sizeof *h->dbase);
    }
    if (!h || !h->ubase || !h->dbase) {
        if (h)
            mpit_handle_destroy(h);
        return MPI_T_ERR_MEMORY;
    }
    h->session = s;
    h->index = index;
    h->count = n;
    if (v->var_class != MPI_T_PVAR_CLASS_STATE) {
        rm_lock();
        mpit_pvar_sample(v, n, h->ubase, h->dbase);
        rm_unlock();
    }
    h->next = s->handles;
    s->handles = h;
    *out = h;
    *count = n;
    return MPI_SUCCESS;
}

static struct MPIR_T_pvar_handle_s **mpit_handle_slot(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    struct MPIR_T_pvar_handle_s **pp = &s->handles;
    while (*pp && *pp != h)
        pp = &(*pp)->next;
    return *pp ? pp : NULL;
}

int mpit_handle_free(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    struct MPIR_T_pvar_handle_s **pp = mpit_handle_slot(s, h);
    if (!pp)
        return MPI_T_ERR_INVALID_HANDLE;
    *pp = h->next;
    mpit_handle_destroy(h);
    return MPI_SUCCESS;
}

/* Every variable is continuous: starting or stopping one is refused; with
 * MPI_T_PVAR_ALL_HANDLES continuous variables are passed over (MPI-3.1
 * §14.3.7), so that succeeds. */
int mpit_handle_start(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    if (h == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    return mpit_handle_slot(s, h) ? MPI_T_ERR_PVAR_NO_STARTSTOP : MPI_T_ERR_INVALID_HANDLE;
}

int mpit_handle_stop(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    return mpit_handle_start(s, h);
}

int mpit_handle_read(MPI_T_pvar_session s, MPI_T_pvar_handle h, void *buf)
{
    if (h == MPI_T_PVAR_ALL_HANDLES || !mpit_handle_slot(s, h))
        return MPI_T_ERR_INVALID_HANDLE;
    const mpit_pvar_t *v = &mpit_pvars[h->index];
    int n = h->count;
    uint64_t *u = malloc((size_t)n * sizeof *u);
    double *d = malloc((size_t)n * sizeof *d);
    if (!u || !d) {
        free(u);
        free(d);
        return MPI_T_ERR_MEMORY;
    }
    rm_lock();
    mpit_pvar_sample(v, n, u, d);
    rm_unlock();
    for (int i = 0; i < n; i++) {
        if (mpit_is_state(v))
            ((int *)buf)[i] = (int)u[i];
        else if (v->var_class == MPI_T_PVAR_CLASS_TIMER)
            ((double *)buf)[i] = d[i] - h->dbase[i];
        else
            ((unsigned long long *)buf)[i] = u[i] - h->ubase[i];
    }
    free(u);
    free(d);
    return MPI_SUCCESS;
}

/* A counter or timer is written by moving its base: it reads `buf` now and
 * counts on from there. */
static int mpit_handle_set(struct MPIR_T_pvar_handle_s *h, const void *buf)
{
    const mpit_pvar_t *v = &mpit_pvars[h->index];
    if (v->var_class == MPI_T_PVAR_CLASS_STATE)
        return MPI_T_ERR_PVAR_NO_WRITE;
    int n = h->count;
    uint64_t *u = malloc((size_t)n * sizeof *u);
    double *d = malloc((size_t)n * sizeof *d);
    if (!u || !d) {
        free(u);
        free(d);
        return MPI_T_ERR_MEMORY;
    }
    rm_lock();
    mpit_pvar_sample(v, n, u, d);
    rm_unlock();
    for (int i = 0; i < n; i++) {
        if (v->var_class == MPI_T_PVAR_CLASS_TIMER)
            h->dbase[i] = d[i] - (buf ? ((const double *)buf)[i] : 0);
        else
            h->ubase[i] = u[i] - (buf ? ((const unsigned long long *)buf)[i] : 0);
    }
    free(u);
    free(d);
    return MPI_SUCCESS;
}

int mpit_handle_write(MPI_T_pvar_session s, MPI_T_pvar_handle h, const void *buf)
{
    if (h == MPI_T_PVAR_ALL_HANDLES || !mpit_handle_slot(s, h))
        return MPI_T_ERR_INVALID_HANDLE;
    return mpit_handle_set(h, buf);
}

int mpit_handle_reset(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    if (h == MPI_T_PVAR_ALL_HANDLES) {
        /* read-only variables are passed over */
        for (struct MPIR_T_pvar_handle_s *x = s->handles; x; x = x->next)
            if (mpit_pvars[x->index].var_class != MPI_T_PVAR_CLASS_STATE && mpit_handle_set(x, NULL) != MPI_SUCCESS)
                return MPI_T_ERR_MEMORY;
        return MPI_SUCCESS;
    }
    if (!mpit_handle_slot(s, h))
        return MPI_T_ERR_INVALID_HANDLE;
    return mpit_handle_set(h, NULL);
}
