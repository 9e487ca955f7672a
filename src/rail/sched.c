#include "rail/sched.h"

#include <string.h>
#include <strings.h>

static const char *const rail_policy_names[] = {
    [RAIL_POLICY_FIRST] = "first",       [RAIL_POLICY_ROUND_ROBIN] = "round-robin",
    [RAIL_POLICY_BINDING] = "binding",   [RAIL_POLICY_EVEN] = "even",
    [RAIL_POLICY_WEIGHTED] = "weighted", [RAIL_POLICY_ADAPTIVE] = "adaptive",
    [RAIL_POLICY_FAILOVER] = "failover",
};

int rail_policy_parse(const char *name, rail_policy_t *out)
{
    for (size_t i = 0; i < sizeof rail_policy_names / sizeof rail_policy_names[0]; i++) {
        if (!strcasecmp(name, rail_policy_names[i])) {
            *out = (rail_policy_t)i;
            return 0;
        }
    }
    return -1;
}

const char *rail_policy_name(rail_policy_t p)
{
    return (unsigned)p < sizeof rail_policy_names / sizeof rail_policy_names[0] ? rail_policy_names[p]
                                                                                  : "?";
}

static int rail_nth_usable(const rail_sched_path_t *paths, int n, uint64_t k)
{
    int usable = 0;
    for (int i = 0; i < n; i++)
        usable += paths[i].usable != 0;
    if (!usable)
        return -1;
    k %= (uint64_t)usable;
    for (int i = 0; i < n; i++)
        if (paths[i].usable && k-- == 0)
            return i;
    return -1;
}

/* Expected time for path i to finish `extra` more bytes. */
static double rail_finish_time(const rail_sched_path_t *p, size_t extra)
{
    double bw = p->bw > 0 ? p->bw : 1.0;
    return p->lat + (double)(p->queued + extra) / bw;
}

int rail_sched_pick(rail_policy_t pol, const rail_sched_path_t *paths, int n, uint64_t turn,
                    int local_rank)
{
    switch (pol) {
    case RAIL_POLICY_ROUND_ROBIN:
        return rail_nth_usable(paths, n, turn);
    case RAIL_POLICY_BINDING:
        return rail_nth_usable(paths, n, (uint64_t)(local_rank < 0 ? 0 : local_rank));
    case RAIL_POLICY_ADAPTIVE: {
        /* a small message goes where it will arrive first */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (paths[i].usable &&
                (best < 0 || rail_finish_time(&paths[i], 0) < rail_finish_time(&paths[best], 0)))
                best = i;
        return best;
    }
    case RAIL_POLICY_FIRST:
    case RAIL_POLICY_FAILOVER:
    case RAIL_POLICY_EVEN:
    case RAIL_POLICY_WEIGHTED:
    default:
        return rail_nth_usable(paths, n, 0);
    }
}

int rail_sched_pick_chunk(rail_policy_t pol, const rail_sched_path_t *paths, int n, size_t len,
                          uint64_t turn, int local_rank, double *wrr)
{
    switch (pol) {
    case RAIL_POLICY_ADAPTIVE: {
        /* the path that will have this chunk delivered first */
        int best = -1;
        double bt = 0;
        for (int i = 0; i < n; i++) {
            if (!paths[i].usable)
                continue;
            double t = rail_finish_time(&paths[i], len);
            if (best < 0 || t < bt) {
                best = i;
                bt = t;
            }
        }
        return best;
    }
    case RAIL_POLICY_EVEN:
    case RAIL_POLICY_ROUND_ROBIN:
        return rail_nth_usable(paths, n, turn);
    case RAIL_POLICY_WEIGHTED: {
        /* smooth weighted round-robin: shares converge to the weights */
        double total = 0;
        int best = -1;
        for (int i = 0; i < n; i++) {
            if (!paths[i].usable)
                continue;
            double w = paths[i].bw > 0 ? paths[i].bw : 1;
            wrr[i] += w;
            total += w;
            if (best < 0 || wrr[i] > wrr[best])
                best = i;
        }
        if (best >= 0)
            wrr[best] -= total;
        return best;
    }
    default:
        return rail_sched_pick(pol, paths, n, turn, local_rank);
    }
}

