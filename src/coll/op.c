/* Reduction operations: every predefined op on the types the standard
 * defines it for, as plain typed loops the compiler vectorizes; user ops. */
#include "coll/op.h"
#include "util/handle.h"

#include <limits.h>
#include <complex.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { OP_MAX = 1, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_BAND, OP_LOR, OP_BOR, OP_LXOR, OP_BXOR,
       OP_MINLOC, OP_MAXLOC, OP_REPLACE, OP_NO_OP, OP_NBUILTIN };

static op_t op_builtin[OP_NBUILTIN];
static rm_htable_t op_table = RM_HTABLE_INIT(RM_HOBJ_OP, 0);

rm_status_t op_init(void)
{
    for (int i = 1; i < OP_NBUILTIN; i++) {
        op_builtin[i].handle = RM_HANDLE_MAKE(RM_HKIND_BUILTIN, RM_HOBJ_OP, i);
        op_builtin[i].refcount = 1;
        op_builtin[i].builtin = 1;
        op_builtin[i].commute = 1;
    }
    return RM_OK;
}

void op_finalize(void)
{
    for (int i = 0; i < op_table.used; i++)
        free(op_table.slots[i]);
    rm_htable_destroy(&op_table);
}

op_t *op_get(MPI_Op h)
{
    if (RM_HANDLE_KIND(h) == RM_HKIND_BUILTIN && RM_HANDLE_OBJ(h) == RM_HOBJ_OP) {
        int i = RM_HANDLE_INDEX(h);
        return i > 0 && i < OP_NBUILTIN ? &op_builtin[i] : NULL;
    }
    return rm_htable_get(&op_table, h);
}

op_t *op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute)
{
    op_t *op = calloc(1, sizeof *op);
    if (!op)
        return NULL;
    op->fn = fn;
    op->fn_c = fn_c;
    op->commute = commute != 0;
    op->refcount = 1;
    op->handle = rm_htable_alloc(&op_table, op);
    if (!op->handle) {
        free(op);
        return NULL;
    }
    return op;
}

void op_release(op_t *op)
{
    if (op->builtin || --op->refcount > 0)
        return;
    rm_htable_free(&op_table, op->handle);
    free(op);
}

/* ---- type classes ------------------------------------------------------ */

typedef void (*op_kernel_t)(int op, const void *in, void *io, MPI_Count n);
static void op_type_info(MPI_Datatype t, int *tc, op_kernel_t *k);

enum { TC_NONE, TC_INT, TC_FLOAT, TC_COMPLEX, TC_BOOL, TC_BYTE, TC_PAIR };

static int op_type_class(MPI_Datatype t)
{
    switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_WCHAR:
    case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED:
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG:
    case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T:
    case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T:
    case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
    case MPI_INTEGER: case MPI_INTEGER1: case MPI_INTEGER2: case MPI_INTEGER4: case MPI_INTEGER8:
        return TC_INT;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE:
    case MPI_REAL: case MPI_DOUBLE_PRECISION: case MPI_REAL4: case MPI_REAL8: case MPI_REAL16:
        return TC_FLOAT;
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
    case MPI_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX8: case MPI_COMPLEX16: case MPI_COMPLEX32:
        return TC_COMPLEX;
    case MPI_C_BOOL: case MPI_CXX_BOOL: case MPI_LOGICAL:
    case MPI_LOGICAL1: case MPI_LOGICAL2: case MPI_LOGICAL4: case MPI_LOGICAL8: case MPI_LOGICAL16:
        return TC_BOOL;
    case MPI_BYTE:
        return TC_BYTE;
    case MPI_2INT: case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT: case MPI_2INTEGER: case MPI_2REAL: case MPI_2DOUBLE_PRECISION:
        return TC_PAIR;
    }
    return TC_NONE;
}

static int op_allowed(int op, int tc)
{
    switch (op) {
    case OP_MAX: case OP_MIN: return tc == TC_INT || tc == TC_FLOAT;
    case OP_SUM: case OP_PROD: return tc == TC_INT || tc == TC_FLOAT || tc == TC_COMPLEX;
    case OP_LAND: case OP_LOR: case OP_LXOR: return tc == TC_INT || tc == TC_BOOL;
    case OP_BAND: case OP_BOR: case OP_BXOR: return tc == TC_INT || tc == TC_BYTE;
    case OP_MINLOC: case OP_MAXLOC: return tc == TC_PAIR;
    case OP_REPLACE: case OP_NO_OP: return tc != TC_NONE;
    }
    return 0;
}

