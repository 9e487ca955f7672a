/* The sessions model (MPI-4.0 11.3): sessions, their process sets and
 * error handlers, groups from process sets and communicators from groups.
 *
 * The engine starts with the first session (or MPI_Init). MPI_Finalize
 * stops it when no session is left, else the last MPI_Session_finalize
 * does. In a program that never called MPI_Init it stays up, idle, when
 * the last session ends, for the next session (the launcher's connection
 * serves one start-up per process), and stops at exit. So a program may use
 * sessions only, a library may use them inside an MPI_Init program, and
 * sessions may come and go repeatedly.
 *
 * Process sets: "mpi://WORLD", "mpi://SELF" (the standard's, matched
 * without regard to case) and "railmpi://host", the processes of the job on
 * this process's host. */
#include "comm/commgrp.h"
#include "mpi/mpiimpl.h"
#include "util/handle.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct session {
    int handle;
    int thread_level;
    errhandler_t *errh;
    bsend_share_t *bshare; /* MPI_Session_attach_buffer's slot, held by its groups and communicators */
} session_t;

static rm_htable_t session_table = RM_HTABLE_INIT(RM_HOBJ_SESSION, 0);

static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF", "railmpi://host"};
#define NPSETS 3

static session_t *session_get(MPI_Session h)
{
    return rm_htable_get(&session_table, h);
}

/* Entry of a session call: the session valid (errors on an invalid one go
 * to the handler for errors not tied to an object). */
#define SESSION_BEGIN(name, s, h)                                                          \
    static const char *const fn_name_ = name;                                                \
    SESSION_BEGIN_SHARED(s, h)

/* For helpers shared by several bindings: the caller passes `fn_name_`. */
#define SESSION_BEGIN_SHARED(s, h)                                                         \
    int err = MPI_SUCCESS;                                                                 \
    session_t *s;                                                                          \
    rm_lock();                                                                             \
    if (!mpi_state.engine || !((s) = session_get(h))) {                                    \
        rm_unlock();                                                                       \
        return mpi_err_raise(NULL, MPI_ERR_SESSION, fn_name_, "invalid session 0x%x", (unsigned)(h)); \
    }

#define SESSION_FAIL(s, cls, ...)                                                         \
    do {                                                                                   \
        err = mpi_err_raise_eh((s) ? (s)->errh : NULL, (s) ? (s)->handle : MPI_SESSION_NULL, (cls), \
                               fn_name_, __VA_ARGS__);                                     \
        goto fn_exit;                                                                      \
    } while (0)

#define SESSION_END()  \
    goto fn_exit;      \
    fn_exit:           \
    rm_unlock();       \
    return err

static const char *const thread_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                           "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* The "thread_level" the info asks for (MPI_THREAD_SINGLE without one);
 * -1 for a value that names no level. */
static int info_thread_level(MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return MPI_THREAD_SINGLE;
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (PMPI_Info_get(info, "thread_level", MPI_MAX_INFO_VAL, val, &flag) != MPI_SUCCESS)
        return -2;
    if (!flag)
        return MPI_THREAD_SINGLE;
    for (int l = 0; l < 4; l++)
        if (!strcasecmp(val, thread_names[l]))
            return l;
    return -1;
}

RM_ALIAS(Session_init)
int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char *const fn_name_ = "MPI_Session_init";
    errhandler_t *e = errhandler_get(errhandler);
    if (!session)
        return mpi_err_raise_eh(e, MPI_SESSION_NULL, MPI_ERR_ARG, fn_name_, "session is NULL");
    if (!e)
        return mpi_err_raise(NULL, MPI_ERR_ERRHANDLER, fn_name_, "invalid error handler 0x%x",
                             (unsigned)errhandler);
    int level = info_thread_level(info);
    if (level == -2)
        return mpi_err_raise_eh(e, MPI_SESSION_NULL, MPI_ERR_INFO, fn_name_, "invalid info 0x%x",
                                (unsigned)info);
    if (level < 0)
        return mpi_err_raise_eh(e, MPI_SESSION_NULL, MPI_ERR_ARG, fn_name_,
                                "info key thread_level names no thread level");
    if (!mpi_state.engine && mpi_state.finalized)
        return mpi_err_raise_eh(e, MPI_SESSION_NULL, MPI_ERR_OTHER, fn_name_,
                                "MPI_Finalize has stopped MPI in this process");
    int provided;
    int err = mpi_engine_start(fn_name_, level, &provided);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    session_t *s = calloc(1, sizeof *s);
    if (!s || !(s->bshare = proto_bsend_share_new()) || !(s->handle = rm_htable_alloc(&session_table, s))) {
        if (s)
            proto_bsend_share_drop(s->bshare);
        free(s);
        s = NULL;
        err = mpi_err_raise_eh(e, MPI_SESSION_NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    } else {
        s->thread_level = provided;
        s->errh = e;
        if (!e->builtin)
            e->refcount++;
        mpi_state.sessions++;
        *session = s->handle;
    }
    rm_unlock();
    return err;
}

