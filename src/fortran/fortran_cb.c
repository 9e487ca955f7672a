/* Fortran bindings the generator cannot write because the library calls the
 * user's procedure back: file error handlers (C passes an MPI_File *, a
 * pointer to a pointer; Fortran expects the INTEGER handle) and the
 * conversion functions of MPI_REGISTER_DATAREP (every argument by
 * reference, the error through a last IERROR). Also MPI_SIZEOF, whose
 * specific procedures are plain functions of the byte size. */
#include "fortran.h"

#include <pthread.h>

/* ------------------------------------------------------------------------
 * MPI_FILE_CREATE_ERRHANDLER. A file error handler gets no extra_state, so
 * the C layer is given one trampoline for every Fortran handler, and the
 * trampoline finds which Fortran procedure to call from the handler set on
 * the file it is called for (MPI_FILE_GET_ERRHANDLER). The records stay on
 * a list: a handler may be freed and still be set on a file. */
typedef void (*f_file_errh_t)(MPI_Fint *file, MPI_Fint *code);
struct f_file_errh {
    MPI_Errhandler handle;
    f_file_errh_t fn;
    struct f_file_errh *next;
};
static struct f_file_errh *f_file_errhs;
static pthread_mutex_t f_file_errh_lock = PTHREAD_MUTEX_INITIALIZER;

static f_file_errh_t f_file_errh_find(MPI_Errhandler h)
{
    f_file_errh_t fn = NULL;
    pthread_mutex_lock(&f_file_errh_lock);
    /* the newest record first: a freed handle may be given out again */
    for (struct f_file_errh *e = f_file_errhs; e && !fn; e = e->next)
        if (e->handle == h) fn = e->fn;
    pthread_mutex_unlock(&f_file_errh_lock);
    return fn;
}

static void f_file_errh_tramp(MPI_File *file, int *code, ...)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    if (PMPI_File_get_errhandler(*file, &h) != MPI_SUCCESS) return;
    f_file_errh_t fn = f_file_errh_find(h);
    PMPI_Errhandler_free(&h);
    if (!fn) return;
    MPI_Fint ff = *file == MPI_FILE_NULL ? 0 : PMPI_File_c2f(*file), fc = *code;
    fn(&ff, &fc);
}

RM_FEXPORT void pmpi_file_create_errhandler_(void (*fn)(void), MPI_Fint *errhandler, MPI_Fint *ierr)
{
    struct f_file_errh *e = malloc(sizeof *e);
    if (!e) { if (ierr) *ierr = MPI_ERR_NO_MEM; return; }
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    /* the record is on the list before the handler exists, so no error can
     * reach the trampoline before it can find its procedure */
    pthread_mutex_lock(&f_file_errh_lock);
    int rc = PMPI_File_create_errhandler(f_file_errh_tramp, &h);
    if (rc == MPI_SUCCESS) {
        e->handle = h;
        e->fn = (f_file_errh_t)fn;
        e->next = f_file_errhs;
        f_file_errhs = e;
        *errhandler = h;
    }
    pthread_mutex_unlock(&f_file_errh_lock);
    if (rc != MPI_SUCCESS) free(e);
    if (ierr) *ierr = rc;
}
RM_FALIAS(pmpi_file_create_errhandler_, mpi_file_create_errhandler_)
RM_FALIAS(pmpi_file_create_errhandler_, mpi_file_create_errhandler)
RM_FALIAS(pmpi_file_create_errhandler_, mpi_file_create_errhandler__)
RM_FALIAS(pmpi_file_create_errhandler_, MPI_FILE_CREATE_ERRHANDLER)
RM_FALIAS(pmpi_file_create_errhandler_, pmpi_file_create_errhandler)
RM_FALIAS(pmpi_file_create_errhandler_, pmpi_file_create_errhandler__)
RM_FALIAS(pmpi_file_create_errhandler_, PMPI_FILE_CREATE_ERRHANDLER)

/* ------------------------------------------------------------------------
 * MPI_REGISTER_DATAREP with Fortran conversion functions:
 *   READ/WRITE(USERBUF, DATATYPE, COUNT, FILEBUF, POSITION, EXTRA_STATE, IERROR)
 *   EXTENT(DATATYPE, EXTENT, EXTRA_STATE, IERROR)
 * The C layer gets trampolines and this record as extra_state; a
 * representation lives as long as the library, and so does the record. */
