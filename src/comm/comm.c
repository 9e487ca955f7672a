/* Communicators and groups. A communicator is a group plus a context id that
 * all its members agree on (src/comm/ctxid.c: masks of free ids ANDed over
 * the parent), so creation needs no central authority. */
#include "coll/coll.h"
#include "coll/op.h"
#include "comm/attr.h"
#include "comm/comm.h"
#include "comm/ctxid.h"
#include "comm/topo.h"
#include "proto/proto.h"
#include "util/handle.h"

#include <stdlib.h>
#include <string.h>

comm_t *comm_world, *comm_self;
group_t *group_empty;
static comm_t comm_world_obj, comm_self_obj;
static group_t group_empty_obj;
static rm_htable_t comm_table = RM_HTABLE_INIT(RM_HOBJ_COMM, 0);
static rm_htable_t group_table = RM_HTABLE_INIT(RM_HOBJ_GROUP, 0);
/* usable before MPI_Init: the initial error handler and MPI_Session_init's argument */
static errhandler_t errh_fatal = {.handle = MPI_ERRORS_ARE_FATAL, .refcount = 1, .builtin = 1, .kind = 0};
static errhandler_t errh_return = {.handle = MPI_ERRORS_RETURN, .refcount = 1, .builtin = 1, .kind = 1};
static errhandler_t errh_abort = {.handle = MPI_ERRORS_ABORT, .refcount = 1, .builtin = 1, .kind = 0};
static rm_htable_t errh_table = RM_HTABLE_INIT(RM_HOBJ_ERRHANDLER, 0);

/* ---- groups ------------------------------------------------------------ */

group_t *group_new(int size, int my_world_rank)
{
    group_t *g = calloc(1, sizeof *g);
    if (!g || !(g->world = malloc(sizeof(int) * (size_t)(size ? size : 1)))) {
        free(g);
        return NULL;
    }
    g->size = size;
    g->rank = MPI_UNDEFINED;
    g->refcount = 1;
    (void)my_world_rank;
    return g;
}

group_t *group_register(group_t *g)
{
    g->handle = rm_htable_alloc(&group_table, g);
    return g->handle ? g : NULL;
}

void group_release(group_t *g)
{
    if (!g || g == group_empty || --g->refcount > 0)
        return;
    if (g->handle)
        rm_htable_free(&group_table, g->handle);
    proto_bsend_share_drop(g->bshare);
    free(g->world);
    free(g);
}

group_t *group_get(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY)
        return group_empty;
    return rm_htable_get(&group_table, h);
}

/* ---- error handlers ---------------------------------------------------- */

errhandler_t *errhandler_get(MPI_Errhandler h)
{
    if (h == MPI_ERRORS_ARE_FATAL)
        return &errh_fatal;
    if (h == MPI_ERRORS_RETURN)
        return &errh_return;
    if (h == MPI_ERRORS_ABORT)
        return &errh_abort;
    return rm_htable_get(&errh_table, h);
}

errhandler_t *errhandler_create(MPI_Comm_errhandler_function *fn)
{
    errhandler_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->kind = 2;
    e->fn = fn;
    e->refcount = 1;
    e->handle = rm_htable_alloc(&errh_table, e);
    if (!e->handle) {
        free(e);
        return NULL;
    }
    return e;
}

void errhandler_release(errhandler_t *e)
{
    if (!e || e->builtin || --e->refcount > 0)
        return;
    rm_htable_free(&errh_table, e->handle);
    free(e);
}

/* The initial error handler (MPI-4.1 9.3): for errors tied to no object
 * before MPI_Init, after MPI_Finalize and in a program of sessions only, and
 * the handler MPI_COMM_WORLD and MPI_COMM_SELF start with. */
static errhandler_t *errh_initial = &errh_fatal;

errhandler_t *errhandler_initial(void)
{
    return errh_initial;
}

void errhandler_set_initial(errhandler_t *e)
{
    if (!e->builtin)
        e->refcount++;
    errhandler_release(errh_initial);
    errh_initial = e;
}

void comm_set_errhandler(comm_t *c, errhandler_t *e)
{
    if (!e->builtin)
        e->refcount++;
    errhandler_release(c->errh);
    c->errh = e;
}

/* ---- communicators ----------------------------------------------------- */

