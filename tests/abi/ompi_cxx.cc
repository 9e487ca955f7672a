// A C++ program using MPI's C API, built by Open MPI's mpicxx as it builds every
// program (linked with libmpi_cxx.so.40: the vtables of the header's inline
// C++ classes need it), on railmpi's libmpi.so.40 and libmpi_cxx.so.40. 2 ranks.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define OK(call)                                                                                   \
    do {                                                                                           \
        if ((call) != MPI_SUCCESS) {                                                               \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #call);                   \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    int rank = -1, size = 0;
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    std::vector<double> v(100, rank + 1.0), sum(100);
    OK(MPI_Allreduce(v.data(), sum.data(), 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    double total = std::accumulate(sum.begin(), sum.end(), 0.0);
    std::vector<int> all(size);
    OK(MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD));
    if (size != 2 || total != 300.0 || all[0] != 0 || all[1] != 1) {
        std::fprintf(stderr, "FAIL: size %d total %g\n", size, total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        std::printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
