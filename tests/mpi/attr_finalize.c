/* ranks: 1 2 4 */
/* MPI_Finalize and attributes (MPI-3.1 8.7.1): MPI_COMM_SELF's attributes
 * are deleted first, newest first, before anything is torn down, then
 * MPI_COMM_WORLD's, newest first. Inside the callbacks MPI is fully usable:
 * MPI_Finalized says false, ranks, collectives on MPI_COMM_WORLD, attribute
 * get/set/delete on other objects, dup and free of communicators and types,
 * keyvals freed (again) through copies, new attributes set on MPI_COMM_WORLD
 * and MPI_COMM_SELF (deleted in their turn); then the attributes of
 * predefined datatypes are deleted (as MPICH does); a failing callback does not
 * fail MPI_Finalize. Results are checked after MPI_Finalize returns. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define NSELF 20
#define NWORLD 3

static int rank, size, errors;
static int seq;                 /* order of delete callbacks */
static int self_at[NSELF], world_at[NWORLD], late_world_at, late_self_at, busy_at;
static int user_comm_deletes;
static int type_at[2], type_calls;
static MPI_Comm ucomm;
static int ukey, wkey_late, skey_late, shared_key, shared_copy, shared_dels;

#define FAIL(...)                                                            \
    do {                                                                     \
        printf("FAIL: rank %d line %d: ", rank, __LINE__);                   \
        printf(__VA_ARGS__);                                                 \
        printf("\n");                                                        \
        fflush(stdout);                                                      \
        errors++;                                                            \
    } while (0)

static void check_alive(const char *who)
{
    int flag = -1, r = -1, n = -1;
    MPI_Finalized(&flag);
    if (flag)
        FAIL("%s: MPI_Finalized is true inside a delete callback", who);
    MPI_Initialized(&flag);
    if (!flag)
        FAIL("%s: MPI_Initialized is false", who);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (r != rank || n != size)
        FAIL("%s: rank/size %d/%d", who, r, n);
}

static int self_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    int i = (int)(long)val;
    if (c != MPI_COMM_SELF)
        FAIL("self attribute deleted on 0x%x", (unsigned)c);
    self_at[i] = ++seq;
    check_alive("self");
    return MPI_SUCCESS;
}

static int world_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    int i = (int)(long)val;
    if (c != MPI_COMM_WORLD)
        FAIL("world attribute deleted on 0x%x", (unsigned)c);
    world_at[i] = ++seq;
    check_alive("world");
    if (i == 1)
        MPI_Barrier(MPI_COMM_WORLD); /* every rank deletes the same attributes */
    return i == 2 ? MPI_ERR_OTHER : MPI_SUCCESS; /* must not fail MPI_Finalize */
}

static int late_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)val, (void)extra;
    check_alive("late");
    if (c == MPI_COMM_WORLD)
        late_world_at = ++seq;
    else if (c == MPI_COMM_SELF)
        late_self_at = ++seq;
    int k = key;
    MPI_Comm_free_keyval(&k);
    return MPI_SUCCESS;
}

static int user_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    user_comm_deletes++;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return MPI_SUCCESS;
}

static int leaked_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return MPI_SUCCESS;
}

/* on both MPI_COMM_SELF and MPI_COMM_WORLD; frees its keyval each time */
static int shared_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    shared_dels++;
    int k = key;
    if (MPI_Comm_free_keyval(&k) != MPI_SUCCESS)
        FAIL("freeing a keyval again in its delete callback");
    return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)val, (void)extra;
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

/* on predefined datatypes: deleted after MPI_COMM_WORLD's, MPI still usable */
static int predef_type_del(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)extra;
    check_alive("predefined type");
    type_at[(int)(long)val] = ++seq;
    type_calls++;
    int k = key;
    MPI_Type_free_keyval(&k);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        FAIL("allreduce in a type delete callback: %d", sum);
    return MPI_SUCCESS;
}

