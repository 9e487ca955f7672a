/* MPI-IO over POSIX files (docs/io.md): file objects, views, data access
 * through a view, the shared file pointer and data representations. Calls
 * answer 0 or a negative errno (the bindings in src/mpi/file*_api.c turn it
 * into an MPI error class); collective ones agree on the result first, so
 * every process of the file's communicator gets the same answer. */
#ifndef RM_IO_IO_H
#define RM_IO_IO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mpi.h"
#include "comm/comm.h"
#include "dtype/dtype.h"

/* A representation added by MPI_Register_datarep. */
typedef struct io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;         /* MPI_Register_datarep */
    MPI_Datarep_conversion_function_c *rd_c, *wr_c;   /* MPI_Register_datarep_c */
    MPI_Datarep_extent_function *extent;
    void *state;
    struct io_datarep *next;
} io_datarep_t;

enum io_rep { IO_REP_NATIVE, IO_REP_EXTERNAL32, IO_REP_USER };

/* Hints a file knows (MPI_File_set_info / get_info report them back). */
enum io_hint {
    IO_HINT_CB_BUFFER_SIZE, IO_HINT_CB_NODES, IO_HINT_ROMIO_CB_READ, IO_HINT_ROMIO_CB_WRITE,
    IO_HINT_ROMIO_DS_READ, IO_HINT_ROMIO_DS_WRITE, IO_HINT_IND_RD_BUFFER_SIZE,
    IO_HINT_IND_WR_BUFFER_SIZE, IO_HINT_STRIPING_UNIT, IO_HINT_STRIPING_FACTOR,
    IO_HINT_NO_INDEP_RW, IO_HINT_CB_CONFIG_LIST, IO_NHINTS
};
extern const char *const io_hint_names[IO_NHINTS];

/* Numbers each process contributes to a collective access's plan
 * (src/io/twophase.c). */
#define IO_PLAN_NI 7

typedef struct io_file {
    int index;           /* MPI_File_c2f */
    comm_t *comm;        /* private duplicate of the opening communicator */
    uint32_t parent_ctx; /* the opening communicator's context: its revoke revokes comm */
    int fd;
    char *path;
    int amode;
    int can_read;        /* fd open for reading (also for a WRONLY file when allowed) */
    int atomic;
    errhandler_t *errh;
    /* the view */
    MPI_Offset disp;
    dtype_t *etype, *ftype;
    char datarep[MPI_MAX_DATAREP_STRING];
    enum io_rep rep;
    io_datarep_t *urep;
    dtype_block_t *runs; /* one filetype item, flattened: merged runs in order */
    MPI_Count nruns;
    MPI_Count *rsum;     /* data bytes before run i (nruns + 1 entries) */
    MPI_Offset fp;       /* individual file pointer, in etypes */
    /* the shared file pointer lives in a locked file next to the data */
    char *shfp_path;
    int shfp_fd;         /* -1 until a call needs the file */
    _Atomic long long *shfp_map; /* the file mapped (every process on one host), else NULL */
    MPI_Offset shfp_init; /* the pointer while its file is missing or empty */
    char *hints[IO_NHINTS]; /* what is in effect (MPI_File_get_info) */
    long long cb_nodes_asked; /* the application's cb_nodes, 0 when not given */
    int cb_list_asked;        /* the application gave cb_config_list */
    int *hostof;         /* host index of each rank of comm (0..nhosts-1) */
    long long *plan;     /* IO_PLAN_NI per rank: what a collective access gathers */
    int nhosts;
    /* split collective in progress (MPI_File_*_begin) */
    int split;
    MPI_Count split_bytes;
    int split_err;
    /* nonblocking accesses (src/io/async.c) */
    _Atomic int pending; /* started, not yet finished by a worker */
    pthread_mutex_t mu;  /* held by an access that must not overlap another of
                          * this process (fcntl locks do not tell threads apart):
                          * atomic mode, write sieving */
} io_file_t;

