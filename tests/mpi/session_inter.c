/* ranks: 2 4 */
/* MPI_Intercomm_create_from_groups in a sessions-only program: the even
 * and the odd ranks of mpi://WORLD (the odd group in reverse order) make
 * an intercommunicator; point-to-point crosses it, an allreduce gives each
 * side the other's sum, a merge orders the even side first; two made at
 * once (distinct tags) do not mix. Overlapping groups (MPI_ERR_GROUP) and
 * a leader outside its group (MPI_ERR_RANK) are refused. */
#include "check.h"

#include <stdlib.h>

static int rank = -1;

int main(void)
{
    MPI_Session s;
    MPI_Group world, even, odd;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "init");
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world) == MPI_SUCCESS, "group");
    int size;
    MPI_Group_rank(world, &rank);
    MPI_Group_size(world, &size);
    int ne = (size + 1) / 2, no = size / 2, *ev = malloc(sizeof(int) * ne), *od = malloc(sizeof(int) * no);
    for (int i = 0; i < ne; i++)
        ev[i] = 2 * i;
    for (int i = 0; i < no; i++)
        od[i] = 2 * (no - 1 - i) + 1; /* reversed */
    MPI_Group_incl(world, ne, ev, &even);
    MPI_Group_incl(world, no, od, &odd);
    int mine = rank % 2 == 0;
    MPI_Group local = mine ? even : odd, remote = mine ? odd : even;

    MPI_Comm ic, ic2;
    CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, 0, "org.railmpi.test.inter", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &ic) == MPI_SUCCESS, "create");
    CHECK(MPI_Intercomm_create_from_groups(local, 0, remote, 0, "org.railmpi.test.inter2", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &ic2) == MPI_SUCCESS, "create 2");
    int flag = 0, lsize, rsize, lrank;
    MPI_Comm_test_inter(ic, &flag);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm_rank(ic, &lrank);
    CHECK(flag && lsize == (mine ? ne : no) && rsize == (mine ? no : ne), "inter %d sizes %d %d", flag,
          lsize, rsize);

    /* local rank i talks to remote rank i where both exist; on both
     * intercommunicators at once with the same tag */
    if (lrank < rsize) {
        int a = rank, b = rank + 1000, ra = -1, rb = -1;
        MPI_Request rq[4];
        MPI_Irecv(&rb, 1, MPI_INT, lrank, 3, ic2, &rq[0]);
        MPI_Irecv(&ra, 1, MPI_INT, lrank, 3, ic, &rq[1]);
        MPI_Isend(&a, 1, MPI_INT, lrank, 3, ic, &rq[2]);
        MPI_Isend(&b, 1, MPI_INT, lrank, 3, ic2, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        int peer = mine ? od[lrank] : ev[lrank];
        CHECK(ra == peer && rb == peer + 1000, "got %d and %d from %d", ra, rb, peer);
    }
    int sum = -1, esum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, ic);
    for (int r = 0; r < size; r++)
        esum += (r % 2 == 0) != mine ? r : 0;
    CHECK(sum == esum, "inter allreduce %d, expected %d", sum, esum);
    MPI_Comm m;
    MPI_Intercomm_merge(ic, !mine, &m);
    int mrank;
    MPI_Comm_rank(m, &mrank);
    CHECK(mine ? mrank < ne : mrank >= ne, "merged rank %d", mrank);
    MPI_Comm_free(&m);
    MPI_Comm_free(&ic2);
    MPI_Comm_free(&ic);

    CHECK(MPI_Intercomm_create_from_groups(local, 0, world, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic) ==
              MPI_ERR_GROUP, "overlap");
    CHECK(MPI_Intercomm_create_from_groups(local, 99, remote, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic) ==
              MPI_ERR_RANK, "bad leader");
    CHECK(MPI_Intercomm_create_from_groups(remote, 0, local, 0, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic) ==
              MPI_ERR_GROUP, "not in local group");
    MPI_Group_free(&even);
    MPI_Group_free(&odd);
    MPI_Group_free(&world);
    free(ev);
    free(od);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
    if (rank == 0)
        printf("OK\n");
    return 0;
}
