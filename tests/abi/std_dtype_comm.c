/* Datatypes, communicators and groups through the standard ABI: derived
 * types (vector, struct from an array of handles), envelopes and contents
 * (combiners, predefined handles coming back), comparison results, splits
 * with MPI_UNDEFINED, rank translation with MPI_PROC_NULL, topologies,
 * attributes, thread levels, info, Fortran handle conversion. 2 ranks. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

static MPI_Comm copied_from = MPI_COMM_NULL, deleted_on = MPI_COMM_NULL;
static int deletes;

/* attribute callbacks: they see the ABI's communicator handles */
static int copy_attr(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval;
    CHECK(extra == &deletes, "copy callback: extra_state");
    copied_from = comm;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_attr(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value, (void)extra;
    deleted_on = comm;
    deletes++;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int kv, flag;
    static char base[4];
    OK(MPI_Comm_create_keyval(copy_attr, delete_attr, &kv, &deletes));
    MPI_Comm a, b;
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    OK(MPI_Comm_set_attr(a, kv, base));
    OK(MPI_Comm_dup(a, &b));
    CHECK(copied_from == a, "the copy callback saw another communicator");
    char *v;
    OK(MPI_Comm_get_attr(b, kv, &v, &flag));
    CHECK(flag && v == base + 1, "copied attribute");
    OK(MPI_Comm_free(&b));
    CHECK(deletes == 1, "deletes %d", deletes);
    OK(MPI_Comm_delete_attr(a, kv));
    CHECK(deletes == 2 && deleted_on == a, "the delete callback saw another communicator");
    OK(MPI_Comm_free_keyval(&kv));
    CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval left the key");
    OK(MPI_Comm_free(&a));
    /* MPI_Comm_idup: the new communicators are there when the requests complete */
    MPI_Comm i1, i2;
    MPI_Request irq[2];
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &i1, &irq[0]));
    OK(MPI_Comm_idup(MPI_COMM_WORLD, &i2, &irq[1]));
    OK(MPI_Waitall(2, irq, MPI_STATUSES_IGNORE));
    int isz = 0, icmp = -1;
    OK(MPI_Comm_size(i2, &isz));
    OK(MPI_Comm_compare(i1, MPI_COMM_WORLD, &icmp));
    CHECK(isz == 2 && icmp == MPI_CONGRUENT && i1 != i2, "idup: size %d, compare %d", isz, icmp);
    OK(MPI_Comm_free(&i1));
    OK(MPI_Comm_free(&i2));

    /* the predefined copy function: the value travels as it is */
    MPI_Datatype t, u;
    OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kv, NULL));
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    OK(MPI_Type_set_attr(t, kv, base + 2));
    OK(MPI_Type_dup(t, &u));
    OK(MPI_Type_get_attr(u, kv, &v, &flag));
    CHECK(flag && v == base + 2, "MPI_TYPE_DUP_FN");
    OK(MPI_Type_free(&u));
    OK(MPI_Type_free(&t));
    OK(MPI_Type_free_keyval(&kv));
}

