/* Communicators, groups, error handlers, attributes. */
#ifndef RM_COMM_COMM_H
#define RM_COMM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "util/status.h"

typedef struct group {
    int handle;
    int refcount;
    int size;
    int rank;   /* my rank in the group, MPI_UNDEFINED if not a member */
    int *world; /* group rank -> MPI_COMM_WORLD rank */
    struct bsend_share *bshare; /* a session's group (and groups made from it): its buffer slot */
} group_t;

typedef struct errhandler {
    int handle;
    int refcount;
    unsigned builtin : 1;
    int kind; /* 0 fatal, 1 return, 2 user comm function */
    MPI_Comm_errhandler_function *fn;
    /* a user function of another ABI's library (src/abi): call converts the
     * object's handle (obj points to it: an int, or an MPI_File for files)
     * and the error code, and calls abi_fn in that ABI's terms */
    void (*call)(void (*abi_fn)(void), void *obj, int *code);
    void (*abi_fn)(void);
} errhandler_t;

struct attr_list;
struct topo;

/* An info hint kept on a communicator (MPI_Comm_set_info). */
typedef struct comm_hint {
    char *key, *val;
    struct comm_hint *next;
} comm_hint_t;

/* A communicator's ranks by host, for the two-level collectives
 * (src/coll/build_hier.c builds it at the first collective that asks; one
 * allocation, freed with the communicator). */
typedef struct comm_hosts {
    int two_level; /* more than one host, and some host with more than one rank */
    int leader;    /* my host's leader: its lowest rank */
    int nlocal;    /* ranks on my host, ascending (the leader first) */
    int nlead;     /* one leader per host, ascending */
    int lead_idx;  /* my index in leads, -1 when not a leader */
    int *local, *leads;
} comm_hosts_t;

typedef struct comm {
    int handle;
    int refcount;
    uint32_t ctx;   /* point-to-point context id; ctx + 1 carries collectives */
    int rank, size;
    group_t *group; /* comm rank -> world rank via group->world */
    errhandler_t *errh;
    struct attr_list *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    int coll_seq;   /* collectives issued on this comm (tags for algorithms) */
    struct topo *topo;   /* process topology (src/comm/topo.c), NULL if none */
    comm_hint_t *hints;  /* info hints, in the order set */
    uint32_t ctxid_seq;  /* creations over this comm (src/comm/ctxid.c) */
    comm_hosts_t *hosts; /* NULL until a collective needs it */
    struct coll_shm *shm; /* one-host collectives' segment (src/coll/shm.c) */
    int shm_state;        /* whether it has one: unknown until a collective asks */
    /* Intercommunicators: rank/size/group are the local group's; peers of
     * point-to-point and of the collectives' inter phase are ranks in
     * remote_group; local_comm (internal, no handle) runs the local phases. */
    group_t *remote_group; /* NULL for an intracommunicator */
    struct comm *local_comm;
    struct bsend_buf *bsend; /* MPI_Comm_attach_buffer's, NULL if none */
    struct bsend_share *bshare; /* derived from a session: the session's buffer slot */
    /* process failures (src/proto/ft.c) */
    int revoked;   /* MPIX_Comm_revoke: every operation but the ULFM calls fails */
    int ft_acked;  /* failures acknowledged: this prefix of the job's failure list */
    uint32_t ft_agree_seq; /* agreements run on it (src/coll/agree.c): their tags */
    uint32_t *ft_agree_rec; /* the decision of the last one finished here (proto_ft_agree_keep) */
    uint32_t ft_agree_rec_seq;
    int ft_agree_rec_len;
} comm_t;

extern comm_t *comm_world, *comm_self;

rm_status_t comm_init(int world_rank, int world_size); /* after proto is up */
void comm_finalize(void);
comm_t *comm_get(MPI_Comm h); /* NULL if invalid or MPI_COMM_NULL */
/* The communicator (with a handle) of point-to-point context ctx, or NULL. */
comm_t *comm_by_ctx(uint32_t ctx);
void comm_release(comm_t *c);
group_t *group_get(MPI_Group h);
errhandler_t *errhandler_get(MPI_Errhandler h);

/* Groups */
group_t *group_new(int size, int my_world_rank); /* world[] to be filled */
void group_release(group_t *g);
group_t *group_register(group_t *g);            /* gives it a handle; NULL on failure */
extern group_t *group_empty;

/* Communicator creation, collective over `parent`: members is the new
 * communicator's group (NULL for a process that is not a member, which
 * gets *out = NULL). */