RM_ALIAS(Session_finalize)
int PMPI_Session_finalize(MPI_Session *session)
{
    static const char *const fn_name_ = "MPI_Session_finalize";
    if (!session)
        return mpi_err_raise(NULL, MPI_ERR_ARG, fn_name_, "session is NULL");
    rm_lock();
    session_t *s = mpi_state.engine ? session_get(*session) : NULL;
    if (!s) {
        rm_unlock();
        return mpi_err_raise(NULL, MPI_ERR_SESSION, fn_name_, "invalid session 0x%x", (unsigned)*session);
    }
    rm_htable_free(&session_table, s->handle);
    errhandler_release(s->errh);
    proto_bsend_share_drop(s->bshare); /* its messages still go out */
    free(s);
    *session = MPI_SESSION_NULL;
    /* after MPI_Finalize, the last session stops the engine */
    int stop = --mpi_state.sessions == 0 && mpi_state.finalized;
    if (!mpi_state.sessions)
        rm_htable_destroy(&session_table);
    if (stop)
        mpi_engine_stop();
    rm_unlock();
    return MPI_SUCCESS;
}

/* The index of a process set's name, -1 for none. */
static int pset_find(const char *name)
{
    for (int i = 0; i < NPSETS; i++)
        if (i < 2 ? !strcasecmp(name, pset_names[i]) : !strcmp(name, pset_names[i]))
            return i;
    return -1;
}

/* The members of process set i in MPI_COMM_WORLD's order (world ranks). */
static group_t *pset_group(int i)
{
    int n = mpi_state.world_size, me = mpi_state.world_rank, cnt = 0;
    if (i == 0)
        cnt = n;
    else if (i == 1)
        cnt = 1;
    else
        for (int r = 0; r < n; r++)
            cnt += proto_proc.node_of[r] == proto_proc.node;
    group_t *g = group_new(cnt, me);
    if (!g)
        return NULL;
    int k = 0;
    for (int r = 0; r < n; r++)
        if (i == 0 || (i == 1 && r == me) || (i == 2 && proto_proc.node_of[r] == proto_proc.node))
            g->world[k++] = r;
    for (k = 0; k < cnt; k++)
        if (g->world[k] == me)
            g->rank = k;
    return g;
}

/* The group of the process set named `name` (unregistered), or the
 * error raised on the session's handler. */
static int pset_lookup(session_t *s, const char *fn_name_, const char *name, group_t **g)
{
    int i = pset_find(name);
    if (i < 0)
        return mpi_err_raise_eh(s->errh, s->handle, MPI_ERR_ARG, fn_name_, "no process set named \"%s\"",
                                name);
    if (!(*g = pset_group(i)))
        return mpi_err_raise_eh(s->errh, s->handle, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    return MPI_SUCCESS;
}

RM_ALIAS(Session_get_num_psets)
int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    SESSION_BEGIN("MPI_Session_get_num_psets", s, session);
    (void)info; /* no info key narrows the sets */
    if (!npset_names)
        SESSION_FAIL(s, MPI_ERR_ARG, "npset_names is NULL");
    *npset_names = NPSETS;
    SESSION_END();
}

