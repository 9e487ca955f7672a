/* ranks: 1 3 */
/* MPI_Type_get_value_index (MPI-4.1): each (value, index) combination the
 * standard predefines gives its pair type, which works in an
 * MPI_Allreduce with MPI_MINLOC; any other combination gives
 * MPI_DATATYPE_NULL; invalid handles are MPI_ERR_TYPE, a NULL result
 * pointer MPI_ERR_ARG. */
#include <mpi.h>

#include "check.h"

static int rank, size;

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    static const struct {
        MPI_Datatype v, i, pair;
        const char *name;
    } want[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT, "MPI_FLOAT_INT"},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
        {MPI_LONG, MPI_INT, MPI_LONG_INT, "MPI_LONG_INT"},
        {MPI_INT, MPI_INT, MPI_2INT, "MPI_2INT"},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT, "MPI_SHORT_INT"},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
        {MPI_REAL, MPI_REAL, MPI_2REAL, "MPI_2REAL"},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER, "MPI_2INTEGER"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        CHECK(MPI_Type_get_value_index(want[k].v, want[k].i, &t) == MPI_SUCCESS, "%s: failed", want[k].name);
        CHECK(t == want[k].pair, "%s: got 0x%x", want[k].name, (unsigned)t);
    }
    /* combinations without a predefined pair */
    MPI_Datatype t = MPI_INT;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t);
    CHECK(t == MPI_DATATYPE_NULL, "(double, long): 0x%x", (unsigned)t);
    t = MPI_INT;
    MPI_Type_get_value_index(MPI_INT, MPI_DOUBLE, &t);
    CHECK(t == MPI_DATATYPE_NULL, "(int, double): 0x%x", (unsigned)t);
    /* the answer is a working type: MINLOC over (value, rank) pairs */
    struct {
        double v;
        int i;
    } in = {100.0 - rank, rank}, out = {0, -1};
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t);
    MPI_Allreduce(&in, &out, 1, t, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(out.v == 100.0 - (size - 1) && out.i == size - 1, "MINLOC: %g at %d", out.v, out.i);
    expect(MPI_Type_get_value_index((MPI_Datatype)0x4c00ffff, MPI_INT, &t), MPI_ERR_TYPE, "bad value_type");
    expect(MPI_Type_get_value_index(MPI_INT, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE, "null index_type");
    expect(MPI_Type_get_value_index(MPI_INT, MPI_INT, NULL), MPI_ERR_ARG, "NULL pair_type");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
