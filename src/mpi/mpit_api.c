/* MPI_T bindings (MPI-3.1 chapter 14). They may be called before MPI_Init
 * and after MPI_Finalize, from any thread, and never invoke an error
 * handler: each returns its error code. One mutex serialises the interface;
 * reading the engine's counters also takes the global lock (src/mpit). */
#include "mpi/mpiimpl.h"
#include "mpit/mpit.h"
#include "util/config.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t mpit_mutex = PTHREAD_MUTEX_INITIALIZER;

/* The one MPI_T_PVAR_ALL_HANDLES; never dereferenced. */
static struct {
    char unused;
} mpit_all_handles_obj;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = (struct MPIR_T_pvar_handle_s *)&mpit_all_handles_obj;

struct MPIR_T_cvar_handle_s {
    struct MPIR_T_cvar_handle_s *next;
    int index;
};
static struct MPIR_T_cvar_handle_s *mpit_cvar_handles;

#define T_BEGIN()                                  \
    int err = MPI_SUCCESS;                         \
    pthread_mutex_lock(&mpit_mutex);               \
    if (!mpit_initialized()) {                     \
        err = MPI_T_ERR_NOT_INITIALIZED;           \
        goto fn_exit;                              \
    }
#define T_FAIL(code)       \
    do {                   \
        err = (code);      \
        goto fn_exit;      \
    } while (0)
#define T_END()                          \
    fn_exit:                             \
    pthread_mutex_unlock(&mpit_mutex);   \
    return err

/* MPI-3.1 §14.3.3: copy at most *len - 1 characters and a terminator; tell
 * the length the whole string needs. Nothing is copied when the buffer is
 * NULL or its length 0. */
static void mpit_copy_str(const char *src, char *dst, int *len)
{
    if (!len)
        return;
    int need = (int)strlen(src) + 1;
    if (dst && *len > 0) {
        int n = need <= *len ? need - 1 : *len - 1;
        memcpy(dst, src, (size_t)n);
        dst[n] = 0;
        *len = n + 1;
    } else {
        *len = need;
    }
}

static int mpit_phase(void)
{
    return mpi_state.finalized ? MPIT_AFTER : mpi_state.initialized ? MPIT_RUNNING : MPIT_BEFORE;
}

int PMPI_T_init_thread(int required, int *provided)
{
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&mpit_mutex);
    /* the control variables show what the environment says before MPI_Init */
    rm_config_load_once();
    mpit_init();
    pthread_mutex_unlock(&mpit_mutex);
    if (provided)
        *provided = required;
    return MPI_SUCCESS;
}
RM_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    T_BEGIN();
    mpit_finalize();
    T_END();
}
RM_ALIAS(T_finalize)

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    T_BEGIN();
    if (!mpit_enum_valid(enumtype))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if (!num)
        T_FAIL(MPI_T_ERR_INVALID);
    *num = enumtype->nitems;
    mpit_copy_str(enumtype->name, name, name_len);
    T_END();
}
RM_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    T_BEGIN();
    if (!mpit_enum_valid(enumtype))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if (indx < 0 || indx >= enumtype->nitems)
        T_FAIL(MPI_T_ERR_INVALID_ITEM);
    if (!value)
        T_FAIL(MPI_T_ERR_INVALID);
    *value = enumtype->item_values[indx];
    mpit_copy_str(enumtype->item_names[indx], name, name_len);
    T_END();
}
RM_ALIAS(T_enum_get_item)

