/* A token travels around the ring of ranks; each rank adds its number.
 * Then every rank checks an allreduce against the closed form. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    long token = 0;
    if (rank == 0) {
        token = 0;
        MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_LONG, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 0, MPI_COMM_WORLD);
    }
    long mine = rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d/%d on %s: allreduce %ld (expected %ld)%s\n", rank, size, host, sum,
           (long)size * (size - 1) / 2, rank == 0 ? "" : "");
    if (rank == 0)
        printf("token came back as %ld after visiting every rank\n", token);
    MPI_Finalize();
    return sum == (long)size * (size - 1) / 2 ? 0 : 1;
}
