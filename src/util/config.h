/* The one configuration table. Every setting is one row: environment name
 * RAILMPI_<NAME>, type, default, help. `mpiexec --help-vars` prints them all.
 * No other code reads RAILMPI_* variables with getenv. */
#ifndef RM_UTIL_CONFIG_H
#define RM_UTIL_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "util/status.h"

typedef enum { RM_CFG_INT, RM_CFG_SIZE, RM_CFG_BOOL, RM_CFG_STR } rm_cfg_type_t;

/* X(NAME, field, type, default, help) */
#define RM_CONFIG_TABLE(X)                                                                        \
    X(VERBOSE, verbose, RM_CFG_INT, "0",                                                          \
      "Log level on stderr: 0 errors only, 1 one line per event, 2 debug")                        \
    X(STATS, stats, RM_CFG_BOOL, "0", "Print per-peer/per-path counters at MPI_Finalize")         \
    X(EAGER_THRESHOLD, eager_threshold, RM_CFG_SIZE, "16384",                                     \
      "Messages up to this many bytes are sent eagerly; larger ones use rendezvous")              \
    X(SHM_FRAME_MAX, shm_frame_max, RM_CFG_SIZE, "16384",                                         \
      "Largest payload of one shared-memory frame; caps the shm eager threshold")                 \
    X(SHM_RING_SIZE, shm_ring_size, RM_CFG_SIZE, "1m",                                            \
      "Bytes of each shared-memory queue (one per sender/receiver pair; a power of two)")         \
    X(SHM_PREFAULT, shm_prefault, RM_CFG_SIZE, "64m",                                             \
      "Map the shared-memory queues in at MPI_Init while all of a host's queues together take "  \
      "at most this many bytes (else their first lap takes a page fault a page); 0: never")      \
    X(SHM_CMA, shm_cma, RM_CFG_STR, "auto",                                                       \
      "Single-copy large transfers with process_vm_readv: auto, on (fail if refused) or off")     \
    X(SHM_PIPELINE_CHUNK, shm_pipeline_chunk, RM_CFG_SIZE, "65536",                               \
      "Chunk size of the pipelined copy used when single-copy is off or refused")                 \
    X(SPIN_COUNT, spin_count, RM_CFG_INT, "2000",                                                 \
      "Progress polls before a waiting rank yields the core (sched_yield)")                       \
    X(SPIN_TIME_US, spin_time_us, RM_CFG_INT, "20",                                               \
      "Microseconds a waiting rank polls with nothing arriving before it yields the core, "       \
      "whichever of this and RAILMPI_SPIN_COUNT comes first (0: the count alone)")               \
    X(POLL_BACKOFF_NS, poll_backoff_ns, RM_CFG_INT, "400",                                        \
      "Nanoseconds a waiting rank on a host with other ranks holds off when a progress pass "    \
      "finds nothing right after one that found something (it has caught up with a sender "      \
      "that is still writing); 0: never")                                                         \
    X(SPIN_OVERSUBSCRIBED, spin_oversubscribed, RM_CFG_INT, "1",                                  \
      "Progress polls before a waiting rank yields, instead of RAILMPI_SPIN_COUNT, when this "    \
      "host's ranks outnumber the cores they may run on together (the union of their CPU masks)")\
    X(RAIL_POLICY, rail_policy, RM_CFG_STR, "adaptive",                                           \
      "How frames use a peer's rails: first, round-robin, binding, even, weighted, adaptive, "   \
      "failover (one rail carries traffic, a standby is kept connected and probed)")     \
    X(RAIL_WEIGHTS, rail_weights, RM_CFG_STR, "",                                                 \
      "Comma list of relative rail speeds (rail order), e.g. 4,1: the weighted policy's; the "    \
      "adaptive policy's until every rail has been measured")                                     \
    X(STRIPING_THRESHOLD, striping_threshold, RM_CFG_SIZE, "65536",                               \
      "Messages from this size on are cut into chunks spread over the rails")                    \
    X(NET_CHUNK, net_chunk, RM_CFG_SIZE, "262144",                                                \
      "Chunk size of large messages over network rails")                                         \
    X(RNDV_WINDOW, rndv_window, RM_CFG_SIZE, "1m",                                                \
      "Bytes of a large message over network rails sent with its request, before the receiver "   \
      "answers (within RAILMPI_PEER_BUFFER; 0: none)")                                            \
    X(RNDV_CREDIT_WAIT_US, rndv_credit_wait_us, RM_CFG_INT, "20000",                             \
      "How long a blocking send of a large message over network rails waits for the credit of "    \
      "its whole window before it sends its request with less (0: never waits)")                 \
    X(PEER_BUFFER, peer_buffer, RM_CFG_SIZE, "4m",                                                \
      "Bytes of message data a rank holds for each peer ahead of its receives (eager messages, "  \
      "rendezvous windows); past it the peer's sends wait for the receive (0: no limit)")        \
    X(ZCOPY_RECV, zcopy_recv, RM_CFG_BOOL, "1",                                                   \
      "Receive large network payloads straight into the receive buffer where the transport can "  \
      "(0: through a staging buffer)")                                                            \
    X(NET, net, RM_CFG_STR, "tcp",                                                                \
      "Transports of the rails between hosts: tcp, ofi (libfabric), or tcp,ofi (both, one channel)") \
    X(OFI_PROVIDER, ofi_provider, RM_CFG_STR, "",                                                 \
      "libfabric provider of the ofi rails, e.g. verbs;ofi_rxm, efa, tcp;ofi_rxm (empty: the best " \
      "network provider fi_getinfo offers)")                                                      \
    X(OFI_RAILS, ofi_rails, RM_CFG_STR, "",                                                       \
      "ofi rails: comma list of fabric names (IP subnets for tcp-based providers) or domain names " \
      "(NICs); empty: every domain of the provider except loopback and the launcher's network")   \
    X(OFI_RMA_MIN, ofi_rma_min, RM_CFG_SIZE, "256k",                                              \
      "Rendezvous messages from this size on are written straight from the send buffer into the " \
      "receive buffer (fi_write striped over the ofi rails) where the provider has FI_RMA; 0: " \
      "never (the copy path)")                                                                    \
    X(OFI_RMA_STREAM, ofi_rma_stream, RM_CFG_INT, "0",                                            \
      "With failover on, remote writes over providers that carry them in TCP streams (tcp, "      \
      "tcp;ofi_rxm, sockets) too: a fault may then cost an endpoint renewal; 0: the copy path "   \
      "there (as fast on those providers)")                                                       \
    X(OFI_FAST, ofi_fast, RM_CFG_INT, "1",                                                        \
      "RDMA fast path: small frames are written into a ring in the peer's memory (fi_write) where " \
      "the provider has FI_RMA and places a write's bytes in order (not iWARP); 0: sent as messages") \
    X(OFI_MULTI_RECV, ofi_multi_recv, RM_CFG_STR, "auto",                                         \
      "Receive into multi-receive buffers (FI_MULTI_RECV: messages placed one after another in a " \
      "few large posted buffers): auto, where the provider has them natively (not through "      \
      "ofi_rxm: with them messages came corrupted after connection failures there); 1: wherever " \
      "offered; 0: one posted buffer per message")                                                \
    X(OFI_TCP_RTO_MAX_MS, ofi_tcp_rto_max_ms, RM_CFG_INT, "1000",                                 \
      "Over providers that carry the rails in TCP (tcp, tcp;ofi_rxm, sockets): the longest "     \
      "retransmission timeout of the provider's connections (Linux >= 6.15; from 1000), so they " \
      "resume within it of a link's return; 0: the kernel's (backoff up to 120 s)")              \
    X(TCP_RAILS, tcp_rails, RM_CFG_STR, "",                                                       \
      "TCP rails: comma list of CIDR subnets or interface names (empty: every up, non-loopback "  \
      "IPv4 interface except the launcher's)")                                                    \
    X(TCP_CONGESTION, tcp_congestion, RM_CFG_STR, "cubic",                                        \
      "TCP congestion control of rail connections (empty: the system's). cubic keeps a rail "     \
      "full; bbr empties it for 0.2 s every 10 s to probe the round trip")                      \
    X(TCP_QUEUE_MAX, tcp_queue_max, RM_CFG_SIZE, "4m",                                            \
      "Bytes a TCP connection may hold beyond what the socket accepted before senders wait")      \
    X(TCP_BURST_NS, tcp_burst_ns, RM_CFG_INT, "1000",                                             \
      "A small frame sent within this many ns of the previous send() on its connection waits "    \
      "for the next progress pass, which sends the burst's frames with one send(); 0: each at once") \
    X(ASYNC_PROGRESS, async_progress, RM_CFG_STR, "auto",                                         \
      "Asynchronous progress thread: auto (when the job has network paths, else from the first " \
      "nonblocking or persistent collective), on (from the start, also on one host: large "      \
      "shared-memory transfers move while the application computes) or off")                    \
    X(INITIAL_ERRHANDLER, initial_errhandler, RM_CFG_STR, "mpi_errors_are_fatal",                \
      "The initial error handler (MPI-4.1 9.3): mpi_errors_are_fatal, mpi_errors_abort or "       \
      "mpi_errors_return; set by mpiexec -initial-errhandler and by the spawn info key "          \
      "mpi_initial_errhandler")                                                                   \
    X(FT, ft, RM_CFG_BOOL, "1",                                                                 \
      "Network fault tolerance: retransmit over surviving rails, recover failed rails, ride out " \
      "partitions (0: a rail failure ends the affected operations with an error)")               \
    X(PROC_FT, proc_ft, RM_CFG_BOOL, "0",                                                         \
      "Process fault tolerance (ULFM): a rank that dies is reported to the others, whose "       \
      "operations with it fail with MPIX_ERR_PROC_FAILED, instead of ending the job (set it "    \
      "for mpiexec and the ranks; mpiexec -disable-auto-cleanup sets it)")                      \
    X(AGREE_RADIX, agree_radix, RM_CFG_INT, "8",                                                  \
      "Fan-out of the tree MPIX_Comm_agree and MPIX_Comm_shrink run on (2 to 64; the same at "   \
      "every rank): wider is fewer steps deep, each rank sending more messages per step")        \
    X(PROC_FT_CHECK_MS, proc_ft_check_ms, RM_CFG_INT, "10",                                       \
      "Process fault tolerance under a launcher that reports no deaths (srun, Hydra, Open MPI's "  \
      "mpirun): a rank waiting in MPI looks this often whether a peer's process is gone (its "    \
      "pid on this host; its connections ended and its listener refusing on another host)")      \
    X(PROC_FT_DETECT, proc_ft_detect, RM_CFG_STR, "auto",                                         \
      "Process fault tolerance: who finds dead peers. auto: railmpi's mpiexec where it started "  \
      "the job, else each rank itself (RAILMPI_PROC_FT_CHECK_MS) and the launcher's PMIx events; " \
      "on: each rank itself, also under railmpi's mpiexec; off: only railmpi's mpiexec")        \
    X(PATH_TIMEOUT_MS, path_timeout_ms, RM_CFG_INT, "300",                                        \
      "A rail path that receives nothing (data or heartbeat) for this long is failed")           \
    X(HEALTH_HEARTBEAT_MS, health_heartbeat_ms, RM_CFG_INT, "150",                              \
      "An idle rail to a host gets one heartbeat per this many ms from one rank of this host for "  \
      "all of them (at most half RAILMPI_PATH_TIMEOUT_MS): the idle cost of a host pair and rail")\
    X(RECOVERY_MAX_MS, recovery_max_ms, RM_CFG_INT, "500",                                        \
      "Longest wait between reconnection attempts of a failed rail (exponential backoff)")       \
    X(PARTITION_TIMEOUT_S, partition_timeout_s, RM_CFG_INT, "300",                                \
      "Seconds every rail to a peer may stay down before its pending operations fail")           \
    X(JOB_SECRET, job_secret, RM_CFG_STR, "",                                                     \
      "Per-job secret checked on every TCP connection (set by mpiexec; unset: rank 0 draws one " \
      "and shares it through the launcher; never set it by hand)")                               \
    X(HOST_ID, host_id, RM_CFG_STR, "",                                                           \
      "Name of this rank's host (set by mpiexec's proxy; default: the host name)")                \
    X(PARENT_PORT, parent_port, RM_CFG_STR, "",                                                   \
      "Port of the job that spawned this one through PMIx (set by the spawning rank in the new "  \
      "processes' environment; never set it by hand)")                                           \
    X(LAUNCH_ADDR, launch_addr, RM_CFG_STR, "",                                                   \
      "Address the launcher reaches this host on (set by mpiexec; excluded from default rails)")   \
    X(CTL_FD, ctl_fd, RM_CFG_INT, "-1",                                                           \
      "Pipe on which mpiexec passes operator commands (mpiexec -migrate) to this rank (set by "   \
      "mpiexec; never set it by hand)")                                                            \
    X(FT_FD, ft_fd, RM_CFG_INT, "-1",                                                             \
      "Shared page on which mpiexec lists the job's dead ranks (RAILMPI_PROC_FT; set by "       \
      "mpiexec; never set it by hand)")                                                          \
    X(COLL_RING_MIN, coll_ring_min, RM_CFG_SIZE, "131072",                                        \
      "Allreduce and reduce_scatter of a commutative op on vectors from this many bytes on run "  \
      "as a ring (each rank moves about 2x resp. 1x the vector); smaller ones by recursive "      \
      "doubling or reduce + broadcast/scatter")                                                 \
    X(COLL_BCAST_SCATTER_MIN, coll_bcast_scatter_min, RM_CFG_SIZE, "524288",                      \
      "Broadcasts from this many bytes on: the root scatters the vector and a ring allgather "   \
      "completes it everywhere; smaller ones: binomial tree")                                    \
    X(COLL_BCAST_CHAIN_MIN, coll_bcast_chain_min, RM_CFG_SIZE, "262144",                          \
      "Broadcasts of this many bytes on among 3 or more ranks of one host: a chain through the "  \
      "ranks, the vector in RAILMPI_COLL_BCAST_CHAIN_SEG pieces, each rank passing one on while " \
      "it takes in the next; smaller ones: binomial tree")                                        \
    X(COLL_BCAST_CHAIN_SEG, coll_bcast_chain_seg, RM_CFG_SIZE, "524288",                          \
      "Piece size of the one-host broadcast chain (RAILMPI_COLL_BCAST_CHAIN_MIN)")                 \
    X(COLL_RSAG_MIN, coll_rsag_min, RM_CFG_SIZE, "16384",                                          \
      "Allreduce of a commutative op on vectors from this many bytes on (and below "             \
      "RAILMPI_COLL_RING_MIN): recursive-halving reduce-scatter + recursive-doubling allgather "  \
      "(Rabenseifner); smaller ones and non-commutative ops: recursive doubling")               \
    X(COLL_REDUCE_RSG_MIN, coll_reduce_rsg_min, RM_CFG_SIZE, "524288",                             \
      "Reduce of a commutative op on vectors from this many bytes on: ring reduce-scatter, then " \
      "the root gathers the blocks; smaller ones: binomial tree")                                \
    X(COLL_ALLGATHER_RING_MIN, coll_allgather_ring_min, RM_CFG_SIZE, "65536",                      \
      "Allgather(v) on more than 2 ranks gathering at least this many bytes in all: ring; "       \
      "fewer: Bruck (log2 n rounds)")                                                             \
    X(COLL_ALLTOALL_PAIRWISE_MIN, coll_alltoall_pairwise_min, RM_CFG_SIZE, "4194304",              \
      "Alltoall blocks (alltoallv/w: the mean receive block) of at least this many bytes go "    \
      "pairwise (n - 1 rounds, one partner each); smaller ones all at once")                                                         \
    X(COLL_ALLTOALL_BRUCK_MAX, coll_alltoall_bruck_max, RM_CFG_SIZE, "256",                         \
      "MPI_Alltoall blocks of fewer than this many bytes on 3 or more ranks go by Bruck (log2 n "  \
      "rounds of about n/2 blocks packed together); from it on: all at once or pairwise")         \
    X(COLL_BINOMIAL_GATHER_MAX, coll_binomial_gather_max, RM_CFG_SIZE, "16384",                    \
      "Gather and scatter (not the v forms) on more than 2 ranks with blocks below this many "    \
      "bytes go through a binomial tree; larger blocks straight between the root and each rank") \
    X(COLL_HIERARCHICAL, coll_hierarchical, RM_CFG_BOOL, "1",                                      \
      "On communicators spanning hosts, allreduce, reduce and reduce_scatter (commutative ops), " \
      "broadcast, barrier, allgather(v) and alltoall combine the ranks of each host through "     \
      "shared memory first; one rank per host crosses the network")                              \
    X(COLL_ALLTOALL_HIER_MAX, coll_alltoall_hier_max, RM_CFG_SIZE, "8192",                         \
      "MPI_Alltoall blocks of fewer than this many bytes on communicators spanning hosts go in "  \
      "two levels (RAILMPI_COLL_HIERARCHICAL): through each host's leader, one message between " \
      "each pair of hosts; larger blocks go straight between the ranks")                          \
    X(COLL_SHM_MAX, coll_shm_max, RM_CFG_SIZE, "4096",                                             \
      "On communicators whose ranks share one host (at most 64), barrier, and broadcast, reduce, " \
      "allreduce (contiguous types), allgather and alltoall moving at most this many bytes per "  \
      "rank (alltoall: all its blocks) go through a shared segment of the communicator, "         \
      "8 x this per rank; 0: always messages")                                                  \
    X(COLL_SHM_BCAST_MAX, coll_shm_bcast_max, RM_CFG_SIZE, "512",                                  \
      "Broadcasts through the one-host segment (RAILMPI_COLL_SHM_MAX) only up to this many "      \
      "bytes; larger ones by messages, whose deeper queue lets the root run further ahead")

