/* Collective MPI-IO of an interleaved subarray: a ROWS x COLS array of
 * doubles in one file, block-decomposed over a 2-D grid of the processes
 * (MPI_Dims_create); each process writes its block through a subarray view
 * with MPI_File_write_all, then reads it back with MPI_File_read_all and
 * checks every element. Every file row is shared by the processes of one
 * grid row, so each write interleaves their pieces. The time runs from
 * before MPI_File_open to after MPI_File_close (the slowest process).
 * Output from rank 0: "write MB/s" and "read MB/s" lines (MB = 1e6 bytes).
 * Usage: io PATH [MIB [KEY=VALUE...]] (the array's size in MiB, 1024 by
 * default; info hints for both opens, none by default) */
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
    if (argc < 2) {
        if (!rank)
            fprintf(stderr, "usage: io PATH [MIB]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    long mib = argc > 2 ? atol(argv[2]) : 1024;
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    /* COLS doubles a row (32 KiB rows at 4096), as many rows as the size needs */
    int gs[2], ls[2], st[2], coords[2] = {rank / dims[1], rank % dims[1]};
    gs[1] = 4096 * dims[1];
    gs[0] = (int)(mib * 1024 * 1024 / 8 / gs[1]);
    gs[0] -= gs[0] % dims[0];
    for (int d = 0; d < 2; d++) {
        ls[d] = gs[d] / dims[d];
        st[d] = coords[d] * ls[d];
    }
    size_t n = (size_t)ls[0] * (size_t)ls[1];
    double *a = malloc(n * sizeof *a);
    if (!a) {
        fprintf(stderr, "io: no memory for %zu doubles\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < ls[0]; i++)
        for (int j = 0; j < ls[1]; j++)
            a[(size_t)i * ls[1] + j] = (double)(st[0] + i) * gs[1] + st[1] + j;
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    double bytes = (double)gs[0] * gs[1] * 8;
    MPI_File fh;
    MPI_Status status;
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 3; i < argc; i++) {
        char kv[256], *eq;
        snprintf(kv, sizeof kv, "%s", argv[i]);
        if ((eq = strchr(kv, '='))) {
            *eq = 0;
            MPI_Info_set(info, kv, eq + 1);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    int err = MPI_File_write_all(fh, a, (int)n, MPI_DOUBLE, &status);
    MPI_File_close(&fh);
    double t = MPI_Wtime() - t0, tw;
    MPI_Reduce(&t, &tw, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "io: write_all failed (%d)\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    memset(a, 0, n * sizeof *a);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    err = MPI_File_read_all(fh, a, (int)n, MPI_DOUBLE, &status);
    MPI_File_close(&fh);
    t = MPI_Wtime() - t0;
    double tr;
    MPI_Reduce(&t, &tr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    long bad = err != MPI_SUCCESS;
    for (int i = 0; i < ls[0]; i++)
        for (int j = 0; j < ls[1]; j++)
            bad += a[(size_t)i * ls[1] + j] != (double)(st[0] + i) * gs[1] + st[1] + j;
    long allbad;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank) {
        if (allbad)
            printf("bad %ld elements read back wrong\n", allbad);
        printf("array %d x %d doubles (%.0f MiB), grid %d x %d\n", gs[0], gs[1], bytes / 1048576,
               dims[0], dims[1]);
        printf("write %.1f\n", bytes / tw / 1e6);
        printf("read %.1f\n", bytes / tr / 1e6);
    }
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    free(a);
    MPI_Finalize();
    return allbad != 0;
}