int op_check(const op_t *op, const dtype_t *dt)
{
    if (!op->builtin)
        return MPI_SUCCESS;
    int idx = RM_HANDLE_INDEX(op->handle);
    if (dt->basic == MPI_DATATYPE_NULL && dt->size)
        return MPI_ERR_TYPE; /* mixed types cannot be reduced element-wise */
    int tc;
    op_kernel_t k;
    op_type_info(dt->basic, &tc, &k);
    return op_allowed(idx, tc) || !dt->size ? MPI_SUCCESS : MPI_ERR_OP;
}

/* ---- kernels ----------------------------------------------------------- */

/* in and io never overlap (the standard forbids aliased arguments, and the
 * schedules reduce between distinct buffers): restrict lets the loops be
 * vectorized without run-time overlap checks (op.c is built with -O3,
 * src/CMakeLists.txt). */
#define OP_LOOP(T, e)                                        \
    do {                                                     \
        const T *restrict a = in;                            \
        T *restrict b = io;                                  \
        for (MPI_Count i = 0; i < n; i++)                    \
            b[i] = e;                                        \
    } while (0)

#define OP_INT(T)                                                                      \
    static void op_int_##T(int op, const void *in, void *io, MPI_Count n)              \
    {                                                                                  \
        switch (op) {                                                                  \
        case OP_MAX: OP_LOOP(T, a[i] > b[i] ? a[i] : b[i]); break;                     \
        case OP_MIN: OP_LOOP(T, a[i] < b[i] ? a[i] : b[i]); break;                     \
        case OP_SUM: OP_LOOP(T, (T)(a[i] + b[i])); break;                              \
        case OP_PROD: OP_LOOP(T, (T)(a[i] * b[i])); break;                             \
        case OP_LAND: OP_LOOP(T, (T)(a[i] && b[i])); break;                            \
        case OP_LOR: OP_LOOP(T, (T)(a[i] || b[i])); break;                             \
        case OP_LXOR: OP_LOOP(T, (T)(!a[i] != !b[i])); break;                          \
        case OP_BAND: OP_LOOP(T, (T)(a[i] & b[i])); break;                             \
        case OP_BOR: OP_LOOP(T, (T)(a[i] | b[i])); break;                              \
        case OP_BXOR: OP_LOOP(T, (T)(a[i] ^ b[i])); break;                             \
        }                                                                              \
    }

#define OP_FLOAT(T)                                                                    \
    static void op_float_##T(int op, const void *in, void *io, MPI_Count n)            \
    {                                                                                  \
        switch (op) {                                                                  \
        case OP_MAX: OP_LOOP(T, a[i] > b[i] ? a[i] : b[i]); break;                     \
        case OP_MIN: OP_LOOP(T, a[i] < b[i] ? a[i] : b[i]); break;                     \
        case OP_SUM: OP_LOOP(T, a[i] + b[i]); break;                                   \
        case OP_PROD: OP_LOOP(T, a[i] * b[i]); break;                                  \
        }                                                                              \
    }

#define OP_COMPLEX(N, T)                                                               \
    static void op_complex_##N(int op, const void *in, void *io, MPI_Count n)          \
    {                                                                                  \
        switch (op) {                                                                  \
        case OP_SUM: OP_LOOP(T, a[i] + b[i]); break;                                   \
        case OP_PROD: OP_LOOP(T, a[i] * b[i]); break;                                  \
        }                                                                              \
    }

#define OP_PAIR(N, VT, IT)                                                             \
    typedef struct { VT v; IT i; } op_pair_##N##_t;                                    \
    static void op_pair_##N(int op, const void *in, void *io, MPI_Count n)             \
    {                                                                                  \
        const op_pair_##N##_t *a = in;                                                 \
        op_pair_##N##_t *b = io;                                                       \
        for (MPI_Count k = 0; k < n; k++) {                                            \
            int better = op == OP_MAXLOC ? a[k].v > b[k].v : a[k].v < b[k].v;          \
            if (better) { /* field by field: the padding may lie past the buffer */  \
                b[k].v = a[k].v;                                                       \
                b[k].i = a[k].i;                                                       \
            }                                                                          \
            else if (a[k].v == b[k].v && a[k].i < b[k].i)                              \
                b[k].i = a[k].i;                                                       \
        }                                                                              \
    }

typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef long long llong;
typedef unsigned long long ullong;
typedef long double ldouble;
OP_INT(char) OP_INT(schar) OP_INT(uchar) OP_INT(short) OP_INT(ushort) OP_INT(int)
OP_INT(unsigned) OP_INT(long) OP_INT(ulong) OP_INT(llong) OP_INT(ullong) OP_INT(wchar_t)
OP_FLOAT(float) OP_FLOAT(double) OP_FLOAT(ldouble)
OP_COMPLEX(f, float _Complex) OP_COMPLEX(d, double _Complex) OP_COMPLEX(ld, long double _Complex)
OP_PAIR(ii, int, int) OP_PAIR(fi, float, int) OP_PAIR(di, double, int) OP_PAIR(li, long, int)
OP_PAIR(si, short, int) OP_PAIR(ldi, long double, int) OP_PAIR(ff, float, float)
OP_PAIR(dd, double, double)

