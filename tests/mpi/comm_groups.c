/* Communicators and groups: dup with attribute copy/delete callbacks, split
 * (colors, keys, MPI_UNDEFINED), split_type, create from a group, compare,
 * names, group algebra, error handlers, and context-id recycling over many
 * dup/free cycles. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, deletes, handler_calls, handler_code;


static int count_delete(MPI_Comm c, int key, void *val, void *extra)
{
    deletes++;
    return MPI_SUCCESS;
}

static void handler(MPI_Comm *c, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* attributes: copied by MPI_COMM_DUP_FN, not by MPI_COMM_NULL_COPY_FN */
    int kcopy, knocopy, flag, *got;
    static int value = 42;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kcopy, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &knocopy, NULL);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, kcopy, &value);
    MPI_Comm_set_attr(dup, knocopy, &value);
    MPI_Comm dup2;
    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_get_attr(dup2, kcopy, &got, &flag);
    CHECK(flag && *got == 42, "attribute not copied by MPI_COMM_DUP_FN");
    MPI_Comm_get_attr(dup2, knocopy, &got, &flag);
    CHECK(!flag, "attribute copied despite MPI_COMM_NULL_COPY_FN");
    MPI_Comm_free(&dup2);
    CHECK(deletes == 1, "delete callbacks on free: %d", deletes);
    MPI_Comm_delete_attr(dup, knocopy);
    CHECK(deletes == 2, "delete callback on delete_attr");
    int res;
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
    CHECK(res == MPI_CONGRUENT, "compare dup: %d", res);
    MPI_Comm_compare(dup, dup, &res);
    CHECK(res == MPI_IDENT, "compare self");
    MPI_Comm_set_name(dup, "dup of world");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(dup, name, &len);
    CHECK(!strcmp(name, "dup of world"), "name");
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(!strcmp(name, "MPI_COMM_WORLD"), "world's name");

    /* split: even/odd, reversed keys; rank 0 opts out */
    MPI_Comm sp;
    MPI_Comm_split(dup, rank == 0 ? MPI_UNDEFINED : rank % 2, size - rank, &sp);
    if (rank == 0) {
        CHECK(sp == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
    } else {
        int sr, ss, want = 0;
        MPI_Comm_rank(sp, &sr);
        MPI_Comm_size(sp, &ss);
        for (int r = 1; r < size; r++)
            if (r % 2 == rank % 2 && r > rank)
                want++; /* larger ranks have smaller keys and come first */
        CHECK(sr == want, "split rank %d, expected %d", sr, want);
        int sum, mine = rank;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, sp);
        int expect = 0;
        for (int r = 1; r < size; r++)
            if (r % 2 == rank % 2)
                expect += r;
        CHECK(sum == expect, "allreduce on split comm");
        MPI_Comm_free(&sp);
    }
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    int shs;
    MPI_Comm_size(shared, &shs);
    /* on one host everyone shares memory; across hosts, the host's ranks do */
    CHECK(shs >= 1 && shs <= size && (getenv("RAILMPI_HOST_ID") || shs == size),
          "shared-memory communicator of %d ranks out of %d", shs, size);
    MPI_Comm_free(&shared);

    /* groups */
    MPI_Group world, evens, odds, uni, inter, diff, rng;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ev[64], nev = 0;
    for (int r = 0; r < size; r += 2)
        ev[nev++] = r;
    MPI_Group_incl(world, nev, ev, &evens);
    MPI_Group_excl(world, nev, ev, &odds);
    MPI_Group_union(evens, odds, &uni);
    MPI_Group_intersection(evens, world, &inter);
    MPI_Group_difference(world, evens, &diff);
    int gs;
    MPI_Group_size(uni, &gs);
    CHECK(gs == size, "union size");
    MPI_Group_compare(inter, evens, &res);
    CHECK(res == MPI_IDENT, "intersection");
    MPI_Group_compare(diff, odds, &res);
    CHECK(res == MPI_IDENT, "difference");
    MPI_Group_compare(uni, world, &res);
    CHECK(res == (size > 2 ? MPI_SIMILAR : MPI_IDENT), "union order: %d", res);
    int ranges[1][3] = {{size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, ranges, &rng);
    int in[2] = {0, size - 1}, out[2];
    MPI_Group_translate_ranks(world, 2, in, rng, out);
    CHECK(out[0] == size - 1 && out[1] == 0, "translate_ranks");
    /* a communicator from the evens */
    MPI_Comm ec;
    MPI_Comm_create(MPI_COMM_WORLD, evens, &ec);
    if (rank % 2 == 0) {
        int er;
        MPI_Comm_rank(ec, &er);
        CHECK(er == rank / 2, "Comm_create rank");
        MPI_Barrier(ec);
        MPI_Comm_free(&ec);
    } else {
        CHECK(ec == MPI_COMM_NULL, "non-member got a communicator");
    }
    MPI_Group grs[] = {world, evens, odds, uni, inter, diff, rng};
    for (unsigned i = 0; i < sizeof grs / sizeof grs[0]; i++)
        if (grs[i] != MPI_GROUP_EMPTY)
            MPI_Group_free(&grs[i]);

    /* a user error handler sees the error code; the call returns */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Errhandler_free(&eh);
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, size + 5, 0, dup);
    CHECK(handler_calls == 1, "user handler calls: %d", handler_calls);
    int cls;
    MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "user handler code class %d", cls);
    MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    CHECK(handler_calls == 2, "Comm_call_errhandler");

    /* context ids are recycled */
    for (int i = 0; i < 3000; i++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free_keyval(&kcopy);
    MPI_Comm_free_keyval(&knocopy);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
