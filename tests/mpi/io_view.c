/* ranks: 1 2 3 4 */
/* MPI-IO views (MPI-3.1 13.3, 13.5): a 2-D array written through subarray
 * filetypes by every process (from memory with ghost cells) is the same file
 * as the array written in one piece, and reads back through the views, with
 * and without data sieving; darray views; etypes, displacements, seek and
 * get_byte_offset in a view; get_view; "external32" bytes; a registered
 * representation's conversions; unknown and duplicate representations;
 * atomic mode with overlapping noncontiguous writers. */
static int rank, size;

#include "io_common.h"

#define ROWS 24
#define COLS 30

static int xor_calls;

static int xor_conv(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                    void *extra)
{
    (void)position;
    (void)extra;
    CHECK(type == MPI_INT, "conversion of type 0x%x", (unsigned)type);
    unsigned *u = userbuf, *f = filebuf;
    for (int i = 0; i < count; i++)
        f[i] = u[i] ^ 0x5a5a5a5au;
    xor_calls++;
    return MPI_SUCCESS;
}

static int xor_read(void *userbuf, MPI_Datatype type, int count, void *filebuf, MPI_Offset position,
                    void *extra)
{
    (void)position;
    (void)extra;
    CHECK(type == MPI_INT, "conversion of type 0x%x", (unsigned)type);
    unsigned *u = userbuf, *f = filebuf;
    for (int i = 0; i < count; i++)
        u[i] = f[i] ^ 0x5a5a5a5au;
    xor_calls++;
    return MPI_SUCCESS;
}

static int xor_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(type, &lb, extent);
}