/* ---- files (src/io/file.c) ---- */
io_file_t *io_file_get(MPI_File fh);  /* NULL unless an open file */
io_file_t *io_file_from_index(int index);
/* Collective over comm (which the file takes over, also on failure). */
int io_file_open(comm_t *comm, const char *name, int amode, io_file_t **out);
int io_file_close(io_file_t *f);      /* collective; frees f */
int io_file_delete(const char *name);
int io_file_set_size(io_file_t *f, MPI_Offset size);  /* collective */
int io_file_preallocate(io_file_t *f, MPI_Offset size); /* collective */
int io_file_get_size(io_file_t *f, MPI_Offset *size);
int io_file_sync(io_file_t *f);       /* collective */
void io_file_hint_set(io_file_t *f, const char *key, const char *val);
/* errno of a failed collective step agreed by all: the largest. */
int io_agree(io_file_t *f, int rc);
/* The byte whose fcntl lock gives processes of one host turns at writing
 * their pieces of a collective write (src/io/twophase.c): far past any
 * data, so no data lock (atomic mode, sieving) ever overlaps it. */
#define IO_TURN_BYTE ((MPI_Offset)1 << 62)
/* Byte-range lock of [off, off + len) (len 0: to the end), F_RDLCK/F_WRLCK/F_UNLCK. */
int io_lock(int fd, int type, MPI_Offset off, MPI_Offset len);

/* Wait until the file's nonblocking accesses have finished (close, set_view). */
void io_file_quiesce(io_file_t *f);

/* ---- views and data access (src/io/view.c) ---- */
/* rc: 0, -EINVAL (filetype not made of etypes, negative or decreasing
 * displacements), -ENOMEM. */
int io_view_set(io_file_t *f, MPI_Offset disp, dtype_t *etype, dtype_t *ftype,
                const char *datarep, io_datarep_t *urep, enum io_rep rep);
/* The file byte of view offset `off` etypes. */
MPI_Offset io_view_byte(const io_file_t *f, MPI_Offset off);
/* The view offset (etypes, rounded up) of file byte `byte`: MPI_SEEK_END. */
MPI_Offset io_view_offset(const io_file_t *f, MPI_Offset byte);
/* Move count items of (buf, dt) to or from the file at view offset `off`
 * (etypes), through the view's representation. *bytes: the memory-side bytes
 * moved (short at end of file for a read). */
int io_read(io_file_t *f, MPI_Offset off, void *buf, MPI_Count count, dtype_t *dt,
            MPI_Count *bytes);
int io_write(io_file_t *f, MPI_Offset off, const void *buf, MPI_Count count, dtype_t *dt,
             MPI_Count *bytes);
/* The packed (file representation) bytes of count items of (buf, dt):
 * *out is buf itself when nothing needs converting (*owned 0), else a
 * buffer to free. */
int io_mem_pack(io_file_t *f, const void *buf, MPI_Count count, dtype_t *dt, char **out,
                int *owned);
/* A buffer for `count * dt->size` packed bytes to read into (buf itself
 * when possible), and the conversion of `done` of them into (buf, dt). */
int io_mem_buffer(io_file_t *f, void *buf, MPI_Count count, dtype_t *dt, char **out, int *owned);
int io_mem_unpack(io_file_t *f, void *buf, MPI_Count count, dtype_t *dt, const char *in,
                  MPI_Count done);
/* One contiguous piece of an access: file bytes [off, off + len) hold
 * packed bytes [pos, pos + len). */
typedef struct io_piece {
    MPI_Offset off, len, pos;
} io_piece_t;
/* Steps the view walk has taken in this process, all files together (one
 * per run of the filetype an access touches; one for a whole access through
 * a dense filetype): the MPI_T counter io_view_steps. */
unsigned long long io_view_steps(void);
/* The pieces of packed bytes [d, d + n) of the view, in order (file offsets
 * increase: filetypes are monotonic). */
int io_view_pieces(const io_file_t *f, MPI_Offset d, MPI_Count n, io_piece_t **out, MPI_Count *np);
/* pread/pwrite of the whole length: bytes moved (short only at the end of
 * file on a read) or -errno. */
ssize_t io_pio(int fd, int write, char *p, size_t len, MPI_Offset off);
/* Data bytes in the file of count items of dt under the view's representation. */
int io_file_extent(io_file_t *f, dtype_t *dt, MPI_Aint *extent);

