/* MPI-IO: split collective data access (MPI-3.1 13.4.5) and file pointer
 * positioning (seek, get_position, their shared forms). */
#include "mpi/fileimpl.h"

#include "coll/coll.h"
#include "coll/op.h"

#include <errno.h>
#include <string.h>

/* file_rw_api.c's data path, seen through the blocking bindings */
static int file_split_begin(const char *fn_name_, MPI_File fh, int kind, int rc_of_call,
                            MPI_Count bytes)
{
    io_file_t *f = io_file_get(fh);
    if (!f)
        return rc_of_call;
    f->split = kind;
    f->split_err = rc_of_call;
    f->split_bytes = bytes;
    (void)fn_name_;
    return MPI_SUCCESS;
}

static int file_split_check(const char *fn_name_, MPI_File fh)
{
    FILE_BEGIN_SHARED();
    CHECK_FILE(fh);
    if (f_->split)
        FILE_FAIL(MPI_ERR_OTHER, "a split collective operation is already in progress");
    FILE_END();
}

static int file_split_end(const char *fn_name_, MPI_File fh, int kind, MPI_Status *status)
{
    FILE_BEGIN_SHARED();
    CHECK_FILE(fh);
    if (f_->split != kind)
        FILE_FAIL(MPI_ERR_OTHER, "no matching %s_begin", fn_name_);
    f_->split = 0;
    err = f_->split_err;
    if (err == MPI_SUCCESS && status && status != MPI_STATUS_IGNORE) {
        mpi_status_empty(status);
        mpi_status_set_count(status, f_->split_bytes);
    }
    FILE_END();
}

/* begin: the whole transfer happens here, end hands back its status; the
 * large-count (_c) begins go through the _c blocking calls */
#define SPLIT_BEGIN(name, kind, call)                                                \
    static const char *const fn_name_ = "MPI_File_" #name;                           \
    int err = file_split_check(fn_name_, fh);                                        \
    if (err != MPI_SUCCESS)                                                          \
        return err;                                                                  \
    MPI_Status st_;                                                                  \
    mpi_status_empty(&st_);                                                          \
    err = (call);                                                                    \
    if (err != MPI_SUCCESS)                                                          \
        return err;                                                                  \
    return file_split_begin(fn_name_, fh, (kind), err, mpi_status_get_count(&st_))

enum { SPLIT_READ_AT = 1, SPLIT_WRITE_AT, SPLIT_READ_ALL, SPLIT_WRITE_ALL, SPLIT_READ_ORD,
       SPLIT_WRITE_ORD };

RM_ALIAS(File_read_at_all_begin)
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_at_all_begin, SPLIT_READ_AT,
                PMPI_File_read_at_all(fh, offset, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_at_all_begin_c)
int PMPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count,
                                  MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_at_all_begin_c, SPLIT_READ_AT,
                PMPI_File_read_at_all_c(fh, offset, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_at_all_end)
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_read_at_all_end", fh, SPLIT_READ_AT, status);
}

RM_ALIAS(File_write_at_all_begin)
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_at_all_begin, SPLIT_WRITE_AT,
                PMPI_File_write_at_all(fh, offset, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_at_all_begin_c)
int PMPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_at_all_begin_c, SPLIT_WRITE_AT,
                PMPI_File_write_at_all_c(fh, offset, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_at_all_end)
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_write_at_all_end", fh, SPLIT_WRITE_AT, status);
}

RM_ALIAS(File_read_all_begin)
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_all_begin, SPLIT_READ_ALL, PMPI_File_read_all(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_all_begin_c)
int PMPI_File_read_all_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_all_begin_c, SPLIT_READ_ALL,
                PMPI_File_read_all_c(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_all_end)
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_read_all_end", fh, SPLIT_READ_ALL, status);
}

RM_ALIAS(File_write_all_begin)
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_all_begin, SPLIT_WRITE_ALL,
                PMPI_File_write_all(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_all_begin_c)
int PMPI_File_write_all_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_all_begin_c, SPLIT_WRITE_ALL,
                PMPI_File_write_all_c(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_all_end)
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_write_all_end", fh, SPLIT_WRITE_ALL, status);
}

RM_ALIAS(File_read_ordered_begin)
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_ordered_begin, SPLIT_READ_ORD,
                PMPI_File_read_ordered(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_ordered_begin_c)
