/* The config table: value parsing, environment loading, errors. */
#include "util/config.h"
#include "util/rails.h"

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

    /* rail lists (util/rails.c): well-formed entries, subnets, discovery */
    struct in_addr net;
    int prefix;
    char bad[64];
    if (rm_rail_cidr("198.18.10.0/24", &net, &prefix) || prefix != 24 || rm_rail_net(net, 24) != 0xc6120a00u)
        FAIL("rail cidr: 198.18.10.0/24");
    if (!rm_rail_cidr("198.18.0.0/99", &net, &prefix) || !rm_rail_cidr("198.18.0.0/24x", &net, &prefix))
        FAIL("rail cidr: a malformed subnet was accepted");
    if (rm_rails_check("198.18.10.0/24,rail1", bad, sizeof bad))
        FAIL("rail list: a good list refused (%s)", bad);
    if (!rm_rails_check("rail0,198.18.0.0/99", bad, sizeof bad) || strcmp(bad, "198.18.0.0/99"))
        FAIL("rail list: the malformed entry not named (%s)", bad);
    rm_rail_dev_t dev[4];
    if (rm_rails_find("lo", NULL, 1, dev, 4) != 1 || strcmp(dev[0].ifname, "lo") || dev[0].prefix != 8)
        FAIL("rail discovery: loopback named and allowed must be found");
    if (rm_rails_find("lo", NULL, 0, dev, 4) != 0 || rm_rails_find("127.0.0.0/8", NULL, 0, dev, 4) != 0)
        FAIL("rail discovery: loopback is no rail unless allowed");
    printf("OK\n");
    return 0;
}
