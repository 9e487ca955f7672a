/* Parallel HDF5 over MPI-IO: a 2-D dataset of doubles whose columns are
 * split over the processes (each process owns ROWS x 4096, a hyperslab of
 * every row), written and read back in four ways: contiguous or chunked
 * (one chunk = 64 rows of a process's columns) storage, independent or
 * collective transfers (H5FD_MPIO_INDEPENDENT / COLLECTIVE). Each way
 * creates its file, writes, closes, opens and reads the data back, checking
 * every element; the time runs from create to close (write) and from open
 * to close (read), the slowest process. Output from rank 0, one line each:
 *   LAYOUT-MODE write|read MB/s     (aggregate, MB = 1e6 bytes)
 * Built with h5pcc.mpich (Debian's libhdf5-mpich), it runs on MPICH or, with
 * railmpi's libmpich.so.12 first on the library path, on railmpi.
 * Usage: hdf5_io DIR [MIB per process] */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS 4096

static int rank, size;

static double run(const char *path, int chunked, int coll, int write, double *a, hsize_t rows)
{
    hsize_t gdims[2] = {rows, (hsize_t)COLS * size}, start[2] = {0, (hsize_t)COLS * rank},
            count[2] = {rows, COLS};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, coll ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    hid_t file, dset, fspace = H5Screate_simple(2, gdims, NULL);
    if (write) {
        file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (chunked) {
            hsize_t chunk[2] = {64, COLS};
            H5Pset_chunk(dcpl, 2, chunk);
        }
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
        dset = H5Dcreate2(file, "/field", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Pclose(dcpl);
    } else {
        file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        dset = H5Dopen2(file, "/field", H5P_DEFAULT);
    }
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    herr_t rc = write ? H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, a)
                      : H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, a);
    H5Sclose(mspace);
    H5Sclose(fspace);
    H5Dclose(dset);
    H5Fclose(file);
    double t = MPI_Wtime() - t0, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    H5Pclose(xfer);
    H5Pclose(fapl);
    if (rc < 0) {
        fprintf(stderr, "hdf5_io: %s failed\n", write ? "H5Dwrite" : "H5Dread");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return worst;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (!rank)
            fprintf(stderr, "usage: hdf5_io DIR [MIB per process]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long mib = argc > 2 ? atol(argv[2]) : 64;
    hsize_t rows = (hsize_t)mib * 1048576 / 8 / COLS;
    rows -= rows % 64;
    if (rows == 0)
        rows = 64;
    size_t n = (size_t)rows * COLS;
    double *a = malloc(n * sizeof *a);
    char path[4096];
    snprintf(path, sizeof path, "%s/hdf5_io.h5", argv[1]);
    double bytes = (double)n * 8 * size;
    int bad = 0;
    for (int chunked = 0; chunked < 2; chunked++)
        for (int coll = 0; coll < 2; coll++) {
            for (size_t i = 0; i < n; i++)
                a[i] = (double)(i / COLS) * COLS * size + COLS * rank + (double)(i % COLS) + chunked + coll;
            double tw = run(path, chunked, coll, 1, a, rows);
            memset(a, 0, n * sizeof *a);
            double tr = run(path, chunked, coll, 0, a, rows);
            for (size_t i = 0; i < n; i++)
                if (a[i] != (double)(i / COLS) * COLS * size + COLS * rank + (double)(i % COLS) + chunked + coll)
                    bad++;
            const char *name = chunked ? (coll ? "chunked-coll" : "chunked-indep")
                                       : (coll ? "contig-coll" : "contig-indep");
            if (rank == 0) {
                printf("%s write %.1f\n", name, bytes / tw / 1e6);
                printf("%s read %.1f\n", name, bytes / tr / 1e6);
            }
        }
    int allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && allbad)
        printf("bad %d elements read back wrong\n", allbad);
    if (rank == 0)
        remove(path);
    free(a);
    MPI_Finalize();
    return allbad != 0;
}
