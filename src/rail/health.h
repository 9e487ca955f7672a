/* Path health for every channel over lossy paths: heartbeats, failure
 * detection, recovery with backoff, partitions, migration by request. */
#ifndef RM_RAIL_HEALTH_H
#define RM_RAIL_HEALTH_H

#include <stdatomic.h>
#include <stdint.h>

#include "rail/channel.h"

/* Set by a timer (the async thread, without the global lock) when a tick is
 * due; progress checks it on every pass. Relaxed: it carries no data, the
 * tick reads the clock and the channels under the lock itself. */
extern _Atomic int rail_health_due;

void rail_health_setup(int my_rank);
/* How often the tick should run (a twelfth of the path timeout: the lag
 * with which a rank sees what another rank of its host heard). */
#define RAIL_TICKS_PER_TIMEOUT 12
/* With RAILMPI_FT=0, path timeouts of silence before a path of a transport
 * without net_acks fails (health.c, rail_path_tick). */
#define RAIL_FT_OFF_SILENCE 10
/* Ticks per window of round-trip samples (paths measured by delivery reports). */
#define RAIL_RTT_WINDOW 8

uint64_t rail_health_interval(void);
void rail_health_tick(uint64_t now);
/* Called at the end of every health tick (NULL: nothing): a layer above
 * that looks at its peers as often (proto/ft_detect.c). */
void rail_set_tick_hook(void (*fn)(void));
/* Heartbeat interval of an idle rail to a host (RAILMPI_HEALTH_HEARTBEAT_MS,
 * at most half the path timeout). */
uint64_t rail_probe_interval(void);
/* The clock for signs of life heard between ticks (rm_now; tests fake it). */
void rail_health_clock(uint64_t (*now)(void));

static inline void rail_health_poll(uint64_t (*now)(void))
{
    if (atomic_load_explicit(&rail_health_due, memory_order_relaxed))
        rail_health_tick(now());
}

/* Refresh a path's measured throughput and round trip (done every tick). */
void rail_path_measure(rail_path_t *p, uint64_t now);

/* Move traffic off a rail (off = 1) or back onto it (off = 0) on every
 * channel; returns the number of paths changed. */
int rail_migrate(int rail, int off);

#endif
