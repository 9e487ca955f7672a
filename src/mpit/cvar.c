/* Control variables: one per row of the config table, named as the
 * environment names them (RAILMPI_EAGER_THRESHOLD). Before MPI_Init every
 * setting but the launcher's can be written, and MPI_Init uses what was
 * written; while the job runs only what the engine can take into use at
 * once (proto_setting_changed) — the rest answer MPI_T_ERR_CVAR_SET_NOT_NOW. */
#include "mpit/mpit.h"
#include "proto/proto.h"
#include "util/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by mpiexec or the engine itself, never by a tool. */
static const char *const mpit_launcher_rows[] = {"JOB_SECRET", "HOST_ID", "LAUNCH_ADDR", "CTL_FD",
                                                  "PARENT_PORT", "FT_FD"};
/* Must agree on every rank: the two sides of a message read them. */
static const char *const mpit_all_eq_rows[] = {"EAGER_THRESHOLD", "SHM_FRAME_MAX", "SHM_RING_SIZE",
                                               "NET_CHUNK", "FT", "TCP_RAILS"};
#define MPIT_STR_MIN 256

static int mpit_in(const char *name, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i]))
            return 1;
    return 0;
}
#define MPIT_IN(name, list) mpit_in(name, list, sizeof list / sizeof list[0])

static int mpit_cvar_category_of(const char *name)
{
    if (!strncmp(name, "TCP_", 4))
        return MPIT_CAT_TCP;
    if (!strncmp(name, "SHM_", 4))
        return MPIT_CAT_SHM;
    if (!strncmp(name, "RAIL_", 5) || !strcmp(name, "STRIPING_THRESHOLD") || !strcmp(name, "NET_CHUNK") ||
        !strcmp(name, "FT") || !strcmp(name, "PATH_TIMEOUT_MS") || !strcmp(name, "RECOVERY_MAX_MS") ||
        !strcmp(name, "PARTITION_TIMEOUT_S"))
        return MPIT_CAT_RAIL;
    if (!strcmp(name, "EAGER_THRESHOLD") || !strcmp(name, "ZCOPY_RECV") || !strcmp(name, "SPIN_COUNT"))
        return MPIT_CAT_PROTO;
    return MPIT_CAT_GENERAL;
}

/* Full names live as long as the library: MPI_T hands out pointers to none
 * of them, but cvar_get_info copies them on every call. */
static char mpit_cvar_names[64][40];

int mpit_cvar_count(void)
{
    int n = rm_config_count();
    return n < 64 ? n : 64;
}

int mpit_cvar_info(int index, mpit_cvar_info_t *out)
{
    rm_cfg_info_t ci;
    if (index < 0 || index >= mpit_cvar_count() || rm_config_info(index, &ci) < 0)
        return MPI_T_ERR_INVALID_INDEX;
    char *full = mpit_cvar_names[index];
    if (!*full)
        snprintf(full, sizeof mpit_cvar_names[0], "RAILMPI_%s", ci.name);
    out->name = full;
    out->desc = ci.help;
    out->bind = MPI_T_BIND_NO_OBJECT;
    out->category = mpit_cvar_category_of(ci.name);
    if (MPIT_IN(ci.name, mpit_launcher_rows)) {
        out->scope = MPI_T_SCOPE_READONLY;
        out->verbosity = MPI_T_VERBOSITY_MPIDEV_DETAIL;
    } else {
        out->scope = MPIT_IN(ci.name, mpit_all_eq_rows) ? MPI_T_SCOPE_ALL_EQ : MPI_T_SCOPE_LOCAL;
        out->verbosity = MPI_T_VERBOSITY_USER_BASIC;
    }
    switch (ci.type) {
    case RM_CFG_INT:
    case RM_CFG_BOOL: out->datatype = MPI_INT; break;
    case RM_CFG_SIZE: out->datatype = MPI_UNSIGNED_LONG_LONG; break;
    case RM_CFG_STR: out->datatype = MPI_CHAR; break;
    }
    return MPI_SUCCESS;
}

int mpit_cvar_find(const char *name)
{
    if (strncmp(name, "RAILMPI_", 8))
        return -1;
    int i = rm_config_find(name + 8);
    return i < mpit_cvar_count() ? i : -1;
}

/* The job secret is a credential: MPI_T shows whether it is set, not what. */
static const char *mpit_cvar_text(int index)
{
    rm_cfg_info_t ci;
    rm_config_info(index, &ci);
    if (!strcmp(ci.name, "JOB_SECRET"))
        return *rm_config_text(index) ? "(set)" : "";
    return rm_config_text(index);
}

int mpit_cvar_count_of(int index)
{
    rm_cfg_info_t ci;
    if (rm_config_info(index, &ci) < 0)
        return 0;
    if (ci.type != RM_CFG_STR)
        return 1;
    int n = (int)strlen(mpit_cvar_text(index)) + 1;
    return n > MPIT_STR_MIN ? n : MPIT_STR_MIN;
}

int mpit_cvar_read(int index, void *buf)
{
    rm_cfg_info_t ci;
    if (rm_config_info(index, &ci) < 0)
        return MPI_T_ERR_INVALID_INDEX;
    int64_t v = rm_config_value(index);
    switch (ci.type) {
    case RM_CFG_INT:
    case RM_CFG_BOOL: *(int *)buf = (int)v; break;
    case RM_CFG_SIZE: *(unsigned long long *)buf = (unsigned long long)v; break;
    case RM_CFG_STR: strcpy(buf, mpit_cvar_text(index)); break;
    }
    return MPI_SUCCESS;
}

int mpit_cvar_write(int index, const void *buf, int phase)
{
    rm_cfg_info_t ci;
    if (rm_config_info(index, &ci) < 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (MPIT_IN(ci.name, mpit_launcher_rows))
        return MPI_T_ERR_CVAR_SET_NEVER;
    char text[MPIT_STR_MIN + 32];
    switch (ci.type) {
    case RM_CFG_INT: snprintf(text, sizeof text, "%d", *(const int *)buf); break;
    case RM_CFG_BOOL: snprintf(text, sizeof text, "%d", *(const int *)buf != 0); break;
    case RM_CFG_SIZE: snprintf(text, sizeof text, "%llu", *(const unsigned long long *)buf); break;
    case RM_CFG_STR:
        if (strnlen(buf, sizeof text) >= sizeof text)
            return MPI_T_ERR_INVALID;
        strcpy(text, buf);
        break;
    }
    if (phase == MPIT_AFTER)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    /* the old text goes back if the engine refuses the new value */
    char *old = strdup(rm_config_text(index));
    if (!old)
        return MPI_T_ERR_MEMORY;
    int err = MPI_SUCCESS;
    if (rm_config_set(index, text) < 0) {
        err = MPI_T_ERR_INVALID;
    } else if (phase == MPIT_RUNNING) {
        rm_status_t st = proto_setting_changed(index);
        if (st != RM_OK) {
            rm_config_set(index, old);
            err = st == RM_ERR_UNSUPPORTED ? MPI_T_ERR_CVAR_SET_NOT_NOW : MPI_T_ERR_INVALID;
        }
    }
    free(old);
    return err;
}
