/* ranks: 1 2 */
/* Large datatypes: committing a vector of 10^8 blocks is instant and costs no
 * memory (the type is a description, not a block list); a type of more than
 * 2^31 elements answers the _x queries at once with 64-bit values and the int
 * forms with MPI_UNDEFINED; Status_set_elements_x / Get_elements_x carry
 * counts past 2^32; a strided type of 2 * 10^6 blocks goes through
 * point-to-point in pieces intact. */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static int rank;

static long max_rss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* the vector of issue 11: 10^8 blocks of 4 ints, stride 3 items */
    long rss0 = max_rss_kb();
    double t0 = MPI_Wtime();
    MPI_Datatype four, vec;
    MPI_Type_contiguous(4, MPI_INT, &four);
    MPI_Type_vector(100000000, 1, 3, four, &vec);
    MPI_Type_commit(&vec);
    double dt = MPI_Wtime() - t0;
    long grown_mb = (max_rss_kb() - rss0) / 1024;
    CHECK(dt < 0.25, "building and committing the vector took %.3f s", dt);
    CHECK(grown_mb < 100, "building the vector grew the RSS by %ld MB", grown_mb);
    MPI_Count sz, lb, ext;
    MPI_Type_size_x(vec, &sz);
    MPI_Type_get_extent_x(vec, &lb, &ext);
    CHECK(sz == 1600000000LL && lb == 0 && ext == (100000000LL - 1) * 48 + 16,
          "vector size %lld lb %lld extent %lld", (long long)sz, (long long)lb, (long long)ext);

    /* 2^32 ints, not contiguous: 2^17 blocks (2^18 bytes apart) of a vector
     * of 2^15 ints with stride 2 */
    MPI_Datatype inner, big;
    MPI_Type_vector(1 << 15, 1, 2, MPI_INT, &inner);
    MPI_Type_create_hvector(1 << 17, 1, (MPI_Aint)1 << 18, inner, &big);
    MPI_Type_commit(&big);
    CHECK(MPI_Wtime() - t0 < 0.5, "building 2^32-element types took %.3f s", MPI_Wtime() - t0);
    MPI_Count inner_ext = ((1 << 15) - 1) * 8 + 4;
    MPI_Count tlb, text;
    MPI_Type_size_x(big, &sz);
    MPI_Type_get_extent_x(big, &lb, &ext);
    MPI_Type_get_true_extent_x(big, &tlb, &text);
    CHECK(sz == (MPI_Count)1 << 34, "size_x %lld", (long long)sz);
    CHECK(lb == 0 && ext == (((MPI_Count)1 << 17) - 1) * ((MPI_Count)1 << 18) + inner_ext,
          "extent_x lb %lld extent %lld", (long long)lb, (long long)ext);
    CHECK(tlb == 0 && text == ext, "true_extent_x %lld %lld", (long long)tlb, (long long)text);
    int isz = 0;
    MPI_Type_size(big, &isz);
    CHECK(isz == MPI_UNDEFINED, "MPI_Type_size of 2^34 bytes gives %d", isz);
    MPI_Aint alb, aext;
    MPI_Type_get_extent(big, &alb, &aext);
    CHECK(alb == 0 && aext == (MPI_Aint)ext, "get_extent %ld", (long)aext);

    /* element counts past 2^32 in a status */
    MPI_Status st;
    MPI_Count el;
    int iel, icount;
    MPI_Status_set_elements_x(&st, MPI_INT, ((MPI_Count)1 << 32) + 5);
    MPI_Get_elements_x(&st, big, &el);
    CHECK(el == ((MPI_Count)1 << 32) + 5, "Get_elements_x %lld", (long long)el);
    MPI_Get_elements(&st, big, &iel);
    CHECK(iel == MPI_UNDEFINED, "Get_elements beyond int gives %d", iel);
    MPI_Get_count(&st, big, &icount);
    CHECK(icount == MPI_UNDEFINED, "Get_count of 1 item + 5 ints gives %d", icount);
    MPI_Count bytes;
    MPI_Status_set_elements_x(&st, big, ((MPI_Count)1 << 32) + 5);
    MPI_Get_elements_x(&st, MPI_BYTE, &bytes);
    CHECK(bytes == ((MPI_Count)1 << 34) + 20, "set_elements_x(big) holds %lld bytes", (long long)bytes);
    MPI_Status_set_elements_x(&st, MPI_BYTE, ((MPI_Count)1 << 62) + 3);
    MPI_Get_elements_x(&st, MPI_BYTE, &el);
    CHECK(el == ((MPI_Count)1 << 62) + 3, "2^62 + 3 bytes read back as %lld", (long long)el);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int rc = MPI_Status_set_elements_x(&st, MPI_INT, (MPI_Count)1 << 62);
    CHECK(rc != MPI_SUCCESS, "2^64 bytes of elements accepted");
    /* sizes and spans past 2^63 are refused with MPI_ERR_ARG, not wrapped */
    MPI_Datatype d1, d2 = MPI_DATATYPE_NULL;
    int cls = 0;
    MPI_Type_contiguous(0x7fffffff, MPI_DOUBLE, &d1);
    rc = MPI_Type_contiguous(0x7fffffff, d1, &d2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "a 2^65-byte type: error class %d", cls);
    rc = MPI_Type_create_hvector(0x7fffffff, 1, (MPI_Aint)1 << 40, MPI_INT, &d2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "a 2^71-byte span: error class %d", cls);
    MPI_Datatype d3[2] = {d1, d1};
    int b3[2] = {0x7fffffff, 0x7fffffff};
    MPI_Aint p3[2] = {0, 0};
    rc = MPI_Type_create_struct(2, b3, p3, d3, &d2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "a 2^66-byte struct: error class %d", cls);
    MPI_Type_free(&d1);
    int pk = 0;
    rc = MPI_Pack_size(4, big, MPI_COMM_WORLD, &pk);
    CHECK(rc != MPI_SUCCESS, "Pack_size of 2^36 bytes gave %d", pk);

    /* a strided type of 2 * 10^6 single ints goes through p2p in pieces */
    int n = 2000000;
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int *a = malloc(sizeof(int) * 2 * (size_t)n), *b = calloc(2 * (size_t)n, sizeof(int));
    CHECK(a && b, "out of memory");
    for (int i = 0; i < 2 * n; i++)
        a[i] = i * 3 + rank;
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    MPI_Sendrecv(a, 1, strided, to, 7, b, 1, strided, from, 7, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 2 * n; i++) {
        int want = i % 2 ? 0 : i * 3 + from;
        if (b[i] != want)
            CHECK(0, "strided receive: b[%d] = %d, want %d", i, b[i], want);
    }
    MPI_Get_elements_x(&st, strided, &el);
    CHECK(el == n, "elements of the strided receive %lld", (long long)el);

    free(a);
    free(b);
    MPI_Type_free(&strided);
    MPI_Type_free(&big);
    MPI_Type_free(&inner);
    MPI_Type_free(&vec);
    MPI_Type_free(&four);
    MPI_Finalize();
    if (rank == 0)
        printf("ok\n");
    return 0;
}
