/* File objects: open/close/delete over POSIX, sizes, sync, hints, the table
 * behind MPI_File_c2f/f2c, and byte-range locks (atomic mode, the shared file
 * pointer). Nothing here assumes that the processes of a file share memory:
 * they agree through the file's communicator and meet in the file system. */
#include "io/io.h"

#include "coll/coll.h"
#include "coll/op.h"
#include "proto/proto.h"
#include "util/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const io_hint_names[IO_NHINTS] = {
    [IO_HINT_CB_BUFFER_SIZE] = "cb_buffer_size",
    [IO_HINT_CB_NODES] = "cb_nodes",
    [IO_HINT_ROMIO_CB_READ] = "romio_cb_read",
    [IO_HINT_ROMIO_CB_WRITE] = "romio_cb_write",
    [IO_HINT_ROMIO_DS_READ] = "romio_ds_read",
    [IO_HINT_ROMIO_DS_WRITE] = "romio_ds_write",
    [IO_HINT_IND_RD_BUFFER_SIZE] = "ind_rd_buffer_size",
    [IO_HINT_IND_WR_BUFFER_SIZE] = "ind_wr_buffer_size",
    [IO_HINT_STRIPING_UNIT] = "striping_unit",
    [IO_HINT_STRIPING_FACTOR] = "striping_factor",
    [IO_HINT_NO_INDEP_RW] = "romio_no_indep_rw",
    [IO_HINT_CB_CONFIG_LIST] = "cb_config_list",
};

static io_file_t **io_files;
static int io_nfiles;

io_file_t *io_file_get(MPI_File fh)
{
    if (!fh)
        return NULL;
    for (int i = 0; i < io_nfiles; i++)
        if (io_files[i] == (io_file_t *)(void *)fh)
            return io_files[i];
    return NULL;
}

io_file_t *io_file_from_index(int index)
{
    return index > 0 && index <= io_nfiles ? io_files[index - 1] : NULL;
}

static int io_table_add(io_file_t *f)
{
    for (int i = 0; i < io_nfiles; i++)
        if (!io_files[i]) {
            io_files[i] = f;
            f->index = i + 1;
            return 0;
        }
    io_file_t **t = realloc(io_files, sizeof *t * (size_t)(io_nfiles + 16));
    if (!t)
        return -ENOMEM;
    io_files = t;
    memset(io_files + io_nfiles, 0, sizeof *t * 16);
    io_files[io_nfiles] = f;
    f->index = ++io_nfiles;
    io_nfiles += 15;
    return 0;
}

int io_agree(io_file_t *f, int rc)
{
    int mine = rc < 0 ? -rc : 0, all = 0;
    if (coll_allreduce(&mine, &all, 1, dtype_get(MPI_INT), op_get(MPI_MAX), f->comm) < 0)
        return -EIO;
    return -all;
}

int io_lock(int fd, int type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = {.l_type = (short)type, .l_whence = SEEK_SET, .l_start = off, .l_len = len};
    while (fcntl(fd, F_SETLKW, &fl) < 0)
        if (errno != EINTR)
            return -errno;
    return 0;
}

/* ROMIO-style "ufs:" / "nfs:" prefixes name the file system driver; all of
 * them are POSIX files here. */
static const char *io_strip_prefix(const char *name)
{
    static const char *const pfx[] = {"ufs:", "nfs:", "file:", "testfs:", "lustre:", "gpfs:"};
    for (size_t i = 0; i < sizeof pfx / sizeof pfx[0]; i++)
        if (!strncmp(name, pfx[i], strlen(pfx[i])))
            return name + strlen(pfx[i]);
    return name;
}

static void io_hints_default(io_file_t *f, int hosts)
{
    char n[32];
    snprintf(n, sizeof n, "%d", hosts);
    const char *def[IO_NHINTS] = {
        [IO_HINT_CB_BUFFER_SIZE] = "16777216", [IO_HINT_CB_NODES] = n,
        [IO_HINT_ROMIO_CB_READ] = "automatic", [IO_HINT_ROMIO_CB_WRITE] = "automatic",
        [IO_HINT_ROMIO_DS_READ] = "automatic", [IO_HINT_ROMIO_DS_WRITE] = "automatic",
        [IO_HINT_IND_RD_BUFFER_SIZE] = "4194304", [IO_HINT_IND_WR_BUFFER_SIZE] = "524288",
        [IO_HINT_NO_INDEP_RW] = "false", [IO_HINT_CB_CONFIG_LIST] = "*:*",
    };
    for (int i = 0; i < IO_NHINTS; i++)
        f->hints[i] = def[i] ? strdup(def[i]) : NULL;
}

