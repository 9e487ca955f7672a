/* ranks: 1 2 4 */
/* Attribute copy and delete callbacks on MPI_Comm_dup(_with_info) and
 * MPI_Type_dup (MPI-3.1 6.7.2-6.7.4): a copy callback that fails makes the
 * dup fail with its code, the new handle is MPI_COMM_NULL/MPI_DATATYPE_NULL
 * and what was already copied gets its delete callback; flag = 0 means not
 * copied; the predefined copy functions; replacing a value deletes the old
 * one; a failing delete callback fails delete_attr and free, and leaves the
 * attribute. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int rank;
static int deleted[8];  /* delete callback calls, by the int the value points to */
static int copies;      /* copy callback calls */
static int del_fail;    /* the failing delete callback fails while set */
static int vals[8] = {0, 1, 2, 3, 4, 5, 6, 7};

static int del_count(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)extra;
    deleted[*(int *)val]++;
    return MPI_SUCCESS;
}

static int del_maybe_fail(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)extra;
    deleted[*(int *)val]++;
    return del_fail ? MPI_ERR_INTERN : MPI_SUCCESS;
}

static int copy_fail(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 1; /* must not matter: the error wins */
    return MPI_ERR_OTHER;
}

static int copy_noflag(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 0;
    return MPI_SUCCESS;
}

static int type_del_count(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)extra;
    deleted[*(int *)val]++;
    return MPI_SUCCESS;
}

static int type_copy_fail(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)key, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 1;
    return MPI_ERR_OTHER;
}

static void reset(void)
{
    for (int i = 0; i < 8; i++)
        deleted[i] = 0;
    copies = 0;
}

