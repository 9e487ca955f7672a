/* ranks: 1 2 */
/* Keyval lifetime and invalid keyvals (MPI-3.1 6.7.2-6.7.4): a keyval freed
 * while attributes use it lives on until the last one goes (its callbacks
 * still run, dup still copies); the handle is set to MPI_KEYVAL_INVALID;
 * freeing it again through a copy of the handle, also from inside its own
 * delete callback, is a harmless no-op (as in MPICH); bad keyvals, keyvals
 * of the wrong object kind and the read-only predefined attributes give
 * MPI_ERR_KEYVAL; the predefined attributes answer on every communicator. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static int dels, del_key_seen, del_val_seen;

static int del_record(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)extra;
    dels++;
    del_key_seen = key;
    del_val_seen = *(int *)val;
    return MPI_SUCCESS;
}

/* frees the keyval through the copy of the handle it is given */
static int del_free_keyval(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    dels++;
    int k = key;
    int rc = MPI_Comm_free_keyval(&k);
    if (rc != MPI_SUCCESS || k != MPI_KEYVAL_INVALID)
        dels += 1000;
    return MPI_SUCCESS;
}

static int type_del_free_keyval(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)val, (void)extra;
    dels++;
    int k = key;
    if (MPI_Type_free_keyval(&k) != MPI_SUCCESS)
        dels += 1000;
    return MPI_SUCCESS;
}

