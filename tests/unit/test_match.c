/* Matching queues: FIFO per key, wildcard ordering against specific
 * receives, unexpected-message lookups, removal; unexpected entries and
 * their payloads from the pools (match_unexp_new): room for the payload in
 * the class of the next power of two, as much as match_unexp_bytes (what
 * flow control charges) says, reuse without malloc, and a bounded number
 * kept for reuse. */
#include "proto/match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static void *allocs[4096];
static int nallocs;

static void *track(void *p)
{
    allocs[nallocs++] = p;
    return p;
}

static request_t *mkreq(int ctx, int src, int tag)
{
    request_t *r = track(calloc(1, sizeof *r));
    r->ctx = (uint32_t)ctx;
    r->peer = src;
    r->tag = tag;
    return r;
}

static unexp_t *mkunexp(int ctx, int src, int tag, uint64_t sid)
{
    unexp_t *u = track(calloc(1, sizeof *u));
    u->ctx = (uint32_t)ctx;
    u->src = src;
    u->tag = tag;
    u->sid = sid;
    u->world_src = src;
    return u;
}

int main(void)
{
    match_state_t m;
    if (match_init(&m, 64) != RM_OK)
        FAIL("init");

    /* posted: same key is FIFO; a wildcard posted earlier wins over a later specific one */
    request_t *a = mkreq(0, 1, 5), *b = mkreq(0, 1, 5), *w = mkreq(0, MPI_ANY_SOURCE, 5),
              *c = mkreq(0, 1, 5), *t = mkreq(0, 2, MPI_ANY_TAG), *other = mkreq(2, 1, 5);
    match_post(&m, a);
    match_post(&m, b);
    match_post(&m, w);
    match_post(&m, c);
    match_post(&m, t);
    match_post(&m, other);
    if (match_take_posted(&m, 0, 1, 5) != a) FAIL("first match is not a");
    if (match_take_posted(&m, 0, 1, 5) != b) FAIL("second match is not b");
    if (match_take_posted(&m, 0, 1, 5) != w) FAIL("wildcard posted before c must match first");
    if (match_take_posted(&m, 0, 3, 5) != NULL) FAIL("nothing should match src 3 tag 5");
    if (match_take_posted(&m, 0, 2, 99) != t) FAIL("ANY_TAG receive from 2");
    if (match_take_posted(&m, 1, 1, 5) != NULL) FAIL("context 1 must not match context 0/2");
    if (!match_remove_posted(&m, c)) FAIL("remove c");
    if (match_remove_posted(&m, c)) FAIL("c removed twice");
    if (match_take_posted(&m, 0, 1, 5) != NULL) FAIL("c still matches after removal");
    if (match_take_posted(&m, 2, 1, 5) != other) FAIL("context 2 message");
    if (m.nposted != 0) FAIL("%zu posted left", m.nposted);

    /* many tags and peers: each lookup finds its own entry */
    enum { N = 2000 };
    request_t *many[N];
    for (int i = 0; i < N; i++) {
        many[i] = mkreq(4, i % 37, i);
        match_post(&m, many[i]);
    }
    for (int i = N - 1; i >= 0; i--)
        if (match_take_posted(&m, 4, i % 37, i) != many[i])
            FAIL("many: entry %d", i);

    /* unexpected: arrival order for wildcards, per key FIFO */
    unexp_t *u1 = mkunexp(0, 3, 7, 1), *u2 = mkunexp(0, 1, 8, 2), *u3 = mkunexp(0, 3, 7, 3),
            *u4 = mkunexp(0, 1, 7, 4);
    match_add_unexp(&m, u1);
    match_add_unexp(&m, u2);
    match_add_unexp(&m, u3);
    match_add_unexp(&m, u4);
    if (match_find_unexp(&m, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 0) != u1) FAIL("probe any/any");
    if (match_find_unexp(&m, 0, 1, MPI_ANY_TAG, 0) != u2) FAIL("probe src 1 any tag");
    if (match_find_unexp(&m, 0, MPI_ANY_SOURCE, 7, 1) != u1) FAIL("take any src tag 7");
    if (match_find_unexp(&m, 0, 3, 7, 1) != u3) FAIL("take 3/7 after u1");
    if (match_take_unexp_by_sender(&m, 1, 4) != u4) FAIL("take by sender");
    if (match_find_unexp(&m, 0, 1, 7, 0) != NULL) FAIL("u4 still there");
    if (match_find_unexp(&m, 0, 1, 8, 1) != u2) FAIL("take u2");
    if (m.nunexp != 0) FAIL("%zu unexpected left", m.nunexp);

    /* an emptied bucket lingers in its table (the next receive with the same
     * envelope reuses it): it matches nothing, is reused, and goes away
     * when another key empties, on both queues */
    for (int round = 0; round < 3; round++) {
        request_t *p1 = mkreq(6, 1, 1), *p2 = mkreq(6, 1, 1), *q1 = mkreq(6, 2, 1);
        match_post(&m, p1);
        if (match_take_posted(&m, 6, 1, 1) != p1) FAIL("idle: first take");
        if (match_take_posted(&m, 6, 1, 1) != NULL) FAIL("idle: emptied key still matches");
        if (match_remove_posted(&m, p1)) FAIL("idle: removed from an emptied key");
        match_post(&m, p2);
        match_post(&m, q1);
        if (match_take_posted(&m, 6, 2, 1) != q1) FAIL("idle: other key");
        if (match_take_posted(&m, 6, 1, 1) != p2) FAIL("idle: reused key");
        unexp_t *e1 = mkunexp(6, 1, 1, 10), *e2 = mkunexp(6, 2, 1, 11), *e3 = mkunexp(6, 1, 1, 12);
        match_add_unexp(&m, e1);
        if (match_find_unexp(&m, 6, 1, 1, 1) != e1) FAIL("idle: unexpected take");
        if (match_find_unexp(&m, 6, 1, 1, 0) != NULL) FAIL("idle: emptied unexpected key");
        match_add_unexp(&m, e2);
        match_add_unexp(&m, e3);
        if (match_find_unexp(&m, 6, 2, 1, 1) != e2) FAIL("idle: unexpected other key");
        if (match_find_unexp(&m, 6, MPI_ANY_SOURCE, 1, 1) != e3) FAIL("idle: unexpected reused key");
        if (m.nposted != 0 || m.nunexp != 0) FAIL("idle: %zu posted, %zu unexpected left", m.nposted, m.nunexp);
    }

    /* unexpected entries: the payload fits in the entry, every byte of it
     * (ASan checks the writes), for sizes around both pooled classes */
    static const size_t lens[] = {0, 1, 127, 128, 129, 255, 256, 257, 1024, 1025, 4095, 4096, 4097,
                                  16383, 16384, 16385, 65536};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        unexp_t *u = match_unexp_new(lens[i]);
        if (!u || !u->data) FAIL("unexp_new(%zu)", lens[i]);
        memset(u->data, 0x5a, lens[i]);
        if (lens[i] && (u->data[0] != 0x5a || u->data[lens[i] - 1] != 0x5a)) FAIL("unexp payload %zu", lens[i]);
        /* the class whose room is the smallest power of two >= the payload, from 128 B */
        int want = 0;
        while (want < 8 && ((size_t)128 << want) < lens[i])
            want++;
        if (u->cls != want) FAIL("a %zu-byte payload in class %d, not %d", lens[i], u->cls, want);
        /* what flow control charges for it (match_unexp_bytes) is what it holds */
        size_t held = sizeof(unexp_t) + (want < 8 ? (size_t)128 << want : lens[i]);
        if (match_unexp_bytes(lens[i]) != held)
            FAIL("a %zu-byte payload holds %zu bytes, match_unexp_bytes says %zu", lens[i], held,
                 match_unexp_bytes(lens[i]));
        match_unexp_free(u);
    }
    /* a freed entry of a pooled class is the next one handed out: no malloc */
    unexp_t *s1 = match_unexp_new(16);
    match_unexp_free(s1);
    if (match_unexp_new(128) != s1) FAIL("a small entry was not reused");
    unexp_t *m1 = match_unexp_new(3000);
    match_unexp_free(m1);
    if (match_unexp_new(4096) != m1) FAIL("a 4 KiB entry was not reused");
    size_t before[8];
    for (int c = 0; c < 8; c++)
        before[c] = match_unexp_kept(c);
    unexp_t *b1 = match_unexp_new(20000); /* beyond the classes: freed, never kept */
    match_unexp_free(b1);
    for (int c = 0; c < 8; c++)
        if (match_unexp_kept(c) != before[c]) FAIL("class %d kept a 20000-byte entry", c);
    match_unexp_free(s1);
    match_unexp_free(m1);
    /* a flood's entries: at most 256 KiB of them wait for reuse afterwards,
     * and the pool is full then */
    enum { FLOOD = 20000 };
    static unexp_t *flood[FLOOD];
    for (int i = 0; i < FLOOD; i++)
        if (!(flood[i] = match_unexp_new(64))) FAIL("flood entry %d", i);
    for (int i = 0; i < FLOOD; i++)
        match_unexp_free(flood[i]);
    size_t kept = match_unexp_kept(0), room = sizeof(unexp_t) + 128;
    if (kept * room > (256u << 10) || (kept + 1) * room <= (256u << 10))
        FAIL("after a flood of %d, %zu small entries (%zu bytes each) wait for reuse", FLOOD, kept, room);
    for (int i = 0; i < FLOOD; i++)
        if (!(flood[i] = match_unexp_new(64))) FAIL("flood entry %d again", i);
    if (match_unexp_kept(0) != 0) FAIL("%zu entries kept while 20000 are in use", match_unexp_kept(0));
    for (int i = 0; i < FLOOD; i++)
        match_unexp_free(flood[i]);

    match_destroy(&m);
    for (int i = 0; i < nallocs; i++)
        free(allocs[i]);
    printf("OK\n");
    return 0;
}
