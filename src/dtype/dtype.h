/* Datatype engine: predefined and derived datatypes kept as a compact
 * description (a tree of nested loops over child types), with pack/unpack of
 * any byte range [pos, pos + bytes) of count items, so protocols can move a
 * message in pieces. Building a type costs O(size of its description), never
 * O(number of blocks it describes). */
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

/* How one item is laid out (see docs/architecture.md, datatype engine). */
typedef enum dtype_kind {
    DTYPE_LEAF,   /* predefined: `size` bytes at offset 0 */
    DTYPE_VECTOR, /* vcount blocks of vblen children, block b at b * vstride bytes */
    DTYPE_BLOCKS, /* n entries: blens[i] children kids[i] at displs[i] bytes */
} dtype_kind_t;

typedef struct dtype {
    int handle;
    int refcount;         /* predefined types are never freed */
    unsigned builtin : 1; /* predefined (incl. pair types) */
    unsigned committed : 1;
    unsigned contig : 1;  /* one item's data is `size` bytes in order at true_lb */
    int combiner;         /* MPI_COMBINER_* */
    MPI_Count size;       /* bytes of data in one item */
    MPI_Aint lb, ub, extent;
    MPI_Aint true_lb, true_ub;
    MPI_Datatype basic;   /* the predefined type of every element, MPI_DATATYPE_NULL if mixed */
    MPI_Count nbasic;     /* reduction elements in one item (a pair type counts once) */
    MPI_Count nelems;     /* basic elements in one item (MPI_Get_elements: a pair counts twice) */
    unsigned lb_marked : 1, ub_marked : 1; /* bounds set by MPI_LB/MPI_UB or resized */
    int align;            /* strictest alignment of the basic types inside */
    MPI_Count xsize;      /* bytes of one item in "external32" (MPI_Pack_external) */
    /* the description */
    dtype_kind_t kind;
    struct dtype *child;  /* VECTOR */
    MPI_Count vcount, vblen;
    MPI_Aint vstride;
    int n;                /* BLOCKS */
    MPI_Count *blens;
    MPI_Aint *displs;
    struct dtype **kids;
    MPI_Count *psum;      /* psum[i]: data bytes of one item before entry i (n + 1 entries) */
    MPI_Count nruns;      /* contiguous runs in one item before merging (saturates) */
    /* optional flattened item: only for small types (a few hundred runs), as a
     * faster walk; nblocks == 0 when absent */
    int nblocks;
    dtype_block_t *blocks;
    MPI_Aint *bsum;       /* bsum[i]: data bytes in blocks before i (nblocks + 1 entries) */
    /* MPI_Type_get_envelope / get_contents: the constructor's arguments. A
     * type built by a large-count (_c) constructor keeps its MPI_Count
     * arguments in counts (nc > 0, na == 0; docs/large-counts.md) */
    int ni, na, nd;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
    MPI_Count nc;
    MPI_Count *counts;
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
 * at packed byte offset `pos`, to `out`. The position is found from the
 * description in O(depth * log(entries)), so any piece can be packed on its own. */
void dtype_pack(const void *buf, MPI_Count count, const dtype_t *dt, size_t pos, void *out,
                size_t bytes);
/* Inverse of dtype_pack: place packed bytes [pos, pos+bytes) into (buf, count, dt). */
void dtype_unpack(void *buf, MPI_Count count, const dtype_t *dt, size_t pos, const void *in,
                  size_t bytes);
/* Number of basic elements in `bytes` packed bytes (MPI_Get_elements),
 * MPI_UNDEFINED if the bytes end inside a basic element. */
MPI_Count dtype_elements(const dtype_t *dt, MPI_Count bytes);
/* Packed bytes that hold the first `elems` basic elements of a message of
 * this type (MPI_Status_set_elements); -1 if that does not fit an MPI_Count. */
MPI_Count dtype_elements_bytes(const dtype_t *dt, MPI_Count elems);

/* The general constructor (MPI_Type_create_struct semantics: count entries of
 * blens[i] items of types[i] at byte displacement displs[i]). The envelope
 * arrays are copied for MPI_Type_get_contents. Returns the new type with one
 * reference, or NULL (see dtype_build_error). */
dtype_t *dtype_create(int combiner, MPI_Count count, const MPI_Count *blens, const MPI_Aint *displs,
                      dtype_t *const *types, int ni, const int *ints, int na,
                      const MPI_Aint *aints, int nd, const MPI_Datatype *dts);
/* count blocks of blen items of old, block b at b * stride bytes
 * (contiguous, vector, hvector): O(1) whatever the count. */
dtype_t *dtype_vector(int combiner, MPI_Count count, MPI_Count blen, MPI_Aint stride, dtype_t *old,
                      int ni, const int *ints, int na, const MPI_Aint *aints, int nd,
                      const MPI_Datatype *dts);
dtype_t *dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent);
dtype_t *dtype_dup(dtype_t *old);
/* MPI_Type_create_subarray / MPI_Type_create_darray, arguments already
 * checked (docs/architecture.md): one small type per dimension, so the
 * result is O(ndims) in memory whatever the array's size. */
/* `large`: built by the _c constructor, whose MPI_Count arguments the
 * envelope keeps as large counts. */
dtype_t *dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                        const MPI_Count *starts, int order, dtype_t *old, int large);
dtype_t *dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                      const int *dargs, const int *psizes, int order, dtype_t *old, int large);
/* Record the large-count arguments of a _c constructor (copied) in the
 * envelope of t, in place of its address arguments; RM_ERR_NOMEM. */
rm_status_t dtype_set_counts(dtype_t *t, MPI_Count nc, const MPI_Count *counts);
/* MPI_Type_create_f90_*: the predefined-like type for (combiner, p, r) over
 * the predefined `base`, the same handle for the same (p, r); never freed. */
dtype_t *dtype_f90(int combiner, int p, int r, MPI_Datatype base);
/* Why the last constructor called on this thread returned NULL: RM_ERR_NOMEM,
 * or RM_ERR_INVALID when the size or a bound does not fit 64 bits. */
rm_status_t dtype_build_error(void);
/* Give a derived type a handle (MPI_Type_* constructors). */
rm_status_t dtype_register(dtype_t *dt);

/* "external32" (MPI-3.1 13.5.2): count items of dt are count * dt->xsize
 * bytes, big-endian, fixed sizes. RM_ERR_INVALID when a value does not fit
 * its external32 size (a long beyond 32 bits) or the native one on unpack;
 * RM_ERR_UNSUPPORTED when this platform has no conversion for a type. */
rm_status_t dtype_ext32_pack(const void *buf, MPI_Count count, const dtype_t *dt, void *out);
rm_status_t dtype_ext32_unpack(void *buf, MPI_Count count, const dtype_t *dt, const void *in);

/* internal to src/dtype */
void dtype_free_mem(dtype_t *t);
void dtype_build_set_error(rm_status_t why);
MPI_Count dtype_ext32_leaf_size(MPI_Datatype h); /* 0 for the bound markers */
void dtype_f90_finalize(void);

#endif
