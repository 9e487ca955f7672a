/* Bring-up of the point-to-point engine (hosts, transports, channels) and
 * the progress loop. */
#include "boot/boot.h"
#include "proto/engine.h"
#include "rail/health.h"
#include "rail/host.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/lock.h"
#include "util/log.h"

#include <ctype.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

proto_proc_t proto_proc;

static rm_status_t proto_find_hosts(int rank, int size)
{
    char host[256], key[64];
    /* a launcher that places ranks on virtual hosts names them; those share
     * the kernel's host name */
    if (*RM_CFG_STR(host_id))
        snprintf(host, sizeof host, "%s", RM_CFG_STR(host_id));
    else if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    proto_proc.world_rank = rank;
    proto_proc.world_size = size;
    proto_proc.node_of = malloc(sizeof(int) * (size_t)size);
    char (*names)[256] = malloc(sizeof *names * (size_t)size);
    if (!proto_proc.node_of || !names) {
        free(names);
        return RM_ERR_NOMEM;
    }
    rm_status_t st = RM_OK;
    if (size > 1) {
        snprintf(key, sizeof key, "rm-host-%d", rank);
        if ((st = boot_put(key, host)) < 0 || (st = boot_fence()) < 0)
            goto out;
    }
    proto_proc.nnodes = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            strcpy(names[r], host);
        } else {
            snprintf(key, sizeof key, "rm-host-%d", r);
            if ((st = boot_get(r, key, names[r], sizeof names[r])) < 0) {
                rm_log_error("cannot learn the host of rank %d from the launcher", r);
                goto out;
            }
        }
        int n = -1;
        for (int q = 0; q < r && n < 0; q++)
            if (!strcmp(names[q], names[r]))
                n = proto_proc.node_of[q];
        proto_proc.node_of[r] = n >= 0 ? n : proto_proc.nnodes++;
    }
    proto_proc.node = proto_proc.node_of[rank];
out:
    free(names);
    return st;
}

static rm_status_t proto_iface_open(const char *name, const net_env_t *env, proto_iface_t **out)
{
    const net_ops_t *ops = net_transport_find(name);
    if (!ops) {
        rm_log_error("transport %s is not available", name);
        return RM_ERR_INTERNAL;
    }
    proto_iface_t *pi = &proto_eng.ifaces[proto_eng.nifaces];
    rm_status_t st = ops->open(env, 0, &pi->ifc);
    if (st < 0)
        return st;
    pi->ops = ops;
    pi->work = ops->work_hint ? ops->work_hint(pi->ifc) : NULL;
    proto_eng.nifaces++;
    *out = pi;
    return RM_OK;
}

#define PROTO_SECRET_KEY "rm-job-secret"

/* TCP connections carry a job secret so that nothing but this job's ranks
 * gets in. railmpi's mpiexec issues one (RAILMPI_JOB_SECRET); under a
 * launcher that does not (srun, Hydra), rank 0 draws one and publishes it
 * with its business card: the launcher's key-value space is readable by this
 * job's ranks only, and the fence after the cards makes it visible to every
 * rank before anyone connects. */
static rm_status_t proto_secret_publish(int rank)
{
    if (*proto_eng.job_secret || rank != 0)
        return RM_OK;
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        rm_log_error("cannot draw a job secret for TCP rails: no random bytes from the kernel");
        return RM_ERR_INTERNAL;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(proto_eng.job_secret + 2 * i, 3, "%02x", r[i]);
    return boot_put(PROTO_SECRET_KEY, proto_eng.job_secret);
}

static rm_status_t proto_secret_learn(void)
{
    if (*proto_eng.job_secret)
        return RM_OK;
    rm_status_t st = boot_get(0, PROTO_SECRET_KEY, proto_eng.job_secret, sizeof proto_eng.job_secret);
    if (st < 0)
        rm_log_error("no job secret for TCP rails: RAILMPI_JOB_SECRET is unset here and rank 0 "
                     "published none (%s)", rm_status_str(st));
    return st;
}

