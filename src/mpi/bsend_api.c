/* Buffered-send buffers: the process's (MPI_Buffer_attach), a
 * communicator's (MPI-4.1 MPI_Comm_attach_buffer), and the flush calls. A
 * buffered send uses its communicator's buffer if one is attached, else the
 * process's (src/proto/bsend.c). */
#include "mpi/mpiimpl.h"

#include <limits.h>

/* The helpers run under the lock and fail as a binding does (MPI_CHECKED). */

/* MPI_BUFFER_AUTOMATIC, or a null pointer as headers that spell it so pass:
 * either way no real buffer. */
int mpi_bsend_is_automatic(const void *buffer)
{
    return buffer == MPI_BUFFER_AUTOMATIC || buffer == NULL;
}

static int bsend_attach(const char *fn_name_, comm_t *c, bsend_buf_t **slot, void *buffer,
                        MPI_Count size)
{
    MPI_CHECKS_BEGIN();
    if (size < 0)
        MPI_FAIL(c, MPI_ERR_ARG, "negative size %lld", (long long)size);
    rm_status_t st = proto_bsend_attach(slot, buffer, (size_t)size, mpi_bsend_is_automatic(buffer));
    if (st == RM_ERR_INVALID)
        MPI_FAIL(c, MPI_ERR_BUFFER, "a buffer is already attached%s; detach it first",
                 c ? " to this communicator" : "");
    MPI_CHECK_STATUS(c, st);
    MPI_CHECKS_END();
}

/* Detaches the buffer of *slot (waiting until its messages are out) and
 * answers as the detach functions do: the buffer's address (an automatic
 * buffer's: the token it was attached with) to *buffer_addr, its size to
 * *size (int forms; MPI_UNDEFINED past INT_MAX, as a buffer attached with a
 * large-count form may be: it is detached all the same) or *csize (large-
 * count forms), 0 for an automatic buffer. Nothing attached: NULL and 0, as
 * railmpi answered before MPI-4.1's buffers and MPICH answers (programs
 * detach defensively). */
void mpi_bsend_detach_answer(bsend_buf_t **slot, void *buffer_addr, int *size, MPI_Count *csize)
{
    void *b;
    size_t s;
    int automatic;
    if (proto_bsend_detach(slot, &b, &s, &automatic) < 0) {
        b = NULL;
        s = 0;
        automatic = 0;
    }
    *(void **)buffer_addr = b;
    if (automatic)
        s = 0;
    if (csize)
        *csize = (MPI_Count)s;
    else
        *size = s > INT_MAX ? MPI_UNDEFINED : (int)s;
}

static int bsend_detach(const char *fn_name_, comm_t *c, bsend_buf_t **slot, void *buffer_addr,
                        int *size, MPI_Count *csize)
{
    MPI_CHECKS_BEGIN();
    CHECK_ARG(c, buffer_addr, "buffer_addr is NULL");
    CHECK_ARG(c, size || csize, "size is NULL");
    mpi_bsend_detach_answer(slot, buffer_addr, size, csize);
    MPI_CHECKS_END();
}

static int bsend_iflush(const char *fn_name_, comm_t *c, bsend_buf_t *b, MPI_Request *request)
{
    MPI_CHECKS_BEGIN();
    CHECK_ARG(c, request, "request is NULL");
    request_t *r;
    MPI_CHECK_STATUS(c, proto_bsend_iflush(b, &r));
    *request = r->handle;
    MPI_CHECKS_END();
}

RM_ALIAS(Buffer_attach)
int PMPI_Buffer_attach(void *buffer, int size)
{
    MPI_BEGIN("MPI_Buffer_attach");
    MPI_CHECKED(bsend_attach(fn_name_, NULL, proto_bsend_proc_slot(), buffer, size));
    MPI_END();
}

RM_ALIAS(Buffer_detach)
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_BEGIN("MPI_Buffer_detach");
    MPI_CHECKED(bsend_detach(fn_name_, NULL, proto_bsend_proc_slot(), buffer_addr, size, NULL));
    MPI_END();
}

RM_ALIAS(Buffer_flush)
int PMPI_Buffer_flush(void)
{
    MPI_BEGIN("MPI_Buffer_flush");
    MPI_CHECK_STATUS(NULL, proto_bsend_flush(*proto_bsend_proc_slot()));
    MPI_END();
}

RM_ALIAS(Buffer_iflush)
int PMPI_Buffer_iflush(MPI_Request *request)
{
    MPI_BEGIN("MPI_Buffer_iflush");
    MPI_CHECKED(bsend_iflush(fn_name_, NULL, *proto_bsend_proc_slot(), request));
    MPI_END();
}

RM_ALIAS(Comm_attach_buffer)
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    MPI_BEGIN("MPI_Comm_attach_buffer");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECKED(bsend_attach(fn_name_, c, &c->bsend, buffer, size));
    MPI_END();
}

RM_ALIAS(Comm_detach_buffer)
int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_BEGIN("MPI_Comm_detach_buffer");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECKED(bsend_detach(fn_name_, c, &c->bsend, buffer_addr, size, NULL));
    MPI_END();
}

RM_ALIAS(Comm_flush_buffer)
int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    MPI_BEGIN("MPI_Comm_flush_buffer");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECK_STATUS(c, proto_bsend_flush(c->bsend));
    MPI_END();
}

RM_ALIAS(Comm_iflush_buffer)
int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    MPI_BEGIN("MPI_Comm_iflush_buffer");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECKED(bsend_iflush(fn_name_, c, c->bsend, request));
    MPI_END();
}

/* ---- large-count forms (MPI-4.x) ---------------------------------------- */

RM_ALIAS(Buffer_attach_c)
int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    MPI_BEGIN("MPI_Buffer_attach_c");
    MPI_CHECKED(bsend_attach(fn_name_, NULL, proto_bsend_proc_slot(), buffer, size));
    MPI_END();
}

RM_ALIAS(Buffer_detach_c)
int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    MPI_BEGIN("MPI_Buffer_detach_c");
    MPI_CHECKED(bsend_detach(fn_name_, NULL, proto_bsend_proc_slot(), buffer_addr, NULL, size));
    MPI_END();
}

RM_ALIAS(Comm_attach_buffer_c)
int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    MPI_BEGIN("MPI_Comm_attach_buffer_c");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECKED(bsend_attach(fn_name_, c, &c->bsend, buffer, size));
    MPI_END();
}

RM_ALIAS(Comm_detach_buffer_c)
int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    MPI_BEGIN("MPI_Comm_detach_buffer_c");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECKED(bsend_detach(fn_name_, c, &c->bsend, buffer_addr, NULL, size));
    MPI_END();
}
