/* Loading libfabric (it is opened, not linked) and finding the rails: one
 * per provider domain that reaches other hosts, matched across hosts by
 * fabric name (docs/transport-ofi.md). */
#include "net/ofi_impl.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ofi_lib_t ofi_lib;

int ofi_load(void)
{
    if (ofi_lib.tried)
        return ofi_lib.ok;
    ofi_lib.tried = 1;
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        rm_log_error("ofi: cannot load libfabric (RAILMPI_NET=ofi): %s", dlerror());
        return 0;
    }
    *(void **)&ofi_lib.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&ofi_lib.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&ofi_lib.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&ofi_lib.fabric = dlsym(h, "fi_fabric");
    *(void **)&ofi_lib.strerror = dlsym(h, "fi_strerror");
    ofi_lib.ok = ofi_lib.getinfo && ofi_lib.freeinfo && ofi_lib.dupinfo && ofi_lib.fabric && ofi_lib.strerror;
    if (!ofi_lib.ok)
        rm_log_error("ofi: libfabric lacks the entry points railmpi needs");
    return ofi_lib.ok;
}

/* Loading libfabric and its first fi_getinfo run the providers' libraries'
 * set-up, and libinfinipath (behind the psm provider) installs a backtrace
 * handler for SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV and SIGTERM there,
 * whichever provider is then chosen: mpiexec's SIGTERM, a Ctrl-C or a crash
 * would run it instead of what the program or the default set. Every
 * signal's disposition is taken before those calls and put back after them;
 * the handlers only print, no provider needs them. */
typedef struct {
    struct sigaction act[NSIG];
} ofi_signals_t;

static void ofi_signals_take(ofi_signals_t *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sigaction(sig, NULL, &s->act[sig]))
            s->act[sig].sa_handler = SIG_ERR; /* not a signal this process may catch */
}

static void ofi_signals_put_back(const ofi_signals_t *s)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (s->act[sig].sa_handler == SIG_ERR || sigaction(sig, NULL, &now) ||
            (now.sa_handler == s->act[sig].sa_handler && now.sa_flags == s->act[sig].sa_flags))
            continue;
        rm_log_debug("ofi: libfabric changed the action of signal %d (%s); put back", sig, strsignal(sig));
        sigaction(sig, &s->act[sig], NULL);
    }
}

/* ---- rail discovery ---------------------------------------------------- */

struct fi_info *ofi_rails[OFI_MAX_RAILS];
int ofi_rail_rma[OFI_MAX_RAILS];
int ofi_rail_ordered[OFI_MAX_RAILS]; /* has remote writes and places their bytes in order: the fast path */
int ofi_rail_mrecv[OFI_MAX_RAILS];   /* multi-receive buffers (FI_MULTI_RECV) */
int ofi_nrails = -1;

/* A provider that carries remote writes in TCP streams (tcp, sockets). */
int ofi_prov_streams(const char *prov)
{
    return strstr(prov, "tcp") || strstr(prov, "sockets");
}

/* Providers that reach no other host, or only as a fallback of last resort. */
static int ofi_local_only(const char *prov)
{
    return !strcmp(prov, "shm") || !strcmp(prov, "sm2") || !strncmp(prov, "ofi_hook", 8) ||
           !strcmp(prov, "ofi_mrail");
}

static int ofi_fabric_skip(const struct fi_info *fi)
{
    const char *fab = fi->fabric_attr->name;
    if (!fab)
        return 1;
    /* link-local IPv6 and loopback "fabrics" of IP providers lead nowhere */
    if (!strncmp(fab, "fe80:", 5) || !strncmp(fab, "127.", 4) || !strcmp(fab, "::1/128"))
        return 1;
    const char *launch = RM_CFG_STR(launch_addr);
    struct in_addr net, ip;
    int prefix;
    if (*launch && rm_rail_cidr(fab, &net, &prefix) == 0 && inet_pton(AF_INET, launch, &ip) == 1 &&
        rm_rail_net(ip, prefix) == rm_rail_net(net, prefix))
        return 1; /* the launcher's management network */
    return 0;
}

static int ofi_listed(const struct fi_info *fi, const char *list)
{
    if (!list || !*list)
        return 1;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, fi->fabric_attr->name) || (fi->domain_attr->name && !strcmp(t, fi->domain_attr->name)))
            return 1;
    return 0;
}

static int ofi_rail_cmp(const void *a, const void *b)
{
    const struct fi_info *x = *(struct fi_info *const *)a, *y = *(struct fi_info *const *)b;
    return strcmp(x->fabric_attr->name, y->fabric_attr->name);
}

