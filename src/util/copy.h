/* Copies of up to 64 bytes, inline: the payload of a small message into a
 * shared-memory ring frame and out of it into the receive buffer. With
 * glibc's memcpy (256-bit moves for 17-64 bytes) a one-host ping-pong took
 * 0.38-0.43 us at 24-64 bytes against 0.27 at 16; with these moves 0.26-0.27
 * (docs/performance.md, 2026-11-28). Moves of 16 bytes that overlap
 * a ring frame's payload start (8 bytes short of a cache line) twice were as
 * slow as memcpy, so 17-32 bytes go as four 8-byte moves. Beyond 64 bytes,
 * memcpy (16-byte moves were no faster there). */
#ifndef RM_UTIL_COPY_H
#define RM_UTIL_COPY_H

#include <stdint.h>
#include <string.h>

typedef struct {
    uint64_t lo, hi;
} rm_b16_t;

static inline void rm_copy_small(void *dstv, const void *srcv, size_t n)
{
    unsigned char *dst = dstv;
    const unsigned char *src = srcv;
    if (n > 64) {
        memcpy(dst, src, n);
    } else if (n > 32) {
        rm_b16_t a, b, c, d; /* all loaded before any store */
        memcpy(&a, src, 16);
        memcpy(&b, src + 16, 16);
        memcpy(&c, src + n - 32, 16);
        memcpy(&d, src + n - 16, 16);
        memcpy(dst, &a, 16);
        memcpy(dst + 16, &b, 16);
        memcpy(dst + n - 32, &c, 16);
        memcpy(dst + n - 16, &d, 16);
    } else if (n > 16) {
        /* 8-byte moves: 16-byte ones at an address 8 bytes short of a
         * cache line (a ring frame's payload) cost as much as memcpy */
        uint64_t a, b, c, d;
        memcpy(&a, src, 8);
        memcpy(&b, src + 8, 8);
        memcpy(&c, src + n - 16, 8);
        memcpy(&d, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + 8, &b, 8);
        memcpy(dst + n - 16, &c, 8);
        memcpy(dst + n - 8, &d, 8);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n) {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

#endif
