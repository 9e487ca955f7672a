/* The launcher's side of the PMI-1 wire protocol: one connection per rank,
 * a key-value space, a barrier across all ranks. */
#ifndef RM_MPIEXEC_PMI_SERVER_H
#define RM_MPIEXEC_PMI_SERVER_H

typedef struct pmi_server pmi_server_t;

typedef struct pmi_events {
    /* a rank called PMI abort (MPI_Abort or a fatal MPI error) */
    void (*abort)(void *ctx, int rank, int code, const char *msg);
    void (*finalized)(void *ctx, int rank);
} pmi_events_t;

pmi_server_t *pmi_server_new(int size, const char *kvsname, pmi_events_t ev, void *ctx);
void pmi_server_free(pmi_server_t *s);
/* Register rank's connection (our end of its socketpair). */
void pmi_server_attach(pmi_server_t *s, int rank, int fd);
/* Handle readable input on a rank's fd; returns -1 when the connection closed. */
int pmi_server_input(pmi_server_t *s, int rank);
int pmi_server_fd(pmi_server_t *s, int rank);

#endif
