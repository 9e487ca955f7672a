/* Parallel HDF5 (Debian's libhdf5-mpich build) on railmpi through the MPICH
 * ABI: 4 processes write a 2-D dataset collectively, each a block of rows
 * and columns (a hyperslab), then read it back collectively transposed
 * between processes; attributes and a second, independently written
 * dataset too. Prints OK; the caller checks the file with h5dump. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 64
#define NY 48

#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            printf("FAIL: rank %d line %d: ", rank, __LINE__);                                 \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
            fflush(stdout);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(argc == 2, "usage: phdf5 FILE");
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int cx = rank / dims[1], cy = rank % dims[1];
    hsize_t count[2] = {NX / dims[0], NY / dims[1]}, offset[2] = {cx * count[0], cy * count[1]};
    CHECK(NX % dims[0] == 0 && NY % dims[1] == 0, "grid %dx%d", dims[0], dims[1]);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate");
    hsize_t gdims[2] = {NX, NY};
    hid_t fspace = H5Screate_simple(2, gdims, NULL);
    hid_t dset = H5Dcreate2(file, "field", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT);
    CHECK(dset >= 0, "H5Dcreate2");
    double *buf = malloc(sizeof(double) * count[0] * count[1]);
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++)
            buf[i * count[1] + j] = (double)((offset[0] + i) * NY + offset[1] + j) + 0.25;
    hid_t mspace = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, offset, NULL, count, NULL);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE);
    CHECK(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, buf) >= 0, "H5Dwrite");
    int steps = 42;
    hid_t aspace = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(dset, "steps", H5T_NATIVE_INT, aspace, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &steps);
    H5Aclose(attr);
    H5Sclose(aspace);
    /* an independently written 1-D dataset: one value per process */
    hsize_t n1 = (hsize_t)size, o1 = (hsize_t)rank, c1 = 1;
    hid_t s1 = H5Screate_simple(1, &n1, NULL), m1 = H5Screate_simple(1, &c1, NULL);
    hid_t d1 = H5Dcreate2(file, "ranks", H5T_NATIVE_INT, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Sselect_hyperslab(s1, H5S_SELECT_SET, &o1, NULL, &c1, NULL);
    hid_t ind = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(ind, H5FD_MPIO_INDEPENDENT);
    int me = rank * 10;
    CHECK(H5Dwrite(d1, H5T_NATIVE_INT, m1, s1, ind, &me) >= 0, "H5Dwrite independent");
    H5Dclose(d1);
    H5Sclose(s1);
    H5Sclose(m1);
    H5Dclose(dset);
    H5Sclose(fspace);
    H5Sclose(mspace);
    CHECK(H5Fclose(file) >= 0, "H5Fclose");

    /* read back another process's block, collectively */
    file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    CHECK(file >= 0, "H5Fopen");
    dset = H5Dopen2(file, "field", H5P_DEFAULT);
    fspace = H5Dget_space(dset);
    int peer = size - 1 - rank, px = peer / dims[1], py = peer % dims[1];
    hsize_t poff[2] = {px * count[0], py * count[1]};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, poff, NULL, count, NULL);
    mspace = H5Screate_simple(2, count, NULL);
    CHECK(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, xfer, buf) >= 0, "H5Dread");
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < count[1]; j++) {
            double want = (double)((poff[0] + i) * NY + poff[1] + j) + 0.25;
            CHECK(buf[i * count[1] + j] == want, "(%llu,%llu) = %g, want %g", (unsigned long long)i,
                  (unsigned long long)j, buf[i * count[1] + j], want);
        }
    H5Dclose(dset);
    H5Sclose(fspace);
    H5Sclose(mspace);
    H5Fclose(file);
    H5Pclose(fapl);
    H5Pclose(xfer);
    H5Pclose(ind);
    free(buf);
    MPI_Finalize();
    if (rank == 0)
        printf("OK phdf5\n");
    return 0;
}
