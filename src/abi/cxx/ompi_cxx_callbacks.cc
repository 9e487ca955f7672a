// The C++ procedures of Open MPI's C++ bindings that railmpi's libmpi.so.40
// calls through C intercepts (docs/abi.md, "C++ programs"): error handlers
// made by Comm/Win/File::Create_errhandler, attribute copy and delete
// functions of the keyvals made by Create_keyval, generalized requests
// (Grequest::Start) and data representations (MPI::Register_datarep). Each
// intercept builds the C++ objects of Open MPI's header from the C handles
// and calls the program's function.
#include <mpi.h>
#include <map>
#include <mutex>
#include <vector>

namespace {

// a communicator as the C++ class it is: Intercomm, Cartcomm, Graphcomm or
// Intracomm (MPI::Comm itself is abstract)
template <class F> int with_comm(MPI_Comm c, F f)
{
    int inter = 0, topo = MPI_UNDEFINED;
    if (c != MPI_COMM_NULL)
        (void)MPI_Comm_test_inter(c, &inter);
    if (inter) {
        MPI::Intercomm o(c);
        return f(o);
    }
    if (c != MPI_COMM_NULL)
        (void)MPI_Topo_test(c, &topo);
    if (topo == MPI_CART) {
        MPI::Cartcomm o(c);
        return f(o);
    }
    if (topo == MPI_GRAPH) {
        MPI::Graphcomm o(c);
        return f(o);
    }
    MPI::Intracomm o(c);
    return f(o);
}

// the C++ function of each error handler Create_errhandler made: the C
// intercept finds it from the handler the object has
std::mutex eh_lock;
std::map<MPI_Errhandler, void (*)()> eh_fns;

void (*eh_fn(MPI_Errhandler eh))()
{
    std::lock_guard<std::mutex> g(eh_lock);
    auto it = eh_fns.find(eh);
    return it == eh_fns.end() ? nullptr : it->second;
}

MPI::Errhandler eh_made(int rc, MPI_Errhandler eh, void (*fn)())
{
    if (rc != MPI_SUCCESS)
        return MPI::Errhandler(MPI_ERRHANDLER_NULL);
    std::lock_guard<std::mutex> g(eh_lock);
    eh_fns[eh] = fn;
    return MPI::Errhandler(eh);
}

void comm_eh_intercept(MPI_Comm *comm, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(*comm, &eh) != MPI_SUCCESS)
        return;
    auto fn = (MPI::Comm::Errhandler_function *)eh_fn(eh);
    (void)MPI_Errhandler_free(&eh);
    if (fn)
        with_comm(*comm, [&](MPI::Comm &c) {
            fn(c, code);
            return 0;
        });
}

void win_eh_intercept(MPI_Win *win, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPI_Win_get_errhandler(*win, &eh) != MPI_SUCCESS)
        return;
    auto fn = (MPI::Win::Errhandler_function *)eh_fn(eh);
    (void)MPI_Errhandler_free(&eh);
    MPI::Win w(*win);
    if (fn)
        fn(w, code);
}

void file_eh_intercept(MPI_File *file, int *code, ...)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (MPI_File_get_errhandler(*file, &eh) != MPI_SUCCESS)
        return;
    auto fn = (MPI::File::Errhandler_function *)eh_fn(eh);
    (void)MPI_Errhandler_free(&eh);
    MPI::File f(*file);
    if (fn)
        fn(f, code);
}

// The keyvals' functions, passed to the C intercepts as the extra state.
// MPI_*_free_keyval (inline in the header) does not tell the bindings, so the
// records live until MPI_Finalize, which deletes MPI_COMM_SELF's attributes
// first (MPI-4.1 11.2.4): one such attribute frees them all.
struct keyval_record {
    void *data;
    void (*destroy)(void *);
};
std::mutex keyval_records_mu;
std::vector<keyval_record> keyval_records;

int keyval_records_free(MPI_Comm, int, void *, void *)
{
    std::lock_guard<std::mutex> g(keyval_records_mu);
    for (auto &r : keyval_records)
        r.destroy(r.data);
    keyval_records.clear();
    return MPI_SUCCESS;
}