static struct fi_info *ofi_hints(const char *prov, int rma)
{
    struct fi_info *h = fi_dupinfo(NULL);
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_MSG | (rma ? FI_RMA | FI_WRITE | FI_REMOTE_WRITE : 0);
    h->mode = FI_CONTEXT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* Whether a write's bytes are placed in order, first to last, so that a
 * ring slot's closing tag arriving means the slot arrived (the RDMA fast
 * path). libfabric states no such order (FI_ORDER_DATA, which no provider
 * offers); it holds for InfiniBand and RoCE NICs, which place each packet
 * of a write in turn, for the providers that carry writes in a TCP stream
 * and for shared memory, not for iWARP, whose direct data placement puts
 * the segments of a write wherever they arrive. For verbs the protocol is
 * asked of the core provider, which rxm hides. */
static int ofi_places_in_order(const struct fi_info *fi)
{
    uint32_t proto = fi->ep_attr->protocol;
    if (proto == FI_PROTO_IWARP || proto == FI_PROTO_IWARP_RDM)
        return 0;
    if (!strstr(fi->fabric_attr->prov_name, "verbs"))
        return 1;
    struct fi_info *h = fi_dupinfo(NULL), *list = NULL;
    if (!h)
        return 0;
    h->ep_attr->type = FI_EP_MSG;
    h->fabric_attr->prov_name = strdup("verbs");
    int ordered = 0;
    if (!fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &list)) {
        for (struct fi_info *c = list; c; c = c->next)
            if (c->domain_attr->name && fi->domain_attr->name && !strcmp(c->domain_attr->name, fi->domain_attr->name))
                ordered = c->ep_attr->protocol != FI_PROTO_IWARP;
        fi_freeinfo(list);
    }
    fi_freeinfo(h);
    return ordered;
}

/* Rail i takes (a copy of) the description in list of its own domain and
 * fabric, asked again with more capabilities; 1 if it did. */
static int ofi_rail_take(int i, const struct fi_info *list)
{
    for (const struct fi_info *fi = list; fi; fi = fi->next) {
        if (!fi->domain_attr->name || strcmp(fi->domain_attr->name, ofi_rails[i]->domain_attr->name) ||
            strcmp(fi->fabric_attr->name, ofi_rails[i]->fabric_attr->name))
            continue;
        struct fi_info *dup = fi_dupinfo(fi);
        if (!dup)
            return 0;
        fi_freeinfo(ofi_rails[i]);
        ofi_rails[i] = dup;
        return 1;
    }
    return 0;
}

/* The rails again, asked with remote writes, which not every provider has:
 * a rail whose domain offers them takes that description instead (asked
 * for at first, they would have hidden the providers without). */
static void ofi_discover_rma(void)
{
    if (!ofi_nrails || (!RM_CFG(ofi_rma_min) && !RM_CFG(ofi_fast)))
        return;
    /* Providers that carry writes in TCP streams need the receiver to
     * renew its endpoint after some faults ("endpoint renewal" below),
     * which costs recovery time under load for no gain in rate there (the
     * copy path carries as much): with failover on they take the copy path
     * unless RAILMPI_OFI_RMA_STREAM=1. */
    const char *prov = ofi_rails[0]->fabric_attr->prov_name;
    int rndv = RM_CFG(ofi_rma_min) != 0;
    if (rndv && RM_CFG(ft) && !RM_CFG(ofi_rma_stream) && ofi_prov_streams(prov)) {
        rm_log_debug("ofi: provider %s carries remote writes in TCP streams: the copy path while failover is on "
                     "(RAILMPI_OFI_RMA_STREAM=1 for remote writes)", prov);
        rndv = 0;
    }
    struct fi_info *hints = ofi_hints(ofi_rails[0]->fabric_attr->prov_name, 1), *list = NULL;
    if (!hints)
        return;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc) {
        rm_log_debug("ofi: provider %s has no remote writes: the copy path only", ofi_rails[0]->fabric_attr->prov_name);
        return;
    }
    for (int i = 0; i < ofi_nrails; i++) {
        if (ofi_rail_take(i, list)) {
            ofi_rail_rma[i] = rndv;
            ofi_rail_ordered[i] = RM_CFG(ofi_fast) && ofi_places_in_order(ofi_rails[i]);
        }
    }
    fi_freeinfo(list);
}

/* Multi-receive buffers (FI_MULTI_RECV) where the rail's domain offers them,
 * asked as remote writes are (asked for at first, it would hide providers
 * without): the rail takes that description, with the caps it had. */
