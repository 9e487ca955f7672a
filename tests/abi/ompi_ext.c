/* Open MPI's extensions of its mpi-ext.h, built with Open MPI's mpicc: the
 * persistent collectives it has as MPIX_*_init (MPI-4.0's MPI_*_init, which
 * railmpi's libmpi.so.40 exports under those names) started and completed
 * several times, with and without MPI_IN_PLACE, MPIX_Query_cuda_support
 * (none), and OMPI_Affinity_str in both formats: the ranks mpiexec bound to
 * a core each (its default), then unbound by the program. 2 ranks. */
#define _GNU_SOURCE
#include <mpi.h>
#include <mpi-ext.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "std_check.h"

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

static const char unbound[] = "Not bound (or bound to all available processors)";

static void affinity(void)
{
    char bound[OMPI_AFFINITY_STRING_MAX], cur[OMPI_AFFINITY_STRING_MAX], exists[OMPI_AFFINITY_STRING_MAX];
    OK(OMPI_Affinity_str(OMPI_AFFINITY_RSRC_STRING_FMT, bound, cur, exists));
    int sock = -1, cores = -1, s2 = -1, core = -1;
    char tail[8] = "";
    CHECK(sscanf(exists, "socket %d has %d core%7s", &sock, &cores, tail) >= 2 && sock == 0 && cores >= 1,
          "exists: '%s'", exists);
    cpu_set_t mine;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0, "sched_getaffinity");
    int ncpu = CPU_COUNT(&mine), ncores_all = cores;
    /* mpiexec binds each rank to a core of its own, unless the host has too
     * few (then it binds none) */
    if (ncpu == 1) {
        CHECK(sscanf(bound, "socket %d[core %d]", &s2, &core) == 2 && core >= 0, "ompi_bound: '%s'", bound);
        CHECK(!strcmp(bound, cur), "bound '%s', current '%s'", bound, cur);
    } else {
        CHECK(!strcmp(bound, unbound) && !strcmp(cur, unbound), "unbound: '%s', '%s'", bound, cur);
    }
    OK(OMPI_Affinity_str(OMPI_AFFINITY_LAYOUT_FMT, bound, cur, exists));
    CHECK(exists[0] == '[' && count_char(exists, 'B') == 0 && count_char(exists, '.') >= ncores_all,
          "layout exists: '%s'", exists);
    CHECK(count_char(bound, 'B') == (ncpu == 1 ? 1 : count_char(exists, '.')) && !strcmp(bound, cur),
          "layout bound '%s', current '%s'", bound, cur);
    /* unbound by the program: the current binding says so, the one it
     * started with does not change */
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &all);
    char bound0[OMPI_AFFINITY_STRING_MAX];
    OK(OMPI_Affinity_str(OMPI_AFFINITY_RSRC_STRING_FMT, bound0, cur, exists));
    CHECK(sched_setaffinity(0, sizeof all, &all) == 0, "sched_setaffinity");
    OK(OMPI_Affinity_str(OMPI_AFFINITY_RSRC_STRING_FMT, bound, cur, exists));
    CHECK(!strcmp(cur, unbound) && !strcmp(bound, bound0), "after unbinding: bound '%s', current '%s'", bound, cur);
    CHECK(sched_setaffinity(0, sizeof mine, &mine) == 0, "sched_setaffinity back");
    /* a format Open MPI does not have: MPI_ERR_ARG through MPI_COMM_SELF */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = OMPI_Affinity_str((ompi_affinity_fmt_t)7, bound, cur, exists), cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "a bad format: class %d, not MPI_ERR_ARG", cls);
}

int main(int argc, char **argv)
{
    int size, v = 0, sum = 0, b[4], in[2], out[4];
    MPI_Request rq[4];
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run with 2 ranks");
    CHECK(MPIX_Query_cuda_support() == 0, "CUDA support claimed");
    affinity();

    OK(MPIX_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    OK(MPIX_Bcast_init(b, 4, MPI_INT, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
    OK(MPIX_Allgather_init(in, 2, MPI_INT, out, 2, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]));
    OK(MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[3]));
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[3] != MPI_REQUEST_NULL, "no requests");
    for (int it = 0; it < 3; it++) {
        v = 10 * it + std_rank;
        for (int i = 0; i < 4; i++)
            b[i] = std_rank == 1 ? 100 * it + i : -1;
        in[0] = std_rank, in[1] = it;
        OK(MPI_Startall(4, rq));
        OK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
        CHECK(sum == 20 * it + 1, "round %d: allreduce %d", it, sum);
        CHECK(b[0] == 100 * it && b[3] == 100 * it + 3, "round %d: bcast %d %d", it, b[0], b[3]);
        CHECK(out[0] == 0 && out[1] == it && out[2] == 1 && out[3] == it, "round %d: allgather %d %d %d %d",
              it, out[0], out[1], out[2], out[3]);
        CHECK(rq[0] != MPI_REQUEST_NULL, "a persistent request became MPI_REQUEST_NULL");
    }
    for (int i = 0; i < 4; i++) {
        OK(MPI_Request_free(&rq[i]));
        CHECK(rq[i] == MPI_REQUEST_NULL, "MPI_Request_free left request %d", i);
    }
    /* in place */
    int w = std_rank + 5;
    OK(MPIX_Allreduce_init(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
    OK(MPI_Start(&rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK(w == 6, "in-place allreduce %d", w);
    OK(MPI_Request_free(&rq[0]));
    /* errors in Open MPI's classes */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPIX_Bcast_init(b, 4, MPI_INT, size, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]), cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ROOT, "root %d: class %d, not MPI_ERR_ROOT", size, cls);
    OK(MPI_Finalize());
    if (std_rank == 0)
        printf("OK\n");
    return 0;
}