/* One transport's rails (RAILMPI_NET names the transports): open each,
 * publish their addresses, and give each remote peer one path per rail it
 * shares. Rails are numbered from `*rail_base` on, after the transports
 * opened before. */
static rm_status_t proto_open_rails(const char *tname, const net_env_t *env, int *rail_base, size_t *maxp)
{
    const net_ops_t *tr = net_transport_find(tname);
    if (!tr) {
        rm_log_error("RAILMPI_NET: unknown transport '%s' (expected tcp or ofi)", tname);
        return RM_ERR_INVALID;
    }
    int rank = env->world_rank, size = env->world_size;
    int nrails = tr->query(env);
    char card[1024] = "", key[64];
    proto_iface_t *rails[PROTO_MAX_IFACES];
    if (nrails > PROTO_MAX_IFACES - 2 - proto_eng.nifaces)
        nrails = PROTO_MAX_IFACES - 2 - proto_eng.nifaces;
    if (nrails < 0)
        nrails = 0;
    rm_status_t st;
    for (int i = 0; i < nrails; i++) {
        proto_iface_t *pi = &proto_eng.ifaces[proto_eng.nifaces];
        if ((st = tr->open(env, i, &pi->ifc)) < 0)
            return st;
        pi->ops = tr;
        pi->work = tr->work_hint ? tr->work_hint(pi->ifc) : NULL;
        rails[i] = pi;
        proto_eng.nifaces++;
        char addr[256];
        if ((st = tr->addr_pack(pi->ifc, addr, sizeof addr)) < 0)
            return st;
        size_t l = strlen(card);
        if (l + strlen(addr) + 2 > sizeof card) {
            rm_log_error("%s: too many rails to publish (%d)", tname, nrails);
            return RM_ERR_INVALID;
        }
        snprintf(card + l, sizeof card - l, "%s%s", l ? "," : "", addr);
        size_t m = tr->max_payload(pi->ifc);
        if (m < *maxp)
            *maxp = m;
    }
    snprintf(key, sizeof key, "rm-%s-%d", tname, rank);
    if ((st = boot_put(key, *card ? card : "none")) < 0 || (st = boot_fence()) < 0)
        return st;
    char peer_card[1024];
    for (int r = 0; r < size; r++) {
        if (proto_proc.node_of[r] == proto_proc.node)
            continue;
        snprintf(key, sizeof key, "rm-%s-%d", tname, r);
        if ((st = boot_get(r, key, peer_card, sizeof peer_card)) < 0)
            return st;
        int paths = 0;
        for (int i = 0; i < nrails; i++) {
            char list[1024];
            snprintf(list, sizeof list, "%s", peer_card);
            for (char *save, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
                net_path_t *np;
                st = tr->connect(rails[i]->ifc, r, a, &proto_eng.ch[r], &np);
                if (st == RM_ERR_UNREACHABLE)
                    continue; /* not this rail's network */
                if (st < 0 || (st = rail_channel_add_path(&proto_eng.ch[r], tr, rails[i]->ifc, np,
                                                          *rail_base + i)) < 0)
                    return st;
                paths++;
                break;
            }
        }
        if (!paths)
            rm_log_warn("no %s rail reaches rank %d (its rails: %s; ours: %s)", tname, r, peer_card,
                        *card ? card : "none");
    }
    *rail_base += nrails;
    return RM_OK;
}

/* Ranks on other hosts: the rails of every transport RAILMPI_NET names,
 * numbered in that order, all paths of one channel per peer. */
static rm_status_t proto_open_network(const net_env_t *env, size_t *eager, size_t *chunk)
{
    rm_status_t st;
    if ((st = proto_secret_publish(env->world_rank)) < 0 || (st = boot_fence()) < 0 ||
        (st = proto_secret_learn()) < 0)
        return st;
    char list[128];
    snprintf(list, sizeof list, "%s", RM_CFG_STR(net));
    int rails = 0;
    size_t maxp = SIZE_MAX;
    for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if ((st = proto_open_rails(t, env, &rails, &maxp)) < 0)
            return st;
    proto_eng.nrails = rails;
    if (maxp == SIZE_MAX)
        maxp = *chunk;
    if (*eager > maxp)
        *eager = maxp;
    proto_eng.net_chunk = (size_t)RM_CFG(net_chunk);
    if (proto_eng.net_chunk == 0 || proto_eng.net_chunk > maxp)
        proto_eng.net_chunk = maxp;
    return RM_OK;
}

