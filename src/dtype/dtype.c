/* Datatypes: the predefined table (MPICH ABI handles, MPICH's names) and the
 * lifetime of derived types (handles, references to the children a
 * description points at). Construction is in dtype_build.c, pack/unpack and
 * element counts in dtype_seg.c. */
#include "dtype/dtype.h"
#include "comm/attr.h"
#include "util/handle.h"

#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dtype_t dtype_builtin[256];   /* by the handle's low byte */
static dtype_t dtype_pairs[5];       /* MPICH's direct-handle pair types */
static rm_htable_t dtype_table = RM_HTABLE_INIT(RM_HOBJ_DATATYPE, 5);

typedef struct { float f; int i; } dtype_float_int_t;
typedef struct { double d; int i; } dtype_double_int_t;
typedef struct { long l; int i; } dtype_long_int_t;
typedef struct { short s; int i; } dtype_short_int_t;
typedef struct { long double ld; int i; } dtype_long_double_int_t;

static void dtype_set_basic(MPI_Datatype h, const char *name, size_t size, size_t align,
                            int nelems)
{
    dtype_t *t = &dtype_builtin[h & 0xff];
    memset(t, 0, sizeof *t);
    t->handle = h;
    t->refcount = 1;
    t->builtin = 1;
    t->committed = 1;
    t->combiner = MPI_COMBINER_NAMED;
    t->size = (MPI_Count)size;
    t->ub = t->extent = t->true_ub = (MPI_Aint)size;
    t->contig = 1;
    t->basic = size ? h : MPI_DATATYPE_NULL;
    t->nbasic = size ? 1 : 0;
    t->nelems = size ? nelems : 0;
    t->kind = DTYPE_LEAF;
    t->nruns = size ? 1 : 0;
    t->align = (int)(align ? align : 1);
    t->xsize = dtype_ext32_leaf_size(h);
    snprintf(t->name, sizeof t->name, "%s", name);
}

#define DT(h, type) dtype_set_basic(h, #h, sizeof(type), _Alignof(type), 1)

static rm_status_t dtype_make_pair(int idx, MPI_Datatype h, const char *name, MPI_Datatype first,
                            MPI_Aint second_off)
{
    dtype_t *kids[2] = {dtype_get(first), dtype_get(MPI_INT)};
    MPI_Count blens[2] = {1, 1};
    MPI_Aint displs[2] = {0, second_off};
    dtype_t *t = dtype_create(MPI_COMBINER_STRUCT, 2, blens, displs, kids, 0, NULL, 0, NULL, 0, NULL);
    if (!t)
        return RM_ERR_NOMEM;
    dtype_pairs[idx] = *t;
    free(t);
    t = &dtype_pairs[idx];
    t->handle = h;
    t->builtin = 1;
    t->committed = 1;
    t->combiner = MPI_COMBINER_NAMED;
    t->basic = h; /* reductions treat the pair as one element */
    t->nbasic = 1; /* nelems stays 2: MPI_Get_elements counts both members */
    snprintf(t->name, sizeof t->name, "%s", name);
    rm_htable_set(&dtype_table, idx, t);
    return RM_OK;
}

