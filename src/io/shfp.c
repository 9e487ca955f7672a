/* The shared file pointer: eight bytes (the offset in etypes, native order)
 * in a small file next to the data file, read-modified-written under an
 * fcntl write lock. A file and not a process serving it: the processes of a
 * file may sit on hosts that share nothing but the file system, and a
 * pointer kept by rank 0 would only move while rank 0 makes progress in MPI;
 * the lock works on a local file system and on NFS (lockd) alike. The name
 * is agreed at open but the file is made by the first call that needs it,
 * so files nobody uses the shared pointer on leave no trace (as in ROMIO);
 * until then (an empty file too) the pointer is its initial value.
 *
 * The file holds the pointer + 1; 0, or an empty file, stands for the
 * initial value (so a file just made, or grown to the word, needs no
 * setting up).
 *
 * When every process of the file is on one host they share the page cache
 * and the file is mapped instead: the pointer is moved by a compare-and-swap
 * on the mapped word, with no lock and no system call (five system calls
 * under fcntl). The two forms are not atomic with each other, so all the
 * processes of a file use the same one: the choice is f->nhosts, the same
 * everywhere, and a file system that cannot map files (ENODEV) answers so to
 * every process. */
#include "io/io.h"

#include "coll/coll.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IO_SHFP_NAME 4096

int io_shfp_create(io_file_t *f, MPI_Offset initial)
{
    char name[IO_SHFP_NAME] = {0};
    if (f->comm->rank == 0) {
        const char *slash = strrchr(f->path, '/');
        int dirlen = slash ? (int)(slash - f->path + 1) : 0;
        const char *base = slash ? slash + 1 : f->path;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, sizeof name, "%.*s.%s.shfp.%ld.%lx", dirlen, f->path, base, (long)getpid(),
                 (unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20));
    }
    if (coll_bcast(name, sizeof name, dtype_get(MPI_CHAR), 0, f->comm) < 0)
        return -EIO;
    f->shfp_init = initial;
    return (f->shfp_path = strdup(name)) ? 0 : -ENOMEM;
}

static int io_shfp_open(io_file_t *f, int create)
{
    if (f->shfp_fd >= 0)
        return 0;
    if (!f->shfp_path)
        return -EIO;
    f->shfp_fd = open(f->shfp_path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (f->shfp_fd < 0)
        return -errno;
    if (f->nhosts == 1) {
        /* at least the word: growing an empty file zero-fills it, one
         * that has the word already is left as it is */
        struct stat sb;
        void *m = MAP_FAILED;
        if (fstat(f->shfp_fd, &sb) == 0 && (sb.st_size >= (off_t)sizeof(long long) ||
                                             ftruncate(f->shfp_fd, sizeof(long long)) == 0))
            m = mmap(NULL, sizeof(long long), PROT_READ | PROT_WRITE, MAP_SHARED, f->shfp_fd, 0);
        if (m == MAP_FAILED && errno != ENODEV) {
            int e = errno;
            close(f->shfp_fd);
            f->shfp_fd = -1;
            return -e;
        }
        /* ENODEV: a file system that cannot map files answers so to every
         * process, and they all take the lock instead */
        f->shfp_map = m == MAP_FAILED ? NULL : m;
    }
    return 0;
}

void io_shfp_destroy(io_file_t *f)
{
    if (f->shfp_map)
        munmap((void *)f->shfp_map, sizeof(long long));
    f->shfp_map = NULL;
    if (f->shfp_fd >= 0)
        close(f->shfp_fd);
    f->shfp_fd = -1;
    if (f->shfp_path) {
        coll_barrier(f->comm);
        if (f->comm->rank == 0)
            unlink(f->shfp_path); /* ENOENT: nobody made it */
    }
    free(f->shfp_path);
    f->shfp_path = NULL;
}

int io_shfp_fetch_add(io_file_t *f, MPI_Offset add, MPI_Offset *old)
{
    int rc = io_shfp_open(f, 1);
    if (rc == 0 && f->shfp_map) {
        long long e = atomic_load(f->shfp_map), v;
        do
            v = e ? e - 1 : f->shfp_init;
        while (add && !atomic_compare_exchange_weak(f->shfp_map, &e, v + add + 1));
        *old = v;
        return 0;
    }
    if (rc < 0 || (rc = io_lock(f->shfp_fd, F_WRLCK, 0, 0)) < 0)
        return rc;
    MPI_Offset e = 0, v;
    ssize_t n = pread(f->shfp_fd, &e, sizeof e, 0);
    if (n != 0 && n != (ssize_t)sizeof e)
        rc = n < 0 ? -errno : -EIO;
    v = e ? e - 1 : f->shfp_init;
    if (rc == 0 && add) {
        MPI_Offset nv = v + add + 1;
        if (pwrite(f->shfp_fd, &nv, sizeof nv, 0) != (ssize_t)sizeof nv)
            rc = -errno;
    }
    io_lock(f->shfp_fd, F_UNLCK, 0, 0);
    *old = v;
    return rc;
}

int io_shfp_set(io_file_t *f, MPI_Offset val)
{
    int rc = io_shfp_open(f, 1);
    if (rc == 0 && f->shfp_map) {
        atomic_store(f->shfp_map, val + 1);
        return 0;
    }
    if (rc < 0 || (rc = io_lock(f->shfp_fd, F_WRLCK, 0, 0)) < 0)
        return rc;
    MPI_Offset e = val + 1;
    if (pwrite(f->shfp_fd, &e, sizeof e, 0) != (ssize_t)sizeof e)
        rc = -errno;
    io_lock(f->shfp_fd, F_UNLCK, 0, 0);
    return rc;
}

int io_shfp_reset(io_file_t *f)
{
    f->shfp_init = 0;
    if (f->comm->rank != 0 || io_shfp_open(f, 0) < 0)
        return 0; /* not made yet: the initial value is the pointer */
    return io_shfp_set(f, 0);
}
