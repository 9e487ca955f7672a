/* Attribute caching: keyvals with copy/delete callbacks, and per-object
 * lists of (keyval, value).
 *
 * Callbacks are user code that may call MPI again, on the same object or
 * others: set, get or delete attributes, free the keyval, duplicate or free
 * other objects. So no list walk ever holds a pointer across a callback that
 * the callback could free: a node being handed to its delete callback is
 * marked busy (nested deletes of it are no-ops, and nothing frees it), the
 * keyval is held by an extra reference while its callback runs, and a copy
 * works from a snapshot of the source's keyvals. */
#include "comm/attr.h"
#include "util/handle.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct keyval {
    int handle;
    /* one for the user until MPI_*_free_keyval, one per attribute, one per
     * callback in progress */
    int refcount;
    int user_freed;
    enum attr_obj kind;
    MPI_Comm_copy_attr_function *copy; /* the type/win variants share the shape */
    MPI_Comm_delete_attr_function *del;
    void *extra;
    attr_copy_call_t *copy_call; /* another ABI's callbacks (attr_keyval_set_calls) */
    void (*copy_fn)(void);
    attr_delete_call_t *del_call;
    void (*del_fn)(void);
} keyval_t;

typedef struct attr {
    struct attr *next;
    keyval_t *kv;
    void *value;
    int busy; /* its delete callback is running */
} attr_t;

/* Every list is registered so that MPI_Finalize can drop the attributes of
 * objects the program never freed (no callbacks then, as in MPICH). */
struct attr_list {
    attr_t *head;
    struct attr_list *prev, *next;
    struct attr_list **owner;
    enum attr_obj kind;
    int handle; /* of the object, when known (set by attr_set) */
};

static rm_htable_t keyval_table = RM_HTABLE_INIT(RM_HOBJ_KEYVAL, 0);
static struct attr_list *attr_lists;

/* A released keyval leaves its slot to one of these for good: a stale copy
 * of the handle then never names a newer keyval, and freeing it again is
 * the harmless no-op MPICH makes of it. */
static keyval_t keyval_dead[3] = {
    {.kind = ATTR_COMM, .user_freed = 1},
    {.kind = ATTR_TYPE, .user_freed = 1},
    {.kind = ATTR_WIN, .user_freed = 1},
};

static int keyval_is_dead(const keyval_t *k)
{
    return k >= keyval_dead && k < keyval_dead + 3;
}

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

/* A live keyval of this kind (freed by the user but still in use counts). */
static keyval_t *attr_keyval(int keyval, enum attr_obj kind)
{
    keyval_t *k = rm_htable_get(&keyval_table, keyval);
    return k && !keyval_is_dead(k) && k->kind == kind ? k : NULL;
}

static void attr_keyval_release(keyval_t *k)
{
    if (--k->refcount == 0) {
        int idx = RM_HANDLE_INDEX(k->handle);
        keyval_table.slots[idx] = &keyval_dead[k->kind];
        free(k);
    }
}

