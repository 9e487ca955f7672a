/* MPI_Comm_create_group and MPI_Comm_idup (src/comm/commgrp.c). */
#ifndef RM_COMM_COMMGRP_H
#define RM_COMM_COMMGRP_H

#include "comm/comm.h"
#include "util/status.h"

struct request;

/* Collective over the members of g only (the caller is one); messages go
 * on a context of parent's that nothing else uses, told apart by tag. g
 * becomes the new communicator's group on success. */
rm_status_t comm_create_group(comm_t *parent, group_t *g, int tag, comm_t **out);

/* MPI_Comm_create_from_group: collective over the members of g (the
 * caller is one), told apart by the group and the string tag; messages go
 * over MPI_COMM_WORLD's processes on a context no communicator owns. g
 * becomes the new communicator's group on success. RM_ERR_INVALID when the
 * caller is not in g. */
rm_status_t comm_create_from_group(group_t *g, const char *stag, errhandler_t *errh, comm_t **out);

/* MPI_Intercomm_create_from_groups: collective over the members of both
 * (disjoint) groups, the caller in lg; an id for the intercommunicator is
 * agreed among all of them and one for its local communicator among lg's.
 * lg and rg become its groups on success. */
rm_status_t comm_inter_from_groups(group_t *lg, group_t *rg, const char *stag, errhandler_t *errh,
                                   comm_t **out);

/* What an idup's communicator inherits, taken when the call starts. */
typedef struct comm_idup_extra {
    struct topo *topo;
    comm_hint_t *hints;
    struct attr_list *attrs;
} comm_idup_extra_t;

/* Start a nonblocking duplicate: *out is a generalized request whose
 * gstate holds the final rm_status_t; *newcomm is written when it
 * completes. Takes over *extra. */
rm_status_t comm_idup_start(comm_t *parent, comm_idup_extra_t *extra, MPI_Comm *newcomm,
                            struct request **out);
void comm_idup_extra_free(comm_idup_extra_t *e);

#endif