/* ---- control variables ---- */
int PMPI_T_cvar_get_num(int *num_cvar)
{
    T_BEGIN();
    if (!num_cvar)
        T_FAIL(MPI_T_ERR_INVALID);
    *num_cvar = mpit_cvar_count();
    T_END();
}
RM_ALIAS(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    T_BEGIN();
    mpit_cvar_info_t ci;
    if ((err = mpit_cvar_info(cvar_index, &ci)) != MPI_SUCCESS)
        goto fn_exit;
    mpit_copy_str(ci.name, name, name_len);
    mpit_copy_str(ci.desc, desc, desc_len);
    if (verbosity)
        *verbosity = ci.verbosity;
    if (datatype)
        *datatype = ci.datatype;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = ci.bind;
    if (scope)
        *scope = ci.scope;
    T_END();
}
RM_ALIAS(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    T_BEGIN();
    if (!name || !cvar_index)
        T_FAIL(MPI_T_ERR_INVALID);
    int i = mpit_cvar_find(name);
    if (i < 0)
        T_FAIL(MPI_T_ERR_INVALID_NAME);
    *cvar_index = i;
    T_END();
}
RM_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    T_BEGIN();
    (void)obj_handle; /* every variable is bound to no object */
    mpit_cvar_info_t ci;
    if ((err = mpit_cvar_info(cvar_index, &ci)) != MPI_SUCCESS)
        goto fn_exit;
    if (!handle || !count)
        T_FAIL(MPI_T_ERR_INVALID);
    struct MPIR_T_cvar_handle_s *h = malloc(sizeof *h);
    if (!h)
        T_FAIL(MPI_T_ERR_MEMORY);
    h->index = cvar_index;
    h->next = mpit_cvar_handles;
    mpit_cvar_handles = h;
    *handle = h;
    *count = mpit_cvar_count_of(cvar_index);
    T_END();
}
RM_ALIAS(T_cvar_handle_alloc)

static struct MPIR_T_cvar_handle_s **mpit_cvar_slot(MPI_T_cvar_handle h)
{
    struct MPIR_T_cvar_handle_s **pp = &mpit_cvar_handles;
    while (*pp && *pp != h)
        pp = &(*pp)->next;
    return *pp ? pp : NULL;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_BEGIN();
    struct MPIR_T_cvar_handle_s **pp = handle ? mpit_cvar_slot(*handle) : NULL;
    if (!pp)
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    *pp = (*handle)->next;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    T_END();
}
RM_ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    T_BEGIN();
    if (!mpit_cvar_slot(handle))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_cvar_read(handle->index, buf);
    T_END();
}
RM_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    T_BEGIN();
    if (!mpit_cvar_slot(handle))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        T_FAIL(MPI_T_ERR_INVALID);
    rm_lock();
    err = mpit_cvar_write(handle->index, buf, mpit_phase());
    rm_unlock();
    T_END();
}
RM_ALIAS(T_cvar_write)

/* ---- performance variables ---- */
int PMPI_T_pvar_get_num(int *num_pvar)
{
    T_BEGIN();
    if (!num_pvar)
        T_FAIL(MPI_T_ERR_INVALID);
    *num_pvar = mpit_pvar_count();
    T_END();
}
RM_ALIAS(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    T_BEGIN();
    mpit_pvar_info_t pi;
    if ((err = mpit_pvar_info(pvar_index, &pi)) != MPI_SUCCESS)
        goto fn_exit;
    mpit_copy_str(pi.name, name, name_len);
    mpit_copy_str(pi.desc, desc, desc_len);
    if (verbosity)
        *verbosity = pi.verbosity;
    if (var_class)
        *var_class = pi.var_class;
    if (datatype)
        *datatype = pi.datatype;
    if (enumtype)
        *enumtype = pi.enumtype;
    if (bind)
        *bind = pi.bind;
    if (readonly)
        *readonly = pi.readonly;
    if (continuous)
        *continuous = pi.continuous;
    if (atomic)
        *atomic = pi.atomic;
    T_END();
}
RM_ALIAS(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_BEGIN();
    if (!name || !pvar_index)
        T_FAIL(MPI_T_ERR_INVALID);
    int i = mpit_pvar_find(name, var_class);
    if (i < 0)
        T_FAIL(MPI_T_ERR_INVALID_NAME);
    *pvar_index = i;
    T_END();
}
RM_ALIAS(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    T_BEGIN();
    if (!session)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_session_create(session);
    T_END();
}
RM_ALIAS(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    T_BEGIN();
    if (!session || !mpit_session_valid(*session))
        T_FAIL(MPI_T_ERR_INVALID_SESSION);
    if ((err = mpit_session_free(*session)) == MPI_SUCCESS)
        *session = MPI_T_PVAR_SESSION_NULL;
    T_END();
}
RM_ALIAS(T_pvar_session_free)