/* A positive number no larger than max. */
static int io_hint_numeric(const char *v, long long max)
{
    char *end;
    long long x = strtoll(v, &end, 10);
    return *v && !*end && x > 0 && x <= max;
}

/* cb_config_list in the one form that means something when every host
 * sees the same file system: "*:N" (at most N aggregators on each host) or
 * "*:*" (every process). 0 for "*", -1 for anything else. */
static long long io_cb_per_host(const char *v)
{
    if (strncmp(v, "*:", 2))
        return -1;
    if (!strcmp(v + 2, "*"))
        return 0;
    return io_hint_numeric(v + 2, INT_MAX) ? strtoll(v + 2, NULL, 10) : -1;
}

static void io_hint_put(io_file_t *f, int i, const char *val)
{
    char *v = strdup(val);
    if (v) {
        free(f->hints[i]);
        f->hints[i] = v;
    }
}

/* Hints that depend on others, made what they are in effect: cb_nodes is
 * the application's, else as many as cb_config_list allows when it was
 * given, else one per host; never more than cb_config_list allows on each
 * host (by default "*:*", no limit: unlike ROMIO's "*:1", an explicit
 * cb_nodes alone may put several aggregators on a host).
 * romio_no_indep_rw true turns automatic collective buffering into enable,
 * as ROMIO does. */
static void io_hints_settle(io_file_t *f)
{
    long long per = f->hints[IO_HINT_CB_CONFIG_LIST] ? io_cb_per_host(f->hints[IO_HINT_CB_CONFIG_LIST]) : 1;
    int size = f->comm->size;
    long long cap = 0;
    int *on = f->nhosts > 0 ? calloc((size_t)f->nhosts, sizeof *on) : NULL;
    if (on && f->hostof) {
        for (int r = 0; r < size; r++)
            on[f->hostof[r]]++;
        for (int h = 0; h < f->nhosts; h++)
            cap += per > 0 && per < on[h] ? per : on[h];
    } else {
        cap = size;
    }
    free(on);
    long long want = f->cb_nodes_asked > 0 ? f->cb_nodes_asked : f->cb_list_asked ? cap : f->nhosts;
    if (want > cap)
        want = cap;
    if (want < 1)
        want = 1;
    char n[32];
    snprintf(n, sizeof n, "%lld", want);
    io_hint_put(f, IO_HINT_CB_NODES, n);
    if (f->hints[IO_HINT_NO_INDEP_RW] && !strcmp(f->hints[IO_HINT_NO_INDEP_RW], "true"))
        for (int i = IO_HINT_ROMIO_CB_READ; i <= IO_HINT_ROMIO_CB_WRITE; i++)
            if (!strcmp(f->hints[i], "automatic"))
                io_hint_put(f, i, "enable");
}

void io_file_hint_set(io_file_t *f, const char *key, const char *val)
{
    io_file_quiesce(f); /* workers read the hints */
    for (int i = 0; i < IO_NHINTS; i++) {
        if (strcmp(key, io_hint_names[i]))
            continue;
        int ok;
        switch (i) {
        case IO_HINT_ROMIO_CB_READ: case IO_HINT_ROMIO_CB_WRITE:
        case IO_HINT_ROMIO_DS_READ: case IO_HINT_ROMIO_DS_WRITE:
            ok = !strcmp(val, "enable") || !strcmp(val, "disable") || !strcmp(val, "automatic");
            break;
        case IO_HINT_NO_INDEP_RW:
            ok = !strcmp(val, "true") || !strcmp(val, "false");
            break;
        case IO_HINT_CB_CONFIG_LIST:
            ok = io_cb_per_host(val) >= 0;
            f->cb_list_asked |= ok;
            break;
        case IO_HINT_STRIPING_FACTOR:
            ok = 0; /* POSIX files have no stripes to count: not in effect, not reported */
            break;
        case IO_HINT_CB_NODES:
            ok = io_hint_numeric(val, INT_MAX);
            if (ok)
                f->cb_nodes_asked = strtoll(val, NULL, 10);
            break;
        default: /* sizes: a buffer of that many bytes is allocated */
            ok = io_hint_numeric(val, 1LL << 30);
        }
        /* a value we cannot use is ignored, as the standard allows */
        if (ok && i != IO_HINT_CB_NODES)
            io_hint_put(f, i, val);
        io_hints_settle(f);
        return;
    }
}

/* Which host each process is on (the aggregators are picked per host) and
 * how many hosts: the default of cb_nodes. A launcher that places ranks on
 * virtual hosts names them in RAILMPI_HOST_ID: those share the kernel's
 * host name, and the job's other layers already take them as distinct. */
