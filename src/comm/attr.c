/* Attribute caching: keyvals with copy/delete callbacks, and per-object
 * lists of (keyval, value). A keyval stays alive while attributes use it. */
#include "comm/attr.h"
#include "util/handle.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct keyval {
    int handle;
    int refcount;
    enum attr_obj kind;
    MPI_Comm_copy_attr_function *copy;  /* the type/win variants share the shape */
    MPI_Comm_delete_attr_function *del;
    void *extra;
} keyval_t;

typedef struct attr {
    struct attr *next;
    keyval_t *kv;
    void *value;
} attr_t;

struct attr_list {
    attr_t *head;
};

static rm_htable_t keyval_table = RM_HTABLE_INIT(RM_HOBJ_KEYVAL, 0);

int attr_keyval_create(enum attr_obj kind, void *copy, void *del, void *extra, int *keyval)
{
    keyval_t *k = calloc(1, sizeof *k);
    if (!k)
        return MPI_ERR_NO_MEM;
    k->kind = kind;
    k->copy = (MPI_Comm_copy_attr_function *)copy;
    k->del = (MPI_Comm_delete_attr_function *)del;
    k->extra = extra;
    k->refcount = 1;
    k->handle = rm_htable_alloc(&keyval_table, k);
    if (!k->handle) {
        free(k);
        return MPI_ERR_NO_MEM;
    }
    *keyval = k->handle;
    return MPI_SUCCESS;
}

static keyval_t *attr_keyval(int keyval, enum attr_obj kind)
{
    keyval_t *k = rm_htable_get(&keyval_table, keyval);
    return k && k->kind == kind ? k : NULL;
}

static void attr_keyval_release(keyval_t *k)
{
    if (--k->refcount == 0) {
        rm_htable_free(&keyval_table, k->handle);
        free(k);
    }
}

int attr_keyval_free(enum attr_obj kind, int *keyval)
{
    keyval_t *k = attr_keyval(*keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_keyval_release(k);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static int attr_call_delete(attr_t *a, int handle)
{
    if (!a->kv->del)
        return MPI_SUCCESS;
    return a->kv->del(handle, a->kv->handle, a->value, a->kv->extra);
}

int attr_set(struct attr_list **list, enum attr_obj kind, int handle, int keyval, void *value)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    if (!*list && !(*list = calloc(1, sizeof **list)))
        return MPI_ERR_NO_MEM;
    for (attr_t *a = (*list)->head; a; a = a->next) {
        if (a->kv == k) {
            int rc = attr_call_delete(a, handle);
            if (rc != MPI_SUCCESS)
                return rc;
            a->value = value;
            return MPI_SUCCESS;
        }
    }
    attr_t *a = malloc(sizeof *a);
    if (!a)
        return MPI_ERR_NO_MEM;
    a->kv = k;
    a->value = value;
    a->next = (*list)->head;
    (*list)->head = a;
    k->refcount++;
    return MPI_SUCCESS;
}

int attr_get(struct attr_list *list, enum attr_obj kind, int keyval, void **value, int *flag)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    *flag = 0;
    for (attr_t *a = list ? list->head : NULL; a; a = a->next) {
        if (a->kv == k) {
            *value = a->value;
            *flag = 1;
            break;
        }
    }
    return MPI_SUCCESS;
}

int attr_delete(struct attr_list **list, enum attr_obj kind, int handle, int keyval)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    for (attr_t **pp = *list ? &(*list)->head : NULL; pp && *pp; pp = &(*pp)->next) {
        attr_t *a = *pp;
        if (a->kv == k) {
            int rc = attr_call_delete(a, handle);
            if (rc != MPI_SUCCESS)
                return rc;
            *pp = a->next;
            attr_keyval_release(k);
            free(a);
            return MPI_SUCCESS;
        }
    }
    return MPI_ERR_KEYVAL; /* no such attribute on the object */
}

int attr_delete_all(struct attr_list **list, enum attr_obj kind, int handle)
{
    int rc = MPI_SUCCESS;
    if (!*list)
        return rc;
    while ((*list)->head) {
        attr_t *a = (*list)->head;
        int r = attr_call_delete(a, handle);
        if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
            rc = r;
        (*list)->head = a->next;
        attr_keyval_release(a->kv);
        free(a);
    }
    free(*list);
    *list = NULL;
    return rc;
}

int attr_copy_all(struct attr_list *src, struct attr_list **dst, enum attr_obj kind, int old_handle)
{
    for (attr_t *a = src ? src->head : NULL; a; a = a->next) {
        if (!a->kv->copy)
            continue;
        void *out = NULL;
        int flag = 0;
        int rc = a->kv->copy(old_handle, a->kv->handle, a->kv->extra, a->value, &out, &flag);
        if (rc != MPI_SUCCESS)
            return rc;
        if (flag && (rc = attr_set(dst, kind, 0, a->kv->handle, out)) != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The predefined copy functions: MPI_COMM_DUP_FN and friends copy the value. */
static int attr_dup_fn(int oldobj, int keyval, void *extra, void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPIX_Comm_dup_fn(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    return attr_dup_fn(oldcomm, keyval, extra, in, out, flag);
}

int MPIX_Type_dup_fn(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out, int *flag)
{
    return attr_dup_fn(oldtype, keyval, extra, in, out, flag);
}

int MPIX_Win_dup_fn(MPI_Win oldwin, int keyval, void *extra, void *in, void *out, int *flag)
{
    return attr_dup_fn(oldwin, keyval, extra, in, out, flag);
}
