/* State shared by the point-to-point engine's files. */
#ifndef RM_PROTO_ENGINE_H
#define RM_PROTO_ENGINE_H

#include "net/net.h"
#include "proto/match.h"
#include "proto/proto.h"
#include "proto/wire.h"
#include "rail/channel.h"

#define PROTO_MAX_IFACES 8

typedef struct proto_iface {
    const net_ops_t *ops;
    net_iface_t *ifc;
    const int *work; /* transport's work hint, NULL: always poll */
} proto_iface_t;

typedef struct proto_engine {
    match_state_t mq;
    rail_channel_t *ch; /* one per world rank */
    rail_channel_t **xch; /* processes of other jobs: index world_size + i */
    int nx, xcap;
    char (*xsecret)[56]; /* and each one's job secret and rank there */
    int *xrank;
    net_env_t env;      /* what the transports were opened with */
    int secret_shared;  /* job_secret is the job's (else drawn by this process) */
    proto_iface_t ifaces[PROTO_MAX_IFACES];
    int nifaces;
    int nrails;         /* network rails opened (TCP interfaces) */
    size_t eager_max;   /* largest eager payload */
    size_t chunk;       /* rendezvous pipeline chunk (shared memory) */
    size_t net_chunk;   /* rendezvous chunk over network rails */
    size_t stripe_min;  /* messages from this size on are striped over rails */
    int cma;            /* single-copy reads allowed: 1 yes, 0 no */
    int cma_required;   /* RAILMPI_SHM_CMA=on: refusal is an error */
    int spin_count;
    char job_id[128];
    char job_secret[56]; /* the TCP handshake's; fits tcp_hello_t's field */
} proto_engine_t;

extern proto_engine_t proto_eng;

/* The channel to a process index (a world rank, or past the world). */
static inline rail_channel_t *proto_chan(int idx)
{
    return idx < proto_proc.world_size ? &proto_eng.ch[idx] : proto_eng.xch[idx - proto_proc.world_size];
}

void proto_deliver(rail_channel_t *ch, const void *upper, const void *payload, size_t len);
void proto_peer_failed(rail_channel_t *ch, rm_status_t why);
void *proto_data_locate(rail_channel_t *ch, const void *upper, size_t len);

/* Send cancellation (cancel.c): the receiver's side of PF_CANCEL_REQ, the
 * sender's of PF_CANCEL_ACK, and the end of a cancel whose answer will not
 * come (the peer is lost: `err` < 0). */
void proto_cancel_req_recv(rail_channel_t *ch, const proto_hdr_t *h);
void proto_cancel_ack_recv(const proto_hdr_t *h);
void proto_cancel_settle(request_t *r, int withdrawn, rm_status_t err);

#endif
