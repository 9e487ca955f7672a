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
#include <strings.h>

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

/* Info keys the launcher understands; others are ignored (MPI-3.1 §10.3.4).
 * mpi_initial_errhandler: the new job's initial error handler (MPI-4.1 9.3;
 * the first command's value counts for the job). */
static const char *const spawn_keys[] = {"host", "wdir", "path", "mpi_initial_errhandler"};
#define SPAWN_KEYS 4

/* At the root: check the commands, open the port, ask the launcher. An
 * MPI error class (and why) for the whole group, or MPI_SUCCESS. */
static int spawn_root(int count, char *cmds[], char **argvs[], const int maxprocs[], const MPI_Info infos[],
                      char *port, int *port_open, char *why, size_t whylen)
{
    if (count < 1 || !cmds || !maxprocs) {
        snprintf(why, whylen, "count below 1 or no commands");
        return MPI_ERR_ARG;
    }
    boot_cmd_t *bc = calloc((size_t)count, sizeof *bc);
    char(*vals)[SPAWN_KEYS][1024] = calloc((size_t)count, sizeof *vals);
    const char *(*kp)[SPAWN_KEYS] = calloc((size_t)count, sizeof *kp), *(*vp)[SPAWN_KEYS] = calloc((size_t)count, sizeof *vp);
    int cls = MPI_SUCCESS;
    if (!bc || !vals || !kp || !vp) {
        snprintf(why, whylen, "out of memory");
        cls = MPI_ERR_NO_MEM;
    }
    for (int c = 0; cls == MPI_SUCCESS && c < count; c++) {
        char **argv = argvs ? argvs[c] : MPI_ARGV_NULL;
        bc[c] = (boot_cmd_t){.n = maxprocs[c], .exe = cmds[c], .args = argv, .ikeys = kp[c], .ivals = vp[c]};
        while (argv && argv[bc[c].nargs])
            bc[c].nargs++;
        if (!cmds[c] || !*cmds[c] || maxprocs[c] < 1) {
            snprintf(why, whylen, "command %d: %s", c, !cmds[c] || !*cmds[c] ? "empty" : "maxprocs below 1");
            cls = MPI_ERR_ARG;
        }
        MPI_Info info = infos ? infos[c] : MPI_INFO_NULL;
        for (int k = 0; cls == MPI_SUCCESS && info != MPI_INFO_NULL && k < SPAWN_KEYS; k++) {
            int flag = 0;
            if (PMPI_Info_get(info, spawn_keys[k], (int)sizeof vals[c][k] - 1, vals[c][k], &flag) != MPI_SUCCESS) {
                snprintf(why, whylen, "command %d: invalid info", c);
                cls = MPI_ERR_INFO;
            } else if (flag && k == 3 && strcasecmp(vals[c][k], "mpi_errors_are_fatal") &&
                       strcasecmp(vals[c][k], "mpi_errors_abort") && strcasecmp(vals[c][k], "mpi_errors_return")) {
                snprintf(why, whylen, "command %d: info mpi_initial_errhandler=%s names no predefined error handler",
                         c, vals[c][k]);
                cls = MPI_ERR_INFO;
            } else if (flag) {
                kp[c][bc[c].ninfo] = spawn_keys[k];
                vp[c][bc[c].ninfo++] = vals[c][k];
            }
        }
    }
    rm_status_t st = RM_OK;
    if (cls == MPI_SUCCESS && (st = comm_port_open(port)) >= 0) {
        *port_open = 1;
        st = boot_spawn(count, bc, port, why, whylen);
    }
    if (cls == MPI_SUCCESS && st < 0) {
        cls = MPI_ERR_SPAWN;
        if (st == RM_ERR_UNSUPPORTED)
            snprintf(why, whylen, "the launcher cannot spawn (railmpi's mpiexec and Hydra can)");
        else if (st != RM_ERR_NOT_FOUND)
            snprintf(why, whylen, "%s", rm_status_str(st));
    }
    free(bc);
    free(vals);
    free(kp);
    free(vp);
    return cls;
}

/* Both bindings: `total` is the number of processes asked for as this
 * process knows it (significant at the root), for array_of_errcodes. */
static int spawn_common(const char *fn, int count, char *cmds[], char **argvs[], const int maxprocs[],
                        const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm, int errcodes[])
{
    comm_t *c, *n = NULL;
    if (!(c = comm_get(comm)))
        return mpi_err_raise(NULL, MPI_ERR_COMM, fn, "invalid communicator 0x%x", (unsigned)comm);
    if (comm_is_inter(c))
        return mpi_err_raise(c, MPI_ERR_COMM, fn, "not an intracommunicator");
    if (!intercomm)
        return mpi_err_raise(c, MPI_ERR_ARG, fn, "intercomm is NULL");
    if (root < 0 || root >= c->size)
        return mpi_err_raise(c, MPI_ERR_ROOT, fn, "invalid root %d (communicator size %d)", root, c->size);
    /* the commands, argv, maxprocs and info matter at the root only: what
     * it finds wrong fails the whole group */
    char port[MPI_MAX_PORT_NAME] = "", why[256] = "";
    int root_err = MPI_SUCCESS, port_open = 0;
    if (c->rank == root)
        root_err = spawn_root(count, cmds, argvs, maxprocs, infos, port, &port_open, why, sizeof why);
    int errclass;
    rm_status_t st = comm_dyn_accept(port, SPAWN_CONNECT_TIMEOUT_S, root, root_err, c, &errclass, &n);
    if (port_open)
        comm_port_close(port);
    if (errclass == MPI_ERR_PORT)
        errclass = MPI_ERR_SPAWN; /* the children never connected */
    int failed = st < 0 || errclass != MPI_SUCCESS, total = 0;
    for (int i = 0; count > 0 && maxprocs && i < count; i++)
        total += maxprocs[i] > 0 ? maxprocs[i] : 0;
    if (!failed)
        total = n->remote_group->size;
    if (errcodes != MPI_ERRCODES_IGNORE)
        for (int i = 0; i < total; i++)
            errcodes[i] = failed ? MPI_ERR_SPAWN : MPI_SUCCESS;
    if (st < 0)
        return mpi_err_raise(c, mpi_err_from_status(st), fn, "%s", rm_status_str(st));
    if (errclass != MPI_SUCCESS) {
        *intercomm = MPI_COMM_NULL;
        return mpi_err_raise(c, errclass, fn, "%s%s%s",
                             errclass == MPI_ERR_SPAWN ? "cannot spawn" : "bad arguments at the root",
                             *why ? ": " : "", why);
    }
    *intercomm = n->handle;
    return MPI_SUCCESS;
}

RM_ALIAS(Comm_spawn)
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    MPI_BEGIN("MPI_Comm_spawn");
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    err = spawn_common(fn_name_, 1, cmds, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes);
    MPI_END();
}

RM_ALIAS(Comm_spawn_multiple)
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                             MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    MPI_BEGIN("MPI_Comm_spawn_multiple");
    err = spawn_common(fn_name_, count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root,
                       comm, intercomm, array_of_errcodes);
    MPI_END();
}
