/* The ABI chapter's Fortran support in libmpi_abi.so, newer than the
 * reference header: built with mpicc -abi (railmpi's include/abi/mpi.h).
 * MPI_Abi_get_fortran_info answers every key; MPI_Abi_set_fortran_info takes
 * a layer's info once (a contradiction or a second call is MPI_ERR_ABI, a
 * malformed value MPI_ERR_INFO_VALUE, neither uses up the one call);
 * MPI_Abi_set_fortran_booleans gives .TRUE. = -1 once, and LAND/LOR/LXOR
 * on MPI_LOGICAL (and MPI_LOGICAL4) then read and write -1 and 0, LOGICAL*1
 * and *8 keep 1 and 0; MPI_REAL2 stays invalid; argument errors. 2 ranks. */
#include <mpi.h>
#include "std_check.h"
#include <stdint.h>
#include <string.h>

static const char *const want[][2] = {
    {"mpi_logical_size", "4"},         {"mpi_integer_size", "4"},
    {"mpi_real_size", "4"},            {"mpi_double_precision_size", "8"},
    {"mpi_logical1_supported", "true"}, {"mpi_logical2_supported", "true"},
    {"mpi_logical4_supported", "true"}, {"mpi_logical8_supported", "true"},
    {"mpi_logical16_supported", "true"}, {"mpi_integer1_supported", "true"},
    {"mpi_integer2_supported", "true"}, {"mpi_integer4_supported", "true"},
    {"mpi_integer8_supported", "true"}, {"mpi_integer16_supported", "false"},
    {"mpi_real2_supported", "false"},  {"mpi_real4_supported", "true"},
    {"mpi_real8_supported", "true"},   {"mpi_real16_supported", "false"},
    {"mpi_complex4_supported", "false"}, {"mpi_complex8_supported", "true"},
    {"mpi_complex16_supported", "true"}, {"mpi_complex32_supported", "false"},
    {"mpi_double_complex_supported", "true"},
};
#define NWANT (int)(sizeof want / sizeof want[0])

static int cls(int rc)
{
    int c = -1;
    MPI_Error_class(rc, &c);
    return c;
}

