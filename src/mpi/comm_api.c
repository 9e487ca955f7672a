/* Communicator and group bindings. */
#include "comm/attr.h"
#include "comm/topo.h"
#include "mpi/mpiimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

RM_ALIAS(Comm_rank)
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPI_BEGIN("MPI_Comm_rank");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, rank, "rank is NULL");
    *rank = c->rank;
    MPI_END();
}

RM_ALIAS(Comm_size)
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    MPI_BEGIN("MPI_Comm_size");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, size, "size is NULL");
    *size = c->size;
    MPI_END();
}

group_t *comm_group_copy(const group_t *g)
{
    group_t *n = group_new(g->size, 0);
    if (!n)
        return NULL;
    memcpy(n->world, g->world, sizeof(int) * (size_t)g->size);
    return n;
}

/* MPI_Comm_dup and MPI_Comm_dup_with_info. The new context is agreed on
 * first (collectively), the attributes copied after: a copy callback that
 * fails on one rank then cannot leave the others waiting in the agreement. */
static int comm_dup_common(const char *fn_name_, MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_BEGIN_SHARED();
    comm_t *c, *n;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    rm_status_t st;
    if (comm_is_inter(c)) {
        st = comm_inter_dup(c, &n);
    } else {
        group_t *g = comm_group_copy(c->group);
        if (!g)
            MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
        if ((st = comm_create_from(c, g, &n)) < 0)
            group_release(g);
    }
    MPI_CHECK_STATUS(c, st);
    if ((c->topo && !(n->topo = topo_dup(c->topo))) || comm_hints_copy(c->hints, &n->hints) < 0) {
        comm_release(n);
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    }
    if ((err = attr_copy_all(&c->attrs, &n->attrs, ATTR_COMM, comm)) != MPI_SUCCESS) {
        /* the attributes copied so far get their delete callbacks */
        comm_release(n);
        *newcomm = MPI_COMM_NULL;
        MPI_FAIL(c, err, "an attribute copy callback returned %d", err);
    }
    *newcomm = n->handle;
    MPI_END();
}

RM_ALIAS(Comm_dup)
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return comm_dup_common("MPI_Comm_dup", comm, newcomm);
}

RM_ALIAS(Comm_dup_with_info)
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int nkeys, err;
    /* a bad info fails before anything is created */
    if (info != MPI_INFO_NULL && (err = PMPI_Info_get_nkeys(info, &nkeys)) != MPI_SUCCESS)
        return err;
    if ((err = comm_dup_common("MPI_Comm_dup_with_info", comm, newcomm)) != MPI_SUCCESS)
        return err;
    return mpi_comm_replace_hints(*newcomm, info);
}

RM_ALIAS(Comm_split)
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_split");
    comm_t *c, *n;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (color < 0 && color != MPI_UNDEFINED)
        MPI_FAIL(c, MPI_ERR_ARG, "invalid color %d", color);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? comm_inter_split(c, color, key, &n)
                                         : comm_split(c, color, key, &n));
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    MPI_END();
}

RM_ALIAS(Comm_split_type)
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_split_type");
    comm_t *c, *n;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        if (comm_is_inter(c))
            MPI_FAIL(c, MPI_ERR_COMM, "hardware split types need an intracommunicator");
        err = mpi_hw_split(c, split_type, key, info, newcomm);
        goto fn_exit;
    }
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        MPI_FAIL(c, MPI_ERR_ARG, "unknown split_type %d", split_type);
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED
                                            : proto_proc.node_of[comm_world_rank(c, c->rank)];
    /* on an intercommunicator: local and remote processes of one host, as MPICH */
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? comm_inter_split(c, color, key, &n)
                                         : comm_split(c, color, key, &n));
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    MPI_END();
}

