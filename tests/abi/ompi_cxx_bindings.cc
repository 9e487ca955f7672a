// MPI's C++ bindings of Open MPI's header (mpicxx.openmpi) on railmpi's
// libmpi_cxx.so.40 and libmpi.so.40: the predefined objects, point to point
// with MPI::Status, a reduction with a predefined and with a C++ MPI::Op,
// ERRORS_THROW_EXCEPTIONS, a C++ error handler, C++ attribute functions,
// a generalized request, Dup/Free and a Cartcomm. 2 ranks.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

// inout[i] = 10 * in[i] + inout[i]: not commutative, tells the operands apart
static void tens(const void *in, void *inout, int len, const MPI::Datatype &type)
{
    CHECK(type == MPI::INT);
    const int *a = static_cast<const int *>(in);
    int *b = static_cast<int *>(inout);
    for (int i = 0; i < len; i++)
        b[i] = 10 * a[i] + b[i];
}

// a C++ error handler: gets the communicator as its C++ class
static int handled_class = -1;
static bool handled_cart = false;
static void on_error(MPI::Comm &comm, int *code, ...)
{
    handled_class = MPI::Get_error_class(*code);
    handled_cart = dynamic_cast<MPI::Cartcomm *>(&comm) != nullptr;
}

// C++ attribute functions: the copy doubles the value, the delete counts
static int deleted;
static int copy_attr(const MPI::Comm &old, int keyval, void *extra, void *in, void *out,
                     bool &flag)
{
    CHECK(old.Get_size() == 2 && *static_cast<int *>(extra) == 42);
    *static_cast<void **>(out) = static_cast<char *>(in) + 1;
    flag = true;
    return MPI::SUCCESS;
}
static int delete_attr(MPI::Comm &comm, int keyval, void *val, void *extra)
{
    deleted++;
    return MPI::SUCCESS;
}