/* ---- collective buffering (src/io/twophase.c) ---- */
/* The _all forms: collective over the file's communicator. Two-phase
 * aggregation when romio_cb_read/write say so ("automatic": the processes'
 * byte ranges interleave), each process's own access otherwise. *cls: this
 * process's argument error class (0: none; buf, count and dt are then not
 * looked at) in, the largest of every process's out; the call moves nothing
 * when it is not 0. One allgather agrees on it, on the errors of the set-up
 * and on the plan. */
int io_write_all(io_file_t *f, MPI_Offset off, const void *buf, MPI_Count count, dtype_t *dt,
                 MPI_Count *bytes, int *cls);
int io_read_all(io_file_t *f, MPI_Offset off, void *buf, MPI_Count count, dtype_t *dt,
                MPI_Count *bytes, int *cls);
/* The plan, as pure functions (tests/unit/test_io.c): aggregators are the
 * first process of each host, then the second of each, ... until `want`
 * (comm ranks into aggr, their number returned); [gmin, gmax) is cut into
 * naggr domains of fd_size bytes from base, aligned to su when su > 0;
 * domain a is [lo, hi) (empty when lo == hi). */
int io_tp_pick(const int *hostof, int size, int nhosts, int want, int *aggr);
void io_tp_split(MPI_Offset gmin, MPI_Offset gmax, int naggr, MPI_Offset su, MPI_Offset *base,
                 MPI_Offset *fd_size);
void io_tp_domain_of(MPI_Offset base, MPI_Offset fd_size, MPI_Offset gmin, MPI_Offset gmax, int a,
                     MPI_Offset *lo, MPI_Offset *hi);

/* ---- nonblocking access (src/io/async.c) ---- */
/* io_read / io_write of the same arguments on a worker thread. The buffer
 * belongs to the access until io_async_done; dt is held by the job. */
typedef struct io_job io_job_t;
int io_async_start(io_file_t *f, int write, MPI_Offset off, void *buf, MPI_Count count,
                   dtype_t *dt, io_job_t **out);
int io_async_done(const io_job_t *j);
/* A blocking wait for j: runs it in the caller if no worker has started it,
 * else sleeps until a worker finishes a job or max_ns pass. */
void io_async_block(io_job_t *j, long max_ns);
/* After io_async_done: what io_read / io_write answered. */
int io_async_result(const io_job_t *j, MPI_Count *bytes);
void io_async_free(io_job_t *j);

/* ---- representations (src/io/datarep.c) ---- */
/* 0 with *rep (and *u for a registered one), -ENOENT for an unknown name. */
int io_datarep_find(const char *name, enum io_rep *rep, io_datarep_t **u);
int io_datarep_register(const char *name, MPI_Datarep_conversion_function *rd,
                        MPI_Datarep_conversion_function *wr,
                        MPI_Datarep_conversion_function_c *rd_c,
                        MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *ext,
                        void *state);
/* Whether u converts in that direction (write: memory to file). */
int io_datarep_converts(const io_datarep_t *u, int write);
/* Convert count items of dt between userbuf and the packed filebuf (write:
 * userbuf to filebuf) with u's function: the large-count one in one call,
 * an int one in calls of at most INT_MAX items, each told its first item's
 * position. 0, or -EILSEQ when the function fails. */
int io_datarep_convert(const io_datarep_t *u, int write, void *userbuf, const dtype_t *dt,
                       MPI_Count count, char *filebuf); /* -EEXIST, -ENOMEM */

/* ---- shared file pointer (src/io/shfp.c) ---- */
int io_shfp_create(io_file_t *f, MPI_Offset initial);   /* collective, at open */
void io_shfp_destroy(io_file_t *f);                      /* collective, at close */
int io_shfp_fetch_add(io_file_t *f, MPI_Offset add, MPI_Offset *old); /* etypes */
int io_shfp_set(io_file_t *f, MPI_Offset val);
/* Back to 0 (set_view): collective, after everybody's earlier accesses. */
int io_shfp_reset(io_file_t *f);

#endif