/* A CPU mask as a business card: hex digits, lowest CPUs last, no more
 * than the highest CPU in it needs ("0": none). */
static void proto_cpus_card(const cpu_set_t *cpus, char *card, size_t len)
{
    int top = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, cpus))
            top = c;
    size_t n = 0;
    for (int d = top < 0 ? 0 : top / 4; d >= 0 && n + 1 < len; d--) {
        int v = 0;
        for (int b = 0; b < 4; b++)
            v |= (4 * d + b < CPU_SETSIZE && CPU_ISSET(4 * d + b, cpus)) << b;
        card[n++] = "0123456789abcdef"[v];
    }
    card[n] = 0;
}

/* Add the CPUs of a card (proto_cpus_card) to *cpus; a card that is not one
 * adds nothing. */
static void proto_cpus_merge(cpu_set_t *cpus, const char *card)
{
    size_t n = strlen(card);
    for (size_t i = 0; i < n; i++) {
        const char *h = strchr("0123456789abcdef", card[n - 1 - i]);
        if (!h || !*h)
            return;
        int v = (int)(h - "0123456789abcdef");
        for (int b = 0; b < 4; b++)
            if ((v >> b & 1) && 4 * i + (size_t)b < CPU_SETSIZE)
                CPU_SET(4 * i + (size_t)b, cpus);
    }
}

/* How many rm_cpu_relax() calls take `ns` on this core (timed once: the
 * instruction takes from a few to over a hundred cycles by processor). */
static int proto_relax_count(int64_t ns)
{
    if (ns <= 0)
        return 0;
    enum { TRIES = 256 };
    uint64_t t0 = rm_now();
    for (int i = 0; i < TRIES; i++)
        rm_cpu_relax();
    uint64_t each = (rm_now() - t0) / TRIES;
    int64_t n = ns / (int64_t)(each ? each : 1);
    return n < 1 ? 1 : n > 100000 ? 100000 : (int)n;
}

