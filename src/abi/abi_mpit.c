/* The standard ABI's MPI_T event procedures: MPI_T_event_register_callback,
 * MPI_T_event_set_dropped_handler and MPI_T_event_handle_free. The engine
 * calls a procedure with its own callback safety level; the program's must
 * see the ABI's value. So the engine holds a trampoline: an event callback's
 * user data is a box with the program's procedure and user data; a
 * registration's dropped handler and free callback live in a record of this
 * layer, found by the registration, which the free trampoline releases with
 * every box of the registration once the engine lets the registration go
 * (after its last callback returned). Registrations and instances are
 * pointers in both ABIs and pass as they are. docs/abi.md, "MPI_T". */
#include <pthread.h>
#include <stdlib.h>

#include "abi_conv.h"
#include "abi_tables.h"

typedef struct abi_cb_box {
    struct abi_cb_box *next;
    MPI_T_event_cb_function *fn;
    void *ud;
} abi_cb_box_t;

typedef struct abi_ev_rec {
    struct abi_ev_rec *next;
    MPI_T_event_registration reg;
    MPI_T_event_dropped_cb_function *dropped;
    MPI_T_event_free_cb_function *free_fn;
    void *free_ud;
    abi_cb_box_t *boxes; /* every box handed to the engine for reg */
} abi_ev_rec_t;

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static abi_ev_rec_t *recs;

/* under rec_lock: reg's record, made when make and there is none */
static abi_ev_rec_t *rec_find(MPI_T_event_registration reg, int make)
{
    for (abi_ev_rec_t *r = recs; r; r = r->next)
        if (r->reg == reg)
            return r;
    if (!make)
        return NULL;
    abi_ev_rec_t *r = calloc(1, sizeof *r);
    if (r) {
        r->reg = reg;
        r->next = recs;
        recs = r;
    }
    return r;
}

/* under rec_lock */
static void rec_drop(abi_ev_rec_t *rec)
{
    for (abi_ev_rec_t **pp = &recs; *pp; pp = &(*pp)->next) {
        if (*pp == rec) {
            *pp = rec->next;
            break;
        }
    }
    while (rec->boxes) {
        abi_cb_box_t *b = rec->boxes;
        rec->boxes = b->next;
        free(b);
    }
    free(rec);
}

static void cb_tramp(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    abi_cb_box_t *b = ud;
    b->fn(inst, reg, (MPI_T_cb_safety)cbsafety_out((int)safety), b->ud);
}

/* the engine hands the dropped handler the user data of the callback that
 * missed the events: a box, or NULL */
static void dropped_tramp(MPI_Count count, MPI_T_event_registration reg, int source_index,
                          MPI_T_cb_safety safety, void *ud)
{
    pthread_mutex_lock(&rec_lock);
    abi_ev_rec_t *rec = rec_find(reg, 0);
    MPI_T_event_dropped_cb_function *fn = rec ? rec->dropped : NULL;
    pthread_mutex_unlock(&rec_lock);
    abi_cb_box_t *b = ud;
    if (fn)
        fn(count, reg, source_index, (MPI_T_cb_safety)cbsafety_out((int)safety), b ? b->ud : NULL);
}

static void free_tramp(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud)
{
    abi_ev_rec_t *rec = ud;
    if (rec->free_fn)
        rec->free_fn(reg, (MPI_T_cb_safety)cbsafety_out((int)safety), rec->free_ud);
    pthread_mutex_lock(&rec_lock);
    rec_drop(rec);
    pthread_mutex_unlock(&rec_lock);
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   abi_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)
{
    abi_cb_box_t *b = NULL;
    if (event_cb_function) {
        if (!(b = malloc(sizeof *b)))
            return abi_err_out(MPI_T_ERR_MEMORY);
        b->fn = event_cb_function;
        b->ud = user_data;
    }
    /* the box is kept from before the call: a callback may run at once */
    abi_ev_rec_t *rec = NULL;
    int fresh = 0;
    if (b) {
        pthread_mutex_lock(&rec_lock);
        fresh = rec_find(event_registration, 0) == NULL;
        rec = rec_find(event_registration, 1);
        if (rec) {
            b->next = rec->boxes;
            rec->boxes = b;
        }
        pthread_mutex_unlock(&rec_lock);
        if (!rec) {
            free(b);
            return abi_err_out(MPI_T_ERR_MEMORY);
        }
    }
    int rc = RMI_PMPI_T_event_register_callback(event_registration, (MPI_T_cb_safety)cbsafety_in((int)cb_safety),
                                                h_in(info), b, b ? cb_tramp : NULL);
    if (rc != MPI_SUCCESS && b) {
        /* not registered: the engine never saw the box */
        pthread_mutex_lock(&rec_lock);
        for (abi_cb_box_t **pp = &rec->boxes; *pp; pp = &(*pp)->next) {
            if (*pp == b) {
                *pp = b->next;
                break;
            }
        }
        free(b);
        if (fresh && !rec->boxes && !rec->dropped)
            rec_drop(rec);
        pthread_mutex_unlock(&rec_lock);
    }
    return err_out(rc);
}
#pragma weak MPI_T_event_register_callback = PMPI_T_event_register_callback

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    pthread_mutex_lock(&rec_lock);
    int fresh = rec_find(event_registration, 0) == NULL;
    abi_ev_rec_t *rec = rec_find(event_registration, 1);
    MPI_T_event_dropped_cb_function *old = rec ? rec->dropped : NULL;
    if (rec)
        rec->dropped = dropped_cb_function;
    pthread_mutex_unlock(&rec_lock);
    if (!rec)
        return abi_err_out(MPI_T_ERR_MEMORY);
    int rc = RMI_PMPI_T_event_set_dropped_handler(event_registration,
                                                  dropped_cb_function ? dropped_tramp : NULL);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_lock(&rec_lock);
        rec->dropped = old;
        if (fresh && !rec->boxes)
            rec_drop(rec);
        pthread_mutex_unlock(&rec_lock);
    }
    return err_out(rc);
}
#pragma weak MPI_T_event_set_dropped_handler = PMPI_T_event_set_dropped_handler

/* the engine calls the free callback, always (the trampoline releases this
 * layer's record), when the registration's last callback has returned */
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    pthread_mutex_lock(&rec_lock);
    int fresh = rec_find(event_registration, 0) == NULL;
    abi_ev_rec_t *rec = rec_find(event_registration, 1);
    if (rec) {
        rec->free_fn = free_cb_function;
        rec->free_ud = user_data;
    }
    pthread_mutex_unlock(&rec_lock);
    if (!rec)
        return abi_err_out(MPI_T_ERR_MEMORY);
    int rc = RMI_PMPI_T_event_handle_free(event_registration, rec, free_tramp);
    if (rc != MPI_SUCCESS) {
        pthread_mutex_lock(&rec_lock);
        rec->free_fn = NULL;
        if (fresh && !rec->boxes && !rec->dropped)
            rec_drop(rec);
        pthread_mutex_unlock(&rec_lock);
    }
    return err_out(rc);
}
#pragma weak MPI_T_event_handle_free = PMPI_T_event_handle_free
