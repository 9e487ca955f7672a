/* MPI_Info: ordered (key, value) lists. MPI_INFO_ENV is a read-only info
 * describing how the job was started. The info object calls may be made
 * before MPI_Init and after MPI_Finalize (MPI-4.0 11.4.1); infos made then
 * are the caller's to free. */
#include "mpi/mpiimpl.h"
#include "util/handle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct info_kv {
    char *key, *val;
} info_kv_t;

typedef struct info {
    int handle;
    int readonly;
    int n, cap;
    info_kv_t *kv;
} info_t;

static rm_htable_t info_table = RM_HTABLE_INIT(RM_HOBJ_INFO, 2); /* index 1 = MPI_INFO_ENV */
static info_t info_env = {.handle = MPI_INFO_ENV, .readonly = 1};

static int info_put(info_t *in, const char *key, const char *val)
{
    for (int i = 0; i < in->n; i++) {
        if (!strcmp(in->kv[i].key, key)) {
            char *v = strdup(val);
            if (!v)
                return MPI_ERR_NO_MEM;
            free(in->kv[i].val);
            in->kv[i].val = v;
            return MPI_SUCCESS;
        }
    }
    if (in->n == in->cap) {
        int cap = in->cap ? in->cap * 2 : 8;
        info_kv_t *kv = realloc(in->kv, sizeof *kv * (size_t)cap);
        if (!kv)
            return MPI_ERR_NO_MEM;
        in->kv = kv;
        in->cap = cap;
    }
    in->kv[in->n].key = strdup(key);
    in->kv[in->n].val = strdup(val);
    if (!in->kv[in->n].key || !in->kv[in->n].val) {
        free(in->kv[in->n].key);
        free(in->kv[in->n].val);
        return MPI_ERR_NO_MEM;
    }
    in->n++;
    return MPI_SUCCESS;
}

static info_t *info_get(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        /* filled once MPI is up: before MPI_Init it is empty (MPI-4.0 lets
         * the info calls run then), after MPI_Finalize empty again */
        if (!info_env.n && mpi_state.initialized && !mpi_state.finalized) {
            char v[32];
            snprintf(v, sizeof v, "%d", mpi_state.world_size);
            info_put(&info_env, "maxprocs", v);
            info_put(&info_env, "host", mpi_state.processor_name);
            info_put(&info_env, "thread_level", mpi_state.thread_level == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SINGLE");
        }
        return &info_env;
    }
    return rm_htable_get(&info_table, h);
}

static void info_destroy(info_t *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->kv[i].key);
        free(in->kv[i].val);
    }
    free(in->kv);
    if (in != &info_env) {
        rm_htable_free(&info_table, in->handle);
        free(in);
    }
}

#define CHECK_INFO(in, h)                                                            \
    do {                                                                             \
        if (!((in) = info_get(h)))                                                   \
            MPI_FAIL(NULL, MPI_ERR_INFO, "invalid info 0x%x", (unsigned)(h));        \
    } while (0)

#define CHECK_KEY(k)                                                                 \
    do {                                                                             \
        if (!(k) || !*(k) || strlen(k) > MPI_MAX_INFO_KEY)                           \
            MPI_FAIL(NULL, MPI_ERR_INFO_KEY, "invalid info key");                    \
    } while (0)

RM_ALIAS(Info_create)
int PMPI_Info_create(MPI_Info *info)
{
    MPI_BEGIN_ANYTIME("MPI_Info_create");
    CHECK_ARG(NULL, info, "info is NULL");
    info_t *in = calloc(1, sizeof *in);
    if (!in || !(in->handle = rm_htable_alloc(&info_table, in))) {
        free(in);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    *info = in->handle;
    MPI_END();
}

RM_ALIAS(Info_set)
int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    MPI_BEGIN_ANYTIME("MPI_Info_set");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_KEY(key);
    if (!value || strlen(value) > MPI_MAX_INFO_VAL)
        MPI_FAIL(NULL, MPI_ERR_INFO_VALUE, "invalid info value");
    if (in->readonly)
        MPI_FAIL(NULL, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
    if ((err = info_put(in, key, value)) != MPI_SUCCESS)
        MPI_FAIL(NULL, err, "out of memory");
    MPI_END();
}

RM_ALIAS(Info_delete)
int PMPI_Info_delete(MPI_Info info, const char *key)
{
    MPI_BEGIN_ANYTIME("MPI_Info_delete");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_KEY(key);
    if (in->readonly)
        MPI_FAIL(NULL, MPI_ERR_INFO, "MPI_INFO_ENV is read-only");
    for (int i = 0; i < in->n; i++) {
        if (!strcmp(in->kv[i].key, key)) {
            free(in->kv[i].key);
            free(in->kv[i].val);
            memmove(&in->kv[i], &in->kv[i + 1], sizeof *in->kv * (size_t)(in->n - i - 1));
            in->n--;
            goto fn_exit;
        }
    }
    MPI_FAIL(NULL, MPI_ERR_INFO_NOKEY, "no key '%s'", key);
    MPI_END();
}

static const char *info_find(info_t *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->kv[i].key, key))
            return in->kv[i].val;
    return NULL;
}