rm_status_t proto_init(int rank, int size, const char *job_id)
{
    rm_status_t st;
    memset(&proto_eng, 0, sizeof proto_eng);
    /* job ids name shared-memory segments: keep them to a safe alphabet */
    size_t j = 0;
    for (const char *p = job_id; *p && j + 1 < sizeof proto_eng.job_id; p++)
        proto_eng.job_id[j++] = isalnum((unsigned char)*p) || *p == '-' || *p == '_' ? *p : '_';
    proto_eng.job_id[j] = 0;
    if (strlen(RM_CFG_STR(job_secret)) >= sizeof proto_eng.job_secret) {
        rm_log_error("RAILMPI_JOB_SECRET is longer than %zu characters", sizeof proto_eng.job_secret - 1);
        return RM_ERR_INVALID;
    }
    strcpy(proto_eng.job_secret, RM_CFG_STR(job_secret));
    proto_eng.spin_count = (int)RM_CFG(spin_count);
    rm_ticks_init();
    proto_eng.spin_ticks = rm_ticks_of_ns((uint64_t)RM_CFG(spin_time_us) * 1000u);
    proto_eng.idle_clock = 16; /* until the hosts are known (below) */
    const char *cma = RM_CFG_STR(shm_cma);
    if (!strcasecmp(cma, "off")) {
        proto_eng.cma = 0;
    } else if (!strcasecmp(cma, "on") || !strcasecmp(cma, "auto")) {
        proto_eng.cma = 1;
        proto_eng.cma_required = !strcasecmp(cma, "on");
    } else {
        rm_log_error("RAILMPI_SHM_CMA='%s': expected auto, on or off", cma);
        return RM_ERR_INVALID;
    }
    if ((st = match_init(&proto_eng.mq, 4096)) < 0)
        return st;
    rail_policy_t policy;
    if (rail_policy_parse(RM_CFG_STR(rail_policy), &policy) < 0) {
        rm_log_error("RAILMPI_RAIL_POLICY='%s': expected first, round-robin, binding, even, weighted, "
                     "adaptive or failover", RM_CFG_STR(rail_policy));
        return RM_ERR_INVALID;
    }
    double weights[RAIL_MAX_PATHS];
    int nweights = 0;
    for (const char *w = RM_CFG_STR(rail_weights); *w && nweights < RAIL_MAX_PATHS;) {
        char *end;
        double v = strtod(w, &end);
        if (end == w || v <= 0) {
            rm_log_error("RAILMPI_RAIL_WEIGHTS='%s': expected positive numbers separated by commas",
                         RM_CFG_STR(rail_weights));
            return RM_ERR_INVALID;
        }
        weights[nweights++] = v;
        w = *end == ',' ? end + 1 : end;
    }
    proto_eng.stripe_min = (size_t)RM_CFG(striping_threshold);
    proto_eng.peer_buffer = (size_t)RM_CFG(peer_buffer);
    proto_eng.rndv_window = (size_t)RM_CFG(rndv_window);
    proto_eng.credit_wait = RM_CFG(rndv_credit_wait_us) > 0 ? (uint64_t)RM_CFG(rndv_credit_wait_us) * 1000 : 0;
    proto_eng.rdma_min = (size_t)RM_CFG(ofi_rma_min);
    if (proto_eng.rndv_window > (size_t)1 << 30)
        proto_eng.rndv_window = (size_t)1 << 30; /* RDATA carries it in 32 bits */
    if (RM_CFG(path_timeout_ms) < 10 || RM_CFG(recovery_max_ms) < 1 || RM_CFG(partition_timeout_s) < 0) {
        rm_log_error("RAILMPI_PATH_TIMEOUT_MS must be at least 10, RAILMPI_RECOVERY_MAX_MS at least "
                     "1 and RAILMPI_PARTITION_TIMEOUT_S not negative");
        return RM_ERR_INVALID;
    }
    rail_set_deliver(proto_deliver);
    rail_set_failed(proto_peer_failed);
    rail_health_setup(rank);
    rail_set_place(proto_data_locate);
    if ((st = proto_find_hosts(rank, size)) < 0)
        return st;

    int local_rank = 0;
    for (int r = 0; r < rank; r++)
        local_rank += proto_proc.node_of[r] == proto_proc.node;
    rail_configure(policy, local_rank, nweights ? weights : NULL, nweights, (int)RM_CFG(ft));

    proto_eng.ch = calloc((size_t)size, sizeof *proto_eng.ch);
    if (!proto_eng.ch)
        return RM_ERR_NOMEM;
    for (int r = 0; r < size; r++)
        rail_channel_init(&proto_eng.ch[r], r);
    if ((st = proto_flow_init(size)) < 0)
        return st;

    net_env_t env = proto_eng.env = (net_env_t){
        .world_rank = rank,
        .world_size = size,
        .node_of = proto_proc.node_of,
        .node = proto_proc.node,
        .job_id = proto_eng.job_id,
        .job_secret = proto_eng.job_secret,
        .up = {.recv = rail_channel_recv,
               .error = rail_channel_error,
               .up = rail_channel_up,
               .place = RM_CFG(zcopy_recv) ? rail_channel_place : NULL,
               .busy = proto_async_net_busy},
    };
    size_t eager = (size_t)RM_CFG(eager_threshold);
    size_t chunk = (size_t)RM_CFG(shm_pipeline_chunk);
    if (chunk == 0)
        chunk = 65536;

    proto_iface_t *self, *shm = NULL;
    net_path_t *np;
    if ((st = proto_iface_open("self", &env, &self)) < 0)
        return st;
    if ((st = self->ops->connect(self->ifc, rank, "self", &proto_eng.ch[rank], &np)) < 0 ||
        (st = rail_channel_add_path(&proto_eng.ch[rank], self->ops, self->ifc, np, 0)) < 0)
        return st;

    int nlocal = 0;
    for (int r = 0; r < size; r++)
        nlocal += proto_proc.node_of[r] == proto_proc.node;
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0)
        CPU_ZERO(&cpus);
    if (nlocal > 1) {
        char addr[256], key[64], card[CPU_SETSIZE / 4 + 2];
        /* the cores this host's ranks may run on (the spin policy below),
         * published beside the shared-memory card, read after its fence */
        proto_cpus_card(&cpus, card, sizeof card);
        snprintf(key, sizeof key, "rm-cpus-%d", rank);
        if ((st = boot_put(key, card)) < 0)
            return st;
        if ((st = proto_iface_open("shm", &env, &shm)) < 0)
            return st;
        size_t maxp = shm->ops->max_payload(shm->ifc);
        if (eager > maxp)
            eager = maxp;
        if (chunk > maxp)
            chunk = maxp;
        if ((st = shm->ops->addr_pack(shm->ifc, addr, sizeof addr)) < 0)
            return st;
        snprintf(key, sizeof key, "rm-shm-%d", rank);
        if ((st = boot_put(key, addr)) < 0 || (st = boot_fence()) < 0)
            return st;
        for (int r = 0; r < size; r++) {
            if (r == rank || proto_proc.node_of[r] != proto_proc.node)
                continue;
            snprintf(key, sizeof key, "rm-shm-%d", r);
            if ((st = boot_get(r, key, addr, sizeof addr)) < 0 ||
                (st = shm->ops->connect(shm->ifc, r, addr, &proto_eng.ch[r], &np)) < 0 ||
                (st = rail_channel_add_path(&proto_eng.ch[r], shm->ops, shm->ifc, np, 0)) < 0)
                return st;
        }
        /* everyone has mapped everyone: the names can go */
        if ((st = boot_fence()) < 0)
            return st;
        for (int r = 0; r < size; r++) {
            snprintf(key, sizeof key, "rm-cpus-%d", r);
            if (r != rank && proto_proc.node_of[r] == proto_proc.node &&
                boot_get(r, key, card, sizeof card) == RM_OK)
                proto_cpus_merge(&cpus, card);
        }
        if (shm->ops->ready)
            shm->ops->ready(shm->ifc);
    } else {
        /* a rank alone on its host still joins the two fences the others'
         * shared-memory set-up takes, or the fences would pair up wrongly */
        int shared = 0, *count = calloc((size_t)proto_proc.nnodes, sizeof *count);
        if (!count)
            return RM_ERR_NOMEM;
        for (int r = 0; r < size && !shared; r++)
            shared = ++count[proto_proc.node_of[r]] > 1;
        free(count);
        if (shared && ((st = boot_fence()) < 0 || (st = boot_fence()) < 0))
            return st;
    }
    if (proto_proc.nnodes > 1 && (st = proto_open_network(&env, &eager, &chunk)) < 0)
        return st;
    if (proto_proc.nnodes > 1) {
        /* path health per (remote host, rail), shared by this host's ranks */
        rail_host_conf_t hc = {.my_rank = rank, .my_node = proto_proc.node, .nnodes = proto_proc.nnodes,
                               .node_of = proto_proc.node_of, .nranks = size, .nlocal = nlocal,
                               .job_id = proto_eng.job_id, .stamp = proto_eng.job_secret};
        if ((st = rail_host_setup(&hc)) < 0)
            return st;
    }
    /* a pass over network rails makes a system call per socket (0.3 us or
     * more), so every 4th pass reads the clock: the spin's end comes on time
     * to a microsecond or two, and a pass waiting for a small message's
     * answer does not carry a clock read (80-odd cycles here) each time.
     * On one host a pass takes tens of nanoseconds, and a wait shorter than
     * 16 of them (a small message's) reads none. */
    proto_eng.idle_clock = proto_proc.nnodes > 1 ? 4 : 16;
    /* more ranks here than cores they may run on together: a rank that
     * spins while it waits holds the core the rank it waits for needs, so
     * it yields at once. Counted over the union of the host's ranks' CPU
     * masks: ranks pinned to a core each see one CPU of their own, and
     * are not oversubscribed for that. */
    if (CPU_COUNT(&cpus) > 0 && nlocal > CPU_COUNT(&cpus) && RM_CFG(spin_oversubscribed) >= 1)
        proto_eng.spin_count = (int)RM_CFG(spin_oversubscribed);
    proto_eng.catchup_relax = nlocal > 1 ? proto_relax_count(RM_CFG(poll_backoff_ns)) : 0;
    proto_eng.eager_max = eager;
    proto_eng.chunk = chunk;
    proto_eng.secret_shared = *proto_eng.job_secret != 0;
    rm_log_debug("proto: %d ranks on %d hosts, %d here; eager <= %zu bytes, chunk %zu, single copy %s",
                 size, proto_proc.nnodes, nlocal, eager, chunk, proto_eng.cma ? "on" : "off");
    rm_log_debug("proto: %d ranks here may run on %d cores: a waiting rank yields after %d idle polls", nlocal,
                 CPU_COUNT(&cpus), proto_eng.spin_count);
    return RM_OK;
}

