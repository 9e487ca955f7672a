/* libmpi_mpifh.so.40's run time: attribute values and handle arrays for the
 * generated wrappers (ompi_fbind.c; ompi_fortran.h); strings are
 * src/fortran/f_strings.c's. */
#include "ompi_fortran.h"

#include <string.h>

MPI_Comm PMPI_Comm_f2c(MPI_Fint f);
MPI_Datatype PMPI_Type_f2c(MPI_Fint f);
MPI_Info PMPI_Info_f2c(MPI_Fint f);
MPI_Request PMPI_Request_f2c(MPI_Fint f);
MPI_Fint PMPI_Comm_c2f(MPI_Comm c);
MPI_Fint PMPI_Type_c2f(MPI_Datatype c);
MPI_Fint PMPI_Info_c2f(MPI_Info c);
MPI_Fint PMPI_Request_c2f(MPI_Request c);
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag);
int PMPI_Comm_size(MPI_Comm comm, int *size);
int PMPI_Comm_remote_size(MPI_Comm comm, int *size);

/* Open MPI's predefined attribute keys (its mpi.h's enum) */
enum { K_TAG_UB, K_HOST, K_IO, K_WTIME_IS_GLOBAL, K_APPNUM, K_LASTUSEDCODE, K_UNIVERSE_SIZE,
       K_WIN_BASE, K_WIN_SIZE, K_WIN_DISP_UNIT, K_WIN_CREATE_FLAVOR, K_WIN_MODEL };

/* C gets a pointer to a predefined attribute's value, Fortran the value */
MPI_Aint f_attr_value(MPI_Fint keyval, void *v)
{
    switch (keyval) {
    case K_TAG_UB: case K_HOST: case K_IO: case K_WTIME_IS_GLOBAL: case K_APPNUM:
    case K_LASTUSEDCODE: case K_UNIVERSE_SIZE: case K_WIN_DISP_UNIT: case K_WIN_CREATE_FLAVOR:
    case K_WIN_MODEL:
        return v ? *(int *)v : 0;
    case K_WIN_SIZE:
        return v ? *(MPI_Aint *)v : 0;
    default:
        return (MPI_Aint)v;
    }
}

MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n)
{
    if (n <= 0)
        return NULL;
    MPI_Aint *c = malloc((size_t)n * sizeof *c);
    if (!c)
        return NULL;
    for (MPI_Fint i = 0; i < n; i++)
        c[i] = a[i];
    return c;
}

static void *h_in(int cls, MPI_Fint f)
{
    switch (cls) {
    case F_COMM: return PMPI_Comm_f2c(f);
    case F_DATATYPE: return PMPI_Type_f2c(f);
    case F_INFO: return PMPI_Info_f2c(f);
    default: return PMPI_Request_f2c(f);
    }
}

static MPI_Fint h_out(int cls, void *c)
{
    switch (cls) {
    case F_COMM: return PMPI_Comm_c2f(c);
    case F_DATATYPE: return PMPI_Type_c2f(c);
    case F_INFO: return PMPI_Info_c2f(c);
    default: return PMPI_Request_c2f(c);
    }
}

void **f_handles_room(int n)
{
    return n > 0 ? calloc((size_t)n, sizeof(void *)) : NULL;
}

void **f_handles_in(int cls, const MPI_Fint *f, int n)
{
    void **c = f_handles_room(n);
    if (c)
        for (int i = 0; i < n; i++)
            c[i] = h_in(cls, f[i]);
    return c;
}

void f_handles_out(int cls, MPI_Fint *f, void **c, int n)
{
    if (c)
        for (int i = 0; i < n; i++)
            f[i] = h_out(cls, c[i]);
}

int f_comm_span(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return 0;
    return n;
}

int PMPI_Topo_test(MPI_Comm comm, int *status);
int PMPI_Cartdim_get(MPI_Comm comm, int *ndims);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *n);
int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indeg, int *outdeg, int *weighted);

/* Open MPI's topology kinds */
enum { T_CART = 1, T_GRAPH = 2, T_DIST_GRAPH = 3 };

int f_neighbor_span(MPI_Comm comm, int out)
{
    int kind = 0, n = 0, rank = 0, in = 0, outd = 0, w = 0;
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS)
        return 0;
    switch (kind) {
    case T_CART:
        return PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS ? 2 * n : 0;
    case T_GRAPH:
        if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
            return 0;
        return PMPI_Graph_neighbors_count(comm, rank, &n) == MPI_SUCCESS ? n : 0;
    case T_DIST_GRAPH:
        if (PMPI_Dist_graph_neighbors_count(comm, &in, &outd, &w) != MPI_SUCCESS)
            return 0;
        return out ? outd : in;
    default:
        return 0;
    }
}