template <class T> T *keyval_data(const T &d)
{
    std::lock_guard<std::mutex> g(keyval_records_mu);
    static int watch = MPI_KEYVAL_INVALID;
    if (watch == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, keyval_records_free, &watch, nullptr) == MPI_SUCCESS)
        (void)MPI_Comm_set_attr(MPI_COMM_SELF, watch, nullptr);
    T *r = new T(d);
    keyval_records.push_back({r, [](void *p) { delete static_cast<T *>(p); }});
    return r;
}

} // namespace

// a NULL function goes to the C function, which reports MPI_ERR_ARG
MPI::Errhandler MPI::Comm::Create_errhandler(MPI::Comm::Errhandler_function *function)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = MPI_Comm_create_errhandler(function ? comm_eh_intercept : nullptr, &eh);
    return eh_made(rc, eh, (void (*)())function);
}

MPI::Errhandler MPI::Win::Create_errhandler(MPI::Win::Errhandler_function *function)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = MPI_Win_create_errhandler(function ? win_eh_intercept : nullptr, &eh);
    return eh_made(rc, eh, (void (*)())function);
}

MPI::Errhandler MPI::File::Create_errhandler(MPI::File::Errhandler_function *function)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = MPI_File_create_errhandler(function ? file_eh_intercept : nullptr, &eh);
    return eh_made(rc, eh, (void (*)())function);
}

// attribute intercepts: the keyval's C function if it has one, else its C++
// one with C++ objects

extern "C" int ompi_mpi_cxx_comm_copy_attr_intercept(MPI_Comm oldcomm, int keyval,
                                                     void *extra_state, void *attribute_val_in,
                                                     void *attribute_val_out, int *flag,
                                                     MPI_Comm newcomm)
{
    (void)newcomm;
    auto *d = static_cast<MPI::Comm::keyval_intercept_data_t *>(extra_state);
    if (d->c_copy_fn)
        return d->c_copy_fn(oldcomm, keyval, d->extra_state, attribute_val_in, attribute_val_out,
                            flag);
    bool f = false;
    int rc = with_comm(oldcomm, [&](MPI::Comm &c) {
        return d->cxx_copy_fn(c, keyval, d->extra_state, attribute_val_in, attribute_val_out, f);
    });
    *flag = f;
    return rc;
}

extern "C" int ompi_mpi_cxx_comm_delete_attr_intercept(MPI_Comm comm, int keyval,
                                                       void *attribute_val, void *extra_state)
{
    auto *d = static_cast<MPI::Comm::keyval_intercept_data_t *>(extra_state);
    if (d->c_delete_fn)
        return d->c_delete_fn(comm, keyval, attribute_val, d->extra_state);
    return with_comm(comm, [&](MPI::Comm &c) {
        return d->cxx_delete_fn(c, keyval, attribute_val, d->extra_state);
    });
}

extern "C" int ompi_mpi_cxx_type_copy_attr_intercept(MPI_Datatype oldtype, int keyval,
                                                     void *extra_state, void *attribute_val_in,
                                                     void *attribute_val_out, int *flag)
{
    auto *d = static_cast<MPI::Datatype::keyval_intercept_data_t *>(extra_state);
    if (d->c_copy_fn)
        return d->c_copy_fn(oldtype, keyval, d->extra_state, attribute_val_in, attribute_val_out,
                            flag);
    MPI::Datatype t(oldtype);
    bool f = false;
    int rc = d->cxx_copy_fn(t, keyval, d->extra_state, attribute_val_in, attribute_val_out, f);
    *flag = f;
    return rc;
}

extern "C" int ompi_mpi_cxx_type_delete_attr_intercept(MPI_Datatype type, int keyval,
                                                       void *attribute_val, void *extra_state)
{
    auto *d = static_cast<MPI::Datatype::keyval_intercept_data_t *>(extra_state);
    if (d->c_delete_fn)
        return d->c_delete_fn(type, keyval, attribute_val, d->extra_state);
    MPI::Datatype t(type);
    return d->cxx_delete_fn(t, keyval, attribute_val, d->extra_state);
}

extern "C" int ompi_mpi_cxx_win_copy_attr_intercept(MPI_Win oldwin, int keyval, void *extra_state,
                                                    void *attribute_val_in,
                                                    void *attribute_val_out, int *flag)
{
    auto *d = static_cast<MPI::Win::keyval_intercept_data_t *>(extra_state);
    if (d->c_copy_fn)
        return d->c_copy_fn(oldwin, keyval, d->extra_state, attribute_val_in, attribute_val_out,
                            flag);
    MPI::Win w(oldwin);
    bool f = false;
    int rc = d->cxx_copy_fn(w, keyval, d->extra_state, attribute_val_in, attribute_val_out, f);
    *flag = f;
    return rc;
}

