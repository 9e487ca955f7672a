/* MPI-IO bindings: opening, closing and deleting files, sizes, info hints,
 * views, error handlers, handle conversion, Register_datarep. Data access is
 * in file_rw_api.c. */
#include "mpi/fileimpl.h"

#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/op.h"
#include "util/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* MPI_FILE_NULL's handler, which files take when they open. */
static errhandler_t *file_null_errh;

static errhandler_t *file_default_errh(void)
{
    if (!file_null_errh)
        file_null_errh = errhandler_get(MPI_ERRORS_RETURN);
    return file_null_errh;
}

int mpi_file_errclass(int rc)
{
    switch (-rc) {
    case ENOENT: return MPI_ERR_NO_SUCH_FILE;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EACCES: case EPERM: return MPI_ERR_ACCESS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC: case EFBIG: return MPI_ERR_NO_SPACE;
    case EDQUOT: return MPI_ERR_QUOTA;
    case ENAMETOOLONG: case EISDIR: case ENOTDIR: case ELOOP: return MPI_ERR_BAD_FILE;
    case ENOMEM: return MPI_ERR_NO_MEM;
    case EILSEQ: return MPI_ERR_CONVERSION;
    case ENOTSUP: return MPI_ERR_UNSUPPORTED_OPERATION;
    case EBUSY: case ETXTBSY: return MPI_ERR_FILE_IN_USE;
    case EINVAL: return MPI_ERR_ARG;
    default: return MPI_ERR_IO;
    }
}

int mpi_file_err(io_file_t *f, int errclass, const char *fn, const char *fmt, ...)
{
    /* src/io reports a collective that failed as an I/O error; when a member
     * of the file's communicator has died, or the communicator the file was
     * opened on was revoked, that is the cause (ULFM) */
    if (errclass == MPI_ERR_IO && f && (proto_ft_nfailed || f->comm->revoked)) {
        rm_status_t ft = proto_ft_comm_check(f->comm);
        if (ft < 0)
            errclass = mpi_err_from_status(ft);
    }
    char detail[512], line[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const char *cname = mpi_err_class_name(errclass);
    int clen = cname ? (int)strcspn(cname, ":") : 0;
    snprintf(line, sizeof line, "railmpi: rank %d: %s: %.*s: %s", mpi_state.world_rank, fn, clen,
             cname ? cname : "", detail);
    errhandler_t *eh = f ? f->errh : file_default_errh();
    if (eh->kind == 0) {
        fprintf(stderr, "%s\n", line);
        fflush(stderr);
        boot_abort(1, line);
    }
    rm_log_debug("%s", line);
    if (eh->kind == 2 && eh->fn) {
        MPI_File h = f ? (MPI_File)(void *)f : MPI_FILE_NULL;
        int code = errclass;
        if (eh->call)
            eh->call(eh->abi_fn, &h, &code);
        else
            ((MPI_File_errhandler_function *)(void (*)(void))eh->fn)(&h, &code);
    }
    return errclass;
}

/* Hints from an info object; unknown keys are ignored (MPI-3.1 13.2.8). */
static int file_apply_info(io_file_t *f, MPI_Info info)
{
    int n = 0;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    int rc = PMPI_Info_get_nkeys(info, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if ((rc = PMPI_Info_get_nthkey(info, i, key)) != MPI_SUCCESS ||
            (rc = PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag)) != MPI_SUCCESS)
            return rc;
        if (flag && f)
            io_file_hint_set(f, key, val);
    }
    return MPI_SUCCESS;
}

