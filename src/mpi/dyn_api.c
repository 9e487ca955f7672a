/* Dynamic process bindings between separately started jobs (MPI-3.1 §10.4):
 * ports, accept/connect, join, disconnect, and the launcher's name service. */
#include "comm/attr.h"
#include "coll/inter.h"
#include "boot/boot.h"
#include "mpi/mpiimpl.h"

#include <stdlib.h>
#include <string.h>

/* MPI_Comm_connect waits this long for the port's owner to accept, unless
 * the info key "timeout" (seconds) says otherwise. */
#define DYN_CONNECT_TIMEOUT_S 30.0

RM_ALIAS(Open_port)
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    MPI_BEGIN("MPI_Open_port");
    CHECK_ARG(NULL, port_name, "port_name is NULL");
    (void)info; /* no keys are understood */
    MPI_CHECK_STATUS(NULL, comm_port_open(port_name));
    MPI_END();
}

RM_ALIAS(Close_port)
int PMPI_Close_port(const char *port_name)
{
    MPI_BEGIN("MPI_Close_port");
    CHECK_ARG(NULL, port_name, "port_name is NULL");
    if (comm_port_close(port_name) < 0)
        MPI_FAIL(NULL, MPI_ERR_PORT, "no open port '%.80s' here", port_name);
    MPI_END();
}

static const char *dyn_class_msg(int cls)
{
    return cls == MPI_ERR_PORT ? "the port is unknown, closed, or did not answer in time"
                               : "the connection between the two groups failed";
}

RM_ALIAS(Comm_accept)
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_accept");
    comm_t *c, *n = NULL;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (root < 0 || root >= c->size)
        MPI_FAIL(c, MPI_ERR_ROOT, "invalid root %d (communicator size %d)", root, c->size);
    (void)info;
    int errclass;
    /* port_name matters at the root only */
    MPI_CHECK_STATUS(c, comm_dyn_accept(c->rank == root && port_name ? port_name : "", 0, root, MPI_SUCCESS, c,
                                        &errclass, &n));
    if (errclass != MPI_SUCCESS)
        MPI_FAIL(c, errclass, "%s", dyn_class_msg(errclass));
    *newcomm = n->handle;
    MPI_END();
}

RM_ALIAS(Comm_connect)
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_connect");
    comm_t *c, *n = NULL;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (root < 0 || root >= c->size)
        MPI_FAIL(c, MPI_ERR_ROOT, "invalid root %d (communicator size %d)", root, c->size);
    double timeout = DYN_CONNECT_TIMEOUT_S;
    if (c->rank == root && info != MPI_INFO_NULL) {
        char v[64];
        int flag = 0;
        if (PMPI_Info_get(info, "timeout", (int)sizeof v - 1, v, &flag) != MPI_SUCCESS)
            MPI_FAIL(c, MPI_ERR_INFO, "invalid info");
        char *end;
        double t = flag ? strtod(v, &end) : 0;
        if (flag && end != v && t > 0)
            timeout = t;
    }
    int errclass;
    MPI_CHECK_STATUS(c, comm_dyn_connect(c->rank == root && port_name ? port_name : "", timeout, root, c,
                                         &errclass, &n));
    if (errclass != MPI_SUCCESS)
        MPI_FAIL(c, errclass, "%s", dyn_class_msg(errclass));
    *newcomm = n->handle;
    MPI_END();
}

RM_ALIAS(Comm_join)
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    MPI_BEGIN("MPI_Comm_join");
    CHECK_ARG(NULL, intercomm, "intercomm is NULL");
    if (fd < 0)
        MPI_FAIL(NULL, MPI_ERR_ARG, "invalid file descriptor %d", fd);
    comm_t *n = NULL;
    int errclass;
    MPI_CHECK_STATUS(NULL, comm_dyn_join(fd, &errclass, &n));
    if (errclass != MPI_SUCCESS) {
        /* MPI-3.1 §10.5.4: a socket that leads to no MPI process gives MPI_COMM_NULL;
         * railmpi reports the failure as well */
        *intercomm = MPI_COMM_NULL;
        MPI_FAIL(NULL, errclass, "no MPI process at the other end of the socket answered");
    }
    *intercomm = n->handle;
    MPI_END();
}

