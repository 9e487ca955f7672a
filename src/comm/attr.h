/* Attribute caching on communicators, datatypes (and windows later):
 * keyvals with copy/delete callbacks, predefined attributes. */
#ifndef RM_COMM_ATTR_H
#define RM_COMM_ATTR_H

#include "mpi.h"

enum attr_obj { ATTR_COMM = 0, ATTR_TYPE, ATTR_WIN };

struct attr_list;

/* Run the delete callbacks of every attribute (newest first) and free the
 * list; the attributes go even when a callback fails. Returns MPI_SUCCESS or
 * the first callback error. */
int attr_delete_all(struct attr_list **list, enum attr_obj kind, int handle);
/* Duplicate the list for MPI_Comm_dup / MPI_Type_dup through the copy
 * callbacks. On a callback error it stops and returns that code; what was
 * copied so far stays in *dst for the caller to delete with the new object. */
int attr_copy_all(struct attr_list **src, struct attr_list **dst, enum attr_obj kind,
                  int old_handle);
/* MPI_Finalize, after MPI_COMM_SELF and MPI_COMM_WORLD: delete the
 * attributes of predefined datatypes, with callbacks (as MPICH does). */
void attr_delete_predefined_types(void);
/* MPI_Finalize, after the MPI_COMM_SELF / MPI_COMM_WORLD deletions: drop the
 * attributes of objects never freed (no callbacks) and every keyval. */
void attr_finalize(void);

int attr_keyval_create(enum attr_obj kind, void *copy, void *del, void *extra, int *keyval);
/* A keyval created through another ABI's library (src/abi): its callbacks
 * are called through these, which convert the object's handle and call the
 * program's procedure fn in that ABI's terms. NULL keeps the C callback. */
typedef int(attr_copy_call_t)(void (*fn)(void), enum attr_obj kind, int handle, int keyval,
                              void *extra, void *in, void *out, int *flag);
typedef int(attr_delete_call_t)(void (*fn)(void), enum attr_obj kind, int handle, int keyval,
                                void *value, void *extra);
int attr_keyval_set_calls(int keyval, attr_copy_call_t *copy_call, void (*copy)(void),
                          attr_delete_call_t *del_call, void (*del)(void));
/* Drops the user's reference; a keyval in use lives on until its last
 * attribute goes. Freeing it again through a copy of the handle is a no-op. */
int attr_keyval_free(enum attr_obj kind, int *keyval);
int attr_set(struct attr_list **list, enum attr_obj kind, int handle, int keyval, void *value);
int attr_get(struct attr_list *list, enum attr_obj kind, int keyval, void **value, int *flag);
/* MPI_SUCCESS when nothing is cached under the key; a failing callback
 * keeps the attribute and its code is returned. */
int attr_delete(struct attr_list **list, enum attr_obj kind, int handle, int keyval);

#endif
