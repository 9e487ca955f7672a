/* The predefined attribute procedures Open MPI's mpif.h names
 * (MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_NULL_COPY_FN, ...): Fortran
 * procedures, which Open MPI's libmpi.so.40 exports under its Fortran
 * manglings (mpi_comm_dup_fn_, ...). A program passes them to the keyval
 * creators of libmpi_mpifh.so.40 (src/abi/ompi_fcallbacks.c), which call
 * them as any Fortran procedure; they do what the standard says. Compiled
 * again with OMPI_F08 for libmpi_usempif08.so.40, under the names of Open
 * MPI's mpi_f08_callbacks module (the same arguments). */
#include <stdint.h>

/* Open MPI's Fortran types and MPI_SUCCESS (no engine header: its mpi.h
 * defines the same names as macros) */
typedef int MPI_Fint;
typedef intptr_t MPI_Aint;
#define MPI_SUCCESS 0

#define FEXPORT __attribute__((visibility("default")))
#ifdef OMPI_F08
/* libmpi_usempif08.so.40: the procedures of Open MPI's mpi_f08_callbacks module */
#define FNAME(sym) __mpi_f08_callbacks_MOD_##sym
#define FALIASES(sym, upper)
#else
#define FNAME(sym) sym##_
#define FALIASES(sym, upper) FALIASES_(sym, upper)
#endif
#define FALIASES_(sym, upper)                                                                 \
    extern __typeof__(sym##_) sym, sym##__;                                                  \
    extern __typeof__(sym##_) sym __attribute__((alias(#sym "_")));                          \
    extern __typeof__(sym##_) sym##__ __attribute__((alias(#sym "_")));                      \
    extern __typeof__(sym##_) sym##_upper __asm__(#upper) __attribute__((alias(#sym "_")));

/* copy: (OLDOBJ, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN, ATTRIBUTE_VAL_OUT, FLAG, IERROR),
 * the values INTEGER(KIND=MPI_ADDRESS_KIND), INTEGER for the MPI-1 ones */
#define COPY_FNS(pre, upre, T)                                                               \
    FEXPORT void FNAME(pre##null_copy_fn)(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out,           \
                                    MPI_Fint *flag, MPI_Fint *ierr);                         \
    void FNAME(pre##null_copy_fn)(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,   \
                            MPI_Fint *ierr)                                                  \
    {                                                                                        \
        (void)o, (void)k, (void)e, (void)in, (void)out;                                      \
        *flag = 0;                                                                           \
        *ierr = MPI_SUCCESS;                                                                 \
    }                                                                                        \
    FALIASES(pre##null_copy_fn, upre##NULL_COPY_FN)                                          \
    FEXPORT void FNAME(pre##dup_fn)(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag, \
                              MPI_Fint *ierr);                                               \
    void FNAME(pre##dup_fn)(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,         \
                      MPI_Fint *ierr)                                                        \
    {                                                                                        \
        (void)o, (void)k, (void)e;                                                           \
        *out = *in;                                                                          \
        *flag = 1;                                                                           \
        *ierr = MPI_SUCCESS;                                                                 \
    }                                                                                        \
    FALIASES(pre##dup_fn, upre##DUP_FN)                                                      \
    FEXPORT void FNAME(pre##null_delete_fn)(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr); \
    void FNAME(pre##null_delete_fn)(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr)          \
    {                                                                                        \
        (void)o, (void)k, (void)v, (void)e;                                                  \
        *ierr = MPI_SUCCESS;                                                                 \
    }                                                                                        \
    FALIASES(pre##null_delete_fn, upre##NULL_DELETE_FN)

COPY_FNS(mpi_comm_, MPI_COMM_, MPI_Aint)
COPY_FNS(mpi_type_, MPI_TYPE_, MPI_Aint)
COPY_FNS(mpi_win_, MPI_WIN_, MPI_Aint)
#ifndef OMPI_F08 /* MPI-1's, which mpi_f08 has not */
COPY_FNS(mpi_, MPI_, MPI_Fint)
#endif

/* MPI_CONVERSION_FN_NULL: never called; MPI_REGISTER_DATAREP
 * (src/abi/ompi_fcallbacks.c) passes C's NULL for it */
FEXPORT void FNAME(mpi_conversion_fn_null)(void *u, MPI_Fint *t, MPI_Fint *n, void *f, int64_t *pos,
                                           MPI_Aint *e, MPI_Fint *ierr);
void FNAME(mpi_conversion_fn_null)(void *u, MPI_Fint *t, MPI_Fint *n, void *f, int64_t *pos,
                                   MPI_Aint *e, MPI_Fint *ierr)
{
    (void)u, (void)t, (void)n, (void)f, (void)pos, (void)e;
    *ierr = MPI_SUCCESS;
}
FALIASES(mpi_conversion_fn_null, MPI_CONVERSION_FN_NULL)