static int io_find_hosts(io_file_t *f)
{
    comm_t *c = f->comm;
    char me[64] = {0};
    if (*RM_CFG_STR(host_id))
        snprintf(me, sizeof me, "%s", RM_CFG_STR(host_id));
    else
        gethostname(me, sizeof me - 1);
    char *all = calloc((size_t)c->size, sizeof me);
    f->hostof = calloc((size_t)c->size, sizeof *f->hostof);
    f->plan = malloc(sizeof *f->plan * IO_PLAN_NI * (size_t)c->size);
    if (!all || !f->hostof || !f->plan) {
        free(all);
        return -ENOMEM;
    }
    if (coll_allgather(me, sizeof me, dtype_get(MPI_CHAR), all, sizeof me, dtype_get(MPI_CHAR), c) < 0) {
        free(all);
        return -EIO;
    }
    f->nhosts = 0;
    for (int i = 0; i < c->size; i++) {
        int h = -1;
        for (int j = 0; j < i && h < 0; j++)
            if (!memcmp(all + (size_t)i * sizeof me, all + (size_t)j * sizeof me, sizeof me))
                h = f->hostof[j];
        f->hostof[i] = h >= 0 ? h : f->nhosts++;
    }
    free(all);
    return 0;
}

static void io_file_free(io_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->index > 0)
        io_files[f->index - 1] = NULL;
    free(f->path);
    free(f->runs);
    free(f->rsum);
    free(f->hostof);
    free(f->plan);
    if (f->etype)
        dtype_release(f->etype);
    if (f->ftype)
        dtype_release(f->ftype);
    for (int i = 0; i < IO_NHINTS; i++)
        free(f->hints[i]);
    if (f->errh)
        errhandler_release(f->errh);
    if (f->comm)
        comm_release(f->comm);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

void io_file_quiesce(io_file_t *f)
{
    /* erroneous (MPI-3.1 13.2.2, 13.3), but a worker must not outlive its file */
    while (atomic_load(&f->pending) > 0) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* A revoke of the communicator files were opened on revokes them: their
 * collective accesses fail (MPIX_ERR_REVOKED) and MPI_File_close closes
 * without waiting for the other members. */
static void io_revoked(uint32_t ctx)
{
    for (int i = 0; i < io_nfiles; i++)
        if (io_files[i] && io_files[i]->parent_ctx == ctx && !io_files[i]->comm->revoked)
            proto_ft_revoke_here(io_files[i]->comm);
}

int io_file_open(comm_t *comm, const char *name, int amode, io_file_t **out)
{
    proto_ft_on_revoke(io_revoked);
    *out = NULL;
    io_file_t *f = calloc(1, sizeof *f);
    if (!f) {
        comm_release(comm);
        return -ENOMEM;
    }
    f->comm = comm;
    /* errors of nonblocking accesses are raised on it when their requests
     * complete, after the file's own handler has had them */
    comm_set_errhandler(comm, errhandler_get(MPI_ERRORS_RETURN));
    f->fd = -1;
    f->shfp_fd = -1;
    pthread_mutex_init(&f->mu, NULL);
    f->amode = amode;
    name = io_strip_prefix(name);
    int rc = (f->path = strdup(name)) ? io_table_add(f) : -ENOMEM;
    /* write-only files are opened for reading too where permissions allow:
     * collective buffering reads the holes of a domain before writing it */
    int flags = amode & MPI_MODE_RDONLY ? O_RDONLY : O_RDWR;
    f->can_read = !(amode & MPI_MODE_WRONLY);
    /* one process creates, the others open what it made: no O_CREAT race
     * between hosts on NFS, and EXCL means "nobody had it" */
    if (rc == 0 && comm->rank == 0) {
        int cflags = flags;
        if (amode & MPI_MODE_CREATE)
            cflags |= O_CREAT | (amode & MPI_MODE_EXCL ? O_EXCL : 0);
        if ((f->fd = open(f->path, cflags | O_CLOEXEC, 0666)) < 0 && errno == EACCES &&
            (amode & MPI_MODE_WRONLY))
            f->fd = open(f->path, (cflags & ~O_RDWR) | O_WRONLY | O_CLOEXEC, 0666);
        else if (f->fd >= 0 && (amode & MPI_MODE_WRONLY))
            f->can_read = 1;
        if (f->fd < 0)
            rc = -errno;
    }
    int rc0 = -rc;
    if (coll_bcast(&rc0, 1, dtype_get(MPI_INT), 0, comm) < 0)
        rc0 = EIO;
    if (rc0 == 0 && rc == 0 && comm->rank != 0) {
        if ((f->fd = open(f->path, flags | O_CLOEXEC)) < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY))
            f->fd = open(f->path, O_WRONLY | O_CLOEXEC);
        else if (f->fd >= 0 && (amode & MPI_MODE_WRONLY))
            f->can_read = 1;
        if (f->fd < 0)
            rc = -errno;
    }
    if (rc0)
        rc = -rc0;
    rc = io_agree(f, rc);
    if (rc == 0) {
        struct stat sb;
        if (fstat(f->fd, &sb) < 0)
            rc = -errno;
        else if (S_ISDIR(sb.st_mode))
            rc = -EISDIR;
        rc = io_agree(f, rc);
    }
    if (rc < 0) {
        io_file_free(f);
        return rc;
    }
    f->etype = dtype_get(MPI_BYTE);
    f->ftype = dtype_get(MPI_BYTE);
    dtype_addref(f->etype);
    dtype_addref(f->ftype);
    strcpy(f->datarep, "native");
    f->runs = malloc(sizeof *f->runs);
    f->rsum = malloc(2 * sizeof *f->rsum);
    if (!f->runs || !f->rsum)
        rc = -ENOMEM;
    else {
        f->runs[0] = (dtype_block_t){0, 1};
        f->nruns = 1;
        f->rsum[0] = 0;
        f->rsum[1] = 1;
    }
    int rh = io_find_hosts(f); /* collective: whatever rc says */
    if (rc == 0)
        rc = rh;
    io_hints_default(f, f->nhosts);
    MPI_Offset size = 0;
    if (rc == 0 && (amode & MPI_MODE_APPEND)) {
        rc = io_file_get_size(f, &size);
        f->fp = size;
    }
    int rs = io_shfp_create(f, size); /* collective: whatever rc says */
    if (rc == 0)
        rc = rs;
    rc = io_agree(f, rc);
    if (rc < 0) {
        io_file_free(f);
        return rc;
    }
    *out = f;
    return 0;
}