extern "C" int ompi_mpi_cxx_win_delete_attr_intercept(MPI_Win win, int keyval, void *attribute_val,
                                                      void *extra_state)
{
    auto *d = static_cast<MPI::Win::keyval_intercept_data_t *>(extra_state);
    if (d->c_delete_fn)
        return d->c_delete_fn(win, keyval, attribute_val, d->extra_state);
    MPI::Win w(win);
    return d->cxx_delete_fn(w, keyval, attribute_val, d->extra_state);
}

namespace {

// MPI_Comm_copy_attr_function has no new communicator
int comm_copy_intercept(MPI_Comm oldcomm, int keyval, void *extra_state, void *in,
                                   void *out, int *flag)
{
    return ompi_mpi_cxx_comm_copy_attr_intercept(oldcomm, keyval, extra_state, in, out, flag,
                                                 MPI_COMM_NULL);
}

// do_create_keyval: a C function or a C++ one for each of copy and delete
// (Create_keyval's overloads); NULL for both is the null function. The
// three classes differ only in their C calls and function types.
template <class D, class CF, class DF>
int create_keyval(int (*create)(CF *, DF *, int *, void *), CF *null_copy, DF *null_delete, CF *copy_intercept,
                  DF *delete_intercept, const D &in, int &keyval)
{
    if (!in.cxx_copy_fn && !in.cxx_delete_fn)
        return create(in.c_copy_fn ? in.c_copy_fn : null_copy, in.c_delete_fn ? in.c_delete_fn : null_delete,
                      &keyval, in.extra_state);
    return create(in.c_copy_fn || in.cxx_copy_fn ? copy_intercept : null_copy,
                  in.c_delete_fn || in.cxx_delete_fn ? delete_intercept : null_delete, &keyval,
                  keyval_data(in));
}

} // namespace

int MPI::Comm::do_create_keyval(MPI_Comm_copy_attr_function *c_copy_fn,
                                MPI_Comm_delete_attr_function *c_delete_fn,
                                Copy_attr_function *cxx_copy_fn,
                                Delete_attr_function *cxx_delete_fn, void *extra_state,
                                int &keyval)
{
    return create_keyval(MPI_Comm_create_keyval, MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                         comm_copy_intercept, ompi_mpi_cxx_comm_delete_attr_intercept,
                         keyval_intercept_data_t{c_copy_fn, c_delete_fn, cxx_copy_fn, cxx_delete_fn, extra_state},
                         keyval);
}

int MPI::Datatype::do_create_keyval(MPI_Type_copy_attr_function *c_copy_fn,
                                    MPI_Type_delete_attr_function *c_delete_fn,
                                    Copy_attr_function *cxx_copy_fn,
                                    Delete_attr_function *cxx_delete_fn, void *extra_state,
                                    int &keyval)
{
    return create_keyval(MPI_Type_create_keyval, MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN,
                         ompi_mpi_cxx_type_copy_attr_intercept, ompi_mpi_cxx_type_delete_attr_intercept,
                         keyval_intercept_data_t{c_copy_fn, c_delete_fn, cxx_copy_fn, cxx_delete_fn, extra_state},
                         keyval);
}

int MPI::Win::do_create_keyval(MPI_Win_copy_attr_function *c_copy_fn,
                               MPI_Win_delete_attr_function *c_delete_fn,
                               Copy_attr_function *cxx_copy_fn, Delete_attr_function *cxx_delete_fn,
                               void *extra_state, int &keyval)
{
    return create_keyval(MPI_Win_create_keyval, MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN,
                         ompi_mpi_cxx_win_copy_attr_intercept, ompi_mpi_cxx_win_delete_attr_intercept,
                         keyval_intercept_data_t{c_copy_fn, c_delete_fn, cxx_copy_fn, cxx_delete_fn, extra_state},
                         keyval);
}

// generalized requests (Grequest::Start, inline in the header, makes the
// Intercept_data_t)
extern "C" int ompi_mpi_cxx_grequest_query_fn_intercept(void *state, MPI_Status *status)
{
    auto *d = static_cast<MPI::Grequest::Intercept_data_t *>(state);
    MPI::Status s(*status);
    int rc = d->id_cxx_query_fn(d->id_extra, s);
    *status = s;
    return rc;
}

