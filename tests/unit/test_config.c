/* The config table: value parsing, environment loading, errors. */
#include "util/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static void expect(rm_cfg_type_t t, const char *text, rm_status_t st, int64_t v)
{
    int64_t out = -12345;
    rm_status_t got = rm_config_parse(t, text, &out);
    if (got != st)
        FAIL("parse '%s': status %d, expected %d", text, got, st);
    if (st == RM_OK && out != v)
        FAIL("parse '%s': %lld, expected %lld", text, (long long)out, (long long)v);
}

int main(void)
{
    expect(RM_CFG_INT, "42", RM_OK, 42);
    expect(RM_CFG_INT, " -3 ", RM_OK, -3);
    expect(RM_CFG_INT, "4k", RM_ERR_INVALID, 0);
    expect(RM_CFG_INT, "", RM_ERR_INVALID, 0);
    expect(RM_CFG_INT, "abc", RM_ERR_INVALID, 0);
    expect(RM_CFG_SIZE, "64k", RM_OK, 65536);
    expect(RM_CFG_SIZE, "2MiB", RM_OK, 2 << 20);
    expect(RM_CFG_SIZE, "1g", RM_OK, 1LL << 30);
    expect(RM_CFG_SIZE, "-1", RM_ERR_INVALID, 0);
    expect(RM_CFG_SIZE, "12x", RM_ERR_INVALID, 0);
    expect(RM_CFG_SIZE, "99999999999999999999", RM_ERR_INVALID, 0);
    expect(RM_CFG_BOOL, "yes", RM_OK, 1);
    expect(RM_CFG_BOOL, "OFF", RM_OK, 0);
    expect(RM_CFG_BOOL, "maybe", RM_ERR_INVALID, 0);

    unsetenv("RAILMPI_EAGER_THRESHOLD");
    if (rm_config_load() != RM_OK)
        FAIL("defaults do not load");
    if (RM_CFG(eager_threshold) != 16384)
        FAIL("default eager threshold %lld", (long long)RM_CFG(eager_threshold));
    setenv("RAILMPI_EAGER_THRESHOLD", "8k", 1);
    setenv("RAILMPI_SHM_CMA", "off", 1);
    if (rm_config_load() != RM_OK || RM_CFG(eager_threshold) != 8192 ||
        strcmp(RM_CFG_STR(shm_cma), "off"))
        FAIL("environment not applied");
    setenv("RAILMPI_SPIN_COUNT", "lots", 1);
    if (rm_config_load() != RM_ERR_INVALID)
        FAIL("a bad value must be an error");

    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    rm_config_print_help(f);
    fclose(f);
    if (!strstr(buf, "RAILMPI_EAGER_THRESHOLD") || !strstr(buf, "RAILMPI_SHM_CMA"))
        FAIL("help lacks settings:\n%s", buf);
    free(buf);
    printf("OK\n");
    return 0;
}