RM_ALIAS(Info_get)
int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    MPI_BEGIN_ANYTIME("MPI_Info_get");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_KEY(key);
    CHECK_ARG(NULL, value && flag && valuelen >= 0, "invalid value, valuelen or flag");
    const char *v = info_find(in, key);
    *flag = v != NULL;
    if (v)
        snprintf(value, (size_t)valuelen + 1, "%s", v);
    MPI_END();
}

/* MPI-4.0: the value as a C string in a buffer of *buflen bytes (the
 * terminating NUL included), truncated to fit; *buflen becomes the size the
 * whole value needs. A missing key changes neither. */
RM_ALIAS(Info_get_string)
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    MPI_BEGIN_ANYTIME("MPI_Info_get_string");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_KEY(key);
    CHECK_ARG(NULL, buflen && flag, "buflen or flag is NULL");
    CHECK_ARG(NULL, *buflen >= 0, "buflen is %d", *buflen);
    CHECK_ARG(NULL, value || *buflen == 0, "value is NULL with buflen %d", *buflen);
    const char *v = info_find(in, key);
    *flag = v != NULL;
    if (!v)
        goto fn_exit;
    size_t need = strlen(v) + 1;
    if (*buflen > 0) {
        size_t n = need <= (size_t)*buflen ? need - 1 : (size_t)*buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = (int)need;
    MPI_END();
}

/* MPI-4.0: a new info holding what MPI_INFO_ENV holds, with command and argv
 * from the arguments as MPI_Init(&argc, &argv) would take them; callable
 * before MPI_Init (what is not known yet, such as maxprocs, is left out) and
 * after MPI_Finalize. */
RM_ALIAS(Info_create_env)
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    MPI_BEGIN_ANYTIME("MPI_Info_create_env");
    CHECK_ARG(NULL, info, "info is NULL");
    CHECK_ARG(NULL, argc >= 0, "argc is %d", argc);
    info_t *out = calloc(1, sizeof *out);
    if (!out || !(out->handle = rm_htable_alloc(&info_table, out))) {
        free(out);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    int rc = MPI_SUCCESS;
    if (argv && argc > 0 && argv[0]) {
        rc = info_put(out, "command", argv[0]);
        /* the arguments after the command, separated by spaces */
        size_t len = 1;
        for (int i = 1; i < argc && argv[i]; i++)
            len += strlen(argv[i]) + 1;
        char *all = calloc(len, 1);
        for (int i = 1; all && i < argc && argv[i]; i++) {
            if (i > 1)
                strcat(all, " ");
            strcat(all, argv[i]);
        }
        if (rc == MPI_SUCCESS && argc > 1)
            rc = all ? info_put(out, "argv", all) : MPI_ERR_NO_MEM;
        free(all);
    }
    if (mpi_state.initialized && !mpi_state.finalized) {
        info_t *env = info_get(MPI_INFO_ENV);
        for (int i = 0; rc == MPI_SUCCESS && i < env->n; i++)
            rc = info_put(out, env->kv[i].key, env->kv[i].val);
    } else {
        char host[256];
        if (gethostname(host, sizeof host) == 0) {
            host[sizeof host - 1] = '\0';
            rc = info_put(out, "host", host);
        }
    }
    if (rc != MPI_SUCCESS) {
        info_destroy(out);
        MPI_FAIL(NULL, rc, "out of memory");
    }
    *info = out->handle;
    MPI_END();
}

RM_ALIAS(Info_get_valuelen)
int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    MPI_BEGIN_ANYTIME("MPI_Info_get_valuelen");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_KEY(key);
    CHECK_ARG(NULL, valuelen && flag, "valuelen or flag is NULL");
    const char *v = info_find(in, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    MPI_END();
}

RM_ALIAS(Info_get_nkeys)
int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    MPI_BEGIN_ANYTIME("MPI_Info_get_nkeys");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_ARG(NULL, nkeys, "nkeys is NULL");
    *nkeys = in->n;
    MPI_END();
}

RM_ALIAS(Info_get_nthkey)
int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    MPI_BEGIN_ANYTIME("MPI_Info_get_nthkey");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_ARG(NULL, key, "key is NULL");
    if (n < 0 || n >= in->n)
        MPI_FAIL(NULL, MPI_ERR_ARG, "key index %d out of range (%d keys)", n, in->n);
    strcpy(key, in->kv[n].key);
    MPI_END();
}

