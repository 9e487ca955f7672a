/* The shared file pointer: eight bytes (the offset in etypes, native order)
 * in a small file next to the data file, read-modified-written under an
 * fcntl write lock. A file and not a process serving it: the processes of a
 * file may sit on hosts that share nothing but the file system, and a
 * pointer kept by rank 0 would only move while rank 0 makes progress in MPI;
 * the lock works on a local file system and on NFS (lockd) alike. */
#include "io/io.h"

#include "coll/coll.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IO_SHFP_NAME 4096

int io_shfp_create(io_file_t *f, MPI_Offset initial)
{
    char name[IO_SHFP_NAME] = {0};
    int rc = 0;
    if (f->comm->rank == 0) {
        const char *slash = strrchr(f->path, '/');
        int dirlen = slash ? (int)(slash - f->path + 1) : 0;
        const char *base = slash ? slash + 1 : f->path;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        for (int tries = 0; tries < 16; tries++) {
            snprintf(name, sizeof name, "%.*s.%s.shfp.%ld.%lx", dirlen, f->path, base,
                     (long)getpid(), (unsigned long)(ts.tv_nsec + tries));
            int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd >= 0) {
                if (pwrite(fd, &initial, sizeof initial, 0) != (ssize_t)sizeof initial)
                    rc = -errno;
                close(fd);
                break;
            }
            if (errno != EEXIST) {
                /* a directory we may not write to: the file works, the
                 * shared pointer calls answer an I/O error */
                name[0] = 0;
                break;
            }
        }
    }
    if (coll_bcast(name, sizeof name, dtype_get(MPI_CHAR), 0, f->comm) < 0)
        return -EIO;
    if (rc < 0 || !name[0])
        return rc;
    if (!(f->shfp_path = strdup(name)))
        return -ENOMEM;
    f->shfp_fd = open(name, O_RDWR | O_CLOEXEC);
    return f->shfp_fd < 0 ? -errno : 0;
}

void io_shfp_destroy(io_file_t *f)
{
    if (f->shfp_fd >= 0)
        close(f->shfp_fd);
    f->shfp_fd = -1;
    if (f->shfp_path) {
        coll_barrier(f->comm);
        if (f->comm->rank == 0)
            unlink(f->shfp_path);
    }
    free(f->shfp_path);
    f->shfp_path = NULL;
}

int io_shfp_fetch_add(io_file_t *f, MPI_Offset add, MPI_Offset *old)
{
    if (f->shfp_fd < 0)
        return -EIO;
    int rc = io_lock(f->shfp_fd, F_WRLCK, 0, 0);
    if (rc < 0)
        return rc;
    MPI_Offset v = 0;
    if (pread(f->shfp_fd, &v, sizeof v, 0) != (ssize_t)sizeof v)
        rc = -EIO;
    else if (add) {
        MPI_Offset nv = v + add;
        if (pwrite(f->shfp_fd, &nv, sizeof nv, 0) != (ssize_t)sizeof nv)
            rc = -errno;
    }
    io_lock(f->shfp_fd, F_UNLCK, 0, 0);
    *old = v;
    return rc;
}

int io_shfp_set(io_file_t *f, MPI_Offset val)
{
    if (f->shfp_fd < 0)
        return -EIO;
    int rc = io_lock(f->shfp_fd, F_WRLCK, 0, 0);
    if (rc < 0)
        return rc;
    if (pwrite(f->shfp_fd, &val, sizeof val, 0) != (ssize_t)sizeof val)
        rc = -errno;
    io_lock(f->shfp_fd, F_UNLCK, 0, 0);
    return rc;
}