static int rail_emit(rail_chunk_t *out, int max, int k, int path, size_t off, size_t len)
{
    if (!len)
        return k;
    if (k == max) {
        out[k - 1].len += len; /* out of slots: the last piece takes the rest */
        return k;
    }
    out[k].path = path;
    out[k].off = off;
    out[k].len = len;
    return k + 1;
}

/* Split [0, bytes) over the usable paths in proportion to share[]. */
static int rail_split(const rail_sched_path_t *paths, int n, const double *share, size_t bytes,
                      size_t chunk_max, rail_chunk_t *out, int max)
{
    double total = 0;
    for (int i = 0; i < n; i++)
        if (paths[i].usable)
            total += share[i];
    if (total <= 0)
        return 0;
    int k = 0, last = -1;
    size_t off = 0;
    for (int i = 0; i < n; i++)
        if (paths[i].usable && share[i] > 0)
            last = i;
    for (int i = 0; i < n && off < bytes; i++) {
        if (!paths[i].usable || share[i] <= 0)
            continue;
        size_t part = i == last ? bytes - off : (size_t)((double)bytes * share[i] / total);
        if (part > bytes - off)
            part = bytes - off;
        for (size_t done = 0; done < part;) {
            size_t len = part - done < chunk_max ? part - done : chunk_max;
            k = rail_emit(out, max, k, i, off + done, len);
            done += len;
        }
        off += part;
    }
    return k;
}

int rail_sched_plan(rail_policy_t pol, const rail_sched_path_t *paths, int n, size_t bytes,
                    size_t chunk_min, size_t chunk_max, uint64_t turn, int local_rank,
                    rail_chunk_t *out, int max)
{
    if (max <= 0 || n <= 0)
        return 0;
    if (chunk_max == 0)
        chunk_max = bytes ? bytes : 1;
    if (chunk_min == 0 || chunk_min > chunk_max)
        chunk_min = chunk_max;
    double share[64];
    if (n > 64)
        n = 64;
    switch (pol) {
    case RAIL_POLICY_EVEN:
        for (int i = 0; i < n; i++)
            share[i] = 1;
        return rail_split(paths, n, share, bytes, chunk_max, out, max);
    case RAIL_POLICY_WEIGHTED:
        for (int i = 0; i < n; i++)
            share[i] = paths[i].bw > 0 ? paths[i].bw : 1;
        return rail_split(paths, n, share, bytes, chunk_max, out, max);
    case RAIL_POLICY_ADAPTIVE: {
        /* greedy: every chunk to the path whose queue drains first with it */
        size_t queued[64];
        for (int i = 0; i < n; i++)
            queued[i] = paths[i].queued;
        int k = 0;
        for (size_t off = 0; off < bytes;) {
            size_t len = bytes - off < chunk_min ? bytes - off : chunk_min;
            int best = -1;
            double bt = 0;
            for (int i = 0; i < n; i++) {
                if (!paths[i].usable)
                    continue;
                rail_sched_path_t p = paths[i];
                p.queued = queued[i];
                double t = rail_finish_time(&p, len);
                if (best < 0 || t < bt) {
                    best = i;
                    bt = t;
                }
            }
            if (best < 0)
                return 0;
            queued[best] += len;
            /* merge into the previous piece only while it stays <= chunk_max */
            if (k > 0 && out[k - 1].path == best && out[k - 1].off + out[k - 1].len == off &&
                out[k - 1].len + len <= chunk_max)
                out[k - 1].len += len;
            else
                k = rail_emit(out, max, k, best, off, len);
            off += len;
        }
        return k;
    }
    default: {
        int p = rail_sched_pick(pol, paths, n, turn, local_rank);
        if (p < 0)
            return 0;
        int k = 0;
        for (size_t off = 0; off < bytes || k == 0;) {
            size_t len = bytes - off < chunk_max ? bytes - off : chunk_max;
            if (k == max) {
                out[k - 1].len += bytes - off;
                break;
            }
            out[k].path = p;
            out[k].off = off;
            out[k].len = len;
            k++;
            off += len;
            if (!bytes)
                break;
        }
        return k;
    }
    }
}