/* Idle progress passes before an owed ack is sent alone: a few round trips
 * of polling (a pass costs about a syscall, 1-2 us). */
#define PROTO_ACK_IDLE_PASSES 64

typedef struct proto_poll {
    int (*fn)(void *);
    void *arg;
} proto_poll_t;
static proto_poll_t *proto_polls;
static int proto_npolls, proto_polls_cap, proto_polls_running;

rm_status_t proto_poll_add(int (*fn)(void *arg), void *arg)
{
    if (proto_npolls == proto_polls_cap) {
        int cap = proto_polls_cap ? 2 * proto_polls_cap : 8;
        proto_poll_t *p = realloc(proto_polls, sizeof *p * (size_t)cap);
        if (!p)
            return RM_ERR_NOMEM;
        proto_polls = p;
        proto_polls_cap = cap;
    }
    proto_polls[proto_npolls++] = (proto_poll_t){fn, arg};
    if (!atomic_exchange(&proto_async_work, 1))
        proto_async_kick();
    return RM_OK;
}

static void proto_polls_run(void)
{
    proto_polls_running = 1; /* a poll that sends must not re-enter */
    for (int i = 0; i < proto_npolls;) {
        if (proto_polls[i].fn(proto_polls[i].arg))
            proto_polls[i] = proto_polls[--proto_npolls]; /* done: order does not matter */
        else
            i++;
    }
    if (!proto_npolls)
        atomic_store(&proto_async_work, 0);
    proto_polls_running = 0;
}

