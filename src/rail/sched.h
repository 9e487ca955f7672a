/* Scheduling policies: pure functions (no I/O, no clocks) that decide which
 * path carries a frame and how a large message is cut into chunks over the
 * paths, so they can be tested without a network. */
#ifndef RM_RAIL_SCHED_H
#define RM_RAIL_SCHED_H

#include <stddef.h>
#include <stdint.h>

typedef enum rail_policy {
    RAIL_POLICY_FIRST = 0, /* everything on the first usable path */
    RAIL_POLICY_ROUND_ROBIN, /* whole messages, path after path */
    RAIL_POLICY_BINDING,   /* local process i uses path i mod n */
    RAIL_POLICY_EVEN,      /* a message cut into n equal stripes */
    RAIL_POLICY_WEIGHTED,  /* stripes proportional to static weights */
    RAIL_POLICY_ADAPTIVE,  /* each chunk to the path that finishes it first */
    RAIL_POLICY_FAILOVER,  /* everything on the first usable path; the channel keeps the
                              others connected and probed as standbys (ARMED) */
} rail_policy_t;

/* What the scheduler knows of one path. */
typedef struct rail_sched_path {
    int usable;       /* UP (not SUSPECT/DOWN/ARMED, not migrated off) */
    double bw;        /* bytes per second: measured, or the static weight */
    double lat;       /* seconds per frame */
    size_t queued;    /* bytes accepted but not yet on the wire */
} rail_sched_path_t;

typedef struct rail_chunk {
    int path;
    size_t off, len;
} rail_chunk_t;

int rail_policy_parse(const char *name, rail_policy_t *out); /* 0 ok, -1 unknown */
const char *rail_policy_name(rail_policy_t p);

/* The path for a message sent whole (below the striping threshold, or a
 * control frame). `turn` is the channel's message counter (round-robin),
 * `local_rank` this process's index on its host (binding). -1: no usable path. */
int rail_sched_pick(rail_policy_t pol, const rail_sched_path_t *paths, int n, uint64_t turn,
                    int local_rank);

/* The path for one chunk of `len` bytes of a striped message. `turn` counts
 * the channel's chunks (even striping), `wrr` is the channel's smooth
 * weighted round-robin state (n entries, start at 0). -1: no usable path. */
int rail_sched_pick_chunk(rail_policy_t pol, const rail_sched_path_t *paths, int n, size_t len,
                          uint64_t turn, int local_rank, double *wrr);

/* Cut `bytes` into chunks (each at most `chunk_max`, at least `chunk_min`
 * unless the message is smaller) and assign them to paths. Returns the number
 * of chunks written to `out` (at most `max`; the tail is merged into the last
 * chunk if needed), 0 when no path is usable. The `paths[].queued` figures are
 * not changed. */
int rail_sched_plan(rail_policy_t pol, const rail_sched_path_t *paths, int n, size_t bytes,
                    size_t chunk_min, size_t chunk_max, uint64_t turn, int local_rank,
                    rail_chunk_t *out, int max);

#endif