RM_ALIAS(File_open)
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    FILE_BEGIN("MPI_File_open");
    comm_t *c = comm_get(comm);
    if (!c)
        FILE_FAIL(MPI_ERR_COMM, "invalid communicator 0x%x", (unsigned)comm);
    if (comm_is_inter(c))
        FILE_FAIL(MPI_ERR_COMM, "an intercommunicator is not valid here");
    if (!fh)
        FILE_FAIL(MPI_ERR_ARG, "fh is NULL");
    *fh = MPI_FILE_NULL;
    if (!filename || !*filename)
        FILE_FAIL(MPI_ERR_BAD_FILE, "no file name");
    const int all = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                    MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                    MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (amode & ~all)
        FILE_FAIL(MPI_ERR_AMODE, "unknown bits 0x%x in amode", (unsigned)(amode & ~all));
    if (rw != 1)
        FILE_FAIL(MPI_ERR_AMODE, "exactly one of MPI_MODE_RDONLY, RDWR, WRONLY is required");
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        FILE_FAIL(MPI_ERR_AMODE, "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL");
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        FILE_FAIL(MPI_ERR_AMODE, "MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL");
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    group_t *g = comm_group_copy(c->group);
    if (!g)
        FILE_FAIL(MPI_ERR_NO_MEM, "out of memory");
    comm_t *fc = NULL;
    rm_status_t st = comm_create_internal(c, g, 0, &fc);
    if (st < 0) {
        group_release(g);
        FILE_FAIL(mpi_err_from_status(st), "duplicating the communicator: %s", rm_status_str(st));
    }
    io_file_t *f = NULL;
    int rc = io_file_open(fc, filename, amode, &f);
    FILE_CHECK_RC(rc, filename);
    f_ = f;
    f->parent_ctx = c->ctx;
    f->errh = file_default_errh();
    if (!f->errh->builtin)
        f->errh->refcount++;
    file_apply_info(f, info);
    *fh = (MPI_File)(void *)f;
    FILE_END();
}

RM_ALIAS(File_close)
int PMPI_File_close(MPI_File *fh)
{
    FILE_BEGIN("MPI_File_close");
    if (!fh)
        FILE_FAIL(MPI_ERR_ARG, "fh is NULL");
    CHECK_FILE(*fh);
    if (f_->split)
        FILE_FAIL(MPI_ERR_OTHER, "a split collective operation is in progress");
    io_file_t *f = f_;
    f_ = NULL; /* gone whatever happens: errors go to MPI_FILE_NULL's handler */
    *fh = MPI_FILE_NULL;
    FILE_CHECK_RC(io_file_close(f), "close");
    FILE_END();
}

RM_ALIAS(File_delete)
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    FILE_BEGIN("MPI_File_delete");
    if (!filename || !*filename)
        FILE_FAIL(MPI_ERR_BAD_FILE, "no file name");
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    FILE_CHECK_RC(io_file_delete(filename), filename);
    FILE_END();
}

RM_ALIAS(File_set_size)
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    FILE_BEGIN("MPI_File_set_size");
    CHECK_FILE(fh);
    if (size < 0)
        FILE_FAIL(MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (f_->amode & MPI_MODE_SEQUENTIAL)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_OPERATION, "file opened with MPI_MODE_SEQUENTIAL");
    if (f_->amode & MPI_MODE_RDONLY)
        FILE_FAIL(MPI_ERR_READ_ONLY, "file opened read-only");
    FILE_CHECK_RC(io_file_set_size(f_, size), "set_size");
    FILE_END();
}

RM_ALIAS(File_preallocate)
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    FILE_BEGIN("MPI_File_preallocate");
    CHECK_FILE(fh);
    if (size < 0)
        FILE_FAIL(MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (f_->amode & MPI_MODE_SEQUENTIAL)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_OPERATION, "file opened with MPI_MODE_SEQUENTIAL");
    if (f_->amode & MPI_MODE_RDONLY)
        FILE_FAIL(MPI_ERR_READ_ONLY, "file opened read-only");
    FILE_CHECK_RC(io_file_preallocate(f_, size), "preallocate");
    FILE_END();
}

RM_ALIAS(File_get_size)
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    FILE_BEGIN("MPI_File_get_size");
    CHECK_FILE(fh);
    if (!size)
        FILE_FAIL(MPI_ERR_ARG, "size is NULL");
    FILE_CHECK_RC(io_file_get_size(f_, size), "get_size");
    FILE_END();
}