static void op_bool(int op, const void *in, void *io, MPI_Count n)
{
    switch (op) {
    case OP_LAND: OP_LOOP(bool, a[i] && b[i]); break;
    case OP_LOR: OP_LOOP(bool, a[i] || b[i]); break;
    case OP_LXOR: OP_LOOP(bool, a[i] != b[i]); break;
    }
}

/* Fortran's .TRUE. and .FALSE. by LOGICAL size (1, 2, 4, 8, 16 bytes):
 * gfortran's 1 and 0 until a Fortran binding layer gives its own
 * (MPI_Abi_set_fortran_booleans). A LOGICAL is true when it is not the
 * .FALSE. value; results are written as the layer's literals. */
static struct {
    int64_t t, f;
    bool set;
} op_logical[5] = {{1, 0, false}, {1, 0, false}, {1, 0, false}, {1, 0, false}, {1, 0, false}};

static int op_logical_slot(int size)
{
    switch (size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    }
    return -1;
}

int op_logical_set(int size, int64_t t, int64_t f)
{
    int s = op_logical_slot(size);
    if (s < 0)
        return -1;
    op_logical[s].t = t;
    op_logical[s].f = f;
    op_logical[s].set = true;
    return 0;
}

int op_logical_get(int size, int64_t *t, int64_t *f)
{
    int s = op_logical_slot(size);
    if (s < 0)
        return -1;
    *t = op_logical[s].t;
    *f = op_logical[s].f;
    return op_logical[s].set;
}

#define OP_FLOGICAL(name, T, slot)                                                         \
    static void name(int op, const void *in, void *io, MPI_Count n)                        \
    {                                                                                      \
        const T t = (T)op_logical[slot].t, f = (T)op_logical[slot].f;                      \
        switch (op) {                                                                      \
        case OP_LAND: OP_LOOP(T, a[i] != f && b[i] != f ? t : f); break;                   \
        case OP_LOR: OP_LOOP(T, a[i] != f || b[i] != f ? t : f); break;                    \
        case OP_LXOR: OP_LOOP(T, (a[i] != f) != (b[i] != f) ? t : f); break;               \
        }                                                                                  \
    }
/* MPI_LOGICAL is a 4-byte LOGICAL, as MPI_LOGICAL4 */
OP_FLOGICAL(op_flogical, int32_t, 2)
OP_FLOGICAL(op_flogical1, int8_t, 0)
OP_FLOGICAL(op_flogical2, int16_t, 1)
OP_FLOGICAL(op_flogical8, int64_t, 3)
OP_FLOGICAL(op_flogical16, __int128, 4)

/* indexed by op_kernel_id */
static const op_kernel_t op_kernels[] = {
    NULL, op_int_char, op_int_schar, op_int_uchar, op_int_wchar_t, op_int_short, op_int_ushort,
    op_int_int, op_int_unsigned, op_int_long, op_int_ulong, op_int_llong, op_int_ullong,
    op_float_float, op_float_double, op_float_ldouble, op_complex_f, op_complex_d, op_complex_ld,
    op_bool, op_flogical, op_pair_ii, op_pair_fi, op_pair_di, op_pair_li, op_pair_si, op_pair_ldi,
    op_pair_ff, op_pair_dd, op_flogical1, op_flogical2, op_flogical8, op_flogical16,
};

static int op_kernel_id(MPI_Datatype t)
{
    switch (t) {
    case MPI_CHAR: return 1;
    case MPI_SIGNED_CHAR: case MPI_INT8_T: case MPI_INTEGER1: return 2;
    case MPI_UNSIGNED_CHAR: case MPI_UINT8_T: case MPI_BYTE: return 3;
    case MPI_WCHAR: return 4;
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: return 5;
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return 6;
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: return 7;
    case MPI_UNSIGNED: case MPI_UINT32_T: return 8;
    case MPI_LONG: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: return 9;
    case MPI_UNSIGNED_LONG: return 10;
    case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_INTEGER8: return 11;
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return 12;
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return 13;
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return 14;
    case MPI_LONG_DOUBLE: case MPI_REAL16: return 15;
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8:
        return 16;
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
        return 17;
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: case MPI_COMPLEX32:
        return 18;
    case MPI_C_BOOL: case MPI_CXX_BOOL: return 19;
    case MPI_LOGICAL: case MPI_LOGICAL4: return 20;
    case MPI_LOGICAL1: return 29;
    case MPI_LOGICAL2: return 30;
    case MPI_LOGICAL8: return 31;
    case MPI_LOGICAL16: return 32;
    case MPI_2INT: case MPI_2INTEGER: return 21;
    case MPI_FLOAT_INT: return 22;
    case MPI_DOUBLE_INT: return 23;
    case MPI_LONG_INT: return 24;
    case MPI_SHORT_INT: return 25;
    case MPI_LONG_DOUBLE_INT: return 26;
    case MPI_2REAL: return 27;
    case MPI_2DOUBLE_PRECISION: return 28;
    }
    return 0;
}

