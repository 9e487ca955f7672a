/* ranks: 1 */
/* The ABI chapter's Fortran support in the MPICH-ABI library, whose own
 * Fortran bindings are gfortran's: MPI_Abi_get_fortran_info gives INTEGER,
 * LOGICAL and REAL of 4 bytes, DOUBLE PRECISION of 8, and the optional
 * datatypes the engine handles; a layer's info is taken once (a
 * contradiction or a second call is MPI_ERR_ABI); the booleans are the
 * library's (1 and 0, set) and cannot be changed (MPI_ERR_ABI); a size that
 * is not a power of two is MPI_ERR_ARG; MPI_ERR_ABI is a class with a string;
 * LAND on MPI_LOGICAL still writes 1; MPI_LOGICAL1/8/16 reduce as LOGICALs. */
#include <mpi.h>

#include "check.h"
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank;

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

static void expect(MPI_Info info, const char *key, const char *want)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info_get(info, key, sizeof v - 1, v, &flag);
    CHECK(flag && !strcmp(v, want), "%s: flag %d '%s', want '%s'", key, flag, flag ? v : "", want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    CHECK(cls(MPI_ERR_ABI) == MPI_ERR_ABI && MPI_ERR_ABI <= MPI_ERR_LASTCODE, "class %d", cls(MPI_ERR_ABI));
    char str[MPI_MAX_ERROR_STRING];
    int slen;
    CHECK(MPI_Error_string(MPI_ERR_ABI, str, &slen) == MPI_SUCCESS && strstr(str, "MPI_ERR_ABI"),
          "string '%s'", str);

    MPI_Info info;
    CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS, "get_fortran_info");
    int n = 0;
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 23, "%d keys", n);
    expect(info, "mpi_integer_size", "4");
    expect(info, "mpi_logical_size", "4");
    expect(info, "mpi_real_size", "4");
    expect(info, "mpi_double_precision_size", "8");
    expect(info, "mpi_integer2_supported", "true");
    expect(info, "mpi_integer16_supported", "false");
    expect(info, "mpi_real2_supported", "false");
    expect(info, "mpi_real16_supported", "false");
    expect(info, "mpi_complex16_supported", "true");
    expect(info, "mpi_logical1_supported", "true");
    expect(info, "mpi_logical16_supported", "true");
    MPI_Info_free(&info);

    MPI_Info layer;
    MPI_Info_create(&layer);
    MPI_Info_set(layer, "mpi_double_precision_size", "16");
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_ABI, "DOUBLE PRECISION of 16 accepted");
    MPI_Info_set(layer, "mpi_double_precision_size", "8");
    MPI_Info_set(layer, "mpi_complex16_supported", "false");
    CHECK(MPI_Abi_set_fortran_info(layer) == MPI_SUCCESS, "a matching layer refused");
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_ABI, "second set accepted");
    MPI_Info_free(&layer);
    CHECK(MPI_Abi_get_fortran_info(&info) == MPI_SUCCESS, "get_fortran_info after set");
    expect(info, "mpi_complex16_supported", "false");
    expect(info, "mpi_complex8_supported", "true");
    MPI_Info_free(&info);

    int8_t t1 = 9, f1 = 9;
    int is_set = 0;
    CHECK(MPI_Abi_get_fortran_booleans(1, &t1, &f1, &is_set) == MPI_SUCCESS && is_set && t1 == 1 && f1 == 0,
          "LOGICAL*1: set %d true %d false %d", is_set, t1, f1);
    CHECK(cls(MPI_Abi_get_fortran_booleans(12, &t1, &f1, &is_set)) == MPI_ERR_ARG, "size 12");
    int32_t t = -1, f = 0;
    CHECK(cls(MPI_Abi_set_fortran_booleans(4, &t, &f)) == MPI_ERR_ABI, "booleans changed");
    CHECK(cls(MPI_Abi_set_fortran_booleans(5, &t, &f)) == MPI_ERR_ARG, "size 5");

    int32_t in[3] = {5, 0, 1}, io[3] = {1, 1, 0};
    CHECK(MPI_Reduce_local(in, io, 3, MPI_LOGICAL, MPI_LAND) == MPI_SUCCESS, "LAND");
    CHECK(io[0] == 1 && io[1] == 0 && io[2] == 0, "LAND: %d %d %d", io[0], io[1], io[2]);
    int8_t a1[2] = {0, 3}, b1[2] = {1, 1};
    CHECK(MPI_Reduce_local(a1, b1, 2, MPI_LOGICAL1, MPI_LOR) == MPI_SUCCESS && b1[0] == 1 && b1[1] == 1,
          "LOGICAL1 LOR: %d %d", b1[0], b1[1]);
    __int128 a16[2] = {0, 1}, b16[2] = {1, 1};
    CHECK(MPI_Reduce_local(a16, b16, 2, MPI_LOGICAL16, MPI_LXOR) == MPI_SUCCESS && b16[0] == 1 && b16[1] == 0,
          "LOGICAL16 LXOR");
    int sz = 0;
    CHECK(MPI_Type_size(MPI_LOGICAL8, &sz) == MPI_SUCCESS && sz == 8, "MPI_LOGICAL8 size %d", sz);
    printf("OK\n");
    MPI_Finalize();
    return 0;
}