int proto_progress(void)
{
    int n = 0;
    for (int i = 0; i < proto_eng.nifaces; i++) {
        proto_iface_t *pi = &proto_eng.ifaces[i];
        if (!pi->work || *pi->work)
            n += pi->ops->progress(pi->ifc);
    }
    /* An ack goes alone only after PROTO_ACK_IDLE_PASSES passes in a row
     * found nothing to do. A rank that has just received usually answers or
     * receives again within a round trip, and its next frame carries the
     * ack; a lone ack sooner costs this rank a send and the peer a wake-up
     * and a read while it waits for the answer. Nothing waits for a lone
     * ack: the peer only keeps its copies a little longer (and at most
     * RAIL_ACK_EVERY frames). */
    static unsigned idle_passes;
    idle_passes = n ? 0 : idle_passes + 1;
    n += rail_flush_all(idle_passes >= PROTO_ACK_IDLE_PASSES);
    rail_health_poll(rm_now);
    if (atomic_load_explicit(&proto_commands_due, memory_order_relaxed))
        proto_async_commands();
    if (__builtin_expect(__atomic_load_n(proto_ft_board, __ATOMIC_ACQUIRE) != proto_ft_board_read, 0))
        proto_ft_board_poll(); /* the launcher listed a death */
    if (proto_npolls && !proto_polls_running)
        proto_polls_run();
    return n;
}

int proto_rail_migrate(int rail, int off)
{
    int n = rail_migrate(rail, off);
    rail_flush_all(0);
    return n;
}

/* The start of the timed spin is the thread's (MPI_THREAD_MULTIPLE: each
 * thread waits in its own loop); proto_wait keeps its own on the stack. */
