/* Hardware resources (MPI-4.0 MPI_COMM_TYPE_HW_GUIDED/HW_UNGUIDED, MPI-4.1
 * MPI_Get_hw_resource_info), read from hwloc. A resource type is
 * "mpi_shared_memory" (a host, as MPI_COMM_TYPE_SHARED) or an hwloc object
 * type name: Package, NUMANode, L3Cache, L2Cache, L1Cache, Core, PU. A
 * process is in an instance of a type when its CPU binding lies wholly in
 * that instance; an unbound process is in no instance below its host. */
#include "mpi/mpiimpl.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#define HW_HOST_KEY "mpi_shared_memory"
#define HW_INFO_KEY "mpi_hw_resource_type"

/* From the largest to the smallest: HW_UNGUIDED takes the first level that
 * splits the communicator. */
static const hwloc_obj_type_t hw_levels[] = {
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,     HWLOC_OBJ_PU,
};
#define HW_NLEVELS ((int)(sizeof hw_levels / sizeof hw_levels[0]))

static hwloc_topology_t hw_topo;

static hwloc_topology_t hw_topology(void)
{
    if (!hw_topo) {
        if (hwloc_topology_init(&hw_topo) != 0)
            return NULL;
        if (hwloc_topology_load(hw_topo) != 0) {
            hwloc_topology_destroy(hw_topo);
            hw_topo = NULL;
        }
    }
    return hw_topo;
}

void mpi_hw_finalize(void)
{
    if (hw_topo)
        hwloc_topology_destroy(hw_topo);
    hw_topo = NULL;
}

/* The logical index of the instance of level `lev` holding the whole
 * binding of this process, -1 if none does (or hwloc cannot tell). */
static int hw_instance(int lev)
{
    hwloc_topology_t t = hw_topology();
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int idx = -1;
    if (t && set && hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
        int n = hwloc_get_nbobjs_by_type(t, hw_levels[lev]);
        for (int i = 0; i < n; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(t, hw_levels[lev], (unsigned)i);
            if (o && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset)) {
                idx = (int)o->logical_index;
                break;
            }
        }
    }
    if (set)
        hwloc_bitmap_free(set);
    return idx;
}

static int hw_level_by_name(const char *name)
{
    for (int l = 0; l < HW_NLEVELS; l++)
        if (!strcasecmp(name, hwloc_obj_type_string(hw_levels[l])))
            return l;
    return -1;
}

/* Colors: the host index for the host level, host * 65536 + instance below
 * it; MPI_UNDEFINED where this process is in no single instance. */
static int hw_color(int host, int lev)
{
    if (lev < 0)
        return host;
    int i = hw_instance(lev);
    return i < 0 || i > 0xffff ? MPI_UNDEFINED : host * 65536 + i;
}

/* MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED or HW_UNGUIDED (called by
 * PMPI_Comm_split_type once comm is known to be an intracommunicator). */
int mpi_hw_split(comm_t *c, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_Comm comm = c->handle;
    int host = proto_proc.node_of[comm_world_rank(c, c->rank)];
    int color = MPI_UNDEFINED, err;
    if (split_type == MPI_COMM_TYPE_HW_GUIDED) {
        /* the resource type is named by the info; without it, or for a type
         * railmpi does not know, this process gets MPI_COMM_NULL */
        char val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (info != MPI_INFO_NULL &&
            (err = PMPI_Info_get(info, HW_INFO_KEY, MPI_MAX_INFO_VAL, val, &flag)) != MPI_SUCCESS)
            return err;
        if (flag && !strcmp(val, HW_HOST_KEY))
            color = host;
        else if (flag && hw_level_by_name(val) >= 0)
            color = hw_color(host, hw_level_by_name(val));
        return PMPI_Comm_split(comm, color, key, newcomm);
    }
    /* unguided: the largest level that makes every part smaller than comm;
     * every process decides from the same table */
    int nl = HW_NLEVELS + 1, size = c->size;
    int *mine = malloc(sizeof(int) * (size_t)nl), *all = malloc(sizeof(int) * (size_t)nl * (size_t)size);
    if (!mine || !all) {
        free(mine);
        free(all);
        return mpi_err_raise(c, MPI_ERR_NO_MEM, "MPI_Comm_split_type", "out of memory");
    }
    for (int l = 0; l < nl; l++)
        mine[l] = hw_color(host, l - 1);
    err = PMPI_Allgather(mine, nl, MPI_INT, all, nl, MPI_INT, comm);
    for (int l = 0; err == MPI_SUCCESS && l < nl && color == MPI_UNDEFINED; l++) {
        int defined = 1, split = 0;
        for (int p = 0; p < size; p++) {
            defined &= all[p * nl + l] != MPI_UNDEFINED;
            split |= all[p * nl + l] != all[l];
        }
        if (defined && split)
            color = mine[l];
    }
    free(mine);
    free(all);
    if (err != MPI_SUCCESS)
        return err;
    return PMPI_Comm_split(comm, color, key, newcomm);
}

/* MPI-4.1: one key per resource type this process runs within, named as
 * mpi_hw_resource_type takes it (so a key can guide MPI_Comm_split_type),
 * its value the instance: the host name for mpi_shared_memory, the hwloc
 * logical index for the others. */
RM_ALIAS(Get_hw_resource_info)
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    MPI_BEGIN("MPI_Get_hw_resource_info");
    CHECK_ARG(NULL, hw_info, "hw_info is NULL");
    MPI_Info in;
    if ((err = PMPI_Info_create(&in)) != MPI_SUCCESS)
        goto fn_exit;
    err = PMPI_Info_set(in, HW_HOST_KEY, mpi_state.processor_name);
    for (int l = 0; err == MPI_SUCCESS && l < HW_NLEVELS; l++) {
        int i = hw_instance(l);
        char v[16];
        snprintf(v, sizeof v, "%d", i);
        if (i >= 0)
            err = PMPI_Info_set(in, hwloc_obj_type_string(hw_levels[l]), v);
    }
    if (err != MPI_SUCCESS) {
        PMPI_Info_free(&in);
        goto fn_exit;
    }
    *hw_info = in;
    MPI_END();
}
