/* MPI_T bindings (MPI-3.1 chapter 14). They may be called before MPI_Init
 * and after MPI_Finalize, from any thread, and never invoke an error
 * handler: each returns its error code. One mutex serialises the interface;
 * reading the engine's counters also takes the global lock (src/mpit). */
#include "mpi/mpiimpl.h"
#include "mpit/mpit.h"
#include "util/config.h"

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
