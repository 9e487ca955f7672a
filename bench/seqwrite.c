/* The plain sequential write that bench/io.sh sets beside the MPIs: one
 * process holds the whole array in memory (filled like bench/io.c's, so it
 * takes the same memory as the MPI processes together) and writes it to a
 * new file in 16 MiB write() calls; the time runs from before open to
 * after close, as bench/io.c's. Output: "write MB/s" (MB = 1e6 bytes).
 * Usage: seqwrite PATH [MIB] (1024 by default) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: seqwrite PATH [MIB]\n");
        return 2;
    }
    long mib = argc > 2 ? atol(argv[2]) : 1024;
    size_t n = (size_t)mib * 1048576 / sizeof(double), chunk = (size_t)16 << 20;
    double *a = malloc(n * sizeof *a);
    if (!a || mib <= 0) {
        fprintf(stderr, "seqwrite: no memory for %ld MiB\n", mib);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (double)i;
    double t0 = now();
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) {
        perror("seqwrite: open");
        return 1;
    }
    const char *p = (const char *)a;
    for (size_t off = 0, bytes = n * sizeof *a; off < bytes;) {
        size_t len = bytes - off < chunk ? bytes - off : chunk;
        ssize_t w = write(fd, p + off, len);
        if (w <= 0) {
            perror("seqwrite: write");
            return 1;
        }
        off += (size_t)w;
    }
    if (close(fd) < 0) {
        perror("seqwrite: close");
        return 1;
    }
    printf("write %.1f\n", (double)(n * sizeof *a) / (now() - t0) / 1e6);
    free(a);
    return 0;
}
