/* ranks: 1 */
/* Every predefined datatype's name is MPICH's (programs compare against
 * them): MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one handle, named
 * "MPI_C_COMPLEX"; MPI_LONG_LONG is MPI_LONG_LONG_INT. The strings were read
 * from MPICH 4.0.2's MPI_Type_get_name. A derived type's name starts empty
 * and MPI_Type_set_name / get_name round-trip, also on a predefined type. */
#include "check.h"

#include <string.h>

static int rank;

static const struct {
    MPI_Datatype type;
    const char *name;
} names[] = {
    {MPI_CHAR, "MPI_CHAR"},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"},
    {MPI_BYTE, "MPI_BYTE"},
    {MPI_WCHAR, "MPI_WCHAR"},
    {MPI_SHORT, "MPI_SHORT"},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"},
    {MPI_INT, "MPI_INT"},
    {MPI_UNSIGNED, "MPI_UNSIGNED"},
    {MPI_LONG, "MPI_LONG"},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"},
    {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
    {MPI_FLOAT, "MPI_FLOAT"},
    {MPI_DOUBLE, "MPI_DOUBLE"},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
    {MPI_PACKED, "MPI_PACKED"},
    {MPI_LB, "MPI_LB"},
    {MPI_UB, "MPI_UB"},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT"},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
    {MPI_LONG_INT, "MPI_LONG_INT"},
    {MPI_SHORT_INT, "MPI_SHORT_INT"},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
    {MPI_2INT, "MPI_2INT"},
    {MPI_INT8_T, "MPI_INT8_T"},
    {MPI_INT16_T, "MPI_INT16_T"},
    {MPI_INT32_T, "MPI_INT32_T"},
    {MPI_INT64_T, "MPI_INT64_T"},
    {MPI_UINT8_T, "MPI_UINT8_T"},
    {MPI_UINT16_T, "MPI_UINT16_T"},
    {MPI_UINT32_T, "MPI_UINT32_T"},
    {MPI_UINT64_T, "MPI_UINT64_T"},
    {MPI_C_BOOL, "MPI_C_BOOL"},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"},
    {MPI_C_COMPLEX, "MPI_C_COMPLEX"},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {MPI_AINT, "MPI_AINT"},
    {MPI_OFFSET, "MPI_OFFSET"},
    {MPI_COUNT, "MPI_COUNT"},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {MPI_CHARACTER, "MPI_CHARACTER"},
    {MPI_LOGICAL, "MPI_LOGICAL"},
    {MPI_INTEGER, "MPI_INTEGER"},
    {MPI_REAL, "MPI_REAL"},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
    {MPI_COMPLEX, "MPI_COMPLEX"},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
    {MPI_2INTEGER, "MPI_2INTEGER"},
    {MPI_2REAL, "MPI_2REAL"},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
    {MPI_INTEGER1, "MPI_INTEGER1"},
    {MPI_INTEGER2, "MPI_INTEGER2"},
    {MPI_INTEGER4, "MPI_INTEGER4"},
    {MPI_INTEGER8, "MPI_INTEGER8"},
    {MPI_REAL4, "MPI_REAL4"},
    {MPI_REAL8, "MPI_REAL8"},
    {MPI_REAL16, "MPI_REAL16"},
    {MPI_COMPLEX8, "MPI_COMPLEX8"},
    {MPI_COMPLEX16, "MPI_COMPLEX16"},
    {MPI_COMPLEX32, "MPI_COMPLEX32"},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char got[MPI_MAX_OBJECT_NAME];
    int len;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        memset(got, 'x', sizeof got);
        len = -1;
        CHECK(MPI_Type_get_name(names[i].type, got, &len) == MPI_SUCCESS, "get_name %s failed",
              names[i].name);
        CHECK(!strcmp(got, names[i].name) && len == (int)strlen(names[i].name),
              "handle 0x%x is named '%s' (len %d), MPICH says '%s'", (unsigned)names[i].type, got,
              len, names[i].name);
    }
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, got, &len);
    CHECK(len == 0 && got[0] == 0, "a new derived type is named '%s'", got);
    MPI_Type_set_name(t, "pair of ints");
    MPI_Type_get_name(t, got, &len);
    CHECK(!strcmp(got, "pair of ints") && len == 12, "set_name/get_name: '%s'", got);
    MPI_Type_free(&t);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}