#define CHECK_SESSION(s)                      \
    do {                                      \
        if (!mpit_session_valid(s))           \
            T_FAIL(MPI_T_ERR_INVALID_SESSION); \
    } while (0)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    T_BEGIN();
    (void)obj_handle;
    CHECK_SESSION(session);
    if (pvar_index < 0 || pvar_index >= mpit_pvar_count())
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_handle_alloc(session, pvar_index, handle, count);
    T_END();
}
RM_ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    T_BEGIN();
    CHECK_SESSION(session);
    if (!handle)
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if ((err = mpit_handle_free(session, *handle)) == MPI_SUCCESS)
        *handle = MPI_T_PVAR_HANDLE_NULL;
    T_END();
}
RM_ALIAS(T_pvar_handle_free)

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_BEGIN();
    CHECK_SESSION(session);
    err = mpit_handle_start(session, handle);
    T_END();
}
RM_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_BEGIN();
    CHECK_SESSION(session);
    err = mpit_handle_stop(session, handle);
    T_END();
}
RM_ALIAS(T_pvar_stop)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    T_BEGIN();
    CHECK_SESSION(session);
    if (!buf)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_handle_read(session, handle, buf);
    T_END();
}
RM_ALIAS(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    T_BEGIN();
    CHECK_SESSION(session);
    if (!buf)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_handle_write(session, handle, buf);
    T_END();
}
RM_ALIAS(T_pvar_write)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    T_BEGIN();
    CHECK_SESSION(session);
    err = mpit_handle_reset(session, handle);
    T_END();
}
RM_ALIAS(T_pvar_reset)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    T_BEGIN();
    CHECK_SESSION(session);
    if (!buf)
        T_FAIL(MPI_T_ERR_INVALID);
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    /* both under the interface's mutex and the engine's lock: atomic */
    rm_lock();
    if ((err = mpit_handle_read(session, handle, buf)) == MPI_SUCCESS)
        err = mpit_handle_reset(session, handle);
    rm_unlock();
    T_END();
}
RM_ALIAS(T_pvar_readreset)

/* ---- categories ---- */
int PMPI_T_category_get_num(int *num_cat)
{
    T_BEGIN();
    if (!num_cat)
        T_FAIL(MPI_T_ERR_INVALID);
    *num_cat = mpit_category_count();
    T_END();
}
RM_ALIAS(T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    T_BEGIN();
    mpit_category_info_t ci;
    if ((err = mpit_category_info(cat_index, &ci)) != MPI_SUCCESS)
        goto fn_exit;
    mpit_copy_str(ci.name, name, name_len);
    mpit_copy_str(ci.desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = ci.num_cvars;
    if (num_pvars)
        *num_pvars = ci.num_pvars;
    if (num_categories)
        *num_categories = ci.num_categories;
    T_END();
}
RM_ALIAS(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    T_BEGIN();
    if (!name || !cat_index)
        T_FAIL(MPI_T_ERR_INVALID);
    int i = mpit_category_find(name);
    if (i < 0)
        T_FAIL(MPI_T_ERR_INVALID_NAME);
    *cat_index = i;
    T_END();
}
RM_ALIAS(T_category_get_index)

static int mpit_members_check(int len, int *indices)
{
    return len < 0 || (len > 0 && !indices) ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    T_BEGIN();
    if ((err = mpit_members_check(len, indices)) == MPI_SUCCESS)
        err = mpit_category_cvars(cat_index, len, indices);
    T_END();
}
RM_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    T_BEGIN();
    if ((err = mpit_members_check(len, indices)) == MPI_SUCCESS)
        err = mpit_category_pvars(cat_index, len, indices);
    T_END();
}
RM_ALIAS(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    T_BEGIN();
    if ((err = mpit_members_check(len, indices)) == MPI_SUCCESS)
        err = mpit_category_categories(cat_index, len, indices);
    T_END();
}
RM_ALIAS(T_category_get_categories)

