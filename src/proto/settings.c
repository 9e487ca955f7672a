/* Settings that change while the job runs (MPI_T control variables), and
 * what MPI_T reads of the engine. Every other setting is read once, at
 * MPI_Init: changing it later would leave ranks, or a rank's own in-flight
 * messages, disagreeing about it. */
#include "proto/engine.h"
#include "rail/sched.h"
#include "util/clock.h"
#include "util/config.h"

#include <string.h>

struct rail_channel *proto_peer_channel(int world_rank)
{
    if (!proto_eng.ch || world_rank < 0 || world_rank >= proto_proc.world_size)
        return NULL;
    return &proto_eng.ch[world_rank];
}

int proto_net_rails(void)
{
    return proto_eng.ch ? proto_eng.nrails : 0;
}

rm_status_t proto_setting_changed(int row)
{
    rm_cfg_info_t info;
    if (rm_config_info(row, &info) < 0)
        return RM_ERR_INVALID;
    const char *name = info.name;
    int64_t v = rm_config_value(row);
    if (!strcmp(name, "VERBOSE") || !strcmp(name, "STATS") || !strcmp(name, "TCP_QUEUE_MAX") ||
        !strcmp(name, "COLL_RING_MIN") || !strcmp(name, "COLL_BCAST_SCATTER_MIN") ||
        !strcmp(name, "COLL_BCAST_CHAIN_MIN") || !strcmp(name, "COLL_BCAST_CHAIN_SEG") ||
        !strcmp(name, "COLL_RSAG_MIN") || !strcmp(name, "COLL_REDUCE_RSG_MIN") ||
        !strcmp(name, "COLL_ALLGATHER_RING_MIN") || !strcmp(name, "COLL_ALLTOALL_PAIRWISE_MIN") ||
        !strcmp(name, "COLL_ALLTOALL_BRUCK_MAX") || !strcmp(name, "COLL_BINOMIAL_GATHER_MAX") || !strcmp(name, "COLL_HIERARCHICAL") ||
        !strcmp(name, "COLL_ALLTOALL_HIER_MAX"))
        return RM_OK; /* read where used */
    if (!strcmp(name, "PATH_TIMEOUT_MS"))
        return v >= 10 ? RM_OK : RM_ERR_INVALID;
    if (!strcmp(name, "RECOVERY_MAX_MS"))
        return v >= 1 ? RM_OK : RM_ERR_INVALID;
    if (!strcmp(name, "PARTITION_TIMEOUT_S"))
        return v >= 0 ? RM_OK : RM_ERR_INVALID;
    if (!strcmp(name, "SPIN_COUNT")) {
        if (v < 1)
            return RM_ERR_INVALID;
        proto_eng.spin_count = (int)v;
        return RM_OK;
    }
    if (!strcmp(name, "SPIN_TIME_US")) {
        if (v < 0)
            return RM_ERR_INVALID;
        proto_eng.spin_ticks = rm_ticks_of_ns((uint64_t)v * 1000u);
        return RM_OK;
    }
    if (!strcmp(name, "STRIPING_THRESHOLD")) {
        proto_eng.stripe_min = (size_t)v;
        return RM_OK;
    }
    if (!strcmp(name, "RAIL_POLICY")) {
        rail_policy_t policy;
        if (rail_policy_parse(rm_config_text(row), &policy) < 0)
            return RM_ERR_INVALID;
        return rail_set_policy(policy);
    }
    return RM_ERR_UNSUPPORTED;
}
