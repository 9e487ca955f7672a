/* rm_copy_small (src/util/copy.h): every length from 0 to 200 bytes, at
 * every source and destination offset within a 16-byte period (the ring
 * frames' payloads start 8 bytes short of a cache line), copies exactly the
 * bytes asked for and touches none around them. rm_zero: every length from
 * 16 to 300 at every offset, and the request-sized constant one, clears
 * exactly those bytes. */
#include "util/copy.h"

#include <stdio.h>

static int fails;

static void zero_check(size_t n, size_t d0, int constant)
{
    unsigned char dst[512];
    size_t dof = 64 + d0;
    for (size_t i = 0; i < sizeof dst; i++)
        dst[i] = 0xA5;
    if (constant)
        rm_zero(dst + dof, 248); /* unrolled at compile time, as for a request */
    else
        rm_zero(dst + dof, n);
    for (size_t i = 0; i < sizeof dst; i++) {
        unsigned char want = i >= dof && i < dof + n ? 0 : 0xA5;
        if (dst[i] != want) {
            if (fails++ < 10)
                printf("FAIL: rm_zero of %zu bytes at offset %zu: byte %zu is %u, not %u\n", n, dof, i,
                       dst[i], want);
            return;
        }
    }
}

int main(void)
{
    unsigned char src[512], dst[512];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 131u + 7u);
    for (size_t n = 0; n <= 200; n++)
        for (size_t so = 0; so < 16; so++)
            for (size_t d0 = 0; d0 < 16; d0++) {
                size_t dof = 64 + d0; /* room before it, to see a stray store */
                for (size_t i = 0; i < sizeof dst; i++)
                    dst[i] = 0xA5;
                rm_copy_small(dst + dof, src + so, n);
                for (size_t i = 0; i < sizeof dst; i++) {
                    unsigned char want = i >= dof && i < dof + n ? src[so + i - dof] : 0xA5;
                    if (dst[i] != want) {
                        if (fails++ < 10)
                            printf("FAIL: n %zu, source offset %zu, destination offset %zu: byte %zu is %u, not %u\n",
                                   n, so, dof, i, dst[i], want);
                        break;
                    }
                }
            }
    for (size_t n = 16; n <= 300; n++)
        for (size_t d0 = 0; d0 < 16; d0++)
            zero_check(n, d0, 0);
    for (size_t d0 = 0; d0 < 16; d0++)
        zero_check(248, d0, 1);
    if (fails)
        return 1;
    printf("OK\n");
    return 0;
}