RM_ALIAS(Info_dup)
int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    MPI_BEGIN_ANYTIME("MPI_Info_dup");
    info_t *in;
    CHECK_INFO(in, info);
    CHECK_ARG(NULL, newinfo, "newinfo is NULL");
    info_t *out = calloc(1, sizeof *out);
    if (!out || !(out->handle = rm_htable_alloc(&info_table, out))) {
        free(out);
        MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
    }
    for (int i = 0; i < in->n; i++)
        if (info_put(out, in->kv[i].key, in->kv[i].val) != MPI_SUCCESS) {
            info_destroy(out);
            MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of memory");
        }
    *newinfo = out->handle;
    MPI_END();
}

RM_ALIAS(Info_free)
int PMPI_Info_free(MPI_Info *info)
{
    MPI_BEGIN_ANYTIME("MPI_Info_free");
    info_t *in;
    CHECK_ARG(NULL, info, "info is NULL");
    CHECK_INFO(in, *info);
    if (in->readonly)
        MPI_FAIL(NULL, MPI_ERR_INFO, "cannot free MPI_INFO_ENV");
    info_destroy(in);
    *info = MPI_INFO_NULL;
    MPI_END();
}

/* Communicator hints: kept as given (MPI_Comm_set_info, replaced by
 * MPI_Comm_dup_with_info, copied by MPI_Comm_dup), but railmpi acts on none
 * of them yet, the mpi_assert_* assertions included; MPI_Comm_get_info
 * returns the hints in use (MPI-4.1 7.4.4: not those ignored), so none. */
static int info_to_hints(info_t *in, comm_hint_t **hints)
{
    for (int i = 0; in && i < in->n; i++) {
        comm_hint_t *h = *hints;
        while (h && strcmp(h->key, in->kv[i].key))
            h = h->next;
        char *v = strdup(in->kv[i].val);
        if (!v)
            return MPI_ERR_NO_MEM;
        if (h) {
            free(h->val);
            h->val = v;
            continue;
        }
        comm_hint_t n = {.key = strdup(in->kv[i].key), .val = v};
        comm_hint_t *one = &n;
        if (!n.key || comm_hints_copy(one, hints) < 0) {
            free(n.key);
            free(v);
            return MPI_ERR_NO_MEM;
        }
        free(n.key);
        free(v);
    }
    return MPI_SUCCESS;
}

/* Set (replace = 0) or replace all (replace = 1) the hints of comm. */
static int info_comm_hints(const char *fn_name_, MPI_Comm comm, MPI_Info info, int replace)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    info_t *in = NULL;
    CHECK_COMM(c, comm);
    if (info != MPI_INFO_NULL)
        CHECK_INFO(in, info);
    comm_hint_t *h = NULL;
    if (!replace && comm_hints_copy(c->hints, &h) < 0)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    if ((err = info_to_hints(in, &h)) != MPI_SUCCESS) {
        comm_hints_free(&h);
        MPI_FAIL(c, err, "out of memory");
    }
    comm_hints_free(&c->hints);
    c->hints = h;
    MPI_END();
}

RM_ALIAS(Comm_set_info)
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    return info_comm_hints("MPI_Comm_set_info", comm, info, 0);
}

int mpi_info_hints(MPI_Info info, comm_hint_t **hints)
{
    *hints = NULL;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    info_t *in = info_get(info);
    if (!in)
        return MPI_ERR_INFO;
    int rc = info_to_hints(in, hints);
    if (rc != MPI_SUCCESS)
        comm_hints_free(hints);
    return rc;
}

int mpi_comm_replace_hints(MPI_Comm comm, MPI_Info info)
{
    return info_comm_hints("MPI_Comm_dup_with_info", comm, info, 1);
}

RM_ALIAS(Comm_get_info)
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    MPI_BEGIN("MPI_Comm_get_info");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, info_used, "info_used is NULL");
    info_t *in = calloc(1, sizeof *in);
    if (!in || !(in->handle = rm_htable_alloc(&info_table, in))) {
        free(in);
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    }
    *info_used = in->handle;
    MPI_END();
}

RM_ALIAS(Info_c2f)
MPI_Fint PMPI_Info_c2f(MPI_Info info)
{
    return (MPI_Fint)info;
}

RM_ALIAS(Info_f2c)
MPI_Info PMPI_Info_f2c(MPI_Fint info)
{
    return (MPI_Info)info;
}

void mpi_info_finalize(void)
{
    for (int i = 0; i < info_table.used; i++)
        if (info_table.slots[i])
            info_destroy(info_table.slots[i]);
    rm_htable_destroy(&info_table);
    info_destroy(&info_env);
    memset(&info_env, 0, sizeof info_env);
    info_env.handle = MPI_INFO_ENV;
    info_env.readonly = 1;
}

int mpi_info_value(MPI_Info info, const char *key, const char **val)
{
    *val = NULL;
    info_t *in = info == MPI_INFO_NULL ? NULL : info_get(info);
    if (!in)
        return MPI_ERR_INFO;
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->kv[i].key, key))
            *val = in->kv[i].val;
    return MPI_SUCCESS;
}
