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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static __attribute__((unused)) int io_class(int err)
{
    int cls = -1;
    MPI_Error_class(err, &cls);
    return cls;
}

#endif