static void ofi_discover_mrecv(void)
{
    const char *want = RM_CFG_STR(ofi_multi_recv);
    if (!ofi_nrails || !strcmp(want, "0"))
        return;
    if (strcmp(want, "1") && strcmp(want, "auto")) {
        rm_log_warn("RAILMPI_OFI_MULTI_RECV=%s: expected auto, 1 or 0; taken as auto", want);
        want = "auto";
    }
    /* libfabric 1.17's ofi_rxm (tcp;ofi_rxm, verbs;ofi_rxm): when a rail's
     * connections fail it fails receives under way (FI_ECANCELED,
     * FI_ETIMEDOUT on a multi-receive buffer's messages), and with
     * multi-receive buffers tests/fault/ofi_switch_down.sh then met a message
     * with 64 corrupted bytes, frames with garbage headers and a rail that
     * never came back, in about 1 run of 8; none in 8 runs with one buffer
     * per message. Where inside the provider this comes from is not pinned
     * down; railmpi asks for them there only when told to (1). */
    if (!strcmp(want, "auto") && strstr(ofi_rails[0]->fabric_attr->prov_name, "ofi_rxm")) {
        rm_log_debug("ofi: provider %s: one posted buffer per message (its multi-receive is not safe "
                     "across connection failures; RAILMPI_OFI_MULTI_RECV=1 asks for it)",
                     ofi_rails[0]->fabric_attr->prov_name);
        return;
    }
    /* libfabric 1.17's shm provider offers FI_MULTI_RECV but dies in
     * fi_setopt(FI_OPT_MIN_MULTI_RECV) (a segmentation fault inside the
     * provider), without which a buffer's last message could be cut short */
    if (!strcmp(ofi_rails[0]->fabric_attr->prov_name, "shm")) {
        rm_log_debug("ofi: provider shm: one posted buffer per message (its multi-receive cannot be set up)");
        return;
    }
    for (int i = 0; i < ofi_nrails; i++) {
        struct fi_info *hints = ofi_hints(ofi_rails[i]->fabric_attr->prov_name, (ofi_rails[i]->caps & FI_RMA) != 0);
        struct fi_info *list = NULL;
        if (!hints)
            return;
        hints->caps |= FI_MULTI_RECV;
        int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
        fi_freeinfo(hints);
        if (rc) {
            rm_log_debug("ofi: provider %s has no multi-receive buffers", ofi_rails[i]->fabric_attr->prov_name);
            return;
        }
        ofi_rail_mrecv[i] = ofi_rail_take(i, list);
        fi_freeinfo(list);
    }
}

/* Every domain of the chosen provider, one rail each, ordered by fabric name
 * so that every host numbers the networks it shares alike. */
static int ofi_discover_rails(void)
{
    ofi_nrails = 0;
    if (!ofi_load())
        return 0;
    const char *want = RM_CFG_STR(ofi_provider);
    struct fi_info *hints = ofi_hints(want, 0), *list = NULL;
    if (!hints)
        return 0;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc) {
        rm_log_error("ofi: no provider%s%s offers reliable datagram messaging: %s", *want ? " named " : "",
                     want, fi_strerror(-rc));
        return 0;
    }
    /* the provider: the one asked for, else the first network provider the
     * library ranks highest (hardware before tcp) */
    const char *prov = NULL;
    for (struct fi_info *fi = list; fi && !prov; fi = fi->next)
        if (*want || !ofi_local_only(fi->fabric_attr->prov_name))
            prov = fi->fabric_attr->prov_name;
    for (struct fi_info *fi = list; fi && prov; fi = fi->next) {
        if (strcmp(fi->fabric_attr->prov_name, prov) || ofi_fabric_skip(fi) ||
            !ofi_listed(fi, RM_CFG_STR(ofi_rails)))
            continue;
        int dup = 0;
        for (int i = 0; i < ofi_nrails; i++)
            dup |= !strcmp(ofi_rails[i]->domain_attr->name, fi->domain_attr->name);
        if (dup || ofi_nrails == OFI_MAX_RAILS)
            continue;
        ofi_rails[ofi_nrails++] = fi_dupinfo(fi);
    }
    fi_freeinfo(list);
    qsort(ofi_rails, (size_t)ofi_nrails, sizeof ofi_rails[0], ofi_rail_cmp);
    ofi_discover_rma();
    ofi_discover_mrecv();
    for (int i = 0; i < ofi_nrails; i++)
        rm_log_debug("ofi: rail %d: provider %s, fabric %s, domain %s%s%s%s", i, ofi_rails[i]->fabric_attr->prov_name,
                     ofi_rails[i]->fabric_attr->name, ofi_rails[i]->domain_attr->name,
                     ofi_rail_rma[i] ? ", remote writes" : "", ofi_rail_ordered[i] ? ", RDMA fast path" : "",
                     ofi_rail_mrecv[i] ? ", multi-receive buffers" : "");
    return ofi_nrails;
}

int ofi_discover(void)
{
    if (ofi_nrails >= 0)
        return ofi_nrails;
    ofi_signals_t sigs;
    ofi_signals_take(&sigs);
    int n = ofi_discover_rails();
    ofi_signals_put_back(&sigs);
    return n;
}

int ofi_query(const net_env_t *env)
{
    (void)env;
    return ofi_discover();
}
