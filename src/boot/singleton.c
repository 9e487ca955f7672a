/* A process started without a launcher is a one-rank job; what it publishes
 * stays in memory, where its own gets find it. */
#include "boot/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct {
    struct { char *key, *val; } *kv;
    int nkv;
} boot_single;

static rm_status_t singleton_init(boot_info_t *out)
{
    snprintf(boot_conn.kvsname, sizeof boot_conn.kvsname, "singleton-%d", (int)getpid());
    out->singleton = 1;
    out->rank = 0;
    out->size = 1;
    return RM_OK;
}

static rm_status_t singleton_put(const char *key, const char *val)
{
    void *kv = realloc(boot_single.kv, sizeof *boot_single.kv * (size_t)(boot_single.nkv + 1));
    if (!kv)
        return RM_ERR_NOMEM;
    boot_single.kv = kv;
    char *k = strdup(key), *v = strdup(val);
    if (!k || !v) {
        free(k);
        free(v);
        return RM_ERR_NOMEM;
    }
    boot_single.kv[boot_single.nkv].key = k;
    boot_single.kv[boot_single.nkv].val = v;
    boot_single.nkv++;
    return RM_OK;
}

static rm_status_t singleton_fence(void)
{
    return RM_OK;
}

static rm_status_t singleton_get(int rank, const char *key, char *val, size_t cap)
{
    for (int i = 0; i < boot_single.nkv; i++) {
        if (!strcmp(boot_single.kv[i].key, key)) {
            snprintf(val, cap, "%s", boot_single.kv[i].val);
            return RM_OK;
        }
    }
    return RM_ERR_NOT_FOUND;
}

static void singleton_abort(int code, const char *msg)
{
    (void)code;
    (void)msg;
}

static rm_status_t singleton_finalize(void)
{
    for (int i = 0; i < boot_single.nkv; i++) {
        free(boot_single.kv[i].key);
        free(boot_single.kv[i].val);
    }
    free(boot_single.kv);
    boot_single.kv = NULL;
    boot_single.nkv = 0;
    return RM_OK;
}

const boot_ops_t boot_singleton_ops = {
    .name = "singleton",
    /* what no launcher's protocol can carry, so a program that runs alone
     * does not fail only once it is launched */
    .bad_key = " =;\n",
    .bad_val = " ;\n",
    .init = singleton_init,
    .put = singleton_put,
    .fence = singleton_fence,
    .get = singleton_get,
    .abort = singleton_abort,
    .finalize = singleton_finalize,
};
