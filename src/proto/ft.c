/* Process failures (User-Level Failure Mitigation; docs/ulfm.md).
 *
 * Who has died is one list per process, in the order the deaths became
 * known, fed by the launcher: mpiexec (or a host's proxy) sees a rank's
 * process end and lists it on the failure board, a page of shared memory
 * every rank of the host maps read-only (RAILMPI_FT_FD): its first word
 * counts the deaths listed, the next words are their world ranks. Each
 * progress pass compares that word with what this rank has read (one load
 * of a line that stays in the cache until a death): a thread reading a pipe
 * instead would make the process multi-threaded, and glibc's malloc then
 * takes its locks on the message path. Network faults never enter this
 * list: a rail failure or a partition is the rail layer's business.
 *
 * A death fails the channel to the dead rank for good (RM_ERR_PROC_FAILED):
 * the rail layer hands every frame it kept back and the point-to-point
 * layer completes what waited on that peer with the error (p2p.c,
 * proto_peer_failed). Receives from MPI_ANY_SOURCE stay posted: their waits
 * report MPIX_ERR_PROC_FAILED_PENDING while a failure on their communicator
 * is not acknowledged (comm_t.ft_acked: a prefix of the list). The
 * collectives' own receives on a communicator with a dead member fail at
 * once, so a collective never waits for a peer that has given up on it.
 *
 * Revoke is a frame (PF_REVOKE, the communicator's context id) sent to every
 * member; each member that sees it first marks the communicator, fails what
 * is pending on it and sends it on to every member, so it reaches everyone
 * even when the revoking rank dies half-way. Windows and files keep private
 * communicators of their own; a revoke of the communicator they were
 * created on revokes those too (proto_ft_on_revoke), at every member, since
 * every member sees that revoke. */
#include "boot/boot.h"
#include "comm/comm.h"
#include "dtype/dtype.h"
#include "proto/engine.h"
#include "util/config.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int proto_ft_nfailed;
/* the board, or a word that stays 0 without one (RAILMPI_PROC_FT off) */
static const uint32_t ft_no_board;
const uint32_t *proto_ft_board = &ft_no_board;
uint32_t proto_ft_board_read;
static size_t ft_board_len;
static int *ft_list;      /* world ranks, in the order their deaths became known */
static unsigned char *ft_is; /* by world rank */
static int ft_cap;

int proto_ft_failed(int world)
{
    return ft_is && world >= 0 && world < proto_proc.world_size && ft_is[world];
}

int proto_ft_nth(int i)
{
    return i >= 0 && i < proto_ft_nfailed ? ft_list[i] : -1;
}

/* Whether world rank w is a member of c (either group of an intercommunicator). */
static int ft_comm_has(const comm_t *c, int w)
{
    for (int i = 0; i < c->group->size; i++)
        if (c->group->world[i] == w)
            return 1;
    if (c->remote_group)
        for (int i = 0; i < c->remote_group->size; i++)
            if (c->remote_group->world[i] == w)
                return 1;
    return 0;
}

int proto_ft_comm_nfailed(const comm_t *c, int upto)
{
    int n = 0;
    for (int i = 0; i < upto && i < proto_ft_nfailed; i++)
        n += ft_comm_has(c, ft_list[i]);
    return n;
}

rm_status_t proto_ft_comm_check(const comm_t *c)
{
    if (c->revoked)
        return RM_ERR_REVOKED;
    return proto_ft_comm_nfailed(c, proto_ft_nfailed) ? RM_ERR_PROC_FAILED : RM_OK;
}

int proto_ft_recv_blocked(const request_t *r)
{
    if (r->kind != REQ_RECV || r->done || r->matched || r->peer != MPI_ANY_SOURCE)
        return 0;
    const comm_t *c = r->comm;
    for (int i = c->ft_acked; i < proto_ft_nfailed; i++)
        if (ft_comm_has(c, ft_list[i]))
            return 1;
    return 0;
}

/* A posted receive of a collective (context ctx + 1) on a communicator
 * with the dead member: it may wait for a rank that has left the
 * collective, so it ends now. */
static void ft_fail_coll_one(request_t *r, void *arg)
{
    int w = *(const int *)arg;
    if (r->done || !r->active || r->kind != REQ_RECV || r->matched || !r->comm || r->ctx != r->comm->ctx + 1 ||
        r->tag >= PROTO_FT_TAG_MIN || !ft_comm_has(r->comm, w) || !match_remove_posted(&proto_eng.mq, r))
        return;
    r->err = RM_ERR_PROC_FAILED;
    proto_request_complete(r);
}