rm_status_t dtype_init(void)
{
    DT(MPI_CHAR, char);
    DT(MPI_SIGNED_CHAR, signed char);
    DT(MPI_UNSIGNED_CHAR, unsigned char);
    DT(MPI_BYTE, char);
    DT(MPI_WCHAR, wchar_t);
    DT(MPI_SHORT, short);
    DT(MPI_UNSIGNED_SHORT, unsigned short);
    DT(MPI_INT, int);
    DT(MPI_UNSIGNED, unsigned);
    DT(MPI_LONG, long);
    DT(MPI_UNSIGNED_LONG, unsigned long);
    DT(MPI_LONG_LONG_INT, long long);
    DT(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    DT(MPI_FLOAT, float);
    DT(MPI_DOUBLE, double);
    DT(MPI_LONG_DOUBLE, long double);
    DT(MPI_PACKED, char);
    DT(MPI_INT8_T, int8_t);
    DT(MPI_INT16_T, int16_t);
    DT(MPI_INT32_T, int32_t);
    DT(MPI_INT64_T, int64_t);
    DT(MPI_UINT8_T, uint8_t);
    DT(MPI_UINT16_T, uint16_t);
    DT(MPI_UINT32_T, uint32_t);
    DT(MPI_UINT64_T, uint64_t);
    DT(MPI_C_BOOL, _Bool);
    /* MPI_C_COMPLEX is this handle too; MPICH names it so and programs compare */
    dtype_set_basic(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", sizeof(float _Complex),
                    _Alignof(float _Complex), 1);
    DT(MPI_C_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex);
    DT(MPI_AINT, MPI_Aint);
    DT(MPI_OFFSET, MPI_Offset);
    DT(MPI_COUNT, MPI_Count);
    DT(MPI_CXX_BOOL, _Bool);
    DT(MPI_CXX_FLOAT_COMPLEX, float _Complex);
    DT(MPI_CXX_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex);
    /* Fortran types: valid handles with their C layouts */
    DT(MPI_CHARACTER, char);
    DT(MPI_LOGICAL, int);
    DT(MPI_INTEGER, int);
    DT(MPI_REAL, float);
    DT(MPI_DOUBLE_PRECISION, double);
    DT(MPI_COMPLEX, float _Complex);
    DT(MPI_DOUBLE_COMPLEX, double _Complex);
    DT(MPI_INTEGER1, int8_t);
    DT(MPI_INTEGER2, int16_t);
    DT(MPI_INTEGER4, int32_t);
    DT(MPI_INTEGER8, int64_t);
    DT(MPI_REAL4, float);
    DT(MPI_REAL8, double);
    DT(MPI_REAL16, long double);
    DT(MPI_COMPLEX8, float _Complex);
    DT(MPI_COMPLEX16, double _Complex);
    DT(MPI_COMPLEX32, long double _Complex);
    DT(MPI_LOGICAL1, int8_t);
    DT(MPI_LOGICAL2, int16_t);
    DT(MPI_LOGICAL4, int32_t);
    DT(MPI_LOGICAL8, int64_t);
    DT(MPI_LOGICAL16, __int128);
    /* two-element types used by MINLOC/MAXLOC */
    dtype_set_basic(MPI_2INT, "MPI_2INT", 2 * sizeof(int), _Alignof(int), 2);
    dtype_set_basic(MPI_2INTEGER, "MPI_2INTEGER", 2 * sizeof(int), _Alignof(int), 2);
    dtype_set_basic(MPI_2REAL, "MPI_2REAL", 2 * sizeof(float), _Alignof(float), 2);
    dtype_set_basic(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double),
                    _Alignof(double), 2);
    /* bound markers: no data, they only move lb/ub */
    dtype_set_basic(MPI_LB, "MPI_LB", 0, 1, 0);
    dtype_set_basic(MPI_UB, "MPI_UB", 0, 1, 0);
    dtype_builtin[MPI_LB & 0xff].lb_marked = 1;
    dtype_builtin[MPI_UB & 0xff].ub_marked = 1;

    if (dtype_make_pair(0, MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, offsetof(dtype_float_int_t, i)) ||
        dtype_make_pair(1, MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE,
                        offsetof(dtype_double_int_t, i)) ||
        dtype_make_pair(2, MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, offsetof(dtype_long_int_t, i)) ||
        dtype_make_pair(3, MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, offsetof(dtype_short_int_t, i)) ||
        dtype_make_pair(4, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE,
                        offsetof(dtype_long_double_int_t, i)))
        return RM_ERR_NOMEM;
    return RM_OK;
}

void dtype_finalize(void)
{
    dtype_f90_finalize();
    /* everything goes at once: children need no releasing */
    for (int i = 0; i < 5; i++)
        dtype_free_mem(&dtype_pairs[i]);
    for (int i = 5; i < dtype_table.used; i++) {
        dtype_t *t = dtype_table.slots[i];
        if (!t)
            continue;
        dtype_free_mem(t);
        free(t);
    }
    rm_htable_destroy(&dtype_table);
}