static _Thread_local uint64_t proto_idle_since;

/* Spinning for RAILMPI_SPIN_TIME_US: a pass over network rails costs a
 * system call per socket, so RAILMPI_SPIN_COUNT passes took 2.5 ms there,
 * and two ranks sharing a core (virtual hosts on one machine, another job)
 * handed it over only that often: 2.5 ms per message instead of 27 us.
 * The clock is rm_ticks: a wait for a small message's answer across hosts
 * reads it every few passes, and clock_gettime there was a measurable part
 * of the round trip. */
static int proto_idle_timed(int idle, uint64_t *since)
{
    if (!proto_eng.spin_ticks || (idle & (proto_eng.idle_clock - 1))) /* a power of two: no division per pass */
        return 0;
    uint64_t now = rm_ticks();
    if (idle == proto_eng.idle_clock) {
        *since = now;
        return 0;
    }
    return now - *since >= proto_eng.spin_ticks;
}

int proto_idle_due(int *idle)
{
    if (++*idle < proto_eng.spin_count && !proto_idle_timed(*idle, &proto_idle_since))
        return 0;
    *idle = 0;
    return 1;
}

/* The wait loop; `ft` (a constant in each caller) adds the check of a
 * wildcard receive against unacknowledged failures to the yielding branch,
 * which a wait reaches only after its spin: proto_wait's loop stays as it is. */
static inline __attribute__((always_inline)) rm_status_t proto_wait_loop(request_t *r, int ft)
{
    /* proto_idle_due written out: this loop's pass is what a small
     * message's latency waits on.
     * The first pass that finds nothing after one that found something
     * holds off for RAILMPI_POLL_BACKOFF_NS: a receiver that has caught up
     * with a sender still writing a stream of small messages would poll
     * the very cache line the sender writes next, so each of the sender's
     * writes waits for the line to come back from the receiver's core. On
     * a virtual machine's two cores (8-byte messages, 64 in flight) runs
     * fell either way, 4 million messages/s (204 ns per MPI_Isend) or 6-6.5
     * (104-121 ns); with the hold-off 6.5-6.7 in every run of that hour,
     * alternating with the build before. At other times both went at
     * 3.7-4.0 (210 ns per MPI_Isend) whatever the setting: the cost of a
     * cache line between those cores had changed (docs/performance.md).
     * Only a wait that has found something holds off: one that finds
     * nothing from its first pass waits for an answer (a ping-pong's
     * MPI_Recv), and holding off there put 400 ns on a round trip of
     * 300: the 8-byte one-way latency went from 0.30 us to 0.14-0.19. */
    int idle = 0, found = 0;
    uint64_t since = 0;
    while (!r->done) {
        if (proto_progress()) {
            idle = 0;
            found = 1;
        } else if (++idle >= proto_eng.spin_count || proto_idle_timed(idle, &since)) {
            idle = 0;
            if (ft && proto_ft_nfailed && proto_ft_recv_blocked(r))
                return RM_ERR_PROC_FAILED_PENDING;
            rm_lock_yield();
        } else if (idle == 1 && found) {
            for (int i = 0; i < proto_eng.catchup_relax; i++)
                rm_cpu_relax();
        }
    }
    return RM_OK;
}

rm_status_t proto_wait(request_t *r)
{
    return proto_wait_loop(r, 0);
}

rm_status_t proto_wait_ft(request_t *r)
{
    return proto_wait_loop(r, 1);
}

rm_status_t proto_waitall(int n, request_t **reqs)
{
    for (int i = 0; i < n; i++) {
        if (reqs[i]) {
            rm_status_t st = proto_wait(reqs[i]);
            if (st < 0)
                return st;
        }
    }
    return RM_OK;
}

/* Frames not yet delivered: in a channel's queue, sent but not yet
 * acknowledged, accepted by a transport that has not written them out (the
 * kernel's unsent bytes count), or an ack we still owe the peer. */
