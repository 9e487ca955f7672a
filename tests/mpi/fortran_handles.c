/* ranks: 1 2 */
/* C side of the Fortran interface: c2f/f2c of every handle kind the library
 * has (Fortran handles are the C ones in MPICH's ABI), MPI_Status_c2f/f2c,
 * MPI_Status_c2f08/f082c, and MPI_F_STATUS(ES)_IGNORE and
 * MPI_F08_STATUS(ES)_IGNORE, which are the addresses of the sentinels
 * MPICH's mpif.h declares in COMMON /MPIPRIV1/ and /MPIPRIV2/. */
#include "check.h"

#include <string.h>

static int rank;
extern MPI_Fint mpipriv1_[7], mpipriv2_[6];

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm");
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 0x44000000, "comm value");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "type");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY, "group");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_MAXLOC)) == MPI_MAXLOC, "op");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) == MPI_ERRORS_RETURN, "errhandler");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)) == MPI_INFO_ENV, "info");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "request");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "message");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win");
    CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0x20000000, "win value");

    MPI_Status st = {0}, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    st.MPI_SOURCE = 3; st.MPI_TAG = 77; st.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_Status_set_elements(&st, MPI_INT, 12);
    CHECK(MPI_Status_c2f(&st, f) == MPI_SUCCESS, "status_c2f");
    CHECK(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 77 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE, "fortran status layout");
    CHECK(MPI_Status_f2c(f, &back) == MPI_SUCCESS && memcmp(&st, &back, sizeof st) == 0, "status round trip");
    int n = 0;
    MPI_Get_count(&back, MPI_INT, &n);
    CHECK(n == 12, "count through the Fortran status");

    CHECK(MPI_F_STATUS_IGNORE == &mpipriv1_[2], "MPI_F_STATUS_IGNORE is the mpif.h sentinel");
    CHECK(MPI_F_STATUSES_IGNORE == &mpipriv2_[0], "MPI_F_STATUSES_IGNORE is the mpif.h sentinel");
    CHECK((void *)MPI_F08_STATUS_IGNORE == (void *)&mpipriv1_[2], "MPI_F08_STATUS_IGNORE");
    CHECK((void *)MPI_F08_STATUSES_IGNORE == (void *)&mpipriv2_[0], "MPI_F08_STATUSES_IGNORE");
    MPI_F08_status f08;
    CHECK(MPI_Status_c2f08(&st, &f08) == MPI_SUCCESS && f08.MPI_SOURCE == 3 && f08.MPI_TAG == 77, "status_c2f08");
    memset(&back, 0, sizeof back);
    CHECK(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS && memcmp(&st, &back, sizeof st) == 0, "status_f082c");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    CHECK(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back) != MPI_SUCCESS, "f082c of MPI_F08_STATUS_IGNORE is an error");
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back) != MPI_SUCCESS, "f2c of MPI_F_STATUS_IGNORE is an error");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("OK\n");
    MPI_Finalize();
    return 0;
}
