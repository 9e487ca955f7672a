/* ranks: 1 2 */
/* Attribute callbacks that call MPI on the very object they work on: a
 * delete callback deleting, setting or re-deleting attributes of the
 * communicator being freed, a copy callback changing the list being copied
 * or freeing its keyval, a replace whose delete callback deletes the same
 * attribute. Nothing may crash or leak (run under ASan), every value is
 * deleted exactly once. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank;
static int ka, kb, kc, kself, kfree;
static int dels[16]; /* per value index */
static int vals[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* value 1's callback deletes the attribute holding value 2 on the same comm
 * and sets a new one (value 3) under kc */
static int del_meddle(MPI_Comm c, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    int i = *(int *)val;
    dels[i]++;
    if (i == 1) {
        MPI_Comm_delete_attr(c, kb);
        MPI_Comm_set_attr(c, kc, &vals[3]);
    }
    return MPI_SUCCESS;
}

/* deletes its own attribute again, from inside its delete callback */
static int del_self(MPI_Comm c, int key, void *val, void *extra)
{
    (void)extra;
    dels[*(int *)val]++;
    if (MPI_Comm_delete_attr(c, key) != MPI_SUCCESS)
        dels[15] += 100;
    int flag;
    void *v;
    MPI_Comm_get_attr(c, key, &v, &flag);
    return MPI_SUCCESS;
}

/* copy callback that deletes the next attribute of the old comm, sets a new
 * one there, and copies */
static int copy_meddle(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)key, (void)extra;
    MPI_Comm_delete_attr(old, kb);
    MPI_Comm_set_attr(old, kc, &vals[6]);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* copy callback that frees its keyval (through the copy it is given) */
static int copy_free_keyval(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)extra;
    int k = key;
    MPI_Comm_free_keyval(&k);
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int del_count(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)extra;
    dels[*(int *)val]++;
    return MPI_SUCCESS;
}

static int type_del_meddle(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)key;
    int i = *(int *)val;
    dels[i]++;
    if (i == 8) { /* delete the other attribute of the same type */
        MPI_Type_delete_attr(t, *(int *)extra);
    }
    return MPI_SUCCESS;
}

static void reset(void)
{
    for (int i = 0; i < 16; i++)
        dels[i] = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_meddle, &ka, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_count, &kb, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_count, &kc, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &kself, NULL);
    MPI_Comm_create_keyval(copy_free_keyval, del_count, &kfree, NULL);

    /* free: value 1's callback deletes value 2 (set before it) and adds value 3 */
    for (int round = 0; round < 2; round++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        reset();
        if (round == 0) {
            MPI_Comm_set_attr(c, kb, &vals[2]);
            MPI_Comm_set_attr(c, ka, &vals[1]);
        } else { /* the other order: value 2 is gone first, value 1 still meddles */
            MPI_Comm_set_attr(c, ka, &vals[1]);
            MPI_Comm_set_attr(c, kb, &vals[2]);
        }
        MPI_Comm_free(&c);
        CHECK(dels[1] == 1 && dels[2] == 1 && dels[3] == 1, "round %d: deletes %d %d %d", round,
              dels[1], dels[2], dels[3]);
    }

    /* delete_attr whose callback deletes the same attribute again */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    reset();
    MPI_Comm_set_attr(c, kself, &vals[4]);
    CHECK(MPI_Comm_delete_attr(c, kself) == MPI_SUCCESS, "delete_attr");
    CHECK(dels[4] == 1 && dels[15] == 0, "self-deleting callback: %d %d", dels[4], dels[15]);
    int flag;
    void *v;
    MPI_Comm_get_attr(c, kself, &v, &flag);
    CHECK(!flag, "attribute still there");
    /* and on replace */
    MPI_Comm_set_attr(c, kself, &vals[4]);
    MPI_Comm_set_attr(c, kself, &vals[5]);
    MPI_Comm_get_attr(c, kself, &v, &flag);
    CHECK(flag && v == &vals[5], "replace with a self-deleting callback");
    MPI_Comm_free(&c);
    CHECK(dels[4] == 2 && dels[5] == 1 && dels[15] == 0, "deletes %d %d %d", dels[4], dels[5],
          dels[15]);

    /* dup whose copy callback changes the list being copied */
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    int kmeddle;
    MPI_Comm_create_keyval(copy_meddle, del_count, &kmeddle, NULL);
    MPI_Comm_set_attr(a, kb, &vals[7]);
    MPI_Comm_set_attr(a, kmeddle, &vals[9]);
    reset();
    MPI_Comm_dup(a, &b);
    CHECK(dels[7] == 1, "value 7 deleted by the copy callback: %d", dels[7]);
    int *got;
    MPI_Comm_get_attr(b, kmeddle, &got, &flag);
    CHECK(flag && got == &vals[9], "meddling attribute copied");
    MPI_Comm_get_attr(b, kb, &got, &flag);
    CHECK(!flag, "an attribute deleted by an earlier copy callback was copied");
    MPI_Comm_get_attr(a, kc, &got, &flag);
    CHECK(flag && got == &vals[6], "set by a copy callback");
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
    MPI_Comm_free_keyval(&kmeddle);

    /* copy callback freeing its keyval: the keyval lives while attributes use it */
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, kfree, &vals[10]);
    int kfree_copy = kfree;
    reset();
    MPI_Comm_dup(a, &b);
    MPI_Comm d;
    MPI_Comm_dup(b, &d); /* frees it "again" */
    MPI_Comm_get_attr(d, kfree_copy, &got, &flag);
    CHECK(flag && got == &vals[10], "copy after the keyval was freed in a copy callback");
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&d);
    CHECK(dels[10] == 3, "deletes of value 10: %d", dels[10]);
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, kfree_copy, &vals[10]) != MPI_SUCCESS,
          "the keyval should be gone");

    /* datatypes: a delete callback deleting the type's other attribute */
    int tk1, tk2;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_del_meddle, &tk1, &tk2);
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_del_meddle, &tk2, &tk1);
    MPI_Datatype t, t2;
    MPI_Type_contiguous(4, MPI_SHORT, &t);
    MPI_Type_set_attr(t, tk2, &vals[11]);
    MPI_Type_set_attr(t, tk1, &vals[8]);
    MPI_Type_dup(t, &t2);
    reset();
    MPI_Type_free(&t);
    MPI_Type_free(&t2);
    CHECK(dels[8] == 2 && dels[11] == 2, "type deletes %d %d", dels[8], dels[11]);
    MPI_Type_free_keyval(&tk1);
    MPI_Type_free_keyval(&tk2);

    MPI_Comm_free_keyval(&ka);
    MPI_Comm_free_keyval(&kb);
    MPI_Comm_free_keyval(&kc);
    MPI_Comm_free_keyval(&kself);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attr_reentry: OK\n");
    MPI_Finalize();
    return 0;
}
