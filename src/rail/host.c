/* The per-host health table (see host.h). Every local rank maps the same
 * segment, named after the job and this host, creating it if it is the
 * first: all-zero is a valid table (every rail UP, nothing heard, no
 * monitor), so no rank has to wait for another to initialise it. The last
 * rank to attach unlinks the name; the memory lives until the last unmap.
 *
 * The monitor's lease is one 64-bit word: the holder's pid and the time of
 * its last renewal (ms, 32 bits). The holder renews it every tick; another
 * rank takes it over with a CAS when the renewal is older than the path
 * timeout, when the holder's process is gone, or when the holder gave it up
 * at MPI_Finalize. */
#include "rail/host.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RAIL_HOST_RAILS 8 /* RAIL_MAX_PATHS: entries per remote host */
#define RAIL_HOST_DEFAULT_HOSTS 1024

typedef struct rail_host_hdr {
    _Atomic uint64_t lease;        /* pid << 32 | renewal time in ms */
    _Atomic int32_t monitor_rank;  /* the holder's world rank, for event lines */
    _Atomic int32_t attached;      /* ranks that mapped the table */
    char pad[48];
} rail_host_hdr_t;

static rail_host_hdr_t *rail_host_hdr;
static rail_host_entry_t *rail_host_tab;
static size_t rail_host_len;  /* mapped bytes; 0: private (calloc) */
static int rail_host_n;       /* remote hosts in the table */
/* world rank -> host: the table's own copy of the job's map (the caller's
 * array grows, by realloc, when processes of other jobs join, while the
 * progress thread reads this one) */
static const int *rail_host_node_of;
static int *rail_host_node_copy;
static int rail_host_nranks;
static int rail_host_me = -1; /* my world rank */
static int rail_host_mine;    /* this rank held the lease at its last tick */
static pid_t rail_host_pid;
static int rail_host_done;    /* torn down: no private table springs up again */
static int rail_host_local;   /* my index among the host's ranks */
static uint64_t rail_host_t0; /* ns: when the table was set up */
/* Rank-private: the path each (host, rail) gets its heartbeats on, chosen
 * afresh every tick: the lowest peer rank there with a usable path. Both
 * hosts' monitors tend to be their host's lowest rank, so the heartbeats of
 * both directions share one connection and carry each other's TCP acks. */
typedef struct rail_host_via {
    uint32_t tick;
    int32_t peer;
} rail_host_via_t;
static rail_host_via_t *rail_host_via;

static void rail_host_private(int nhosts)
{
    size_t len = sizeof(rail_host_hdr_t) + sizeof(rail_host_entry_t) * (size_t)nhosts * RAIL_HOST_RAILS;
    void *m = calloc(1, len);
    if (!m)
        return;
    rail_host_hdr = m;
    rail_host_tab = (rail_host_entry_t *)(rail_host_hdr + 1);
    rail_host_n = nhosts;
    rail_host_len = 0;
}

static int rail_host_via_alloc(int nhosts)
{
    free(rail_host_via);
    rail_host_via = calloc((size_t)nhosts * RAIL_HOST_RAILS, sizeof *rail_host_via);
    return rail_host_via ? 0 : -1;
}

static void rail_host_name(char *buf, size_t len, const rail_host_conf_t *c)
{
    char stamp[17] = "";
    size_t j = 0;
    for (const char *s = c->stamp ? c->stamp : ""; *s && j + 1 < sizeof stamp; s++)
        if (isalnum((unsigned char)*s))
            stamp[j++] = *s;
    stamp[j] = 0;
    snprintf(buf, len, "/railmpi-%s-host%d-health-%s", c->job_id, c->my_node, stamp);
}

