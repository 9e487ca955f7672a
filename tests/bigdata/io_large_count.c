/* One MPI_File_write_at_all_c of 2^31 + 2^20 bytes (more elements than an
 * int counts) at offset 3 GiB, so the access crosses the 4 GiB mark, then
 * one MPI_File_read_at_all_c of the same into the same buffer, cleared in
 * between: the status counts every byte and the pattern comes back intact.
 * The buffer is the only memory the test takes (the library writes and
 * reads it in place); the file, sparse below 3 GiB, lives in a private
 * directory removed at the end. Skipped (77) without 2.5 GiB of free disk
 * there or 3 GiB of available memory. */
static int rank;

#include "../mpi/io_common.h"

#include <stdint.h>
#include <sys/statvfs.h>

#define BYTES (((MPI_Count)1 << 31) + ((MPI_Count)1 << 20))
#define AT ((MPI_Offset)3 << 30)
#define GIB (1024.0 * 1024 * 1024)

static uint64_t word(MPI_Count k)
{
    return (uint64_t)k * 0x9E3779B97F4A7C15ull ^ (uint64_t)k >> 7;
}

static long long mem_available(void)
{
    FILE *fp = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (fp)
        fclose(fp);
    return kb < 0 ? -1 : kb * 1024;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io_dir_make();
    struct statvfs vfs;
    CHECK(statvfs(io_dir, &vfs) == 0, "statvfs %s", io_dir);
    double disk = (double)vfs.f_bavail * vfs.f_frsize, mem = (double)mem_available();
    if (disk < 2.5 * GIB || mem < 3 * GIB) {
        printf("SKIP: %.1f GiB free in %s, %.1f GiB of memory available (need 2.5 and 3)\n",
               disk / GIB, io_dir, mem / GIB);
        io_dir_remove();
        MPI_Finalize();
        return 77;
    }
    char path[300];
    io_path(path, sizeof path, "big");
    uint64_t *buf = malloc((size_t)BYTES);
    CHECK(buf != NULL, "no memory for %lld bytes", (long long)BYTES);
    MPI_Count words = BYTES / 8;
    for (MPI_Count k = 0; k < words; k++)
        buf[k] = word(k);

    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    double t0 = MPI_Wtime();
    MPI_Status st;
    int rc = MPI_File_write_at_all_c(fh, AT, buf, BYTES, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_File_write_at_all_c of %lld bytes: error %d", (long long)BYTES,
          rc);
    MPI_Count n = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &n);
    CHECK(n == BYTES, "the write's status counts %lld bytes", (long long)n);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == AT + BYTES, "file size %lld, not %lld", (long long)fsize,
          (long long)(AT + BYTES));
    double t1 = MPI_Wtime();

    memset(buf, 0, (size_t)BYTES);
    rc = MPI_File_read_at_all_c(fh, AT, buf, BYTES, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_File_read_at_all_c: error %d", rc);
    MPI_Get_elements_x(&st, MPI_BYTE, &n);
    CHECK(n == BYTES, "the read's status counts %lld bytes", (long long)n);
    for (MPI_Count k = 0; k < words; k++)
        CHECK(buf[k] == word(k), "word %lld (file offset %lld) is 0x%llx, not 0x%llx",
              (long long)k, (long long)(AT + 8 * k), (unsigned long long)buf[k],
              (unsigned long long)word(k));
    double t2 = MPI_Wtime();
    MPI_File_close(&fh);
    free(buf);
    io_dir_remove();
    printf("io_large_count: OK: %.2f GiB written at 3 GiB in %.1f s, read back in %.1f s\n",
           BYTES / GIB, t1 - t0, t2 - t1);
    MPI_Finalize();
    return 0;
}
