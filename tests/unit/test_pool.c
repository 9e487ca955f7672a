/* util/pool: size classes of payload room by powers of two, blocks reused
 * from a class's free list (last freed, first handed out), a payload beyond
 * the largest class in a block of its own that is never kept, at most
 * keep_bytes of a class kept, and nothing kept after a drain. ASan checks
 * that every block holds its header and payload room. */
#include "util/pool.h"

#include <stdio.h>
#include <string.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return 1; } while (0)

int main(void)
{
    /* 40-byte header, room 256 B, 512 B, 1 KiB; at most 4 KiB of a class kept */
    rm_pool_t p = RM_POOL_INIT(40, 8, 3, 4096);
    static const struct { size_t len; int cls; } want[] = {
        {0, 0}, {1, 0}, {256, 0}, {257, 1}, {512, 1}, {513, 2}, {1024, 2}, {1025, 3}, {100000, 3}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int cls = -1;
        unsigned char *b = rm_pool_get(&p, want[i].len, &cls);
        if (!b) FAIL("no block for %zu bytes", want[i].len);
        if (cls != want[i].cls) FAIL("%zu bytes in class %d, not %d", want[i].len, cls, want[i].cls);
        memset(b, 0xa5, 40 + want[i].len);
        rm_pool_put(&p, b, cls);
    }
    if (rm_pool_kept(&p, 0) != 1 || rm_pool_kept(&p, 1) != 1 || rm_pool_kept(&p, 2) != 1 || rm_pool_kept(&p, 3) != 0)
        FAIL("kept after one block of each: %u %u %u %u", rm_pool_kept(&p, 0), rm_pool_kept(&p, 1),
             rm_pool_kept(&p, 2), rm_pool_kept(&p, 3));
    /* reuse: the block freed last is handed out first, in its own class only */
    int c1, c2, c3;
    void *a = rm_pool_get(&p, 10, &c1), *b = rm_pool_get(&p, 10, &c2);
    rm_pool_put(&p, a, c1);
    rm_pool_put(&p, b, c2);
    if (rm_pool_get(&p, 200, &c3) != b || rm_pool_get(&p, 1, &c3) != a) FAIL("blocks not reused last-in first-out");
    void *m = rm_pool_get(&p, 300, &c3);
    rm_pool_put(&p, m, c3);
    void *s = rm_pool_get(&p, 100, &c1);
    if (s == m) FAIL("a 512-byte block handed out for 100 bytes");
    rm_pool_put(&p, s, c1);
    rm_pool_put(&p, a, 0);
    rm_pool_put(&p, b, 0);
    /* the bound: (40 + 256) bytes a block, 13 fit in 4 KiB */
    void *blk[40];
    for (int i = 0; i < 40; i++)
        if (!(blk[i] = rm_pool_get(&p, 64, &c1))) FAIL("block %d", i);
    for (int i = 0; i < 40; i++)
        rm_pool_put(&p, blk[i], 0);
    if (rm_pool_kept(&p, 0) != 4096 / (40 + 256)) FAIL("%u small blocks kept, not %d", rm_pool_kept(&p, 0), 4096 / (40 + 256));
    rm_pool_drain(&p);
    for (int c = 0; c < 3; c++)
        if (rm_pool_kept(&p, c)) FAIL("class %d keeps %u blocks after the drain", c, rm_pool_kept(&p, c));
    rm_pool_put(&p, NULL, 0); /* nothing to give back */
    printf("OK\n");
    return 0;
}
