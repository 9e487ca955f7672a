/* Request objects: handles from a table, memory from a free list, ids on
 * the wire that carry a generation so a stale id never finds a new request. */
#include "proto/proto.h"
#include "util/handle.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

static rm_htable_t proto_req_table = RM_HTABLE_INIT(RM_HOBJ_REQUEST, 0);
static request_t *proto_req_free;
static uint32_t proto_req_gen;

request_t *proto_request_alloc(int kind)
{
    request_t *r = proto_req_free;
    if (r)
        proto_req_free = r->next;
    else if (!(r = malloc(sizeof *r)))
        return NULL;
    memset(r, 0, sizeof *r);
    r->handle = rm_htable_alloc(&proto_req_table, r);
    if (!r->handle) {
        free(r);
        return NULL;
    }
    r->kind = (uint8_t)kind;
    r->refs = 1;
    r->id = ((uint64_t)++proto_req_gen << 32) | (uint32_t)RM_HANDLE_INDEX(r->handle);
    r->status.MPI_ERROR = MPI_SUCCESS;
    return r;
}

request_t *proto_request_get(MPI_Request h)
{
    return rm_htable_get(&proto_req_table, h);
}

request_t *proto_request_by_id(uint64_t id)
{
    int idx = (int)(uint32_t)id;
    if (idx >= proto_req_table.used)
        return NULL;
    request_t *r = proto_req_table.slots[idx];
    return r && r->id == id ? r : NULL;
}

static void proto_request_destroy(request_t *r)
{
    if (r->dt)
        dtype_release(r->dt);
    if (r->comm)
        comm_release(r->comm);
    free(r->tmp);
    rm_htable_free(&proto_req_table, r->handle);
    r->handle = 0;
    r->id = 0;
    r->next = proto_req_free;
    proto_req_free = r;
}

void proto_request_release(request_t *r)
{
    if (--r->refs == 0)
        proto_request_destroy(r);
}

void proto_request_complete(request_t *r)
{
    /* persistent requests stay active until a completion call reports them */
    r->done = 1;
    proto_request_release(r); /* the in-flight reference */
}

void proto_request_cleanup(void)
{
    while (proto_req_free) {
        request_t *r = proto_req_free;
        proto_req_free = r->next;
        free(r);
    }
    rm_htable_destroy(&proto_req_table);
}