RM_ALIAS(Comm_create)
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_create");
    comm_t *c, *n;
    group_t *g;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (!(g = group_get(group)))
        MPI_FAIL(c, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)group);
    int me = comm_world_rank(c, c->rank), member = 0;
    for (int i = 0; i < g->size; i++) {
        int in_parent = 0;
        for (int j = 0; j < c->size && !in_parent; j++)
            in_parent = c->group->world[j] == g->world[i];
        if (!in_parent)
            MPI_FAIL(c, MPI_ERR_GROUP, "group member %d is not in the communicator", i);
        member |= g->world[i] == me;
    }
    if (comm_is_inter(c)) {
        MPI_CHECK_STATUS(c, comm_inter_create_sub(c, g, &n));
        *newcomm = n ? n->handle : MPI_COMM_NULL;
        goto fn_exit;
    }
    group_t *ng = member ? comm_group_copy(g) : NULL;
    if (member && !ng)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    rm_status_t st = comm_create_from(c, ng, &n);
    if (st < 0 && ng)
        group_release(ng);
    MPI_CHECK_STATUS(c, st);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    MPI_END();
}

RM_ALIAS(Comm_free)
int PMPI_Comm_free(MPI_Comm *comm)
{
    MPI_BEGIN("MPI_Comm_free");
    comm_t *c;
    CHECK_ARG(NULL, comm, "comm is NULL");
    CHECK_COMM(c, *comm);
    if (c == comm_world || c == comm_self)
        MPI_FAIL(c, MPI_ERR_COMM, "cannot free %s", c->name);
    if (c->attrs) {
        /* the delete callbacks run now, even while operations in flight
         * hold the object (MPI-3.1 6.7.2: invoked by MPI_COMM_FREE); a
         * failing one fails the call with the communicator left in place,
         * its attributes gone, as MPICH does */
        if ((err = attr_delete_all(&c->attrs, ATTR_COMM, *comm)) != MPI_SUCCESS)
            MPI_FAIL(c, err, "an attribute delete callback returned %d", err);
    }
    comm_release(c); /* pending operations hold their own references */
    *comm = MPI_COMM_NULL;
    MPI_END();
}

int comm_group_compare(const group_t *a, const group_t *b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size; i++)
        same_order &= a->world[i] == b->world[i];
    if (same_order)
        return MPI_IDENT;
    for (int i = 0; i < a->size; i++) {
        int found = 0;
        for (int j = 0; j < b->size && !found; j++)
            found = a->world[i] == b->world[j];
        if (!found)
            return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

RM_ALIAS(Comm_compare)
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    MPI_BEGIN("MPI_Comm_compare");
    comm_t *a, *b;
    CHECK_COMM(a, comm1);
    CHECK_COMM(b, comm2);
    CHECK_ARG(a, result, "result is NULL");
    if (a == b) {
        *result = MPI_IDENT;
    } else if (comm_is_inter(a) != comm_is_inter(b)) {
        *result = MPI_UNEQUAL;
    } else {
        int g = comm_group_compare(a->group, b->group);
        /* intercommunicators: the local and the remote groups both count */
        int r = comm_is_inter(a) ? comm_group_compare(a->remote_group, b->remote_group) : MPI_IDENT;
        if (g == MPI_UNEQUAL || r == MPI_UNEQUAL)
            *result = MPI_UNEQUAL;
        else if (g == MPI_SIMILAR || r == MPI_SIMILAR)
            *result = MPI_SIMILAR;
        else
            *result = MPI_CONGRUENT;
    }
    MPI_END();
}

RM_ALIAS(Comm_set_name)
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    MPI_BEGIN("MPI_Comm_set_name");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, comm_name, "comm_name is NULL");
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    MPI_END();
}

RM_ALIAS(Comm_get_name)
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    MPI_BEGIN("MPI_Comm_get_name");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, comm_name && resultlen, "comm_name or resultlen is NULL");
    strcpy(comm_name, c->name);
    *resultlen = (int)strlen(comm_name);
    MPI_END();
}

RM_ALIAS(Comm_group)
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_BEGIN("MPI_Comm_group");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, group, "group is NULL");
    group_t *g = comm_group_copy(c->group);
    if (!g || !group_register(g)) {
        group_release(g);
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    }
    g->bshare = proto_bsend_share_hold(c->bshare); /* a session's communicator: a group of the session */
    g->rank = c->rank;
    *group = g->handle;
    MPI_END();
}

