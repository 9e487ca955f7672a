/* Active messages for one-sided communication. An RMA operation travels as
 * one PF_AM frame per piece: an ordinary sequenced frame, so the channel
 * keeps it until acknowledged, sends it again on a surviving rail after a
 * failover and delivers it exactly once and in order. The handler (src/rma)
 * applies it in the progress engine of the target, in whichever thread runs
 * progress: the application's inside MPI, or the asynchronous progress
 * thread while the application computes outside MPI.
 * Bulk one-sided data (put pieces, the data answering gets) travels as
 * PF_AMDATA instead: the frame header describes it and the payload is only
 * data, so it may be sent from the memory where it is (referenced until
 * acknowledged) and land where it goes (zero-copy receive), like
 * rendezvous chunks, with the same exactly-once delivery. */
#include "proto/engine.h"
#include "util/log.h"

#include <string.h>

static proto_am_fn proto_am_handler;
static proto_am_data_fn proto_am_data_handler;
static proto_am_locate_fn proto_am_locator;

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

void proto_am_data_set(proto_am_data_fn fn, proto_am_locate_fn locate)
{
    proto_am_data_handler = fn;
    proto_am_locator = locate;
}

rm_status_t proto_am_data_send(int world_dst, const proto_am_data_t *d, const void *payload,
                               size_t len, void (*sent)(void *arg, rm_status_t st), void *arg)
{
    proto_hdr_t h = {.type = PF_AMDATA, .flags = (uint8_t)d->kind, .src = d->rank, .ctx = d->win,
                     .size = d->off, .id = d->id};
    return rail_channel_send(proto_chan(world_dst), &h, sizeof h, payload, len, NET_F_UNORDERED,
                             sent, arg);
}

static void proto_am_data_of(const void *upper, proto_am_data_t *d)
{
    proto_hdr_t h;
    memcpy(&h, upper, sizeof h);
    *d = (proto_am_data_t){.kind = h.flags, .win = h.ctx, .rank = h.src, .off = h.size, .id = h.id};
}

void proto_am_data_recv(rail_channel_t *ch, const void *upper, const void *payload, size_t len)
{
    if (!proto_am_data_handler) {
        rm_log_error("dropping one-sided data from rank %d: no handler", rail_channel_peer(ch));
        return;
    }
    proto_am_data_t d;
    proto_am_data_of(upper, &d);
    proto_am_data_handler(rail_channel_peer(ch), &d, payload, len);
}

void *proto_am_data_locate(rail_channel_t *ch, const void *upper, size_t len)
{
    if (!proto_am_locator)
        return NULL;
    proto_am_data_t d;
    proto_am_data_of(upper, &d);
    return proto_am_locator(rail_channel_peer(ch), &d, len);
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
