/* Open MPI's ABI edge (docs/abi.md, "Open MPI's ABI"): Open MPI 4.1's types as
 * libmpi.so.40 sees them beside the engine's, and the conversions the
 * generated wrappers (tools/abi/ompi_gen.py) use. A handle is a pointer. A
 * predefined one is the address of one of Open MPI's exported objects
 * (ompi_mpi_comm_world, ...), which holds the engine's handle in its first
 * word; any other is the engine's handle zero-extended, which has the
 * engine's direct or indirect kind (bit 31 set) and so lies in
 * [2^31, 2^32), where no program's data is. Converting costs a compare and
 * at most a load, never an allocation.
 *
 * It provides the names of the standard ABI's src/abi/abi_conv.h, so that
 * src/abi/abi_callbacks.c is compiled again for this ABI (ompi_callbacks.c). */
#ifndef RAILMPI_OMPI_CONV_H
#define RAILMPI_OMPI_CONV_H
/* abi_callbacks.c includes abi_conv.h: this header stands for it */
#define RAILMPI_ABI_CONV_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "abi_shared.h"
#include "abi_rename.h"
#include "mpi.h"
#include "abi_unrename.h"

typedef struct ompi_communicator_t *abi_Comm;
typedef struct ompi_datatype_t *abi_Datatype;
typedef struct ompi_group_t *abi_Group;
typedef struct ompi_op_t *abi_Op;
typedef struct ompi_errhandler_t *abi_Errhandler;
typedef struct ompi_request_t *abi_Request;
typedef struct ompi_message_t *abi_Message;
typedef struct ompi_info_t *abi_Info;
typedef struct ompi_win_t *abi_Win;
typedef struct ompi_session_t *abi_Session;
typedef struct ompi_file_t *abi_File;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int _cancelled;
    size_t _ucount;
} abi_Status;

#define ABI_BAD_CONSTANT (-999999)
#define ABI_ERROR_UNSET (-999998)
/* what a mode or assertion bit Open MPI does not define becomes: one the
 * engine does not define either */
#define ABI_UNKNOWN_BIT 0x40000000

/* the first words of every predefined object: the engine's handle, Open
 * MPI's Fortran integer (-1: none) */
struct ompi_obj_head {
    int h;
    int f;
};

/* Open MPI's Fortran integers (MPI_<T>_c2f, _f2c; src/abi/ompi_fhandle.c):
 * the predefined objects' come from Open MPI's mpif.h (MPI_COMM_WORLD 0,
 * MPI_INTEGER 7, ...), each class's created objects are numbered above them */
enum { OMPI_F_COMM, OMPI_F_DATATYPE, OMPI_F_GROUP, OMPI_F_OP, OMPI_F_ERRHANDLER, OMPI_F_REQUEST,
       OMPI_F_MESSAGE, OMPI_F_INFO, OMPI_F_WIN, OMPI_F_FILE, OMPI_F_NCLASS };
struct ompi_f_pre {
    void *const *obj; /* by Fortran integer; NULL: none */
    int n;
    void *null;       /* the class's null object */
};
extern const struct ompi_f_pre ompi_f_pre[OMPI_F_NCLASS];
int ompi_f_out(int cls, const void *h);
void *ompi_f_in(int cls, int f);

static inline int h_in(const void *p)
{
    /* the address's pages with bit 19 (address bit 31) flipped: an object
     * (past the first page, outside [2^31, 2^32)) is above 2^19, an engine
     * handle below. One compare and a load for the objects most calls
     * pass, wherever the program keeps its copies of them (a program linked
     * at a fixed address, or run under valgrind, below 2 GiB); constants
     * that fit an instruction */
    uintptr_t t = ((uintptr_t)p >> 12) ^ ((uintptr_t)1 << 19);
    if (__builtin_expect(t > ((uintptr_t)1 << 19), 1))
        return ((const struct ompi_obj_head *)p)->h;
    /* an engine handle, or NULL (or the first page): no handle, and the
     * engine's 0 is invalid in every class */
    return (uintptr_t)p >> 31 ? (int)(uint32_t)(uintptr_t)p : 0;
}

/* the engine's files are pointers; Open MPI's MPI_FILE_NULL is an object */
extern struct ompi_obj_1536 ompi_mpi_file_null;

static inline MPI_File f_in(abi_File f)
{
    return (void *)f == (void *)&ompi_mpi_file_null ? MPI_FILE_NULL : (MPI_File)(void *)f;
}

static inline abi_File f_out(MPI_File f)
{
    return f == MPI_FILE_NULL ? (abi_File)(void *)&ompi_mpi_file_null : (abi_File)(void *)f;
}

/* MPI_BOTTOM is 0 in both; MPI_IN_PLACE is 1 in Open MPI, -1 in the engine */
static inline void *abi_buf(const void *p)
{
    return p == (const void *)1 ? MPI_IN_PLACE : (void *)(uintptr_t)p;
}

static inline int *abi_weights(const int *p)
{
    uintptr_t v = (uintptr_t)p;
    return v == 2 ? MPI_UNWEIGHTED : v == 3 ? MPI_WEIGHTS_EMPTY : (int *)(uintptr_t)p;
}

int *abi_handles_in(int *stack, int n, void *const *src);
void abi_contents_out(int datatype, int *ints, int max_integers);
void abi_str_out(char *to, const char *from, int max, int *len);
void abi_version_out(char *to, const char *from, int max, int *len);
MPI_Status *abi_statuses_room(MPI_Status *stack, const abi_Status *a, int n);
void abi_statuses_conv(abi_Status *a, MPI_Status *m, int n, MPI_Status *stack);
void abi_attr_out(int keyval, void *attribute_val);

#endif