RM_ALIAS(File_get_group)
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    FILE_BEGIN("MPI_File_get_group");
    CHECK_FILE(fh);
    if (!group)
        FILE_FAIL(MPI_ERR_ARG, "group is NULL");
    group_t *g = comm_group_copy(f_->comm->group);
    if (!g || !group_register(g)) {
        if (g)
            group_release(g);
        FILE_FAIL(MPI_ERR_NO_MEM, "out of memory");
    }
    *group = g->handle;
    FILE_END();
}

RM_ALIAS(File_get_amode)
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    FILE_BEGIN("MPI_File_get_amode");
    CHECK_FILE(fh);
    if (!amode)
        FILE_FAIL(MPI_ERR_ARG, "amode is NULL");
    *amode = f_->amode;
    FILE_END();
}

RM_ALIAS(File_set_info)
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    FILE_BEGIN("MPI_File_set_info");
    CHECK_FILE(fh);
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    if (file_apply_info(f_, info) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_INFO, "cannot read info object 0x%x", (unsigned)info);
    FILE_END();
}

RM_ALIAS(File_get_info)
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    FILE_BEGIN("MPI_File_get_info");
    CHECK_FILE(fh);
    if (!info_used)
        FILE_FAIL(MPI_ERR_ARG, "info_used is NULL");
    MPI_Info in;
    if (PMPI_Info_create(&in) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_NO_MEM, "out of info objects");
    for (int i = 0; i < IO_NHINTS; i++)
        if (f_->hints[i] && PMPI_Info_set(in, io_hint_names[i], f_->hints[i]) != MPI_SUCCESS) {
            PMPI_Info_free(&in);
            FILE_FAIL(MPI_ERR_NO_MEM, "out of memory");
        }
    *info_used = in;
    FILE_END();
}

RM_ALIAS(File_set_atomicity)
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    FILE_BEGIN("MPI_File_set_atomicity");
    CHECK_FILE(fh);
    flag = !!flag;
    int mine[2] = {flag, -flag}, all[2];
    rm_status_t st = coll_allreduce(mine, all, 2, dtype_get(MPI_INT), op_get(MPI_MAX), f_->comm);
    if (st < 0)
        FILE_FAIL(mpi_err_from_status(st), "%s", rm_status_str(st));
    if (all[0] != -all[1])
        FILE_FAIL(MPI_ERR_NOT_SAME, "processes passed different flags");
    io_file_quiesce(f_);
    f_->atomic = flag;
    FILE_END();
}

RM_ALIAS(File_get_atomicity)
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    FILE_BEGIN("MPI_File_get_atomicity");
    CHECK_FILE(fh);
    if (!flag)
        FILE_FAIL(MPI_ERR_ARG, "flag is NULL");
    *flag = f_->atomic;
    FILE_END();
}

RM_ALIAS(File_sync)
int PMPI_File_sync(MPI_File fh)
{
    FILE_BEGIN("MPI_File_sync");
    CHECK_FILE(fh);
    FILE_CHECK_RC(io_file_sync(f_), "sync");
    FILE_END();
}

