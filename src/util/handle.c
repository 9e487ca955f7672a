#include "util/handle.h"

#include <stdlib.h>

static int rm_htable_grow(rm_htable_t *t, int need)
{
    if (need <= t->cap)
        return 0;
    int cap = t->cap ? t->cap : 64;
    while (cap < need)
        cap *= 2;
    void **slots = realloc(t->slots, (size_t)cap * sizeof *slots);
    if (!slots)
        return -1;
    int *fr = realloc(t->free_idx, (size_t)cap * sizeof *fr);
    if (!fr) {
        t->slots = slots;
        return -1;
    }
    for (int i = t->cap; i < cap; i++)
        slots[i] = 0;
    t->slots = slots;
    t->free_idx = fr;
    t->cap = cap;
    return 0;
}

int rm_htable_set(rm_htable_t *t, int idx, void *obj)
{
    if (rm_htable_grow(t, idx + 1))
        return 0;
    t->slots[idx] = obj;
    if (t->used <= idx)
        t->used = idx + 1;
    return RM_HANDLE_MAKE(RM_HKIND_DIRECT, t->obj, idx);
}

int rm_htable_alloc(rm_htable_t *t, void *obj)
{
    int idx;
    if (t->nfree) {
        idx = t->free_idx[--t->nfree];
    } else {
        idx = t->used < t->reserved ? t->reserved : t->used;
        if (rm_htable_grow(t, idx + 1))
            return 0;
        t->used = idx + 1;
    }
    t->slots[idx] = obj;
    return RM_HANDLE_MAKE(RM_HKIND_DIRECT, t->obj, idx);
}

void rm_htable_free(rm_htable_t *t, int handle)
{
    if (!rm_htable_get(t, handle))
        return;
    int idx = RM_HANDLE_INDEX(handle);
    t->slots[idx] = 0;
    if (idx >= t->reserved)
        t->free_idx[t->nfree++] = idx;
}

void rm_htable_destroy(rm_htable_t *t)
{
    free(t->slots);
    free(t->free_idx);
    t->slots = 0;
    t->free_idx = 0;
    t->cap = t->used = t->nfree = 0;
}