/* set first on MPI_COMM_SELF, so deleted last of the original ones */
static int busy_del(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    busy_at = ++seq;
    check_alive("busy");
    int flag, *got;

    /* a collective on MPI_COMM_WORLD */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size)
        FAIL("allreduce in a delete callback: %d", sum);

    /* attributes on another communicator, then free it */
    static int v = 5;
    MPI_Comm_get_attr(ucomm, ukey, &got, &flag);
    if (!flag || *got != 99)
        FAIL("get on another comm");
    if (MPI_Comm_set_attr(ucomm, ukey, &v) != MPI_SUCCESS)
        FAIL("set on another comm");
    if (user_comm_deletes != 1)
        FAIL("replacing on another comm: %d deletes", user_comm_deletes);
    MPI_Comm_delete_attr(ucomm, ukey);
    MPI_Comm_set_attr(ucomm, ukey, &v);
    MPI_Comm d;
    MPI_Comm_dup(ucomm, &d);
    MPI_Comm_free(&d);
    MPI_Comm_free(&ucomm);
    if (user_comm_deletes != 4)
        FAIL("deletes on another comm: %d", user_comm_deletes);
    MPI_Comm_free_keyval(&ukey);

    /* a datatype with an attribute */
    int tk, tdels = 0;
    MPI_Datatype t;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del, &tk, &tdels);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Type_set_attr(t, tk, NULL);
    MPI_Type_free_keyval(&tk);
    MPI_Type_free(&t);
    if (tdels != 1)
        FAIL("type attribute delete inside a callback: %d", tdels);

    /* new attributes on MPI_COMM_WORLD and MPI_COMM_SELF: deleted later */
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, late_del, &wkey_late, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, wkey_late, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, late_del, &skey_late, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, skey_late, NULL);

    /* the shared keyval, freed again through the saved copy */
    int k = shared_copy;
    if (MPI_Comm_free_keyval(&k) != MPI_SUCCESS)
        FAIL("free through a copy in a delete callback");
    MPI_Comm_get_attr(MPI_COMM_WORLD, shared_copy, &got, &flag);
    if (!flag)
        FAIL("attribute on MPI_COMM_WORLD gone before its turn");
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    static int uval = 99;
    MPI_Comm_dup(MPI_COMM_WORLD, &ucomm);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, user_del, &ukey, NULL);
    MPI_Comm_set_attr(ucomm, ukey, &uval);

    /* an unfreed communicator with an attribute: whatever MPI_Finalize does
     * with it, nothing may crash */
    MPI_Comm leaked;
    MPI_Comm_dup(MPI_COMM_WORLD, &leaked);
    int lkey;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, leaked_del, &lkey, NULL);
    MPI_Comm_set_attr(leaked, lkey, &uval);

    int tkey;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, predef_type_del, &tkey, NULL);
    MPI_Type_set_attr(MPI_INT, tkey, (void *)0L);
    MPI_Type_set_attr(MPI_DOUBLE, tkey, (void *)1L);
    MPI_Type_free_keyval(&tkey);

    int busy_key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, busy_del, &busy_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, busy_key, NULL);
    MPI_Comm_free_keyval(&busy_key);

    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, shared_del, &shared_key, NULL);
    shared_copy = shared_key;
    MPI_Comm_set_attr(MPI_COMM_SELF, shared_key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, shared_key, NULL);
    MPI_Comm_free_keyval(&shared_key);

    for (int i = 0; i < NWORLD; i++) {
        int k;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, world_del, &k, NULL);
        MPI_Comm_set_attr(MPI_COMM_WORLD, k, (void *)(long)i);
        MPI_Comm_free_keyval(&k);
    }
    for (int i = 0; i < NSELF; i++) {
        int k;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_del, &k, NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)(long)i);
        MPI_Comm_free_keyval(&k);
    }
    /* re-setting keeps the original position (as MPICH does) */
    int rk;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &rk, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, rk, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, rk, &uval);
    MPI_Comm_free_keyval(&rk);

    int rc = MPI_Finalize();
    if (rc != MPI_SUCCESS)
        FAIL("MPI_Finalize returned %d", rc);

    /* self: NSELF-1 .. 0, then the shared one, then busy_del (which adds a
     * late self attribute, deleted next), then world newest first: world
     * late, shared, 2, 1, 0 */
    for (int i = 0; i < NSELF; i++)
        if (self_at[i] != NSELF - i)
            FAIL("self attribute %d deleted at %d, want %d", i, self_at[i], NSELF - i);
    if (busy_at != NSELF + 1)
        FAIL("busy callback at %d, want %d", busy_at, NSELF + 1);
    if (late_self_at != NSELF + 2)
        FAIL("late self attribute at %d, want %d", late_self_at, NSELF + 2);
    if (late_world_at != NSELF + 3)
        FAIL("late world attribute at %d, want %d (after every self one)", late_world_at,
             NSELF + 3);
    for (int i = 0; i < NWORLD; i++)
        if (world_at[i] != NSELF + 3 + NWORLD - i)
            FAIL("world attribute %d deleted at %d, want %d", i, world_at[i], NSELF + 3 + NWORLD - i);
    for (int i = 0; i < 2; i++)
        if (type_at[i] <= NSELF + 3 + NWORLD)
            FAIL("predefined type attribute %d deleted at %d, before MPI_COMM_WORLD's", i,
                 type_at[i]);
    if (type_calls != 2)
        FAIL("predefined type delete callbacks: %d", type_calls);
    if (shared_dels != 2)
        FAIL("shared keyval: %d deletes, want 2", shared_dels);
    if (errors)
        return 1;
    if (rank == 0)
        printf("attr_finalize: OK\n");
    return 0;
}