extern "C" int ompi_mpi_cxx_grequest_free_fn_intercept(void *state)
{
    auto *d = static_cast<MPI::Grequest::Intercept_data_t *>(state);
    int rc = d->id_cxx_free_fn(d->id_extra);
    delete d;
    return rc;
}

extern "C" int ompi_mpi_cxx_grequest_cancel_fn_intercept(void *state, int canceled)
{
    auto *d = static_cast<MPI::Grequest::Intercept_data_t *>(state);
    return d->id_cxx_cancel_fn(d->id_extra, canceled != 0);
}

// data representations: C++ conversion functions return nothing (errors are
// exceptions), the C ones an error code
namespace {

struct datarep_data {
    MPI::Datarep_conversion_function *cxx_read, *cxx_write;
    MPI::Datarep_extent_function *cxx_extent;
    void *extra_state;
};

int datarep_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                            MPI_Offset position, void *extra_state)
{
    auto *d = static_cast<datarep_data *>(extra_state);
    MPI::Datatype t(type);
    d->cxx_read(userbuf, t, count, filebuf, position, d->extra_state);
    return MPI_SUCCESS;
}

int datarep_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                             MPI_Offset position, void *extra_state)
{
    auto *d = static_cast<datarep_data *>(extra_state);
    MPI::Datatype t(type);
    d->cxx_write(userbuf, t, count, filebuf, position, d->extra_state);
    return MPI_SUCCESS;
}

int datarep_extent(MPI_Datatype type, MPI_Aint *extent, void *extra_state)
{
    auto *d = static_cast<datarep_data *>(extra_state);
    MPI::Aint e = 0;
    d->cxx_extent(MPI::Datatype(type), e, d->extra_state);
    *extent = e;
    return MPI_SUCCESS;
}

// a C conversion function gets the program's extra state, so the C ones
// and the C++ ones cannot share one: with any C++ function, the C one must
// be MPI_CONVERSION_FN_NULL (Open MPI's overloads exist for that constant)
void datarep(const char *name, MPI::Datarep_conversion_function *cxx_read,
             MPI_Datarep_conversion_function *c_read, MPI::Datarep_conversion_function *cxx_write,
             MPI_Datarep_conversion_function *c_write, MPI::Datarep_extent_function *extent,
             void *extra_state)
{
    if ((c_read && cxx_write) || (c_write && cxx_read)) {
        (void)MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_ARG);
        return;
    }
    auto *d = new datarep_data{cxx_read, cxx_write, extent, extra_state};
    // a NULL extent function goes to the C function, which reports MPI_ERR_ARG
    int rc = MPI_Register_datarep(const_cast<char *>(name), cxx_read ? datarep_read : c_read,
                                  cxx_write ? datarep_write : c_write,
                                  extent ? datarep_extent : nullptr, d);
    if (rc != MPI_SUCCESS)
        delete d;
}

} // namespace

void MPI::Register_datarep(const char *datarep_name, Datarep_conversion_function *read_fn,
                           Datarep_conversion_function *write_fn,
                           Datarep_extent_function *extent_fn, void *extra_state)
{
    datarep(datarep_name, read_fn, nullptr, write_fn, nullptr, extent_fn, extra_state);
}

void MPI::Register_datarep(const char *datarep_name, MPI_Datarep_conversion_function *read_fn,
                           Datarep_conversion_function *write_fn,
                           Datarep_extent_function *extent_fn, void *extra_state)
{
    datarep(datarep_name, nullptr, read_fn, write_fn, nullptr, extent_fn, extra_state);
}

void MPI::Register_datarep(const char *datarep_name, Datarep_conversion_function *read_fn,
                           MPI_Datarep_conversion_function *write_fn,
                           Datarep_extent_function *extent_fn, void *extra_state)
{
    datarep(datarep_name, read_fn, nullptr, nullptr, write_fn, extent_fn, extra_state);
}

void MPI::Register_datarep(const char *datarep_name, MPI_Datarep_conversion_function *read_fn,
                           MPI_Datarep_conversion_function *write_fn,
                           Datarep_extent_function *extent_fn, void *extra_state)
{
    datarep(datarep_name, nullptr, read_fn, nullptr, write_fn, extent_fn, extra_state);
}