int attr_keyval_free(enum attr_obj kind, int *keyval)
{
    keyval_t *k = rm_htable_get(&keyval_table, *keyval);
    if (!k || k->kind != kind)
        return MPI_ERR_KEYVAL;
    if (!k->user_freed) {
        k->user_freed = 1;
        attr_keyval_release(k);
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int attr_keyval_set_calls(int keyval, attr_copy_call_t *copy_call, void (*copy)(void),
                          attr_delete_call_t *del_call, void (*del)(void))
{
    keyval_t *k = rm_htable_get(&keyval_table, keyval);
    if (!k)
        return MPI_ERR_KEYVAL;
    k->copy_call = copy_call;
    k->copy_fn = copy;
    k->del_call = del_call;
    k->del_fn = del;
    return MPI_SUCCESS;
}

static int attr_call_delete(keyval_t *k, int handle, void *value)
{
    if (!k->del)
        return MPI_SUCCESS;
    k->refcount++;
    int rc = k->del_call ? k->del_call(k->del_fn, k->kind, handle, k->handle, value, k->extra)
                         : k->del(handle, k->handle, value, k->extra);
    attr_keyval_release(k);
    return rc;
}

static attr_t *attr_find(struct attr_list *list, const keyval_t *k)
{
    for (attr_t *a = list ? list->head : NULL; a; a = a->next)
        if (a->kv == k)
            return a;
    return NULL;
}

static struct attr_list *attr_list_get(struct attr_list **list, enum attr_obj kind, int handle)
{
    if (*list)
        return *list;
    struct attr_list *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->owner = list;
    l->kind = kind;
    l->handle = handle;
    l->next = attr_lists;
    if (attr_lists)
        attr_lists->prev = l;
    attr_lists = l;
    *list = l;
    return l;
}

static void attr_list_drop(struct attr_list **list)
{
    struct attr_list *l = *list;
    if (l->prev)
        l->prev->next = l->next;
    else
        attr_lists = l->next;
    if (l->next)
        l->next->prev = l->prev;
    *list = NULL;
    free(l);
}

static void attr_unlink(struct attr_list *l, attr_t *a)
{
    for (attr_t **pp = &l->head; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    attr_keyval_release(a->kv);
    free(a);
}

/* New attributes go first: the list is in reverse order of setting, the
 * order MPI_Finalize deletes MPI_COMM_SELF's in (MPI-3.1 8.7.1). */
static int attr_insert(struct attr_list **list, keyval_t *k, int handle, void *value,
                       attr_t **tail)
{
    struct attr_list *l = attr_list_get(list, k->kind, handle);
    attr_t *a = l ? malloc(sizeof *a) : NULL;
    if (!a)
        return MPI_ERR_NO_MEM;
    a->kv = k;
    a->value = value;
    a->busy = 0;
    if (tail && *tail) {
        a->next = (*tail)->next;
        (*tail)->next = a;
    } else {
        a->next = l->head;
        l->head = a;
    }
    if (tail)
        *tail = a;
    k->refcount++;
    return MPI_SUCCESS;
}

int attr_set(struct attr_list **list, enum attr_obj kind, int handle, int keyval, void *value)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_t *a = attr_find(*list, k);
    if (a && !a->busy) {
        /* replacing: as if MPI_*_delete_attr ran first (MPI-3.1 6.7.2) */
        a->busy = 1;
        int rc = attr_call_delete(k, handle, a->value);
        a->busy = 0;
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (a) {
        a->value = value;
        return MPI_SUCCESS;
    }
    return attr_insert(list, k, handle, value, NULL);
}

int attr_get(struct attr_list *list, enum attr_obj kind, int keyval, void **value, int *flag)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_t *a = attr_find(list, k);
    *flag = a != NULL;
    if (a)
        *value = a->value;
    return MPI_SUCCESS;
}

int attr_delete(struct attr_list **list, enum attr_obj kind, int handle, int keyval)
{
    keyval_t *k = attr_keyval(keyval, kind);
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_t *a = attr_find(*list, k);
    if (!a || a->busy)
        return MPI_SUCCESS; /* nothing cached under this key: MPICH does nothing too */
    a->busy = 1;
    int rc = attr_call_delete(k, handle, a->value);
    a->busy = 0;
    if (rc != MPI_SUCCESS)
        return rc; /* the attribute stays */
    attr_unlink(*list, a);
    return MPI_SUCCESS;
}

/* A callback that sets a new attribute for every one deleted would keep
 * the object alive forever; after this many extra deletions the rest go
 * without their callbacks. */
#define ATTR_DELETE_SLACK 4096

int attr_delete_all(struct attr_list **list, enum attr_obj kind, int handle)
{
    (void)kind;
    int rc = MPI_SUCCESS, budget = ATTR_DELETE_SLACK;
    if (!*list)
        return rc;
    for (attr_t *a = (*list)->head; a; a = a->next)
        budget++;
    for (;;) {
        attr_t *a = *list ? (*list)->head : NULL;
        while (a && a->busy)
            a = a->next;
        if (!a)
            break;
        a->busy = 1;
        if (budget-- > 0) {
            int r = attr_call_delete(a->kv, handle, a->value);
            if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
                rc = r;
        }
        /* unlike MPI_*_delete_attr, an object going away loses the
         * attribute even when the callback fails (MPICH does the same) */
        attr_unlink(*list, a);
    }
    /* a busy node left means an outer deletion of it is still running */
    if (*list && !(*list)->head)
        attr_list_drop(list);
    return rc;
}

int attr_copy_all(struct attr_list **src, struct attr_list **dst, enum attr_obj kind,
                  int old_handle)
{
    (void)kind;
    int n = 0, rc = MPI_SUCCESS;
    for (attr_t *a = *src ? (*src)->head : NULL; a; a = a->next)
        n += a->kv->copy != NULL;
    if (!n)
        return MPI_SUCCESS;
    keyval_t **snap = malloc(sizeof *snap * (size_t)n);
    if (!snap)
        return MPI_ERR_NO_MEM;
    int m = 0;
    for (attr_t *a = (*src)->head; a && m < n; a = a->next) {
        if (a->kv->copy) {
            snap[m] = a->kv;
            snap[m++]->refcount++; /* a callback may free the keyval */
        }
    }
    attr_t *tail = NULL; /* the copy keeps the original's order */
    int i = 0;
    for (; i < m && rc == MPI_SUCCESS; i++) {
        keyval_t *k = snap[i];
        /* an earlier callback may have deleted or replaced it */
        attr_t *a = attr_find(*src, k);
        if (a) {
            void *out = NULL;
            int flag = 0;
            rc = k->copy_call ? k->copy_call(k->copy_fn, k->kind, old_handle, k->handle, k->extra,
                                             a->value, &out, &flag)
                              : k->copy(old_handle, k->handle, k->extra, a->value, &out, &flag);
            if (rc == MPI_SUCCESS && flag) {
                attr_t *have = attr_find(*dst, k);
                if (have)
                    have->value = out;
                else
                    rc = attr_insert(dst, k, 0, out, &tail);
            }
        }
        attr_keyval_release(k);
    }
    for (; i < m; i++)
        attr_keyval_release(snap[i]);
    free(snap);
    return rc;
}

void attr_delete_predefined_types(void)
{
    for (int round = 0; round < 64; round++) {
        struct attr_list *l = attr_lists;
        while (l && !(l->kind == ATTR_TYPE && RM_HANDLE_KIND(l->handle) == RM_HKIND_BUILTIN))
            l = l->next;
        if (!l)
            return;
        /* may drop lists, this one included: look again from the start */
        attr_delete_all(l->owner, ATTR_TYPE, l->handle);
    }
}

void attr_finalize(void)
{
    while (attr_lists) {
        struct attr_list *l = attr_lists;
        while (l->head) {
            attr_t *a = l->head;
            l->head = a->next;
            attr_keyval_release(a->kv);
            free(a);
        }
        attr_list_drop(l->owner);
    }
    for (int i = 0; i < keyval_table.used; i++) {
        keyval_t *k = keyval_table.slots[i];
        if (k && !keyval_is_dead(k))
            free(k);
    }
    rm_htable_destroy(&keyval_table);
}

/* The predefined copy functions: MPI_COMM_DUP_FN and friends copy the value. */
static int attr_dup_fn(int oldobj, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldobj;
    (void)keyval;
    (void)extra;
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
