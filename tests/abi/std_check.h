/* Checks for the programs built against the standard ABI's reference header
 * (tests/abi/std_run.sh): they include no railmpi header at all. */
#ifndef STD_CHECK_H
#define STD_CHECK_H
#include <stdio.h>
#include <stdlib.h>

static int std_rank = -1;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: ", std_rank, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

#endif