/* What a reduction needs to know of a predefined type: its class and its
 * kernel (op_kernels). The switches are searches over sparse handle values
 * and a program reduces one type after another, so the last answer is kept
 * (type, kernel and class in one word: reductions also run on the progress
 * thread). */
static void op_type_info(MPI_Datatype t, int *tc, op_kernel_t *k)
{
    static _Atomic uint64_t memo; /* type << 16 | kernel id << 8 | class + 1; 0: none yet */
    uint64_t m = atomic_load_explicit(&memo, memory_order_relaxed);
    if (!m || (uint32_t)(m >> 16) != (uint32_t)t) {
        m = (uint64_t)(uint32_t)t << 16 | (uint64_t)op_kernel_id(t) << 8 |
            (uint64_t)(op_type_class(t) + 1);
        atomic_store_explicit(&memo, m, memory_order_relaxed);
    }
    *tc = (int)(m & 0xff) - 1;
    *k = op_kernels[(m >> 8) & 0xff];
}

/* Apply on packed predefined elements. */
static int op_apply_basic(int idx, const void *in, void *io, MPI_Count n, const dtype_t *bt,
                          op_kernel_t k)
{
    if (idx == OP_NO_OP)
        return MPI_SUCCESS;
    if (idx == OP_REPLACE) {
        memcpy(io, in, (size_t)n * (size_t)bt->size);
        return MPI_SUCCESS;
    }
    if (!k)
        return MPI_ERR_OP;
    k(idx, in, io, n);
    return MPI_SUCCESS;
}

int op_apply(const op_t *op, const void *in, void *inout, MPI_Count count, const dtype_t *dt)
{
    if (!count || !dt->size)
        return MPI_SUCCESS;
    if (!op->builtin) {
        /* the user function sees the user's own datatype and count; an
         * int function takes a count past INT_MAX in pieces (the op works
         * item by item, so the pieces reduce as the whole would) */
        MPI_Datatype h = dt->handle;
        if (op->fn_c) {
            MPI_Count len = count;
            if (op->call_c)
                op->call_c(op->abi_fn, (void *)in, inout, &len, h);
            else
                op->fn_c((void *)in, inout, &len, &h);
            return MPI_SUCCESS;
        }
        for (MPI_Count done = 0; done < count;) {
            int len = count - done > INT_MAX ? INT_MAX : (int)(count - done);
            MPI_Aint off = (MPI_Aint)done * dt->extent;
            if (op->call)
                op->call(op->abi_fn, (char *)in + off, (char *)inout + off, &len, h);
            else
                op->fn((char *)in + off, (char *)inout + off, &len, &h);
            done += len;
        }
        return MPI_SUCCESS;
    }
    if (dt->basic == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE; /* mixed types cannot be reduced element-wise */
    int idx = RM_HANDLE_INDEX(op->handle), tc, rc;
    op_kernel_t k;
    op_type_info(dt->basic, &tc, &k);
    if (!op_allowed(idx, tc))
        return MPI_ERR_OP;
    const dtype_t *bt = dt->builtin ? dt : dtype_get(dt->basic);
    if (!bt)
        return MPI_ERR_TYPE;
    MPI_Count n = count * dt->nbasic;
    if (dt->builtin) /* incl. the pair types, whose kernels walk their C struct layout */
        return op_apply_basic(idx, in, inout, count, bt, k);
    if (tc == TC_PAIR)
        return MPI_ERR_TYPE; /* a derived type made of pairs has no packed form the kernels know */
    if (dtype_is_contig(dt, count))
        return op_apply_basic(idx, (const char *)in + dt->true_lb, (char *)inout + dt->true_lb, n, bt, k);
    /* noncontiguous: reduce on packed copies, place the result back */
    size_t bytes = (size_t)count * (size_t)dt->size;
    void *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
        return MPI_ERR_NO_MEM;
    }
    dtype_pack(in, count, dt, 0, a, bytes);
    dtype_pack(inout, count, dt, 0, b, bytes);
    rc = op_apply_basic(idx, a, b, n, bt, k);
    dtype_unpack(inout, count, dt, 0, b, bytes);
    free(a);
    free(b);
    return rc;
}
