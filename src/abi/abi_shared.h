/* What the two ABI layers (libmpi_abi.so, libmpi.so.40) share, defined once
 * in src/abi/abi_engine.c and compiled into each library. Handles here are
 * the engine's. */
#ifndef RAILMPI_ABI_SHARED_H
#define RAILMPI_ABI_SHARED_H

/* arrays of handles up to this length are converted on the stack */
#define ABI_STACK 64

/* room for n engine handles: stack (ABI_STACK of them) or an allocation */
int *abi_handles_room(int *stack, int n);
/* src's n ints converted by conv into such room (NULL for NULL) */
int *abi_ints_in(int *stack, int n, const int *src, int (*conv)(int));
/* the datatype arrays of MPI_Alltoallw (one per rank of the (remote) group)
 * and MPI_Neighbor_alltoallw (the topology's destinations, out, or sources) */
int abi_comm_span(int comm);
int abi_neighbor_count(int comm, int out);
/* the processes MPI_Comm_spawn_multiple asks for, as this process knows
 * them (significant at the root), as the engine counts them */
int abi_procs_total(int count, const int *maxprocs);
/* whether a failed spawn (engine code rc) wrote its error codes here as many
 * as this process's maxprocs says: at the root, or where the spawn itself
 * failed (MPI_ERR_SPAWN) */
int abi_spawn_filled(int comm, int root, int rc);

#endif
