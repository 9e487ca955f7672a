/* Categories (one per layer, flat) and the interface's init count. */
#include "mpit/mpit.h"

#include <stddef.h>
#include <string.h>

static int mpit_refs;

/* atomic: the event-instance functions read it inside callbacks, without
 * the interface's mutex */
int mpit_init(void)
{
    return __atomic_add_fetch(&mpit_refs, 1, __ATOMIC_RELAXED);
}

int mpit_finalize(void)
{
    return mpit_initialized() ? __atomic_sub_fetch(&mpit_refs, 1, __ATOMIC_RELAXED) : -1;
}

int mpit_initialized(void)
{
    return __atomic_load_n(&mpit_refs, __ATOMIC_RELAXED) > 0;
}

static const struct {
    const char *name, *desc;
} mpit_cats[MPIT_NCATS] = {
    [MPIT_CAT_GENERAL] = {"general", "Logging, statistics and what the launcher tells each rank"},
    [MPIT_CAT_PROTO] = {"proto", "Point-to-point protocols: eager and rendezvous, progress"},
    [MPIT_CAT_SHM] = {"shm", "The shared-memory transport between ranks of one host"},
    [MPIT_CAT_TCP] = {"tcp", "The TCP transport: one connection per rail and peer"},
    [MPIT_CAT_RAIL] = {"rail", "Network rails: striping policy, fault tolerance, path health, traffic per "
                               "rail and peer"},
    [MPIT_CAT_IO] = {"io", "MPI-IO: the file view walk"},
};

int mpit_category_count(void)
{
    return MPIT_NCATS;
}

static int mpit_members(int cat, int cvars, int len, int *out)
{
    int n = 0, total = cvars ? mpit_cvar_count() : mpit_pvar_count();
    for (int i = 0; i < total; i++) {
        int c;
        if (cvars) {
            mpit_cvar_info_t ci;
            if (mpit_cvar_info(i, &ci) != MPI_SUCCESS)
                continue;
            c = ci.category;
        } else {
            mpit_pvar_info_t pi;
            if (mpit_pvar_info(i, &pi) != MPI_SUCCESS)
                continue;
            c = pi.category;
        }
        if (c != cat)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int mpit_category_info(int index, mpit_category_info_t *out)
{
    if (index < 0 || index >= MPIT_NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    out->name = mpit_cats[index].name;
    out->desc = mpit_cats[index].desc;
    out->num_cvars = mpit_members(index, 1, 0, NULL);
    out->num_pvars = mpit_members(index, 0, 0, NULL);
    out->num_categories = 0;
    return MPI_SUCCESS;
}

int mpit_category_find(const char *name)
{
    for (int i = 0; i < MPIT_NCATS; i++)
        if (!strcmp(mpit_cats[i].name, name))
            return i;
    return -1;
}

int mpit_category_cvars(int index, int len, int *out)
{
    if (index < 0 || index >= MPIT_NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    mpit_members(index, 1, len, out);
    return MPI_SUCCESS;
}

int mpit_category_pvars(int index, int len, int *out)
{
    if (index < 0 || index >= MPIT_NCATS)
        return MPI_T_ERR_INVALID_INDEX;
    mpit_members(index, 0, len, out);
    return MPI_SUCCESS;
}

int mpit_category_categories(int index, int len, int *out)
{
    (void)len;
    (void)out;
    return index < 0 || index >= MPIT_NCATS ? MPI_T_ERR_INVALID_INDEX : MPI_SUCCESS;
}

int mpit_category_events(int index, int len, int *out)
{
    if (index < 0 || index >= MPIT_NCATS)
        return -1;
    int n = 0;
    for (int i = 0; i < mpit_event_count(); i++) {
        mpit_event_info_t ei;
        if (mpit_event_info(i, &ei) != MPI_SUCCESS || ei.category != index)
            continue;
        if (out && n < len)
            out[n] = i;
        n++;
    }
    return n;
}

int mpit_category_stamp(void)
{
    return 0; /* the variables are fixed for the life of the library */
}
