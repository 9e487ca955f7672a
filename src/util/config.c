#include "util/config.h"
#include "util/log.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

rm_config_t rm_config;

typedef struct rm_cfg_row {
    const char *name;
    rm_cfg_type_t type;
    const char *def;
    const char *help;
    int64_t *ival;
    const char **sval;
} rm_cfg_row_t;

static const rm_cfg_row_t rm_cfg_rows[] = {
#define RM_CFG_ROW(NAME, field, type, def, help) \
    {#NAME, type, def, help, &rm_config.field##_i, &rm_config.field##_s},
    RM_CONFIG_TABLE(RM_CFG_ROW)
#undef RM_CFG_ROW
};

static const char *rm_cfg_type_name(rm_cfg_type_t t)
{
    switch (t) {
    case RM_CFG_INT: return "int";
    case RM_CFG_SIZE: return "size";
    case RM_CFG_BOOL: return "bool";
    case RM_CFG_STR: return "string";
    }
    return "?";
}

rm_status_t rm_config_parse(rm_cfg_type_t type, const char *text, int64_t *out)
{
    char *end;
    long long v;
    if (!text)
        return RM_ERR_INVALID;
    switch (type) {
    case RM_CFG_STR:
        *out = 0;
        return RM_OK;
    case RM_CFG_BOOL:
        if (!strcasecmp(text, "1") || !strcasecmp(text, "yes") || !strcasecmp(text, "true") ||
            !strcasecmp(text, "on")) {
            *out = 1;
            return RM_OK;
        }
        if (!strcasecmp(text, "0") || !strcasecmp(text, "no") || !strcasecmp(text, "false") ||
            !strcasecmp(text, "off")) {
            *out = 0;
            return RM_OK;
        }
        return RM_ERR_INVALID;
    case RM_CFG_INT:
    case RM_CFG_SIZE:
        while (isspace((unsigned char)*text))
            text++;
        if (!*text)
            return RM_ERR_INVALID;
        errno = 0;
        v = strtoll(text, &end, 10);
        if (errno || end == text)
            return RM_ERR_INVALID;
        if (type == RM_CFG_SIZE) {
            long long mult = 1;
            switch (tolower((unsigned char)*end)) {
            case 'k': mult = 1LL << 10; end++; break;
            case 'm': mult = 1LL << 20; end++; break;
            case 'g': mult = 1LL << 30; end++; break;
            default: break;
            }
            if (mult > 1 && (*end == 'i' || *end == 'I'))
                end++;
            if (mult > 1 && (*end == 'b' || *end == 'B'))
                end++;
            if (v < 0 || v > INT64_MAX / mult)
                return RM_ERR_INVALID;
            v *= mult;
        }
        while (isspace((unsigned char)*end))
            end++;
        if (*end)
            return RM_ERR_INVALID;
        *out = v;
        return RM_OK;
    }
    return RM_ERR_INVALID;
}


/* Texts given through rm_config_set, owned by the table. */
static char *rm_cfg_owned[sizeof rm_cfg_rows / sizeof rm_cfg_rows[0]];
static int rm_cfg_loaded;
static rm_status_t rm_cfg_load_status;

rm_status_t rm_config_load_once(void)
{
    if (!rm_cfg_loaded) {
        rm_cfg_loaded = 1;
        rm_cfg_load_status = rm_config_load();
    }
    return rm_cfg_load_status;
}

rm_status_t rm_config_load(void)
{
    rm_status_t ret = RM_OK;
    for (size_t i = 0; i < sizeof rm_cfg_rows / sizeof rm_cfg_rows[0]; i++) {
        const rm_cfg_row_t *row = &rm_cfg_rows[i];
        char env[96];
        snprintf(env, sizeof env, "RAILMPI_%s", row->name);
        const char *val = getenv(env);
        int64_t v;
        if (rm_config_parse(row->type, row->def, row->ival) != RM_OK) {
            rm_log_error("config: default of %s is invalid", env);
            return RM_ERR_INTERNAL;
        }
        *row->sval = row->def;
        if (!val)
            continue;
        if (rm_config_parse(row->type, val, &v) != RM_OK) {
            rm_log_error("config: %s='%s' is not a valid %s (%s)", env, val,
                         rm_cfg_type_name(row->type), row->help);
            ret = RM_ERR_INVALID;
            continue;
        }
        *row->ival = v;
        *row->sval = val;
    }
    rm_log_level = (int)rm_config.verbose_i;
    return ret;
}

#define RM_CFG_NROWS ((int)(sizeof rm_cfg_rows / sizeof rm_cfg_rows[0]))

int rm_config_count(void)
{
    return RM_CFG_NROWS;
}

rm_status_t rm_config_info(int i, rm_cfg_info_t *out)
{
    if (i < 0 || i >= RM_CFG_NROWS)
        return RM_ERR_INVALID;
    const rm_cfg_row_t *row = &rm_cfg_rows[i];
    *out = (rm_cfg_info_t){row->name, row->type, row->def, row->help};
    return RM_OK;
}

int rm_config_find(const char *name)
{
    for (int i = 0; i < RM_CFG_NROWS; i++)
        if (!strcmp(rm_cfg_rows[i].name, name))
            return i;
    return -1;
}

int64_t rm_config_value(int i)
{
    return i >= 0 && i < RM_CFG_NROWS ? *rm_cfg_rows[i].ival : 0;
}

const char *rm_config_text(int i)
{
    if (i < 0 || i >= RM_CFG_NROWS)
        return "";
    const char *s = *rm_cfg_rows[i].sval;
    return s ? s : rm_cfg_rows[i].def;
}

rm_status_t rm_config_set(int i, const char *text)
{
    if (i < 0 || i >= RM_CFG_NROWS || !text)
        return RM_ERR_INVALID;
    const rm_cfg_row_t *row = &rm_cfg_rows[i];
    int64_t v;
    if (rm_config_parse(row->type, text, &v) != RM_OK)
        return RM_ERR_INVALID;
    char *copy = strdup(text);
    if (!copy)
        return RM_ERR_NOMEM;
    free(rm_cfg_owned[i]);
    rm_cfg_owned[i] = copy;
    *row->ival = v;
    *row->sval = copy;
    if (row->ival == &rm_config.verbose_i)
        rm_log_level = (int)v;
    return RM_OK;
}

void rm_config_print_help(FILE *out)
{
    fprintf(out, "railmpi settings (environment variables):\n");
    for (size_t i = 0; i < sizeof rm_cfg_rows / sizeof rm_cfg_rows[0]; i++) {
        const rm_cfg_row_t *row = &rm_cfg_rows[i];
        fprintf(out, "  RAILMPI_%-22s %-6s default %-8s %s\n", row->name,
                rm_cfg_type_name(row->type), row->def, row->help);
    }
}
