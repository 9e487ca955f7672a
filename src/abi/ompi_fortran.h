/* libmpi_mpifh.so.40 (docs/abi.md, "Fortran through Open MPI's ABI"): the
 * Fortran bindings of Open MPI's mpif.h over Open MPI's C ABI, which
 * railmpi's libmpi.so.40 provides. The wrappers (written by
 * tools/fortran/ompi_fgen.py) see Open MPI 4.1's C types and values only:
 * handles are pointers, which MPI_<T>_f2c/_c2f turn into Open MPI's Fortran
 * integers and back; a Fortran status is Open MPI's C status (six integers);
 * error classes and constants pass through unchanged, being Open MPI's in
 * its mpif.h as in its mpi.h. No header of railmpi's engine is included. */
#ifndef RAILMPI_OMPI_FORTRAN_H
#define RAILMPI_OMPI_FORTRAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define RM_FEXPORT __attribute__((visibility("default")))
#define RM_FALIAS(target, name) \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("default")));

typedef struct ompi_communicator_t *MPI_Comm;
typedef struct ompi_datatype_t *MPI_Datatype;
typedef struct ompi_group_t *MPI_Group;
typedef struct ompi_op_t *MPI_Op;
typedef struct ompi_errhandler_t *MPI_Errhandler;
typedef struct ompi_request_t *MPI_Request;
typedef struct ompi_message_t *MPI_Message;
typedef struct ompi_info_t *MPI_Info;
typedef struct ompi_win_t *MPI_Win;
typedef struct ompi_file_t *MPI_File;
typedef int MPI_Fint;
typedef long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef struct {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int _cancelled;
    size_t _ucount;
} MPI_Status;

/* Open MPI 4.1's values */
#define MPI_SUCCESS 0
#define MPI_ERR_NO_MEM 39
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)

/* the objects of Open MPI's mpif.h's sentinel common blocks (defined by
 * libmpi.so.40; a program's own copy takes their place) */
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];
#define F_IS_ARGV_NULL(f) ((f) == mpi_fortran_argv_null_)
#define F_IS_ARGVS_NULL(f) ((f) == mpi_fortran_argvs_null_)
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_[1],
    mpi_fortran_status_ignore_[6], mpi_fortran_statuses_ignore_[6], mpi_fortran_unweighted_[1],
    mpi_fortran_weights_empty_[1];

static inline void *F_BUF(void *p)
{
    if (p == (void *)&mpi_fortran_bottom_) return MPI_BOTTOM;
    if (p == (void *)&mpi_fortran_in_place_) return MPI_IN_PLACE;
    return p;
}
static inline MPI_Status *F_STATUS(MPI_Fint *p)
{
    return p == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)p;
}
static inline MPI_Status *F_STATUSES(MPI_Fint *p)
{
    return p == mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)p;
}
static inline int *F_ERRCODES(MPI_Fint *p)
{
    return p == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : (int *)p;
}
static inline int *F_WEIGHTS(void *p)
{
    if (p == (void *)mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
    if (p == (void *)mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
    return p;
}

/* Open MPI's predefined attribute keys are the same in Fortran and C */
static inline int f_keyval_c(MPI_Fint k)
{
    return k;
}
MPI_Aint f_attr_value(MPI_Fint keyval, void *v);

/* src/fortran/f_strings.c, compiled again with this header */
char *f_str_in(const char *s, size_t len);
char *f_str_out_buf(size_t len);
void f_str_out(const char *c, char *f, size_t len);
int f_argv_in(const char *f, size_t len, char ***out);
void f_argv_free(char **argv);
int f_argvs_in(const char *f, int count, size_t len, char ****out);
void f_argvs_free(char ***argvs, int count);
int f_str_arr_in(const char *f, int count, size_t len, char ***out);
MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n);

/* handle arrays: Fortran integers to C handles (malloc'ed, NULL when n <= 0
 * or out of memory) and back */
enum { F_COMM, F_DATATYPE, F_INFO, F_REQUEST };
void **f_handles_in(int cls, const MPI_Fint *f, int n);
void **f_handles_room(int n);
void f_handles_out(int cls, MPI_Fint *f, void **c, int n);
/* the length of alltoallw's type arrays: the group's size, the remote
 * group's for an intercommunicator */
int f_comm_span(MPI_Comm comm);
/* the neighbour alltoallw's: the topology's out-degree (out) or in-degree */
int f_neighbor_span(MPI_Comm comm, int out);

#endif