int PMPI_File_read_ordered_begin_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(read_ordered_begin_c, SPLIT_READ_ORD,
                PMPI_File_read_ordered_c(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_read_ordered_end)
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_read_ordered_end", fh, SPLIT_READ_ORD, status);
}

RM_ALIAS(File_write_ordered_begin)
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_ordered_begin, SPLIT_WRITE_ORD,
                PMPI_File_write_ordered(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_ordered_begin_c)
int PMPI_File_write_ordered_begin_c(MPI_File fh, const void *buf, MPI_Count count,
                                    MPI_Datatype datatype)
{
    SPLIT_BEGIN(write_ordered_begin_c, SPLIT_WRITE_ORD,
                PMPI_File_write_ordered_c(fh, buf, count, datatype, &st_));
}

RM_ALIAS(File_write_ordered_end)
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return file_split_end("MPI_File_write_ordered_end", fh, SPLIT_WRITE_ORD, status);
}

/* ---- positioning ---- */

static int file_eof_offset(io_file_t *f, MPI_Offset *off)
{
    MPI_Offset size;
    int rc = io_file_get_size(f, &size);
    if (rc == 0)
        *off = io_view_offset(f, size);
    return rc;
}

RM_ALIAS(File_seek)
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    FILE_BEGIN("MPI_File_seek");
    CHECK_FILE(fh);
    if (f_->amode & MPI_MODE_SEQUENTIAL)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_OPERATION, "file opened with MPI_MODE_SEQUENTIAL");
    MPI_Offset base = 0;
    if (whence == MPI_SEEK_CUR)
        base = f_->fp;
    else if (whence == MPI_SEEK_END)
        FILE_CHECK_RC(file_eof_offset(f_, &base), "get_size");
    else if (whence != MPI_SEEK_SET)
        FILE_FAIL(MPI_ERR_ARG, "invalid whence %d", whence);
    if (base + offset < 0)
        FILE_FAIL(MPI_ERR_ARG, "seek to a negative position %lld", (long long)(base + offset));
    f_->fp = base + offset;
    FILE_END();
}

RM_ALIAS(File_get_position)
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    FILE_BEGIN("MPI_File_get_position");
    CHECK_FILE(fh);
    if (f_->amode & MPI_MODE_SEQUENTIAL)
        FILE_FAIL(MPI_ERR_UNSUPPORTED_OPERATION, "file opened with MPI_MODE_SEQUENTIAL");
    if (!offset)
        FILE_FAIL(MPI_ERR_ARG, "offset is NULL");
    *offset = f_->fp;
    FILE_END();
}

RM_ALIAS(File_seek_shared)
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    FILE_BEGIN("MPI_File_seek_shared");
    CHECK_FILE(fh);
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        FILE_FAIL(MPI_ERR_ARG, "invalid whence %d", whence);
    /* collective, with the same arguments everywhere */
    long long mine[4] = {offset, -offset, whence, -whence}, all[4];
    if (coll_allreduce(mine, all, 4, dtype_get(MPI_LONG_LONG), op_get(MPI_MAX), f_->comm) < 0)
        FILE_FAIL(MPI_ERR_OTHER, "agreeing on the arguments failed");
    if (all[0] != -all[1] || all[2] != -all[3])
        FILE_FAIL(MPI_ERR_NOT_SAME, "processes passed different offsets or whence");
    int rc = 0;
    MPI_Offset pos = 0;
    if (f_->comm->rank == 0) {
        if (whence == MPI_SEEK_CUR)
            rc = io_shfp_fetch_add(f_, 0, &pos);
        else if (whence == MPI_SEEK_END)
            rc = file_eof_offset(f_, &pos);
        if (rc == 0 && pos + offset < 0)
            rc = -EINVAL;
        if (rc == 0)
            rc = io_shfp_set(f_, pos + offset);
    }
    rc = io_agree(f_, rc);
    if (rc == -EINVAL)
        FILE_FAIL(MPI_ERR_ARG, "seek to a negative position");
    FILE_CHECK_RC(rc, "shared file pointer");
    FILE_END();
}

RM_ALIAS(File_get_position_shared)
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    FILE_BEGIN("MPI_File_get_position_shared");
    CHECK_FILE(fh);
    if (!offset)
        FILE_FAIL(MPI_ERR_ARG, "offset is NULL");
    FILE_CHECK_RC(io_shfp_fetch_add(f_, 0, offset), "shared file pointer");
    FILE_END();
}