rm_status_t rail_host_setup(const rail_host_conf_t *c)
{
    rail_host_teardown();
    rail_host_done = 0;
    rail_host_nranks = c->nranks;
    rail_host_node_of = c->node_of; /* without a size (nranks 0): the caller's, as it is */
    if (c->node_of && c->nranks > 0) {
        rail_host_node_copy = malloc(sizeof *rail_host_node_copy * (size_t)c->nranks);
        if (!rail_host_node_copy)
            return RM_ERR_NOMEM;
        memcpy(rail_host_node_copy, c->node_of, sizeof *rail_host_node_copy * (size_t)c->nranks);
        rail_host_node_of = rail_host_node_copy;
    }
    rail_host_me = c->my_rank;
    rail_host_pid = getpid();
    rail_host_t0 = rm_now();
    rail_host_local = 0;
    for (int r = 0; r < c->my_rank; r++)
        rail_host_local += c->node_of[r] == c->my_node;
    if (rail_host_via_alloc(c->nnodes) < 0)
        return RM_ERR_NOMEM;
    if (c->nlocal <= 1) {
        rail_host_private(c->nnodes);
        return rail_host_tab ? RM_OK : RM_ERR_NOMEM;
    }
    char name[200];
    rail_host_name(name, sizeof name, c);
    size_t len = sizeof(rail_host_hdr_t) + sizeof(rail_host_entry_t) * (size_t)c->nnodes * RAIL_HOST_RAILS;
    int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
    if (fd < 0) {
        rm_log_error("rail: cannot open the host's health table %s: %s", name, strerror(errno));
        return RM_ERR_IO;
    }
    /* every rank sets the same length: growing an empty object zero-fills,
     * and setting the length it already has changes nothing */
    if (ftruncate(fd, (off_t)len) < 0) {
        rm_log_error("rail: ftruncate(%s, %zu): %s", name, len, strerror(errno));
        close(fd);
        return RM_ERR_IO;
    }
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        rm_log_error("rail: mmap(%s): %s", name, strerror(errno));
        return RM_ERR_IO;
    }
    rail_host_hdr = m;
    rail_host_tab = (rail_host_entry_t *)(rail_host_hdr + 1);
    rail_host_n = c->nnodes;
    rail_host_len = len;
    if (atomic_fetch_add(&rail_host_hdr->attached, 1) + 1 == c->nlocal)
        shm_unlink(name); /* everyone has it mapped */
    return RM_OK;
}

void rail_host_teardown(void)
{
    free(rail_host_node_copy);
    rail_host_node_copy = NULL;
    rail_host_node_of = NULL;
    if (!rail_host_hdr)
        return;
    uint64_t cur = atomic_load(&rail_host_hdr->lease);
    if (cur >> 32 == (uint64_t)rail_host_pid && rail_host_pid)
        atomic_compare_exchange_strong(&rail_host_hdr->lease, &cur, 1); /* given up: the next tick elsewhere takes it */
    if (rail_host_len)
        munmap(rail_host_hdr, rail_host_len);
    else
        free(rail_host_hdr);
    rail_host_hdr = NULL;
    rail_host_tab = NULL;
    free(rail_host_via);
    rail_host_via = NULL;
    rail_host_n = 0;
    rail_host_len = 0;
    rail_host_mine = 0;
    rail_host_done = 1;
}

void rail_host_reset(void)
{
    rail_host_done = 0;
    if (rail_host_hdr && !rail_host_len)
        memset(rail_host_hdr, 0,
               sizeof(rail_host_hdr_t) + sizeof(rail_host_entry_t) * (size_t)rail_host_n * RAIL_HOST_RAILS);
}

int rail_host_of(int peer)
{
    /* a process of another job (connect/accept, spawn) is watched on its own */
    if (rail_host_node_of)
        return peer >= 0 && (peer < rail_host_nranks || rail_host_nranks <= 0) ? rail_host_node_of[peer] : -1;
    return peer;
}

rail_host_entry_t *rail_host_entry(int peer, int rail)
{
    if (!rail_host_tab) {
        if (rail_host_node_of || rail_host_done)
            return NULL;
        if (!rail_host_pid)
            rail_host_pid = getpid();
        rail_host_private(RAIL_HOST_DEFAULT_HOSTS);
        if (!rail_host_tab || rail_host_via_alloc(RAIL_HOST_DEFAULT_HOSTS) < 0)
            return NULL;
    }
    int h = rail_host_of(peer);
    if (h < 0 || h >= rail_host_n || rail < 0 || rail >= RAIL_HOST_RAILS)
        return NULL;
    return &rail_host_tab[(size_t)h * RAIL_HOST_RAILS + (size_t)rail];
}

