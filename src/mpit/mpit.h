/* MPI_T, the tools interface: control variables are the rows of the config
 * table (src/util/config.h), performance variables are the rail layer's
 * counters, read through the engine. The bindings (src/mpi/mpit_api.c)
 * check arguments and map to MPI_T error codes; this layer keeps the
 * variables, enumerations, categories, sessions and handles. */
#ifndef RM_MPIT_MPIT_H
#define RM_MPIT_MPIT_H

#include "mpi.h"

/* MPI_T_init_thread / MPI_T_finalize nest; the interface is usable while
 * the count is positive, before MPI_Init and after MPI_Finalize too. */
int mpit_init(void);
int mpit_finalize(void);
int mpit_initialized(void);

/* ---- enumerations (MPI_T_enum points at one of these) ---- */
struct MPIR_T_enum_s {
    const char *name;
    int nitems;
    const char *const *item_names;
    const int *item_values;
};

/* ---- control variables ---- */
typedef struct mpit_cvar_info {
    const char *name, *desc;
    int verbosity, bind, scope;
    MPI_Datatype datatype;
    int category;
} mpit_cvar_info_t;

int mpit_cvar_count(void);
int mpit_cvar_info(int index, mpit_cvar_info_t *out); /* MPI_T_ERR_INVALID_INDEX */
int mpit_cvar_find(const char *name);                 /* index or -1 */
/* Elements of the variable's buffer (MPI_CHAR: bytes, terminator included). */
int mpit_cvar_count_of(int index);
int mpit_cvar_read(int index, void *buf);
/* Where the process is: writes before MPI_Init reach MPI_Init. */
enum { MPIT_BEFORE, MPIT_RUNNING, MPIT_AFTER };
/* MPI_SUCCESS, MPI_T_ERR_CVAR_SET_NEVER, _NOT_NOW or MPI_T_ERR_INVALID. */
int mpit_cvar_write(int index, const void *buf, int phase);

/* ---- performance variables ---- */
typedef struct mpit_pvar_info {
    const char *name, *desc;
    int verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype datatype;
    MPI_T_enum enumtype;
    int category;
} mpit_pvar_info_t;

int mpit_pvar_count(void);
int mpit_pvar_info(int index, mpit_pvar_info_t *out);
int mpit_pvar_find(const char *name, int var_class);
/* The enumerations: path states (rail_peer_path_state), host states
 * (rail_host_path_state). */
int mpit_enum_valid(MPI_T_enum e);

struct MPIR_T_pvar_session_s;
struct MPIR_T_pvar_handle_s;
int mpit_session_create(MPI_T_pvar_session *out);
int mpit_session_free(MPI_T_pvar_session s);
int mpit_session_valid(MPI_T_pvar_session s);
int mpit_handle_alloc(MPI_T_pvar_session s, int index, MPI_T_pvar_handle *out, int *count);
int mpit_handle_free(MPI_T_pvar_session s, MPI_T_pvar_handle h);
/* start/stop/reset take MPI_T_PVAR_ALL_HANDLES too */
int mpit_handle_start(MPI_T_pvar_session s, MPI_T_pvar_handle h);
int mpit_handle_stop(MPI_T_pvar_session s, MPI_T_pvar_handle h);
int mpit_handle_read(MPI_T_pvar_session s, MPI_T_pvar_handle h, void *buf);
int mpit_handle_write(MPI_T_pvar_session s, MPI_T_pvar_handle h, const void *buf);
int mpit_handle_reset(MPI_T_pvar_session s, MPI_T_pvar_handle h);

/* ---- categories ---- */
typedef struct mpit_category_info {
    const char *name, *desc;
    int num_cvars, num_pvars, num_categories;
} mpit_category_info_t;

int mpit_category_count(void);
int mpit_category_info(int index, mpit_category_info_t *out);
int mpit_category_find(const char *name);
/* Fill up to len indices of the category's members. */
int mpit_category_cvars(int index, int len, int *out);
int mpit_category_pvars(int index, int len, int *out);
int mpit_category_categories(int index, int len, int *out);
/* The category's event types (up to len indices into out); -1: no such category. */
int mpit_category_events(int index, int len, int *out);
/* Grows when variables or categories are added (never, once the rails are up). */
int mpit_category_stamp(void);

/* ---- events (event.c): the rail layer's events, one source ---- */
#define MPIT_EVENT_QUEUE 256 /* instances a registration holds for deferred callbacks */
#define MPIT_EVENT_ELEMS 3   /* peer, rail, reason: MPI_INT each */
typedef struct mpit_event_data {
    int peer, rail, reason;
} mpit_event_data_t;
typedef struct mpit_event_info {
    const char *name, *desc;
    MPI_T_enum enumtype;
    int category;
} mpit_event_info_t;

int mpit_event_count(void);
int mpit_event_info(int index, mpit_event_info_t *out);
int mpit_event_find(const char *name);
MPI_T_enum mpit_event_enum(void);
void mpit_event_layout(MPI_Datatype *types, MPI_Aint *disps, int n);
MPI_Count mpit_source_now(void); /* the monotonic source's ticks (ns) */
int mpit_event_valid(MPI_T_event_registration r);
int mpit_event_alloc(int index, MPI_T_event_registration *out);
int mpit_event_set_cb(MPI_T_event_registration r, int level, MPI_T_event_cb_function *fn, void *ud);
int mpit_event_has_cb(MPI_T_event_registration r, int level);
void mpit_event_set_dropped(MPI_T_event_registration r, MPI_T_event_dropped_cb_function *fn);
void mpit_event_free(MPI_T_event_registration r, void *ud, MPI_T_event_free_cb_function *fn);
int mpit_instance_read(MPI_T_event_instance e, int elem, void *buf);
void mpit_instance_copy(MPI_T_event_instance e, void *buf);
MPI_Count mpit_instance_time(MPI_T_event_instance e);
int mpit_instance_source(MPI_T_event_instance e);
/* Events waiting for a callback that needs the application's thread outside
 * the engine: mpit_event_deliver runs them (MPI_END calls it). */
extern int mpit_ev_waiting __attribute__((visibility("hidden")));
void mpit_event_deliver(void);

/* Category indices, in mpit_category_info order. */
enum { MPIT_CAT_GENERAL, MPIT_CAT_PROTO, MPIT_CAT_SHM, MPIT_CAT_TCP, MPIT_CAT_RAIL, MPIT_CAT_IO, MPIT_NCATS };

#endif
