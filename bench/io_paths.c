/* Every MPI-IO access path, timed one after the other in one run: each
 * process moves NBLOCKS blocks of BLOCK bytes per path, through the default
 * view ("contig": each process owns one stretch of the file) or through a
 * subarray view ("subarray": the file is a 2-D array of doubles whose
 * columns are split over the processes, a domain decomposition in which
 * every file row holds a piece of each process, local rows of 8 KiB). A
 * write path writes a fresh file (removed first); the read path after it
 * reads that file back from the page cache and checks the first and last
 * word of every block. Nothing is synced. Each path's time runs from a
 * barrier before its first call to a barrier after its last (open and
 * close are outside). Output from rank 0, one line per path:
 *   PATH MB/s          (aggregate over the processes, MB = 1e6 bytes)
 * Paths: write_at read_at write read write_at_all read_at_all
 * write_at_all_begin read_at_all_begin iwrite_at iread_at iwrite_at_comp
 * iread_at_comp write_shared read_shared write_ordered read_ordered, and
 * pwrite / pread (plain POSIX calls on the same layout, contig only). The
 * _comp forms compute between the start and the wait for as long as moving
 * the block at 2 GB/s takes. Shared and ordered paths need one view on
 * every process: contig only.
 * Usage: io_paths PATH BLOCK NBLOCKS contig|subarray [PATH-NAME...] */
#include <mpi.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;
static long long blk, nblk;
static int sub; /* subarray view */
static const char *fname;
static char *buf;
static MPI_Datatype ftype;
static int bad;

static void fill(long long i)
{
    uint64_t *w = (uint64_t *)buf;
    w[0] = ((uint64_t)rank << 40) | (uint64_t)i;
    w[blk / 8 - 1] = ~w[0];
}

static void check(long long i, int r)
{
    uint64_t *w = (uint64_t *)buf, want = ((uint64_t)r << 40) | (uint64_t)i;
    if (w[0] != want || w[blk / 8 - 1] != ~want)
        bad++;
}

static MPI_File open_file(int fresh)
{
    MPI_File fh;
    if (fresh) {
        if (rank == 0)
            unlink(fname);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh)) {
        fprintf(stderr, "io_paths: cannot open %s\n", fname);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (sub)
        MPI_File_set_view(fh, 0, MPI_DOUBLE, ftype, "native", MPI_INFO_NULL);
    return fh;
}

/* Offset of my block i in the view's etypes (bytes or doubles). */
static MPI_Offset at(long long i)
{
    return sub ? i * blk / 8 : ((MPI_Offset)rank * nblk + i) * blk;
}

static void spin(double s)
{
    double t = MPI_Wtime() + s;
    while (MPI_Wtime() < t)
        ;
}

