/* Boot: how a rank learns who it is and exchanges addresses with its peers
 * (PMIx, the PMI-1 and PMI-2 wire protocols of the launchers, or a one-rank
 * singleton job). */
#ifndef RM_BOOT_BOOT_H
#define RM_BOOT_BOOT_H

#include "util/status.h"

#include <stddef.h>

typedef struct boot_info {
    int rank, size, appnum;
    int universe; /* MPI_UNIVERSE_SIZE as the launcher gives it; 0: it does not (the job's size) */
    int singleton;
    char kvsname[256];
    /* where the launcher placed this rank, -1 when it does not say (only
     * PMIx does): its index among the job's ranks on its host, their
     * number, and the host's index in the job */
    int local_rank, local_size, node;
} boot_info_t;

rm_status_t boot_init(boot_info_t *out);
rm_status_t boot_put(const char *key, const char *val);
rm_status_t boot_fence(void);
/* rank_hint: the rank that published the key (PMIx looks it up there;
 * -1 when not known) */
rm_status_t boot_get(int rank_hint, const char *key, char *val, int vallen);
/* The host the launcher placed `rank` on (PMIx: PMIX_HOSTNAME), without a
 * fence; RM_ERR_UNSUPPORTED when the launcher does not tell (PMI-1, PMI-2). */
rm_status_t boot_host(int rank, char *host, int hostlen);
void boot_abort(int code, const char *msg) __attribute__((noreturn));
rm_status_t boot_finalize(void);
/* The launcher's name service (MPI_Publish_name etc.). Any bytes go in
 * service names and ports: they travel percent-encoded. RM_ERR_NOT_FOUND:
 * refused (publish: taken; lookup, unpublish: not there);
 * RM_ERR_UNSUPPORTED: this launcher has none. */
rm_status_t boot_name_publish(const char *service, const char *port);
rm_status_t boot_name_lookup(const char *service, char *port, int cap);
rm_status_t boot_name_unpublish(const char *service);
/* MPI_Comm_spawn(_multiple): per command, n processes of exe with args
 * (nargs) and info pairs; PARENT_ROOT_PORT_NAME = port goes into the new
 * job's key-value space (MPICH's name for it). RM_ERR_NOT_FOUND: the
 * launcher refused (its reason in why); RM_ERR_UNSUPPORTED: this launcher
 * cannot spawn; RM_ERR_INVALID: a value the wire cannot carry (a newline). */
typedef struct boot_cmd {
    int n;
    const char *exe;
    char *const *args;
    int nargs, ninfo;
    const char *const *ikeys, *const *ivals;
} boot_cmd_t;
rm_status_t boot_spawn(int count, const boot_cmd_t *cmds, const char *port, char *why, size_t cap);
/* Process fault tolerance: world rank `rank` has been unreachable past the
 * partition timeout; the launcher decides which side is dead and lists it
 * on the failure board. RM_ERR_UNSUPPORTED (or another error) when the
 * launcher cannot (then the caller fails the peer's operations itself). */
rm_status_t boot_report_lost(int rank);
/* Process fault tolerance: `fn` is called with the world rank of each
 * process of this job the launcher reports ended (PMIx events); NULL stops
 * it. It runs on the launcher library's thread, so it may only note the
 * rank. RM_ERR_UNSUPPORTED when this launcher reports none. */
rm_status_t boot_watch_deaths(void (*fn)(int rank));
/* A spawned job: the parent's port (RM_ERR_NOT_FOUND for any other job). */
rm_status_t boot_parent_port(char *port, int cap);

#endif
