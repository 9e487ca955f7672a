/* A data representation registered with the int MPI_Register_datarep under
 * an access of more items than an int counts: one MPI_File_write_at_c and
 * one MPI_File_read_at_c of 2^31 + 2^20 bytes through it. The library calls
 * the int conversion functions in pieces of at most INT_MAX items at
 * successive positions of the same user buffer (MPI-4.1 14.5.3): two calls
 * each way, (INT_MAX, position 0) and (2^20 + 1, position INT_MAX), and the
 * pattern written comes back intact. The user buffer and the library's
 * buffer of the file's representation take twice the data. Skipped (77)
 * without 2.5 GiB of free disk or 5 GiB of available memory. */
static int rank;

#include "../mpi/io_common.h"

#include <limits.h>
#include <stdint.h>
#include <sys/statvfs.h>

#define BYTES (((MPI_Count)1 << 31) + ((MPI_Count)1 << 20))
#define GIB (1024.0 * 1024 * 1024)

static struct {
    int count;
    MPI_Offset position;
} calls[8];
static int ncalls;

/* "swapped_nibbles": each byte's halves swapped in the file */
static void convert(unsigned char *to, const unsigned char *from, int count)
{
    for (int i = 0; i < count; i++)
        to[i] = (unsigned char)(from[i] << 4 | from[i] >> 4);
}

static int conv_read(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(dt == MPI_BYTE && ncalls < 8, "read conversion of type 0x%x, call %d", (unsigned)dt,
          ncalls);
    calls[ncalls].count = count;
    calls[ncalls++].position = position;
    convert((unsigned char *)userbuf + position, filebuf, count);
    return MPI_SUCCESS;
}

static int conv_write(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    (void)extra;
    CHECK(dt == MPI_BYTE && ncalls < 8, "write conversion of type 0x%x, call %d", (unsigned)dt,
          ncalls);
    calls[ncalls].count = count;
    calls[ncalls++].position = position;
    convert(filebuf, (const unsigned char *)userbuf + position, count);
    return MPI_SUCCESS;
}

static int conv_extent(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    int sz;
    MPI_Type_size(dt, &sz);
    *extent = sz;
    return MPI_SUCCESS;
}

static void expect_pieces(const char *what)
{
    CHECK(ncalls == 2, "%s: %d conversion calls, not 2", what, ncalls);
    CHECK(calls[0].count == INT_MAX && calls[0].position == 0, "%s: first call (%d, %lld)", what,
          calls[0].count, (long long)calls[0].position);
    CHECK(calls[1].count == (int)(BYTES - INT_MAX) && calls[1].position == INT_MAX,
          "%s: second call (%d, %lld)", what, calls[1].count, (long long)calls[1].position);
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

static unsigned char pattern(MPI_Count i)
{
    return (unsigned char)(i ^ i >> 9 ^ i >> 23);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    io_dir_make();
    struct statvfs vfs;
    CHECK(statvfs(io_dir, &vfs) == 0, "statvfs %s", io_dir);
    double disk = (double)vfs.f_bavail * vfs.f_frsize, mem = (double)mem_available();
    if (disk < 2.5 * GIB || mem < 5 * GIB) {
        printf("SKIP: %.1f GiB free in %s, %.1f GiB of memory available (need 2.5 and 5)\n",
               disk / GIB, io_dir, mem / GIB);
        io_dir_remove();
        MPI_Finalize();
        return 77;
    }
    CHECK(MPI_Register_datarep("swapped_nibbles", conv_read, conv_write, conv_extent, NULL) ==
              MPI_SUCCESS,
          "MPI_Register_datarep");
    char path[300];
    io_path(path, sizeof path, "nibbles");
    unsigned char *buf = malloc((size_t)BYTES);
    CHECK(buf != NULL, "no memory for %lld bytes", (long long)BYTES);
    for (MPI_Count i = 0; i < BYTES; i++)
        buf[i] = pattern(i);

    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "open %s", path);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "swapped_nibbles", MPI_INFO_NULL) ==
              MPI_SUCCESS,
          "set_view swapped_nibbles");
    double t0 = MPI_Wtime();
    MPI_Status st;
    ncalls = 0;
    int rc = MPI_File_write_at_c(fh, 0, buf, BYTES, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_File_write_at_c through swapped_nibbles: error %d", rc);
    expect_pieces("write");
    MPI_Count n = 0;
    MPI_Get_elements_x(&st, MPI_BYTE, &n);
    CHECK(n == BYTES, "the write's status counts %lld bytes", (long long)n);

    /* the file holds the converted bytes (a few places) */
    MPI_File_sync(fh);
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "fopen %s", path);
    MPI_Count at[] = {0, 12345, INT_MAX - 1, INT_MAX, INT_MAX + 1LL, BYTES - 1};
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        unsigned char b, p = pattern(at[k]);
        CHECK(fseeko(fp, (off_t)at[k], SEEK_SET) == 0 && fread(&b, 1, 1, fp) == 1, "fread");
        CHECK(b == (unsigned char)(p << 4 | p >> 4), "file byte %lld is 0x%02x", (long long)at[k],
              b);
    }
    fclose(fp);

    memset(buf, 0, (size_t)BYTES);
    ncalls = 0;
    rc = MPI_File_read_at_c(fh, 0, buf, BYTES, MPI_BYTE, &st);
    CHECK(rc == MPI_SUCCESS, "MPI_File_read_at_c through swapped_nibbles: error %d", rc);
    expect_pieces("read");
    for (MPI_Count i = 0; i < BYTES; i++)
        CHECK(buf[i] == pattern(i), "byte %lld is 0x%02x, not 0x%02x", (long long)i, buf[i],
              pattern(i));
    double t1 = MPI_Wtime();
    MPI_File_close(&fh);
    free(buf);
    io_dir_remove();
    printf("io_datarep_chunks: OK: %.2f GiB each way in %.1f s\n", BYTES / GIB, t1 - t0);
    MPI_Finalize();
    return 0;
}
