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
extern MPI_Fint mpifcmba_; /* MPI_BUFFER_AUTOMATIC (MPI-4.1), railmpi's own block */

/* MPICH's mpi_f08 module has its own sentinels: objects of libmpichfort
 * (MPIR_F08_*) and variables of its module mpi_f08_link_constants, which a
 * program built with it copies into itself as it does the common blocks.
 * Sizes as MPICH's, so the copy relocations agree (src/fortran/fortran_f08.c). */
extern MPI_Fint f08_bottom __asm__("MPIR_F08_MPI_BOTTOM");
extern MPI_Fint f08_in_place __asm__("MPIR_F08_MPI_IN_PLACE");
extern MPI_Fint f08_status_ignore[MPI_F_STATUS_SIZE] __asm__("MPIR_F08_MPI_STATUS_IGNORE_OBJ");
extern MPI_Fint f08_statuses_ignore[MPI_F_STATUS_SIZE] __asm__("MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
extern MPI_Fint f08_errcodes_ignore __asm__("__mpi_f08_link_constants_MOD_mpi_errcodes_ignore");
extern MPI_Fint f08_unweighted __asm__("__mpi_f08_link_constants_MOD_mpi_unweighted");
extern MPI_Fint f08_weights_empty __asm__("__mpi_f08_link_constants_MOD_mpi_weights_empty");
extern char f08_argv_null __asm__("__mpi_f08_link_constants_MOD_mpi_argv_null");
extern char f08_argvs_null __asm__("__mpi_f08_link_constants_MOD_mpi_argvs_null");

/* MPI_ARGV_NULL and MPI_ARGVS_NULL of mpif.h and both modules (f_strings.c) */
#define F_IS_ARGV_NULL(f) ((f) == mpiprivc_.argv_null || (f) == &f08_argv_null)
#define F_IS_ARGVS_NULL(f) ((f) == mpiprivc_.argvs_null || (f) == &f08_argvs_null)

static inline void *F_BUF(void *p)
{
    if (p == (void *)&mpipriv1_.bottom || p == (void *)&f08_bottom) return MPI_BOTTOM;
    if (p == (void *)&mpipriv1_.in_place || p == (void *)&f08_in_place) return MPI_IN_PLACE;
    if (p == (void *)&mpifcmba_) return MPI_BUFFER_AUTOMATIC;
    return p;
}
static inline MPI_Status *F_STATUS(MPI_Fint *p)
{
    return p == mpipriv1_.status_ignore || p == f08_status_ignore ? MPI_STATUS_IGNORE
                                                                   : (MPI_Status *)p;
}
/* TYPE(MPI_Status) of either mpi_f08 as C's MPI_F08_status: MPICH's module's
 * MPI_STATUS_IGNORE is C's MPI_F08_STATUS_IGNORE too */
static inline MPI_F08_status *F_F08STATUS(MPI_Fint *p)
{
    return p == f08_status_ignore ? MPI_F08_STATUS_IGNORE : (MPI_F08_status *)p;
}
static inline MPI_Status *F_STATUSES(MPI_Fint *p)
{
    return p == mpipriv2_.statuses_ignore || p == f08_statuses_ignore ? MPI_STATUSES_IGNORE
                                                                       : (MPI_Status *)p;
}
static inline int *F_ERRCODES(MPI_Fint *p)
{
    return p == mpipriv2_.errcodes_ignore || p == &f08_errcodes_ignore ? MPI_ERRCODES_IGNORE
                                                                        : (int *)p;
}
static inline int *F_WEIGHTS(void *p)
{
    if (p == (void *)&mpifcmb5_ || p == (void *)&f08_unweighted) return MPI_UNWEIGHTED;
    if (p == (void *)&mpifcmb9_ || p == (void *)&f08_weights_empty) return MPI_WEIGHTS_EMPTY;
    return p;
}

/* gfortran's array descriptor (libgfortran.h, GCC 8 and later): what MPICH's
 * mpi_f08 passes for a TYPE(*), DIMENSION(..) buffer to its *_f08ts_
 * procedures, which are not BIND(C). base_addr is the first element of the
 * section; strides count span bytes. */
struct f_gfc_dim { ptrdiff_t stride, lbound, ubound; };
struct f_gfc_desc {
    void *base_addr;
    size_t offset;
    size_t elem_len;
    int version;
    signed char rank, type;
    short attribute;
    ptrdiff_t span;
    struct f_gfc_dim dim[];
};
/* A buffer argument of an *_f08ts_ procedure on its way to the C call. */
struct f_sect {
    const struct f_gfc_desc *d;
    void *tmp;    /* a packed copy of a non-contiguous section, or NULL */
    int copy_out; /* unpack tmp into the section after the call */
    int has_type; /* type describes the section (f_sect_typed) */
    MPI_Datatype type;
};
enum { F_SECT_ADDR, F_SECT_IN, F_SECT_OUT };
/* The address to pass for buffer d: its own when contiguous (or mode is
 * F_SECT_ADDR: a location), else a packed copy if pack is set (a blocking
 * call), else MPI_ERR_BUFFER with a message naming fn. */
int f_sect_begin(const char *fn, const struct f_gfc_desc *d, int mode, int pack,
                 struct f_sect *s, void **addr);
/* For calls that use the buffer after they return (MPI_ISEND, MPI_PUT, ...):
 * a non-contiguous section of elements that are one element of *dtype each
 * gets a datatype laid over it, which replaces *dtype: *dtype resized to the
 * stride when the section runs along one dimension, or (count not NULL and
 * *count the number of elements) nested hvectors and *count 1. Other
 * sections are refused as f_sect_begin without pack does. */
int f_sect_typed(const char *fn, const struct f_gfc_desc *d, MPI_Fint *count, MPI_Fint *dtype,
                 struct f_sect *s, void **addr);
/* The same for nb buffers that share one *dtype (MPI_IALLREDUCE's sendbuf
 * and recvbuf, ...): sections along one dimension with one positive stride
 * get *dtype resized to it; s and addr are arrays of nb. */
int f_sect_shared(const char *fn, int nb, const struct f_gfc_desc *const *d, MPI_Fint *dtype,
                  struct f_sect *s, void **addr);
void f_sect_end(struct f_sect *s);

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