RM_ALIAS(Session_get_nth_pset)
int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    SESSION_BEGIN("MPI_Session_get_nth_pset", s, session);
    (void)info;
    if (n < 0 || n >= NPSETS)
        SESSION_FAIL(s, MPI_ERR_ARG, "invalid process set index %d (there are %d)", n, NPSETS);
    if (!pset_len || *pset_len < 0)
        SESSION_FAIL(s, MPI_ERR_ARG, "pset_len is NULL or negative");
    int len = (int)strlen(pset_names[n]) + 1;
    if (*pset_len == 0) { /* the length it needs, with the terminating null */
        *pset_len = len;
        goto fn_exit;
    }
    if (!pset_name)
        SESSION_FAIL(s, MPI_ERR_ARG, "pset_name is NULL");
    snprintf(pset_name, (size_t)*pset_len, "%s", pset_names[n]);
    *pset_len = len;
    SESSION_END();
}

RM_ALIAS(Session_get_pset_info)
int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    SESSION_BEGIN("MPI_Session_get_pset_info", s, session);
    if (!pset_name || !info)
        SESSION_FAIL(s, MPI_ERR_ARG, "pset_name or info is NULL");
    group_t *g;
    if ((err = pset_lookup(s, fn_name_, pset_name, &g)) != MPI_SUCCESS)
        goto fn_exit;
    char val[32];
    snprintf(val, sizeof val, "%d", g->size);
    group_release(g);
    if (PMPI_Info_create(info) != MPI_SUCCESS || PMPI_Info_set(*info, "mpi_size", val) != MPI_SUCCESS)
        SESSION_FAIL(s, MPI_ERR_NO_MEM, "out of memory");
    SESSION_END();
}

RM_ALIAS(Session_get_info)
int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    SESSION_BEGIN("MPI_Session_get_info", s, session);
    if (!info_used)
        SESSION_FAIL(s, MPI_ERR_ARG, "info_used is NULL");
    if (PMPI_Info_create(info_used) != MPI_SUCCESS ||
        PMPI_Info_set(*info_used, "thread_level", thread_names[s->thread_level]) != MPI_SUCCESS)
        SESSION_FAIL(s, MPI_ERR_NO_MEM, "out of memory");
    SESSION_END();
}

RM_ALIAS(Session_create_errhandler)
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    /* a session's handler is called as a communicator's, with the session's
     * handle (MPI_Session and MPI_Comm are both int) */
    return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
}

RM_ALIAS(Session_set_errhandler)
int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    SESSION_BEGIN("MPI_Session_set_errhandler", s, session);
    errhandler_t *e = errhandler_get(errhandler);
    if (!e)
        SESSION_FAIL(s, MPI_ERR_ERRHANDLER, "invalid error handler 0x%x", (unsigned)errhandler);
    if (!e->builtin)
        e->refcount++;
    errhandler_release(s->errh);
    s->errh = e;
    SESSION_END();
}

RM_ALIAS(Session_get_errhandler)
int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    SESSION_BEGIN("MPI_Session_get_errhandler", s, session);
    if (!errhandler)
        SESSION_FAIL(s, MPI_ERR_ARG, "errhandler is NULL");
    if (!s->errh->builtin)
        s->errh->refcount++; /* the caller frees its reference */
    *errhandler = s->errh->handle;
    SESSION_END();
}

RM_ALIAS(Session_call_errhandler)
int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    SESSION_BEGIN("MPI_Session_call_errhandler", s, session);
    mpi_err_raise_eh(s->errh, s->handle, errorcode, fn_name_, "invoked by the application");
    SESSION_END();
}

RM_ALIAS(Group_from_session_pset)
int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    SESSION_BEGIN("MPI_Group_from_session_pset", s, session);
    if (!pset_name || !newgroup)
        SESSION_FAIL(s, MPI_ERR_ARG, "pset_name or newgroup is NULL");
    group_t *g;
    if ((err = pset_lookup(s, fn_name_, pset_name, &g)) != MPI_SUCCESS)
        goto fn_exit;
    if (!group_register(g)) {
        group_release(g);
        SESSION_FAIL(s, MPI_ERR_NO_MEM, "out of memory");
    }
    g->bshare = proto_bsend_share_hold(s->bshare);
    *newgroup = g->handle;
    SESSION_END();
}

/* The error handler argument of the creations from groups:
 * MPI_ERRHANDLER_NULL gives MPI_ERRORS_ARE_FATAL; NULL for an invalid one. */
static errhandler_t *creation_errhandler(MPI_Errhandler h)
{
    return errhandler_get(h == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : h);
}

