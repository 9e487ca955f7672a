/* A process with two MPI libraries (tests/abi/mixed.sh): the program, built
 * for one of railmpi's ABIs, loads LIBRARY (RTLD_LOCAL) before MPI_Init,
 * which must fail with MPI_ERR_OTHER (or, under the default error handler,
 * end the process with a message naming both libraries). Without an
 * argument MPI_Init must succeed. With MIXED_SESSION=1 in the environment
 * the same goes for MPI_Session_init.
 *   mixed [LIBRARY] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) {
        printf("SKIP: cannot load %s: %s\n", argv[1], dlerror());
        return 77;
    }
    const char *ses = getenv("MIXED_SESSION");
    MPI_Session session = MPI_SESSION_NULL;
    int rc = ses && *ses == '1' ? MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session)
                                : MPI_Init(&argc, &argv);
    if (rc != MPI_SUCCESS) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        printf("INIT-FAILED %s\n", cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "(another class)");
        return 3;
    }
    if (session != MPI_SESSION_NULL)
        MPI_Session_finalize(&session);
    else
        MPI_Finalize();
    printf("INIT-OK\n");
    return 0;
}