int PMPI_T_category_changed(int *stamp)
{
    T_BEGIN();
    if (!stamp)
        T_FAIL(MPI_T_ERR_INVALID);
    *stamp = mpit_category_stamp();
    T_END();
}
RM_ALIAS(T_category_changed)

/* ---- events (MPI-4.1 §15.3.8; src/mpit/event.c) ---- */
int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    T_BEGIN();
    if (!num_events)
        T_FAIL(MPI_T_ERR_INVALID);
    int n = mpit_category_events(cat_index, 0, NULL);
    if (n < 0)
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    *num_events = n;
    T_END();
}
RM_ALIAS(T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    T_BEGIN();
    if ((err = mpit_members_check(len, indices)) != MPI_SUCCESS)
        goto fn_exit;
    if (mpit_category_events(cat_index, len, indices) < 0)
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    T_END();
}
RM_ALIAS(T_category_get_events)

/* A new, empty info object for the *_get_info calls (no hints are kept;
 * info objects can be made before MPI_Init and after MPI_Finalize too).
 * Called outside the interface's mutex. */
static int mpit_info_out(int err, MPI_Info *info)
{
    if (err != MPI_SUCCESS || !info)
        return err;
    return PMPI_Info_create(info) == MPI_SUCCESS ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}

int PMPI_T_source_get_num(int *num_sources)
{
    T_BEGIN();
    if (!num_sources)
        T_FAIL(MPI_T_ERR_INVALID);
    *num_sources = 1;
    T_END();
}
RM_ALIAS(T_source_get_num)

static int mpit_source_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                            MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks)
{
    T_BEGIN();
    if (source_index != 0)
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    mpit_copy_str("monotonic", name, name_len);
    mpit_copy_str("CLOCK_MONOTONIC in nanoseconds: stamps the rail events in the order they happen in this "
                  "process",
                  desc, desc_len);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = LONG_MAX;
    T_END();
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    return mpit_info_out(
        mpit_source_info(source_index, name, name_len, desc, desc_len, ordering, ticks_per_second, max_ticks),
        info);
}
RM_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    T_BEGIN();
    if (source_index != 0)
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp)
        T_FAIL(MPI_T_ERR_INVALID);
    *timestamp = mpit_source_now();
    T_END();
}
RM_ALIAS(T_source_get_timestamp)

int PMPI_T_event_get_num(int *num_events)
{
    T_BEGIN();
    if (!num_events)
        T_FAIL(MPI_T_ERR_INVALID);
    *num_events = mpit_event_count();
    T_END();
}
RM_ALIAS(T_event_get_num)

static int mpit_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                               MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                               int *num_elements, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind)
{
    T_BEGIN();
    mpit_event_info_t ei;
    if ((err = mpit_event_info(event_index, &ei)) != MPI_SUCCESS)
        goto fn_exit;
    /* num_elements: the arrays' length in, the event's element count out */
    if (num_elements) {
        if (*num_elements < 0)
            T_FAIL(MPI_T_ERR_INVALID);
        mpit_event_layout(array_of_datatypes, array_of_displacements, *num_elements);
        *num_elements = MPIT_EVENT_ELEMS;
    }
    mpit_copy_str(ei.name, name, name_len);
    mpit_copy_str(ei.desc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (enumtype)
        *enumtype = ei.enumtype;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    T_END();
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements,
                          MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind)
{
    return mpit_info_out(mpit_event_get_info(event_index, name, name_len, verbosity, array_of_datatypes,
                                             array_of_displacements, num_elements, enumtype, desc, desc_len, bind),
                         info);
}
RM_ALIAS(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    T_BEGIN();
    if (!name || !event_index)
        T_FAIL(MPI_T_ERR_INVALID);
    int i = mpit_event_find(name);
    if (i < 0)
        T_FAIL(MPI_T_ERR_INVALID_NAME);
    *event_index = i;
    T_END();
}
RM_ALIAS(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)obj_handle; /* every event type is bound to no object */
    (void)info;       /* no hints */
    T_BEGIN();
    if (event_index < 0 || event_index >= mpit_event_count())
        T_FAIL(MPI_T_ERR_INVALID_INDEX);
    if (!event_registration)
        T_FAIL(MPI_T_ERR_INVALID);
    err = mpit_event_alloc(event_index, event_registration);
    T_END();
}
RM_ALIAS(T_event_handle_alloc)