static int group_has_me(const group_t *g)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == mpi_state.world_rank)
            return 1;
    return 0;
}

RM_ALIAS(Comm_create_from_group)
int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char *const fn_name_ = "MPI_Comm_create_from_group";
    int err = MPI_SUCCESS;
    if (!mpi_state.engine)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "called with neither MPI_Init nor a session");
    rm_lock();
    errhandler_t *e = creation_errhandler(errhandler);
    group_t *g = group_get(group), *ng = NULL;
    comm_t *n = NULL;
    (void)info; /* no hints are taken from it */
    if (!e)
        err = mpi_err_raise(NULL, MPI_ERR_ERRHANDLER, fn_name_, "invalid error handler 0x%x",
                            (unsigned)errhandler);
    else if (!g)
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_, "invalid group 0x%x",
                               (unsigned)group);
    else if (!stringtag || strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_ARG, fn_name_,
                               "stringtag is NULL or longer than MPI_MAX_STRINGTAG_LEN");
    else if (!newcomm)
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_ARG, fn_name_, "newcomm is NULL");
    else if (g->size == 0)
        *newcomm = MPI_COMM_NULL;
    else if (!group_has_me(g))
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_,
                               "the calling process is not in the group");
    else if (!(ng = group_new(g->size, 0)))
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    else {
        memcpy(ng->world, g->world, sizeof(int) * (size_t)g->size);
        ng->bshare = proto_bsend_share_hold(g->bshare);
        rm_status_t st = comm_create_from_group(ng, stringtag, e, &n);
        if (st < 0) {
            group_release(ng);
            err = mpi_err_raise_eh(e, MPI_COMM_NULL, mpi_err_from_status(st), fn_name_, "%s",
                                   rm_status_str(st));
        } else
            *newcomm = n->handle;
    }
    rm_unlock();
    return err;
}

/* An argument group of MPI_Intercomm_create_from_groups: valid, not empty,
 * the leader one of its ranks. */
static int check_side(errhandler_t *e, const char *fn_name_, const char *which, group_t *g, MPI_Group h,
                      int leader)
{
    if (!g)
        return mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_, "invalid %s group 0x%x", which,
                                (unsigned)h);
    if (g->size == 0)
        return mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_, "the %s group is empty", which);
    if (leader < 0 || leader >= g->size)
        return mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_RANK, fn_name_,
                                "invalid %s leader %d (group size %d)", which, leader, g->size);
    return MPI_SUCCESS;
}

static group_t *group_copy(const group_t *g)
{
    group_t *c = group_new(g->size, 0);
    if (c) {
        memcpy(c->world, g->world, sizeof(int) * (size_t)g->size);
        c->bshare = proto_bsend_share_hold(g->bshare);
    }
    return c;
}

RM_ALIAS(Intercomm_create_from_groups)
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char *const fn_name_ = "MPI_Intercomm_create_from_groups";
    int err = MPI_SUCCESS;
    if (!mpi_state.engine)
        return mpi_err_raise(NULL, MPI_ERR_OTHER, fn_name_, "called with neither MPI_Init nor a session");
    rm_lock();
    errhandler_t *e = creation_errhandler(errhandler);
    group_t *lg = group_get(local_group), *rg = group_get(remote_group), *lc = NULL, *rc = NULL;
    comm_t *n = NULL;
    (void)info; /* no hints are taken from it */
    if (!e) {
        err = mpi_err_raise(NULL, MPI_ERR_ERRHANDLER, fn_name_, "invalid error handler 0x%x",
                            (unsigned)errhandler);
        goto out;
    }
    if ((err = check_side(e, fn_name_, "local", lg, local_group, local_leader)) != MPI_SUCCESS ||
        (err = check_side(e, fn_name_, "remote", rg, remote_group, remote_leader)) != MPI_SUCCESS)
        goto out;
    if (!stringtag || strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN || !newintercomm) {
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_ARG, fn_name_,
                               "stringtag or newintercomm is NULL, or stringtag is longer than "
                               "MPI_MAX_STRINGTAG_LEN");
        goto out;
    }
    if (!group_has_me(lg)) {
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_,
                               "the calling process is not in the local group");
        goto out;
    }
    for (int i = 0; i < lg->size; i++)
        for (int j = 0; j < rg->size; j++)
            if (lg->world[i] == rg->world[j]) {
                err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_GROUP, fn_name_,
                                       "the local and remote groups share a process");
                goto out;
            }
    if (!(lc = group_copy(lg)) || !(rc = group_copy(rg))) {
        group_release(lc);
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, MPI_ERR_NO_MEM, fn_name_, "out of memory");
        goto out;
    }
    rm_status_t st = comm_inter_from_groups(lc, rc, stringtag, e, &n);
    if (st < 0) {
        group_release(lc);
        group_release(rc);
        err = mpi_err_raise_eh(e, MPI_COMM_NULL, mpi_err_from_status(st), fn_name_, "%s",
                               rm_status_str(st));
    } else
        *newintercomm = n->handle;
