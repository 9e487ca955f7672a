/* The standard ABI's edge: helpers of the generated bindings that are not
 * worth inlining, and MPI_Abi_get_version (docs/abi.md). */
#include "abi_conv.h"
#include "abi_tables.h"

const int abi_pre_in_table[ABI_PREDEFINED_LIMIT] = ABI_PRE_IN_INIT;

/* src's handles converted into abi_handles_room's room; NULL (which the
 * engine rejects) for NULL or when memory runs out */
int *abi_handles_in(int *stack, int n, void *const *src)
{
    int *m = src ? abi_handles_room(stack, n) : NULL;
    for (int i = 0; m && i < n; i++)
        m[i] = h_in(src[i]);
    return m;
}

/* files are pointers: their ints are MPI_FILE_NULL's value or the engine's
 * file index above the predefined handles' range */
int abi_file_toint(abi_File f)
{
    if ((uintptr_t)f == ABI_FILE_NULL)
        return (int)ABI_FILE_NULL;
    int i = RMI_PMPI_File_c2f(f_in(f));
    return i > 0 ? (int)ABI_PREDEFINED_LIMIT + i : (int)ABI_FILE_NULL;
}

abi_File abi_file_fromint(int i)
{
    if (i <= (int)ABI_PREDEFINED_LIMIT)
        return f_out(MPI_FILE_NULL);
    return f_out(RMI_PMPI_File_f2c(i - (int)ABI_PREDEFINED_LIMIT));
}

/* the integers MPI_Type_get_contents gives for a subarray or darray type
 * hold constants: the array order, the distributions and their arguments */
void abi_contents_out(int datatype, int *ints, int max_integers)
{
    int ni, na, nd, comb;
    if (!ints || RMI_PMPI_Type_get_envelope(datatype, &ni, &na, &nd, &comb) != MPI_SUCCESS ||
        ni > max_integers)
        return;
    if (comb == MPI_COMBINER_SUBARRAY) {
        /* ndims, sizes, subsizes, starts, order */
        ints[ni - 1] = order_out(ints[ni - 1]);
    } else if (comb == MPI_COMBINER_DARRAY) {
        /* size, rank, ndims, gsizes, distribs, dargs, psizes, order */
        int n = ints[2];
        for (int i = 0; i < n && 3 + 3 * n < ni; i++) {
            ints[3 + n + i] = distrib_out(ints[3 + n + i]);
            ints[3 + 2 * n + i] = darg_out(ints[3 + 2 * n + i]);
        }
        ints[ni - 1] = order_out(ints[ni - 1]);
    }
}

/* predefined attributes whose values are constants of the ABI: the engine's
 * value is replaced by a pointer to the ABI's */
void abi_attr_out(int keyval, void *attribute_val)
{
    static int flavors[4], models[2], ranks[4];
    int **pv = attribute_val;
    /* only these keyvals' values point at an int; a user keyval's may be anything */
    if ((keyval != 604 && keyval != 605 && keyval != 502 && keyval != 503) || !*pv)
        return;
    int v = **pv;
    switch (keyval) {
    case 604: /* MPI_WIN_CREATE_FLAVOR */
        if (v >= MPI_WIN_FLAVOR_CREATE && v <= MPI_WIN_FLAVOR_SHARED) {
            flavors[v - MPI_WIN_FLAVOR_CREATE] = flavor_out(v);
            *pv = &flavors[v - MPI_WIN_FLAVOR_CREATE];
        }
        break;
    case 605: /* MPI_WIN_MODEL */
        if (v == MPI_WIN_SEPARATE || v == MPI_WIN_UNIFIED) {
            models[v == MPI_WIN_UNIFIED] = model_out(v);
            *pv = &models[v == MPI_WIN_UNIFIED];
        }
        break;
    case 502: /* MPI_IO */
    case 503: /* MPI_HOST */
        if (v < 0) {
            int i = v == MPI_ANY_SOURCE ? 0 : v == MPI_PROC_NULL ? 1 : 2;
            ranks[i] = rank_out(v);
            *pv = &ranks[i];
        }
        break;
    default:
        break;
    }
}

/* the engine checks the arguments (and raises the error through the error
 * handler); the answer is this library's */
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    int rc = RMI_PMPI_Abi_get_version(abi_major, abi_minor);
    if (rc != MPI_SUCCESS)
        return abi_err_out(rc);
    *abi_major = 1;
    *abi_minor = 0;
    return MPI_SUCCESS;
}
#pragma weak MPI_Abi_get_version = PMPI_Abi_get_version
