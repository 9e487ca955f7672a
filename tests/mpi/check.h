/* Shared by the MPI test programs: report the first failed check with the
 * rank and line, then end the whole job. The including file defines `rank`. */
#ifndef RM_TESTS_CHECK_H
#define RM_TESTS_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL: rank %d line %d: ", rank, __LINE__);               \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
            fflush(stdout);                                                  \
            MPI_Abort(MPI_COMM_WORLD, 1);                                    \
        }                                                                    \
    } while (0)

#endif
