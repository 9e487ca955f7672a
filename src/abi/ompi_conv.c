/* Open MPI's ABI edge: helpers of the generated wrappers that are not worth
 * inlining, and Open MPI's predefined attribute functions (docs/abi.md).
 * MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE, which Open MPI's header
 * also names, are the engine's (src/mpi/init.c). */
#include "ompi_conv.h"
#include "abi_tables.h"
#include <stdio.h>
#include <string.h>

int *abi_handles_in(int *stack, int n, void *const *src)
{
    int *m = src ? abi_handles_room(stack, n) : NULL;
    for (int i = 0; m && i < n; i++)
        m[i] = h_in(src[i]);
    return m;
}

/* a string the engine wrote, cut to what Open MPI's limit (max, the
 * terminating NUL included) lets the program's buffer hold */
void abi_str_out(char *to, const char *from, int max, int *len)
{
    size_t n = strnlen(from, (size_t)max - 1);
    memcpy(to, from, n);
    to[n] = 0;
    if (len)
        *len = (int)n;
}

/* the engine's library version names the ABI of libmpi.so.12: this
 * library's is Open MPI's */
void abi_version_out(char *to, const char *from, int max, int *len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 32];
    const char *mpich = strstr(from, "MPICH ABI");
    if (!mpich) {
        abi_str_out(to, from, max, len);
        return;
    }
    snprintf(v, sizeof v, "%.*sOpen MPI 4.1 ABI%s", (int)(mpich - from), from, mpich + 9);
    abi_str_out(to, v, max, len);
}

/* the engine's statuses of a call that completes several requests: on the
 * stack up to ABI_STACK, MPI_ERROR unset until the engine sets it; NULL
 * (which the engine rejects) when memory runs out */
MPI_Status *abi_statuses_room(MPI_Status *stack, const abi_Status *a, int n)
{
    if (!a)
        return MPI_STATUSES_IGNORE;
    MPI_Status *m = n <= ABI_STACK ? stack : malloc(sizeof *m * (size_t)(n > 0 ? n : 1));
    for (int i = 0; m && i < n; i++)
        m[i].MPI_ERROR = ABI_ERROR_UNSET;
    return m;
}

/* ... into the program's n statuses (those the call completed) */
void abi_statuses_conv(abi_Status *a, MPI_Status *m, int n, MPI_Status *stack)
{
    if (!m)
        return;
    for (int i = 0; i < n; i++)
        abi_status_out(&a[i], &m[i]);
    if (m != stack)
        free(m);
}

/* the integers of a subarray's or darray's contents hold the order and the
 * distributions: Open MPI's values */
