/* MPI_Comm_spawn and MPI_Comm_get_parent (MPI-3.1 §10.3). The root opens a
 * port, asks the launcher (PMI-1 spawn, as MPICH does) for the new job with
 * the port in its key-value space, and the group accepts; the new job's
 * processes find the port in MPI_Init and connect with MPI_COMM_WORLD. */
#include "boot/boot.h"
#include "comm/attr.h"
#include "mpi/mpiimpl.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How long the parents wait for the children to connect: the launcher has
 * started their job, but a child that dies before MPI_Init never comes. */
#define SPAWN_CONNECT_TIMEOUT_S 60.0

static comm_t *spawn_parent;

rm_status_t mpi_spawn_init(void)
{
    char port[MPI_MAX_PORT_NAME];
    if (boot_parent_port(port, sizeof port) < 0)
        return RM_OK; /* not a spawned job */
    int errclass;
    rm_status_t st = comm_dyn_connect(port, SPAWN_CONNECT_TIMEOUT_S, 0, comm_world, &errclass, &spawn_parent);
    if (st >= 0 && errclass != MPI_SUCCESS) {
        rm_log_error("MPI_Init: cannot reach the parent job (port %s)", port);
        st = RM_ERR_UNREACHABLE;
    }
    return st;
}

void mpi_spawn_forget(comm_t *c)
{
    if (c == spawn_parent)
        spawn_parent = NULL;
}

RM_ALIAS(Comm_get_parent)
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    MPI_BEGIN("MPI_Comm_get_parent");
    CHECK_ARG(NULL, parent, "parent is NULL");
    *parent = spawn_parent ? spawn_parent->handle : MPI_COMM_NULL;
    MPI_END();
}

/* Info keys the launcher understands; others are ignored (MPI-3.1 §10.3.4). */
static const char *const spawn_keys[] = {"host", "wdir", "path"};

RM_ALIAS(Comm_spawn)
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    MPI_BEGIN("MPI_Comm_spawn");
    comm_t *c, *n = NULL;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, intercomm, "intercomm is NULL");
    if (root < 0 || root >= c->size)
        MPI_FAIL(c, MPI_ERR_ROOT, "invalid root %d (communicator size %d)", root, c->size);
    /* command, argv, maxprocs and info matter at the root only: what it
     * finds wrong fails the whole group */
    char port[MPI_MAX_PORT_NAME] = "", why[256] = "";
    int root_err = MPI_SUCCESS, port_open = 0;
    if (c->rank == root) {
        char vals[3][1024];
        const char *keys[3], *pv[3];
        int ninfo = 0, nargs = 0;
        while (argv && argv[nargs])
            nargs++;
        if (!command || !*command || maxprocs < 1) {
            root_err = MPI_ERR_ARG;
            snprintf(why, sizeof why, "%s", !command || !*command ? "no command" : "maxprocs below 1");
        }
        for (int k = 0; root_err == MPI_SUCCESS && info != MPI_INFO_NULL && k < 3; k++) {
            int flag = 0;
            if (PMPI_Info_get(info, spawn_keys[k], (int)sizeof vals[k] - 1, vals[k], &flag) != MPI_SUCCESS) {
                root_err = MPI_ERR_INFO;
                snprintf(why, sizeof why, "invalid info");
            } else if (flag) {
                keys[ninfo] = spawn_keys[k];
                pv[ninfo++] = vals[k];
            }
        }
        rm_status_t st = RM_OK;
        if (root_err == MPI_SUCCESS && (st = comm_port_open(port)) >= 0) {
            port_open = 1;
            st = boot_spawn(maxprocs, command, argv, nargs, ninfo, keys, pv, port, why, sizeof why);
        }
        if (root_err == MPI_SUCCESS && st < 0) {
            root_err = MPI_ERR_SPAWN;
            if (st == RM_ERR_UNSUPPORTED)
                snprintf(why, sizeof why, "the launcher cannot spawn (railmpi's mpiexec and Hydra can)");
            else if (st != RM_ERR_NOT_FOUND)
                snprintf(why, sizeof why, "%s", rm_status_str(st));
        }
    }
    int errclass;
    rm_status_t st = comm_dyn_accept(port, SPAWN_CONNECT_TIMEOUT_S, root, root_err, c, &errclass, &n);
    if (port_open)
        comm_port_close(port);
    if (errclass == MPI_ERR_PORT)
        errclass = MPI_ERR_SPAWN; /* the children never connected */
    int failed = st < 0 || errclass != MPI_SUCCESS;
    int nerr = failed ? (c->rank == root || maxprocs >= 1 ? maxprocs : 0) : n->remote_group->size;
    if (array_of_errcodes != MPI_ERRCODES_IGNORE)
        for (int i = 0; i < nerr; i++)
            array_of_errcodes[i] = failed ? MPI_ERR_SPAWN : MPI_SUCCESS;
    MPI_CHECK_STATUS(c, st);
    if (errclass != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        MPI_FAIL(c, errclass, "%s%s%s", errclass == MPI_ERR_SPAWN ? "cannot spawn" : "bad arguments at the root",
                 *why ? ": " : "", why);
    }
    *intercomm = n->handle;
    MPI_END();
}
