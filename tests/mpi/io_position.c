/* ranks: 1 2 4 */
/* The individual file pointer after an access that runs into the end of the
 * file moves by the amount requested (MPI-4.1 14.4.3), as after the
 * nonblocking forms, and not by what the file happened to hold: the steps
 * of a third-party test (a struct etype and filetype of 11 mixed members,
 * the file written packed through the default view by rank 0, then
 * set_view, seek to rank * N, read N, get_position) gave a position that
 * depended on the file's size, so on what earlier accesses had left in it.
 * The status still counts what was read. */
static int rank, size;

#include "io_common.h"

#include <stddef.h>

#define N 10

struct mix {
    char c;
    short h;
    int i;
    long l;
    float f;
    double d;
    char c2;
    long long ll;
    unsigned u;
    signed char sc;
    double d2;
};

/* the members: offsets, sizes, types */
static const int moff[11] = {offsetof(struct mix, c),  offsetof(struct mix, h),
                             offsetof(struct mix, i),  offsetof(struct mix, l),
                             offsetof(struct mix, f),  offsetof(struct mix, d),
                             offsetof(struct mix, c2), offsetof(struct mix, ll),
                             offsetof(struct mix, u),  offsetof(struct mix, sc),
                             offsetof(struct mix, d2)};
static const int msz[11] = {sizeof(char),      sizeof(short),    sizeof(int),      sizeof(long),
                            sizeof(float),     sizeof(double),   sizeof(char),     sizeof(long long),
                            sizeof(unsigned),  sizeof(signed char), sizeof(double)};

static MPI_Datatype mix_type(void)
{
    int bl[11];
    MPI_Aint d[11];
    MPI_Datatype ty[11] = {MPI_CHAR,     MPI_SHORT,       MPI_INT,   MPI_LONG,
                           MPI_FLOAT,    MPI_DOUBLE,      MPI_CHAR,  MPI_LONG_LONG,
                           MPI_UNSIGNED, MPI_SIGNED_CHAR, MPI_DOUBLE};
    for (int m = 0; m < 11; m++) {
        bl[m] = 1;
        d[m] = moff[m];
    }
    MPI_Datatype t;
    MPI_Type_create_struct(11, bl, d, ty, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Rank 0 writes `items` elements of t packed through the default view
 * (what the test's set-up does), truncating what was there. */
static void fill(const char *path, MPI_Datatype t, int items)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_size(fh, 0);
    if (rank == 0 && items > 0) {
        struct mix *b = calloc((size_t)items, sizeof *b);
        MPI_File_write(fh, b, items, t, MPI_STATUS_IGNORE);
        free(b);
    }
    MPI_File_close(&fh);
}

/* set_view(t, t), seek to rank * N, read N (blocking, _all or nonblocking);
 * the position after it, and the elements the status counts. */
static MPI_Offset read_pos(const char *path, MPI_Datatype t, int how, int *elements)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset pos;
    struct mix b[N];
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, t, t, "native", MPI_INFO_NULL);
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    int err;
    if (how == 0) {
        err = MPI_File_read(fh, b, N, t, &st);
    } else if (how == 1) {
        err = MPI_File_read_all(fh, b, N, t, &st);
    } else {
        err = MPI_File_iread(fh, b, N, t, &rq);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&rq, &st);
    }
    CHECK(err == MPI_SUCCESS, "read (form %d) failed: %d", how, err);
    MPI_File_get_position(fh, &pos);
    MPI_File_close(&fh);
    MPI_Get_elements(&st, t, elements);
    return pos;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512];
    io_path(path, sizeof path, "position.dat");
    MPI_Datatype t = mix_type();
    int tsize;
    MPI_Aint lb, ext;
    MPI_Type_size(t, &tsize);
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(ext > tsize, "the struct has no holes (size %d, extent %ld)", tsize, (long)ext);

    /* the file as the test leaves it (size * N elements packed, shorter than
     * the view's size * N elements of extent bytes), then as earlier tests
     * left it: empty, and long enough for every read */
    const int fills[3] = {size * N, 0, (int)(size * N * ext / tsize) + 1};
    for (int k = 0; k < 3; k++) {
        fill(path, t, fills[k]);
        MPI_Offset have = (MPI_Offset)fills[k] * tsize; /* bytes in the file */
        for (int how = 0; how < 3; how++) {
            int elements;
            MPI_Offset pos = read_pos(path, t, how, &elements);
            CHECK(pos == (MPI_Offset)rank * N + N,
                  "file of %lld bytes, read form %d: position %lld, expected %d", (long long)have,
                  how, (long long)pos, rank * N + N);
            /* basic elements the file held for this rank: 11 per whole
             * element in the view, and the members of a cut one; a member
             * the end of the file cuts leaves the count undefined */
            MPI_Offset start = (MPI_Offset)rank * N * ext;
            int expect = 0, cut = 0;
            for (int e = 0; e < N; e++)
                for (int m = 0; m < 11; m++) {
                    MPI_Offset at = start + e * ext + moff[m];
                    if (at + msz[m] <= have)
                        expect++;
                    else if (at < have)
                        cut = 1;
                }
            if (cut)
                expect = MPI_UNDEFINED;
            CHECK(elements == expect, "file of %lld bytes, read form %d: %d basic elements, expected %d",
                  (long long)have, how, elements, expect);
        }
    }

    /* a contiguous view: the pointer moves by the count asked for too */
    fill(path, t, 0);
    MPI_File fh;
    MPI_Status st;
    int in[2 * N] = {0}, cnt;
    MPI_Offset pos;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rank == 0)
        MPI_File_write(fh, in, N + N / 2, MPI_INT, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_seek(fh, (MPI_Offset)rank * N, MPI_SEEK_SET);
    MPI_File_read(fh, in, N, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    MPI_File_get_position(fh, &pos);
    int want = rank == 0 ? N : rank == 1 ? N / 2 : 0;
    CHECK(cnt == want, "contiguous read past the end: count %d, expected %d", cnt, want);
    CHECK(pos == (MPI_Offset)rank * N + N, "contiguous read past the end: position %lld",
          (long long)pos);
    MPI_File_close(&fh);

    MPI_Type_free(&t);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_position\n");
    return 0;
}