void proto_ft_proc_failed(int world)
{
    if (world < 0 || world >= proto_proc.world_size || world == proto_proc.world_rank || !proto_eng.ch)
        return;
    if (!ft_is && !(ft_is = calloc((size_t)proto_proc.world_size, 1)))
        return;
    if (ft_is[world])
        return;
    if (proto_ft_nfailed == ft_cap) {
        int cap = ft_cap ? 2 * ft_cap : 16;
        int *l = realloc(ft_list, sizeof *l * (size_t)cap);
        if (!l) {
            rm_log_error("out of memory noting the failure of rank %d", world);
            return;
        }
        ft_list = l;
        ft_cap = cap;
    }
    ft_is[world] = 1;
    ft_list[proto_ft_nfailed++] = world;
    rm_log_info("rank %d has failed", world);
    /* the rail layer reaps the channel in the next pass and calls
     * proto_peer_failed for what waited on that peer */
    rail_channel_fail(proto_chan(world), RM_ERR_PROC_FAILED);
    proto_request_foreach(ft_fail_coll_one, &world);
}

/* ---- revoke -------------------------------------------------------------- */

/* A receive on the revoked communicator that nothing has matched yet ends
 * with MPIX_ERR_REVOKED. What is already moving between two live ranks
 * completes as it would have. */
static void ft_fail_revoked_one(request_t *r, void *arg)
{
    const comm_t *c = arg;
    if (r->done || !r->active || r->kind != REQ_RECV || r->matched || !r->comm ||
        (r->comm != c && r->comm != c->local_comm) ||
        (r->ctx == r->comm->ctx + 1 && r->tag >= PROTO_FT_TAG_MIN) || !match_remove_posted(&proto_eng.mq, r))
        return;
    r->err = RM_ERR_REVOKED;
    proto_request_complete(r);
}

static void ft_revoke_send(comm_t *c, int except)
{
    proto_hdr_t h;
    proto_hdr_make(&h, PF_REVOKE, 0, proto_proc.world_rank, 0, c->ctx, 0, 0);
    const group_t *gs[2] = {c->group, c->remote_group};
    for (int k = 0; k < 2; k++)
        for (int i = 0; gs[k] && i < gs[k]->size; i++) {
            int w = gs[k]->world[i];
            if (w == proto_proc.world_rank || w == except || proto_ft_failed(w))
                continue;
            rail_channel_send(proto_chan(w), &h, sizeof h, NULL, 0, 0, NULL, NULL);
        }
}

#define FT_REVOKE_FNS 4
static proto_ft_revoke_fn ft_revoke_fns[FT_REVOKE_FNS];

void proto_ft_on_revoke(proto_ft_revoke_fn fn)
{
    for (int i = 0; i < FT_REVOKE_FNS; i++) {
        if (ft_revoke_fns[i] == fn)
            return;
        if (!ft_revoke_fns[i]) {
            ft_revoke_fns[i] = fn;
            return;
        }
    }
    rm_log_error("more than %d layers follow revokes", FT_REVOKE_FNS);
}

static void ft_revoke_derived(uint32_t ctx)
{
    for (int i = 0; i < FT_REVOKE_FNS && ft_revoke_fns[i]; i++)
        ft_revoke_fns[i](ctx);
}

void proto_ft_revoke_here(comm_t *c)
{
    if (c->revoked)
        return;
    c->revoked = 1;
    proto_request_foreach(ft_fail_revoked_one, c);
}

static void ft_revoke_apply(comm_t *c, int from)
{
    c->revoked = 1;
    ft_revoke_send(c, from);
    proto_request_foreach(ft_fail_revoked_one, c);
    ft_revoke_derived(c->ctx);
}

rm_status_t proto_ft_revoke(comm_t *c)
{
    if (!c->revoked)
        ft_revoke_apply(c, -1);
    return RM_OK;
}

void proto_ft_revoke_recv(rail_channel_t *ch, const proto_hdr_t *h)
{
    comm_t *c = comm_by_ctx(h->ctx);
    if (!c) {
        rm_log_debug("revoke of context %u from rank %d: no such communicator here", (unsigned)h->ctx,
                     rail_channel_peer(ch));
        /* freed here, but windows or files built on it may still be open */
        ft_revoke_derived(h->ctx);
        return;
    }
    if (!c->revoked) {
        rm_log_info("communicator '%s' (context %u) revoked by rank %d", c->name, (unsigned)c->ctx,
                    rail_channel_peer(ch));
        ft_revoke_apply(c, rail_channel_peer(ch));
    }
}

/* ---- decisions of agreements that returned early --------------------- */

static proto_ft_agree_query_fn ft_agree_query;
static proto_ft_agree_answer_fn ft_agree_answer;

