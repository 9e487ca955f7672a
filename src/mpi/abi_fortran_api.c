/* The ABI chapter's Fortran support (MPI-5.0): what the Fortran types are
 * to this library and which optional ones it handles (MPI_Abi_get/
 * set_fortran_info), and the .TRUE./.FALSE. values that reductions on
 * MPI_LOGICAL read and write (MPI_Abi_get/set_fortran_booleans).
 *
 * libmpi.so.12 carries its own Fortran bindings, built with gfortran: the
 * booleans are fixed there (1 and 0, set by the library). libmpi_abi.so
 * (these bindings compiled again with RM_STD_ABI, shared with libmpi.so.40,
 * which does not export these calls: Open MPI 4.1 has none) has no Fortran
 * bindings of its own: a binding layer built elsewhere gives its booleans
 * once. In both a
 * layer may state its sizes and optional types once (docs/abi.md). */
#include "coll/op.h"
#include "mpi/mpiimpl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes of the Fortran types as the engine's MPI_INTEGER, MPI_LOGICAL,
 * MPI_REAL and MPI_DOUBLE_PRECISION have them (src/dtype/dtype.c). */
static const struct {
    const char *key;
    int size;
} fsizes[] = {
    {"mpi_logical_size", (int)sizeof(int)},
    {"mpi_integer_size", (int)sizeof(int)},
    {"mpi_real_size", (int)sizeof(float)},
    {"mpi_double_precision_size", (int)sizeof(double)},
};

/* The optional Fortran datatypes and whether the engine handles them.
 * INTEGER16, REAL2 and COMPLEX4 are not predefined datatypes of the engine
 * (it has no half-precision arithmetic). MPI_REAL16/MPI_COMPLEX32 are C's
 * long double (x87 extended precision in 16 bytes), which is not gfortran's
 * REAL(16) (IEEE binary128): they move such data but would reduce it
 * wrongly, so they are not claimed. */
static const struct {
    const char *key;
    bool engine;
} ftypes[] = {
    {"mpi_logical1_supported", true},   {"mpi_logical2_supported", true},
    {"mpi_logical4_supported", true},   {"mpi_logical8_supported", true},
    {"mpi_logical16_supported", true},  {"mpi_integer1_supported", true},
    {"mpi_integer2_supported", true},   {"mpi_integer4_supported", true},
    {"mpi_integer8_supported", true},   {"mpi_integer16_supported", false},
    {"mpi_real2_supported", false},     {"mpi_real4_supported", true},
    {"mpi_real8_supported", true},      {"mpi_real16_supported", false},
    {"mpi_complex4_supported", false},  {"mpi_complex8_supported", true},
    {"mpi_complex16_supported", true},  {"mpi_complex32_supported", false},
    {"mpi_double_complex_supported", true},
};
#define NFTYPES (sizeof ftypes / sizeof ftypes[0])

/* what a binding layer said (MPI_Abi_set_fortran_info): its compiler lacks
 * the types marked; kept past MPI_Finalize like the library's own answers */
static bool finfo_set;
static bool finfo_lacks[NFTYPES];

RM_ALIAS(Abi_get_fortran_info)
int PMPI_Abi_get_fortran_info(MPI_Info *info)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_get_fortran_info");
    CHECK_ARG(NULL, info, "info is NULL");
    MPI_Info in;
    if ((err = PMPI_Info_create(&in)) != MPI_SUCCESS)
        goto fn_exit;
    for (size_t i = 0; err == MPI_SUCCESS && i < sizeof fsizes / sizeof fsizes[0]; i++) {
        char v[16];
        snprintf(v, sizeof v, "%d", fsizes[i].size);
        err = PMPI_Info_set(in, fsizes[i].key, v);
    }
    for (size_t i = 0; err == MPI_SUCCESS && i < NFTYPES; i++)
        err = PMPI_Info_set(in, ftypes[i].key, ftypes[i].engine && !finfo_lacks[i] ? "true" : "false");
    if (err != MPI_SUCCESS) {
        PMPI_Info_free(&in);
        goto fn_exit;
    }
    *info = in;
    MPI_END();
}