out:
    rm_unlock();
    return err;
}

/* Handles are integers in both languages (MPICH's header makes these macros). */
RM_ALIAS(Session_c2f)
MPI_Fint PMPI_Session_c2f(MPI_Session session)
{
    return (MPI_Fint)session;
}

RM_ALIAS(Session_f2c)
MPI_Session PMPI_Session_f2c(MPI_Fint session)
{
    return (MPI_Session)session;
}

/* ---- the session's buffer for buffered sends (MPI-4.1 3.6.1) ----------- */

/* Used by buffered sends on the communicators derived from the session that
 * have none of their own (src/proto/bsend.c, bsend_pick). MPI_BUFFER_AUTOMATIC
 * (or a null pointer): railmpi allocates as needed. */
static int session_attach(const char *fn_name_, MPI_Session session, void *buffer, MPI_Count size)
{
    SESSION_BEGIN_SHARED(s, session);
    if (size < 0)
        SESSION_FAIL(s, MPI_ERR_ARG, "negative size %lld", (long long)size);
    rm_status_t st = proto_bsend_attach(&s->bshare->buf, buffer, (size_t)size, mpi_bsend_is_automatic(buffer));
    if (st == RM_ERR_INVALID)
        SESSION_FAIL(s, MPI_ERR_BUFFER, "a buffer is already attached to this session; detach it first");
    if (st < 0)
        SESSION_FAIL(s, mpi_err_from_status(st), "%s", rm_status_str(st));
    SESSION_END();
}

/* As MPI_Buffer_detach answers (mpi_bsend_detach_answer); errors go to the
 * session's handler. */
static int session_detach(const char *fn_name_, MPI_Session session, void *buffer_addr, int *size,
                          MPI_Count *csize)
{
    SESSION_BEGIN_SHARED(s, session);
    if (!buffer_addr || (!size && !csize))
        SESSION_FAIL(s, MPI_ERR_ARG, "buffer_addr or size is NULL");
    mpi_bsend_detach_answer(&s->bshare->buf, buffer_addr, size, csize);
    SESSION_END();
}

RM_ALIAS(Session_attach_buffer)
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

RM_ALIAS(Session_attach_buffer_c)
int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

RM_ALIAS(Session_detach_buffer)
int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    return session_detach("MPI_Session_detach_buffer", session, buffer_addr, size, NULL);
}

RM_ALIAS(Session_detach_buffer_c)
int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return session_detach("MPI_Session_detach_buffer_c", session, buffer_addr, NULL, size);
}

RM_ALIAS(Session_flush_buffer)
int PMPI_Session_flush_buffer(MPI_Session session)
{
    SESSION_BEGIN("MPI_Session_flush_buffer", s, session);
    rm_status_t st = proto_bsend_flush(s->bshare->buf);
    if (st < 0)
        SESSION_FAIL(s, mpi_err_from_status(st), "%s", rm_status_str(st));
    SESSION_END();
}

RM_ALIAS(Session_iflush_buffer)
int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    SESSION_BEGIN("MPI_Session_iflush_buffer", s, session);
    if (!request)
        SESSION_FAIL(s, MPI_ERR_ARG, "request is NULL");
    request_t *r;
    rm_status_t st = proto_bsend_iflush(s->bshare->buf, &r);
    if (st < 0)
        SESSION_FAIL(s, mpi_err_from_status(st), "%s", rm_status_str(st));
    *request = r->handle;
    SESSION_END();
}