static void check_comm_dup_fails(MPI_Comm a, int with_info)
{
    MPI_Comm b = MPI_COMM_SELF; /* anything but MPI_COMM_NULL */
    reset();
    int rc = with_info ? MPI_Comm_dup_with_info(a, MPI_INFO_NULL, &b) : MPI_Comm_dup(a, &b);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "dup%s with a failing copy callback: %d",
          with_info ? "_with_info" : "", rc);
    CHECK(b == MPI_COMM_NULL, "failed dup left newcomm 0x%x", (unsigned)b);
    CHECK(copies == 1, "failing copy callback ran %d times", copies);
    /* value 1 (set last, copied first) was copied before the failure */
    CHECK(deleted[1] == 1, "the attribute copied before the failure was deleted %d times",
          deleted[1]);
    CHECK(deleted[2] == 0 && deleted[3] == 0, "attributes of the old comm were deleted");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */

    /* ---- MPI_Comm_dup with a failing copy callback ---- */
    int kdup, kfail, knull, knoflag, kold;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_count, &kdup, NULL);
    MPI_Comm_create_keyval(copy_fail, del_count, &kfail, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_count, &knull, NULL);
    MPI_Comm_create_keyval(copy_noflag, del_count, &knoflag, NULL);
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kold, NULL);
    MPI_Comm a;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_set_attr(a, knull, &vals[3]);
    MPI_Comm_set_attr(a, kfail, &vals[2]);
    MPI_Comm_set_attr(a, kdup, &vals[1]);
    check_comm_dup_fails(a, 0);
    check_comm_dup_fails(a, 1);

    /* without the failing one: copied, not copied (null copy, flag 0), MPI-1 MPI_DUP_FN */
    MPI_Comm_delete_attr(a, kfail);
    CHECK(deleted[2] == 1, "delete_attr ran the delete callback %d times", deleted[2]);
    MPI_Comm_set_attr(a, knoflag, &vals[4]);
    MPI_Attr_put(a, kold, &vals[5]);
    reset();
    MPI_Comm b;
    CHECK(MPI_Comm_dup(a, &b) == MPI_SUCCESS, "dup");
    CHECK(copies == 1, "the flag-0 copy callback ran %d times", copies);
    int flag, *got;
    MPI_Comm_get_attr(b, kdup, &got, &flag);
    CHECK(flag && got == &vals[1], "MPI_COMM_DUP_FN did not copy");
    MPI_Comm_get_attr(b, knull, &got, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
    MPI_Comm_get_attr(b, knoflag, &got, &flag);
    CHECK(!flag, "a copy callback returning flag = 0 copied");
    MPI_Attr_get(b, kold, &got, &flag);
    CHECK(flag && got == &vals[5], "MPI_DUP_FN did not copy");

    /* replacing a value deletes the old one, with the old value */
    reset();
    MPI_Comm_set_attr(b, kdup, &vals[6]);
    CHECK(deleted[1] == 1 && deleted[6] == 0, "replacing did not delete the old value");
    MPI_Comm_get_attr(b, kdup, &got, &flag);
    CHECK(flag && got == &vals[6], "replaced value");
    /* deleting a key with nothing cached is not an error (as in MPICH) */
    CHECK(MPI_Comm_delete_attr(b, knull) == MPI_SUCCESS, "delete_attr of an absent attribute");
    reset();
    MPI_Comm_free(&b);
    CHECK(b == MPI_COMM_NULL && deleted[6] == 1, "free: delete callback %d", deleted[6]);

    /* ---- a failing delete callback ---- */
    int kdelfail;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_maybe_fail, &kdelfail, NULL);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_set_attr(c, kdelfail, &vals[7]);
    del_fail = 1;
    int rc = MPI_Comm_delete_attr(c, kdelfail), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INTERN, "delete_attr with a failing callback: %d", rc);
    MPI_Comm_get_attr(c, kdelfail, &got, &flag);
    CHECK(flag && got == &vals[7], "the attribute went although its delete callback failed");
    rc = MPI_Comm_set_attr(c, kdelfail, &vals[6]);
    CHECK(rc != MPI_SUCCESS, "set_attr replaced although the delete callback failed");
    MPI_Comm_get_attr(c, kdelfail, &got, &flag);
    CHECK(flag && got == &vals[7], "value changed by a failed set_attr");
    MPI_Comm cc = c;
    rc = MPI_Comm_free(&cc);
    CHECK(rc != MPI_SUCCESS && cc == c, "free with a failing delete callback: %d", rc);
    del_fail = 0;
    MPI_Comm_get_attr(c, kdelfail, &got, &flag);
    CHECK(!flag, "the attributes stay after a failed free");
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS, "second free");

    /* ---- MPI_Type_dup ---- */
    int tdup, tfail, tnull;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_del_count, &tdup, NULL);
    MPI_Type_create_keyval(type_copy_fail, type_del_count, &tfail, NULL);
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del_count, &tnull, NULL);
    MPI_Datatype t, t2 = MPI_INT;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, tnull, &vals[3]);
    MPI_Type_set_attr(t, tfail, &vals[2]);
    MPI_Type_set_attr(t, tdup, &vals[1]);
    reset();
    rc = MPI_Type_dup(t, &t2);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "type dup with a failing copy callback: %d",
          rc);
    CHECK(t2 == MPI_DATATYPE_NULL, "failed type dup left newtype 0x%x", (unsigned)t2);
    CHECK(deleted[1] == 1 && deleted[2] == 0 && deleted[3] == 0,
          "type: copied attribute deleted %d times", deleted[1]);
    MPI_Type_delete_attr(t, tfail);
    reset();
    CHECK(MPI_Type_dup(t, &t2) == MPI_SUCCESS, "type dup");
    MPI_Type_get_attr(t2, tdup, &got, &flag);
    CHECK(flag && got == &vals[1], "MPI_TYPE_DUP_FN did not copy");
    MPI_Type_get_attr(t2, tnull, &got, &flag);
    CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied");
    MPI_Type_free(&t2);
    CHECK(deleted[1] == 1, "type free: delete callback %d", deleted[1]);
    /* attributes on a predefined type are allowed, and copied by its dup */
    MPI_Type_set_attr(MPI_DOUBLE, tdup, &vals[4]);
    MPI_Type_dup(MPI_DOUBLE, &t2);
    MPI_Type_get_attr(t2, tdup, &got, &flag);
    CHECK(flag && got == &vals[4], "attribute of MPI_DOUBLE not copied");
    reset();
    MPI_Type_free(&t2);
    MPI_Type_free(&t);
    CHECK(deleted[4] == 1 && deleted[1] == 1 && deleted[3] == 1, "type frees: %d %d %d",
          deleted[4], deleted[1], deleted[3]);
    MPI_Type_delete_attr(MPI_DOUBLE, tdup);
    CHECK(deleted[4] == 2, "delete on MPI_DOUBLE");

    MPI_Comm_free(&a);
    int keys[] = {kdup, kfail, knull, knoflag, kdelfail};
    for (int i = 0; i < 5; i++)
        CHECK(MPI_Comm_free_keyval(&keys[i]) == MPI_SUCCESS && keys[i] == MPI_KEYVAL_INVALID,
              "free keyval %d", i);
    MPI_Keyval_free(&kold);
    MPI_Type_free_keyval(&tdup);
    MPI_Type_free_keyval(&tfail);
    MPI_Type_free_keyval(&tnull);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("attr_copy_error: OK\n");
    MPI_Finalize();
    return 0;
}
