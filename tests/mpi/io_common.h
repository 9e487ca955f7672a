/* Shared by the io_* tests: a private temporary directory made by rank 0
 * (its name reaches everybody) and removed with what is in it at the end;
 * whole-file comparison. The including file declares `rank` first. The
 * directory is made under $RM_TEST_IODIR when set (the scripts that run
 * these tests on a file system of their choice: one that virtual hosts
 * share, a small tmpfs), else under /tmp. */
#ifndef RM_TESTS_IO_COMMON_H
#define RM_TESTS_IO_COMMON_H

#include "check.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char io_dir[256];

static __attribute__((unused)) void io_dir_make(void)
{
    if (rank == 0) {
        const char *base = getenv("RM_TEST_IODIR");
        snprintf(io_dir, sizeof io_dir, "%s/railmpi_io_XXXXXX", base && *base ? base : "/tmp");
        CHECK(mkdtemp(io_dir) != NULL, "mkdtemp failed");
    }
    MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static __attribute__((unused)) void io_path(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", io_dir, name);
}

static __attribute__((unused)) void io_dir_remove(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        return;
    DIR *d = opendir(io_dir);
    struct dirent *e;
    char p[600];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", io_dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    CHECK(rmdir(io_dir) == 0, "cannot remove %s", io_dir);
}

/* Number of entries in the directory (the shared pointer's file counts). */
static __attribute__((unused)) int io_dir_entries(void)
{
    DIR *d = opendir(io_dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* The whole file, read with stdio; *len its length. */
static __attribute__((unused)) unsigned char *io_slurp(const char *path, long *len)
{
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    *len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*len + 1);
    CHECK(fread(b, 1, (size_t)*len, fp) == (size_t)*len, "short read of %s", path);
    fclose(fp);
    return b;
}

/* An outside process (a child of the caller) holding an fcntl write lock
 * on bytes [start, start + len) of a file (len 0: to the end) until
 * io_holder_end, or for 5 s at most. */
typedef struct io_holder {
    pid_t pid;
    int go; /* write end of the pipe that lets it go */
} io_holder_t;

static __attribute__((unused)) io_holder_t io_holder_start(const char *path, off_t start, off_t len)
{
    int up[2], go[2];
    char c;
    CHECK(pipe(up) == 0 && pipe(go) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = len};
        int fd = open(path, O_RDWR);
        if (fd < 0 || fcntl(fd, F_SETLKW, &fl) < 0 || write(up[1], "L", 1) != 1)
            _exit(2);
        struct pollfd pf = {.fd = go[0], .events = POLLIN};
        int told = poll(&pf, 1, 5000) == 1;
        fl.l_type = F_UNLCK;
        fcntl(fd, F_SETLK, &fl);
        _exit(told ? 0 : 1);
    }
    close(up[1]);
    close(go[0]);
    CHECK(read(up[0], &c, 1) == 1, "the child did not take the lock on %s", path);
    close(up[0]);
    return (io_holder_t){pid, go[1]};
}

/* Lets the holder go: 1 when it held the lock until told (the calls made
 * meanwhile did not wait for it), 0 when its 5 s ran out first. */
static __attribute__((unused)) int io_holder_end(io_holder_t *h)
{
    int ws = 0;
    CHECK(write(h->go, "G", 1) == 1, "pipe");
    close(h->go);
    CHECK(waitpid(h->pid, &ws, 0) == h->pid, "waitpid");
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) != 2, "the child failed to lock the file");
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

static __attribute__((unused)) int io_class(int err)
{
    int cls = -1;
    MPI_Error_class(err, &cls);
    return cls;
}

#endif
