/* What both ABI layers (libmpi_abi.so, libmpi.so.40) share (abi_shared.h):
 * the arrays of engine handles a call converts into, and what they ask the
 * engine to size the datatype arrays of MPI_Alltoallw and
 * MPI_Neighbor_alltoallw, whose length the call does not give. Compiled into
 * each library against its own renaming of the engine's bindings
 * (RMI_PMPI_X). Handles are the engine's. */
#include "abi_shared.h"
#include "abi_rename.h"
#include "mpi.h"
#include "abi_unrename.h"

#include <stdlib.h>

int *abi_handles_room(int *stack, int n)
{
    return n <= ABI_STACK ? stack : malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
}

int *abi_ints_in(int *stack, int n, const int *src, int (*conv)(int))
{
    int *m = src ? abi_handles_room(stack, n) : NULL;
    for (int i = 0; m && i < n; i++)
        m[i] = conv(src[i]);
    return m;
}

int abi_comm_span(int comm)
{
    int inter = 0, n = 0;
    if (RMI_PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? RMI_PMPI_Comm_remote_size(comm, &n) : RMI_PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return 0;
    return n;
}

int abi_neighbor_count(int comm, int out)
{
    int topo = MPI_UNDEFINED, in_n = 0, out_n = 0, weighted, rank;
    if (RMI_PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    switch (topo) {
    case MPI_CART:
        return RMI_PMPI_Cartdim_get(comm, &in_n) == MPI_SUCCESS ? 2 * in_n : 0;
    case MPI_GRAPH:
        if (RMI_PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
            RMI_PMPI_Graph_neighbors_count(comm, rank, &in_n) != MPI_SUCCESS)
            return 0;
        return in_n;
    case MPI_DIST_GRAPH:
        if (RMI_PMPI_Dist_graph_neighbors_count(comm, &in_n, &out_n, &weighted) != MPI_SUCCESS)
            return 0;
        return out ? out_n : in_n;
    default:
        return 0;
    }
}

int abi_procs_total(int count, const int *maxprocs)
{
    int total = 0;
    for (int i = 0; maxprocs && i < count; i++)
        total += maxprocs[i] > 0 ? maxprocs[i] : 0;
    return total;
}

int abi_spawn_filled(int comm, int root, int rc)
{
    int cls = MPI_ERR_OTHER, rank = -1;
    if (RMI_PMPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_SPAWN)
        return 1;
    return RMI_PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}