int io_file_close(io_file_t *f)
{
    int rc = 0;
    io_file_quiesce(f);
    /* a revoked file closes here alone (the others may have closed it) */
    int revoked = f->comm->revoked;
    if (!revoked && coll_barrier(f->comm) < 0 && !f->comm->revoked)
        rc = -EIO;
    io_shfp_destroy(f);
    if (f->fd >= 0 && close(f->fd) < 0 && rc == 0)
        rc = -errno;
    f->fd = -1;
    /* every process has closed before the file goes */
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        if (!revoked && coll_barrier(f->comm) < 0 && rc == 0 && !f->comm->revoked)
            rc = -EIO;
        if (f->comm->rank == 0 && unlink(f->path) < 0 && rc == 0)
            rc = -errno;
    }
    io_file_free(f);
    return rc;
}

int io_file_delete(const char *name)
{
    name = io_strip_prefix(name);
    struct stat sb;
    if (stat(name, &sb) == 0 && S_ISDIR(sb.st_mode))
        return -EISDIR;
    return unlink(name) < 0 ? -errno : 0;
}

int io_file_get_size(io_file_t *f, MPI_Offset *size)
{
    struct stat sb;
    if (fstat(f->fd, &sb) < 0)
        return -errno;
    *size = sb.st_size;
    return 0;
}

int io_file_set_size(io_file_t *f, MPI_Offset size)
{
    /* everybody's earlier accesses (and get_size) come first; then one
     * truncate, which everybody sees when the call returns */
    int rc = coll_barrier(f->comm) < 0 ? -EIO : 0;
    if (rc == 0 && f->comm->rank == 0 && ftruncate(f->fd, size) < 0)
        rc = -errno;
    return io_agree(f, rc);
}

int io_file_preallocate(io_file_t *f, MPI_Offset size)
{
    int rc = coll_barrier(f->comm) < 0 ? -EIO : 0;
    if (rc == 0 && f->comm->rank == 0) {
        MPI_Offset cur;
        rc = io_file_get_size(f, &cur);
        if (rc == 0 && size > cur) {
            int e = posix_fallocate(f->fd, 0, size);
            /* file systems without fallocate: extending is what the
             * standard asks, reserving the blocks is a bonus */
            if (e == EOPNOTSUPP || e == EINVAL)
                e = ftruncate(f->fd, size) < 0 ? errno : 0;
            rc = -e;
        }
    }
    return io_agree(f, rc);
}

int io_file_sync(io_file_t *f)
{
    int rc = fsync(f->fd) < 0 ? -errno : 0;
    if (rc == -EINVAL || rc == -EROFS)
        rc = 0; /* nothing to flush on this kind of file */
    /* drop the cached pages: after sync-barrier-sync an NFS client must not
     * serve another host's bytes from its own stale cache */
    if (rc == 0)
        posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
    return io_agree(f, rc);
}
