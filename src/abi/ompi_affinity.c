/* OMPI_Affinity_str, Open MPI's affinity extension (its mpi-ext.h): where
 * the process was bound when it started (by the launcher: railmpi's mpiexec
 * -bind-to, or whatever started it bound), where it is bound now, and what
 * processors exist, as Open MPI prints them: by resource ("socket 0[core
 * 0-1]", "socket 0 has 4 cores") or as a layout ("[B . . .]", one bracket
 * per socket, one mark per core). A set holding every processor the process
 * may use is no binding. docs/abi.md, "Extensions". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ompi_conv.h"
#include "abi_tables.h"
#include "comm/comm.h"
#include "util/lock.h"

#include <hwloc.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OMPI_AFFINITY_STRING_MAX 1024
enum { OMPI_AFFINITY_RSRC_STRING_FMT, OMPI_AFFINITY_LAYOUT_FMT };

int mpi_err_raise(comm_t *comm, int errclass, const char *fn, const char *fmt, ...);

/* an error of no object: MPI_COMM_SELF's handler, Open MPI's class */
static int affinity_error(int cls, const char *why)
{
    rm_lock();
    int rc = mpi_err_raise(NULL, cls, "OMPI_Affinity_str", "%s", why);
    rm_unlock();
    return abi_err_out(rc);
}

static const char ompi_unbound[] = "Not bound (or bound to all available processors)";

/* the binding the process started with, before main() */
static cpu_set_t affinity_at_start;
static int affinity_known;

__attribute__((constructor)) static void affinity_record(void)
{
    affinity_known = sched_getaffinity(0, sizeof affinity_at_start, &affinity_at_start) == 0;
}

typedef struct {
    char *s;
    size_t len;
} out_t;

static void put(out_t *o, const char *fmt, ...)
{
    if (o->len + 1 >= OMPI_AFFINITY_STRING_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->s + o->len, OMPI_AFFINITY_STRING_MAX - o->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n < OMPI_AFFINITY_STRING_MAX - o->len ? (size_t)n : OMPI_AFFINITY_STRING_MAX - 1 - o->len;
}

/* The sockets (packages; the whole machine when hwloc names none) and
 * their cores (the PUs where hwloc names no core). */
static int nsockets(hwloc_topology_t t)
{
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
    return n > 0 ? n : 1;
}

static hwloc_obj_t socket_obj(hwloc_topology_t t, int s)
{
    hwloc_obj_t p = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, (unsigned)s);
    return p ? p : hwloc_get_root_obj(t);
}

static hwloc_obj_type_t core_type(hwloc_topology_t t)
{
    return hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

static int ncores(hwloc_topology_t t, hwloc_obj_t sock)
{
    return hwloc_get_nbobjs_inside_cpuset_by_type(t, sock->cpuset, core_type(t));
}

static hwloc_obj_t core_obj(hwloc_topology_t t, hwloc_obj_t sock, int c)
{
    return hwloc_get_obj_inside_cpuset_by_type(t, sock->cpuset, core_type(t), (unsigned)c);
}

/* "socket 0[core 0-1,3], socket 1[core 2]" for the cores the set touches */
static void rsrc(hwloc_topology_t t, hwloc_const_bitmap_t set, out_t *o)
{
    int first_socket = 1;
    for (int s = 0; s < nsockets(t); s++) {
        hwloc_obj_t sock = socket_obj(t, s);
        int n = ncores(t, sock), run = -1, any = 0;
        for (int c = 0; c <= n; c++) {
            hwloc_obj_t core = c < n ? core_obj(t, sock, c) : NULL;
            int in = core && hwloc_bitmap_intersects(core->cpuset, set);
            if (in && run < 0)
                run = c;
            if (!in && run >= 0) {
                if (!any)
                    put(o, "%ssocket %d[core ", first_socket ? "" : ", ", s);
                put(o, "%s%d", any ? "," : "", run);
                if (c - 1 > run)
                    put(o, "-%d", c - 1);
                any = 1;
                first_socket = 0;
                run = -1;
            }
        }
        if (any)
            put(o, "]");
    }
}

/* "[B . . .][. . . .]": B for a core the set touches */
static void layout(hwloc_topology_t t, hwloc_const_bitmap_t set, out_t *o)
{
    for (int s = 0; s < nsockets(t); s++) {
        hwloc_obj_t sock = socket_obj(t, s);
        int n = ncores(t, sock);
        put(o, "[");
        for (int c = 0; c < n; c++) {
            hwloc_obj_t core = core_obj(t, sock, c);
            put(o, "%s%c", c ? " " : "", set && core && hwloc_bitmap_intersects(core->cpuset, set) ? 'B' : '.');
        }
        put(o, "]");
    }
}

static void binding(hwloc_topology_t t, int fmt, hwloc_const_bitmap_t set, char *to)
{
    out_t o = {to, 0};
    to[0] = 0;
    hwloc_const_bitmap_t all = hwloc_topology_get_allowed_cpuset(t);
    if (fmt == OMPI_AFFINITY_RSRC_STRING_FMT) {
        if (!set || hwloc_bitmap_isincluded(all, set))
            put(&o, "%s", ompi_unbound);
        else
            rsrc(t, set, &o);
    } else {
        layout(t, set && !hwloc_bitmap_isincluded(all, set) ? set : all, &o);
    }
}

int OMPI_Affinity_str(int fmt_type, char ompi_bound[OMPI_AFFINITY_STRING_MAX],
                      char current_binding[OMPI_AFFINITY_STRING_MAX], char exists[OMPI_AFFINITY_STRING_MAX])
{
    if (fmt_type != OMPI_AFFINITY_RSRC_STRING_FMT && fmt_type != OMPI_AFFINITY_LAYOUT_FMT)
        return affinity_error(MPI_ERR_ARG, "fmt_type is neither OMPI_AFFINITY_RSRC_STRING_FMT nor "
                                           "OMPI_AFFINITY_LAYOUT_FMT");
    if (!ompi_bound || !current_binding || !exists)
        return affinity_error(MPI_ERR_ARG, "a string is NULL");
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) < 0)
        return affinity_error(MPI_ERR_OTHER, "cannot read the machine's topology");
    hwloc_bitmap_t start = hwloc_bitmap_alloc(), now = hwloc_bitmap_alloc();
    int rc = MPI_SUCCESS;
    if (hwloc_topology_load(t) < 0 || !start || !now) {
        rc = -1;
        goto done;
    }
    for (int c = 0; affinity_known && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &affinity_at_start))
            hwloc_bitmap_set(start, (unsigned)c);
    if (hwloc_get_cpubind(t, now, HWLOC_CPUBIND_PROCESS) < 0)
        hwloc_bitmap_copy(now, hwloc_topology_get_allowed_cpuset(t));
    binding(t, fmt_type, affinity_known ? start : NULL, ompi_bound);
    binding(t, fmt_type, now, current_binding);
    out_t o = {exists, 0};
    exists[0] = 0;
    if (fmt_type == OMPI_AFFINITY_RSRC_STRING_FMT) {
        for (int s = 0; s < nsockets(t); s++) {
            int n = ncores(t, socket_obj(t, s));
            put(&o, "%ssocket %d has %d core%s", s ? ", " : "", s, n, n == 1 ? "" : "s");
        }
    } else {
        layout(t, NULL, &o);
    }
done:
    hwloc_bitmap_free(start);
    hwloc_bitmap_free(now);
    hwloc_topology_destroy(t);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : affinity_error(MPI_ERR_OTHER, "cannot read the machine's topology");
}