static void rail_host_event(int peer, int rail, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void rail_host_event(int peer, int rail, const char *fmt, ...)
{
    if (rm_log_level < RM_LOG_INFO)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rm_log(RM_LOG_INFO, "rail event %.6f host %d rail %d: %s (judged by rank %d for its host)", rm_wall(),
           rail_host_of(peer), rail, msg, rail_host_me);
}

void rail_host_heard(rail_host_entry_t *e, int peer, int rail, uint64_t now)
{
    uint64_t h = atomic_load_explicit(&e->heard, memory_order_relaxed);
    while (h < now && !atomic_compare_exchange_weak(&e->heard, &h, now))
        ;
    uint32_t st = atomic_load(&e->state);
    if (st == RAIL_HOST_UP)
        return;
    if (atomic_compare_exchange_strong(&e->state, &st, RAIL_HOST_UP)) {
        atomic_fetch_add(&e->epoch, 1);
        atomic_store(&e->backoff_ms, 0);
        atomic_store(&e->retry_at, 0);
        if (st == RAIL_HOST_DOWN)
            rail_host_event(peer, rail, "up (heard from again after %.2f s; its paths reconnect)",
                            (double)(now - atomic_load(&e->down_since)) / 1e9);
    }
}

void rail_host_judge_down(rail_host_entry_t *e, int peer, int rail, uint64_t now, uint64_t silent_ns)
{
    uint32_t st = atomic_load(&e->state);
    if (st == RAIL_HOST_DOWN)
        return;
    /* down_since first: a rank that sees DOWN reads it next */
    uint64_t ds = atomic_load(&e->down_since);
    if (ds >= atomic_load(&e->heard) && ds != 0)
        return; /* another rank is judging this very silence */
    if (!atomic_compare_exchange_strong(&e->down_since, &ds, now))
        return;
    atomic_store(&e->state, RAIL_HOST_DOWN);
    atomic_fetch_add(&e->epoch, 1);
    atomic_fetch_add(&e->failures, 1);
    rail_host_event(peer, rail, "failed (nothing received from the host on this rail for %llu ms; "
                    "every local rank's paths there fail)", (unsigned long long)(silent_ns / RM_MS));
}

void rail_host_suspect(rail_host_entry_t *e, int peer, int rail, uint64_t silent_ns)
{
    uint32_t st = RAIL_HOST_UP;
    if (atomic_compare_exchange_strong(&e->state, &st, RAIL_HOST_SUSPECT)) {
        atomic_fetch_add(&e->epoch, 1);
        rail_host_event(peer, rail, "suspect (nothing received from the host for %llu ms)",
                        (unsigned long long)(silent_ns / RM_MS));
    }
}

int rail_host_monitor(uint64_t now)
{
    if (!rail_host_hdr)
        return rail_host_mine = 1;
    uint64_t pid = (uint64_t)(uint32_t)rail_host_pid;
    uint32_t t = (uint32_t)(now / RM_MS);
    uint64_t mine = pid << 32 | t;
    uint64_t cur = atomic_load(&rail_host_hdr->lease);
    if (cur >> 32 == pid) {
        atomic_store(&rail_host_hdr->lease, mine);
        return rail_host_mine = 1;
    }
    pid_t holder = (pid_t)(cur >> 32);
    /* the host's first rank is the first monitor: the others give it a
     * path timeout to show up */
    if (!cur && rail_host_local != 0 && now < rail_host_t0 + (uint64_t)RM_CFG(path_timeout_ms) * RM_MS)
        return rail_host_mine = 0;
    uint32_t age = t - (uint32_t)cur;
    const char *why = NULL;
    if (!cur)
        why = "the first";
    else if (!holder)
        why = "its rank finished";
    else if (age > (uint32_t)RM_CFG(path_timeout_ms))
        why = "its lease went stale";
    else if (kill(holder, 0) < 0 && errno == ESRCH)
        why = "its process is gone";
    if (!why || !atomic_compare_exchange_strong(&rail_host_hdr->lease, &cur, mine))
        return rail_host_mine = 0;
    int prev = atomic_exchange(&rail_host_hdr->monitor_rank, rail_host_me);
    if (cur)
        rm_log(RM_LOG_INFO, "rail event %.6f host monitor: rank %d takes over from rank %d (%s)", rm_wall(),
               rail_host_me, prev, why);
    else
        rm_log(RM_LOG_INFO, "rail event %.6f host monitor: rank %d probes for host %d", rm_wall(), rail_host_me,
               rail_host_node_of ? rail_host_node_of[rail_host_me] : 0);
    return rail_host_mine = 1;
}

int rail_host_is_monitor(void)
{
    return rail_host_mine;
}

void rail_host_offer(int peer, int rail, uint32_t tick)
{
    if (!rail_host_entry(peer, rail) || !rail_host_via)
        return;
    rail_host_via_t *v = &rail_host_via[(size_t)rail_host_of(peer) * RAIL_HOST_RAILS + (size_t)rail];
    if (v->tick != tick || peer < v->peer) {
        v->tick = tick;
        v->peer = peer;
    }
}

int rail_host_chosen(int peer, int rail, uint32_t tick)
{
    if (!rail_host_entry(peer, rail) || !rail_host_via)
        return 1;
    rail_host_via_t *v = &rail_host_via[(size_t)rail_host_of(peer) * RAIL_HOST_RAILS + (size_t)rail];
    return v->tick == tick && v->peer == peer;
}

uint64_t rail_host_beats(void)
{
    uint64_t n = 0;
    for (size_t i = 0; rail_host_tab && i < (size_t)rail_host_n * RAIL_HOST_RAILS; i++)
        n += atomic_load_explicit(&rail_host_tab[i].beats, memory_order_relaxed);
    return n;
}
