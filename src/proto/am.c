/* Active messages for one-sided communication. An RMA operation travels as
 * one PF_AM frame per piece: an ordinary sequenced frame, so the channel
 * keeps it until acknowledged, sends it again on a surviving rail after a
 * failover and delivers it exactly once and in order. The handler (src/rma)
 * applies it in the progress engine of the target, in whichever thread runs
 * progress: the application's inside MPI, or the asynchronous progress
 * thread while the application computes outside MPI. */
#include "proto/engine.h"
#include "util/log.h"

static proto_am_fn proto_am_handler;

void proto_am_set(proto_am_fn fn)
{
    proto_am_handler = fn;
}

rm_status_t proto_am_send(int world_dst, const void *payload, size_t len, int unordered)
{
    proto_hdr_t h = {.type = PF_AM, .src = proto_proc.world_rank, .size = len};
    /* no completion callback: the channel copies what it must keep, so the
     * caller's staging memory is free on return */
    rm_status_t st = rail_channel_send(proto_chan(world_dst), &h, sizeof h, payload, len,
                                       unordered ? NET_F_UNORDERED : 0, NULL, NULL);
    return st == RM_INPROGRESS ? RM_OK : st;
}

size_t proto_am_max(void)
{
    size_t m = proto_eng.chunk;
    if (proto_eng.net_chunk && proto_eng.net_chunk < m)
        m = proto_eng.net_chunk;
    return m;
}

void proto_am_recv(rail_channel_t *ch, const void *payload, size_t len)
{
    if (!proto_am_handler) {
        rm_log_error("dropping a one-sided frame from rank %d: no handler", rail_channel_peer(ch));
        return;
    }
    proto_am_handler(rail_channel_peer(ch), payload, len);
}

rm_status_t proto_peer_failure(int world)
{
    return rail_channel_failure(proto_chan(world));
}

int proto_local_peer(int world)
{
    return proto_eng.cma && proto_proc.node_of[world] == proto_proc.node;
}

const char *proto_job_id(void)
{
    return proto_eng.job_id;
}
