/* Copies of up to 64 bytes, inline: the payload of a small message into a
 * shared-memory ring frame and out of it into the receive buffer. With
 * glibc's memcpy (256-bit moves for 17-64 bytes) a one-host ping-pong took
 * 0.38-0.43 us at 24-64 bytes against 0.27 at 16; with these moves 0.26-0.28
 * (docs/performance.md, 2026-11-28). Each size class moves its first and
 * its last bytes, overlapping in the middle: up to 16 bytes in 4- or 8-byte
 * moves, 17-64 in 16-byte ones (the target has SSE2, not AVX). 17-23 bytes
 * stay about 0.36 us, as with memcpy. Beyond 64 bytes, memcpy (16-byte moves
 * were no faster there). */
#ifndef RM_UTIL_COPY_H
#define RM_UTIL_COPY_H

#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t w[2];
} rm_b16_t;

/* The first and the last sizeof(T) bytes of n, sizeof(T) <= n <= 2 * sizeof(T)
 * (source and destination do not overlap). */
#define RM_COPY_ENDS(T, dst, src, n)                                                              \
    do {                                                                                          \
        T head_, tail_;                                                                           \
        memcpy(&head_, (src), sizeof(T));                                                         \
        memcpy(&tail_, (src) + (n) - sizeof(T), sizeof(T));                                       \
        memcpy((dst), &head_, sizeof(T));                                                         \
        memcpy((dst) + (n) - sizeof(T), &tail_, sizeof(T));                                       \
    } while (0)

static inline void rm_copy_small(void *dstv, const void *srcv, size_t n)
{
    unsigned char *dst = dstv;
    const unsigned char *src = srcv;
    if (n > 64) {
        memcpy(dst, src, n);
    } else if (n > 32) { /* the first 32 bytes, then the last 32 */
        RM_COPY_ENDS(rm_b16_t, dst, src, 32);
        RM_COPY_ENDS(rm_b16_t, dst + n - 32, src + n - 32, 32);
    } else if (n > 16) {
        RM_COPY_ENDS(rm_b16_t, dst, src, n);
    } else if (n >= 8) {
        RM_COPY_ENDS(uint64_t, dst, src, n);
    } else if (n >= 4) {
        RM_COPY_ENDS(uint32_t, dst, src, n);
    } else if (n) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/* Zeroes n >= 16 bytes in 16-byte stores, unrolled where n is a constant:
 * for a request (248 bytes) gcc emits `rep stosq` from memset, whose start-up
 * took a tenth of a sender's time in a one-host windowed message rate of
 * 512-byte messages. */
static inline void rm_zero(void *p, size_t n)
{
    unsigned char *d = p;
    const rm_b16_t z = {{0, 0}};
    _Pragma("GCC unroll 32") for (size_t i = 0; i + 16 <= n; i += 16) memcpy(d + i, &z, 16);
    if (n % 16)
        memcpy(d + n - 16, &z, 16);
}

#endif
