/* The standard ABI's edge (docs/abi.md): the ABI's types as libmpi_abi.so
 * sees them beside the engine's, and the conversions the generated bindings
 * (tools/abi/gen.py) use. A handle of the ABI is a pointer-sized value: the
 * predefined ones are the standard's constants (below 0x400), looked up in a
 * table; any other is the engine's 32-bit handle, zero-extended. Converting
 * costs a compare and a load, never an allocation. */
#ifndef RAILMPI_ABI_CONV_H
#define RAILMPI_ABI_CONV_H

#include <stdint.h>
#include <stdlib.h>
#include "abi_shared.h"
#include "abi_rename.h"
#include "mpi.h"
#include "abi_unrename.h"

typedef struct MPI_ABI_Comm *abi_Comm;
typedef struct MPI_ABI_Datatype *abi_Datatype;
typedef struct MPI_ABI_Group *abi_Group;
typedef struct MPI_ABI_Op *abi_Op;
typedef struct MPI_ABI_Errhandler *abi_Errhandler;
typedef struct MPI_ABI_Request *abi_Request;
typedef struct MPI_ABI_Message *abi_Message;
typedef struct MPI_ABI_Info *abi_Info;
typedef struct MPI_ABI_Win *abi_Win;
typedef struct MPI_ABI_Session *abi_Session;
typedef struct MPI_ABI_File *abi_File;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int MPI_internal[5];
} abi_Status;

/* the engine's 32-bit handle of a created object is the low half of the
 * ABI's handle, which the bindings let the engine read and write in place */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && sizeof(void *) == 8,
               "the standard ABI's bindings assume a little-endian 64-bit target");

/* what an ABI constant that the engine has no counterpart for becomes: a
 * value every check rejects */
#define ABI_BAD_CONSTANT (-999999)
/* a status's MPI_ERROR before the engine fills it: the engine's calls that
 * complete one request leave it as it is, and so must the ABI's */
#define ABI_ERROR_UNSET (-999998)
#define ABI_PREDEFINED_LIMIT 0x400u
#define ABI_FILE_NULL 0x118u

extern const int abi_pre_in_table[ABI_PREDEFINED_LIMIT];

static inline int h_in(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return v < ABI_PREDEFINED_LIMIT ? abi_pre_in_table[v] : (int)(uint32_t)v;
}

/* h_in with the table's address at hand (a function converting several
 * handles computes it once) */
static inline int h_in_t(const int *t, const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return v < ABI_PREDEFINED_LIMIT ? t[v] : (int)(uint32_t)v;
}

/* the engine's files are pointers already */
static inline MPI_File f_in(abi_File f)
{
    return (uintptr_t)f == ABI_FILE_NULL ? MPI_FILE_NULL : (MPI_File)(void *)f;
}

static inline abi_File f_out(MPI_File f)
{
    return f == MPI_FILE_NULL ? (abi_File)(uintptr_t)ABI_FILE_NULL : (abi_File)(void *)f;
}

/* MPI_BOTTOM is 0 in both; MPI_IN_PLACE is 1 in the ABI, -1 in the engine */
static inline void *abi_buf(const void *p)
{
    return __builtin_expect(p == (const void *)1, 0) ? MPI_IN_PLACE : (void *)(uintptr_t)p;
}

static inline int *abi_weights(const int *p)
{
    uintptr_t v = (uintptr_t)p;
    return v == 10 ? MPI_UNWEIGHTED : v == 11 ? MPI_WEIGHTS_EMPTY : (int *)(uintptr_t)p;
}

int *abi_handles_in(int *stack, int n, void *const *src);
void abi_contents_out(int datatype, int *ints, int max_integers);
int abi_file_toint(abi_File f);
abi_File abi_file_fromint(int i);
void abi_attr_out(int keyval, void *attribute_val);

#endif
