/* Path health per (remote host, rail), shared by every rank of this host.
 *
 * A rail between two hosts fails for all their ranks at once (a NIC, a
 * cable, a switch port), so its health is kept once per host pair and rail,
 * not once per rank pair: a table in shared memory, one entry per (remote
 * host, rail), says when any rank of this host last heard from that host on
 * that rail, when any of them last sent there, and whether the rail to it is
 * up, suspect or down. Any frame from the host counts as a sign of life and
 * any frame to it as a heartbeat, so a rail that carries traffic costs
 * nothing extra; an idle one gets one heartbeat per interval from one rank
 * of the host (the monitor, who holds a lease in the table; another rank
 * takes over when its lease goes stale or its process is gone). src/rail/health.c drives this from the
 * health tick. With one rank on the host the table is private memory. */
#ifndef RM_RAIL_HOST_H
#define RM_RAIL_HOST_H

#include <stdatomic.h>
#include <stdint.h>

#include "util/status.h"

enum rail_host_state {
    RAIL_HOST_UP = 0,
    RAIL_HOST_SUSPECT,
    RAIL_HOST_DOWN,
};

/* One (remote host, rail); a cache line, written by every local rank. */
typedef struct rail_host_entry {
    _Atomic uint64_t heard;      /* ns (CLOCK_MONOTONIC): latest sign of life, any local rank */
    _Atomic uint64_t probe_at;   /* ns: no probe (answer wanted) before this (claimed with a CAS) */
    _Atomic uint64_t retry_at;   /* ns: while DOWN, no reconnection attempt before this */
    _Atomic uint64_t down_since; /* ns: when it was judged DOWN */
    _Atomic uint32_t state;      /* enum rail_host_state */
    _Atomic uint32_t epoch;      /* bumped at every change of state */
    _Atomic uint32_t backoff_ms; /* the host's reconnection backoff while DOWN */
    _Atomic uint32_t used;       /* some local rank watches a path there */
    _Atomic uint64_t sent;       /* ns: latest frame any local rank sent there (a heartbeat's worth) */
    _Atomic uint32_t beats;      /* heartbeats and probes this host sent there (statistics) */
    _Atomic uint32_t failures;   /* times judged DOWN (statistics) */
} rail_host_entry_t;

typedef struct rail_host_conf {
    int my_rank, my_node, nnodes;
    const int *node_of;  /* world rank -> host index; copied when nranks > 0, else the caller keeps it alive */
    int nranks;          /* world size: processes past it (other jobs) have no host entry (0: no limit) */
    int nlocal;          /* ranks on this host */
    const char *job_id;  /* names the shared table */
    const char *stamp;   /* per-job string (the job secret): a leftover table of
                          * another job with the same id is never reused */
} rail_host_conf_t;

/* Map (or, with one rank on the host, allocate) the table. Without a call,
 * every peer counts as a host of its own (unit tests). */
rm_status_t rail_host_setup(const rail_host_conf_t *c);
/* Give up the lease and unmap. */
void rail_host_teardown(void);
/* Forget everything (the private table only; unit tests). */
void rail_host_reset(void);

/* The entry for a peer's host on a rail; NULL for a rail beyond the table. */
rail_host_entry_t *rail_host_entry(int peer, int rail);
int rail_host_of(int peer);

/* A sign of life from the host on the rail at `now`. A rail that was
 * judged DOWN or SUSPECT is UP again (a new epoch). */
void rail_host_heard(rail_host_entry_t *e, int peer, int rail, uint64_t now);
/* Judge the rail DOWN (silent for `silent_ns`): one rank wins, logs it and
 * starts a new epoch; every rank fails its paths there at its next tick. */
void rail_host_judge_down(rail_host_entry_t *e, int peer, int rail, uint64_t now, uint64_t silent_ns);
/* Set SUSPECT (from UP) or back; logged once per host. */
void rail_host_suspect(rail_host_entry_t *e, int peer, int rail, uint64_t silent_ns);

/* Once per tick: renew or take the monitor's lease; 1 if this rank is the
 * monitor. */
int rail_host_monitor(uint64_t now);
/* Whether this rank held the lease at its last tick. */
int rail_host_is_monitor(void);

/* The monitor's heartbeats to a host go on one path, to the lowest peer
 * rank there: every usable path is offered in the first half of a tick,
 * and the chosen one is asked in the second. */
void rail_host_offer(int peer, int rail, uint32_t tick);
int rail_host_chosen(int peer, int rail, uint32_t tick);

/* Heartbeats and probes sent from this host so far (every entry; statistics). */
uint64_t rail_host_beats(void);

#endif