typedef void (*f_conv_t)(void *userbuf, MPI_Fint *dtype, MPI_Fint *count, void *filebuf,
                         MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef void (*f_extent_t)(MPI_Fint *dtype, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);
struct f_datarep {
    f_conv_t rd, wr;
    f_extent_t extent;
    MPI_Aint extra;
};

static int f_datarep_conv(f_conv_t fn, void *userbuf, MPI_Datatype dtype, int count, void *filebuf,
                          MPI_Offset position, struct f_datarep *d)
{
    MPI_Fint fd = (MPI_Fint)dtype, fc = count, ierr = MPI_SUCCESS;
    MPI_Offset pos = position;
    fn(userbuf, &fd, &fc, filebuf, &pos, &d->extra, &ierr);
    return ierr;
}

static int f_datarep_read(void *userbuf, MPI_Datatype dtype, int count, void *filebuf,
                          MPI_Offset position, void *extra)
{
    struct f_datarep *d = extra;
    return f_datarep_conv(d->rd, userbuf, dtype, count, filebuf, position, d);
}

static int f_datarep_write(void *userbuf, MPI_Datatype dtype, int count, void *filebuf,
                           MPI_Offset position, void *extra)
{
    struct f_datarep *d = extra;
    return f_datarep_conv(d->wr, userbuf, dtype, count, filebuf, position, d);
}

static int f_datarep_extent(MPI_Datatype dtype, MPI_Aint *extent, void *extra)
{
    struct f_datarep *d = extra;
    MPI_Fint fd = (MPI_Fint)dtype, ierr = MPI_SUCCESS;
    MPI_Aint e = 0;
    d->extent(&fd, &e, &d->extra, &ierr);
    *extent = e;
    return ierr;
}

/* MPI_CONVERSION_FN_NULL in Fortran: a procedure (mpif.h declares it
 * EXTERNAL, as MPICH's does), NULL once it reaches C. Its upper-case
 * spelling is a C macro in mpi.h; here it names a symbol. */
#undef MPI_CONVERSION_FN_NULL
RM_FEXPORT void mpi_conversion_fn_null_(void *userbuf, MPI_Fint *dtype, MPI_Fint *count,
                                        void *filebuf, MPI_Offset *position, MPI_Aint *extra,
                                        MPI_Fint *ierr)
{
    (void)userbuf; (void)dtype; (void)count; (void)filebuf; (void)position; (void)extra;
    *ierr = MPI_SUCCESS;
}
RM_FALIAS(mpi_conversion_fn_null_, mpi_conversion_fn_null)
RM_FALIAS(mpi_conversion_fn_null_, mpi_conversion_fn_null__)
RM_FALIAS(mpi_conversion_fn_null_, MPI_CONVERSION_FN_NULL)
RM_FALIAS(mpi_conversion_fn_null_, pmpi_conversion_fn_null_)
RM_FALIAS(mpi_conversion_fn_null_, PMPI_CONVERSION_FN_NULL)
RM_FALIAS(mpi_conversion_fn_null_, __mpi_f08_callbacks_MOD_mpi_conversion_fn_null)

static int f_conv_null(void (*fn)(void))
{
    return !fn || fn == (void (*)(void))mpi_conversion_fn_null_;
}

RM_FEXPORT void pmpi_register_datarep_(char *datarep, void (*rd)(void), void (*wr)(void),
                                       void (*extent)(void), void *extra, MPI_Fint *ierr,
                                       size_t datarep_len)
{
    char *name = f_str_in(datarep, datarep_len);
    struct f_datarep *d = malloc(sizeof *d);
    if (!name || !d) {
        free(name);
        free(d);
        if (ierr) *ierr = MPI_ERR_NO_MEM;
        return;
    }
    d->rd = (f_conv_t)rd;
    d->wr = (f_conv_t)wr;
    d->extent = (f_extent_t)extent;
    d->extra = *(MPI_Aint *)extra;
    int rc = PMPI_Register_datarep(name, f_conv_null(rd) ? NULL : f_datarep_read,
                                   f_conv_null(wr) ? NULL : f_datarep_write,
                                   extent ? f_datarep_extent : NULL, d);
    free(name);
    if (rc != MPI_SUCCESS) free(d);
    if (ierr) *ierr = rc;
}
RM_FALIAS(pmpi_register_datarep_, mpi_register_datarep_)
RM_FALIAS(pmpi_register_datarep_, mpi_register_datarep)
RM_FALIAS(pmpi_register_datarep_, mpi_register_datarep__)
RM_FALIAS(pmpi_register_datarep_, MPI_REGISTER_DATAREP)
RM_FALIAS(pmpi_register_datarep_, pmpi_register_datarep)
RM_FALIAS(pmpi_register_datarep_, pmpi_register_datarep__)
RM_FALIAS(pmpi_register_datarep_, PMPI_REGISTER_DATAREP)

/* MPI_Register_datarep_c (mpi_f08 only): the conversion functions take an
 * INTEGER(KIND=MPI_COUNT_KIND) count. */
typedef void (*f_conv_c_t)(void *userbuf, MPI_Fint *dtype, MPI_Count *count, void *filebuf,
                           MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
struct f_datarep_c {
    f_conv_c_t rd, wr;
    struct f_datarep ext; /* the extent function and extra state, as the int form's */
};

static int f_datarep_conv_c(f_conv_c_t fn, void *userbuf, MPI_Datatype dtype, MPI_Count count,
                            void *filebuf, MPI_Offset position, struct f_datarep_c *d)
{
    MPI_Fint fd = (MPI_Fint)dtype, ierr = MPI_SUCCESS;
    MPI_Count fc = count;
    MPI_Offset pos = position;
    fn(userbuf, &fd, &fc, filebuf, &pos, &d->ext.extra, &ierr);
    return ierr;
}

static int f_datarep_read_c(void *userbuf, MPI_Datatype dtype, MPI_Count count, void *filebuf,
                            MPI_Offset position, void *extra)
{
    struct f_datarep_c *d = extra;
    return f_datarep_conv_c(d->rd, userbuf, dtype, count, filebuf, position, d);
}

static int f_datarep_write_c(void *userbuf, MPI_Datatype dtype, MPI_Count count, void *filebuf,
                             MPI_Offset position, void *extra)
{
    struct f_datarep_c *d = extra;
    return f_datarep_conv_c(d->wr, userbuf, dtype, count, filebuf, position, d);
}

static int f_datarep_extent_c(MPI_Datatype dtype, MPI_Aint *extent, void *extra)
{
    struct f_datarep_c *d = extra;
    return f_datarep_extent(dtype, extent, &d->ext);
}

/* MPI_CONVERSION_FN_NULL_C in Fortran, as MPI_CONVERSION_FN_NULL */
#undef MPI_CONVERSION_FN_NULL_C
RM_FEXPORT void mpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *dtype, MPI_Count *count,
                                          void *filebuf, MPI_Offset *position, MPI_Aint *extra,
                                          MPI_Fint *ierr)
{
    (void)userbuf; (void)dtype; (void)count; (void)filebuf; (void)position; (void)extra;
    *ierr = MPI_SUCCESS;
}
RM_FALIAS(mpi_conversion_fn_null_c_, mpi_conversion_fn_null_c)
RM_FALIAS(mpi_conversion_fn_null_c_, mpi_conversion_fn_null_c__)
RM_FALIAS(mpi_conversion_fn_null_c_, MPI_CONVERSION_FN_NULL_C)
RM_FALIAS(mpi_conversion_fn_null_c_, pmpi_conversion_fn_null_c_)
RM_FALIAS(mpi_conversion_fn_null_c_, PMPI_CONVERSION_FN_NULL_C)

static int f_conv_null_c(void (*fn)(void))
{
    return !fn || fn == (void (*)(void))mpi_conversion_fn_null_c_;
}

/* the body of mpi_register_datarep_c_f08_ (the generated entry forwards here) */
void f08c_mpi_register_datarep_c(char *datarep, void (*rd)(void), void (*wr)(void), void (*extent)(void),
                                 void *extra, MPI_Fint *ierr, size_t datarep_len)
{
    char *name = f_str_in(datarep, datarep_len);
    struct f_datarep_c *d = malloc(sizeof *d);
    if (!name || !d) {
        free(name);
        free(d);
        if (ierr) *ierr = MPI_ERR_NO_MEM;
        return;
    }
    d->rd = (f_conv_c_t)rd;
    d->wr = (f_conv_c_t)wr;
    d->ext.extent = (f_extent_t)extent;
    d->ext.extra = *(MPI_Aint *)extra;
    int rc = PMPI_Register_datarep_c(name, f_conv_null_c(rd) ? NULL : f_datarep_read_c,
                                     f_conv_null_c(wr) ? NULL : f_datarep_write_c,
                                     extent ? f_datarep_extent_c : NULL, d);
    free(name);
    if (rc != MPI_SUCCESS) free(d);
    if (ierr) *ierr = rc;
}

/* ------------------------------------------------------------------------
 * MPI_SIZEOF(X, SIZE, IERROR): the mpi and mpi_f08 modules declare a generic
 * whose specific procedures, one per intrinsic type and kind with X of any
 * rank (tools/fortran/gen.py, SIZEOF_SPECIFICS), are these bodies, one per
 * byte size; X is never read. The __mpi_sizeofs_MOD_ names are the
 * specifics of MPICH's `mpi` module, so a program built with it finds them
 * here too (same sizes: a CHARACTER is 1, COMPLEX 8). */
#define F_SIZEOF(n)                                                                   \
    RM_FEXPORT void mpi_sizeof_##n##_(void *x, MPI_Fint *size, MPI_Fint *ierr)       \
    {                                                                                 \
        (void)x;                                                                      \
        *size = n;                                                                    \
        if (ierr) *ierr = MPI_SUCCESS; /* optional in mpi_f08 */                      \
    }
F_SIZEOF(1)
F_SIZEOF(2)
F_SIZEOF(4)
F_SIZEOF(8)
F_SIZEOF(16)
F_SIZEOF(32)
#define F_SIZEOF_AS(n, name) RM_FALIAS(mpi_sizeof_##n##_, name)
F_SIZEOF_AS(1, mpi_sizeof_i1_) F_SIZEOF_AS(2, mpi_sizeof_i2_) F_SIZEOF_AS(4, mpi_sizeof_i4_)
F_SIZEOF_AS(8, mpi_sizeof_i8_) F_SIZEOF_AS(16, mpi_sizeof_i16_)
F_SIZEOF_AS(4, mpi_sizeof_r4_) F_SIZEOF_AS(8, mpi_sizeof_r8_) F_SIZEOF_AS(16, mpi_sizeof_r10_)
F_SIZEOF_AS(16, mpi_sizeof_r16_)
F_SIZEOF_AS(8, mpi_sizeof_c4_) F_SIZEOF_AS(16, mpi_sizeof_c8_) F_SIZEOF_AS(32, mpi_sizeof_c10_)
F_SIZEOF_AS(32, mpi_sizeof_c16_)
F_SIZEOF_AS(1, mpi_sizeof_l1_) F_SIZEOF_AS(2, mpi_sizeof_l2_) F_SIZEOF_AS(4, mpi_sizeof_l4_)
F_SIZEOF_AS(8, mpi_sizeof_l8_)
F_SIZEOF_AS(1, mpi_sizeof_c1_)
F_SIZEOF_AS(1, __mpi_sizeofs_MOD_mpi_sizeof_ch) F_SIZEOF_AS(1, __mpi_sizeofs_MOD_mpi_sizeof_chv)
F_SIZEOF_AS(1, __mpi_sizeofs_MOD_mpi_sizeof_i1) F_SIZEOF_AS(1, __mpi_sizeofs_MOD_mpi_sizeof_i1v)
F_SIZEOF_AS(2, __mpi_sizeofs_MOD_mpi_sizeof_i2) F_SIZEOF_AS(2, __mpi_sizeofs_MOD_mpi_sizeof_i2v)
F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_i) F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_iv)
F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_r) F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_rv)
F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_l) F_SIZEOF_AS(4, __mpi_sizeofs_MOD_mpi_sizeof_lv)
F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_i8) F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_i8v)
F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_d) F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_dv)
F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_cx) F_SIZEOF_AS(8, __mpi_sizeofs_MOD_mpi_sizeof_cxv)
/* MPI_SIZEOF of MPICH's mpi_f08 (its module mpi_f08_types): one specific
 * per ISO_FORTRAN_ENV kind; xcomplex32 is COMPLEX(KIND=REAL32). */
F_SIZEOF_AS(1, __mpi_f08_types_MOD_mpi_sizeof_xint8) F_SIZEOF_AS(2, __mpi_f08_types_MOD_mpi_sizeof_xint16)
F_SIZEOF_AS(4, __mpi_f08_types_MOD_mpi_sizeof_xint32) F_SIZEOF_AS(8, __mpi_f08_types_MOD_mpi_sizeof_xint64)
F_SIZEOF_AS(4, __mpi_f08_types_MOD_mpi_sizeof_xreal32) F_SIZEOF_AS(8, __mpi_f08_types_MOD_mpi_sizeof_xreal64)
F_SIZEOF_AS(16, __mpi_f08_types_MOD_mpi_sizeof_xreal128)
F_SIZEOF_AS(8, __mpi_f08_types_MOD_mpi_sizeof_xcomplex32) F_SIZEOF_AS(16, __mpi_f08_types_MOD_mpi_sizeof_xcomplex64)
F_SIZEOF_AS(32, __mpi_f08_types_MOD_mpi_sizeof_xcomplex128)
F_SIZEOF_AS(4, __mpi_f08_types_MOD_mpi_sizeof_logical) F_SIZEOF_AS(1, __mpi_f08_types_MOD_mpi_sizeof_character)
