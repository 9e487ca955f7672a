/* ranks: 1 2 */
/* MPI_Type_create_f90_real/complex/integer and MPI_Type_match_size
 * (MPI-3.1 §17.1.9): (p, r) select the smallest kind that holds them (REAL
 * precision 6 / range 37, DOUBLE 15 / 307, long double 18 / 4931; INTEGER
 * ranges 2, 4, 9, 18), MPI_ERR_ARG when none does; the result is a
 * predefined type (MPI_Type_free refuses it) with combiner
 * MPI_COMBINER_F90_* and the arguments as contents, the same handle for the
 * same (p, r) as MPICH gives; it carries data like its named twin. */
#include "check.h"

static int rank, size;

static MPI_Datatype f90(int kind, int p, int r, int want_size)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = kind == 0 ? MPI_Type_create_f90_real(p, r, &t)
           : kind == 1 ? MPI_Type_create_f90_complex(p, r, &t)
                       : MPI_Type_create_f90_integer(r, &t);
    if (want_size < 0) {
        CHECK(rc == MPI_ERR_ARG, "kind %d (%d, %d): rc %d, want MPI_ERR_ARG", kind, p, r, rc);
        return MPI_DATATYPE_NULL;
    }
    CHECK(rc == MPI_SUCCESS, "kind %d (%d, %d): rc %d", kind, p, r, rc);
    int sz;
    MPI_Count szx, lb, ext;
    MPI_Type_size(t, &sz);
    MPI_Type_size_x(t, &szx);
    MPI_Type_get_extent_x(t, &lb, &ext);
    CHECK(sz == want_size && szx == want_size && lb == 0 && ext == want_size,
          "kind %d (%d, %d): size %d extent %lld, want %d", kind, p, r, sz, (long long)ext,
          want_size);
    int ni, na, nd, comb, ints[2];
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    int wcomb = kind == 0 ? MPI_COMBINER_F90_REAL
              : kind == 1 ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_INTEGER;
    CHECK(comb == wcomb && ni == (kind == 2 ? 1 : 2) && na == 0 && nd == 0,
          "envelope %d %d %d %d", comb, ni, na, nd);
    MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL);
    if (kind == 2)
        CHECK(ints[0] == r, "contents %d", ints[0]);
    else
        CHECK(ints[0] == p && ints[1] == r, "contents %d %d", ints[0], ints[1]);
    MPI_Aint xs;
    MPI_Pack_external_size("external32", 1, t, &xs);
    CHECK(xs == want_size, "external32 size %ld", (long)xs);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    const int U = MPI_UNDEFINED;

    MPI_Datatype r4 = f90(0, 6, 37, 4);
    f90(0, 7, 37, 8);
    f90(0, 6, 38, 8);
    f90(0, U, 37, 4);
    f90(0, 6, U, 4);
    MPI_Datatype r8 = f90(0, 15, 307, 8);
    f90(0, 16, U, 16);
    f90(0, U, 308, 16);
    f90(0, 18, 4931, 16);
    f90(0, 19, U, -1);   /* IEEE quad: no such C type here */
    f90(0, U, 4932, -1);
    f90(0, U, U, -1);
    f90(1, 6, 37, 8);
    f90(1, 15, U, 16);
    f90(1, 18, U, 32);
    f90(1, 34, 1, -1);
    f90(2, 0, 2, 1);
    f90(2, 0, 3, 2);
    f90(2, 0, 4, 2);
    f90(2, 0, 9, 4);
    f90(2, 0, 10, 8);
    f90(2, 0, 18, 8);
    f90(2, 0, 19, -1);

    /* the same (p, r) is the same type, another (p, r) another */
    MPI_Datatype again, other;
    MPI_Type_create_f90_real(6, 37, &again);
    MPI_Type_create_f90_real(5, 37, &other);
    CHECK(again == r4 && other != r4, "handles 0x%x 0x%x 0x%x", (unsigned)r4, (unsigned)again,
          (unsigned)other);

    /* predefined: not to be freed, and the handle stays usable */
    MPI_Datatype keep = r8;
    CHECK(MPI_Type_free(&keep) == MPI_ERR_TYPE && keep == r8, "Type_free of an f90 type");
    double sbuf[3] = {1.5, -2, 1e300}, rbuf[3] = {0, 0, 0};
    MPI_Sendrecv(sbuf, 3, r8, (rank + 1) % size, 3, rbuf, 3, r8, (rank - 1 + size) % size, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(rbuf[0] == 1.5 && rbuf[1] == -2 && rbuf[2] == 1e300, "data through the f90 type");
    double sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, r8, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size, "reduction over the f90 type: %g", sum);

    /* MPI_Type_match_size gives the named types */
    struct {
        int cls, size;
        MPI_Datatype want;
    } m[] = {
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},     {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2}, {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8}, {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int rc = MPI_Type_match_size(m[i].cls, m[i].size, &t);
        CHECK(rc == MPI_SUCCESS && t == m[i].want, "match_size(%d, %d): rc %d type 0x%x",
              m[i].cls, m[i].size, rc, (unsigned)t);
    }
    MPI_Datatype t;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t) == MPI_ERR_ARG, "2-byte real");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t) == MPI_ERR_ARG, "16-byte integer");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 4, &t) == MPI_ERR_ARG, "4-byte complex");
    CHECK(MPI_Type_match_size(99, 4, &t) == MPI_ERR_ARG, "typeclass 99");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, NULL) == MPI_ERR_ARG, "NULL datatype");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dtype_f90: OK\n");
    MPI_Finalize();
    return 0;
}
