/* ranks: 1 2 3 4 5 */
/* The one-host broadcast chain (RAILMPI_COLL_BCAST_CHAIN_MIN), forced on
 * for every size here, in pieces of 40 bytes (RAILMPI_COLL_BCAST_CHAIN_SEG):
 * every root; counts of none, one, a piece and around it, many pieces and a
 * last piece that is short; a contiguous type, a strided one (the gaps
 * must stay as they were), one whose size does not divide the piece and
 * one larger than a piece (one item per piece); blocking and nonblocking;
 * and a communicator whose ranks run in the reverse order of the world's,
 * so the chain's neighbours are not the world's. Across hosts the chain is
 * not taken and the same checks hold for the other algorithms. */
#include "check.h"

#include <stdlib.h>

static int rank, size;

static void bcast(MPI_Comm comm, int count, int root, MPI_Datatype dt, int stride, int nb)
{
    int me;
    MPI_Comm_rank(comm, &me);
    size_t n = (size_t)stride * (size_t)(count > 0 ? count : 1);
    int *x = malloc(sizeof(int) * n);
    for (size_t i = 0; i < n; i++)
        x[i] = me == root ? 7 * (int)i + root : -5;
    if (nb) {
        MPI_Request rq;
        MPI_Ibcast(x, count, dt, root, comm, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Bcast(x, count, dt, root, comm);
    }
    /* a strided type leaves the odd ints of each pair alone */
    for (size_t i = 0; i < (size_t)stride * (size_t)count; i++) {
        int gap = stride == 2 && i % 2;
        int want = gap && me != root ? -5 : 7 * (int)i + root;
        CHECK(x[i] == want, "bcast count %d root %d stride %d%s [%zu] = %d, want %d", count, root,
              stride, nb ? " nonblocking" : "", i, x[i], want);
    }
    free(x);
}

int main(int argc, char **argv)
{
    setenv("RAILMPI_COLL_BCAST_CHAIN_MIN", "1", 1);
    setenv("RAILMPI_COLL_BCAST_CHAIN_SEG", "40", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Datatype pair, three, sixteen; /* every other int of two; 12 bytes; 64 bytes */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &pair);
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_contiguous(16, MPI_INT, &sixteen);
    MPI_Type_commit(&pair);
    MPI_Type_commit(&three);
    MPI_Type_commit(&sixteen);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);

    int counts[] = {0, 1, 9, 10, 11, 100, 1001, 65537};
    for (int c = 0; c < 2; c++) {
        MPI_Comm comm = c ? rev : MPI_COMM_WORLD;
        for (int root = 0; root < size; root++)
            for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) {
                int nb = (root + (int)k) % 2;
                bcast(comm, counts[k], root, MPI_INT, 1, nb);
                if (counts[k] > 5000)
                    continue;
                bcast(comm, counts[k], root, pair, 2, 1 - nb);
                bcast(comm, counts[k], root, three, 3, nb);
                bcast(comm, counts[k], root, sixteen, 16, 1 - nb);
            }
    }

    MPI_Comm_free(&rev);
    MPI_Type_free(&pair);
    MPI_Type_free(&three);
    MPI_Type_free(&sixteen);
    MPI_Finalize();
    if (rank == 0)
        printf("coll_bcast_chain: ok\n");
    return 0;
}