typedef struct rm_config {
#define RM_CFG_FIELD(NAME, field, type, def, help) int64_t field##_i; const char *field##_s;
    RM_CONFIG_TABLE(RM_CFG_FIELD)
#undef RM_CFG_FIELD
} rm_config_t;

extern rm_config_t rm_config;

/* Read every row from the environment; an unparsable value is an error
 * naming the variable (RM_ERR_INVALID), not a silent default. */
rm_status_t rm_config_load(void);
/* rm_config_load the first time; later calls (MPI_Init after
 * MPI_T_init_thread) keep what was read and set since, and return the
 * first call's result. */
rm_status_t rm_config_load_once(void);
/* Parse one value of the given type; exposed for unit tests. */
rm_status_t rm_config_parse(rm_cfg_type_t type, const char *text, int64_t *out);
void rm_config_print_help(FILE *out);

/* The table read row by row (MPI_T's control variables). */
typedef struct rm_cfg_info {
    const char *name; /* without the RAILMPI_ prefix */
    rm_cfg_type_t type;
    const char *def, *help;
} rm_cfg_info_t;
int rm_config_count(void);
/* Row i's description; RM_ERR_INVALID when i is out of range. */
rm_status_t rm_config_info(int i, rm_cfg_info_t *out);
/* Row index of NAME (without the prefix), or -1. */
int rm_config_find(const char *name);
/* Row i's current value: the number (bool 0/1, sizes in bytes) and the text. */
int64_t rm_config_value(int i);
const char *rm_config_text(int i);
/* Give row i a new value in its own syntax; the table keeps a copy of the
 * text. RM_ERR_INVALID when the text does not parse (nothing changes). The
 * caller makes the new value take effect where it is cached. */
rm_status_t rm_config_set(int i, const char *text);

#define RM_CFG(field) (rm_config.field##_i)
#define RM_CFG_STR(field) (rm_config.field##_s)

#endif