static int mpit_reg_check(MPI_T_event_registration r, int cb_safety)
{
    T_BEGIN();
    if (!mpit_event_valid(r))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if (cb_safety < MPI_T_CB_REQUIRE_NONE || cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
        T_FAIL(MPI_T_ERR_INVALID);
    T_END();
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)info; /* no hints */
    return mpit_reg_check(event_registration, MPI_T_CB_REQUIRE_NONE);
}
RM_ALIAS(T_event_handle_set_info)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    int err = mpit_reg_check(event_registration, MPI_T_CB_REQUIRE_NONE);
    if (err == MPI_SUCCESS && !info_used)
        return MPI_T_ERR_INVALID;
    return mpit_info_out(err, info_used);
}
RM_ALIAS(T_event_handle_get_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)
{
    (void)info; /* no hints */
    T_BEGIN();
    if (!mpit_event_valid(event_registration))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    if ((int)cb_safety < MPI_T_CB_REQUIRE_NONE || cb_safety > MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE)
        T_FAIL(MPI_T_ERR_INVALID);
    /* a NULL function removes the callback of that safety level */
    err = mpit_event_set_cb(event_registration, cb_safety, event_cb_function, user_data);
    T_END();
}
RM_ALIAS(T_event_register_callback)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info)
{
    (void)info; /* no hints */
    int err = mpit_reg_check(event_registration, cb_safety);
    if (err == MPI_SUCCESS && !mpit_event_has_cb(event_registration, cb_safety))
        err = MPI_T_ERR_INVALID; /* no callback registered at that level */
    return err;
}
RM_ALIAS(T_event_callback_set_info)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used)
{
    int err = mpit_reg_check(event_registration, cb_safety);
    if (err == MPI_SUCCESS && (!info_used || !mpit_event_has_cb(event_registration, cb_safety)))
        err = MPI_T_ERR_INVALID;
    return mpit_info_out(err, info_used);
}
RM_ALIAS(T_event_callback_get_info)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    T_BEGIN();
    if (!mpit_event_valid(event_registration))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    mpit_event_free(event_registration, user_data, free_cb_function);
    T_END();
}
RM_ALIAS(T_event_handle_free)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    T_BEGIN();
    if (!mpit_event_valid(event_registration))
        T_FAIL(MPI_T_ERR_INVALID_HANDLE);
    mpit_event_set_dropped(event_registration, dropped_cb_function);
    T_END();
}
RM_ALIAS(T_event_set_dropped_handler)

/* The event-instance calls run inside callbacks, on the engine's thread
 * under the global lock: they take no lock. */
#define T_INSTANCE(e)                          \
    if (!mpit_initialized())                   \
        return MPI_T_ERR_NOT_INITIALIZED;      \
    if (!(e))                                  \
        return MPI_T_ERR_INVALID_HANDLE

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    T_INSTANCE(event_instance);
    if (!buffer)
        return MPI_T_ERR_INVALID;
    return mpit_instance_read(event_instance, element_index, buffer);
}
RM_ALIAS(T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    T_INSTANCE(event_instance);
    if (!buffer)
        return MPI_T_ERR_INVALID;
    mpit_instance_copy(event_instance, buffer);
    return MPI_SUCCESS;
}
RM_ALIAS(T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    T_INSTANCE(event_instance);
    if (!event_timestamp)
        return MPI_T_ERR_INVALID;
    *event_timestamp = mpit_instance_time(event_instance);
    return MPI_SUCCESS;
}
RM_ALIAS(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    T_INSTANCE(event_instance);
    if (!source_index)
        return MPI_T_ERR_INVALID;
    *source_index = mpit_instance_source(event_instance);
    return MPI_SUCCESS;
}
RM_ALIAS(T_event_get_source)