static int expect_keyval_error(int rc)
{
    int cls = -1;
    if (rc == MPI_SUCCESS)
        return 0;
    MPI_Error_class(rc, &cls);
    return cls == MPI_ERR_KEYVAL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* ---- a keyval freed while in use ---- */
    static int v1 = 11, v2 = 22;
    int key, copy, flag, *got;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_record, &key, NULL);
    copy = key;
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, key, &v1);
    CHECK(MPI_Comm_free_keyval(&key) == MPI_SUCCESS, "free keyval in use");
    CHECK(key == MPI_KEYVAL_INVALID, "keyval not set to MPI_KEYVAL_INVALID");
    MPI_Comm_get_attr(a, copy, &got, &flag);
    CHECK(flag && got == &v1, "attribute lost when its keyval was freed");
    CHECK(MPI_Comm_dup(a, &b) == MPI_SUCCESS, "dup after keyval free");
    MPI_Comm_get_attr(b, copy, &got, &flag);
    CHECK(flag && got == &v1, "a freed keyval in use still copies");
    /* freeing again through the copy: a no-op, the attributes stay */
    int c2 = copy;
    CHECK(MPI_Comm_free_keyval(&c2) == MPI_SUCCESS && c2 == MPI_KEYVAL_INVALID,
          "second free through a copy");
    MPI_Comm_get_attr(b, copy, &got, &flag);
    CHECK(flag && got == &v1, "second free through a copy released the keyval");
    MPI_Comm_set_attr(b, copy, &v2); /* replace: the old value is deleted */
    CHECK(dels == 1 && del_val_seen == 11 && del_key_seen == copy, "replace: %d", dels);
    MPI_Comm_free(&a);
    CHECK(dels == 2 && del_val_seen == 11 && del_key_seen == copy, "free a: %d", dels);
    MPI_Comm_free(&b);
    CHECK(dels == 3 && del_val_seen == 22, "free b: %d", dels);
    /* now gone for good: using it is an error, freeing it once more is not fatal */
    CHECK(expect_keyval_error(MPI_Comm_set_attr(MPI_COMM_SELF, copy, &v1)), "set with a dead keyval");
    c2 = copy;
    int rc = MPI_Comm_free_keyval(&c2);
    CHECK(rc == MPI_SUCCESS || expect_keyval_error(rc), "third free: %d", rc);
    /* a new keyval never takes over the dead one's handle */
    int fresh;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &fresh, NULL);
    CHECK(fresh != copy, "keyval handle reused");
    c2 = copy;
    MPI_Comm_free_keyval(&c2);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, fresh, &v1) == MPI_SUCCESS,
          "a stale handle freed a newer keyval");
    MPI_Comm_delete_attr(MPI_COMM_SELF, fresh);
    MPI_Comm_free_keyval(&fresh);

    /* ---- delete callbacks that free their keyval (MPICH's double-free pattern) ---- */
    dels = 0;
    int k2, k2copy;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Keyval_create(MPI_NULL_COPY_FN, del_free_keyval, &k2, NULL);
    k2copy = k2;
    MPI_Attr_put(MPI_COMM_SELF, k2, NULL);
    MPI_Attr_put(dup, k2, NULL);
    MPI_Comm_free(&dup); /* first free, in the callback */
    CHECK(dels == 1, "delete callback on free: %d", dels);
    CHECK(MPI_Keyval_free(&k2) == MPI_SUCCESS, "second free");
    rc = MPI_Keyval_free(&k2copy); /* third */
    CHECK(rc == MPI_SUCCESS, "third free through a copy: %d", rc);
    /* the attribute on MPI_COMM_SELF keeps the keyval alive; its callback
     * frees it a fourth time at MPI_Finalize */

    /* the same on datatypes */
    int tk, tkcopy;
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_CHAR, &t);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del_free_keyval, &tk, NULL);
    tkcopy = tk;
    MPI_Type_set_attr(t, tk, NULL);
    MPI_Type_set_attr(MPI_INT, tk, NULL);
    CHECK(MPI_Type_free_keyval(&tk) == MPI_SUCCESS && tk == MPI_KEYVAL_INVALID, "type keyval free");
    dels = 0;
    MPI_Type_free(&t);
    CHECK(dels == 1, "type delete callback: %d", dels);
    CHECK(MPI_Type_free_keyval(&tkcopy) == MPI_SUCCESS, "type keyval free through a copy");
    /* MPI_INT keeps its attribute (and so the keyval) until MPI_Finalize */

    /* ---- invalid keyvals ---- */
    int ck, tk2;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tk2, NULL);
    void *p;
    CHECK(expect_keyval_error(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v1)),
          "set with MPI_KEYVAL_INVALID");
    CHECK(expect_keyval_error(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &p, &flag)),
          "get with MPI_KEYVAL_INVALID");
    CHECK(expect_keyval_error(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID)),
          "delete with MPI_KEYVAL_INVALID");
    CHECK(expect_keyval_error(MPI_Type_set_attr(MPI_INT, ck, &v1)), "comm keyval on a type");
    CHECK(expect_keyval_error(MPI_Type_get_attr(MPI_INT, ck, &p, &flag)), "comm keyval get on a type");
    CHECK(expect_keyval_error(MPI_Type_delete_attr(MPI_INT, ck)), "comm keyval delete on a type");
    CHECK(expect_keyval_error(MPI_Comm_set_attr(MPI_COMM_WORLD, tk2, &v1)), "type keyval on a comm");
    CHECK(expect_keyval_error(MPI_Comm_get_attr(MPI_COMM_WORLD, tk2, &p, &flag)),
          "type keyval get on a comm");
    int ckc = ck;
    CHECK(expect_keyval_error(MPI_Type_free_keyval(&ckc)), "Type_free_keyval of a comm keyval");
    int invalid = MPI_KEYVAL_INVALID;
    CHECK(expect_keyval_error(MPI_Comm_free_keyval(&invalid)), "free MPI_KEYVAL_INVALID");
    MPI_Comm_free_keyval(&ck);
    MPI_Type_free_keyval(&tk2);

    /* ---- predefined attributes: read-only, on every communicator ---- */
    const int pre[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
                       MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE};
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    for (int i = 0; i < 7; i++) {
        CHECK(expect_keyval_error(MPI_Comm_set_attr(MPI_COMM_WORLD, pre[i], &v1)),
              "set predefined %d", i);
        CHECK(expect_keyval_error(MPI_Comm_delete_attr(MPI_COMM_WORLD, pre[i])),
              "delete predefined %d", i);
        int pk = pre[i];
        CHECK(expect_keyval_error(MPI_Comm_free_keyval(&pk)), "free predefined %d", i);
        CHECK(expect_keyval_error(MPI_Type_set_attr(MPI_INT, pre[i], &v1)),
              "predefined keyval on a type %d", i);
        int *w, *x;
        MPI_Comm_get_attr(MPI_COMM_WORLD, pre[i], &w, &flag);
        CHECK(flag, "predefined %d missing on MPI_COMM_WORLD", i);
        int wv = *w;
        *w = -12345; /* writing through the pointer changes nothing */
        MPI_Comm_get_attr(d, pre[i], &x, &flag);
        CHECK(flag && *x == wv, "predefined %d on a dup: flag %d", i, flag);
    }
    int *tagub, *usize;
    MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &tagub, &flag);
    CHECK(flag && *tagub >= 32767, "MPI_TAG_UB on MPI_COMM_SELF");
    MPI_Comm_get_attr(d, MPI_UNIVERSE_SIZE, &usize, &flag);
    CHECK(flag && *usize >= size, "MPI_UNIVERSE_SIZE");
    MPI_Comm_free(&d);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attr_keyval: OK\n");
    MPI_Finalize();
    return 0;
}
