/* Scheduling policies as pure functions: which path, how a message is cut. */
#include "rail/sched.h"

#include <stdio.h>
#include <stdlib.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static rail_chunk_t out[4096];

/* Chunks cover [0, bytes) exactly once, in order, each within chunk_max
 * (unless merged for lack of slots), only on usable paths. */
static void check_cover(const rail_sched_path_t *p, int n, int k, size_t bytes, size_t chunk_max,
                        const char *what)
{
    size_t off = 0;
    for (int i = 0; i < k; i++) {
        if (out[i].off != off)
            FAIL("%s: chunk %d starts at %zu, expected %zu", what, i, out[i].off, off);
        if (out[i].path < 0 || out[i].path >= n || !p[out[i].path].usable)
            FAIL("%s: chunk %d on unusable path %d", what, i, out[i].path);
        if (out[i].len > chunk_max)
            FAIL("%s: chunk %d is %zu bytes > %zu", what, i, out[i].len, chunk_max);
        off += out[i].len;
    }
    if (off != bytes)
        FAIL("%s: chunks cover %zu of %zu bytes", what, off, bytes);
}

static size_t on_path(int k, int path)
{
    size_t s = 0;
    for (int i = 0; i < k; i++)
        if (out[i].path == path)
            s += out[i].len;
    return s;
}