rm_status_t comm_create_from(comm_t *parent, group_t *members, comm_t **out);
/* The same on an id already agreed and taken (src/comm/ctxid.h), for
 * creations that agree on it themselves (src/comm/commgrp.c); the id is
 * given back if it fails. */
#define COMM_MAX_IDS 2048
rm_status_t comm_create_with_id(comm_t *parent, group_t *members, int id, comm_t **out);
rm_status_t comm_split(comm_t *parent, int color, int key, comm_t **out);
void comm_hints_free(comm_hint_t **h);
rm_status_t comm_hints_copy(const comm_hint_t *from, comm_hint_t **to);
/* As comm_create_from; handle 0 makes an internal communicator. */
rm_status_t comm_create_internal(comm_t *parent, group_t *members, int handle, comm_t **out);
void comm_set_errhandler(comm_t *c, errhandler_t *e);
errhandler_t *errhandler_initial(void);
void errhandler_set_initial(errhandler_t *e);
errhandler_t *errhandler_create(MPI_Comm_errhandler_function *fn);
void errhandler_release(errhandler_t *e);

static inline int comm_world_rank(const comm_t *c, int rank)
{
    return c->group->world[rank];
}

static inline int comm_is_inter(const comm_t *c)
{
    return c->remote_group != NULL;
}

/* A point-to-point peer's world rank: on an intercommunicator ranks name
 * members of the remote group. */
static inline int comm_peer_world(const comm_t *c, int rank)
{
    return (c->remote_group ? c->remote_group : c->group)->world[rank];
}

static inline int comm_peer_size(const comm_t *c)
{
    return c->remote_group ? c->remote_group->size : c->size;
}

/* For src/comm only: a communicator on an agreed, taken id. comm_new takes
 * over g and remote when it succeeds; when it fails it gives the id back
 * and the caller keeps the groups. */
#define COMM_ID_WORDS (COMM_MAX_IDS / 32)
rm_status_t comm_new(group_t *g, group_t *remote, int id, errhandler_t *errh, int handle,
                     comm_t **out);
/* After a creation from parent (st its status): the new communicator belongs
 * to the parent's session, if it has one. Returns st. */
rm_status_t comm_inherit(comm_t *parent, rm_status_t st, comm_t **out);

/* Intercommunicators (src/comm/inter.c). */
/* Collective over local (an intracommunicator) and, at the leader, peer.
 * leader_err: an MPI error class the local leader found in its own
 * arguments; it reaches the whole group. *errclass: such a class, or an
 * overlap of the groups (MPI_ERR_COMM); *out is then NULL. */
rm_status_t comm_inter_create(comm_t *local, int local_leader, comm_t *peer, int remote_leader,
                              int tag, int leader_err, int *errclass, comm_t **out);
rm_status_t comm_inter_merge(comm_t *c, int high, comm_t **out);
/* An intercommunicator between lg and rg, subsets of parent's groups, on
 * ids agreed and taken by every member of both (ids[0] its own, ids[1]
 * its local communicator's): MPIX_Comm_shrink. Takes over lg and rg when
 * it succeeds; when it fails the ids are given back and the caller keeps
 * the groups. */
rm_status_t comm_inter_create_with_ids(comm_t *parent, group_t *lg, group_t *rg, const int *ids, comm_t **out);
/* Dynamic processes (src/comm/dyn.c). `*errclass` returns an MPI error
 * class found at the root and shared by the group (unknown or closed port:
 * MPI_ERR_PORT), with RM_OK. */
rm_status_t comm_port_open(char *name); /* MPI_MAX_PORT_NAME bytes */
rm_status_t comm_port_close(const char *name);
void comm_ports_close_all(void);
/* accept: timeout_s 0 waits for ever; root_err (at the root) fails at once */
rm_status_t comm_dyn_accept(const char *port, double timeout_s, int root, int root_err, comm_t *local,
                            int *errclass, comm_t **out);
rm_status_t comm_dyn_connect(const char *port, double timeout_s, int root, comm_t *local, int *errclass,
                             comm_t **out);
rm_status_t comm_dyn_join(int fd, int *errclass, comm_t **out);
rm_status_t comm_inter_from_socket(comm_t *local, int leader, int fd, const int *remote, int nremote,
                                   comm_t **out);
rm_status_t comm_inter_dup(comm_t *c, comm_t **out);
rm_status_t comm_inter_create_sub(comm_t *c, group_t *g, comm_t **out);
rm_status_t comm_inter_split(comm_t *c, int color, int key, comm_t **out);

#endif
