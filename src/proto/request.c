/* Request objects: handles from a table, memory from a free list, ids on
 * the wire that carry a generation so a stale id never finds a new request. */
#include "proto/engine.h"
#include "util/copy.h"
#include "util/handle.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

static rm_htable_t proto_req_table = RM_HTABLE_INIT(RM_HOBJ_REQUEST, 0);
static request_t *proto_req_free;
static uint32_t proto_req_gen;

/* A freed request keeps its table slot and handle: reuse costs no table
 * work. Its kind is 0 while it sits on the free list, so a stale handle is
 * still refused. */
request_t *proto_request_alloc(int kind)
{
    request_t *r = proto_req_free;
    int handle;
    if (r) {
        proto_req_free = r->next;
        handle = r->handle;
    } else {
        if (!(r = malloc(sizeof *r)))
            return NULL;
        if (!(handle = rm_htable_alloc(&proto_req_table, r))) {
            free(r);
            return NULL;
        }
    }
    rm_zero(r, sizeof *r);
    r->handle = handle;
    r->kind = (uint8_t)kind;
    r->refs = 1;
    r->id = ((uint64_t)++proto_req_gen << 32) | (uint32_t)RM_HANDLE_INDEX(r->handle);
    r->status.MPI_ERROR = MPI_SUCCESS;
    return r;
}

request_t *proto_request_get(MPI_Request h)
{
    request_t *r = rm_htable_get(&proto_req_table, h);
    return r && r->kind ? r : NULL;
}

request_t *proto_request_by_id(uint64_t id)
{
    int idx = (int)(uint32_t)id;
    if (idx >= proto_req_table.used)
        return NULL;
    request_t *r = proto_req_table.slots[idx];
    return r && r->kind && r->id == id ? r : NULL;
}

void proto_request_destroy(request_t *r)
{
    if (r->dt && !r->dt->builtin)
        dtype_release(r->dt);
    if (r->comm)
        comm_release(r->comm);
    if (r->inner)
        proto_request_release(r->inner);
    r->inner = NULL;
    if (r->rdma)
        proto_rdma_release(r);
    if (r->part)
        proto_part_release(r);
    free(r->tmp);
    r->tmp = NULL;
    r->kind = 0;
    r->id = 0;
    r->next = proto_req_free;
    proto_req_free = r;
}

void proto_request_complete(request_t *r)
{
    if (r->rdma)
        proto_rdma_release(r); /* no remote write lands in a completed receive */
    /* persistent requests stay active until a completion call reports them;
     * a send being cancelled completes only with the receiver's answer,
     * which decides whether it was cancelled */
    if (r->cancel_pending)
        r->cancel_held = 1;
    else
        r->done = 1;
    proto_request_release(r); /* the in-flight reference */
}

void proto_request_foreach(void (*fn)(request_t *r, void *arg), void *arg)
{
    for (int i = 0; i < proto_req_table.used; i++) {
        request_t *r = proto_req_table.slots[i];
        if (r && r->kind)
            fn(r, arg);
    }
}

void proto_request_cleanup(void)
{
    /* every request object has a slot: live ones the application never
     * completed, and recycled ones */
    for (int i = 0; i < proto_req_table.used; i++)
        free(proto_req_table.slots[i]);
    proto_req_free = NULL;
    rm_htable_destroy(&proto_req_table);
}