int main(void)
{
    rail_policy_t pol;
    if (rail_policy_parse("adaptive", &pol) || pol != RAIL_POLICY_ADAPTIVE ||
        rail_policy_parse("Round-Robin", &pol) || pol != RAIL_POLICY_ROUND_ROBIN ||
        !rail_policy_parse("fastest", &pol))
        FAIL("policy names");

    rail_sched_path_t two[2] = {{1, 250e6, 20e-6, 0}, {1, 250e6, 20e-6, 0}};
    rail_sched_path_t down0[2] = {{0, 250e6, 20e-6, 0}, {1, 250e6, 20e-6, 0}};
    rail_sched_path_t none[2] = {{0, 1, 0, 0}, {0, 1, 0, 0}};

    /* picks */
    if (rail_sched_pick(RAIL_POLICY_FIRST, two, 2, 5, 3) != 0) FAIL("first");
    if (rail_sched_pick(RAIL_POLICY_FIRST, down0, 2, 5, 3) != 1) FAIL("first skips a down path");
    if (rail_sched_pick(RAIL_POLICY_FAILOVER, two, 2, 5, 3) != 0) FAIL("failover uses the first path");
    if (rail_sched_pick_chunk(RAIL_POLICY_FAILOVER, down0, 2, 4096, 7, 0, NULL) != 1)
        FAIL("failover moves chunks to the surviving path");
    if (rail_sched_pick(RAIL_POLICY_ROUND_ROBIN, two, 2, 0, 0) != 0 ||
        rail_sched_pick(RAIL_POLICY_ROUND_ROBIN, two, 2, 1, 0) != 1 ||
        rail_sched_pick(RAIL_POLICY_ROUND_ROBIN, two, 2, 2, 0) != 0) FAIL("round-robin");
    if (rail_sched_pick(RAIL_POLICY_ROUND_ROBIN, down0, 2, 0, 0) != 1 ||
        rail_sched_pick(RAIL_POLICY_ROUND_ROBIN, down0, 2, 1, 0) != 1) FAIL("round-robin skips down");
    if (rail_sched_pick(RAIL_POLICY_BINDING, two, 2, 9, 3) != 1 ||
        rail_sched_pick(RAIL_POLICY_BINDING, two, 2, 9, 4) != 0) FAIL("binding");
    for (int p = 0; p <= RAIL_POLICY_ADAPTIVE; p++)
        if (rail_sched_pick((rail_policy_t)p, none, 2, 0, 0) != -1 ||
            rail_sched_plan((rail_policy_t)p, none, 2, 1000, 100, 100, 0, 0, out, 64) != 0)
            FAIL("%s with no usable path", rail_policy_name((rail_policy_t)p));

    /* even: two halves */
    size_t mb8 = 8 << 20;
    int k = rail_sched_plan(RAIL_POLICY_EVEN, two, 2, mb8, 65536, 1 << 20, 0, 0, out, 4096);
    check_cover(two, 2, k, mb8, 1 << 20, "even");
    if (on_path(k, 0) != mb8 / 2 || on_path(k, 1) != mb8 / 2) FAIL("even split %zu/%zu", on_path(k, 0), on_path(k, 1));

    /* weighted 4:1 */
    rail_sched_path_t w[2] = {{1, 4, 0, 0}, {1, 1, 0, 0}};
    k = rail_sched_plan(RAIL_POLICY_WEIGHTED, w, 2, 1000000, 1000, 100000, 0, 0, out, 4096);
    check_cover(w, 2, k, 1000000, 100000, "weighted");
    if (on_path(k, 0) != 800000) FAIL("weighted share %zu", on_path(k, 0));

    /* adaptive over 2 + 0.5 Gbit/s: about 4/5 on the fast rail */
    rail_sched_path_t het[2] = {{1, 250e6, 50e-6, 0}, {1, 62.5e6, 50e-6, 0}};
    k = rail_sched_plan(RAIL_POLICY_ADAPTIVE, het, 2, mb8, 65536, 1 << 20, 0, 0, out, 4096);
    check_cover(het, 2, k, mb8, 1 << 20, "adaptive");
    double fast = (double)on_path(k, 0) / (double)mb8;
    if (fast < 0.75 || fast > 0.85) FAIL("adaptive puts %.2f on the fast rail", fast);
    /* a backlog on the fast rail moves new chunks to the slow one */
    het[0].queued = 32 << 20;
    k = rail_sched_plan(RAIL_POLICY_ADAPTIVE, het, 2, mb8, 65536, 1 << 20, 0, 0, out, 4096);
    if (on_path(k, 1) < mb8 / 2) FAIL("adaptive ignores the fast rail's backlog (%zu on slow)", on_path(k, 1));
    /* a small message goes where it arrives first */
    if (rail_sched_pick(RAIL_POLICY_ADAPTIVE, het, 2, 0, 0) != 1) FAIL("adaptive pick with backlog");
    het[0].queued = 0;
    if (rail_sched_pick(RAIL_POLICY_ADAPTIVE, het, 2, 0, 0) != 0) FAIL("adaptive pick idle");

    /* chunk by chunk: weighted shares follow the weights, adaptive follows the queues */
    {
        rail_sched_path_t w2[2] = {{1, 3, 0, 0}, {1, 1, 0, 0}};
        double wrr[2] = {0, 0};
        int cnt[2] = {0, 0};
        for (int i = 0; i < 400; i++)
            cnt[rail_sched_pick_chunk(RAIL_POLICY_WEIGHTED, w2, 2, 1000, (uint64_t)i, 0, wrr)]++;
        if (cnt[0] != 300 || cnt[1] != 100) FAIL("weighted chunks %d/%d", cnt[0], cnt[1]);
        cnt[0] = cnt[1] = 0;
        for (int i = 0; i < 10; i++)
            cnt[rail_sched_pick_chunk(RAIL_POLICY_EVEN, w2, 2, 1000, (uint64_t)i, 0, wrr)]++;
        if (cnt[0] != 5) FAIL("even chunks %d/%d", cnt[0], cnt[1]);
        /* simulate: each rail drains at its own rate; adaptive splits by rate */
        rail_sched_path_t q2[2] = {{1, 1, 0, 0}, {1, 1, 0, 0}}; /* equal estimates, queues tell */
        size_t sent[2] = {0, 0};
        for (int step = 0; step < 4000; step++) {
            /* offered load (2 chunks a step) exceeds both rails together */
            for (int c = 0; c < 2; c++) {
                int p = rail_sched_pick_chunk(RAIL_POLICY_ADAPTIVE, q2, 2, 65536, 0, 0, wrr);
                if (q2[p].queued > (1 << 20))
                    continue; /* both queues full: the sender waits */
                q2[p].queued += 65536;
                sent[p] += 65536;
            }
            /* rail 0 drains 4x faster than rail 1 */
            q2[0].queued = q2[0].queued > 4 * 16384 ? q2[0].queued - 4 * 16384 : 0;
            q2[1].queued = q2[1].queued > 16384 ? q2[1].queued - 16384 : 0;
        }
        double share = (double)sent[0] / (double)(sent[0] + sent[1]);
        if (share < 0.75 || share > 0.85) FAIL("adaptive share on the fast rail %.2f", share);
    }

    /* random sizes: every policy covers every message exactly */
    srand(7);
    for (int it = 0; it < 2000; it++) {
        size_t bytes = (size_t)rand() % (9 << 20);
        size_t cmax = 1 + (size_t)rand() % (1 << 20), cmin = 1 + (size_t)rand() % cmax;
        rail_sched_path_t p3[3] = {{1, 1e8, 1e-5, 0}, {rand() % 2, 5e7, 1e-5, 0}, {1, 2e8, 1e-5, (size_t)rand() % 100000}};
        for (int p = 0; p <= RAIL_POLICY_ADAPTIVE; p++) {
            k = rail_sched_plan((rail_policy_t)p, p3, 3, bytes, cmin, cmax, (uint64_t)it, it % 4, out, 4096);
            if (k <= 0 && bytes) FAIL("%s planned nothing", rail_policy_name((rail_policy_t)p));
            check_cover(p3, 3, k, bytes, k == 4096 ? (size_t)-1 : cmax, rail_policy_name((rail_policy_t)p));
        }
    }
    printf("OK\n");
    return 0;
}