/* every key with its value, except that key `other` has `otherval` */
static void check_info(const char *other, const char *otherval)
{
    MPI_Info info = MPI_INFO_NULL;
    OK(MPI_Abi_get_fortran_info(&info));
    CHECK(info != MPI_INFO_NULL, "no info");
    int n = 0;
    OK(MPI_Info_get_nkeys(info, &n));
    CHECK(n == NWANT, "%d keys, want %d", n, NWANT);
    for (int i = 0; i < NWANT; i++) {
        char v[64];
        int len = sizeof v, flag = 0;
        OK(MPI_Info_get_string(info, want[i][0], &len, v, &flag));
        const char *w = other && !strcmp(other, want[i][0]) ? otherval : want[i][1];
        CHECK(flag && !strcmp(v, w), "%s: flag %d '%s', want '%s'", want[i][0], flag, flag ? v : "", w);
    }
    OK(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    /* the error class */
    CHECK(MPI_ERR_ABI == 62, "MPI_ERR_ABI %d", MPI_ERR_ABI);
    CHECK(cls(MPI_ERR_ABI) == MPI_ERR_ABI, "class of MPI_ERR_ABI: %d", cls(MPI_ERR_ABI));
    char str[MPI_MAX_ERROR_STRING];
    int slen = 0;
    OK(MPI_Error_string(MPI_ERR_ABI, str, &slen));
    CHECK(strstr(str, "MPI_ERR_ABI") != NULL, "string '%s'", str);

    /* the library's own answers */
    check_info(NULL, NULL);
    CHECK(cls(MPI_Abi_get_fortran_info(NULL)) == MPI_ERR_ARG, "NULL info");

    /* set_fortran_info: errors first (none uses up the one call) */
    MPI_Info layer;
    OK(MPI_Info_create(&layer));
    OK(MPI_Info_set(layer, "mpi_integer_size", "8"));
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_ABI, "INTEGER*8 layer accepted");
    OK(MPI_Info_set(layer, "mpi_integer_size", "four"));
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_INFO_VALUE, "size 'four' accepted");
    OK(MPI_Info_set(layer, "mpi_integer_size", "4"));
    OK(MPI_Info_set(layer, "mpi_integer8_supported", "maybe"));
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_INFO_VALUE, "'maybe' accepted");
    CHECK(cls(MPI_Abi_set_fortran_info(MPI_INFO_NULL)) == MPI_ERR_INFO, "MPI_INFO_NULL accepted");
    /* a layer whose compiler has no INTEGER*8, and REAL*16 (the library
     * still does not claim it) */
    OK(MPI_Info_set(layer, "mpi_integer8_supported", "false"));
    OK(MPI_Info_set(layer, "mpi_real16_supported", "true"));
    OK(MPI_Info_set(layer, "mpi_logical_size", "4"));
    OK(MPI_Abi_set_fortran_info(layer));
    CHECK(cls(MPI_Abi_set_fortran_info(layer)) == MPI_ERR_ABI, "second MPI_Abi_set_fortran_info");
    OK(MPI_Info_free(&layer));
    check_info("mpi_integer8_supported", "false");

    /* booleans: not set in this library until a layer sets them */
    int32_t t = 7, f = 7;
    int is_set = -1;
    OK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    CHECK(!is_set && t == 1 && f == 0, "before: set %d true %d false %d", is_set, t, f);
    CHECK(cls(MPI_Abi_get_fortran_booleans(3, &t, &f, &is_set)) == MPI_ERR_ARG, "get size 3");
    CHECK(cls(MPI_Abi_get_fortran_booleans(4, NULL, &f, &is_set)) == MPI_ERR_ARG, "get NULL true");
    CHECK(cls(MPI_Abi_get_fortran_booleans(4, &t, &f, NULL)) == MPI_ERR_ARG, "get NULL is_set");
    int32_t nt = -1, nf = 0;
    CHECK(cls(MPI_Abi_set_fortran_booleans(6, &nt, &nf)) == MPI_ERR_ARG, "set size 6");
    CHECK(cls(MPI_Abi_set_fortran_booleans(0, &nt, &nf)) == MPI_ERR_ARG, "set size 0");
    CHECK(cls(MPI_Abi_set_fortran_booleans(4, &nt, NULL)) == MPI_ERR_ARG, "set NULL false");
    CHECK(cls(MPI_Abi_set_fortran_booleans(4, &nf, &nf)) == MPI_ERR_ARG, "true == false");
    OK(MPI_Abi_set_fortran_booleans(4, &nt, &nf));
    CHECK(cls(MPI_Abi_set_fortran_booleans(4, &nt, &nf)) == MPI_ERR_ABI, "second set");
    OK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    CHECK(is_set && t == -1 && f == 0, "after: set %d true %d false %d", is_set, t, f);
    int64_t t8 = 9, f8 = 9;
    OK(MPI_Abi_get_fortran_booleans(8, &t8, &f8, &is_set));
    CHECK(!is_set && t8 == 1 && f8 == 0, "LOGICAL*8: set %d true %lld false %lld", is_set,
          (long long)t8, (long long)f8);

    /* reductions on LOGICAL data with .TRUE. = -1 */
    const int32_t T = -1, F = 0;
    int32_t mine[4], out[4];
    const int32_t r0[4] = {T, T, F, F}, r1[4] = {T, F, T, F};
    memcpy(mine, std_rank ? r1 : r0, sizeof mine);
    static const struct {
        const char *name;
        int32_t want[4];
    } res[3] = {{"LAND", {T, F, F, F}}, {"LOR", {T, T, T, F}}, {"LXOR", {F, T, T, F}}};
    MPI_Op ops[3] = {MPI_LAND, MPI_LOR, MPI_LXOR};
    for (int o = 0; o < 3; o++) {
        OK(MPI_Allreduce(mine, out, 4, MPI_LOGICAL, ops[o], MPI_COMM_WORLD));
        for (int i = 0; i < 4; i++)
            CHECK(out[i] == res[o].want[i], "%s [%d] = %d, want %d", res[o].name, i, out[i],
                  res[o].want[i]);
        /* also through a root and the in-place form */
        memcpy(out, mine, sizeof out);
        OK(MPI_Reduce(std_rank ? out : MPI_IN_PLACE, out, 4, MPI_LOGICAL, ops[o], 0, MPI_COMM_WORLD));
        for (int i = 0; i < 4 && std_rank == 0; i++)
            CHECK(out[i] == res[o].want[i], "Reduce %s [%d] = %d", res[o].name, i, out[i]);
    }
    /* MPI_LOGICAL4 is the same LOGICAL; LOGICAL*1 and *8 keep 1 and 0 */
    OK(MPI_Allreduce(mine, out, 4, MPI_LOGICAL4, MPI_LOR, MPI_COMM_WORLD));
    for (int i = 0; i < 4; i++)
        CHECK(out[i] == res[1].want[i], "LOGICAL4 LOR [%d] = %d", i, out[i]);
    int8_t m1[3] = {(int8_t)(std_rank ? 0 : 1), 1, 0}, o1[3];
    OK(MPI_Allreduce(m1, o1, 3, MPI_LOGICAL1, MPI_LXOR, MPI_COMM_WORLD));
    CHECK(o1[0] == 1 && o1[1] == 0 && o1[2] == 0, "LOGICAL1 LXOR: %d %d %d", o1[0], o1[1], o1[2]);
    int64_t m8[2] = {std_rank ? 0 : 1, 1}, o8[2];
    OK(MPI_Allreduce(m8, o8, 2, MPI_LOGICAL8, MPI_LAND, MPI_COMM_WORLD));
    CHECK(o8[0] == 0 && o8[1] == 1, "LOGICAL8 LAND: %lld %lld", (long long)o8[0], (long long)o8[1]);
    int sz = 0;
    OK(MPI_Type_size(MPI_LOGICAL16, &sz));
    CHECK(sz == 16, "MPI_LOGICAL16 size %d", sz);
    OK(MPI_Type_size(MPI_LOGICAL2, &sz));
    CHECK(sz == 2, "MPI_LOGICAL2 size %d", sz);
    CHECK(cls(MPI_Allreduce(m8, o8, 2, MPI_LOGICAL8, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_OP,
          "SUM on LOGICAL8 accepted");
    /* still not the engine's: REAL2, COMPLEX4, INTEGER16 */
    CHECK(cls(MPI_Type_size(MPI_REAL2, &sz)) == MPI_ERR_TYPE, "MPI_REAL2 valid");

    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
