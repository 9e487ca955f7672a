/* The point-to-point protocol's frame header (the channel's upper header). */
#ifndef RM_PROTO_WIRE_H
#define RM_PROTO_WIRE_H

#include <stdint.h>

enum proto_frame_type {
    PF_EAGER = 1,  /* envelope + whole message; id = sender request (for SYNC) */
    PF_RTS,        /* rendezvous request; payload proto_rts_t; id = sender request */
    PF_CTS,        /* clear to send; id = sender request, aux = receiver request */
    PF_DATA,       /* rendezvous chunk; id = receiver request, aux = byte offset */
    PF_FIN,        /* receiver has read everything by single copy; id = sender request */
    PF_SYNC_ACK,   /* a synchronous eager send was matched; id = sender request */
    PF_CANCEL_REQ, /* id = sender request to withdraw, aux = request to answer */
    PF_CANCEL_ACK, /* id = the request to answer, aux = 1 if withdrawn */
    PF_RDATA,      /* rendezvous chunk sent with the RTS, before any CTS; id = sender
                      request, aux = byte offset, ctx = the window's bytes */
    PF_CREDIT,     /* id = credit the receiver has consumed so far (cumulative) */
    PF_RTR,        /* ready for remote writes (proto/rdma.c); id = sender request, aux =
                      receiver request; payload proto_rtr_t, then its proto_rdma_key_t */
    PF_WDONE,      /* every byte was written remotely; id = receiver request; payload: the
                      proto_fence_t of rails where writes given up on may still come;
                      flags PFF_COPY: none was, the receiver answers CTS for DATA chunks */
    PF_REVOKE = 15, /* the communicator of context ctx is revoked (proto/ft.c); src = world rank */
    PF_AM = 16,    /* one-sided operation (src/rma): the payload is the handler's */
    PF_AMDATA,     /* one-sided data, the payload all data (proto_am_data_t): flags = kind,
                      src = sender's rank in the window, ctx = window, aux = byte offset,
                      id = the origin's request */
    PF_AGREE_Q,    /* is agreement `tag` on the communicator of context ctx decided
                      (proto/ft.c)? src = world rank */
    PF_AGREE_R,    /* its decision: the payload (32-bit words); tag, ctx as the question's */
    PF_DEAD,       /* world rank id is dead, as the sender found it itself (proto/ft_detect.c);
                      src = the sender's world rank */
};

enum proto_frame_flags {
    PFF_SYNC = 1, /* sender waits for a match (MPI_Ssend) */
    PFF_RDMA = 2, /* RTS: the sender can write into the receive buffer (proto/rdma.c) */
    PFF_COPY = 4, /* WDONE: the writes stopped; send the message as DATA chunks */
};

typedef struct proto_hdr {
    uint8_t type;
    uint8_t flags;
    uint16_t rsvd;
    int32_t src;   /* sender's rank in the communicator */
    int32_t tag;
    uint32_t ctx;
    uint64_t size; /* message bytes (EAGER, RTS) or aux (CTS, DATA, CANCEL_ACK) */
    uint64_t id;
} proto_hdr_t;

_Static_assert(sizeof(proto_hdr_t) == 32, "proto_hdr_t must stay 32 bytes");

typedef struct proto_rts {
    uint64_t addr; /* sender's contiguous data, 0 if it cannot be read directly */
    uint64_t win;  /* bytes [0, win) follow as PF_RDATA without waiting for a CTS */
} proto_rts_t;

/* The key of a receive buffer registered on one rail: the sender writes
 * byte `off` of it at base + off on that rail (proto/rdma.c). */
#define PROTO_RDMA_KEYS_MAX 8
typedef struct proto_rdma_key {
    uint32_t rail, inc; /* inc: the incarnation of the rail's endpoint the key is of */
    uint64_t key, base;
} proto_rdma_key_t;

/* A rail of the receiver's where writes the sender gave up on may still be
 * placed, and the incarnation of its endpoint they go to (net_ops_t
 * rma_stuck, path_fence). */
typedef struct proto_fence {
    uint32_t rail, inc;
} proto_fence_t;

#endif
