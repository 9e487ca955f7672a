/* Free lists by size class, for blocks that the per-message paths allocate
 * and free over and over (unexpected messages' entries, the channel's kept
 * frames): a block is a fixed header followed by room for a payload, the
 * room a power of two from (1 << min_shift) bytes up, over `nclasses`
 * classes. A freed block goes back on its class's list while that class
 * keeps less than `keep_bytes` for reuse, so a stream of messages costs no
 * malloc and free and a flood's blocks go back to the system once it is
 * over. A payload beyond the largest class gets a block of its own size,
 * freed when put back. Not thread-safe: its users hold the library's lock. */
#ifndef RM_UTIL_POOL_H
#define RM_UTIL_POOL_H

#include <stddef.h>

#define RM_POOL_CLASSES_MAX 16

typedef struct rm_pool {
    size_t hdr;            /* bytes before the payload room */
    unsigned min_shift;    /* the smallest class's room is 1 << min_shift bytes */
    unsigned nclasses;     /* at most RM_POOL_CLASSES_MAX */
    size_t keep_bytes;     /* per class, blocks kept for reuse */
    void *spare[RM_POOL_CLASSES_MAX];
    unsigned nspare[RM_POOL_CLASSES_MAX];
} rm_pool_t;

/* The class of a payload of `len` bytes: the one whose room is the next
 * power of two from 1 << min_shift; nclasses past the largest. */
static inline int rm_pool_class(unsigned min_shift, unsigned nclasses, size_t len)
{
    if (len <= (size_t)1 << min_shift)
        return 0;
    int c = 64 - __builtin_clzll((unsigned long long)(len - 1)) - (int)min_shift;
    return c > (int)nclasses ? (int)nclasses : c;
}

/* The bytes of a block for `len` payload bytes after a header of `hdr`. */
static inline size_t rm_pool_block_bytes(size_t hdr, unsigned min_shift, unsigned nclasses, size_t len)
{
    int c = rm_pool_class(min_shift, nclasses, len);
    return hdr + (c < (int)nclasses ? (size_t)1 << (min_shift + (unsigned)c) : len);
}

#define RM_POOL_INIT(hdr_, min_shift_, nclasses_, keep_) \
    {.hdr = (hdr_), .min_shift = (min_shift_), .nclasses = (nclasses_), .keep_bytes = (keep_)}

/* A block with room for `len` bytes after the header; *cls is its class
 * (nclasses for one of its own size). NULL when out of memory. */
void *rm_pool_get(rm_pool_t *p, size_t len, int *cls);
/* Give a block back, with the class rm_pool_get said. */
void rm_pool_put(rm_pool_t *p, void *blk, int cls);
/* Free every block kept for reuse. */
void rm_pool_drain(rm_pool_t *p);
/* Blocks of class `cls` kept for reuse. */
unsigned rm_pool_kept(const rm_pool_t *p, int cls);

#endif
