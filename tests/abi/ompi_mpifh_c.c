/* The C half of ompi_mpifh.f90, built with Open MPI's mpicc: MPI_<T>_f2c and
 * _c2f of railmpi's libmpi.so.40 agree with the integers Open MPI's mpif.h
 * and railmpi's libmpi_mpifh.so.40 give Fortran. Sets *res to the number of
 * disagreements. */
#include <mpi.h>
#include <stdio.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "check_c: %s\n", #c); (*res)++; } } while (0)

void check_c_(const MPI_Fint *world, const MPI_Fint *dup, const MPI_Fint *integer,
              const MPI_Fint *vtype, const MPI_Fint *sum, MPI_Fint *res);

void check_c_(const MPI_Fint *world, const MPI_Fint *dup, const MPI_Fint *integer,
              const MPI_Fint *vtype, const MPI_Fint *sum, MPI_Fint *res)
{
    int cmp = -1, size = 0;
    *res = 0;
    CHECK(*world == 0 && MPI_Comm_f2c(*world) == MPI_COMM_WORLD);
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == *world);
    CHECK(MPI_Comm_c2f(MPI_COMM_SELF) == 1 && MPI_Comm_c2f(MPI_COMM_NULL) == 2);
    CHECK(MPI_Type_f2c(*integer) == MPI_INTEGER && MPI_Type_c2f(MPI_INTEGER) == *integer);
    CHECK(MPI_Type_c2f(MPI_DOUBLE_PRECISION) == 17 && MPI_Type_c2f(MPI_INT) == 39);
    CHECK(MPI_Op_f2c(*sum) == MPI_SUM && MPI_Op_c2f(MPI_MAX) == 1);
    CHECK(MPI_Request_c2f(MPI_REQUEST_NULL) == 0 && MPI_Errhandler_c2f(MPI_ERRORS_RETURN) == 2);
    CHECK(MPI_Group_c2f(MPI_GROUP_EMPTY) == 1 && MPI_Info_c2f(MPI_INFO_NULL) == 0);
    /* created objects: the Fortran integer stands for the C handle, both ways */
    MPI_Comm c = MPI_Comm_f2c(*dup);
    CHECK(c != MPI_COMM_NULL && c != MPI_COMM_WORLD && MPI_Comm_c2f(c) == *dup);
    if (c != MPI_COMM_NULL) {
        MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
        CHECK(cmp == MPI_CONGRUENT);
    }
    MPI_Datatype t = MPI_Type_f2c(*vtype);
    CHECK(MPI_Type_c2f(t) == *vtype);
    if (MPI_Type_size(t, &size) == MPI_SUCCESS)
        CHECK(size == 3 * 4);
    else
        CHECK(!"MPI_Type_size of the vector");
    /* an object made in C gets a new integer, above the predefined ones */
    MPI_Comm d2;
    MPI_Comm_dup(MPI_COMM_SELF, &d2);
    MPI_Fint f2 = MPI_Comm_c2f(d2);
    CHECK(f2 > 2 && f2 != *dup && MPI_Comm_f2c(f2) == d2);
    MPI_Comm_free(&d2);
    /* an integer never handed out is no handle */
    CHECK(MPI_Comm_f2c(123456) == MPI_COMM_NULL && MPI_Comm_f2c(-7) == MPI_COMM_NULL);
}

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are what C's
 * MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE name */
void check_ignore_(const MPI_Fint *st, const MPI_Fint *sts, MPI_Fint *res);

void check_ignore_(const MPI_Fint *st, const MPI_Fint *sts, MPI_Fint *res)
{
    MPI_Status c;
    *res = 0;
    CHECK(st == MPI_F_STATUS_IGNORE);
    CHECK(sts == MPI_F_STATUSES_IGNORE);
    CHECK(MPI_Status_f2c(st, &c) != MPI_SUCCESS);
}
