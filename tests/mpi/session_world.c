/* ranks: 2 4 */
/* A program that uses sessions only and never calls MPI_Init: the process
 * sets (mpi://WORLD, mpi://SELF, railmpi://host) with their sizes; a
 * communicator over mpi://WORLD from MPI_Comm_create_from_group carries a
 * ring exchange, an allreduce and a bcast; one over railmpi://host holds
 * exactly the ranks whose host name (RAILMPI_HOST_ID, else the kernel's)
 * is this rank's; two sessions live at once; then every session is
 * finalized (the engine stops) and a new one starts it again and runs a
 * collective. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank = -1;

static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK(MPI_Group_from_session_pset(s, pset, &g) == MPI_SUCCESS, "group from %s", pset);
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS,
          "comm from %s", pset);
    CHECK(c != MPI_COMM_NULL, "null comm from %s", pset);
    MPI_Group_free(&g);
    return c;
}

static int pset_size(MPI_Session s, const char *pset)
{
    MPI_Info info;
    char val[64];
    int flag = 0;
    CHECK(MPI_Session_get_pset_info(s, pset, &info) == MPI_SUCCESS, "pset info %s", pset);
    MPI_Info_get(info, "mpi_size", sizeof val - 1, val, &flag);
    CHECK(flag, "no mpi_size for %s", pset);
    MPI_Info_free(&info);
    return atoi(val);
}

static void world_traffic(MPI_Comm w, int round)
{
    int size, me;
    MPI_Comm_size(w, &size);
    MPI_Comm_rank(w, &me);
    int out = me * 100 + round, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % size, 7, &in, 1, MPI_INT, (me + size - 1) % size, 7, w,
                 MPI_STATUS_IGNORE);
    CHECK(in == ((me + size - 1) % size) * 100 + round, "ring got %d", in);
    int sum = 0;
    CHECK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS, "allreduce");
    CHECK(sum == size * (size - 1) / 2, "allreduce sum %d", sum);
    int b = me == size - 1 ? 4242 + round : 0;
    MPI_Bcast(&b, 1, MPI_INT, size - 1, w);
    CHECK(b == 4242 + round, "bcast got %d", b);
}

int main(void)
{
    MPI_Session s, s2;
    MPI_Info sinfo;
    MPI_Info_create(&sinfo);
    MPI_Info_set(sinfo, "thread_level", "MPI_THREAD_FUNNELED");
    CHECK(MPI_Session_init(sinfo, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session init");
    MPI_Info_free(&sinfo);
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized says true in a sessions-only program");

    MPI_Info used;
    char val[64];
    CHECK(MPI_Session_get_info(s, &used) == MPI_SUCCESS, "get_info");
    MPI_Info_get(used, "thread_level", sizeof val - 1, val, &flag);
    CHECK(flag && !strcmp(val, "MPI_THREAD_FUNNELED"), "thread_level %s", flag ? val : "(none)");
    MPI_Info_free(&used);

    int n = 0, seen = 0;
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 3, "num psets %d", n);
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        int len = 0;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
        CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d length %d", i, len);
        int len2 = len;
        MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len2, name);
        CHECK((int)strlen(name) + 1 == len, "pset %d name %s length %d", i, name, len);
        seen |= !strcmp(name, "mpi://WORLD") ? 1 : !strcmp(name, "mpi://SELF") ? 2
              : !strcmp(name, "railmpi://host") ? 4 : 0;
    }
    CHECK(seen == 7, "process sets seen 0x%x", seen);

    MPI_Comm w = comm_from(s, "mpi://WORLD", "org.railmpi.test.world");
    int size;
    MPI_Comm_rank(w, &rank);
    MPI_Comm_size(w, &size);
    CHECK(pset_size(s, "mpi://WORLD") == size, "WORLD size");
    CHECK(pset_size(s, "mpi://self") == 1, "SELF size");
    world_traffic(w, 0);

    MPI_Comm self = comm_from(s, "mpi://SELF", "org.railmpi.test.self");
    int ssize;
    MPI_Comm_size(self, &ssize);
    CHECK(ssize == 1, "self size %d", ssize);

    /* the host set: the ranks that share this rank's host name */
    char host[256] = {0}, *all = calloc((size_t)size, sizeof host);
    const char *id = getenv("RAILMPI_HOST_ID");
    if (id)
        snprintf(host, sizeof host, "%s", id);
    else
        gethostname(host, sizeof host - 1);
    MPI_Allgather(host, sizeof host, MPI_CHAR, all, sizeof host, MPI_CHAR, w);
    int expect = 0;
    for (int r = 0; r < size; r++)
        expect += !strcmp(all + r * sizeof host, host);
    MPI_Comm h = comm_from(s, "railmpi://host", "org.railmpi.test.host");
    int hsize, hsum = 0;
    MPI_Comm_size(h, &hsize);
    CHECK(hsize == expect && pset_size(s, "railmpi://host") == expect, "host comm size %d, expected %d",
          hsize, expect);
    MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, h);
    int esum = 0;
    for (int r = 0; r < size; r++)
        esum += !strcmp(all + r * sizeof host, host) ? r : 0;
    CHECK(hsum == esum, "host comm holds ranks summing to %d, expected %d", hsum, esum);
    if (rank == 0)
        printf("host: %d of %d ranks\n", hsize, size);
    free(all);

    /* a second session at once, its own communicator */
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2) == MPI_SUCCESS, "second session");
    MPI_Comm w2 = comm_from(s2, "mpi://WORLD", "org.railmpi.test.world2");
    world_traffic(w2, 1);
    world_traffic(w, 2);
    MPI_Comm_free(&w2);
    CHECK(MPI_Session_finalize(&s2) == MPI_SUCCESS && s2 == MPI_SESSION_NULL, "finalize second");

    MPI_Comm_free(&h);
    MPI_Comm_free(&self);
    MPI_Comm_free(&w);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");

    /* again, after the engine stopped */
    for (int round = 3; round < 5; round++) {
        CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "init again");
        w = comm_from(s, "mpi://WORLD", "org.railmpi.test.again");
        world_traffic(w, round);
        MPI_Comm_free(&w);
        CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize again");
    }
    MPI_Finalized(&flag);
    CHECK(!flag, "MPI_Finalized says true without MPI_Init");
    if (rank == 0)
        printf("OK\n");
    return 0;
}
