/* Attribute caching on communicators, datatypes (and windows later):
 * keyvals with copy/delete callbacks, predefined attributes. */
#ifndef RM_COMM_ATTR_H
#define RM_COMM_ATTR_H

#include "mpi.h"

enum attr_obj { ATTR_COMM = 0, ATTR_TYPE, ATTR_WIN };

struct attr_list;

/* Run the delete callbacks of every attribute and free the list. Returns
 * MPI_SUCCESS or the first callback error. */
int attr_delete_all(struct attr_list **list, enum attr_obj kind, int handle);
/* Duplicate the list for MPI_Comm_dup / MPI_Type_dup through the copy callbacks. */
int attr_copy_all(struct attr_list *src, struct attr_list **dst, enum attr_obj kind,
                  int old_handle);

int attr_keyval_create(enum attr_obj kind, void *copy, void *del, void *extra, int *keyval);
int attr_keyval_free(enum attr_obj kind, int *keyval);
int attr_set(struct attr_list **list, enum attr_obj kind, int handle, int keyval, void *value);
int attr_get(struct attr_list *list, enum attr_obj kind, int keyval, void **value, int *flag);
int attr_delete(struct attr_list **list, enum attr_obj kind, int handle, int keyval);

#endif
