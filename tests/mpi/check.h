/* Shared by the MPI test programs: report the first failed check with the
 * rank and line, then end the whole job. The including file defines `rank`.
 * A program whose job must outlive one failed rank (process fault tolerance:
 * tests/scripts/ulfm_*.c) defines CHECK_ENDS_THIS_PROCESS first: a failed
 * check then ends only this process (_exit(1)), and mpiexec reports it. */
#ifndef RM_TESTS_CHECK_H
#define RM_TESTS_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#ifdef CHECK_ENDS_THIS_PROCESS
#define CHECK_END() _exit(1)
#else
#define CHECK_END() MPI_Abort(MPI_COMM_WORLD, 1)
#endif

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL: rank %d line %d: ", rank, __LINE__);               \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
            fflush(stdout);                                                  \
            CHECK_END();                                                     \
        }                                                                    \
    } while (0)

/* The error class of an MPI return code. */
static inline int check_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#endif