void proto_ft_agree_hooks(proto_ft_agree_query_fn query, proto_ft_agree_answer_fn answer)
{
    ft_agree_query = query;
    ft_agree_answer = answer;
}

void proto_ft_agree_keep(comm_t *c, uint32_t seq, const uint32_t *res, int words)
{
    if (c->ft_agree_rec_len != words) {
        free(c->ft_agree_rec);
        c->ft_agree_rec_len = 0;
        if (!(c->ft_agree_rec = malloc(sizeof *res * (size_t)words)))
            return; /* the survivors that would have asked get it from another member */
        c->ft_agree_rec_len = words;
    }
    memcpy(c->ft_agree_rec, res, sizeof *res * (size_t)words);
    c->ft_agree_rec_seq = seq;
}

void proto_ft_agree_ask(comm_t *c, uint32_t seq, int world)
{
    if (proto_ft_failed(world) || world == proto_proc.world_rank)
        return;
    rm_log_debug("agreement %u on context %u: asking rank %d for its decision", (unsigned)seq, (unsigned)c->ctx,
                 world);
    proto_hdr_t h;
    proto_hdr_make(&h, PF_AGREE_Q, 0, proto_proc.world_rank, (int)seq, c->ctx, 0, 0);
    rail_channel_send(proto_chan(world), &h, sizeof h, NULL, 0, 0, NULL, NULL);
}

void proto_ft_agree_answer(comm_t *c, uint32_t seq, int world, const uint32_t *res, int words)
{
    if (proto_ft_failed(world) || world == proto_proc.world_rank)
        return;
    rm_log_debug("agreement %u on context %u: answering rank %d", (unsigned)seq, (unsigned)c->ctx, world);
    proto_hdr_t h;
    proto_hdr_make(&h, PF_AGREE_R, 0, proto_proc.world_rank, (int)seq, c->ctx, (uint64_t)words, 0);
    rail_channel_send(proto_chan(world), &h, sizeof h, res, sizeof *res * (size_t)words, 0, NULL, NULL);
}

#define FT_PARKED 16
static struct ft_parked {
    uint32_t ctx, seq;
    uint32_t *res; /* NULL: free slot */
    int len;
} ft_parked[FT_PARKED];
static unsigned ft_parked_next;

void proto_ft_agree_park(comm_t *c)
{
    if (!c->ft_agree_rec)
        return;
    struct ft_parked *p = &ft_parked[ft_parked_next++ % FT_PARKED];
    free(p->res);
    *p = (struct ft_parked){c->ctx, c->ft_agree_rec_seq, c->ft_agree_rec, c->ft_agree_rec_len};
    c->ft_agree_rec = NULL;
}

void proto_ft_agree_unpark(uint32_t ctx)
{
    for (int i = 0; i < FT_PARKED; i++)
        if (ft_parked[i].res && ft_parked[i].ctx == ctx) {
            free(ft_parked[i].res);
            ft_parked[i].res = NULL;
        }
}

/* A member asking about a communicator's agreement has it (it contributed
 * before any member could decide), so a record parked under that context
 * id is of that communicator: one made again here since has unparked it. */
void proto_ft_agree_query_recv(rail_channel_t *ch, const proto_hdr_t *h)
{
    comm_t *c = comm_by_ctx(h->ctx);
    int world = rail_channel_peer(ch);
    uint32_t seq = (uint32_t)h->tag;
    if (!c) {
        for (int i = 0; i < FT_PARKED; i++)
            if (ft_parked[i].res && ft_parked[i].ctx == h->ctx && ft_parked[i].seq == seq) {
                proto_hdr_t a;
                proto_hdr_make(&a, PF_AGREE_R, 0, proto_proc.world_rank, (int)seq, h->ctx,
                               (uint64_t)ft_parked[i].len, 0);
                rail_channel_send(ch, &a, sizeof a, ft_parked[i].res, sizeof(uint32_t) * (size_t)ft_parked[i].len,
                                  0, NULL, NULL);
            }
        return;
    }
    if (c->ft_agree_rec && c->ft_agree_rec_seq == seq)
        proto_ft_agree_answer(c, seq, world, c->ft_agree_rec, c->ft_agree_rec_len);
    else if (ft_agree_query)
        ft_agree_query(c, seq, world); /* running here: answered when decided */
}

void proto_ft_agree_answer_recv(rail_channel_t *ch, const proto_hdr_t *h, const void *payload, size_t len)
{
    comm_t *c = comm_by_ctx(h->ctx);
    (void)ch;
    if (c && ft_agree_answer && len % sizeof(uint32_t) == 0)
        ft_agree_answer(c, (uint32_t)h->tag, payload, (int)(len / sizeof(uint32_t)));
}

/* ---- MPI_Finalize with dead ranks --------------------------------------- */

