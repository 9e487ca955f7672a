/* Derived datatypes: sizes and extents, send/receive of every constructor
 * with untouched gaps, Get_elements, Pack/Unpack, envelope/contents, and a
 * type freed while a send using it is in flight. */
#include <mpi.h>

#include "check.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


struct rec { char c; double d; int i; }; /* padded: c@0 d@8 i@16, extent 24 */

/* Send `count` items of `t` from a patterned buffer to self and compare the
 * described bytes; bytes outside the type must stay untouched. */
static void roundtrip(MPI_Datatype t, int count, size_t span, const char *what)
{
    unsigned char *s = malloc(span), *r = malloc(span), *ps, *pr;
    for (size_t i = 0; i < span; i++)
        s[i] = (unsigned char)(i * 13 + 1);
    memset(r, 0xEE, span);
    int psize;
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
    ps = malloc((size_t)psize + 1);
    pr = malloc((size_t)psize + 1);
    MPI_Request q;
    MPI_Irecv(r, count, t, rank, 1, MPI_COMM_WORLD, &q);
    MPI_Send(s, count, t, rank, 1, MPI_COMM_WORLD);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int pos = 0;
    MPI_Pack(s, count, t, ps, psize, &pos, MPI_COMM_WORLD);
    CHECK(pos == psize, "%s: packed %d of %d", what, pos, psize);
    pos = 0;
    MPI_Pack(r, count, t, pr, psize, &pos, MPI_COMM_WORLD);
    CHECK(!memcmp(ps, pr, (size_t)psize), "%s: data differs", what);
    /* every byte not covered by the type is still 0xEE */
    unsigned char *mask = calloc(1, span), *ones = malloc((size_t)psize + 1);
    memset(ones, 1, (size_t)psize + 1);
    pos = 0;
    MPI_Unpack(ones, psize, &pos, mask, count, t, MPI_COMM_WORLD);
    for (size_t i = 0; i < span; i++)
        CHECK(mask[i] || r[i] == 0xEE, "%s: gap byte %zu written", what, i);
    free(s); free(r); free(ps); free(pr); free(mask); free(ones);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype t[8];
    MPI_Aint lb, ext, tlb, text;
    int sz;

    MPI_Type_contiguous(5, MPI_INT, &t[0]);
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &t[1]);
    MPI_Type_create_hvector(3, 1, 100, MPI_INT, &t[2]);
    int bl[3] = {2, 1, 3}, dp[3] = {0, 5, 9};
    MPI_Type_indexed(3, bl, dp, MPI_SHORT, &t[3]);
    int dpb[3] = {7, 1, 4};
    MPI_Type_create_indexed_block(3, 2, dpb, MPI_INT, &t[4]);
    int sbl[3] = {1, 1, 1};
    MPI_Aint sdp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Datatype sty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, sbl, sdp, sty, &t[5]);
    MPI_Type_create_resized(t[0], -4, 40, &t[6]);
    MPI_Type_dup(t[1], &t[7]);
    for (int i = 0; i < 8; i++)
        MPI_Type_commit(&t[i]);

    MPI_Type_size(t[1], &sz);
    MPI_Type_get_extent(t[1], &lb, &ext);
    CHECK(sz == 64 && lb == 0 && ext == (3 * 5 + 2) * 8, "vector size %d extent %ld", sz, (long)ext);
    MPI_Type_size(t[5], &sz);
    MPI_Type_get_extent(t[5], &lb, &ext);
    CHECK(sz == 13 && ext == (MPI_Aint)sizeof(struct rec), "struct size %d extent %ld", sz, (long)ext);
    MPI_Type_get_extent(t[6], &lb, &ext);
    MPI_Type_get_true_extent(t[6], &tlb, &text);
    CHECK(lb == -4 && ext == 40 && tlb == 0 && text == 20, "resized bounds");
    MPI_Type_get_extent(t[4], &lb, &ext);
    CHECK(lb == 4 && ext == 32, "indexed_block lb %ld extent %ld", (long)lb, (long)ext);

    roundtrip(t[0], 3, 3 * 20, "contiguous");
    roundtrip(t[1], 2, 2 * 136, "vector");
    roundtrip(t[2], 2, 2 * 204 + 8, "hvector");
    roundtrip(t[3], 3, 3 * 24, "indexed");
    roundtrip(t[4], 2, 2 * 40 + 8, "indexed_block");
    roundtrip(t[5], 10, 10 * sizeof(struct rec), "struct");
    roundtrip(t[7], 1, 136, "dup");
    roundtrip(t[1], 20000, 20000 * 136, "vector, rendezvous size");

    /* counts and elements of a vector receive */
    double v[200];
    MPI_Status st;
    MPI_Sendrecv(v, 2, t[1], rank, 2, v + 100, 3, t[1], rank, 2, MPI_COMM_WORLD, &st);
    int cnt, el;
    MPI_Get_count(&st, t[1], &cnt);
    MPI_Get_elements(&st, t[1], &el);
    CHECK(cnt == 2 && el == 16, "count %d elements %d", cnt, el);
    MPI_Sendrecv(v, 5, MPI_DOUBLE, rank, 3, v + 100, 1, t[1], rank, 3, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, t[1], &cnt);
    MPI_Get_elements(&st, t[1], &el);
    CHECK(cnt == MPI_UNDEFINED && el == 5, "partial: count %d elements %d", cnt, el);

    /* envelope and contents */
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t[1], &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1, "vector envelope");
    int ints[3];
    MPI_Datatype inner;
    MPI_Type_get_contents(t[1], 3, 0, 1, ints, NULL, &inner);
    CHECK(ints[0] == 4 && ints[1] == 2 && ints[2] == 5 && inner == MPI_DOUBLE, "vector contents");
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED, "named envelope");

    /* freed while in flight: the send still completes correctly */
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Datatype tmp;
    MPI_Type_vector(1000, 1, 2, MPI_INT, &tmp);
    MPI_Type_commit(&tmp);
    int *src = malloc(sizeof(int) * 2000), *dst = malloc(sizeof(int) * 1000);
    for (int i = 0; i < 2000; i++)
        src[i] = rank * 10000 + i;
    MPI_Request q;
    MPI_Isend(src, 1, tmp, peer, 4, MPI_COMM_WORLD, &q);
    MPI_Type_free(&tmp);
    CHECK(tmp == MPI_DATATYPE_NULL, "Type_free did not reset the handle");
    MPI_Recv(dst, 1000, MPI_INT, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < 1000; i++)
        CHECK(dst[i] == from * 10000 + 2 * i, "in-flight freed type: element %d", i);
    free(src);
    free(dst);
    for (int i = 0; i < 8; i++)
        MPI_Type_free(&t[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