RM_ALIAS(Comm_disconnect)
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    MPI_BEGIN("MPI_Comm_disconnect");
    comm_t *c;
    CHECK_ARG(NULL, comm, "comm is NULL");
    CHECK_COMM(c, *comm);
    if (c == comm_world || c == comm_self)
        MPI_FAIL(c, MPI_ERR_COMM, "cannot disconnect %s", c->name);
    /* MPI-3.1 §10.5.4: pending communication completes first. Everything
     * sent on it before the barrier precedes the barrier's frames on each
     * channel; the drain then waits until every frame sent is acknowledged */
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_barrier(c) : coll_barrier(c));
    MPI_CHECK_STATUS(c, proto_drain());
    if (c->attrs && (err = attr_delete_all(&c->attrs, ATTR_COMM, *comm)) != MPI_SUCCESS)
        MPI_FAIL(c, err, "an attribute delete callback returned %d", err);
    mpi_spawn_forget(c);
    comm_release(c);
    *comm = MPI_COMM_NULL;
    MPI_END();
}

/* MPI-3.1 §10.4.4: names live in the launcher's name service (PMI-1's
 * publish_name, lookup_name, unpublish_name; mpiexec keeps them). */
static int dyn_name_class(rm_status_t st, int refused)
{
    return st == RM_ERR_NOT_FOUND || st == RM_ERR_UNSUPPORTED ? refused
           : st == RM_ERR_INVALID                           ? MPI_ERR_ARG
                                                            : MPI_ERR_OTHER;
}

static const char *dyn_name_why(rm_status_t st, const char *refused)
{
    return st == RM_ERR_NOT_FOUND     ? refused
           : st == RM_ERR_UNSUPPORTED ? "the launcher offers no name service (railmpi's mpiexec and Hydra do)"
           : st == RM_ERR_INVALID     ? "the service or port name is too long"
                                      : "the launcher did not answer";
}

RM_ALIAS(Publish_name)
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    MPI_BEGIN("MPI_Publish_name");
    CHECK_ARG(NULL, service_name && *service_name, "service_name is NULL or empty");
    CHECK_ARG(NULL, port_name && *port_name, "port_name is NULL or empty");
    (void)info;
    rm_status_t st = boot_name_publish(service_name, port_name);
    if (st < 0)
        MPI_FAIL(NULL, dyn_name_class(st, MPI_ERR_SERVICE), "'%.80s': %s", service_name,
                 dyn_name_why(st, "the name is published already"));
    MPI_END();
}

RM_ALIAS(Lookup_name)
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    MPI_BEGIN("MPI_Lookup_name");
    CHECK_ARG(NULL, service_name && *service_name, "service_name is NULL or empty");
    CHECK_ARG(NULL, port_name, "port_name is NULL");
    (void)info;
    rm_status_t st = boot_name_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
    if (st == RM_ERR_TRUNCATE)
        MPI_FAIL(NULL, MPI_ERR_NAME, "'%.80s': the published port name is longer than MPI_MAX_PORT_NAME",
                 service_name);
    if (st < 0)
        MPI_FAIL(NULL, dyn_name_class(st, MPI_ERR_NAME), "'%.80s': %s", service_name,
                 dyn_name_why(st, "no such name is published"));
    MPI_END();
}

RM_ALIAS(Unpublish_name)
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    MPI_BEGIN("MPI_Unpublish_name");
    CHECK_ARG(NULL, service_name && *service_name, "service_name is NULL or empty");
    CHECK_ARG(NULL, port_name, "port_name is NULL");
    (void)info;
    rm_status_t st = boot_name_unpublish(service_name);
    if (st < 0)
        MPI_FAIL(NULL, dyn_name_class(st, MPI_ERR_SERVICE), "'%.80s': %s", service_name,
                 dyn_name_why(st, "no such name is published"));
    MPI_END();
}