dtype_t *dtype_get(MPI_Datatype h)
{
    if (RM_HANDLE_KIND(h) == RM_HKIND_BUILTIN && RM_HANDLE_OBJ(h) == RM_HOBJ_DATATYPE) {
        dtype_t *t = &dtype_builtin[h & 0xff];
        return t->handle == h ? t : NULL;
    }
    return rm_htable_get(&dtype_table, h);
}

void dtype_addref(dtype_t *dt)
{
    if (!dt->builtin)
        dt->refcount++;
}

void dtype_release(dtype_t *dt)
{
    if (dt->builtin || --dt->refcount > 0)
        return;
    if (dt->attrs)
        attr_delete_all(&dt->attrs, ATTR_TYPE, dt->handle);
    if (dt->handle)
        rm_htable_free(&dtype_table, dt->handle);
    if (dt->child)
        dtype_release(dt->child);
    for (int i = 0; dt->kids && i < dt->n; i++)
        dtype_release(dt->kids[i]);
    dtype_free_mem(dt);
    free(dt);
}

/* The arrays a type owns (not the children they point at). */
void dtype_free_mem(dtype_t *t)
{
    free(t->blens);
    free(t->displs);
    free(t->kids);
    free(t->psum);
    free(t->blocks);
    free(t->bsum);
    free(t->ints);
    free(t->aints);
    free(t->types);
    free(t->counts);
    t->counts = NULL;
    t->nc = 0;
    t->blens = NULL;
    t->displs = NULL;
    t->kids = NULL;
    t->psum = NULL;
    t->blocks = NULL;
    t->bsum = NULL;
    t->ints = NULL;
    t->aints = NULL;
    t->types = NULL;
}

rm_status_t dtype_register(dtype_t *dt)
{
    dt->handle = rm_htable_alloc(&dtype_table, dt);
    return dt->handle ? RM_OK : RM_ERR_NOMEM;
}


/* ---- MPI_Type_create_f90_real/complex/integer ---------------------------- */

/* The standard has two such types match only when their (p, r) match, and
 * get_contents return (p, r): so one type per distinct (combiner, p, r),
 * made once and kept, over the predefined type of the right size (MPICH
 * does the same). They are predefined: MPI_Type_free refuses them. */
typedef struct dtype_f90_entry {
    int combiner, p, r;
    dtype_t *t;
} dtype_f90_entry_t;

static dtype_f90_entry_t *dtype_f90_cache;
static int dtype_f90_n, dtype_f90_cap;

dtype_t *dtype_f90(int combiner, int p, int r, MPI_Datatype base)
{
    for (int i = 0; i < dtype_f90_n; i++) {
        dtype_f90_entry_t *e = &dtype_f90_cache[i];
        if (e->combiner == combiner && e->p == p && e->r == r)
            return e->t;
    }
    if (dtype_f90_n == dtype_f90_cap) {
        int cap = dtype_f90_cap ? 2 * dtype_f90_cap : 8;
        dtype_f90_entry_t *nc = realloc(dtype_f90_cache, sizeof *nc * (size_t)cap);
        if (!nc) {
            dtype_build_set_error(RM_ERR_NOMEM);
            return NULL;
        }
        dtype_f90_cache = nc;
        dtype_f90_cap = cap;
    }
    dtype_t *old = dtype_get(base);
    int ints[2] = {p, r};
    MPI_Count one = 1;
    MPI_Aint zero = 0;
    int ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    if (ni == 1)
        ints[0] = r;
    dtype_t *t = dtype_create(combiner, 1, &one, &zero, &old, ni, ints, 0, NULL, 0, NULL);
    if (!t)
        return NULL;
    t->basic = old->basic;
    t->nbasic = old->nbasic;
    t->builtin = 1;
    t->committed = 1;
    if (dtype_register(t) < 0) {
        dtype_free_mem(t);
        free(t);
        dtype_build_set_error(RM_ERR_NOMEM);
        return NULL;
    }
    dtype_f90_cache[dtype_f90_n++] = (dtype_f90_entry_t){combiner, p, r, t};
    return t;
}

void dtype_f90_finalize(void)
{
    /* the types themselves are in the handle table, freed with it */
    free(dtype_f90_cache);
    dtype_f90_cache = NULL;
    dtype_f90_n = dtype_f90_cap = 0;
}
