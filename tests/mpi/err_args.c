/* ranks: 1 2 */
/* Bad arguments: with MPI_ERRORS_RETURN every call reports the right error
 * class and the job goes on. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls != want) {
        printf("FAIL: rank %d: %s gave class %d, expected %d\n", rank, what, cls, want);
        failures++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int buf[4] = {0}, flag;
    MPI_Request req;
    MPI_Status st;
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);

    expect(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0x12345), MPI_ERR_COMM, "Send on a bogus comm");
    expect(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Send on MPI_COMM_NULL");
    expect(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank size");
    expect(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "Send to rank -5");
    expect(MPI_Send(buf, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG, "Send with tag -1");
    expect(MPI_Recv(buf, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "Recv with tag -7");
    expect(MPI_Send(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "Send count -1");
    expect(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send DATATYPE_NULL");
    expect(MPI_Send(buf, 1, uncommitted, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send uncommitted type");
    expect(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "Send NULL buffer");
    expect(MPI_Isend(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK, "Isend bad rank");
    expect(MPI_Irecv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK, "Irecv bad rank");
    req = (MPI_Request)0x7777;
    expect(MPI_Wait(&req, &st), MPI_ERR_REQUEST, "Wait on a bogus request");
    expect(MPI_Test(&req, &flag, &st), MPI_ERR_REQUEST, "Test on a bogus request");
    expect(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT, "Bcast bad root");
    expect(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "Reduce root -1");
    expect(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "Allreduce OP_NULL");
    expect(MPI_Allreduce(buf, buf + 1, 1, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "SUM on MPI_BYTE");
    expect(MPI_Allreduce(buf, buf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, "aliased buffers");
    expect(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "Barrier on COMM_NULL");
    expect(MPI_Type_free(&(MPI_Datatype){MPI_INT}), MPI_ERR_TYPE, "freeing MPI_INT");
    expect(MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD}), MPI_ERR_COMM, "freeing MPI_COMM_WORLD");
    expect(MPI_Comm_split(MPI_COMM_WORLD, -3, 0, &(MPI_Comm){0}), MPI_ERR_ARG, "negative color");

    /* the job goes on: real traffic still works */
    int v = rank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size + 1) / 2) {
        printf("FAIL: allreduce after errors gave %d\n", sum);
        failures++;
    }
    MPI_Type_free(&uncommitted);
    if (!failures && rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return failures ? 1 : 0;
}
