/* self: a rank talking to itself. Frames are queued and delivered from
 * progress, never from inside send, so upcalls never recurse. */
#include "net/net.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

typedef struct self_frame {
    struct self_frame *next;
    net_frame_hdr_t hdr;
    unsigned char upper[NET_UPPER_MAX];
    unsigned char payload[];
} self_frame_t;

struct net_path {
    void *owner;
};

struct net_iface {
    net_env_t env;
    struct net_path path;
    self_frame_t *head, *tail;
    int queued;
};

static int self_query(const net_env_t *env)
{
    (void)env;
    return 1;
}

static rm_status_t self_open(const net_env_t *env, int dev, net_iface_t **out)
{
    net_iface_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc)
        return RM_ERR_NOMEM;
    ifc->env = *env;
    *out = ifc;
    return RM_OK;
}

static void self_close(net_iface_t *ifc)
{
    while (ifc->head) {
        self_frame_t *f = ifc->head;
        ifc->head = f->next;
        free(f);
    }
    free(ifc);
}

static rm_status_t self_addr_pack(net_iface_t *ifc, char *buf, size_t len)
{
    if (len < 5)
        return RM_ERR_INVALID;
    strcpy(buf, "self");
    return RM_OK;
}

static rm_status_t self_connect(net_iface_t *ifc, int peer, const char *peer_addr, void *owner,
                                net_path_t **out)
{
    if (peer != ifc->env.world_rank)
        return RM_ERR_UNREACHABLE;
    ifc->path.owner = owner;
    *out = &ifc->path;
    return RM_OK;
}

static net_iface_t *self_iface_of(net_path_t *p)
{
    return (net_iface_t *)((char *)p - offsetof(net_iface_t, path));
}

static rm_status_t self_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                             const struct iovec *iov, int iovcnt)
{
    net_iface_t *ifc = self_iface_of(p);
    self_frame_t *f = malloc(sizeof *f + hdr->len);
    if (!f)
        return RM_ERR_NO_RESOURCE;
    f->next = NULL;
    f->hdr = *hdr;
    memcpy(f->upper, upper, hdr->hlen);
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(f->payload + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    if (ifc->tail)
        ifc->tail->next = f;
    else
        ifc->head = f;
    ifc->tail = f;
    ifc->queued++;
    return RM_OK;
}

static int self_progress(net_iface_t *ifc)
{
    /* deliver only what was queued before this pass: upcalls may queue more */
    self_frame_t *last = ifc->tail;
    int n = 0;
    while (ifc->head) {
        self_frame_t *f = ifc->head;
        ifc->head = f->next;
        if (!ifc->head)
            ifc->tail = NULL;
        int was_last = f == last;
        ifc->queued--;
        ifc->env.up.recv(ifc->path.owner, 0, &f->hdr, f->upper, f->payload);
        free(f);
        n++;
        if (was_last)
            break;
    }
    return n;
}

static void self_path_close(net_path_t *p)
{
    (void)p;
}

static rm_status_t self_read_remote(net_path_t *p, void *dst, uint64_t remote_addr, size_t len)
{
    memcpy(dst, (const void *)(uintptr_t)remote_addr, len);
    return RM_OK;
}

static const int *self_work_hint(net_iface_t *ifc)
{
    return &ifc->queued;
}

static size_t self_max_payload(net_iface_t *ifc)
{
    return (size_t)1 << 30;
}

const net_ops_t net_self_ops = {
    .name = "self",
    .caps = NET_CAP_RELIABLE | NET_CAP_LOCAL,
    .query = self_query,
    .open = self_open,
    .close = self_close,
    .addr_pack = self_addr_pack,
    .connect = self_connect,
    .send = self_send,
    .progress = self_progress,
    .path_close = self_path_close,
    .read_remote = self_read_remote,
    .max_payload = self_max_payload,
    .work_hint = self_work_hint,
};
