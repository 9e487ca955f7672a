/* ranks: 1 2 4 */
/* MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED and HW_UNGUIDED (MPI-4.0)
 * and MPI_Get_hw_resource_info (MPI-4.1): "mpi_shared_memory" splits as
 * MPI_COMM_TYPE_SHARED; a hardware level groups exactly the processes whose
 * resource info names the same instance on the same host, and a process in
 * no single instance (or given no or an unknown type) gets MPI_COMM_NULL;
 * the info names the PU of a process bound to one CPU and none for one
 * bound to several; an unguided split is a strict subset of the
 * communicator or MPI_COMM_NULL; bad input fails with the standard's
 * classes. mpiexec binds ranks to cores unless the host is oversubscribed,
 * so both cases occur across the rank counts. */
#include <mpi.h>

#include "check.h"
#include <sched.h>
#include <string.h>

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static MPI_Comm guided(const char *type)
{
    MPI_Info in = MPI_INFO_NULL;
    if (type) {
        MPI_Info_create(&in);
        MPI_Info_set(in, "mpi_hw_resource_type", type);
    }
    MPI_Comm n;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, in, &n) == MPI_SUCCESS,
          "guided split by %s failed", type ? type : "nothing");
    if (in != MPI_INFO_NULL)
        MPI_Info_free(&in);
    return n;
}

/* This process's instance of `type` from MPI_Get_hw_resource_info, "" if none. */
static void instance(MPI_Info hw, const char *type, char *val)
{
    int flag = 0;
    MPI_Info_get(hw, type, MPI_MAX_INFO_VAL, val, &flag);
    if (!flag)
        val[0] = '\0';
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Info hw;
    CHECK(MPI_Get_hw_resource_info(&hw) == MPI_SUCCESS, "MPI_Get_hw_resource_info failed");
    char host[MPI_MAX_INFO_VAL + 1], name[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(name, &len);
    instance(hw, "mpi_shared_memory", host);
    CHECK(!strcmp(host, name), "mpi_shared_memory is '%s', the processor name '%s'", host, name);
    cpu_set_t cpus;
    CHECK(sched_getaffinity(0, sizeof cpus, &cpus) == 0, "sched_getaffinity");
    char pu[MPI_MAX_INFO_VAL + 1];
    instance(hw, "PU", pu);
    if (CPU_COUNT(&cpus) == 1)
        CHECK(pu[0], "bound to one CPU, yet no PU in the resource info");
    else
        CHECK(!pu[0], "bound to %d CPUs, yet PU %s in the resource info", CPU_COUNT(&cpus), pu);

    /* mpi_shared_memory: the same groups as MPI_COMM_TYPE_SHARED */
    MPI_Comm a = guided("mpi_shared_memory"), b;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &b);
    int res;
    MPI_Comm_compare(a, b, &res);
    CHECK(res == MPI_CONGRUENT, "mpi_shared_memory vs MPI_COMM_TYPE_SHARED: %d", res);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);

    /* each level: members are exactly the ranks naming the same instance on
     * the same host. A host is told by its shared-memory communicator (the
     * world rank of its first member), not by its name: the suite also runs
     * across virtual hosts of one machine, which share a host name. */
    MPI_Comm shm;
    int first = rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Bcast(&first, 1, MPI_INT, 0, shm);
    MPI_Comm_free(&shm);
    static const char *const levels[] = {"Package", "NUMANode", "L3Cache", "L2Cache", "Core", "PU"};
    for (int l = 0; l < 6; l++) {
        char mine[2 * (MPI_MAX_INFO_VAL + 1)], v[MPI_MAX_INFO_VAL + 1];
        instance(hw, levels[l], v);
        snprintf(mine, sizeof mine, "%d/%s", first, v);
        static char all[64][2 * (MPI_MAX_INFO_VAL + 1)];
        CHECK(size <= 64, "too many ranks");
        MPI_Allgather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, MPI_COMM_WORLD);
        MPI_Comm n = guided(levels[l]);
        if (!v[0]) {
            CHECK(n == MPI_COMM_NULL, "%s: in no instance, yet a communicator", levels[l]);
            continue;
        }
        CHECK(n != MPI_COMM_NULL, "%s: instance %s, yet MPI_COMM_NULL", levels[l], v);
        int want = 0, got;
        for (int p = 0; p < size; p++)
            want += !strcmp(all[p], mine);
        MPI_Comm_size(n, &got);
        CHECK(got == want, "%s: %d members, %d ranks name instance %s", levels[l], got, want, mine);
        MPI_Comm_free(&n);
    }
    /* no type, or one railmpi does not know: MPI_COMM_NULL */
    MPI_Comm n = guided(NULL);
    CHECK(n == MPI_COMM_NULL, "guided without a type gave a communicator");
    n = guided("FluxCapacitor");
    CHECK(n == MPI_COMM_NULL, "guided by an unknown type gave a communicator");

    /* unguided: a strict subset of MPI_COMM_WORLD, or nothing */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &n);
    if (size == 1)
        CHECK(n == MPI_COMM_NULL, "unguided split of one process gave a communicator");
    if (n != MPI_COMM_NULL) {
        int ns;
        MPI_Comm_size(n, &ns);
        CHECK(ns < size, "unguided split is not a strict subset (%d of %d)", ns, size);
        /* and a second level below it, if any, is smaller again */
        MPI_Comm m;
        MPI_Comm_split_type(n, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &m);
        if (m != MPI_COMM_NULL) {
            int ms;
            MPI_Comm_size(m, &ms);
            CHECK(ms < ns, "second unguided split %d of %d", ms, ns);
            MPI_Comm_free(&m);
        }
        MPI_Comm_free(&n);
    }
    /* with cores bound one rank each on one host, Core splits 2+ ranks apart */
    char core[MPI_MAX_INFO_VAL + 1];
    instance(hw, "Core", core);
    int bound = core[0] != 0, allbound;
    MPI_Allreduce(&bound, &allbound, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL, &n);
    if (allbound && size > 1)
        CHECK(n != MPI_COMM_NULL, "every rank bound to a core, yet no unguided split");
    if (n != MPI_COMM_NULL)
        MPI_Comm_free(&n);
    MPI_Info_free(&hw);

    /* bad input */
    MPI_Info freed;
    MPI_Info_create(&freed);
    MPI_Info keep = freed;
    MPI_Info_free(&freed);
    expect(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, keep, &n), MPI_ERR_INFO, "freed info");
    expect(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "NULL newcomm");
    expect(MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &n), MPI_ERR_COMM, "null comm");
    expect(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &n), MPI_ERR_ARG, "unknown split_type");
    expect(MPI_Get_hw_resource_info(NULL), MPI_ERR_ARG, "NULL hw_info");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