static int proto_pending_frames(void)
{
    for (int r = 0; r < proto_proc.world_size + proto_eng.nx; r++) {
        rail_channel_t *ch = proto_chan(r);
        if (!rail_channel_idle(ch))
            return 1;
        if (rail_channel_failure(ch) || rail_channel_closing(ch))
            continue;
        for (int i = 0; i < ch->npaths; i++) {
            rail_path_t *p = &ch->paths[i];
            if (p->state == RAIL_PATH_UP && p->ops->queued && p->ops->queued(p->np))
                return 1;
        }
    }
    return 0;
}

rm_status_t proto_drain(void)
{
    int idle = 0;
    while (proto_pending_frames()) {
        if (proto_progress())
            idle = 0;
        else if (proto_idle_due(&idle))
            rm_lock_yield();
    }
    return RM_OK;
}

static void proto_print_stats(void)
{
    uint64_t now = rm_now();
    for (int r = 0; r < proto_proc.world_size + proto_eng.nx; r++) {
        rail_channel_t *ch = proto_chan(r);
        for (int i = 0; i < ch->npaths; i++) {
            rail_path_t *p = &ch->paths[i];
            if (!p->frames && ch->recv_next <= 1)
                continue;
            uint64_t down = p->downtime + (p->down_since ? now - p->down_since : 0);
            rm_log(RM_LOG_INFO,
                   "stats: peer %d rail %d (%s): sent %llu frames %llu bytes; received %llu frames; "
                   "duplicates dropped %llu, out-of-order %llu; zero-copy received %llu bytes (%llu places withdrawn); written remotely %llu bytes; "
                   "fast path %llu frames; resent %llu frames, failures %llu, down %.3f s; measured %.1f MB/s, rtt %.0f us",
                   r, p->rail, p->ops->name, (unsigned long long)p->frames,
                   (unsigned long long)p->bytes, (unsigned long long)(ch->recv_next - 1),
                   (unsigned long long)ch->dups_dropped, (unsigned long long)ch->ooo_queued,
                   (unsigned long long)p->zc_bytes, (unsigned long long)p->unplaced, (unsigned long long)p->rma_bytes,
                   (unsigned long long)(p->ops->fast_frames && p->np ? p->ops->fast_frames(p->np) : 0),
                   (unsigned long long)p->resent,
                   (unsigned long long)p->failures, (double)down / 1e9, p->bw / 1e6, p->rtt * 1e6);
        }
    }
}

rm_status_t proto_finalize(void)
{
    free(proto_polls);
    proto_polls = NULL;
    proto_npolls = proto_polls_cap = 0;
    if (!proto_eng.ch)
        return RM_OK;
    /* everything of ours acknowledged, then goodbye on every rail, so the
     * peers take our connections closing as the end, not as a failure */
    proto_drain();
    /* Acknowledge the last frames (the final barrier's) at once: progress
     * holds a lone ack back for a while. The goodbye carries the ack too. */
    rail_flush_all(1);
    for (int r = 0; r < proto_proc.world_size + proto_eng.nx; r++)
        rail_channel_bye(proto_chan(r));
    proto_async_stop();
    if (RM_CFG(stats))
        proto_print_stats();
    rail_host_teardown();
    for (int r = 0; r < proto_proc.world_size + proto_eng.nx; r++)
        rail_channel_destroy(proto_chan(r));
    for (int i = 0; i < proto_eng.nx; i++)
        free(proto_eng.xch[i]);
    free(proto_eng.xch);
    free(proto_eng.xsecret);
    free(proto_eng.xrank);
    proto_eng.xch = NULL;
    proto_eng.xsecret = NULL;
    proto_eng.xrank = NULL;
    proto_eng.nx = proto_eng.xcap = 0;
    for (int i = 0; i < proto_eng.nifaces; i++)
        proto_eng.ifaces[i].ops->close(proto_eng.ifaces[i].ifc);
    proto_eng.nifaces = 0;
    proto_eng.nrails = 0;
    match_destroy(&proto_eng.mq);
    proto_flow_destroy();
    free(proto_eng.ch);
    proto_eng.ch = NULL;
    free(proto_proc.node_of);
    proto_proc.node_of = NULL;
    proto_request_cleanup();
    return RM_OK;
}
