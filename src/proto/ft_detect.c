/* Process failures under a launcher that reports none (docs/ulfm.md,
 * "Launchers"): Slurm's srun, MPICH's Hydra, Open MPI's mpirun.
 *
 * railmpi's mpiexec lists deaths on the failure board (ft.c). Without it,
 * this process keeps a board of its own, in the same format and polled
 * the same way by every progress pass, and fills it from three sources:
 * - the process's own eyes: at most every RAILMPI_PROC_FT_CHECK_MS, it
 *   looks at every peer whose channel the rail layer can judge
 *   (rail_channel_peer_gone): on this host whether its process has exited,
 *   on another whether its connections were all ended from its side, or it
 *   was never heard from and a pending operation waits on it, and its host
 *   refuses a new connection to it. A network fault ends no connection from
 *   the peer's side and refuses nothing, so it never enters the board: it
 *   stays the rail layer's business. It looks from a wait that has spun
 *   without completing (rm_lock_idle_hook) and from every health tick,
 *   which the asynchronous thread runs while the application computes:
 *   that thread is started here also on one host (proto_async_wanted),
 *   so the message path is unchanged but the process is multi-threaded.
 * - the other ranks: what a rank finds itself it tells every other live
 *   rank (PF_DEAD, det_tell);
 * - the launcher's PMIx events (boot_watch_deaths), which arrive on
 *   libpmix's thread: hence the mutex, and the count published last.
 * Either way proto_ft_proc_failed is called from a progress pass, as for
 * mpiexec's notices. */
#include "boot/boot.h"
#include "comm/comm.h"
#include "proto/engine.h"
#include "rail/health.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/lock.h"
#include "util/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

static uint32_t *det_board;   /* count, then world ranks */
static size_t det_len;
static unsigned char *det_listed; /* by world rank */
static unsigned char *det_waited; /* by world rank: a pending operation waits on it (det_look) */
static pthread_mutex_t det_mx = PTHREAD_MUTEX_INITIALIZER;
static uint64_t det_every, det_next; /* ns */
static int det_on;

static unsigned char *det_told; /* by world rank: listed, and the others told (or told us) */

/* `told`: the others know already (nothing for det_tell to pass on). */
static void det_list(int world, const char *how, int told)
{
    if (world < 0 || world >= proto_proc.world_size || world == proto_proc.world_rank)
        return;
    pthread_mutex_lock(&det_mx);
    if (det_board && !det_listed[world]) {
        det_listed[world] = 1;
        det_told[world] |= (unsigned char)told;
        uint32_t n = __atomic_load_n(det_board, __ATOMIC_RELAXED);
        __atomic_store_n(&det_board[1 + n], (uint32_t)world, __ATOMIC_RELAXED);
        __atomic_store_n(det_board, n + 1, __ATOMIC_RELEASE);
        rm_log_info("rank %d: %s", world, how);
    }
    pthread_mutex_unlock(&det_mx);
}

/* What a rank finds itself it tells every other live rank (PF_DEAD): one
 * that never talked to the dead rank could not find it, and waits on it
 * all the same in a wildcard receive or a collective. Ranks told pass
 * nothing on. */
static void det_tell(void)
{
    for (int w = 0; w < proto_proc.world_size; w++) {
        if (!det_listed[w] || det_told[w])
            continue;
        det_told[w] = 1;
        proto_hdr_t h;
        proto_hdr_make(&h, PF_DEAD, 0, proto_proc.world_rank, 0, 0, 0, (uint64_t)w);
        for (int to = 0; to < proto_proc.world_size; to++)
            if (to != w && to != proto_proc.world_rank && !det_listed[to] && !proto_ft_failed(to))
                rail_channel_send(proto_chan(to), &h, sizeof h, NULL, 0, 0, NULL, NULL);
    }
}

void proto_ft_detect_heard(rail_channel_t *ch, const proto_hdr_t *h)
{
    int from = rail_channel_peer(ch);
    if (!det_on || h->id >= (uint64_t)proto_proc.world_size)
        return;
    char how[64];
    snprintf(how, sizeof how, "rank %d found its process gone", from);
    det_list((int)h->id, how, 1);
}

