/* Datatype engine: predefined and derived datatypes, flattened into a list of
 * contiguous byte blocks per item, with pack/unpack from any byte offset so
 * protocols can move a message in pieces. */
#ifndef RM_DTYPE_DTYPE_H
#define RM_DTYPE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "util/status.h"

struct attr_list;

typedef struct dtype_block {
    MPI_Aint off; /* from the item's start (buffer pointer), may be negative */
    MPI_Aint len;
} dtype_block_t;

typedef struct dtype {
    int handle;
    int refcount;         /* predefined types are never freed */
    unsigned builtin : 1; /* predefined (incl. pair types) */
    unsigned committed : 1;
    unsigned contig : 1;  /* one item is `size` bytes at true_lb and extent == size */
    int combiner;         /* MPI_COMBINER_* */
    MPI_Count size;       /* bytes of data in one item */
    MPI_Aint lb, ub, extent;
    MPI_Aint true_lb, true_ub;
    MPI_Datatype basic;   /* the predefined type of every element, MPI_DATATYPE_NULL if mixed */
    MPI_Count nbasic;     /* predefined elements in one item (MPI_Get_elements) */
    unsigned lb_marked : 1, ub_marked : 1; /* bounds set by MPI_LB/MPI_UB or resized */
    int align;            /* strictest alignment of the basic types inside */
    int nblocks;
    dtype_block_t *blocks;
    MPI_Aint *bsum;       /* bsum[i]: data bytes in blocks before i (nblocks + 1 entries) */
    /* MPI_Type_get_envelope / get_contents */
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
    char name[MPI_MAX_OBJECT_NAME];
    struct attr_list *attrs;
} dtype_t;

rm_status_t dtype_init(void);     /* registers predefined types */
void dtype_finalize(void);

/* NULL if h is not a predefined type or a live derived type. */
dtype_t *dtype_get(MPI_Datatype h);
void dtype_addref(dtype_t *dt);
void dtype_release(dtype_t *dt); /* frees a derived type at refcount 0 */

/* Whole message (count items) is one contiguous range starting at buf + true_lb. */
static inline int dtype_is_contig(const dtype_t *dt, MPI_Count count)
{
    return dt->contig && (count <= 1 || dt->extent == (MPI_Aint)dt->size);
}

/* Copy `bytes` bytes of the packed representation of (buf, count, dt), starting
 * at packed byte offset `pos`, to `out`. */
void dtype_pack(const void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *out,
                size_t bytes);
/* Inverse of dtype_pack: place packed bytes [pos, pos+bytes) into (buf, count, dt). */
void dtype_unpack(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, const void *in,
                  size_t bytes);
/* Number of predefined elements in `bytes` packed bytes (MPI_Get_elements),
 * MPI_UNDEFINED if not a whole number. */
MPI_Count dtype_elements(const dtype_t *dt, MPI_Count bytes);

/* The general constructor every derived type goes through (MPI_Type_create_struct
 * semantics: count blocks of blens[i] items of types[i] at byte displacement
 * displs[i]). The envelope arrays are copied for MPI_Type_get_contents.
 * Returns the new type with one reference, or NULL (RM_ERR_NOMEM). */
dtype_t *dtype_create(int combiner, int count, const int *blens, const MPI_Aint *displs,
                      dtype_t *const *types, int ni, const int *ints, int na,
                      const MPI_Aint *aints, int nd, const MPI_Datatype *dts);
dtype_t *dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent);
/* Give a derived type a handle (MPI_Type_* constructors). */
rm_status_t dtype_register(dtype_t *dt);

#endif