static void comm_setup(comm_t *c, group_t *g, int id, int my_world)
{
    c->refcount = 1;
    c->ctx = (uint32_t)id * 2;
    proto_ft_agree_unpark(c->ctx); /* a freed communicator's decision is not this one's */
    c->group = g;
    c->size = g->size;
    c->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == my_world)
            c->rank = i;
    g->rank = c->rank;
    c->errh = &errh_fatal;
}

rm_status_t comm_init(int world_rank, int world_size)
{
    ctxid_init();
    group_empty_obj = (group_t){.handle = MPI_GROUP_EMPTY, .refcount = 1, .size = 0, .rank = MPI_UNDEFINED};
    group_empty = &group_empty_obj;

    group_t *gw = group_new(world_size, world_rank), *gs = group_new(1, world_rank);
    if (!gw || !gs)
        return RM_ERR_NOMEM;
    for (int i = 0; i < world_size; i++)
        gw->world[i] = i;
    gs->world[0] = world_rank;
    comm_world = &comm_world_obj;
    comm_self = &comm_self_obj;
    memset(comm_world, 0, sizeof *comm_world);
    memset(comm_self, 0, sizeof *comm_self);
    comm_setup(comm_world, gw, 0, world_rank);
    comm_setup(comm_self, gs, 1, world_rank);
    ctxid_reserve(0);
    ctxid_reserve(1);
    comm_world->handle = MPI_COMM_WORLD;
    comm_self->handle = MPI_COMM_SELF;
    /* both start with the initial error handler (MPI-4.1 9.3) */
    comm_set_errhandler(comm_world, errh_initial);
    comm_set_errhandler(comm_self, errh_initial);
    strcpy(comm_world->name, "MPI_COMM_WORLD");
    strcpy(comm_self->name, "MPI_COMM_SELF");
    return RM_OK;
}

void comm_hints_free(comm_hint_t **h)
{
    while (*h) {
        comm_hint_t *n = (*h)->next;
        free((*h)->key);
        free((*h)->val);
        free(*h);
        *h = n;
    }
}

rm_status_t comm_hints_copy(const comm_hint_t *from, comm_hint_t **to)
{
    comm_hint_t **tail = to;
    while (*tail)
        tail = &(*tail)->next;
    for (; from; from = from->next) {
        comm_hint_t *n = calloc(1, sizeof *n);
        if (!n || !(n->key = strdup(from->key)) || !(n->val = strdup(from->val))) {
            if (n)
                free(n->key);
            free(n);
            return RM_ERR_NOMEM;
        }
        *tail = n;
        tail = &n->next;
    }
    return RM_OK;
}

static void comm_destroy(comm_t *c)
{
    proto_ft_agree_park(c); /* survivors may still ask for its last agreement */
    if (c->attrs)
        attr_delete_all(&c->attrs, ATTR_COMM, c->handle);
    topo_free(c->topo);
    c->topo = NULL;
    free(c->hosts);
    c->hosts = NULL;
    coll_shm_free(c);
    comm_hints_free(&c->hints);
    proto_bsend_orphan(&c->bsend);
    proto_bsend_share_drop(c->bshare);
    c->bshare = NULL;
    errhandler_release(c->errh);
    group_release(c->group);
    group_release(c->remote_group);
    if (c->local_comm)
        comm_release(c->local_comm);
    ctxid_release((int)(c->ctx / 2));
    if (c != comm_world && c != comm_self) {
        if (c->handle)
            rm_htable_free(&comm_table, c->handle);
        free(c);
    }
}

void comm_finalize(void)
{
    for (int i = 0; i < comm_table.used; i++) {
        comm_t *c = comm_table.slots[i];
        if (c) {
            c->refcount = 1;
            comm_destroy(c);
        }
    }
    rm_htable_destroy(&comm_table);
    comm_destroy(comm_self);
    comm_destroy(comm_world);
    for (int i = 0; i < group_table.used; i++) {
        group_t *g = group_table.slots[i];
        if (g) {
            free(g->world);
            free(g);
        }
    }
    rm_htable_destroy(&group_table);
    for (int i = 0; i < errh_table.used; i++)
        if (errh_table.slots[i] != errh_initial) /* it takes the errors after MPI_Finalize */
            free(errh_table.slots[i]);
    rm_htable_destroy(&errh_table);
    comm_world = comm_self = NULL;
}

