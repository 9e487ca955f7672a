/* Written by tests/scripts/mpich_io.sh for railmpi and for MPICH: a 37 x 29
 * array of doubles (element (i, j) = i * 1000 + j + 0.25) written by a 2-D
 * block decomposition (uneven blocks) through subarray views that start
 * after a 64-byte header rank 0 writes, in the given data representation.
 * Usage: mpich_io write FILE DATAREP | check FILE DATAREP (reads it back
 * collectively through the same views and checks every element). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int write = !strcmp(argv[1], "write");
    int dims[2] = {0, 0}, gs[2] = {37, 29}, ls[2], st[2];
    MPI_Dims_create(size, 2, dims);
    int c[2] = {rank / dims[1], rank % dims[1]};
    for (int d = 0; d < 2; d++) {
        int q = gs[d] / dims[d], r = gs[d] % dims[d];
        ls[d] = q + (c[d] < r);
        st[d] = c[d] * q + (c[d] < r ? c[d] : r);
    }
    int n = ls[0] * ls[1];
    double *a = malloc(sizeof *a * (size_t)n);
    for (int i = 0; i < ls[0]; i++)
        for (int j = 0; j < ls[1]; j++)
            a[i * ls[1] + j] = write ? (st[0] + i) * 1000 + st[1] + j + 0.25 : -1;
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_Status s;
    int err = MPI_File_open(MPI_COMM_WORLD, argv[2], write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                            MPI_INFO_NULL, &fh);
    if (err != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    char head[64];
    memset(head, 0, sizeof head);
    snprintf(head, sizeof head, "37x29 doubles, %s", argv[3]);
    if (write && rank == 0)
        MPI_File_write_at(fh, 0, head, 64, MPI_CHAR, &s);
    err = MPI_File_set_view(fh, 64, MPI_DOUBLE, ft, argv[3], MPI_INFO_NULL);
    if (err == MPI_SUCCESS)
        err = write ? MPI_File_write_all(fh, a, n, MPI_DOUBLE, &s) : MPI_File_read_all(fh, a, n, MPI_DOUBLE, &s);
    MPI_File_close(&fh);
    int bad = err != MPI_SUCCESS;
    for (int i = 0; i < ls[0] && !write; i++)
        for (int j = 0; j < ls[1]; j++)
            bad += a[i * ls[1] + j] != (st[0] + i) * 1000 + st[1] + j + 0.25;
    int all;
    MPI_Reduce(&bad, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", all ? "BAD" : "OK", argv[1]);
    MPI_Type_free(&ft);
    free(a);
    MPI_Finalize();
    return 0;
}
