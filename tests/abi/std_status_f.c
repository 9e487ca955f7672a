/* The standard ABI's status conversions between C and Fortran: a received
 * status through MPI_Status_c2f/f2c, c2f08/f082c and f2f08/f082f keeps its
 * source, tag, error and count (MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR index
 * the INTEGER status); NULL on either side is MPI_ERR_ARG. 2 ranks. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

int main(int argc, char **argv)
{
    int size, buf[3] = {1, 2, 3}, n = -1, cls = -1;
    MPI_Status st, back;
    MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run with 2 ranks");
    if (std_rank == 0) {
        OK(MPI_Send(buf, 3, MPI_INT, 1, 42, MPI_COMM_WORLD));
        memset(&st, 0, sizeof st);
        OK(MPI_Recv(buf, 3, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    } else {
        OK(MPI_Recv(buf, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        OK(MPI_Send(buf, 2, MPI_INT, 0, 43, MPI_COMM_WORLD));
    }
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    int peer = 1 - std_rank, tag = std_rank == 0 ? 43 : 42, count = std_rank == 0 ? 2 : 3;

    OK(MPI_Status_c2f(&st, f));
    CHECK(f[MPI_F_SOURCE] == peer && f[MPI_F_TAG] == tag && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
          "c2f: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    memset(&back, 0, sizeof back);
    OK(MPI_Status_f2c(f, &back));
    OK(MPI_Get_count(&back, MPI_INT, &n));
    CHECK(!memcmp(&back, &st, sizeof st) && n == count, "f2c: count %d", n);

    OK(MPI_Status_c2f08(&st, &f08));
    CHECK(f08.MPI_SOURCE == peer && f08.MPI_TAG == tag && f08.MPI_ERROR == MPI_ERR_TRUNCATE,
          "c2f08: source %d tag %d error %d", f08.MPI_SOURCE, f08.MPI_TAG, f08.MPI_ERROR);
    memset(&back, 0, sizeof back);
    OK(MPI_Status_f082c(&f08, &back));
    CHECK(!memcmp(&back, &st, sizeof st), "f082c differs");

    memset(&f08, 0, sizeof f08);
    OK(MPI_Status_f2f08(f, &f08));
    memset(f2, 0, sizeof f2);
    OK(MPI_Status_f082f(&f08, f2));
    CHECK(!memcmp(f2, f, sizeof f) && f08.MPI_TAG == tag, "f2f08/f082f differ");
    OK(MPI_Status_f2c(f2, &back));
    OK(MPI_Get_count(&back, MPI_INT, &n));
    CHECK(n == count, "count after f2f08/f082f/f2c %d", n);

    /* a status to ignore is not one to convert */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int rc = MPI_Status_c2f(MPI_STATUS_IGNORE, f);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "c2f of MPI_STATUS_IGNORE: class %d", cls);
    rc = MPI_Status_f2f08(f, NULL);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "f2f08 into NULL: class %d", cls);
    rc = MPI_Status_f082c(NULL, &back);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG, "f082c of NULL: class %d", cls);

    OK(MPI_Finalize());
    if (std_rank == 0)
        printf("OK\n");
    return 0;
}
