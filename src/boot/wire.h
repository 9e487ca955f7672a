/* Inside the boot layer: the back ends that boot.c chooses between (PMIx,
 * PMI-1, PMI-2, singleton) and the wire helpers they share. Not for other layers:
 * they use boot.h. */
#ifndef RM_BOOT_WIRE_H
#define RM_BOOT_WIRE_H

#include "boot/boot.h"

#include <stddef.h>

/* A back end. boot.c checks keys and values against the limits and the
 * characters the wire cannot carry before calling put, so back ends never
 * see a key or value they would have to cut or mangle. */
typedef struct boot_ops {
    const char *name;     /* for messages: "PMIx", "PMI-1", "PMI-2", "singleton" */
    const char *bad_key;  /* characters a key must not contain */
    const char *bad_val;  /* characters a value must not contain */
    rm_status_t (*init)(boot_info_t *out);
    rm_status_t (*put)(const char *key, const char *val);
    rm_status_t (*fence)(void);
    /* RM_ERR_NOT_FOUND when the key is not there; `rank` published it
     * (-1: not known), which only PMIx needs */
    rm_status_t (*get)(int rank, const char *key, char *val, size_t cap);
    /* the host the launcher placed `rank` on; NULL when it does not say */
    rm_status_t (*host)(int rank, char *host, size_t cap);
    /* tell the launcher; the caller exits */
    void (*abort)(int code, const char *msg);
    rm_status_t (*finalize)(void);
    /* optional: the launcher's name service; RM_ERR_NOT_FOUND when it
     * refuses (a name taken, or not there) */
    rm_status_t (*name_publish)(const char *service, const char *port);
    rm_status_t (*name_lookup)(const char *service, char *port, size_t cap);
    rm_status_t (*name_unpublish)(const char *service);
    /* optional: spawn a job (MPI_Comm_spawn); `blocks` are MPICH's spawn
     * blocks (mcmd=spawn, key=value lines, endcmd), one per command.
     * RM_ERR_NOT_FOUND when the launcher refuses, its reason in why. */
    rm_status_t (*spawn)(const char *blocks, char *why, size_t cap);
    /* optional, preferred to spawn: the commands as they are (PMIx) */
    rm_status_t (*spawn_cmds)(int count, const boot_cmd_t *cmds, const char *port, char *why, size_t cap);
    /* optional: the parent's port in a spawned job (RM_ERR_NOT_FOUND in
     * any other); without it only PMI-1 asks its key-value space */
    rm_status_t (*parent_port)(char *port, size_t cap);
    /* optional: tell the launcher that world rank `rank` has been
     * unreachable past the partition timeout (process fault tolerance: it
     * decides which side is dead; railmpi's mpiexec only) */
    rm_status_t (*lost)(int rank);
    /* optional: report the job's processes that end (boot_watch_deaths) */
    rm_status_t (*watch_deaths)(void (*fn)(int rank));
} boot_ops_t;

extern const boot_ops_t boot_pmix_ops, boot_pmi1_ops, boot_pmi2_ops, boot_singleton_ops;

/* The back end for the launcher that started this process, from its
 * environment (boot.c; the unit tests call it too). */
const boot_ops_t *boot_select(void);

/* PMIx keeps values of any length; railmpi's longest is a business card of
 * a few hundred bytes. */
#define BOOT_PMIX_VALLEN_MAX (64 * 1024)

/* State shared by the back ends: one connection to one launcher. */
typedef struct boot_conn {
    int fd;                     /* -1 when not connected */
    int keylen_max, vallen_max; /* longest key and value the launcher keeps, with the NUL */
    char kvsname[256];          /* PMI-1 kvs name, PMI-2 job id */
} boot_conn_t;

extern boot_conn_t boot_conn;

/* A reply that has begun must be complete within this time: a launcher that
 * stops mid-message (or a length prefix larger than what follows) is an error,
 * not a hang. Waiting for a reply to begin has no limit, because a fence
 * lasts until the slowest rank arrives; a launcher that dies closes the
 * socket, which ends the wait. */
#define BOOT_WIRE_STALL_MS 10000

/* Write all of buf to the launcher (no SIGPIPE if it is gone). */
rm_status_t boot_wire_write(const char *proto, const void *buf, size_t len);
/* Read exactly len bytes; `started`: a message is under way (the stall limit applies). */
rm_status_t boot_wire_read(const char *proto, void *buf, size_t len, int started);
/* One newline-ended line, without the newline; a longer line than cap-1 is an error. */
rm_status_t boot_wire_read_line(const char *proto, char *buf, size_t cap);
/* The value of `key` in a "k=v<sep>k=v" message, copied to out (NUL-ended).
 * A key matches only at the start or after a separator. Returns 1 found,
 * 0 absent, -1 present but longer than cap-1. */
int boot_wire_field(const char *msg, const char *key, char sep, char *out, size_t cap);
/* An integer from the launcher's environment, or def when unset; an unset
 * value is not an error, a malformed one is (RM_ERR_INVALID). */
rm_status_t boot_env_int(const char *name, int def, int *out);

#endif