static int run_path(const char *p)
{
    int write = !strncmp(p, "write", 5) || !strncmp(p, "iwrite", 6) || !strcmp(p, "pwrite");
    int shared = strstr(p, "shared") || strstr(p, "ordered");
    int posix = !strcmp(p, "pwrite") || !strcmp(p, "pread");
    if ((shared || posix) && sub)
        return 0;
    int cnt = sub ? (int)(blk / 8) : (int)blk;
    MPI_Datatype mt = sub ? MPI_DOUBLE : MPI_BYTE;
    MPI_File fh = open_file(write);
    int fd = -1;
    if (posix)
        fd = open(fname, O_RDWR);
    if (!strcmp(p, "write") || !strcmp(p, "read"))
        MPI_File_seek(fh, at(0), MPI_SEEK_SET);
    double comp = (double)blk / 2e9;
    MPI_Status st;
    MPI_Request rq;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long long i = 0; i < nblk; i++) {
        int shared_src = -1; /* who wrote the block a shared read gets */
        if (write)
            fill(i);
        if (!strcmp(p, "write_at"))
            MPI_File_write_at(fh, at(i), buf, cnt, mt, &st);
        else if (!strcmp(p, "read_at"))
            MPI_File_read_at(fh, at(i), buf, cnt, mt, &st);
        else if (!strcmp(p, "write"))
            MPI_File_write(fh, buf, cnt, mt, &st);
        else if (!strcmp(p, "read"))
            MPI_File_read(fh, buf, cnt, mt, &st);
        else if (!strcmp(p, "write_at_all"))
            MPI_File_write_at_all(fh, at(i), buf, cnt, mt, &st);
        else if (!strcmp(p, "read_at_all"))
            MPI_File_read_at_all(fh, at(i), buf, cnt, mt, &st);
        else if (!strcmp(p, "write_at_all_begin")) {
            MPI_File_write_at_all_begin(fh, at(i), buf, cnt, mt);
            MPI_File_write_at_all_end(fh, buf, &st);
        } else if (!strcmp(p, "read_at_all_begin")) {
            MPI_File_read_at_all_begin(fh, at(i), buf, cnt, mt);
            MPI_File_read_at_all_end(fh, buf, &st);
        } else if (!strncmp(p, "iwrite_at", 9) || !strncmp(p, "iread_at", 8)) {
            if (write)
                MPI_File_iwrite_at(fh, at(i), buf, cnt, mt, &rq);
            else
                MPI_File_iread_at(fh, at(i), buf, cnt, mt, &rq);
            if (strstr(p, "_comp"))
                spin(comp);
            MPI_Wait(&rq, &st);
        } else if (!strcmp(p, "write_shared"))
            MPI_File_write_shared(fh, buf, cnt, mt, &st);
        else if (!strcmp(p, "read_shared")) {
            MPI_File_read_shared(fh, buf, cnt, mt, &st);
            shared_src = -2;
        } else if (!strcmp(p, "write_ordered"))
            MPI_File_write_ordered(fh, buf, cnt, mt, &st);
        else if (!strcmp(p, "read_ordered")) {
            MPI_File_read_ordered(fh, buf, cnt, mt, &st);
            shared_src = rank; /* written in the same order */
        } else if (!strcmp(p, "pwrite")) {
            if (pwrite(fd, buf, (size_t)blk, at(i)) != blk)
                bad++;
        } else if (!strcmp(p, "pread")) {
            if (pread(fd, buf, (size_t)blk, at(i)) != blk)
                bad++;
        } else {
            if (rank == 0)
                fprintf(stderr, "io_paths: unknown path %s\n", p);
            MPI_File_close(&fh);
            return 1;
        }
        if (!write && shared_src == -2) {
            /* blocks of a shared write land in any order: check the pair */
            uint64_t *w = (uint64_t *)buf;
            if (w[blk / 8 - 1] != ~w[0])
                bad++;
        } else if (!write)
            check(i, shared_src >= 0 ? shared_src : rank);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (fd >= 0)
        close(fd);
    MPI_File_close(&fh);
    if (rank == 0)
        printf("%s %.1f\n", p, (double)size * (double)nblk * (double)blk / t / 1e6);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5) {
        if (!rank)
            fprintf(stderr, "usage: io_paths PATH BLOCK NBLOCKS contig|subarray [PATH-NAME...]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fname = argv[1];
    blk = atoll(argv[2]);
    nblk = atoll(argv[3]);
    sub = !strcmp(argv[4], "subarray");
    if (blk < 16 || blk % 8 || nblk < 1) {
        if (!rank)
            fprintf(stderr, "io_paths: BLOCK must be a multiple of 8, at least 16\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (sub) {
        /* columns split over the processes: local rows of 1024 doubles */
        long long doubles = blk * nblk / 8;
        int ls[2] = {(int)((doubles + 1023) / 1024), 1024};
        if ((long long)ls[0] * 1024 != doubles) {
            if (!rank)
                fprintf(stderr, "io_paths: BLOCK * NBLOCKS must be a multiple of 8 KiB for subarray\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int gs[2] = {ls[0], 1024 * size}, st[2] = {0, 1024 * rank};
        MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &ftype);
        MPI_Type_commit(&ftype);
    }
    buf = malloc((size_t)blk);
    memset(buf, 1, (size_t)blk);
    static const char *const all[] = {
        "pwrite", "pread", "write_at", "read_at", "write", "read", "write_at_all", "read_at_all",
        "write_at_all_begin", "read_at_all_begin", "iwrite_at", "iread_at", "iwrite_at_comp",
        "iread_at_comp", "write_shared", "read_shared", "write_ordered", "read_ordered"};
    int rc = 0;
    if (argc > 5)
        for (int i = 5; i < argc && !rc; i++)
            rc = run_path(argv[i]);
    else
        for (size_t i = 0; i < sizeof all / sizeof all[0] && !rc; i++)
            rc = run_path(all[i]);
    int allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && allbad)
        printf("bad %d blocks read back wrong\n", allbad);
    if (rank == 0)
        unlink(fname);
    free(buf);
    if (sub)
        MPI_Type_free(&ftype);
    MPI_Finalize();
    return rc || allbad;
}
