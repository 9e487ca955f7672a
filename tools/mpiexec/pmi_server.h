/* The launcher's side of the PMI-1 wire protocol: one connection per rank,
 * a key-value space, a barrier across all ranks. */
#ifndef RM_MPIEXEC_PMI_SERVER_H
#define RM_MPIEXEC_PMI_SERVER_H

#include <stddef.h>

typedef struct pmi_server pmi_server_t;

typedef struct pmi_events {
    /* a rank called PMI abort (MPI_Abort or a fatal MPI error) */
    void (*abort)(void *ctx, int rank, int code, const char *msg);
    void (*finalized)(void *ctx, int rank);
    /* multi-host: a put to pass upstream, and "every local rank is in the
     * barrier" (release with pmi_server_barrier_release). NULL on one host. */
    void (*put)(void *ctx, const char *key, const char *val);
    void (*barrier)(void *ctx);
    /* a rank asked to spawn (MPI_Comm_spawn, _multiple): the key=value lines
     * of each command's block; 0 started, -1 refused with a reason in msg.
     * NULL: refused. */
    int (*spawn)(void *ctx, int rank, const char *const *const *blocks, const int *lines, int nblocks,
                 char *msg, size_t msglen);
    /* process fault tolerance: a rank found world rank `lost` unreachable
     * past the partition timeout; 0 taken in hand. NULL: refused. */
    int (*lost)(void *ctx, int rank, int lost);
} pmi_events_t;

/* What get_appnum answers the rank (default 0). */
void pmi_server_set_appnum(pmi_server_t *s, int rank, int appnum);
/* The value of `key` among a spawn block's key=value lines, or NULL. */
/* What get_universe_size answers (MPI_UNIVERSE_SIZE); default the job's size. */
void pmi_server_set_universe(pmi_server_t *s, int universe);
const char *pmi_spawn_value(const char *const *kv, int n, const char *key);

/* `nlocal` ranks connect here; they are ranks first..first+nlocal-1 of a job of `size`. */
pmi_server_t *pmi_server_new(int nlocal, int first, int size, const char *kvsname, pmi_events_t ev,
                             void *ctx);
void pmi_server_kv_put(pmi_server_t *s, const char *key, const char *val);
void pmi_server_barrier_release(pmi_server_t *s);
void pmi_server_free(pmi_server_t *s);
/* Register rank's connection (our end of its socketpair). */
void pmi_server_attach(pmi_server_t *s, int rank, int fd);
/* Handle readable input on a rank's fd; returns -1 when the connection closed. */
int pmi_server_input(pmi_server_t *s, int rank);
int pmi_server_fd(pmi_server_t *s, int rank);
/* Handle whatever the rank wrote before it exited (never blocks): a rank is
 * judged on everything it said, not on what has been read so far. */
void pmi_server_drain(pmi_server_t *s, int rank);
/* The name service's directory (-nameserver DIR); default
 * $TMPDIR/railmpi-names-UID, shared by the user's jobs on the host. */
void pmi_server_names_dir(const char *dir);
/* The rank said PMI init: it is an MPI process, so it must finalize. */
int pmi_server_initialized(pmi_server_t *s, int rank);

#endif
