/* A bulk-synchronous loop, the shape of many MPI applications: each
 * iteration computes for a fixed time, then allreduces a vector large enough
 * to be striped over the rails, and checks the result. bench/fault.sh times
 * it fault-free and with faults injected, to see what faults cost a job.
 * Output (rank 0): "iterations N seconds S per_iteration_ms M".
 *   ft_loop [iterations] [compute_ms] [vector_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = argc > 1 ? atoi(argv[1]) : 500;
    double compute = (argc > 2 ? atof(argv[2]) : 80) * 1e-3;
    long n = (argc > 3 ? atol(argv[3]) : 4 << 20) / (long)sizeof(double);
    double *in = malloc(sizeof(double) * (size_t)n), *out = malloc(sizeof(double) * (size_t)n);
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        /* the compute phase takes the same wall time whatever the machine's
         * load, so only communication differs between runs */
        double until = MPI_Wtime() + compute, x = 1;
        while (MPI_Wtime() < until)
            for (int k = 0; k < 1000; k++)
                x = x * 1.0000001 + 1e-9;
        for (long i = 0; i < n; i++)
            in[i] = (double)(rank + 1) * (double)((i + it) % 1024) + (x < 0);
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* sum over ranks of (r + 1) * v = v * size * (size + 1) / 2, exact in doubles */
        double f = (double)size * (size + 1) / 2;
        for (long i = 0; i < n; i += 997)
            if (out[i] != f * (double)((i + it) % 1024)) {
                if (bad++ < 5)
                    printf("FAIL: rank %d iteration %d: element %ld is %g\n", rank, it, i, out[i]);
                break;
            }
    }
    double t = MPI_Wtime() - t0;
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!rank)
        printf("iterations %d seconds %.3f per_iteration_ms %.2f%s\n", iters, t, t / iters * 1e3,
               total ? " FAIL" : "");
    free(in);
    free(out);
    MPI_Finalize();
    return total ? 1 : 0;
}