comm_t *comm_get(MPI_Comm h)
{
    if (h == MPI_COMM_WORLD)
        return comm_world;
    if (h == MPI_COMM_SELF)
        return comm_self;
    return rm_htable_get(&comm_table, h);
}

comm_t *comm_by_ctx(uint32_t ctx)
{
    if (comm_world && comm_world->ctx == ctx)
        return comm_world;
    if (comm_self && comm_self->ctx == ctx)
        return comm_self;
    for (int i = 0; i < comm_table.used; i++) {
        comm_t *c = comm_table.slots[i];
        if (c && c->ctx == ctx)
            return c;
    }
    return NULL;
}

void comm_release(comm_t *c)
{
    if (--c->refcount == 0)
        comm_destroy(c);
}

/* A communicator on an agreed id; `handle` 0 keeps it internal (the local
 * communicator of an intercommunicator), which the handle table never sees. */
rm_status_t comm_new(group_t *g, group_t *remote, int id, errhandler_t *errh, int handle,
                     comm_t **out)
{
    comm_t *c = calloc(1, sizeof *c);
    if (!c) {
        ctxid_release(id);
        return RM_ERR_NOMEM;
    }
    comm_setup(c, g, id, proto_proc.world_rank);
    if (handle && !(c->handle = rm_htable_alloc(&comm_table, c))) {
        ctxid_release(id);
        free(c);
        return RM_ERR_NOMEM;
    }
    c->remote_group = remote;
    c->bshare = proto_bsend_share_hold(g->bshare);
    comm_set_errhandler(c, errh);
    *out = c;
    return RM_OK;
}

/* A communicator derived from another belongs to the same session. */
rm_status_t comm_inherit(comm_t *parent, rm_status_t st, comm_t **out)
{
    if (st >= 0 && *out && !(*out)->bshare)
        (*out)->bshare = proto_bsend_share_hold(parent->bshare);
    return st;
}

rm_status_t comm_create_from(comm_t *parent, group_t *members, comm_t **out)
{
    return comm_create_internal(parent, members, 1, out);
}

rm_status_t comm_create_internal(comm_t *parent, group_t *members, int handle, comm_t **out)
{
    int id;
    *out = NULL;
    rm_status_t st = ctxid_alloc(parent, members != NULL, 1, &id);
    if (st < 0 || !members)
        return st;
    return comm_inherit(parent, comm_new(members, NULL, id, parent->errh, handle, out), out);
}

rm_status_t comm_create_with_id(comm_t *parent, group_t *members, int id, comm_t **out)
{
    return comm_inherit(parent, comm_new(members, NULL, id, parent->errh, 1, out), out);
}

rm_status_t comm_split(comm_t *parent, int color, int key, comm_t **out)
{
    int n = parent->size;
    int mine[2] = {color, key};
    int *all = malloc(sizeof(int) * 2 * (size_t)n);
    if (!all)
        return RM_ERR_NOMEM;
    rm_status_t st = coll_allgather(mine, 2, dtype_get(MPI_INT), all, 2, dtype_get(MPI_INT), parent);
    if (st < 0) {
        free(all);
        return st;
    }
    group_t *g = NULL;
    if (color != MPI_UNDEFINED) {
        int cnt = 0;
        for (int r = 0; r < n; r++)
            cnt += all[2 * r] == color;
        g = group_new(cnt, 0);
        int *order = malloc(sizeof(int) * (size_t)(cnt ? cnt : 1));
        if (!g || !order) {
            free(order);
            group_release(g);
            free(all);
            return RM_ERR_NOMEM;
        }
        int k = 0;
        for (int r = 0; r < n; r++)
            if (all[2 * r] == color)
                order[k++] = r;
        /* stable insertion sort by key; ties keep the parent's rank order */
        for (int i = 1; i < cnt; i++) {
            int v = order[i], j = i - 1;
            while (j >= 0 && all[2 * order[j] + 1] > all[2 * v + 1]) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = v;
        }
        for (int i = 0; i < cnt; i++)
            g->world[i] = comm_world_rank(parent, order[i]);
        free(order);
    }
    free(all);
    st = comm_create_from(parent, g, out);
    if (st < 0 || !*out)
        group_release(g);
    return st;
}