RM_ALIAS(File_set_view)
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    FILE_BEGIN("MPI_File_set_view");
    CHECK_FILE(fh);
    dtype_t *et = dtype_get(etype), *ft = dtype_get(filetype);
    if (!et || !et->committed)
        FILE_FAIL(MPI_ERR_TYPE, "etype 0x%x is not a committed datatype", (unsigned)etype);
    if (!ft || !ft->committed)
        FILE_FAIL(MPI_ERR_TYPE, "filetype 0x%x is not a committed datatype", (unsigned)filetype);
    if (!datarep)
        FILE_FAIL(MPI_ERR_ARG, "datarep is NULL");
    if (f_->split)
        FILE_FAIL(MPI_ERR_OTHER, "a split collective operation is in progress");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f_->amode & MPI_MODE_SEQUENTIAL))
            FILE_FAIL(MPI_ERR_ARG, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
        MPI_Offset sh = 0;
        FILE_CHECK_RC(io_shfp_fetch_add(f_, 0, &sh), "shared file pointer");
        disp = io_view_byte(f_, sh);
    } else if (disp < 0)
        FILE_FAIL(MPI_ERR_ARG, "negative displacement %lld", (long long)disp);
    enum io_rep rep;
    io_datarep_t *u;
    if (io_datarep_find(datarep, &rep, &u) < 0)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_DATAREP, "unknown data representation \"%.64s\"", datarep);
    int nkeys;
    if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    io_file_quiesce(f_);
    int rc = io_view_set(f_, disp, et, ft, datarep, u, rep);
    int arc = io_agree(f_, rc); /* nobody goes on alone */
    if (rc == -EINVAL) /* MPI_ERR_ARG as MPICH gives */
        FILE_FAIL(MPI_ERR_ARG, "the filetype is not made of etypes, or its displacements are "
                               "negative or decreasing");
    if (rc == -ENOTSUP)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_DATAREP, "\"%.64s\" changes the size of these types", datarep);
    FILE_CHECK_RC(rc, "set_view");
    FILE_CHECK_RC(arc, "set_view on another process");
    file_apply_info(f_, info);
    /* collective: the shared file pointer starts again at 0 */
    rc = io_shfp_reset(f_);
    FILE_CHECK_RC(io_agree(f_, rc), "set_view");
    FILE_END();
}

static int file_type_out(dtype_t *t, MPI_Datatype *out)
{
    if (t->builtin) {
        *out = t->handle;
        return MPI_SUCCESS;
    }
    /* a derived type comes back as a new handle the caller frees */
    dtype_t *d = dtype_dup(t);
    if (!d || dtype_register(d) < 0) {
        if (d)
            dtype_release(d);
        return MPI_ERR_NO_MEM;
    }
    d->committed = 1;
    *out = d->handle;
    return MPI_SUCCESS;
}

RM_ALIAS(File_get_view)
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    FILE_BEGIN("MPI_File_get_view");
    CHECK_FILE(fh);
    if (!disp || !etype || !filetype || !datarep)
        FILE_FAIL(MPI_ERR_ARG, "an output argument is NULL");
    *disp = f_->disp;
    if (file_type_out(f_->etype, etype) != MPI_SUCCESS ||
        file_type_out(f_->ftype, filetype) != MPI_SUCCESS)
        FILE_FAIL(MPI_ERR_NO_MEM, "out of memory");
    strcpy(datarep, f_->datarep);
    FILE_END();
}

static int file_type_extent(const char *fn_name_, MPI_File fh, MPI_Datatype datatype,
                            MPI_Aint *extent)
{
    FILE_BEGIN_SHARED();
    CHECK_FILE(fh);
    dtype_t *dt = dtype_get(datatype);
    if (!dt)
        FILE_FAIL(MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)datatype);
    if (!extent)
        FILE_FAIL(MPI_ERR_ARG, "extent is NULL");
    FILE_CHECK_RC(io_file_extent(f_, dt, extent), "the representation's extent function");
    FILE_END();
}

RM_ALIAS(File_get_type_extent)
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return file_type_extent("MPI_File_get_type_extent", fh, datatype, extent);
}

RM_ALIAS(File_get_type_extent_c)
int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_Aint e = 0; /* MPI_Aint and MPI_Count are both 64 bits */
    int rc = file_type_extent("MPI_File_get_type_extent_c", fh, datatype, extent ? &e : NULL);
    if (rc == MPI_SUCCESS)
        *extent = e;
    return rc;
}

RM_ALIAS(File_get_byte_offset)
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    FILE_BEGIN("MPI_File_get_byte_offset");
    CHECK_FILE(fh);
    if (offset < 0)
        FILE_FAIL(MPI_ERR_ARG, "negative offset %lld", (long long)offset);
    if (!disp)
        FILE_FAIL(MPI_ERR_ARG, "disp is NULL");
    *disp = io_view_byte(f_, offset);
    FILE_END();
}

