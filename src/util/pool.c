#include "pool.h"

#include <stdlib.h>

static inline size_t rm_pool_room(const rm_pool_t *p, int cls)
{
    return (size_t)1 << (p->min_shift + (unsigned)cls);
}

void *rm_pool_get(rm_pool_t *p, size_t len, int *cls)
{
    int c = rm_pool_class(p->min_shift, p->nclasses, len);
    *cls = c;
    void *b;
    if (c < (int)p->nclasses && (b = p->spare[c])) {
        p->spare[c] = *(void **)b; /* a free block's first bytes link the list */
        p->nspare[c]--;
        return b;
    }
    return malloc(rm_pool_block_bytes(p->hdr, p->min_shift, p->nclasses, len));
}

void rm_pool_put(rm_pool_t *p, void *blk, int cls)
{
    if (!blk)
        return;
    if (cls >= 0 && cls < (int)p->nclasses &&
        (p->nspare[cls] + 1) * (p->hdr + rm_pool_room(p, cls)) <= p->keep_bytes) {
        *(void **)blk = p->spare[cls];
        p->spare[cls] = blk;
        p->nspare[cls]++;
        return;
    }
    free(blk);
}

void rm_pool_drain(rm_pool_t *p)
{
    for (unsigned c = 0; c < p->nclasses; c++) {
        while (p->spare[c]) {
            void *b = p->spare[c];
            p->spare[c] = *(void **)b;
            free(b);
        }
        p->nspare[c] = 0;
    }
}

unsigned rm_pool_kept(const rm_pool_t *p, int cls)
{
    return cls >= 0 && cls < (int)p->nclasses ? p->nspare[cls] : 0;
}
