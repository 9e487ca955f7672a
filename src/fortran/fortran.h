/* Helpers shared by the generated Fortran wrappers (tools/fortran/gen.py)
 * and the hand-written ones in src/fortran/. Fortran passes everything by
 * reference; MPI_Fint is int and Fortran handles are the C handles (MPICH's
 * ABI), so most arguments pass straight through. */
#ifndef RAILMPI_FORTRAN_H
#define RAILMPI_FORTRAN_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

#define RM_FEXPORT __attribute__((visibility("default")))
/* Every spelling of a Fortran symbol MPICH exports is an alias of one body. */
#define RM_FALIAS(target, name) \
    extern __typeof__(target) name __attribute__((alias(#target), visibility("default")));

/* MPICH's mpif.h puts the sentinels in these common blocks; a program's
 * own copy (it defines them too) takes precedence over ours at load time,
 * so the addresses compared below are the program's. */
struct f_priv1 { MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE]; };
struct f_priv2 { MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE]; MPI_Fint errcodes_ignore[1]; };
struct f_privc { char argvs_null[1]; char argv_null[1]; };
extern struct f_priv1 mpipriv1_;
extern struct f_priv2 mpipriv2_;
extern struct f_privc mpiprivc_;
extern MPI_Fint mpifcmb5_;
extern MPI_Fint mpifcmb9_;

static inline void *F_BUF(void *p)
{
    if (p == (void *)&mpipriv1_.bottom) return MPI_BOTTOM;
    if (p == (void *)&mpipriv1_.in_place) return MPI_IN_PLACE;
    return p;
}
static inline MPI_Status *F_STATUS(MPI_Fint *p)
{
    return p == mpipriv1_.status_ignore ? MPI_STATUS_IGNORE : (MPI_Status *)p;
}
static inline MPI_Status *F_STATUSES(MPI_Fint *p)
{
    return p == mpipriv2_.statuses_ignore ? MPI_STATUSES_IGNORE : (MPI_Status *)p;
}
static inline int *F_ERRCODES(MPI_Fint *p)
{
    return p == mpipriv2_.errcodes_ignore ? MPI_ERRCODES_IGNORE : (int *)p;
}
static inline int *F_WEIGHTS(void *p)
{
    if (p == (void *)&mpifcmb5_) return MPI_UNWEIGHTED;
    if (p == (void *)&mpifcmb9_) return MPI_WEIGHTS_EMPTY;
    return p;
}

/* A Fortran string (blank padded, hidden length) as a C string: trailing
 * blanks dropped. NULL when out of memory. */
char *f_str_in(const char *s, size_t len);
/* A buffer for a C string the library writes, for a Fortran string of len. */
char *f_str_out_buf(size_t len);
/* Copy a C string into a Fortran one, blank padded. */
void f_str_out(const char *c, char *f, size_t len);
/* MPI_COMM_SPAWN's ARGV (CHARACTER*(*) ARGV(*), ended by a blank entry;
 * MPI_ARGV_NULL), MPI_COMM_SPAWN_MULTIPLE's ARRAY_OF_ARGV(COUNT, *)
 * (MPI_ARGVS_NULL) and ARRAY_OF_COMMANDS(COUNT) as C arrays (NULL-ended).
 * They return MPI_SUCCESS or MPI_ERR_NO_MEM. */
int f_argv_in(const char *f, size_t len, char ***out);
void f_argv_free(char **argv);
int f_argvs_in(const char *f, int count, size_t len, char ****out);
void f_argvs_free(char ***argvs, int count);
int f_str_arr_in(const char *f, int count, size_t len, char ***out);
/* MPI-1 INTEGER displacements widened to MPI_Aint (malloc'd). */
MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n);
/* A keyval from Fortran: MPICH's Fortran values of the predefined
 * attribute keys are the C values with the low bit set (MPI_TAG_UB is
 * 0x64400002 in mpif.h, 0x64400001 in mpi.h). */
static inline int f_keyval_c(MPI_Fint k)
{
    switch (k) {
    case MPI_TAG_UB + 1: case MPI_HOST + 1: case MPI_IO + 1: case MPI_WTIME_IS_GLOBAL + 1:
    case MPI_UNIVERSE_SIZE + 1: case MPI_LASTUSEDCODE + 1: case MPI_APPNUM + 1:
    case MPI_WIN_BASE + 1: case MPI_WIN_SIZE + 1: case MPI_WIN_DISP_UNIT + 1:
    case MPI_WIN_CREATE_FLAVOR + 1: case MPI_WIN_MODEL + 1:
        return k - 1;
    default:
        return k;
    }
}
/* An attribute value as Fortran sees it: predefined attributes hold a
 * pointer to the value in C and the value itself in Fortran. */
MPI_Aint f_attr_value(MPI_Fint keyval, void *v);

#endif