RM_ALIAS(File_create_errhandler)
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    FILE_BEGIN("MPI_File_create_errhandler");
    if (!fn || !errhandler)
        FILE_FAIL(MPI_ERR_ARG, "function or errhandler is NULL");
    errhandler_t *e = errhandler_create((MPI_Comm_errhandler_function *)(void (*)(void))fn);
    if (!e)
        FILE_FAIL(MPI_ERR_NO_MEM, "out of memory");
    *errhandler = e->handle;
    FILE_END();
}

RM_ALIAS(File_set_errhandler)
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    FILE_BEGIN("MPI_File_set_errhandler");
    if (file != MPI_FILE_NULL)
        CHECK_FILE(file);
    errhandler_t *e = errhandler_get(errhandler);
    if (!e)
        FILE_FAIL(MPI_ERR_ERRHANDLER, "invalid error handler 0x%x", (unsigned)errhandler);
    if (!e->builtin)
        e->refcount++;
    if (f_) {
        errhandler_release(f_->errh);
        f_->errh = e;
    } else {
        errhandler_release(file_default_errh());
        file_null_errh = e;
    }
    FILE_END();
}

RM_ALIAS(File_get_errhandler)
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    FILE_BEGIN("MPI_File_get_errhandler");
    if (file != MPI_FILE_NULL)
        CHECK_FILE(file);
    if (!errhandler)
        FILE_FAIL(MPI_ERR_ARG, "errhandler is NULL");
    errhandler_t *e = f_ ? f_->errh : file_default_errh();
    if (!e->builtin)
        e->refcount++; /* the caller frees its reference */
    *errhandler = e->handle;
    FILE_END();
}

RM_ALIAS(File_call_errhandler)
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    FILE_BEGIN("MPI_File_call_errhandler");
    if (fh != MPI_FILE_NULL)
        CHECK_FILE(fh);
    mpi_file_err(f_, errorcode, fn_name_, "invoked by the application");
    FILE_END();
}

RM_ALIAS(File_c2f)
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    rm_lock();
    io_file_t *f = io_file_get(file);
    MPI_Fint r = f ? f->index : 0;
    rm_unlock();
    return r;
}

RM_ALIAS(File_f2c)
MPI_File PMPI_File_f2c(MPI_Fint file)
{
    rm_lock();
    io_file_t *f = io_file_from_index(file);
    rm_unlock();
    return f ? (MPI_File)(void *)f : MPI_FILE_NULL;
}

/* One registration for both flavours of conversion functions: the int
 * ones (rd, wr) or the large-count ones (rd_c, wr_c), the other pair NULL. */
static int file_register_datarep(const char *fn_name_, const char *datarep,
                                 MPI_Datarep_conversion_function *rd,
                                 MPI_Datarep_conversion_function *wr,
                                 MPI_Datarep_conversion_function_c *rd_c,
                                 MPI_Datarep_conversion_function_c *wr_c,
                                 MPI_Datarep_extent_function *dtype_file_extent_fn,
                                 void *extra_state)
{
    FILE_BEGIN_SHARED();
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        FILE_FAIL(MPI_ERR_ARG, "datarep must be 1 to %d characters", MPI_MAX_DATAREP_STRING - 1);
    if (!dtype_file_extent_fn)
        FILE_FAIL(MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
    int rc = io_datarep_register(datarep, rd, wr, rd_c, wr_c, dtype_file_extent_fn, extra_state);
    if (rc == -EEXIST)
        FILE_FAIL(MPI_ERR_DUP_DATAREP, "\"%.64s\" is already defined", datarep);
    FILE_CHECK_RC(rc, "Register_datarep");
    FILE_END();
}

RM_ALIAS(Register_datarep)
int PMPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return file_register_datarep("MPI_Register_datarep", datarep, read_conversion_fn,
                                 write_conversion_fn, NULL, NULL, dtype_file_extent_fn,
                                 extra_state);
}

RM_ALIAS(Register_datarep_c)
int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return file_register_datarep("MPI_Register_datarep_c", datarep, NULL, NULL,
                                 read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
                                 extra_state);
}