/* ---- groups ------------------------------------------------------------ */

#define CHECK_GROUP(g, h)                                                            \
    do {                                                                             \
        if (!((g) = group_get(h)))                                                   \
            MPI_FAIL(NULL, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)(h));      \
    } while (0)

static int group_rank_of(const group_t *g, int world)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == world)
            return i;
    return MPI_UNDEFINED;
}

/* Publish a group built from a list of world ranks. */
/* A new group of these processes; one made from a session's group belongs
 * to that session (from: the group it was made from). */
static int group_publish(const char *fn_name_, const int *world, int n, const group_t *from, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    group_t *g = group_new(n, 0);
    if (!g || !group_register(g)) {
        group_release(g);
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    }
    memcpy(g->world, world, sizeof(int) * (size_t)n);
    g->bshare = proto_bsend_share_hold(from->bshare);
    g->rank = group_rank_of(g, proto_proc.world_rank);
    *out = g->handle;
    return MPI_SUCCESS;
}

RM_ALIAS(Group_size)
int PMPI_Group_size(MPI_Group group, int *size)
{
    MPI_BEGIN("MPI_Group_size");
    group_t *g;
    CHECK_GROUP(g, group);
    CHECK_ARG(NULL, size, "size is NULL");
    *size = g->size;
    MPI_END();
}

RM_ALIAS(Group_rank)
int PMPI_Group_rank(MPI_Group group, int *rank)
{
    MPI_BEGIN("MPI_Group_rank");
    group_t *g;
    CHECK_GROUP(g, group);
    CHECK_ARG(NULL, rank, "rank is NULL");
    *rank = group_rank_of(g, proto_proc.world_rank);
    MPI_END();
}

RM_ALIAS(Group_translate_ranks)
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    MPI_BEGIN("MPI_Group_translate_ranks");
    group_t *a, *b;
    CHECK_GROUP(a, group1);
    CHECK_GROUP(b, group2);
    CHECK_COUNT(NULL, n);
    CHECK_ARG(NULL, n == 0 || (ranks1 && ranks2), "ranks array is NULL");
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            MPI_FAIL(NULL, MPI_ERR_RANK, "rank %d not in group of size %d", ranks1[i], a->size);
        ranks2[i] = group_rank_of(b, a->world[ranks1[i]]);
    }
    MPI_END();
}

RM_ALIAS(Group_compare)
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    MPI_BEGIN("MPI_Group_compare");
    group_t *a, *b;
    CHECK_GROUP(a, group1);
    CHECK_GROUP(b, group2);
    CHECK_ARG(NULL, result, "result is NULL");
    *result = comm_group_compare(a, b);
    MPI_END();
}

/* union (op 0), intersection (1), difference (2), in group1's order then group2's */
static int group_setop(const char *fn_name_, MPI_Group group1, MPI_Group group2, int op,
                       MPI_Group *newgroup)
{
    MPI_BEGIN_SHARED();
    group_t *a, *b;
    CHECK_GROUP(a, group1);
    CHECK_GROUP(b, group2);
    CHECK_ARG(NULL, newgroup, "newgroup is NULL");
    int *out = malloc(sizeof(int) * (size_t)(a->size + b->size + 1)), n = 0;
    if (!out)
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < a->size; i++) {
        int inb = group_rank_of(b, a->world[i]) != MPI_UNDEFINED;
        if (op == 0 || (op == 1 && inb) || (op == 2 && !inb))
            out[n++] = a->world[i];
    }
    if (op == 0)
        for (int i = 0; i < b->size; i++)
            if (group_rank_of(a, b->world[i]) == MPI_UNDEFINED)
                out[n++] = b->world[i];
    err = group_publish(fn_name_, out, n, a->bshare ? a : b, newgroup);
    free(out);
    MPI_END();
}

RM_ALIAS(Group_union)
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_union", group1, group2, 0, newgroup);
}