// a generalized request whose query fills the status
static int query_fn(void *extra, MPI::Status &st)
{
    st.Set_source(*static_cast<int *>(extra));
    st.Set_tag(5);
    st.Set_cancelled(false);
    st.Set_elements(MPI::BYTE, 3);
    return MPI::SUCCESS;
}
static int greq_freed;
static int free_fn(void *extra)
{
    greq_freed++;
    return MPI::SUCCESS;
}
static int cancel_fn(void *extra, bool complete)
{
    return MPI::SUCCESS;
}

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    MPI::Intracomm &world = MPI::COMM_WORLD;
    int rank = world.Get_rank(), size = world.Get_size();
    CHECK(size == 2);
    CHECK(MPI_Comm(world) == MPI_COMM_WORLD && MPI_Datatype(MPI::INT) == MPI_INT &&
          MPI_Op(MPI::SUM) == MPI_SUM);

    // point to point with a status
    int buf[3] = {rank, rank + 1, rank + 2};
    if (rank == 0) {
        world.Send(buf, 3, MPI::INT, 1, 7);
    } else {
        MPI::Status st;
        int got[4] = {-1, -1, -1, -1};
        world.Recv(got, 4, MPI::INT, MPI::ANY_SOURCE, MPI::ANY_TAG, st);
        CHECK(st.Get_source() == 0 && st.Get_tag() == 7 && st.Get_count(MPI::INT) == 3);
        CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == -1);
    }

    // predefined reduction
    int sum = -1;
    world.Allreduce(&rank, &sum, 1, MPI::INT, MPI::SUM);
    CHECK(sum == 1);

    // a C++ reduction: rank 0's operand comes first, so 10 * 1 + 2
    MPI::Op op;
    op.Init(tens, false);
    int mine = rank + 1, res = -1;
    world.Allreduce(&mine, &res, 1, MPI::INT, op);
    CHECK(res == 12);
    CHECK(!op.Is_commutative());
    op.Free();

    // errors become exceptions
    world.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
    bool caught = false;
    try {
        world.Send(buf, 1, MPI::INT, size + 5, 0);
    } catch (MPI::Exception &e) {
        caught = true;
        CHECK(e.Get_error_class() == MPI::ERR_RANK);
        CHECK(e.Get_error_string() && e.Get_error_string()[0]);
    }
    CHECK(caught);
    caught = false;
    try {
        world.Bcast(buf, -1, MPI::INT, 0);
    } catch (MPI::Exception &e) {
        caught = true;
        CHECK(e.Get_error_class() == MPI::ERR_COUNT);
    }
    CHECK(caught);
    // errors on no object: an op without its C++ function, an error handler
    // without one
    MPI::COMM_SELF.Set_errhandler(MPI::ERRORS_THROW_EXCEPTIONS);
    caught = false;
    MPI::Op bad;
    try {
        bad.Init(nullptr, true);
    } catch (MPI::Exception &e) {
        caught = true;
        CHECK(e.Get_error_class() == MPI::ERR_ARG);
    }
    CHECK(caught);
    bad.Free();
    caught = false;
    try {
        MPI::Comm::Create_errhandler(nullptr);
    } catch (MPI::Exception &e) {
        caught = true;
        CHECK(e.Get_error_class() == MPI::ERR_ARG);
    }
    CHECK(caught);
    MPI::COMM_SELF.Set_errhandler(MPI::ERRORS_RETURN);
    world.Set_errhandler(MPI::ERRORS_RETURN);

    // a C++ attribute, copied into a duplicate and deleted with it
    static int extra = 42;
    int keyval = MPI::Comm::Create_keyval(copy_attr, delete_attr, &extra);
    static char base[4];
    world.Set_attr(keyval, base);
    MPI::Intracomm withattr = world.Dup();
    void *val = nullptr;
    CHECK(withattr.Get_attr(keyval, &val) && val == base + 1);
    withattr.Free();
    CHECK(deleted == 1);
    world.Delete_attr(keyval);
    CHECK(deleted == 2);
    MPI::Comm::Free_keyval(keyval);

    // a generalized request
    static int greq_extra = 3;
    MPI::Grequest greq = MPI::Grequest::Start(query_fn, free_fn, cancel_fn, &greq_extra);
    greq.Complete();
    MPI::Status gst;
    greq.Wait(gst);
    CHECK(gst.Get_source() == 3 && gst.Get_tag() == 5 && gst.Get_elements(MPI::BYTE) == 3);
    CHECK(greq_freed == 1);

    // a duplicate, used and freed
    MPI::Intracomm dup = world.Dup();
    CHECK(dup != MPI::COMM_NULL && dup.Get_size() == 2 && dup.Get_rank() == rank);
    int max = -1;
    dup.Allreduce(&rank, &max, 1, MPI::INT, MPI::MAX);
    CHECK(max == 1);
    dup.Free();
    CHECK(dup == MPI::COMM_NULL);

    // a periodic ring as a Cartcomm
    int dims[1] = {0};
    MPI::Compute_dims(size, 1, dims);
    bool periods[1] = {true};
    MPI::Cartcomm cart = world.Create_cart(1, dims, periods, false);
    CHECK(cart.Get_topology() == MPI::CART && cart.Get_dim() == 1);
    int src = -1, dst = -1;
    cart.Shift(0, 1, src, dst);
    CHECK(src == (rank + size - 1) % size && dst == (rank + 1) % size);
    int coords[1] = {-1};
    cart.Get_coords(rank, 1, coords);
    CHECK(coords[0] == rank);

    // a C++ error handler on the Cartcomm
    MPI::Errhandler eh = MPI::Comm::Create_errhandler(on_error);
    cart.Set_errhandler(eh);
    cart.Send(buf, 1, MPI::INT, size + 5, 0);
    CHECK(handled_class == MPI::ERR_RANK && handled_cart);
    eh.Free();
    cart.Free();

    int all = 0;
    world.Allreduce(&failures, &all, 1, MPI::INT, MPI::SUM);
    if (rank == 0 && all == 0)
        std::printf("OK\n");
    MPI::Finalize();
    return all == 0 ? 0 : 1;
}
