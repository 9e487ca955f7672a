// C++ procedures of Open MPI's C++ bindings on railmpi's libmpi_cxx.so.40,
// beside those of ompi_cxx_bindings.cc: datatype and window attribute
// functions, window and file error handlers (C++ ones and
// ERRORS_THROW_EXCEPTIONS), a data representation with C++
// conversion functions. Each rank works alone (COMM_SELF). 2 ranks.
#include <mpi.h>
#include <cstdio>
#include <cstring>

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static int type_copies, type_deletes, win_deletes;
static int type_copy(const MPI::Datatype &old, int keyval, void *extra, const void *in, void *out,
                     bool &flag)
{
    CHECK(old.Get_size() == 2 * (int)sizeof(int) && *static_cast<int *>(extra) == 7);
    type_copies++;
    *static_cast<const void **>(out) = in;
    flag = true;
    return MPI::SUCCESS;
}
static int type_delete(MPI::Datatype &type, int keyval, void *val, void *extra)
{
    type_deletes++;
    return MPI::SUCCESS;
}
static int win_copy(const MPI::Win &, int, void *, void *, void *, bool &flag)
{
    flag = false;
    return MPI::SUCCESS;
}
static int win_delete(MPI::Win &win, int keyval, void *val, void *extra)
{
    win_deletes++;
    return MPI::SUCCESS;
}

static int win_errors, file_errors, file_error_class = -1;
static bool file_was_null;
static void on_win_error(MPI::Win &win, int *code, ...)
{
    win_errors++;
    CHECK(MPI::Get_error_class(*code) == MPI::ERR_RANK);
}
static void on_file_error(MPI::File &file, int *code, ...)
{
    file_errors++;
    file_error_class = MPI::Get_error_class(*code);
    file_was_null = file == MPI::FILE_NULL;
}

// "plus1000": an int is stored as itself + 1000
static int conversions;
static void plus_write(void *userbuf, MPI::Datatype &type, int count, void *filebuf,
                       MPI::Offset position, void *extra)
{
    CHECK(type == MPI::INT && *static_cast<int *>(extra) == 9);
    const int *u = static_cast<int *>(userbuf) + position;
    int *f = static_cast<int *>(filebuf);
    for (int i = 0; i < count; i++)
        f[i] = u[i] + 1000;
    conversions++;
}
static void plus_read(void *userbuf, MPI::Datatype &type, int count, void *filebuf,
                      MPI::Offset position, void *extra)
{
    int *u = static_cast<int *>(userbuf) + position;
    const int *f = static_cast<int *>(filebuf);
    for (int i = 0; i < count; i++)
        u[i] = f[i] - 1000;
    conversions++;
}
static void plus_extent(const MPI::Datatype &type, MPI::Aint &extent, void *extra)
{
    extent = type.Get_size();
}

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    int rank = MPI::COMM_WORLD.Get_rank();

    // datatype attributes: copied by Dup, deleted by Free
    static int extra = 7, value;
    int tkey = MPI::Datatype::Create_keyval(type_copy, type_delete, &extra);
    MPI::Datatype pair = MPI::INT.Create_contiguous(2);
    pair.Set_attr(tkey, &value);
    MPI::Datatype pair2 = pair.Dup();
    void *got = nullptr;
    CHECK(type_copies == 1 && pair2.Get_attr(tkey, &got) && got == &value);
    pair2.Free();
    pair.Free();
    CHECK(type_deletes == 2);
    MPI::Datatype::Free_keyval(tkey);

    // a window: a C++ error handler and a C++ attribute delete function
    int wbuf[4] = {0, 0, 0, 0};
    MPI::Win win = MPI::Win::Create(wbuf, sizeof wbuf, sizeof(int), MPI::INFO_NULL, MPI::COMM_SELF);
    MPI::Errhandler weh = MPI::Win::Create_errhandler(on_win_error);
    win.Set_errhandler(weh);
    int wkey = MPI::Win::Create_keyval(win_copy, win_delete, nullptr);
    win.Set_attr(wkey, &value);
    win.Fence(0);
    win.Put(wbuf, 1, MPI::INT, 5, 0, 1, MPI::INT);
    win.Fence(0);
    CHECK(win_errors == 1);
    // ERRORS_THROW_EXCEPTIONS on a window
    win.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
    bool caught = false;
    try {
        win.Put(wbuf, 1, MPI::INT, 5, 0, 1, MPI::INT);
    } catch (MPI::Exception &e) {
        caught = e.Get_error_class() == MPI::ERR_RANK;
    }
    CHECK(caught);
    win.Fence(0);
    win.Delete_attr(wkey);
    CHECK(win_deletes == 1);
    MPI::Win::Free_keyval(wkey);
    win.Free();
    weh.Free();

    // a file error handler on FILE_NULL sees a failed open
    MPI::Errhandler feh = MPI::File::Create_errhandler(on_file_error);
    MPI::FILE_NULL.Set_errhandler(feh);
    MPI::File::Open(MPI::COMM_SELF, "no/such/dir/file", MPI::MODE_RDONLY, MPI::INFO_NULL);
    CHECK(file_errors == 1 && file_was_null && file_error_class == MPI::ERR_NO_SUCH_FILE);
    // and ERRORS_THROW_EXCEPTIONS there
    MPI::FILE_NULL.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
    caught = false;
    try {
        MPI::File::Open(MPI::COMM_SELF, "no/such/dir/file", MPI::MODE_RDONLY, MPI::INFO_NULL);
    } catch (MPI::Exception &e) {
        caught = e.Get_error_class() == MPI::ERR_NO_SUCH_FILE;
    }
    CHECK(caught);
    MPI::FILE_NULL.Set_errhandler(MPI::ERRORS_RETURN);
    feh.Free();

    // a data representation with C++ conversion functions
    static int dextra = 9;
    MPI::Register_datarep("plus1000", plus_read, plus_write, plus_extent, &dextra);
    char name[64];
    std::snprintf(name, sizeof name, "cxx_datarep_%d", rank);
    MPI::File f = MPI::File::Open(MPI::COMM_SELF, name, MPI::MODE_CREATE | MPI::MODE_RDWR,
                                  MPI::INFO_NULL);
    f.Set_view(0, MPI::INT, MPI::INT, "plus1000", MPI::INFO_NULL);
    int out[4] = {1, 2, 3, rank}, in[4] = {0, 0, 0, 0}, raw[4] = {0, 0, 0, 0};
    f.Write_at(0, out, 4, MPI::INT);
    f.Read_at(0, in, 4, MPI::INT);
    f.Set_view(0, MPI::INT, MPI::INT, "native", MPI::INFO_NULL);
    f.Read_at(0, raw, 4, MPI::INT);
    f.Close();
    MPI::File::Delete(name, MPI::INFO_NULL);
    CHECK(conversions >= 2);
    CHECK(std::memcmp(in, out, sizeof in) == 0);
    CHECK(raw[0] == 1001 && raw[1] == 1002 && raw[2] == 1003 && raw[3] == 1000 + rank);

    int all = 0;
    MPI::COMM_WORLD.Allreduce(&failures, &all, 1, MPI::INT, MPI::SUM);
    if (rank == 0 && all == 0)
        std::printf("OK\n");
    MPI::Finalize();
    return all == 0 ? 0 : 1;
}
