#include "net/net.h"
#include "util/log.h"

#include <string.h>

static const net_ops_t *const net_transports[] = {
    &net_self_ops,
    &net_shm_ops,
    &net_tcp_ops,
    &net_ofi_ops,
};

rm_status_t net_transport_check(const net_ops_t *ops)
{
#define NET_REQUIRE(op)                                                              \
    if (!ops->op) {                                                                  \
        rm_log_error("transport %s lacks mandatory op '%s'", ops->name ? ops->name : "?", #op);        \
        return RM_ERR_INTERNAL;                                                      \
    }
    NET_REQUIRE(name);
    NET_REQUIRE(query);
    NET_REQUIRE(open);
    NET_REQUIRE(close);
    NET_REQUIRE(addr_pack);
    NET_REQUIRE(connect);
    NET_REQUIRE(send);
    NET_REQUIRE(progress);
    NET_REQUIRE(path_close);
    NET_REQUIRE(max_payload);
    if ((ops->caps & NET_CAP_LOCAL) && !ops->read_remote) {
        rm_log_error("transport %s advertises LOCAL without read_remote", ops->name);
        return RM_ERR_INTERNAL;
    }
#undef NET_REQUIRE
    return RM_OK;
}

const net_ops_t *net_transport_find(const char *name)
{
    for (size_t i = 0; i < sizeof net_transports / sizeof net_transports[0]; i++) {
        if (!strcmp(net_transports[i]->name, name))
            return net_transport_check(net_transports[i]) == RM_OK ? net_transports[i] : NULL;
    }
    return NULL;
}