static int get_int(const unsigned char *b, long i)
{
    int v;
    memcpy(&v, b + i * 4, 4);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    io_dir_make();
    char path[512], seq[512];
    io_path(path, sizeof path, "view.dat");
    io_path(seq, sizeof seq, "seq.dat");
    MPI_File fh;
    MPI_Status st;
    int err, n;
    long len, slen;

    /* the reference: the whole array in one write by rank 0 */
    if (rank == 0) {
        int *a = malloc(sizeof(int) * ROWS * COLS);
        for (int i = 0; i < ROWS * COLS; i++)
            a[i] = i;
        MPI_File_open(MPI_COMM_SELF, seq, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
        MPI_File_write(fh, a, ROWS * COLS, MPI_INT, &st);
        MPI_File_close(&fh);
        free(a);
    }

    /* a block decomposition; local blocks carry one ghost cell all round */
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 2, coords);
    int gsz[2] = {ROWS, COLS}, lsz[2], start[2];
    for (int d = 0; d < 2; d++) {
        int q = gsz[d] / dims[d], rem = gsz[d] % dims[d];
        lsz[d] = q + (coords[d] < rem);
        start[d] = coords[d] * q + (coords[d] < rem ? coords[d] : rem);
    }
    MPI_Datatype ftype, mtype;
    MPI_Type_create_subarray(2, gsz, lsz, start, MPI_ORDER_C, MPI_INT, &ftype);
    MPI_Type_commit(&ftype);
    int msz[2] = {lsz[0] + 2, lsz[1] + 2}, mstart[2] = {1, 1};
    MPI_Type_create_subarray(2, msz, lsz, mstart, MPI_ORDER_C, MPI_INT, &mtype);
    MPI_Type_commit(&mtype);
    int *local = malloc(sizeof(int) * (size_t)msz[0] * msz[1]);
    for (int i = 0; i < msz[0] * msz[1]; i++)
        local[i] = -1;
    for (int i = 0; i < lsz[0]; i++)
        for (int j = 0; j < lsz[1]; j++)
            local[(i + 1) * msz[1] + j + 1] = (start[0] + i) * COLS + start[1] + j;

    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    err = MPI_File_set_view(fh, 0, MPI_INT, ftype, "no-such-rep", MPI_INFO_NULL);
    CHECK(io_class(err) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: %d", err);
    err = MPI_File_set_view(fh, -4, MPI_INT, ftype, "native", MPI_INFO_NULL);
    CHECK(io_class(err) == MPI_ERR_ARG, "negative disp: %d", err);
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_CHAR, &three);
    MPI_Type_commit(&three);
    err = MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL);
    CHECK(io_class(err) == MPI_ERR_ARG, "filetype not made of etypes: %d", err);
    MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL);
    err = MPI_File_write_all(fh, local, 1, three, &st);
    CHECK(io_class(err) == MPI_ERR_IO, "memory type not made of etypes: %d", err);
    MPI_Type_free(&three);

    MPI_File_write_all(fh, local, 1, mtype, &st);
    MPI_Get_count(&st, mtype, &n);
    CHECK(n == 1, "write_all count %d", n);
    MPI_Offset pos, byte;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == (MPI_Offset)lsz[0] * lsz[1], "position in etypes %lld", (long long)pos);
    MPI_File_get_byte_offset(fh, lsz[1] + 1, &byte);
    CHECK(byte == ((MPI_Offset)(start[0] + 1) * COLS + start[1] + 1) * 4, "byte offset %lld",
          (long long)byte);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unsigned char *a = io_slurp(path, &len), *b = io_slurp(seq, &slen);
        CHECK(len == slen && !memcmp(a, b, (size_t)len), "the subarray file differs from the sequential one");
        free(a);
        free(b);
    }

    /* read back through the view, with sieving and without */
    for (int pass = 0; pass < 2; pass++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_ds_read", pass ? "disable" : "enable");
        MPI_Info_set(info, "ind_rd_buffer_size", "256");
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
        MPI_Info_free(&info);
        MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL);
        int *back = calloc((size_t)msz[0] * msz[1], sizeof(int));
        MPI_File_read_all(fh, back, 1, mtype, &st);
        for (int i = 0; i < msz[0]; i++)
            for (int j = 0; j < msz[1]; j++) {
                int inside = i > 0 && j > 0 && i <= lsz[0] && j <= lsz[1];
                int want = inside ? (start[0] + i - 1) * COLS + start[1] + j - 1 : 0;
                CHECK(back[i * msz[1] + j] == want, "pass %d: read back (%d,%d) = %d, want %d", pass,
                      i, j, back[i * msz[1] + j], want);
            }
        /* etype offsets within the view */
        int v;
        MPI_File_read_at(fh, lsz[1], &v, 1, MPI_INT, &st);
        CHECK(v == (start[0] + 1) * COLS + start[1], "read_at in the view: %d", v);
        MPI_File_seek(fh, 0, MPI_SEEK_END);
        MPI_File_get_position(fh, &pos);
        CHECK(pos == (MPI_Offset)lsz[0] * lsz[1], "SEEK_END in the view: %lld", (long long)pos);
        MPI_Offset disp;
        MPI_Datatype et, ft;
        char rep[MPI_MAX_DATAREP_STRING];
        MPI_File_get_view(fh, &disp, &et, &ft, rep);
        CHECK(disp == 0 && et == MPI_INT && !strcmp(rep, "native"), "get_view");
        int fsz, gsz_;
        MPI_Type_size(ft, &fsz);
        MPI_Type_size(ftype, &gsz_);
        CHECK(fsz == gsz_, "get_view filetype size %d, want %d", fsz, gsz_);
        MPI_Type_free(&ft);
        free(back);
        MPI_File_close(&fh);
    }

    /* darray: the same array in a cyclic(2) x block distribution */
    MPI_Datatype dtype;
    int distr[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, dargs[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(size, rank, 2, gsz, distr, dargs, dims, MPI_ORDER_C, MPI_INT, &dtype);
    MPI_Type_commit(&dtype);
    int dsize;
    MPI_Type_size(dtype, &dsize);
    int *mine = malloc((size_t)dsize + 4);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, dtype, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, mine, dsize / 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == dsize / 4, "darray read count %d", n);
    long sum = 0, all = 0;
    for (int i = 0; i < n; i++)
        sum += mine[i];
    MPI_Allreduce(&sum, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == (long)ROWS * COLS * (ROWS * COLS - 1) / 2, "darray pieces sum to %ld", all);
    MPI_File_close(&fh);
    free(mine);
    MPI_Type_free(&dtype);

    /* a displacement and an etype of two ints */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_File_set_view(fh, 40, pair, pair, "native", MPI_INFO_NULL);
    int two[2];
    MPI_File_read_at(fh, 3, two, 2, MPI_INT, &st);
    CHECK(two[0] == 16 && two[1] == 17, "pair etype read %d %d", two[0], two[1]);
    MPI_Aint ext;
    MPI_File_get_type_extent(fh, pair, &ext);
    CHECK(ext == 8, "type extent %ld", (long)ext);
    MPI_File_close(&fh);
    MPI_Type_free(&pair);

    /* external32: big-endian in the file */
    char p32[512];
    io_path(p32, sizeof p32, "ext32.dat");
    MPI_File_open(MPI_COMM_WORLD, p32, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL);
    int vals[2] = {0x01020304 + rank, -2};
    MPI_File_write_at_all(fh, 2 * rank, vals, 2, MPI_INT, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    int got[2];
    MPI_File_read_at(fh, 2 * rank, got, 2, MPI_INT, &st);
    CHECK(got[0] == vals[0] && got[1] == -2, "external32 round trip %x %d", got[0], got[1]);
    MPI_File_close(&fh);
    if (rank == 0) {
        unsigned char *b = io_slurp(p32, &len);
        CHECK(len == 8L * size, "external32 file length %ld", len);
        for (int r = 0; r < size; r++) {
            const unsigned char want[8] = {1, 2, 3, (unsigned char)(4 + r), 0xff, 0xff, 0xff, 0xfe};
            CHECK(!memcmp(b + 8 * r, want, 8), "external32 bytes of rank %d", r);
        }
        free(b);
    }

    /* a registered representation */
    err = MPI_Register_datarep("xor", xor_read, xor_conv, xor_extent, NULL);
    CHECK(err == MPI_SUCCESS, "Register_datarep: %d", err);
    err = MPI_Register_datarep("xor", xor_read, xor_conv, xor_extent, NULL);
    CHECK(io_class(err) == MPI_ERR_DUP_DATAREP, "registered twice: %d", err);
    err = MPI_Register_datarep("external32", xor_read, xor_conv, xor_extent, NULL);
    CHECK(io_class(err) == MPI_ERR_DUP_DATAREP, "external32 again: %d", err);
    MPI_File_open(MPI_COMM_WORLD, p32, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "xor", MPI_INFO_NULL);
    int x = 0x11111111 * (rank + 1);
    MPI_File_write_at(fh, rank, &x, 1, MPI_INT, &st);
    CHECK(xor_calls == 1, "write conversion calls %d", xor_calls);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at(fh, rank, got, 1, MPI_INT, &st);
    CHECK(got[0] == x && xor_calls == 2, "xor round trip %x, %d calls", got[0], xor_calls);
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    MPI_File_get_view(fh, &disp, &et, &ft, rep);
    CHECK(!strcmp(rep, "xor"), "get_view datarep %s", rep);
    MPI_File_close(&fh);
    if (rank == 0) {
        unsigned char *b = io_slurp(p32, &len);
        for (int r = 0; r < size; r++)
            CHECK((unsigned)get_int(b, r) == ((unsigned)(0x11111111 * (r + 1)) ^ 0x5a5a5a5au),
                  "xor bytes of rank %d: %x", r, get_int(b, r));
        free(b);
    }

    /* atomic mode: overlapping writers of every other int; the result is
     * one writer's data, never a mixture */
    char pa[512];
    io_path(pa, sizeof pa, "atomic.dat");
    MPI_File_open(MPI_COMM_WORLD, pa, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    MPI_File_set_atomicity(fh, 1);
    MPI_Datatype every2;
    MPI_Type_vector(1, 1, 2, MPI_INT, &every2);
    MPI_Datatype every2r;
    MPI_Type_create_resized(every2, 0, 8, &every2r);
    MPI_Type_commit(&every2r);
    MPI_File_set_view(fh, 0, MPI_INT, every2r, "native", MPI_INFO_NULL);
    enum { NA = 20000 };
    int *w = malloc(sizeof(int) * NA);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NA; i++)
            w[i] = rank + 1 + 100 * round;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_write_at(fh, 0, w, NA, MPI_INT, &st);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_read_at(fh, 0, w, NA, MPI_INT, &st);
        for (int i = 1; i < NA; i++)
            CHECK(w[i] == w[0], "round %d: atomic writes mixed at %d: %d vs %d", round, i, w[i], w[0]);
        CHECK(w[0] > 100 * round && w[0] <= 100 * round + size, "round %d: value %d", round, w[0]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(w);
    MPI_File_close(&fh);
    MPI_Type_free(&every2);
    MPI_Type_free(&every2r);

    MPI_Type_free(&ftype);
    MPI_Type_free(&mtype);
    MPI_Comm_free(&cart);
    free(local);
    io_dir_remove();
    MPI_Finalize();
    if (rank == 0)
        printf("OK io_view\n");
    return 0;
}
