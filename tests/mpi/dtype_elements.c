/* ranks: 1 2 */
/* MPI_Get_elements(_x) and MPI_Get_count after receives of derived and pair
 * types (MPI-3.1 §4.1.11): a partial receive of a struct type counts the basic
 * elements that arrived, MPI_UNDEFINED only when the data ends inside one;
 * each pair type (MPI_FLOAT_INT, MPI_2INT, ...) is two basic elements;
 * MPI_Status_set_elements is the inverse. Types of only MPI_LB / MPI_UB
 * markers take the bounds they mark (MPICH: {(MPI_LB, 10)} has lb 10 and
 * extent -10). */
#include "check.h"

#include <string.h>

static int rank, size;

/* Send `bytes` bytes to the next rank, receive them as (count, type) from the
 * previous one, and return the status. */
static MPI_Status xfer(int bytes, int count, MPI_Datatype type)
{
    char sbuf[512], rbuf[1024];
    for (int i = 0; i < (int)sizeof sbuf; i++)
        sbuf[i] = (char)i;
    MPI_Status st;
    MPI_Sendrecv(sbuf, bytes, MPI_BYTE, (rank + 1) % size, 5, rbuf, count, type,
                 (rank - 1 + size) % size, 5, MPI_COMM_WORLD, &st);
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* struct {2 int @0, double @8, 3 char @16}: 19 bytes, 6 elements */
    MPI_Datatype s;
    int bl[3] = {2, 1, 3};
    MPI_Aint dp[3] = {0, 8, 16};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, dp, ty, &s);
    MPI_Type_commit(&s);
    struct {
        int bytes, elems, count;
    } cases[] = {{0, 0, 0},        {4, 1, MPI_UNDEFINED},  {8, 2, MPI_UNDEFINED},
                 {16, 3, MPI_UNDEFINED}, {17, 4, MPI_UNDEFINED}, {19, 6, 1},
                 {23, 7, MPI_UNDEFINED}, {35, 9, MPI_UNDEFINED}, {38, 12, 2},
                 {6, MPI_UNDEFINED, MPI_UNDEFINED}, {20, MPI_UNDEFINED, MPI_UNDEFINED}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Status st = xfer(cases[i].bytes, 4, s);
        int el, cnt;
        MPI_Count elx;
        MPI_Get_elements(&st, s, &el);
        MPI_Get_elements_x(&st, s, &elx);
        MPI_Get_count(&st, s, &cnt);
        CHECK(el == cases[i].elems && elx == cases[i].elems && cnt == cases[i].count,
              "struct, %d bytes: elements %d (_x %lld) count %d, want %d and %d", cases[i].bytes,
              el, (long long)elx, cnt, cases[i].elems, cases[i].count);
    }
    /* the inverse: Status_set_elements then count the bytes */
    int setb[][2] = {{0, 0}, {1, 4}, {2, 8}, {3, 16}, {4, 17}, {6, 19}, {7, 23}, {12, 38}};
    for (size_t i = 0; i < sizeof setb / sizeof setb[0]; i++) {
        MPI_Status st;
        int b, el;
        MPI_Status_set_elements(&st, s, setb[i][0]);
        MPI_Get_count(&st, MPI_BYTE, &b);
        MPI_Get_elements(&st, s, &el);
        CHECK(b == setb[i][1] && el == setb[i][0], "set_elements(%d): %d bytes, %d elements",
              setb[i][0], b, el);
    }

    /* pair types: two basic elements each; a lone first member is one */
    struct {
        MPI_Datatype t;
        const char *name;
        int first; /* size of the first member */
    } pairs[] = {{MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(float)},
                 {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(double)},
                 {MPI_LONG_INT, "MPI_LONG_INT", sizeof(long)},
                 {MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(short)},
                 {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 16},
                 {MPI_2INT, "MPI_2INT", sizeof(int)}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        int psz, el, cnt;
        MPI_Type_size(pairs[i].t, &psz);
        MPI_Status st = xfer(3 * psz, 3, pairs[i].t);
        MPI_Get_elements(&st, pairs[i].t, &el);
        MPI_Get_count(&st, pairs[i].t, &cnt);
        CHECK(el == 6 && cnt == 3, "%s: 3 items give %d elements, count %d", pairs[i].name, el, cnt);
        st = xfer(2 * psz + pairs[i].first, 3, pairs[i].t);
        MPI_Get_elements(&st, pairs[i].t, &el);
        MPI_Get_count(&st, pairs[i].t, &cnt);
        CHECK(el == 5 && cnt == MPI_UNDEFINED, "%s: 2.5 items give %d elements, count %d",
              pairs[i].name, el, cnt);
        MPI_Datatype v;
        MPI_Type_contiguous(2, pairs[i].t, &v);
        MPI_Type_commit(&v);
        st = xfer(psz + pairs[i].first, 1, v);
        MPI_Get_elements(&st, v, &el);
        CHECK(el == 3, "%s: contiguous(2) with 1.5 items gives %d elements", pairs[i].name, el);
        MPI_Type_free(&v);
    }

    /* markers only */
    MPI_Aint lb, ext;
    MPI_Datatype lbt[2] = {MPI_LB, MPI_UB}, m;
    int one[2] = {1, 1};
    MPI_Aint d10[2] = {10, 20};
    MPI_Type_struct(1, one, d10, lbt, &m);
    MPI_Type_get_extent(m, &lb, &ext);
    CHECK(lb == 10 && ext == -10, "{(LB,10)}: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Type_free(&m);
    MPI_Type_struct(1, one, d10 + 1, lbt + 1, &m);
    MPI_Type_get_extent(m, &lb, &ext);
    CHECK(lb == 0 && ext == 20, "{(UB,20)}: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Type_free(&m);
    MPI_Type_struct(2, one, d10, lbt, &m);
    MPI_Type_get_extent(m, &lb, &ext);
    CHECK(lb == 10 && ext == 10, "{(LB,10),(UB,20)}: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Type_free(&m);
    MPI_Datatype li[2] = {MPI_LB, MPI_INT};
    MPI_Aint d30[2] = {30, 20};
    MPI_Type_struct(2, one, d30, li, &m);
    MPI_Type_get_extent(m, &lb, &ext);
    CHECK(lb == 30 && ext == -6, "{(LB,30),(INT,20)}: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Datatype c3;
    MPI_Type_contiguous(3, m, &c3);
    MPI_Type_get_extent(c3, &lb, &ext);
    CHECK(lb == 18 && ext == 6, "contiguous(3) of it: lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Type_free(&c3);
    MPI_Type_free(&m);

    MPI_Type_free(&s);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}