RM_ALIAS(Abi_set_fortran_info)
int PMPI_Abi_set_fortran_info(MPI_Info info)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_set_fortran_info");
    const char *v;
    if (info == MPI_INFO_NULL || mpi_info_value(info, "", &v) != MPI_SUCCESS)
        MPI_FAIL(NULL, MPI_ERR_INFO, "info is not a valid info object (0x%x)", (unsigned)info);
    if (finfo_set)
        MPI_FAIL(NULL, MPI_ERR_ABI, "the Fortran ABI information was already set (at most once)");
    /* the sizes must be the ones the library's datatypes have */
    for (size_t i = 0; i < sizeof fsizes / sizeof fsizes[0]; i++) {
        mpi_info_value(info, fsizes[i].key, &v);
        if (!v)
            continue;
        char *end;
        long n = strtol(v, &end, 10);
        if (end == v || *end || n <= 0)
            MPI_FAIL(NULL, MPI_ERR_INFO_VALUE, "info key %s: '%s' is not a size", fsizes[i].key, v);
        if (n != fsizes[i].size)
            MPI_FAIL(NULL, MPI_ERR_ABI, "info key %s: %ld bytes, but this library's are %d",
                     fsizes[i].key, n, fsizes[i].size);
    }
    bool lacks[NFTYPES];
    for (size_t i = 0; i < NFTYPES; i++) {
        mpi_info_value(info, ftypes[i].key, &v);
        if (v && strcmp(v, "true") && strcmp(v, "false"))
            MPI_FAIL(NULL, MPI_ERR_INFO_VALUE, "info key %s: '%s' is neither true nor false",
                     ftypes[i].key, v);
        lacks[i] = v && !strcmp(v, "false");
    }
    memcpy(finfo_lacks, lacks, sizeof lacks);
    finfo_set = true;
    MPI_END();
}

/* ---- booleans ----------------------------------------------------------- */

#ifdef RM_STD_ABI
static bool fbool_set; /* MPI_Abi_set_fortran_booleans was called */
#endif

static bool fbool_size_ok(int n)
{
    return n == 1 || n == 2 || n == 4 || n == 8 || n == 16;
}

/* an n-byte Fortran LOGICAL's value as a sign-extended integer; false when
 * it does not fit in 64 bits (a 16-byte value whose upper half is not the
 * sign of the lower) */
static bool fbool_read(int n, const void *p, int64_t *v)
{
    switch (n) {
    case 1: { int8_t x; memcpy(&x, p, 1); *v = x; return true; }
    case 2: { int16_t x; memcpy(&x, p, 2); *v = x; return true; }
    case 4: { int32_t x; memcpy(&x, p, 4); *v = x; return true; }
    case 8: memcpy(v, p, 8); return true;
    }
    __int128 x;
    memcpy(&x, p, 16);
    *v = (int64_t)x;
    return (__int128)*v == x;
}

static void fbool_write(int n, void *p, int64_t v)
{
    switch (n) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); return; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); return; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return; }
    case 8: memcpy(p, &v, 8); return;
    }
    __int128 x = v;
    memcpy(p, &x, 16);
}

RM_ALIAS(Abi_get_fortran_booleans)
int PMPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false, int *is_set)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_get_fortran_booleans");
    CHECK_ARG(NULL, fbool_size_ok(logical_size),
              "logical_size %d is not a power of two up to 16", logical_size);
    CHECK_ARG(NULL, logical_true, "logical_true is NULL");
    CHECK_ARG(NULL, logical_false, "logical_false is NULL");
    CHECK_ARG(NULL, is_set, "is_set is NULL");
    int64_t t, f;
    int set = op_logical_get(logical_size, &t, &f);
#ifndef RM_STD_ABI
    set = 1; /* this library's gfortran bindings: .TRUE. 1, .FALSE. 0 */
#endif
    fbool_write(logical_size, logical_true, t);
    fbool_write(logical_size, logical_false, f);
    *is_set = set;
    MPI_END();
}

RM_ALIAS(Abi_set_fortran_booleans)
int PMPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    MPI_BEGIN_ANYTIME("MPI_Abi_set_fortran_booleans");
    CHECK_ARG(NULL, fbool_size_ok(logical_size),
              "logical_size %d is not a power of two up to 16", logical_size);
    CHECK_ARG(NULL, logical_true, "logical_true is NULL");
    CHECK_ARG(NULL, logical_false, "logical_false is NULL");
    int64_t t, f;
    CHECK_ARG(NULL, fbool_read(logical_size, logical_true, &t), "logical_true does not fit in 64 bits");
    CHECK_ARG(NULL, fbool_read(logical_size, logical_false, &f), "logical_false does not fit in 64 bits");
    CHECK_ARG(NULL, t != f, "logical_true and logical_false are the same value (%lld)", (long long)t);
#ifdef RM_STD_ABI
    if (fbool_set)
        MPI_FAIL(NULL, MPI_ERR_ABI, "the Fortran booleans were already set (at most once)");
    op_logical_set(logical_size, t, f);
    fbool_set = true;
#else
    MPI_FAIL(NULL, MPI_ERR_ABI,
             "this library's own Fortran bindings fix the booleans (.TRUE. 1, .FALSE. 0)");
#endif
    MPI_END();
}