void abi_contents_out(int datatype, int *ints, int max_integers)
{
    int ni, na, nd, comb;
    if (!ints || RMI_PMPI_Type_get_envelope(datatype, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
        ni > max_integers || ni < 1)
        return;
    if (comb == MPI_COMBINER_DARRAY) {
        int n = ints[2];
        for (int i = 0; i < n && 3 + 3 * n < ni; i++) {
            ints[3 + n + i] = distrib_out(ints[3 + n + i]);
            ints[3 + 2 * n + i] = darg_out(ints[3 + 2 * n + i]);
        }
    }
    if (comb == MPI_COMBINER_SUBARRAY || comb == MPI_COMBINER_DARRAY)
        ints[ni - 1] = order_out(ints[ni - 1]);
}

/* predefined attributes whose values are constants: a pointer to Open MPI's
 * value replaces the engine's (keyvals as the program gives them) */
void abi_attr_out(int keyval, void *attribute_val)
{
    static int flavors[4], models[2], ranks[3];
    int **pv = attribute_val;
    if (keyval < 1 || keyval > 11 || !*pv)
        return;
    int v = **pv;
    if (keyval == keyval_out(MPI_WIN_CREATE_FLAVOR)) {
        if (v >= MPI_WIN_FLAVOR_CREATE && v <= MPI_WIN_FLAVOR_SHARED) {
            flavors[v - MPI_WIN_FLAVOR_CREATE] = flavor_out(v);
            *pv = &flavors[v - MPI_WIN_FLAVOR_CREATE];
        }
    } else if (keyval == keyval_out(MPI_WIN_MODEL)) {
        if (v == MPI_WIN_SEPARATE || v == MPI_WIN_UNIFIED) {
            models[v == MPI_WIN_UNIFIED] = model_out(v);
            *pv = &models[v == MPI_WIN_UNIFIED];
        }
    } else if (keyval == keyval_out(MPI_IO) || keyval == keyval_out(MPI_HOST)) {
        if (v < 0) {
            int i = v == MPI_ANY_SOURCE ? 0 : v == MPI_PROC_NULL ? 1 : 2;
            ranks[i] = rank_out(v);
            *pv = &ranks[i];
        }
    }
}

/* Open MPI's MPI_*_NULL_COPY_FN, MPI_*_NULL_DELETE_FN and MPI_*_DUP_FN are
 * these functions; the engine calls them like any of the program's (through
 * abi_callbacks.c's trampolines), so they do what the standard says */
#define OMPI_PREDEFINED_ATTR_FNS(OBJ, T)                                                           \
    int OMPI_C_MPI_##OBJ##NULL_COPY_FN(T h, int k, void *e, void *in, void *out, int *flag);      \
    int OMPI_C_MPI_##OBJ##NULL_COPY_FN(T h, int k, void *e, void *in, void *out, int *flag)       \
    {                                                                                              \
        (void)h, (void)k, (void)e, (void)in, (void)out;                                            \
        *flag = 0;                                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    int OMPI_C_MPI_##OBJ##DUP_FN(T h, int k, void *e, void *in, void *out, int *flag);            \
    int OMPI_C_MPI_##OBJ##DUP_FN(T h, int k, void *e, void *in, void *out, int *flag)             \
    {                                                                                              \
        (void)h, (void)k, (void)e;                                                                 \
        *(void **)out = in;                                                                        \
        *flag = 1;                                                                                 \
        return 0;                                                                                  \
    }                                                                                              \
    int OMPI_C_MPI_##OBJ##NULL_DELETE_FN(T h, int k, void *v, void *e);                            \
    int OMPI_C_MPI_##OBJ##NULL_DELETE_FN(T h, int k, void *v, void *e)                             \
    {                                                                                              \
        (void)h, (void)k, (void)v, (void)e;                                                        \
        return 0;                                                                                  \
    }
OMPI_PREDEFINED_ATTR_FNS(, abi_Comm)
OMPI_PREDEFINED_ATTR_FNS(COMM_, abi_Comm)
OMPI_PREDEFINED_ATTR_FNS(TYPE_, abi_Datatype)
OMPI_PREDEFINED_ATTR_FNS(WIN_, abi_Win)

/* Open MPI's Fortran status is its C status as six integers. The engine
 * checks the arguments (and raises the error) on statuses of its own. */
int PMPI_Status_c2f(const abi_Status *c_status, MPI_Fint *f_status)
{
    MPI_Status m;
    MPI_Fint mf[sizeof(MPI_Status) / sizeof(MPI_Fint)];
    if (c_status)
        abi_status_in(&m, c_status);
    int rc = RMI_PMPI_Status_c2f(c_status ? &m : NULL,
                                 f_status && f_status != MPI_F_STATUS_IGNORE ? mf : f_status);
    if (rc != MPI_SUCCESS)
        return err_out(rc);
    memcpy(f_status, c_status, sizeof *c_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint *f_status, abi_Status *c_status)
{
    MPI_Status m;
    MPI_Fint mf[sizeof(MPI_Status) / sizeof(MPI_Fint)] = {0};
    int rc = RMI_PMPI_Status_f2c(f_status && f_status != MPI_F_STATUS_IGNORE ? mf : f_status,
                                 c_status ? &m : NULL);
    if (rc != MPI_SUCCESS)
        return err_out(rc);
    memcpy(c_status, f_status, sizeof *c_status);
    return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

/* Open MPI's own split types (OMPI_COMM_TYPE_CORE, ...) name hardware
 * levels: the engine's hardware-guided split by that level
 * (docs/topology.md), with mpi_hw_resource_type added to a copy of the
 * program's info. OMPI_COMM_TYPE_CU (a computational unit: a group of hosts
 * Open MPI's launcher may name) and OMPI_COMM_TYPE_CLUSTER (the hosts of
 * the job) are above the host: every process of the communicator is in one
 * of each, as under Open MPI's own launcher, which names no smaller unit. */
#define OMPI_COMM_TYPE_CU 10
#define OMPI_COMM_TYPE_CLUSTER 11
static const char *const ompi_split_levels[] = {
    [1] = "PU",       [2] = "Core",     [3] = "L1Cache",           [4] = "L2Cache",
    [5] = "L3Cache",  [6] = "Package",  [7] = "NUMANode",          [8] = "mpi_shared_memory",
    [9] = "mpi_shared_memory",
};

int PMPI_Comm_split_type(abi_Comm comm, int split_type, int key, abi_Info info, abi_Comm *newcomm)
{
    int m = 0, rc, hinfo = h_in(info);
    const char *level = split_type > 0 && split_type < (int)(sizeof ompi_split_levels /
                                                             sizeof ompi_split_levels[0])
                            ? ompi_split_levels[split_type]
                            : NULL;
    int inter = 0;
    if ((split_type == OMPI_COMM_TYPE_CU || split_type == OMPI_COMM_TYPE_CLUSTER) &&
        RMI_PMPI_Comm_test_inter(h_in(comm), &inter) == MPI_SUCCESS && !inter && newcomm) {
        /* one communicator of them all, ranked by key (the info has no key
         * for these types) */
        rc = RMI_PMPI_Comm_split(h_in(comm), 0, key, &m);
    } else if (!level) {
        rc = RMI_PMPI_Comm_split_type(h_in(comm), split_type_in(split_type), key, hinfo,
                                      newcomm ? &m : NULL);
    } else {
        int guided = MPI_INFO_NULL;
        rc = hinfo == MPI_INFO_NULL ? RMI_PMPI_Info_create(&guided) : RMI_PMPI_Info_dup(hinfo, &guided);
        if (rc == MPI_SUCCESS)
            rc = RMI_PMPI_Info_set(guided, "mpi_hw_resource_type", level);
        if (rc == MPI_SUCCESS)
            rc = RMI_PMPI_Comm_split_type(h_in(comm), MPI_COMM_TYPE_HW_GUIDED, key, guided,
                                          newcomm ? &m : NULL);
        if (guided != MPI_INFO_NULL)
            RMI_PMPI_Info_free(&guided);
    }
    if (newcomm && (rc == MPI_SUCCESS || m))
        *newcomm = h_out_Comm(m);
    return err_out(rc);
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type

/* Open MPI's extension for CUDA-aware programs: railmpi moves no device
 * memory */
int MPIX_Query_cuda_support(void)
{
    return 0;
}

/* Fortran procedures Open MPI's libmpi.so.40 itself holds (the modules of
 * some compilers bind MPI_WTIME, MPI_WTICK, MPI_AINT_ADD and MPI_AINT_DIFF
 * to them; gfortran's do not, and libmpi_mpifh.so.40's and
 * libmpi_usempif08.so.40's MPI_AINT_ADD/DIFF call them: ompi_fextra.c),
 * under each Fortran spelling */
double RMI_PMPI_Wtick(void);
static double f90_wtime(void)
{
    return RMI_PMPI_Wtime();
}
static double f90_wtick(void)
{
    return RMI_PMPI_Wtick();
}
static MPI_Aint f90_aint_add(const MPI_Aint *base, const MPI_Aint *disp)
{
    return (MPI_Aint)((uintptr_t)*base + (uintptr_t)*disp);
}
static MPI_Aint f90_aint_diff(const MPI_Aint *addr1, const MPI_Aint *addr2)
{
    return (MPI_Aint)((uintptr_t)*addr1 - (uintptr_t)*addr2);
}
#define F90_NAMES(f, low, up)                                                        \
    extern __typeof__(f) up __attribute__((alias(#f)));                             \
    extern __typeof__(f) low __attribute__((alias(#f)));                            \
    extern __typeof__(f) low##_ __attribute__((alias(#f)));                         \
    extern __typeof__(f) low##__ __attribute__((alias(#f)));
F90_NAMES(f90_wtime, mpi_wtime_f90, MPI_WTIME_F90)
F90_NAMES(f90_wtick, mpi_wtick_f90, MPI_WTICK_F90)
F90_NAMES(f90_aint_add, mpi_aint_add_f90, MPI_AINT_ADD_F90)
F90_NAMES(f90_aint_diff, mpi_aint_diff_f90, MPI_AINT_DIFF_F90)