static void datatypes(void)
{
    MPI_Datatype vec, st, dup;
    OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    MPI_Aint lb, ext;
    OK(MPI_Type_get_extent(vec, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)(10 * sizeof(int)), "vector extent %ld %ld", (long)lb, (long)ext);
    int sz;
    OK(MPI_Type_size(vec, &sz));
    CHECK(sz == 6 * (int)sizeof(int), "vector size %d", sz);
    int ni, na, nd, comb;
    OK(MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1, "envelope %d %d %d", comb, ni, nd);
    int ints[3];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    OK(MPI_Type_get_contents(vec, 3, 0, 1, ints, addrs, types));
    CHECK(types[0] == MPI_INT && ints[0] == 3 && ints[2] == 4, "contents %d", ints[0]);
    MPI_Datatype sub;
    int sizes[2] = {4, 4}, subs[2] = {2, 2}, starts[2] = {1, 1}, cont[8];
    OK(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub));
    OK(MPI_Type_get_envelope(sub, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8, "subarray envelope %d %d", comb, ni);
    OK(MPI_Type_get_contents(sub, 8, 0, 1, cont, addrs, types));
    CHECK(cont[7] == MPI_ORDER_FORTRAN && cont[1] == 4, "subarray order %d", cont[7]);
    OK(MPI_Type_free(&sub));
    int gs[1] = {8}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    OK(MPI_Type_create_darray(2, std_rank, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_INT, &sub));
    OK(MPI_Type_get_contents(sub, 8, 0, 1, cont, addrs, types));
    CHECK(cont[4] == MPI_DISTRIBUTE_BLOCK && cont[5] == MPI_DISTRIBUTE_DFLT_DARG && cont[7] == MPI_ORDER_C,
          "darray contents %d %d %d", cont[4], cont[5], cont[7]);
    OK(MPI_Type_size(sub, &sz));
    CHECK(sz == 4 * (int)sizeof(int), "darray size %d", sz);
    OK(MPI_Type_free(&sub));
#if MPI_VERSION >= 4
    MPI_Datatype big;
    MPI_Count csz = -1;
    OK(MPI_Type_contiguous_c((MPI_Count)5, MPI_DOUBLE, &big));
    OK(MPI_Type_size_c(big, &csz));
    CHECK(csz == 5 * (MPI_Count)sizeof(double), "Type_size_c %lld", (long long)csz);
    OK(MPI_Type_free(&big));
#endif
    OK(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_NAMED, "named combiner %d", comb);

    struct { int i; double d; char c; } s;
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {(char *)&s.i - (char *)&s, (char *)&s.d - (char *)&s, (char *)&s.c - (char *)&s};
    MPI_Datatype tt[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    OK(MPI_Type_create_struct(3, bl, disp, tt, &st));
    OK(MPI_Type_commit(&st));
    OK(MPI_Type_size(st, &sz));
    CHECK(sz == (int)(sizeof(int) + sizeof(double) + 1), "struct size %d", sz);
    int peer = 1 - std_rank;
    s.i = std_rank; s.d = 2.5 * std_rank; s.c = (char)('a' + std_rank);
    typeof(s) r;
    OK(MPI_Sendrecv(&s, 1, st, peer, 1, &r, 1, st, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(r.i == peer && r.d == 2.5 * peer && r.c == 'a' + peer, "struct data %d %g %c", r.i, r.d, r.c);
    int buf[10], got[10];
    for (int i = 0; i < 10; i++)
        buf[i] = std_rank * 100 + i, got[i] = -1;
    OK(MPI_Sendrecv(buf, 1, vec, peer, 2, got, 1, vec, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got[0] == peer * 100 && got[4] == peer * 100 + 4 && got[2] == -1, "vector data");
    OK(MPI_Type_dup(MPI_FLOAT, &dup));
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    OK(MPI_Type_set_name(dup, "mine"));
    OK(MPI_Type_get_name(dup, name, &len));
    CHECK(strcmp(name, "mine") == 0, "type name %s", name);
    OK(MPI_Type_free(&dup));
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&st));
    CHECK(vec == MPI_DATATYPE_NULL && st == MPI_DATATYPE_NULL, "Type_free left handles");
}

static void comms(void)
{
    MPI_Comm dup, split, cart;
    int res;
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_IDENT, "compare world %d", res);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
    OK(MPI_Comm_split(MPI_COMM_WORLD, std_rank == 0 ? 0 : MPI_UNDEFINED, 0, &split));
    CHECK((std_rank == 0) == (split != MPI_COMM_NULL), "split with MPI_UNDEFINED");
    if (split != MPI_COMM_NULL) {
        OK(MPI_Comm_compare(MPI_COMM_WORLD, split, &res));
        CHECK(res == MPI_UNEQUAL, "compare split %d", res);
        OK(MPI_Comm_free(&split));
        CHECK(split == MPI_COMM_NULL, "Comm_free left the handle");
    }
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split));
    int n;
    OK(MPI_Comm_size(split, &n));
    CHECK(n >= 1, "split_type size %d", n);
    OK(MPI_Comm_free(&split));

    MPI_Group wg, g0, empty;
    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    int zero = 0;
    OK(MPI_Group_incl(wg, 1, &zero, &g0));
    OK(MPI_Group_rank(g0, &res));
    CHECK(res == (std_rank == 0 ? 0 : MPI_UNDEFINED), "group rank %d", res);
    int in[3] = {0, 1, MPI_PROC_NULL}, out[3];
    OK(MPI_Group_translate_ranks(wg, 3, in, g0, out));
    CHECK(out[0] == 0 && out[1] == MPI_UNDEFINED && out[2] == MPI_PROC_NULL, "translate %d %d %d", out[0], out[1], out[2]);
    OK(MPI_Group_compare(wg, g0, &res));
    CHECK(res == MPI_UNEQUAL, "group compare %d", res);
    OK(MPI_Group_difference(g0, g0, &empty));
    CHECK(empty == MPI_GROUP_EMPTY, "empty difference is not MPI_GROUP_EMPTY");
    OK(MPI_Group_free(&g0));
    OK(MPI_Group_free(&wg));

    int dims[1] = {2}, periods[1] = {0}, src, dst;
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
    OK(MPI_Topo_test(cart, &res));
    CHECK(res == MPI_CART, "topo %d", res);
    OK(MPI_Topo_test(dup, &res));
    CHECK(res == MPI_UNDEFINED, "topo of a plain communicator %d", res);
    OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(std_rank == 0 ? src == MPI_PROC_NULL && dst == 1 : src == 0 && dst == MPI_PROC_NULL, "shift %d %d", src, dst);
    OK(MPI_Comm_free(&cart));

    int *ub, flag;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_TAG_UB");
    MPI_Fint f = MPI_Comm_c2f(dup);
    CHECK(MPI_Comm_f2c(f) == dup, "Comm c2f/f2c");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "world c2f/f2c");
    OK(MPI_Comm_free(&dup));

    MPI_Info info;
    char v[MPI_MAX_INFO_VAL];
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "k", "v1"));
    OK(MPI_Info_get(info, "k", sizeof v - 1, v, &flag));
    CHECK(flag && strcmp(v, "v1") == 0, "info");
    OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "Info_free");
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1;
    OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    CHECK(provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "provided %d", provided);
    OK(MPI_Query_thread(&q));
    CHECK(q == provided, "Query_thread %d", q);
    datatypes();
    comms();
    attributes();
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