/* libpmix's thread; the launcher tells every rank, nobody need pass it on */
static void det_launcher_says(int world)
{
    det_list(world, "the launcher's PMIx event", 1);
}

/* The peers a pending operation waits on: a receive from a named source,
 * a send. */
static void det_waited_one(request_t *r, void *arg)
{
    unsigned char *w = arg;
    if (r->done || !r->active || !r->comm || (r->kind != REQ_SEND && r->kind != REQ_RECV))
        return;
    int peer = r->kind == REQ_SEND || r->matched ? r->world_peer
               : r->peer >= 0                    ? comm_peer_world(r->comm, r->peer)
                                                 : -1;
    if (peer >= 0 && peer < proto_proc.world_size)
        w[peer] = 1;
}

static void det_look(void)
{
    if (!det_on)
        return;
    uint64_t now = rm_now();
    if (now < det_next)
        return;
    det_next = now + det_every;
    memset(det_waited, 0, (size_t)proto_proc.world_size);
    proto_request_foreach(det_waited_one, det_waited);
    for (int w = 0; w < proto_proc.world_size; w++) {
        if (w == proto_proc.world_rank || det_listed[w] || proto_ft_failed(w))
            continue;
        if (rail_channel_peer_gone(proto_chan(w), det_waited[w]))
            det_list(w, proto_proc.node_of[w] == proto_proc.node ? "its process has exited"
                                                                  : "its host refuses a connection to it",
                     0);
    }
    det_tell();
}

int proto_ft_detect_wanted(int launcher_board)
{
    const char *how = RM_CFG_STR(proc_ft_detect);
    if (!strcasecmp(how, "on"))
        return 1;
    if (!strcasecmp(how, "off"))
        return 0;
    if (strcasecmp(how, "auto"))
        rm_log_error("RAILMPI_PROC_FT_DETECT='%s': expected auto, on or off; auto it is", how);
    return !launcher_board;
}

const uint32_t *proto_ft_detect_init(size_t *len)
{
    size_t n = sizeof(uint32_t) * ((size_t)proto_proc.world_size + 1);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    det_listed = calloc((size_t)proto_proc.world_size, 1);
    det_waited = calloc((size_t)proto_proc.world_size, 1);
    det_told = calloc((size_t)proto_proc.world_size, 1);
    if (p == MAP_FAILED || !det_listed || !det_waited || !det_told) {
        if (p != MAP_FAILED)
            munmap(p, n);
        free(det_listed);
        free(det_waited);
        free(det_told);
        det_listed = det_waited = det_told = NULL;
        rm_log_error("no memory for the list of failed ranks; deaths will not be noticed");
        return NULL;
    }
    det_board = p;
    det_len = n;
    *len = n;
    int every = (int)RM_CFG(proc_ft_check_ms);
    det_every = (uint64_t)(every > 0 ? every : 1) * RM_MS;
    det_next = 0;
    det_on = 1;
    rm_lock_idle_hook = det_look;
    rail_set_tick_hook(det_look);
    proto_async_wanted = 1; /* its ticks look while the application computes */
    rm_status_t st = boot_watch_deaths(det_launcher_says);
    rm_log_debug("process failures: no launcher board; watching peers%s",
                 st == RM_OK ? " and the launcher's PMIx events" : "");
    return det_board;
}

void proto_ft_detect_stop(void)
{
    det_on = 0;
}

/* The board itself is unmapped by proto_ft_finalize (ft.c). */
void proto_ft_detect_finalize(void)
{
    det_on = 0;
    if (rm_lock_idle_hook == det_look)
        rm_lock_idle_hook = NULL;
    rail_set_tick_hook(NULL);
    proto_async_wanted = 0;
    boot_watch_deaths(NULL);
    pthread_mutex_lock(&det_mx);
    det_board = NULL;
    det_len = 0;
    free(det_listed);
    free(det_waited);
    free(det_told);
    det_listed = det_waited = det_told = NULL;
    pthread_mutex_unlock(&det_mx);
}
