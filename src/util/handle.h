/* Integer handles in the MPICH ABI encoding:
 *   bits 30-31 kind (1 builtin, 2 direct = ours), bits 26-29 object type,
 *   low bits the index. A table per object type maps index -> object. */
#ifndef RM_UTIL_HANDLE_H
#define RM_UTIL_HANDLE_H

#include <stdint.h>

enum {
    RM_HKIND_INVALID = 0,
    RM_HKIND_BUILTIN = 1,
    RM_HKIND_DIRECT = 2,
};

enum {
    RM_HOBJ_COMM = 0x1,
    RM_HOBJ_GROUP = 0x2,
    RM_HOBJ_DATATYPE = 0x3,
    RM_HOBJ_FILE = 0x4,
    RM_HOBJ_ERRHANDLER = 0x5,
    RM_HOBJ_OP = 0x6,
    RM_HOBJ_INFO = 0x7,
    RM_HOBJ_WIN = 0x8,
    RM_HOBJ_KEYVAL = 0x9,
    RM_HOBJ_ATTR = 0xa,
    RM_HOBJ_REQUEST = 0xb,
    RM_HOBJ_SESSION = 0xe, /* MPICH's: MPI_SESSION_NULL is 0x38000000 */
};

#define RM_HANDLE_KIND(h) ((int)(((uint32_t)(h)) >> 30))
#define RM_HANDLE_OBJ(h) ((int)((((uint32_t)(h)) >> 26) & 0xf))
#define RM_HANDLE_INDEX(h) ((int)(((uint32_t)(h)) & 0x03ffffff))
#define RM_HANDLE_MAKE(kind, obj, idx) \
    ((int)(((uint32_t)(kind) << 30) | ((uint32_t)(obj) << 26) | (uint32_t)(idx)))

/* A growable table of objects of one type. Slots below `reserved` are never
 * handed out (MPICH's ABI puts some predefined objects there, e.g. the pair
 * datatypes MPI_FLOAT_INT = direct index 0). */
typedef struct rm_htable {
    int obj;          /* RM_HOBJ_* */
    int reserved;     /* first index alloc may use */
    int cap, used;
    void **slots;
    int *free_idx;    /* stack of freed indices */
    int nfree;
} rm_htable_t;

#define RM_HTABLE_INIT(objtype, nreserved) {(objtype), (nreserved), 0, 0, 0, 0, 0}

/* Returns the new handle, or 0 on allocation failure. */
int rm_htable_alloc(rm_htable_t *t, void *obj);
/* Put an object at a fixed direct index (predefined objects with direct handles). */
int rm_htable_set(rm_htable_t *t, int idx, void *obj);
void rm_htable_free(rm_htable_t *t, int handle);
void rm_htable_destroy(rm_htable_t *t);

/* NULL when the handle is not a live direct handle of this table's type. */
static inline void *rm_htable_get(const rm_htable_t *t, int handle)
{
    if (RM_HANDLE_KIND(handle) != RM_HKIND_DIRECT || RM_HANDLE_OBJ(handle) != t->obj)
        return 0;
    int idx = RM_HANDLE_INDEX(handle);
    if (idx >= t->used)
        return 0;
    return t->slots[idx];
}

#endif