#define FT_BARRIER_TAG 0x7ffffff0
_Static_assert(FT_BARRIER_TAG >= PROTO_FT_TAG_MIN, "the final barrier's tag is a failure-tolerant one");

/* The final barrier among the survivors of MPI_COMM_WORLD: everyone tells
 * the lowest live rank, which answers once all have. A leader that dies
 * meanwhile is replaced by the next live one, to which everyone turns. */
rm_status_t proto_ft_final_barrier(comm_t *world)
{
    dtype_t *dt = dtype_get(MPI_BYTE);
    uint32_t ctx = world->ctx + 1;
    char b = 0;
    for (int tries = 0; tries < world->size; tries++) {
        int leader = 0;
        while (leader < world->size && proto_ft_failed(comm_world_rank(world, leader)))
            leader++;
        if (leader == world->rank) {
            for (int r = 0; r < world->size; r++)
                if (r != leader && !proto_ft_failed(comm_world_rank(world, r)))
                    proto_recv(&b, 1, dt, r, FT_BARRIER_TAG, world, ctx, MPI_STATUS_IGNORE);
            for (int r = 0; r < world->size; r++)
                if (r != leader && !proto_ft_failed(comm_world_rank(world, r)))
                    proto_send(&b, 1, dt, r, FT_BARRIER_TAG, world, ctx, PROTO_STD);
            return RM_OK;
        }
        if (proto_send(&b, 1, dt, leader, FT_BARRIER_TAG, world, ctx, PROTO_STD) >= 0 &&
            proto_recv(&b, 1, dt, leader, FT_BARRIER_TAG, world, ctx, MPI_STATUS_IGNORE) >= 0)
            return RM_OK;
    }
    return RM_ERR_PROC_FAILED;
}

/* The rail layer's partition timeout (rail_set_lost): with a failure board
 * (railmpi's mpiexec, RAILMPI_PROC_FT) the launcher is told and decides
 * which side of the partition is dead; its word comes back on the board
 * and fails the channel as a death. Without one, or if the launcher cannot
 * take it, the channel fails as without process fault tolerance. */
static int ft_peer_lost(rail_channel_t *ch)
{
    int world = rail_channel_peer(ch);
    if (proto_ft_board == &ft_no_board || world >= proto_proc.world_size)
        return 0;
    rm_status_t st = boot_report_lost(world);
    if (st < 0) {
        rm_log_error("could not tell the launcher that rank %d is unreachable: %s", world, rm_status_str(st));
        return 0;
    }
    rm_log_info("rank %d unreachable past the partition timeout: the launcher decides which side is dead", world);
    return 1;
}

rm_status_t proto_ft_init(void)
{
    int fd = (int)RM_CFG(ft_fd);
    if (!RM_CFG(proc_ft))
        return RM_OK;
    int board = fd >= 0 && fcntl(fd, F_GETFD) >= 0;
    if (proto_ft_detect_wanted(board)) { /* a board of our own (ft_detect.c) */
        if (board)
            close(fd);
        const uint32_t *b = proto_ft_detect_init(&ft_board_len);
        if (b)
            proto_ft_board = b;
        return RM_OK;
    }
    if (!board)
        return RM_OK;
    size_t len = sizeof(uint32_t) * ((size_t)proto_proc.world_size + 1);
    void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        rm_log_error("cannot map the launcher's failure board: %s; deaths will not be noticed", strerror(errno));
        return RM_OK;
    }
    proto_ft_board = p;
    ft_board_len = len;
    rail_set_lost(ft_peer_lost);
    return RM_OK;
}

void proto_ft_board_poll(void)
{
    uint32_t n = __atomic_load_n(proto_ft_board, __ATOMIC_ACQUIRE);
    uint32_t max = (uint32_t)(ft_board_len / sizeof(uint32_t)) - 1;
    for (; proto_ft_board_read < n && proto_ft_board_read < max; proto_ft_board_read++)
        proto_ft_proc_failed((int)__atomic_load_n(&proto_ft_board[1 + proto_ft_board_read], __ATOMIC_RELAXED));
}

void proto_ft_finalize(void)
{
    proto_ft_detect_finalize();
    if (proto_ft_board != &ft_no_board)
        munmap((void *)proto_ft_board, ft_board_len);
    proto_ft_board = &ft_no_board;
    proto_ft_board_read = 0;
    rail_set_lost(NULL);
    ft_board_len = 0;
    free(ft_list);
    free(ft_is);
    for (int i = 0; i < FT_PARKED; i++) {
        free(ft_parked[i].res);
        ft_parked[i].res = NULL;
    }
    ft_list = NULL;
    ft_is = NULL;
    ft_cap = proto_ft_nfailed = 0;
}