RM_ALIAS(Group_intersection)
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_intersection", group1, group2, 1, newgroup);
}

RM_ALIAS(Group_difference)
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop("MPI_Group_difference", group1, group2, 2, newgroup);
}

/* incl (excl = 0) or excl of an explicit rank list */
static int group_select(const char *fn_name_, MPI_Group group, int n, const int *ranks, int excl,
                        MPI_Group *newgroup)
{
    MPI_BEGIN_SHARED();
    group_t *g;
    CHECK_GROUP(g, group);
    CHECK_COUNT(NULL, n);
    CHECK_ARG(NULL, newgroup && (n == 0 || ranks), "NULL argument");
    if (n > g->size)
        MPI_FAIL(NULL, MPI_ERR_ARG, "%d ranks for a group of %d", n, g->size);
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);
    int *out = malloc(sizeof(int) * (size_t)(g->size + 1)), k = 0;
    if (!seen || !out) {
        free(seen);
        free(out);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            int bad = ranks[i];
            free(seen);
            free(out);
            MPI_FAIL(NULL, MPI_ERR_RANK, "rank %d is out of range or repeated", bad);
        }
        seen[ranks[i]] = 1;
        if (!excl)
            out[k++] = g->world[ranks[i]];
    }
    if (excl)
        for (int i = 0; i < g->size; i++)
            if (!seen[i])
                out[k++] = g->world[i];
    err = group_publish(fn_name_, out, k, g, newgroup);
    free(seen);
    free(out);
    MPI_END();
}

RM_ALIAS(Group_incl)
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_select("MPI_Group_incl", group, n, ranks, 0, newgroup);
}

RM_ALIAS(Group_excl)
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return group_select("MPI_Group_excl", group, n, ranks, 1, newgroup);
}

static int group_range(const char *fn_name_, MPI_Group group, int n, int ranges[][3], int excl,
                       MPI_Group *newgroup)
{
    group_t *g = group_get(group);
    if (!g)
        return mpi_err_raise(NULL, MPI_ERR_GROUP, fn_name_, "invalid group 0x%x", (unsigned)group);
    if (n < 0 || (n && !ranges))
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name_, "invalid ranges");
    int *list = malloc(sizeof(int) * (size_t)(g->size + 1)), k = 0;
    if (!list)
        return mpi_err_raise(NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size) {
            free(list);
            return mpi_err_raise(NULL, MPI_ERR_RANK, fn_name_, "invalid range %d", i);
        }
        for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
            if (k >= g->size) {
                free(list);
                return mpi_err_raise(NULL, MPI_ERR_RANK, fn_name_, "ranges repeat a rank");
            }
            list[k++] = r;
        }
    }
    int rc = (excl ? PMPI_Group_excl : PMPI_Group_incl)(group, k, list, newgroup);
    free(list);
    return rc;
}

RM_ALIAS(Group_range_incl)
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_incl", group, n, ranges, 0, newgroup);
}

RM_ALIAS(Group_range_excl)
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return group_range("MPI_Group_range_excl", group, n, ranges, 1, newgroup);
}

RM_ALIAS(Group_free)
int PMPI_Group_free(MPI_Group *group)
{
    MPI_BEGIN("MPI_Group_free");
    group_t *g;
    CHECK_ARG(NULL, group, "group is NULL");
    CHECK_GROUP(g, *group);
    group_release(g);
    *group = MPI_GROUP_NULL;
    MPI_END();
}

RM_ALIAS(Comm_c2f)
MPI_Fint PMPI_Comm_c2f(MPI_Comm comm)
{
    return (MPI_Fint)comm;
}

RM_ALIAS(Comm_f2c)
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm)
{
    return (MPI_Comm)comm;
}

RM_ALIAS(Group_c2f)
MPI_Fint PMPI_Group_c2f(MPI_Group group)
{
    return (MPI_Fint)group;
}

RM_ALIAS(Group_f2c)
MPI_Group PMPI_Group_f2c(MPI_Fint group)
{
    return (MPI_Group)group;
}
